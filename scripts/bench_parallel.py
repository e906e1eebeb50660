#!/usr/bin/env python3
"""Benchmark the parallel workloads: one worker, two workers, a Dask LocalCluster of two.

    scripts/bench_parallel.py [--data ../shared/data] [--scratch DIR] [--runs 20]
                              [--queries 7000] [--only meta-eval,compare,trec_eval]
                              [--no-cluster] [--markdown FILE]

Workloads (each run end to end as a child process, outputs compared byte for byte):
  meta-eval  the WMT20 MQM metrics table (en-de and zh-en MQM scores; every metric score
             file of data/wmt20-mqm: 39 files, 40 metrics) with the default statistics,
             1,000 permutations per pair of metrics and early stopping: 1,600 pair tests
  compare    20 TREC runs of W5's size (7,000 queries x 1,000 passages each, written
             once into the scratch directory: about 5 GB) against sparse qrels:
             compare --all-pairs -m map,ndcg_cut_10 (190 pairs; t, Wilcoxon, randomization
             and bootstrap tests)
  trec_eval  the same 20 runs: rankeval trec_eval -m all_trec (one report per run)

Prints wall time, speed-up over one worker, the peak resident memory of the main
process and of the largest worker (sampled from /proc every 100 ms, the process tree
only: Linux only), whether the outputs are identical, and the machine's ceiling for the
workload: two independent copies of the one-worker command run at once (the speed-up two
cores give two processes that share nothing; shared caches, memory bandwidth and a
virtual machine's host keep it below 2). The LocalCluster (dask.distributed, the ``dask``
extra) has two single-threaded worker processes; its workers' peaks are their own
(``resource.getrusage`` on each worker).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_lib import workloads  # noqa: E402

CASES = ("meta-eval", "compare", "trec_eval")
#: the environment every measured command gets: as the script started (a LocalCluster sets
#: MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ... in this process, and they would reach the
#: commands measured after it: glibc with a fixed trim threshold halves a reader's speed)
CLEAN_ENV = dict(os.environ)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    p.add_argument("--scratch", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "rankeval-bench-parallel")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--queries", type=int, default=7000)
    p.add_argument("--only", default=",".join(CASES))
    p.add_argument("--no-cluster", action="store_true", help="skip the Dask LocalCluster")
    p.add_argument("--markdown", type=Path, default=None, help="also write the table as Markdown")
    p.add_argument("--pause", type=float, default=20.0,
                   help="seconds of rest before each measurement (a virtual machine's host may slow a CPU "
                        "that has run for minutes) [default: 20]")
    args = p.parse_args(argv)
    args.only = [c for c in args.only.split(",") if c]
    unknown = set(args.only) - set(CASES)
    if unknown:
        p.error(f"unknown workload(s) {', '.join(sorted(unknown))}; choose from {', '.join(CASES)}")
    return args


# --- the 20 runs ---------------------------------------------------------------------------------

def _runs_text(n_queries: int, k: int):
    """Run k: W5's queries and passages, scores = W5's score + noise of run k (sd 1.5 + k/10),
    ranked again: runs of differing quality over the same candidates."""
    import numpy as np

    for start, count in workloads._chunks_of(n_queries, 500):
        _, qids, docs, scores = workloads._w5_queries(n_queries, start, count)
        noise = np.random.default_rng([workloads.SEED, 50, k, start]).normal(0, 1.5 + k / 10, scores.shape)
        scores = np.round(scores + noise, 4)
        order = np.argsort(-scores, axis=1, kind="stable")
        docs, scores = np.take_along_axis(docs, order, 1), np.take_along_axis(scores, order, 1)
        lines = []
        for q, row_d, row_s in zip(qids.tolist(), docs.tolist(), scores.tolist()):
            lines.append("".join(f"{q} Q0 {d} {r} {s:.4f} run{k}\n" for r, (d, s) in enumerate(zip(row_d, row_s), 1)))
        yield "".join(lines)


def trec_files(folder: Path, n_runs: int, n_queries: int) -> tuple[Path, list[Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / f"w5-{n_queries}.qrels"
    if not qrels.exists():
        workloads._write_plain(qrels, workloads._w5_qrels_text(n_queries, graded=False))
    runs = []
    for k in range(n_runs):
        run = folder / f"w5-{n_queries}.run{k:02d}"
        if not run.exists():
            print(f"writing {run}", file=sys.stderr)
            workloads._write_plain(run, _runs_text(n_queries, k))
        runs.append(run)
    return qrels, runs


# --- measuring -----------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (/proc/PID/task/TID/children: no scan of all of /proc)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_measured(argv: list[str], out: Path) -> dict:
    """Wall time, peak RSS of the main process and of its largest descendant (a worker).
    A command without ``-o`` writes its standard output to ``out``."""
    peaks = {"main": 0, "worker": 0}
    start = time.perf_counter()
    sink = open(out, "wb") if "-o" not in argv else subprocess.DEVNULL
    proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=CLEAN_ENV)
    done = threading.Event()

    def sample():
        while not done.is_set():
            peaks["main"] = max(peaks["main"], _rss_kb(proc.pid))
            todo = _children(proc.pid)
            while todo:
                pid = todo.pop()
                peaks["worker"] = max(peaks["worker"], _rss_kb(pid))
                todo.extend(_children(pid))
            done.wait(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    if sink is not subprocess.DEVNULL:
        sink.close()
    done.set()
    thread.join()
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed ({proc.returncode}): {err.decode()[-500:]}")
    return {"seconds": seconds, "main_mb": peaks["main"] / 1024, "worker_mb": peaks["worker"] / 1024,
            "output": out.read_bytes()}


def two_copies(argv: list[str], out: Path) -> dict:
    """The machine's own ceiling: two copies of the one-worker command at once (each writing its
    own file); the speed-up column is then the throughput of the pair, 2 x (one copy's time) /
    (the pair's time), what two cores give two independent processes here."""
    start = time.perf_counter()
    outs = [out.with_name(f"{out.name}.copy{k}") for k in range(2)]
    procs = []
    for o in outs:
        args = [o if a == str(out) else a for a in map(str, argv)]
        sink = open(o, "wb") if "-o" not in args else subprocess.DEVNULL
        procs.append((subprocess.Popen(args, stdout=sink, stderr=subprocess.DEVNULL, env=CLEAN_ENV), sink))
    for proc, sink in procs:
        proc.wait()
        if sink is not subprocess.DEVNULL:
            sink.close()
        if proc.returncode:
            raise SystemExit(f"{' '.join(argv[:4])} ... failed ({proc.returncode})")
    seconds = (time.perf_counter() - start) / 2  # per copy, so that speed-up = base / this
    return {"seconds": seconds, "main_mb": float("nan"), "worker_mb": float("nan"), "output": outs[0].read_bytes()}


def cluster_run(argv: list[str], out: Path) -> dict:
    """The same on a fresh LocalCluster of two single-threaded worker processes."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        result = run_measured(with_options(argv, "--scheduler", cluster.scheduler_address), out)
        peaks = client.run(lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss)
    result["worker_mb"] = max(peaks.values()) / 1024
    return result


def with_options(argv: list[str], *options: str) -> list[str]:
    """``argv`` with ``options`` right after the subcommand (before its files)."""
    at = next(i for i, a in enumerate(argv) if a in CASES) + 1
    return [*argv[:at], *options, *argv[at:]]


def commands(args, rk: list[str], out: Path) -> dict[str, list[str]]:
    mqm = args.data / "wmt20-mqm"
    cmds = {}
    if "meta-eval" in args.only:
        cmds["meta-eval"] = [*rk, "-q", "meta-eval",
                             "--human", str(mqm / "mqm_newstest2020_ende.avg_seg_scores.tsv"),
                             "--human", str(mqm / "mqm_newstest2020_zhen.avg_seg_scores.tsv"),
                             "--index", str(mqm / "details.en-de.txt"), "--index", str(mqm / "details.zh-en.txt"),
                             *map(str, sorted(mqm.glob("*.score.gz"))), "-o", str(out)]
    if {"compare", "trec_eval"} & set(args.only):
        qrels, runs = trec_files(args.scratch, args.runs, args.queries)
        if "compare" in args.only:
            cmds["compare"] = [*rk, "-q", "compare", "--qrels", str(qrels), "--all-pairs", "-m", "map,ndcg_cut_10",
                               *map(str, runs), "-o", str(out)]
        if "trec_eval" in args.only:
            cmds["trec_eval"] = [*rk, "trec_eval", "-m", "all_trec", str(qrels), *map(str, runs)]
    return cmds


def main(argv=None) -> int:
    args = parse_args(argv)
    rk = [shutil.which("rankeval") or sys.exit("rankeval is not on PATH")]
    args.scratch.mkdir(parents=True, exist_ok=True)
    out = args.scratch / "out.txt"
    rows = []
    for name, argv_ in commands(args, rk, out).items():
        engines = [("1 worker", lambda a: run_measured(with_options(a, "--jobs", "1"), out)),
                   ("2 workers", lambda a: run_measured(with_options(a, "--jobs", "2"), out))]
        if not args.no_cluster:
            engines.append(("LocalCluster, 2 workers", lambda a: cluster_run(a, out)))
        engines.append(("ceiling: two 1-worker copies at once", lambda a: two_copies(with_options(a, "--jobs", "1"), out)))
        results = []
        for label, engine in engines:
            print(f"{name}: {label} ...", file=sys.stderr)
            time.sleep(args.pause)
            results.append((label, engine(argv_)))
        base = results[0][1]
        for label, r in results:
            rows.append((name, label, r["seconds"], base["seconds"] / r["seconds"], r["main_mb"], r["worker_mb"],
                         r["output"] == base["output"]))
    header = ("workload", "engine", "wall s", "speed-up", "main MB", "largest worker MB", "output identical")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, label, s, x, m, w, same in rows:
        mb = (lambda v: "–" if v != v else f"{v:.0f}")  # NaN: not measured
        lines.append(f"| {name} | {label} | {s:.1f} | {x:.2f}x | {mb(m)} | {mb(w)} | {'yes' if same else 'NO'} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
