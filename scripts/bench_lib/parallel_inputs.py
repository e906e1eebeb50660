"""Inputs and commands of scripts/bench_parallel.py: one workload per command that takes --jobs.

Every input is generated deterministically (numpy PCG64, fixed seeds) into the scratch
folder, once. Each workload comes in two sizes: ``large`` (a few seconds to a minute of work
on one core: the parallel part dominates) and ``small`` (well under a second of parallel
work: what a pool must not make slower).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 36


def _write(path: Path, text_of) -> Path:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text_of())
        tmp.rename(path)
    return path


def stream(folder: Path, groups: int) -> Path:
    """Groups of 8 MT systems' outputs (S0..S7; an lp column, two per half) with gold ranks 1-8,
    pred and six competing predictions p0..p5 of growing noise, and two features f1, f2."""
    def text():
        rng = np.random.default_rng([SEED, 1, groups])
        quality = np.linspace(1.5, -1.5, 8)
        lines = ["group\titem\tgold\tpred\tlp\tp0\tp1\tp2\tp3\tp4\tp5\tf1\tf2"]
        for g in range(groups):
            latent = quality + rng.normal(0, 1, 8)
            gold = np.argsort(np.argsort(-latent)) + 1
            lp = "xx-en" if g % 2 else "yy-en"
            noise = rng.normal(0, 1, (7, 8)) * np.arange(1, 8)[:, None] / 2
            for i in range(8):
                pred, *others = (f"{latent[i] + noise[k, i]:.4f}" for k in range(7))
                lines.append("\t".join([f"g{g}", f"S{i}", str(gold[i]), pred, lp, *others,
                                         f"{latent[i] + rng.normal():.4f}", f"{rng.normal():.4f}"]))
        return "\n".join(lines) + "\n"
    return _write(folder / f"stream-{groups}.tsv", text)


def judgments(folder: Path, segments: int) -> Path:
    """Direct-assessment judgments of 6 systems, two language pairs, two domains (the layout
    `convert --from appraise` writes): one judgment per group."""
    def text():
        rng = np.random.default_rng([SEED, 2, segments])
        lines = ["group\titem\tgold\tpred\tjudge\tsegment\tdomain\tlp"]
        for lp in ("en-cs", "en-de"):
            for g in range(segments):
                for s in range(6):
                    score = int(np.clip(rng.normal(60 + 5 * s, 20), 0, 100))
                    lines.append(f"{lp}:{g}:{s}\tS{s}\t{-score}\t\tj{rng.integers(5)}\tseg{g}\t{'AB'[g % 2]}\t{lp}")
        return "\n".join(lines) + "\n"
    return _write(folder / f"judgments-{segments}.tsv", text)


def trec(folder: Path, runs: int, queries: int) -> tuple[Path, list[Path]]:
    """Sparse binary qrels and ``runs`` runs of 100 documents per query, of differing quality."""
    rng = np.random.default_rng([SEED, 3, queries])
    relevant = {q: set(rng.choice(1000, 3, replace=False).tolist()) for q in range(queries)}

    def qrels():
        return "".join(f"q{q} 0 d{d} 1\n" for q in range(queries) for d in sorted(relevant[q]))

    def run(k):
        def text():
            r = np.random.default_rng([SEED, 4, queries, k])
            lines = []
            for q in range(queries):
                docs = r.choice(1000, 100, replace=False)
                scores = r.normal(0, 1, 100) + np.array([2.0 - k / 4 if d in relevant[q] else 0 for d in docs])
                order = np.argsort(-scores, kind="stable")
                lines += [f"q{q} Q0 d{docs[i]} {rank} {scores[i]:.4f} run{k}\n" for rank, i in enumerate(order, 1)]
            return "".join(lines)
        return text

    q = _write(folder / f"trec-{queries}.qrels", qrels)
    return q, [_write(folder / f"trec-{queries}.run{k}", run(k)) for k in range(runs)]


def commands(folder: Path, data: Path, size: str) -> dict[str, tuple[list[str], Path | None]]:
    """name -> (arguments after ``rankeval``, the file on standard input or None)."""
    large = size == "large"
    s = stream(folder, 20000 if large else 300)
    j = judgments(folder, 2000 if large else 60)
    boot = ["--ci", "0.95", "--bootstrap", "2000" if large else "200", "--seed", "7"]
    qrels, runs = trec(folder, 8 if large else 2, 4000 if large else 50)
    cmds = {
        "tau": (["tau", *boot], s), "report": (["report", "--k", "3", *boot], s),
        "mrr": (["mrr", *boot], s), "ndcg": (["ndcg", *boot], s), "err": (["err", *boot], s),
        "rankdcg": (["rankdcg", *boot], s), "correlate": (["correlate", "--by", "lp", *boot], s),
        "borda": (["borda", *boot], s),
        "aggregate kemeny": (["aggregate", "--method", "kemeny", *boot], s),
        "aggregate trueskill": (["aggregate", "--method", "trueskill", "--bootstrap",
                                 "1000" if large else "100", "--by", "lp"], j),
        "aggregate z-score": (["aggregate", "--method", "z-score", "--protocol", "wmt24", "--by", "lp", *boot], j),
        "compare": (["compare", "--pred-columns", "p0,p1,p2,p3,p4,p5", "--measure", "ndcg", "--all-pairs",
                     "--test", "t,wilcoxon,randomization,bootstrap,tukey,randomized-tukey",
                     "--bootstrap", "1000", "--permutations", "1000"], s),
        "learn cv": (["learn", "cv", "--objective", "listnet", "--folds", "5", "--features", "f1,f2",
                      "--seed", "5"], s),
        "trec_eval": (["trec_eval", "-m", "all_trec", str(qrels), *map(str, runs)], None),
        "report --qrels": (["report", "--qrels", str(qrels), *map(str, runs)], None),
    }
    mqm = data / "wmt20-mqm"
    files = sorted(mqm.glob("*.score.gz")) if large else [mqm / "YiSi-2.seg.score.gz", data / "wmt20-da" /
                                                           "chrF.seg.score.gz"]
    cmds["meta-eval"] = (["meta-eval", "--human", str(mqm / "mqm_newstest2020_ende.avg_seg_scores.tsv"),
                          "--human", str(mqm / "mqm_newstest2020_zhen.avg_seg_scores.tsv"),
                          "--index", str(mqm / "details.en-de.txt"), "--index", str(mqm / "details.zh-en.txt"),
                          *map(str, files), *([] if large else ["--permutations", "100"])], None)
    return cmds
