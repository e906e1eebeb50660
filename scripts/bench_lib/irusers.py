"""W5p: where IR users work in Python, on W5's files: ir_measures' providers and Parquet.

Cases (each a child process, timed end to end like every case):
  W5p/irm-rankeval   ir_measures.calc_aggregate([nDCG@10, AP, RR@10]) with rankeval's provider
  W5p/irm-default    the same call with ir_measures' default pipeline without rankeval
                     (pytrec_eval for nDCG@10 and AP, msmarco for RR@10)
  W5p/irm-rk-rr      rankeval's provider on [nDCG@10, AP, RR] (what pytrec_eval's provider computes)
  W5p/irm-pytrec     pytrec_eval's provider alone on [nDCG@10, AP, RR]
  W5p/read-text      rankeval's reader on the TREC run   /  W5p/read-parquet  on the same run as Parquet
  W5p/report-parquet rankeval report on the Parquet run (W5/report reads the text)
The providers get the run and qrels as pandas DataFrames read from Parquet, as PyTerrier
hands them over; the load is inside the timing for both. The tie-free run is used: the
msmarco provider breaks ties by docno ascending, the others as trec_eval.

Run as a script: ``irusers.py provider NAME RUN.parquet QRELS.parquet`` or ``irusers.py read RUN``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = str(HERE / "irusers.py")


def parquet_copies(run: Path, qrels: Path) -> tuple[Path, Path]:
    """The run and qrels as Parquet beside them (written once, with rankeval's writers)."""
    import pandas as pd

    from rankeval_cli.formats.arrow_stream import write_runs

    run_pq, qrels_pq = run.with_suffix(".run.parquet"), qrels.with_suffix(".qrels.parquet")
    if not run_pq.exists():
        with open(run_pq, "wb") as out:
            write_runs([str(run)], out)
    if not qrels_pq.exists():
        frame = pd.read_csv(qrels, sep=" ", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                            dtype={"query_id": str, "doc_id": str})
        frame.drop(columns="iteration").to_parquet(qrels_pq, index=False)
    return run_pq, qrels_pq


def cases(rk, w5) -> list:
    from .plan import PY, Case, rankeval_argv

    run_pq, qrels_pq = parquet_copies(w5.run_tie_free, w5.qrels)
    text_pq, _ = parquet_copies(w5.run, w5.qrels)
    provider = lambda name, *measures: [PY, SCRIPT, "provider", name, run_pq, qrels_pq, *measures]  # noqa: E731
    short = ("nDCG@10", "AP", "RR")
    return [
        Case("W5p/irm-rankeval", "W5p", "ir_measures [nDCG@10, AP, RR@10], rankeval's provider",
             provider("rankeval"), needs=("py:ir_measures", "py:pyarrow"), out="w5p-irm-rankeval.json"),
        Case("W5p/irm-default", "W5p", "the same, ir_measures' default pipeline (pytrec_eval + msmarco)",
             provider("default"), tool="ir_measures", needs=("py:ir_measures", "py:pyarrow"),
             out="w5p-irm-default.json", repeat=1),
        Case("W5p/irm-rk-rr", "W5p", "ir_measures [nDCG@10, AP, RR], rankeval's provider",
             provider("rankeval", *short), needs=("py:ir_measures", "py:pyarrow"), out="w5p-irm-rk-rr.json"),
        Case("W5p/irm-pytrec", "W5p", "ir_measures [nDCG@10, AP, RR], pytrec_eval's provider",
             provider("pytrec_eval", *short), tool="pytrec_eval", needs=("py:ir_measures", "py:pytrec_eval"),
             out="w5p-irm-pytrec.json", repeat=1),
        Case("W5p/read-text", "W5p", "rankeval's reader: the TREC run", [PY, SCRIPT, "read", w5.run],
             out="w5p-read-text.json"),
        Case("W5p/read-parquet", "W5p", "rankeval's reader: the same run as Parquet", [PY, SCRIPT, "read", text_pq],
             needs=("py:pyarrow",), out="w5p-read-parquet.json"),
        Case("W5p/report-parquet", "W5p", "rankeval report -m ... --qrels on the Parquet run",
             rankeval_argv(rk, "report", "-m", "nDCG@10", "-m", "RR@10", "-m", "AP", "-m", "R@1000",
                           "--qrels", w5.qrels, text_pq), needs=("cmd:report", "py:pyarrow"),
             out="w5p-report-parquet.tsv"),
    ]


def provider(name: str, run_path: str, qrels_path: str, measures) -> dict:
    import pandas as pd

    import ir_measures

    if name == "rankeval":
        import rankeval_cli.ir_measures_provider  # noqa: F401  (registers it)
    start = time.perf_counter()
    run = pd.read_parquet(run_path, columns=["query_id", "doc_id", "score"])
    qrels = pd.read_parquet(qrels_path)
    loaded = time.perf_counter()
    parsed = [ir_measures.parse_measure(m) for m in measures]
    chosen = {"rankeval": "rankeval", "pytrec_eval": ir_measures.pytrec_eval,
              "default": ir_measures.DefaultPipeline}[name]
    if chosen == "rankeval":
        chosen = ir_measures.rankeval
    loaded_mb = _status_mb("VmRSS")
    result = chosen.calc_aggregate(parsed, qrels, run)
    done = time.perf_counter()
    # the evaluation's own memory: the peak beyond what the process held with its inputs loaded
    return {**{str(m): float(v) for m, v in result.items()}, "load_s": loaded - start, "eval_s": done - loaded,
            "inputs_mb": loaded_mb, "eval_peak_extra_mb": _status_mb("VmHWM") - loaded_mb}


def _status_mb(field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of this process in MB, from /proc (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def read(path: str) -> dict:
    from rankeval_cli.formats.trec.run import read_run

    start = time.perf_counter()
    rows = read_run(path).n_rows
    return {"rows": rows, "load_s": time.perf_counter() - start}


def main(argv) -> int:
    if argv[0] == "provider":
        result = provider(argv[1], argv[2], argv[3], argv[4:] or ("nDCG@10", "AP", "RR@10"))
    else:
        result = read(argv[1])
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
