#!/usr/bin/env python3
"""Benchmark `rankeval learn` (not a test): training time and memory, and the MSLR reference figures.

1. Scaling: a generated stream of G groups x 5 items x 30 features (G = 100,000 at
   --scale 1; numpy PCG64, seed 1), as canonical TSV in bench-data/learn/. For each
   scale in --scales, `rankeval learn train --objective M --features 'x*'` runs as a child
   process under GNU /usr/bin/time: wall time from spawn to exit (reading and parsing
   the TSV included) and peak resident memory. Memory should grow linearly with G.
2. MSLR: train on msn1.fold1.train.5k, score msn1.fold1.test.5k with NDCG@10 (gain
   2^rel - 1 and linear) for each rankeval model, scikit-learn's LinearSVC on the
   pairwise transform (--peers), and LightGBM's lambdarank (--peers; pip install
   lightgbm: not a dependency) as the non-linear reference.

Examples:
  scripts/bench_learn.py --scales 0.25,0.5,1
  scripts/bench_learn.py --only mslr --peers
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the learn commands do, before numpy loads
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench-data" / "learn"
RANKEVAL = str(Path(sys.executable).with_name("rankeval"))


def generate(groups: int, path: Path, size: int = 5, d: int = 30) -> None:
    """Features x ~ N(0, 1) (some scaled and shifted), gold = ranks of x·w + noise within the group."""
    if path.exists():
        return
    rng = np.random.default_rng(1)
    n = groups * size
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d) + rng.uniform(-5, 5, d)
    w = rng.normal(size=d)
    utility = ((X - X.mean(0)) / X.std(0)) @ w + rng.normal(size=n) * 2
    order = np.argsort(-utility.reshape(groups, size), axis=1)
    gold = np.empty((groups, size))
    np.put_along_axis(gold, order, np.arange(1, size + 1, dtype=float)[None, :].repeat(groups, 0), axis=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as out:
        out.write("group\titem\tgold\tpred\t" + "\t".join(f"x{j + 1}" for j in range(d)) + "\n")
        g = np.repeat(np.arange(groups), size)
        item = np.tile(np.arange(size), groups)
        step = 50000
        for start in range(0, n, step):
            stop = min(n, start + step)
            text = np.char.mod("%.6g", X[start:stop])
            lines = ["g%d\ti%d\t%d\t\t%s" % (a, b, c, "\t".join(row))
                     for a, b, c, row in zip(g[start:stop], item[start:stop], gold.ravel()[start:stop].astype(int),
                                             text.tolist())]
            out.write("\n".join(lines) + "\n")
    tmp.rename(path)


def timed(args: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds (user + sys), peak RSS MB, stderr) of one child process under GNU time."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M CPU %U %S", *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"failed: {' '.join(args)}\n{proc.stderr}")
    rss, user, system = re.findall(r"MAXRSS (\d+) CPU ([\d.]+) ([\d.]+)", proc.stderr)[-1]
    return wall, float(user) + float(system), float(rss) / 1024, proc.stderr


def scaling(scales: list[float], models: list[str], l2: float | None = None) -> None:
    print("| model | groups | items | wall s | CPU s | peak RSS MB | L-BFGS-B alone, CPU s | iterations |")
    print("|---|---|---|---|---|---|---|---|")
    for scale in scales:
        groups = int(100_000 * scale)
        path = DATA / f"train-{groups}.tsv"
        generate(groups, path)
        for model in models:
            out = DATA / f"model-{model}-{groups}.json"
            lam = [] if l2 is None else ["--lambda", str(l2)]
            wall, cpu, rss, _ = timed([RANKEVAL, "learn", "train", "--objective", model, "--features", "x*", *lam,
                                       "-o", str(out), str(path)])
            fit = fit_seconds(path, model, l2)
            import json

            info = json.loads(out.read_text())["training"]
            print(f"| {model}{'' if l2 is None else f' λ={l2:g}'} | {groups:,} | {groups * 5:,} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {fit:.1f} | "
                  f"{info['iterations']} |",
                  flush=True)


def fit_seconds(path: Path, model: str, l2: float | None = None) -> float:
    """The optimiser alone, in-process, on the loaded table (one BLAS thread, as the command)."""
    code = (
        "import os,sys,time;os.environ.setdefault('OPENBLAS_NUM_THREADS','1');"
        "from rankeval_cli import formats;from rankeval_cli.learn import data;"
        "from rankeval_cli.learn.model import settings, train_model;"
        f"t=data.load(formats.read({str(path)!r}),['x*'],'ranks');s=time.process_time();"
        f"train_model(t,{model!r},settings({model!r},**{{'lambda':{l2!r}}}),'ranks');print(time.process_time()-s)")
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def mslr(peers: bool) -> None:
    from rankeval_cli import formats
    from rankeval_cli.learn import data
    from rankeval_cli.learn.model import predict_batches, settings, train_model
    from rankeval_cli.measures.dcg import ndcg_stream

    root = next(p for p in (ROOT.parent / "shared" / "data", Path("/work/shared/data")) if p.is_dir())
    path = str(root / "letor" / "msn1.fold1.{}.5k.txt.gz")
    table = data.load(formats.read(path.format("train"), "letor"), ["f*"], "grades")
    test = list(formats.read(path.format("test"), "letor"))

    def ndcg(batches, gain):
        parts = ndcg_stream(batches, k=10, gain=gain, relevance="grades")
        return float(np.nanmean(np.concatenate([p.values for p in parts])))

    def scored(scores):
        from rankeval_cli.learn.model import with_scores

        start = 0
        for batch in test:
            yield with_scores(batch, scores[start:start + batch.n_rows])
            start += batch.n_rows

    print("| model | NDCG@10 (2^rel - 1) | NDCG@10 (linear) | objective value | iterations | train s |")
    print("|---|---|---|---|---|---|")
    runs = [("ranksvm", {}), ("ranksvm", {"loss": "hinge"}), ("listnet", {}), ("listmle", {}), ("regression", {}),
            ("listnet", {"hidden": 16}), ("listmle", {"hidden": 16})]
    for name, extra in runs:
        start = time.perf_counter()
        model = train_model(table, name, settings(name, **extra), "grades")
        seconds = time.perf_counter() - start
        label = name + "".join(f" {k}={v}" for k, v in extra.items())
        print(f"| {label} | {ndcg(predict_batches(model, test), 'exp'):.4f} | {ndcg(predict_batches(model, test), 'linear'):.4f} "
              f"| {model.training['objective_value']:.10g} | {model.training['iterations']} | {seconds:.1f} |", flush=True)
        if name == "ranksvm" and not extra:
            ranksvm = model
    if not peers:
        return
    from sklearn.svm import LinearSVC

    from rankeval_cli.learn import train

    rows, offsets, _, _ = data.training_rows(table.utility, table.offsets, True)
    X = ranksvm.scaler.transform(table.X[rows])
    lam = ranksvm.hyperparameters["lambda"]
    f, net, ctx = train.objective_function("ranksvm", X, table.utility[rows], offsets, l2=lam)
    diff = X[ctx.better] - X[ctx.worse]
    label = np.ones(len(diff))
    label[1::2], diff[1::2] = -1, -diff[1::2]
    start = time.perf_counter()
    svc = LinearSVC(C=1 / (lam * ctx.n_pairs), fit_intercept=False, dual=True, tol=1e-4, max_iter=10000).fit(diff, label)
    seconds = time.perf_counter() - start
    theta = np.r_[svc.coef_.ravel(), 0.0]
    Xt = np.concatenate([data.feature_matrix(b, ranksvm.features) for b in test])
    s = ranksvm.scaler.transform(Xt) @ theta[:-1]
    print(f"| LinearSVC (pairwise transform, same objective) | {ndcg(scored(s), 'exp'):.4f} | "
          f"{ndcg(scored(s), 'linear'):.4f} | {f(theta)[0]:.10g} | {svc.n_iter_} | {seconds:.1f} |", flush=True)
    try:
        import lightgbm
    except ImportError:
        print("| LightGBM lambdarank | not installed (pip install lightgbm) | | | | |")
        return
    Xtr = table.X
    groups = np.diff(table.offsets)
    start = time.perf_counter()
    ranker = lightgbm.LGBMRanker(objective="lambdarank", n_estimators=300, learning_rate=0.05, num_leaves=31,
                                 min_child_samples=20, random_state=1, verbose=-1, n_jobs=1, deterministic=True)
    ranker.fit(Xtr, table.utility.astype(int), group=groups)
    seconds = time.perf_counter() - start
    s = ranker.predict(np.concatenate([data.feature_matrix(b, table.names) for b in test]))
    print(f"| LightGBM {lightgbm.__version__} lambdarank (300 trees, 31 leaves, lr 0.05) | {ndcg(scored(s), 'exp'):.4f} | "
          f"{ndcg(scored(s), 'linear'):.4f} | | | {seconds:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="0.25,0.5,1")
    parser.add_argument("--models", default="ranksvm,listnet,listmle,regression")
    parser.add_argument("--only", choices=("scaling", "mslr"), default=None)
    parser.add_argument("--lambda", dest="l2", type=float, default=None, help="--lambda for the scaling runs")
    parser.add_argument("--peers", action="store_true", help="also LinearSVC and LightGBM on MSLR")
    args = parser.parse_args()
    if args.only in (None, "mslr"):
        mslr(args.peers)
    if args.only in (None, "scaling"):
        scaling([float(s) for s in args.scales.split(",")], args.models.split(","), args.l2)


if __name__ == "__main__":
    main()
