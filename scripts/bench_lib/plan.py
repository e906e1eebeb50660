"""What is timed: one :class:`Case` per command line, grouped by workload.

A case names what it needs (a rankeval subcommand, a reader, a Python module of
a peer); the harness reports a missing one as "not available" instead of failing,
so commands that land later are picked up by the next run.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS = str(HERE / "peers.py")
NAIVE = str(HERE.parent / "naive_rankeval.py")
PY = sys.executable


@dataclass
class Case:
    key: str  # "W1/tau": unique, used by checks and targets
    workload: str
    label: str
    argv: list | str  # a str is a bash -o pipefail command line
    tool: str = "rankeval"
    needs: tuple = ()  # "cmd:tau", "reader:wmt-rr", "py:pandas"
    out: str | None = None  # keep stdout under this file name (for checks)
    repeat: int | None = None  # override --repeat (e.g. 1 for very slow peers)
    after: str | None = None  # a case that must have succeeded first
    derive: dict = field(default_factory=dict)  # ranx warm: result key -> (label, metric)
    check_only: bool = False  # run once for a number check, not reported as a timing
    source: Path | None = None  # the file a round trip must reproduce byte for byte


def rankeval_argv(rankeval: list[str], *args) -> list[str]:
    return [*rankeval, *map(str, args)]


def _pipe(*commands: list[str]) -> str:
    return " | ".join(shlex.join(c) for c in commands)


def startup_cases(rk, tiny: Path) -> list[Case]:
    return [
        Case("S/python", "startup", "python -c pass", [PY, "-c", "pass"], tool="python"),
        Case("S/numpy", "startup", "python -c 'import numpy' (reference: tau's floor)", [PY, "-c", "import numpy"],
             tool="python"),
        Case("S/help", "startup", "rankeval --help", rankeval_argv(rk, "--help")),
        Case("S/tau", "startup", "rankeval tau (10-line input)", rankeval_argv(rk, "tau", tiny), needs=("cmd:tau",)),
    ]


def floor_cases(workload: str, path: Path) -> list[Case]:
    return [
        Case(f"{workload}/pandas", workload, "pandas.read_csv (load only)", [PY, PEERS, "pandas-load", path],
             tool="pandas", needs=("py:pandas",), out=f"{workload}-pandas.json"),
        Case(f"{workload}/pyarrow", workload, "pyarrow.csv.read_csv (load only)", [PY, PEERS, "pyarrow-load", path],
             tool="pyarrow", needs=("py:pyarrow",), out=f"{workload}-pyarrow.json"),
    ]


W1_MEASURES = ("tau", "mrr", "ndcg", "err", "rankdcg", "report")


def w1_rankeval_cases(rk, path: Path, workload: str = "W1", out_dir_prefix: str = "w1") -> list[Case]:
    """The W1 commands; the same list runs on W1x10 for the memory ratio."""
    cases = [Case(f"{workload}/{m}", workload, f"rankeval {m}", rankeval_argv(rk, m, path), needs=(f"cmd:{m}",),
                  out=f"{out_dir_prefix}-{m}.tsv") for m in W1_MEASURES]
    jsonl = f"{out_dir_prefix}-convert.jsonl"
    cases += [
        Case(f"{workload}/normalize", workload, "rankeval normalize", rankeval_argv(rk, "normalize", path),
             needs=("cmd:normalize",)),
        Case(f"{workload}/to-jsonl", workload, "rankeval convert TSV → JSONL",
             rankeval_argv(rk, "convert", "--output-format", "jsonl", path), needs=("cmd:convert",), out=jsonl),
        Case(f"{workload}/to-tsv", workload, "rankeval convert JSONL → TSV",
             rankeval_argv(rk, "convert", "--output-format", "tsv", "{out}/" + jsonl), needs=("cmd:convert",),
             out=f"{out_dir_prefix}-roundtrip.tsv", after=f"{workload}/to-jsonl", source=path),
        Case(f"{workload}/aggregate", workload, "rankeval aggregate -m expected-wins",
             rankeval_argv(rk, "aggregate", "--method", "expected-wins", path), needs=("cmd:aggregate",),
             out=f"{out_dir_prefix}-aggregate.tsv"),
        Case(f"{workload}/borda", workload, "rankeval borda", rankeval_argv(rk, "borda", path), needs=("cmd:borda",),
             out=f"{out_dir_prefix}-borda.tsv"),
    ]
    if workload != "W1":
        for case in cases:
            case.repeat = 1  # W1x10 is there for its peak memory, and each run takes minutes
    return cases


NAIVE_MEASURES = ("tau", "mrr", "ndcg", "err")


def w1_peer_cases(rk, path: Path, tie_free: Path) -> list[Case]:
    cases = floor_cases("W1", path)
    for measure, trec in (("ndcg", "ndcg"), ("mrr", "recip_rank")):
        cases.append(Case(f"W1/pytrec-{measure}", "W1", f"pytrec_eval {trec} (dicts built from the file)",
                          [PY, PEERS, "pytrec", path, "--measure", trec], tool="pytrec_eval",
                          needs=("py:pytrec_eval",), out=f"w1-pytrec-{measure}.json"))
    for measure in NAIVE_MEASURES:
        cases.append(Case(f"W1/naive-{measure}", "W1", f"naive pure Python {measure}",
                          [PY, NAIVE, "--measure", measure, path], tool="naive", out=f"w1-naive-{measure}.tsv"))
    # Number checks on the tie-free twin, where trec_eval's doc-id tie-break cannot matter.
    cases += [
        Case("W1t/ndcg-linear", "W1", "check: rankeval ndcg --gain linear on W1t",
             rankeval_argv(rk, "ndcg", "--gain", "linear", tie_free), needs=("cmd:ndcg",),
             out="w1t-ndcg-linear.tsv", check_only=True),
        Case("W1t/mrr", "W1", "check: rankeval mrr on W1t", rankeval_argv(rk, "mrr", tie_free),
             needs=("cmd:mrr",), out="w1t-mrr.tsv", check_only=True),
        Case("W1t/pytrec-ndcg", "W1", "check: pytrec_eval ndcg on W1t",
             [PY, PEERS, "pytrec", tie_free, "--measure", "ndcg"], tool="pytrec_eval", needs=("py:pytrec_eval",),
             out="w1t-pytrec-ndcg.json", check_only=True),
        Case("W1t/pytrec-mrr", "W1", "check: pytrec_eval recip_rank on W1t",
             [PY, PEERS, "pytrec", tie_free, "--measure", "recip_rank"], tool="pytrec_eval",
             needs=("py:pytrec_eval",), out="w1t-pytrec-mrr.json", check_only=True),
    ]
    return cases


W2_RANKEVAL = {
    "ndcg": ("ndcg@10", ("ndcg", "--relevance", "grades", "--scores", "--gain", "linear", "--k", "10")),
    "err": ("err@10", ("err", "--relevance", "grades", "--scores", "--k", "10")),
    "mrr": ("mrr", ("mrr", "--relevance", "grades", "--scores")),
}


def w2_cases(rk, path: Path, repeat: int) -> list[Case]:
    cases = [Case(f"W2/{key}", "W2", f"rankeval {' '.join(args)}", rankeval_argv(rk, *args, path),
                  needs=(f"cmd:{args[0]}",), out=f"w2-{key}.tsv") for key, (_, args) in W2_RANKEVAL.items()]
    cases += floor_cases("W2", path)
    for key, trec in (("ndcg", "ndcg_cut_10"), ("mrr", "recip_rank")):
        cases.append(Case(f"W2/pytrec-{key}", "W2", f"pytrec_eval {trec} (dicts built from the file)",
                          [PY, PEERS, "pytrec", path, "--measure", trec, "--relevance", "grades"],
                          tool="pytrec_eval", needs=("py:pytrec_eval",), out=f"w2-pytrec-{key}.json"))
    cases.append(Case("W2/ranx-warm", "W2", "ranx process: compile on 1000 rows, then timed in-process",
                      [PY, PEERS, "ranx", path, "--measure", "ndcg@10,mrr", "--warm", "--repeat", str(repeat)],
                      tool="ranx", needs=("py:ranx", "py:pandas"), out="w2-ranx-warm.json", repeat=1,
                      derive={"W2/ranx-warm-ndcg": ("ranx ndcg@10 warm (read + evaluate, in-process)", "ndcg@10"),
                              "W2/ranx-warm-mrr": ("ranx mrr warm (read + evaluate, in-process)", "mrr")}))
    for key, metric in (("ndcg", "ndcg@10"), ("mrr", "mrr")):
        cases.append(Case(f"W2/ranx-cached-{key}", "W2", f"ranx {metric}, fresh process, numba disk cache",
                          [PY, PEERS, "ranx", path, "--measure", metric], tool="ranx",
                          needs=("py:ranx", "py:pandas"), out=f"w2-ranx-cached-{key}.json", repeat=1,
                          after="W2/ranx-warm"))
        cases.append(Case(f"W2/ranx-cold-{key}", "W2", f"ranx {metric}, fresh process, empty numba cache",
                          [PY, PEERS, "ranx", path, "--measure", metric], tool="ranx-cold",
                          needs=("py:ranx", "py:pandas"), out=f"w2-ranx-cold-{key}.json", repeat=1))
    return cases


def w3_cases(rk, path: Path) -> list[Case]:
    return [
        Case("W3/tau-b", "W3", "rankeval tau --ties b", rankeval_argv(rk, "tau", "--ties", "b", path),
             needs=("cmd:tau",), out="w3-tau-b.tsv"),
        Case("W3/scipy", "W3", "pandas.read_csv + scipy.stats.kendalltau", [PY, PEERS, "kendall", path],
             tool="scipy", needs=("py:pandas", "py:scipy"), out="w3-scipy.json"),
    ]


def w4_cases(rk, wmt12: Path | None) -> list[Case]:
    if wmt12 is None:
        return []
    convert = rankeval_argv(rk, "convert", "--from", "wmt-rr", wmt12)
    needs = ("cmd:convert", "reader:wmt-rr")
    return [
        Case("W4/convert", "W4", "rankeval convert --from wmt-rr", convert, needs=needs, out="w4-convert.tsv"),
        Case("W4/aggregate", "W4", "convert | aggregate -m expected-wins",
             _pipe(convert, rankeval_argv(rk, "aggregate", "--method", "expected-wins")),
             needs=(*needs, "cmd:aggregate"), out="w4-aggregate.tsv"),
        Case("W4/report", "W4", "convert | report", _pipe(convert, rankeval_argv(rk, "report")),
             needs=(*needs, "cmd:report"), out="w4-report.tsv"),
    ]


def substitute(case: Case, out_dir: Path) -> Case:
    """Fill the placeholder ``{out}`` (the output directory) of a case's command."""
    if isinstance(case.argv, str):
        case.argv = case.argv.replace("{out}", str(out_dir))
    else:
        case.argv = [str(arg).replace("{out}", str(out_dir)) for arg in case.argv]
    return case


W5_MEASURES = ("-m", "nDCG@10", "-m", "RR@10", "-m", "AP", "-m", "R@1000")
#: the same four measures in trec_eval's spelling (trec_eval has no RR@10: recip_rank instead)
TREC_EVAL_MEASURES = ("-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "recall.1000")


def w5_cases(rk, w5, trec_eval: Path | None = None) -> list[Case]:
    """MS MARCO-sized TREC files: rankeval report against pytrec_eval (its C parsers and
    evaluation), ir_measures and ranx (on the tie-free copy: they break ties otherwise),
    pyarrow merely loading the run, and the trec_eval binary the user names (four
    measures, graded qrels, ``-m all_trec``) next to ``rankeval trec_eval`` with the same
    arguments."""
    return _w5_peer_cases(rk, w5) + _w5_trec_eval_cases(rk, w5, trec_eval)


def _w5_trec_eval_cases(rk, w5, trec_eval: Path | None) -> list[Case]:
    binary = str(trec_eval or "")
    needs = (f"exe:{binary}",)
    ours = ("cmd:trec_eval",)
    runs = (("", "binary", w5.qrels), ("-graded", "graded", w5.qrels_graded))
    cases = []
    for suffix, kind, qrels in runs:
        cases.append(Case(f"W5/trec_eval{suffix}", "W5", f"trec_eval {' '.join(TREC_EVAL_MEASURES[1::2])} ({kind})",
                          [binary, *TREC_EVAL_MEASURES, qrels, w5.run], tool="trec_eval", needs=needs,
                          out=f"w5-trec_eval{suffix}.txt"))
        cases.append(Case(f"W5/rk-trec_eval{suffix}", "W5", f"rankeval trec_eval, the same arguments ({kind})",
                          rankeval_argv(rk, "trec_eval", *TREC_EVAL_MEASURES, qrels, w5.run), needs=ours,
                          out=f"w5-rk-trec_eval{suffix}.txt"))
    cases.append(Case("W5/trec_eval-all", "W5", "trec_eval -m all_trec (binary)",
                      [binary, "-m", "all_trec", w5.qrels, w5.run], tool="trec_eval", needs=needs,
                      out="w5-trec_eval-all.txt"))
    cases.append(Case("W5/rk-trec_eval-all", "W5", "rankeval trec_eval -m all_trec (binary)",
                      rankeval_argv(rk, "trec_eval", "-m", "all_trec", w5.qrels, w5.run), needs=ours,
                      out="w5-rk-trec_eval-all.txt"))
    return cases


def _w5_peer_cases(rk, w5) -> list[Case]:
    report = lambda qrels, run: rankeval_argv(rk, "report", *W5_MEASURES, "--qrels", qrels, run)  # noqa: E731
    peer = lambda tool, qrels, run, *more: [PY, PEERS, tool, run, "--qrels", qrels, *more]  # noqa: E731
    return [
        Case("W5/report", "W5", "rankeval report -m nDCG@10,RR@10,AP,R@1000 --qrels (binary)",
             report(w5.qrels, w5.run), needs=("cmd:report",), out="w5-report.tsv"),
        Case("W5/report-graded", "W5", "rankeval report ... --qrels (graded 0-3)",
             report(w5.qrels_graded, w5.run), needs=("cmd:report",), out="w5-report-graded.tsv"),
        Case("W5/report-long", "W5", "rankeval report ... (binary; run with 16-17 digit scores)",
             report(w5.qrels, w5.run_long_scores), needs=("cmd:report",), out="w5-report-long.tsv"),
        Case("W5/pytrec-long", "W5", "pytrec_eval ... (binary; run with 16-17 digit scores)",
             peer("trec-pytrec", w5.qrels, w5.run_long_scores), tool="pytrec_eval", needs=("py:pytrec_eval",),
             out="w5-pytrec-long.json"),
        Case("W5/pyarrow", "W5", "pyarrow.csv.read_csv of the run (load only)", [PY, PEERS, "trec-pyarrow", w5.run],
             tool="pyarrow", needs=("py:pyarrow",), out="w5-pyarrow.json"),
        Case("W5/pytrec", "W5", "pytrec_eval: parse_qrel + parse_run + evaluate (binary)",
             peer("trec-pytrec", w5.qrels, w5.run), tool="pytrec_eval", needs=("py:pytrec_eval",),
             out="w5-pytrec.json"),
        Case("W5/pytrec-graded", "W5", "pytrec_eval ... (graded)", peer("trec-pytrec", w5.qrels_graded, w5.run),
             tool="pytrec_eval", needs=("py:pytrec_eval",), out="w5-pytrec-graded.json"),
        Case("W5/irm", "W5", "ir_measures: read_trec_* + calc_aggregate (tie-free run)",
             peer("trec-irm", w5.qrels, w5.run_tie_free), tool="ir_measures", needs=("py:ir_measures",),
             out="w5-irm.json", repeat=1),
        Case("W5/ranx", "W5", "ranx: Qrels/Run.from_file + evaluate (tie-free run; first use compiles)",
             peer("trec-ranx", w5.qrels, w5.run_tie_free), tool="ranx", needs=("py:ranx",), out="w5-ranx.json",
             repeat=1),
        Case("W5/ranx-warm", "W5", "ranx again (numba cache warm)", peer("trec-ranx", w5.qrels, w5.run_tie_free),
             tool="ranx", needs=("py:ranx",), out="w5-ranx-warm.json", repeat=1, after="W5/ranx"),
        Case("W5t/report", "W5", "check: rankeval report on the tie-free run", report(w5.qrels, w5.run_tie_free),
             needs=("cmd:report",), out="w5t-report.tsv", check_only=True),
        Case("W5/pytrec-rr10", "W5", "check: pytrec_eval RR@10 (run cut at 10)",
             peer("trec-pytrec", w5.qrels, w5.run, "--check-rr10"), tool="pytrec_eval", needs=("py:pytrec_eval",),
             out="w5-pytrec-rr10.json", check_only=True),
    ]


W6_METHODS = ("combsum", "rrf", "combmnz", "wsum")


def w6_cases(rk, runs: list) -> list[Case]:
    """Run fusion of W6's runs: rankeval aggregate by several methods against the time rankeval's
    reader takes to read the same files, and ranx (fuse after Run.from_file, in-process after
    compiling its kernels on a small run); RBO of two of the runs (rankeval agree)."""
    cases = [Case("W6/read", "W6", f"rankeval's reader: read_run of the {len(runs)} runs (in-process)",
                  [PY, PEERS, "rankeval-read", *runs[:1], "--more", *runs[1:]], tool="python",
                  out="w6-read.json")]
    for m in W6_METHODS:
        cases.append(Case(f"W6/{m}", "W6", f"rankeval aggregate --method {m} ({len(runs)} runs)",
                          rankeval_argv(rk, "aggregate", "--method", m, "-o", "/dev/null", *runs),
                          needs=("cmd:aggregate",)))
        ranx_name = {"combsum": "sum", "combmnz": "mnz"}.get(m, m)
        cases.append(Case(f"W6/ranx-{m}", "W6", f"ranx process: compile fuse {ranx_name} on 2,000 rows, then "
                          "read + fuse timed in-process",
                          [PY, PEERS, "ranx-fuse", *runs[:1], "--more", *runs[1:], "--measure", ranx_name],
                          tool="ranx", needs=("py:ranx",), out=f"w6-ranx-{m}.json", repeat=1,
                          derive={f"W6/ranx-{m}-warm": (f"ranx {ranx_name} warm (read + fuse, in-process)",
                                                        "warm")}))
    cases.append(Case("W6/agree-rbo", "W6", "rankeval agree -m rbo (2 runs, every query)",
                      rankeval_argv(rk, "agree", "-m", "rbo", "--bootstrap", "100", "-o", "/dev/null", *runs[:2]),
                      needs=("cmd:agree",)))
    return cases
