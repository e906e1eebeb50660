#!/usr/bin/env python3
"""Time ``rankeval judges`` on a large simulated study and check that its output does not
depend on how it ran.

The study: 100 runs x 50 topics x 1,000 retrieved documents (5 million run lines), a
reference qrels over the depth-100 pool, 40 candidate qrels labelling the same pool through
noise of increasing rate, 1,000 bootstrap replicates, one measure (nDCG@10). It is run with
``--jobs 1``, ``--jobs 2`` and on a Dask LocalCluster of two one-thread workers; the wall
times are printed and the three outputs compared byte for byte.

Usage: scripts/bench_judges.py [--dir /tmp/judges-bench] [--skip-cluster]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RUNS, TOPICS, DOCS, CANDIDATES, POOL = 100, 50, 1000, 40, 100


def make(folder: Path, seed: int = 7) -> None:
    """The study's files (written once; kept between runs of this script)."""
    if (folder / "done").exists():
        return
    rng = np.random.default_rng(seed)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    grades = rng.choice(4, size=(TOPICS, DOCS), p=[0.7, 0.15, 0.1, 0.05])
    quality = np.linspace(0.5, 1.5, RUNS)
    pools = [set() for _ in range(TOPICS)]
    names = [f"d{t}-{i:04d}" for t in range(TOPICS) for i in range(DOCS)]
    for r in range(RUNS):
        lines = []
        for t in range(TOPICS):
            score = quality[r] * grades[t] + rng.normal(0, 1.5, DOCS)
            order = np.argsort(-score, kind="stable")
            pools[t].update(order[:POOL].tolist())
            lines += [f"{t + 1} Q0 {names[t * DOCS + d]} {i + 1} {score[d]:.5f} run{r:03d}\n"
                      for i, d in enumerate(order.tolist())]
        (folder / "runs" / f"run{r:03d}.run").write_text("".join(lines))
    pool = [(t, d) for t in range(TOPICS) for d in sorted(pools[t])]
    t_idx, d_idx = np.array([p[0] for p in pool]), np.array([p[1] for p in pool])
    truth = grades[t_idx, d_idx]
    write_qrels(folder / "reference.qrels", t_idx, d_idx, truth, names)
    for c in range(CANDIDATES):
        rate = 0.05 + 0.9 * c / (CANDIDATES - 1)
        noisy = np.where(rng.random(len(truth)) < rate, rng.integers(0, 4, len(truth)), truth)
        write_qrels(folder / f"cand{c:02d}.qrels", t_idx, d_idx, noisy, names)
    (folder / "done").write_text("")


def write_qrels(path, t_idx, d_idx, grades, names) -> None:
    path.write_text("".join(f"{t + 1} 0 {names[t * DOCS + d]} {g}\n" for t, d, g in zip(t_idx, d_idx, grades)))


def command(folder: Path, out: Path, extra) -> list:
    cands = [f"--candidate={p}" for p in sorted(folder.glob("cand*.qrels"))]
    return [sys.executable, "-m", "rankeval_cli", "-q", "judges", "--qrels", str(folder / "reference.qrels"), *cands,
            "-m", "ndcg_cut_10", "--bootstrap", "1000", "-o", str(out), *extra,
            *sorted(str(p) for p in (folder / "runs").glob("*.run"))]


def timed(cmd, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/judges-bench"))
    parser.add_argument("--skip-cluster", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    make(args.dir)
    print(f"study files ready in {time.perf_counter() - start:.1f} s ({RUNS} runs x {TOPICS} topics x {DOCS} "
          f"documents, {CANDIDATES} candidates)")
    outs = {}
    for jobs in (1, 2):
        out = args.dir / f"out-jobs{jobs}.tsv"
        print(f"--jobs {jobs}: {timed(command(args.dir, out, ['--jobs', str(jobs)])):.1f} s", flush=True)
        outs[f"jobs {jobs}"] = out
    if not args.skip_cluster:
        from dask.distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            out = args.dir / "out-cluster.tsv"
            env = dict(os.environ)
            seconds = timed(command(args.dir, out, ["--scheduler", cluster.scheduler_address]), env)
            print(f"LocalCluster (2 workers): {seconds:.1f} s", flush=True)
            outs["cluster"] = out
    first = outs["jobs 1"]
    for name, out in outs.items():
        print(f"{name}: {'identical to --jobs 1' if filecmp.cmp(first, out, shallow=False) else 'DIFFERS'}")


if __name__ == "__main__":
    main()
