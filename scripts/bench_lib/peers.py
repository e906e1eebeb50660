"""The peer tools, each run as its own timed process: ``python peers.py TOOL FILE [options]``.

Each prints one JSON object on stdout: the numbers it computed (checked against
rankeval by the harness) and the in-process time of its phases. The harness
times the whole process from outside; the phases only explain where it went.

Tools
  pandas-load    pandas.read_csv of the TSV (C engine): the parse floor
  pyarrow-load   pyarrow.csv.read_csv of the TSV (multi-threaded C++): the parse floor
  pytrec         pytrec_eval.RelevanceEvaluator, nested-dict input built from the file
  ranx           ranx.evaluate from Qrels/Run.from_df of a pandas frame
  kendall        scipy.stats.kendalltau on the two columns read with pandas
  trec-pytrec    pytrec_eval on TREC files: its C parsers (parse_qrel, parse_run), then evaluate
  trec-irm       ir_measures on TREC files (read_trec_qrels/run, calc_aggregate)
  trec-ranx      ranx on TREC files (Qrels/Run.from_file, evaluate)
  trec-pyarrow   pyarrow.csv.read_csv of a TREC run (space-separated): the parse floor
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def pandas_load(path: str) -> dict:
    import pandas as pd

    start = time.perf_counter()
    frame = pd.read_csv(path, sep="\t")
    return {"rows": len(frame), "load_s": time.perf_counter() - start}


def pyarrow_load(path: str) -> dict:
    from pyarrow import csv

    start = time.perf_counter()
    table = csv.read_csv(path, parse_options=csv.ParseOptions(delimiter="\t"))
    return {"rows": table.num_rows, "load_s": time.perf_counter() - start}


# pytrec_eval ---------------------------------------------------------------

def _groups(path: str):
    """(group, [(item, gold, pred)]) for each contiguous group of the canonical TSV."""
    with open(path, encoding="utf-8") as stream:
        header = stream.readline().rstrip("\n").split("\t")
        g_col, i_col, gold_col, pred_col = (header.index(c) for c in ("group", "item", "gold", "pred"))
        current, rows = None, []
        for line in stream:
            fields = line.rstrip("\n").split("\t")
            if fields[g_col] != current:
                if rows:
                    yield current, rows
                current, rows = fields[g_col], []
            rows.append((fields[i_col], float(fields[gold_col]), float(fields[pred_col])))
        if rows:
            yield current, rows


def trec_input(path: str, relevance: str, binary: bool):
    """qrels {q: {doc: int}} and run {q: {doc: float score}}, as pytrec_eval wants them.

    relevance ``ranks``: gold ranks, lower = better; graded relevance n - rank + 1
    over ceiling ranks, or with ``binary`` 1 for the items with
    the best gold rank (MRR's relevant items). The run score is -pred (pred is a
    rank). relevance ``grades``: gold is the grade, pred a score (higher = better).
    """
    qrels, run = {}, {}
    for group, rows in _groups(path):
        if relevance == "grades":
            qrels[group] = {item: int(gold) for item, gold, _ in rows}
            run[group] = {item: pred for item, _, pred in rows}
            continue
        golds = [gold for _, gold, _ in rows]
        if binary:
            best = min(golds)
            qrels[group] = {item: int(gold == best) for item, gold, _ in rows}
        else:
            n = len(golds)
            qrels[group] = {item: n - sum(g <= gold for g in golds) + 1 for item, gold, _ in rows}
        run[group] = {item: -pred for item, _, pred in rows}
    return qrels, run


def pytrec(path: str, measure: str, relevance: str) -> dict:
    import pytrec_eval

    start = time.perf_counter()
    qrels, run = trec_input(path, relevance, binary=(measure == "recip_rank" and relevance == "ranks"))
    built = time.perf_counter()
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    values = [scores[measure] for scores in per_query.values()]
    done = time.perf_counter()
    return {"value": sum(values) / len(values), "groups": len(values),
            "build_s": built - start, "eval_s": done - built}


# ranx ------------------------------------------------------------------------

# ranx asserts object (not pandas 3 "str") id columns.
RANX_DTYPES = {"group": object, "item": object, "gold": "int64", "pred": "float64"}


def _ranx_frame(path: str, nrows: int | None = None):
    import pandas as pd

    return pd.read_csv(path, sep="\t", nrows=nrows, dtype=RANX_DTYPES)


def _ranx_eval(frame, metric: str) -> float:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_df(frame, q_id_col="group", doc_id_col="item", score_col="gold")
    run = Run.from_df(frame, q_id_col="group", doc_id_col="item", score_col="pred")
    return float(evaluate(qrels, run, metric))


def ranx(path: str, metrics: list[str], warm: bool, repeat: int) -> dict:
    """ranx on W2-style data (gold = grade, pred = score).

    ``warm``: first evaluate every metric on the first 1000 rows (numba compiles
    or loads its kernels), then ``repeat`` times time reading the whole file and
    evaluating, each metric on its own, in this same process. Without ``warm``
    the process does the work once and only the whole process time matters.
    """
    out = {}
    if warm:
        start = time.perf_counter()
        small = _ranx_frame(path, nrows=1000)
        for metric in metrics:
            _ranx_eval(small, metric)
        out["warmup_s"] = time.perf_counter() - start
    for metric in metrics:
        out[metric] = {"seconds": []}
    for _ in range(repeat if warm else 1):
        for metric in metrics:
            start = time.perf_counter()
            out[metric]["value"] = _ranx_eval(_ranx_frame(path), metric)
            out[metric]["seconds"].append(time.perf_counter() - start)
    return out


# scipy -------------------------------------------------------------------------

def kendall(path: str) -> dict:
    import pandas as pd
    from scipy.stats import kendalltau

    start = time.perf_counter()
    frame = pd.read_csv(path, sep="\t", usecols=["gold", "pred"], dtype="float64")
    parsed = time.perf_counter()
    result = kendalltau(frame["gold"].to_numpy(), frame["pred"].to_numpy())
    done = time.perf_counter()
    return {"tau": float(result.statistic), "p": float(result.pvalue),
            "parse_s": parsed - start, "kendall_s": done - parsed}


# TREC files (W5) ----------------------------------------------------------------

TREC_MEASURES = {"nDCG@10": "ndcg_cut_10", "RR@10": "recip_rank@10", "AP": "map", "R@1000": "recall_1000"}


def trec_pytrec(qrels_path: str, run_path: str, check_rr10: bool = False) -> dict:
    """Timed: the C parsers and one evaluation of ndcg_cut_10, recip_rank, map, recall_1000.
    trec_eval's recip_rank has no cut-off: ``check_rr10`` (untimed use) adds RR@10 from the
    run cut at 10 in trec_eval's order (what -M 10 does)."""
    import pytrec_eval

    start = time.perf_counter()
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    parsed = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recip_rank", "map", "recall_1000"})
    per_query = evaluator.evaluate(run)
    done = time.perf_counter()
    n = len(per_query)
    out = {"nDCG@10": sum(v["ndcg_cut_10"] for v in per_query.values()) / n,
           "AP": sum(v["map"] for v in per_query.values()) / n,
           "R@1000": sum(v["recall_1000"] for v in per_query.values()) / n,
           "RR": sum(v["recip_rank"] for v in per_query.values()) / n, "queries": n,
           "parse_s": parsed - start, "eval_s": done - parsed}
    if check_rr10:
        top10 = {q: dict(sorted(docs.items(), key=lambda x: (x[1], x[0].encode()), reverse=True)[:10])
                 for q, docs in run.items()}
        rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
        out["RR@10"] = sum(v["recip_rank"] for v in rr.values()) / n
    return out


def trec_irm(qrels_path: str, run_path: str) -> dict:
    import ir_measures
    from ir_measures import AP, RR, R, nDCG

    start = time.perf_counter()
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    parsed = time.perf_counter()
    result = ir_measures.calc_aggregate([nDCG @ 10, RR @ 10, AP, R @ 1000], qrels, run)
    done = time.perf_counter()
    return {"nDCG@10": result[nDCG @ 10], "RR@10": result[RR @ 10], "AP": result[AP], "R@1000": result[R @ 1000],
            "parse_s": parsed - start, "eval_s": done - parsed}


def trec_ranx(qrels_path: str, run_path: str) -> dict:
    from ranx import Qrels, Run, evaluate

    start = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    parsed = time.perf_counter()
    result = evaluate(qrels, run, ["ndcg@10", "mrr@10", "map", "recall@1000"])
    done = time.perf_counter()
    return {"nDCG@10": float(result["ndcg@10"]), "RR@10": float(result["mrr@10"]), "AP": float(result["map"]),
            "R@1000": float(result["recall@1000"]), "parse_s": parsed - start, "eval_s": done - parsed}


def trec_pyarrow(run_path: str) -> dict:
    from pyarrow import csv

    start = time.perf_counter()
    table = csv.read_csv(run_path, read_options=csv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score",
                                                                               "tag"]),
                         parse_options=csv.ParseOptions(delimiter=" "),
                         convert_options=csv.ConvertOptions(column_types={"qid": "string", "docno": "string"}))
    return {"rows": table.num_rows, "load_s": time.perf_counter() - start}


def rankeval_read(paths: list) -> dict:
    """rankeval's TREC reader on every file (what fusion reads before it fuses)."""
    from rankeval_cli.formats.trec.run import read_run

    start = time.perf_counter()
    rows = sum(read_run(path).n_rows for path in paths)
    return {"rows": rows, "load_s": time.perf_counter() - start}


def ranx_fuse(paths: list, method: str) -> dict:
    """ranx: compile fuse's kernels on a two-query copy of the runs, then time Run.from_file of every
    file and fuse(runs, method) in the same process (the numba cache warm)."""
    import tempfile

    from ranx import Run, fuse

    params = {"weights": [1.0 / len(paths)] * len(paths)} if method == "wsum" else {}
    with tempfile.TemporaryDirectory() as tmp:
        small = []
        for i, path in enumerate(paths):
            with open(path) as stream:
                head = [next(stream) for _ in range(2000)]
            small.append(os.path.join(tmp, f"{i}.run"))
            with open(small[-1], "w") as out:
                out.writelines(head)
        fuse([Run.from_file(p, kind="trec") for p in small], method=method, params=params)
    start = time.perf_counter()
    runs = [Run.from_file(p, kind="trec") for p in paths]
    read = time.perf_counter()
    fused = fuse(runs, method=method, params=params)
    done = time.perf_counter()
    return {"queries": len(fused.run), "read_s": read - start, "fuse_s": done - read,
            "warm": {"seconds": [done - start], "value": len(fused.run)}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool", choices=("pandas-load", "pyarrow-load", "pytrec", "ranx", "kendall", "trec-pytrec",
                                         "trec-irm", "trec-ranx", "trec-pyarrow", "rankeval-read", "ranx-fuse"))
    parser.add_argument("file")
    parser.add_argument("--qrels", help="trec-*: the qrels file (FILE is the run)")
    parser.add_argument("--more", nargs="*", default=[], help="rankeval-read, ranx-fuse: the other run files")
    parser.add_argument("--check-rr10", action="store_true", help="trec-pytrec: also RR@10 (untimed check)")
    parser.add_argument("--measure", help="pytrec: ndcg, ndcg_cut_10, recip_rank; ranx: comma-separated metrics")
    parser.add_argument("--relevance", choices=("ranks", "grades"), default="ranks")
    parser.add_argument("--warm", action="store_true", help="ranx: compile first, time in-process")
    parser.add_argument("--repeat", type=int, default=1, help="ranx --warm: timed repetitions")
    args = parser.parse_args(argv)
    if args.tool == "pandas-load":
        result = pandas_load(args.file)
    elif args.tool == "pyarrow-load":
        result = pyarrow_load(args.file)
    elif args.tool == "pytrec":
        result = pytrec(args.file, args.measure, args.relevance)
    elif args.tool == "ranx":
        result = ranx(args.file, args.measure.split(","), args.warm, args.repeat)
    elif args.tool == "trec-pytrec":
        result = trec_pytrec(args.qrels, args.file, args.check_rr10)
    elif args.tool == "trec-irm":
        result = trec_irm(args.qrels, args.file)
    elif args.tool == "trec-ranx":
        result = trec_ranx(args.qrels, args.file)
    elif args.tool == "trec-pyarrow":
        result = trec_pyarrow(args.file)
    elif args.tool == "rankeval-read":
        result = rankeval_read([args.file, *args.more])
    elif args.tool == "ranx-fuse":
        result = ranx_fuse([args.file, *args.more], args.measure)
    else:
        result = kendall(args.file)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
