#!/usr/bin/env python3
"""Benchmark the parallel workloads: one worker, two workers, a Dask LocalCluster of two.

    scripts/bench_parallel.py [--suite commands|track] [--data ../shared/data] [--scratch DIR]
                              [--only NAME,...] [--sizes small,large] [--conditions idle,busy]
                              [--no-cluster] [--repeat 1] [--markdown FILE]

Suite ``commands`` (the default): every command that takes --jobs, each on a ``small`` input
(well under a second of parallel work: a pool must not make it slower) and a ``large`` one
(seconds to a minute; scripts/bench_lib/parallel_inputs.py), each run with one worker
(--jobs 1), two (--jobs 2) and a LocalCluster of two single-threaded worker processes
(--scheduler), on an idle machine and with the other core busy (``busy``: one process
spinning in a loop for as long as the measurement runs). The targets: --jobs 2 at least as
fast as --jobs 1 when idle and at most 1.2x its time when busy; the LocalCluster at most 1.5x
--jobs 1 on the small inputs. Outputs are compared byte for byte. Beside each workload, the
machine's ceiling under the same condition: two independent copies of the --jobs 1 command at
once (what two cores give two processes that share nothing; with ``busy``, beside the spinner).

Suite ``track``: the large workloads of the parallel section of BENCHMARKS.md:
  meta-eval  the WMT20 MQM metrics table (en-de and zh-en MQM scores; every metric score
             file of data/wmt20-mqm: 39 files, 40 metrics) with the default statistics,
             1,000 permutations per pair of metrics and early stopping: 1,600 pair tests
  compare    20 TREC runs of W5's size (7,000 queries x 1,000 passages each, written
             once into the scratch directory: about 5 GB) against sparse qrels:
             compare --all-pairs -m map,ndcg_cut_10 (190 pairs; t, Wilcoxon, randomization
             and bootstrap tests)
  trec_eval  the same 20 runs: rankeval trec_eval -m all_trec (one report per run)
with the machine's ceiling: two independent copies of the one-worker command at once (the
speed-up two cores give two processes that share nothing).

Prints wall time, the ratio to one worker, the peak resident memory of the main process and
of the largest worker (sampled from /proc every 100 ms, the process tree only: Linux only),
whether the outputs are identical, and the load average when the suite started and ended
(the machine may be shared: measure when it is quiet). The LocalCluster (dask.distributed,
the ``dask`` extra) is started once per condition; its workers' peaks are their own.
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

from bench_lib import parallel_inputs  # noqa: E402

TRACK = ("meta-eval", "compare", "trec_eval")
#: the environment every measured command gets: as the script started (a LocalCluster sets
#: MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ... in this process, and they would reach the
#: commands measured after it: glibc with a fixed trim threshold halves a reader's speed)
CLEAN_ENV = dict(os.environ)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", choices=("commands", "track"), default="commands")
    p.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    p.add_argument("--scratch", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "rankeval-bench-parallel")
    p.add_argument("--runs", type=int, default=20, help="track: TREC runs")
    p.add_argument("--queries", type=int, default=7000, help="track: queries per run")
    p.add_argument("--only", default="", help="workloads to run (default: all of the suite)")
    p.add_argument("--sizes", default="small,large", help="commands: input sizes")
    p.add_argument("--conditions", default="idle,busy", help="commands: the other core idle, or busy")
    p.add_argument("--repeat", type=int, default=1, help="measurements per case (the median is shown)")
    p.add_argument("--no-cluster", action="store_true", help="skip the Dask LocalCluster")
    p.add_argument("--markdown", type=Path, default=None, help="also write the table as Markdown")
    p.add_argument("--pause", type=float, default=None,
                   help="seconds of rest before each measurement (a virtual machine's host may slow a CPU "
                        "that has run for minutes) [default: 20 for track, 2 for commands]")
    args = p.parse_args(argv)
    args.only = [c for c in args.only.split(",") if c]
    args.sizes = [c for c in args.sizes.split(",") if c]
    args.conditions = [c for c in args.conditions.split(",") if c]
    if args.pause is None:
        args.pause = 20.0 if args.suite == "track" else 2.0
    if args.suite == "track" and set(args.only) - set(TRACK):
        p.error(f"unknown workload(s) {', '.join(sorted(set(args.only) - set(TRACK)))}; choose from {', '.join(TRACK)}")
    if set(args.conditions) - {"idle", "busy"} or set(args.sizes) - {"small", "large"}:
        p.error("--conditions takes idle and busy, --sizes small and large")
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


def run_measured(argv: list[str], out: Path, stdin: Path | None = None) -> dict:
    """Wall time, peak RSS of the main process and of its largest descendant (a worker).
    A command without ``-o`` writes its standard output to ``out``; ``stdin`` is its input."""
    peaks = {"main": 0, "worker": 0}
    start = time.perf_counter()
    sink = open(out, "wb") if "-o" not in argv else subprocess.DEVNULL
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL
    proc = subprocess.Popen(argv, stdin=source, stdout=sink, stderr=subprocess.PIPE, env=CLEAN_ENV)
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
    for f in (sink, source):
        if f is not subprocess.DEVNULL:
            f.close()
    done.set()
    thread.join()
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed ({proc.returncode}): {err.decode()[-500:]}")
    return {"seconds": seconds, "main_mb": peaks["main"] / 1024, "worker_mb": peaks["worker"] / 1024,
            "output": out.read_bytes()}


def two_copies(argv: list[str], out: Path, stdin: Path | None = None) -> dict:
    """The machine's own ceiling: two copies of the one-worker command at once (each writing its
    own file). Its seconds are the pair's time / 2, so its ratio to one worker is the inverse of
    the throughput two cores give two independent processes here (0.5: twice one's)."""
    start = time.perf_counter()
    outs = [out.with_name(f"{out.name}.copy{k}") for k in range(2)]
    procs = []
    for o in outs:
        args = [o if a == str(out) else a for a in map(str, argv)]
        sink = open(o, "wb") if "-o" not in args else subprocess.DEVNULL
        source = open(stdin, "rb") if stdin else subprocess.DEVNULL
        procs.append((subprocess.Popen(args, stdin=source, stdout=sink, stderr=subprocess.DEVNULL, env=CLEAN_ENV),
                      sink, source))
    for proc, *files in procs:
        proc.wait()
        for f in files:
            if f is not subprocess.DEVNULL:
                f.close()
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
    """``argv`` with ``options`` right after the subcommand (before its files: trec_eval reads its
    options first, as trec_eval does)."""
    at = next(i for i, a in enumerate(argv) if a in SUBCOMMANDS) + 1
    at += argv[at - 1] == "learn"  # learn cv
    return [*argv[:at], *options, *argv[at:]]


#: the first word of every benchmarked subcommand
SUBCOMMANDS = {"meta-eval", "compare", "trec_eval", "tau", "report", "mrr", "ndcg", "err", "rankdcg", "correlate",
               "borda", "aggregate", "learn"}


def track_commands(args, rk: list[str], out: Path) -> dict[str, list[str]]:
    mqm = args.data / "wmt20-mqm"
    only = args.only or list(TRACK)
    cmds = {}
    if "meta-eval" in only:
        cmds["meta-eval"] = [*rk, "-q", "meta-eval",
                             "--human", str(mqm / "mqm_newstest2020_ende.avg_seg_scores.tsv"),
                             "--human", str(mqm / "mqm_newstest2020_zhen.avg_seg_scores.tsv"),
                             "--index", str(mqm / "details.en-de.txt"), "--index", str(mqm / "details.zh-en.txt"),
                             *map(str, sorted(mqm.glob("*.score.gz"))), "-o", str(out)]
    if {"compare", "trec_eval"} & set(only):
        qrels, runs = trec_files(args.scratch, args.runs, args.queries)
        if "compare" in only:
            cmds["compare"] = [*rk, "-q", "compare", "--qrels", str(qrels), "--all-pairs", "-m", "map,ndcg_cut_10",
                               *map(str, runs), "-o", str(out)]
        if "trec_eval" in only:
            cmds["trec_eval"] = [*rk, "trec_eval", "-m", "all_trec", str(qrels), *map(str, runs)]
    return cmds


def track(args, rk, out) -> list[tuple]:
    rows = []
    for name, argv_ in track_commands(args, rk, out).items():
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
            rows.append((name, label, r["seconds"], r["seconds"] / base["seconds"], r["main_mb"], r["worker_mb"],
                         r["output"] == base["output"]))
    return rows


# --- every command, idle and busy ----------------------------------------------------------------

def spin():
    """The other core busy: a process spinning until killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def median_run(argv, out, stdin, repeat, pause) -> dict:
    runs = []
    for _ in range(repeat):
        time.sleep(pause)
        runs.append(run_measured(argv, out, stdin))
    runs.sort(key=lambda r: r["seconds"])
    return runs[len(runs) // 2]


def command_suite(args, rk: list[str], out: Path) -> list[tuple]:
    """Every command at each size and condition: --jobs 1, --jobs 2, the LocalCluster, the ceiling.
    Each workload's rows go to stderr as they are measured; a workload that fails is said and skipped."""
    rows = []
    cluster = None
    if not args.no_cluster:
        from dask.distributed import LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        for size in args.sizes:
            cmds = parallel_inputs.commands(args.scratch / "inputs", args.data, size)
            for condition in args.conditions:
                hog = spin() if condition == "busy" else None
                try:
                    for name, (argv_, stdin) in cmds.items():
                        if args.only and name not in args.only:
                            continue
                        try:
                            found = workload_rows(args, [*rk, "-q", *argv_], stdin, out, cluster)
                        except SystemExit as e:
                            print(f"{condition} {size} {name}: {e}", file=sys.stderr)
                            continue
                        for row in found:
                            rows.append((f"{name} ({size}, {condition})", *row))
                            print(markdown_row(rows[-1]), file=sys.stderr)
                finally:
                    if hog is not None:
                        hog.kill()
                        hog.wait()
    finally:
        if cluster is not None:
            cluster.close()
    return rows


def workload_rows(args, argv_: list[str], stdin: Path | None, out: Path, cluster) -> list[tuple]:
    """(engine, seconds, ratio to --jobs 1, main MB, worker MB, output identical) per engine."""
    engines = [("--jobs 1", with_options(argv_, "--jobs", "1")), ("--jobs 2", with_options(argv_, "--jobs", "2"))]
    if cluster is not None:
        engines.append(("LocalCluster", with_options(argv_, "--scheduler", cluster.scheduler_address)))
    results = []
    for label, argv in engines:
        result = median_run(argv, out, stdin, args.repeat, args.pause)
        if label == "LocalCluster":
            result["worker_mb"] = float("nan")  # the cluster's workers are not the command's
        results.append((label, result))
    time.sleep(args.pause)
    results.append(("ceiling: two --jobs 1 copies at once", two_copies(engines[0][1], out, stdin)))
    base = results[0][1]
    return [(label, r["seconds"], r["seconds"] / base["seconds"], r["main_mb"], r["worker_mb"],
             r["output"] == base["output"]) for label, r in results]


def markdown_row(row: tuple) -> str:
    name, label, s, x, m, w, same = row
    mb = (lambda v: "–" if v != v else f"{v:.0f}")  # NaN: not measured
    return f"| {name} | {label} | {s:.2f} | {x:.2f} | {mb(m)} | {mb(w)} | {'yes' if same else 'NO'} |"


def main(argv=None) -> int:
    args = parse_args(argv)
    rk = [shutil.which("rankeval") or sys.exit("rankeval is not on PATH")]
    args.scratch.mkdir(parents=True, exist_ok=True)
    out = args.scratch / "out.txt"
    before = os.getloadavg()
    rows = track(args, rk, out) if args.suite == "track" else command_suite(args, rk, out)
    after = os.getloadavg()
    header = ("workload", "engine", "wall s", "time / 1 worker", "main MB", "largest worker MB", "output identical")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [markdown_row(row) for row in rows]
    lines.append("")
    lines.append(f"Load average (1, 5, 15 min) at the start: {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}; "
                 f"at the end: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}; {os.cpu_count()} CPUs.")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
