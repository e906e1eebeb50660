"""Same numbers: every compared tool against rankeval on the same data, to 1e-9.

Each check names the configuration that makes the two quantities the same
definition (gain, relevance, tie handling); a check whose inputs did not run is
reported as such, never as passed.
"""

from __future__ import annotations

import filecmp
import math
from dataclasses import dataclass

TOLERANCE = 1e-9  # absolute; every compared value lies in [-1, 1]
#: trec_eval prints 4 decimals: a value read from its output is within half a unit of the 4th
PRINTED = 0.5e-4 + 1e-12


@dataclass
class Check:
    label: str
    config: str
    ours: float | None = None
    theirs: float | None = None
    status: str = "not run"

    @property
    def passed(self) -> bool:
        return self.status == "same"


def summary_rows(path) -> list[dict]:
    """Rows of a TSV summary written by rankeval or by naive_rankeval.py."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:] if line]


def tsv_value(result, measure: str, column: str = "value") -> float:
    for row in summary_rows(result.output):
        if row.get("measure") == measure:
            return float(row[column])
    raise KeyError(f"no row {measure!r} in {result.output}")


def json_value(result, key: str = "value") -> float:
    return float(result.inner[key])


def trec_eval_value(result, measure: str, query: str = "all") -> float:
    """A value of trec_eval's output (``measure<TAB>query<TAB>value`` lines)."""
    for line in result.output.read_text(encoding="utf-8").splitlines():
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) == 3 and fields[0] == measure and fields[1] == query:
            return float(fields[2])
    raise KeyError(f"no line {measure} {query} in {result.output}")


# (label, configuration, (our case, our extractor), (their case, their extractor))
def _specs():
    ours = {
        "tau": lambda r: tsv_value(r, "tau", "micro"),
        "value": lambda measure: (lambda r: tsv_value(r, measure)),
    }
    naive = lambda measure: (lambda r: tsv_value(r, measure))  # noqa: E731
    specs = []
    for m in ("tau", "mrr", "ndcg", "err"):
        mine = ours["tau"] if m == "tau" else ours["value"](m)
        config = {"tau": "tau penalize, micro", "mrr": "MRR, pessimistic ties",
                  "ndcg": "NDCG exp gain, whole list, pessimistic ties",
                  "err": "ERR rel_max = n, pessimistic ties"}[m]
        specs.append((f"W1 naive {m}", config, (f"W1/{m}", mine), (f"W1/naive-{m}", naive(m))))
    specs += [
        ("W1t pytrec_eval ndcg", "linear gain (--gain linear), rel = n - rank + 1, tie-free preds",
         ("W1t/ndcg-linear", ours["value"]("ndcg")), ("W1t/pytrec-ndcg", json_value)),
        ("W1t pytrec_eval recip_rank", "qrels 1 for best-gold items, tie-free preds",
         ("W1t/mrr", ours["value"]("mrr")), ("W1t/pytrec-mrr", json_value)),
    ]
    for key, peer_metric in (("ndcg", "ndcg_cut_10"), ("mrr", "recip_rank")):
        label = "ndcg@10" if key == "ndcg" else "mrr"
        config = ("--relevance grades --scores --gain linear --k 10 (trec/ranx Järvelin gain)" if key == "ndcg"
                  else "--relevance grades --scores (relevant = grade >= 1)")
        mine = (f"W2/{key}", ours["value"](key))
        specs.append((f"W2 pytrec_eval {peer_metric}", config, mine, (f"W2/pytrec-{key}", json_value)))
        for variant in ("warm", "cached", "cold"):
            extractor = json_value if variant == "warm" else _ranx_value(label)
            specs.append((f"W2 ranx {label} ({variant})", config, mine, (f"W2/ranx-{variant}-{key}", extractor)))
    specs.append(("W3 scipy kendalltau", "tau-b, one group", ("W3/tau-b", ours["tau"]),
                  ("W3/scipy", lambda r: json_value(r, "tau"))))
    for m in ("nDCG@10", "AP", "R@1000"):
        specs.append((f"W5 pytrec_eval {m}", "TREC files, trec tie policy (docno descending)",
                      ("W5/report", ours["value"](m)), ("W5/pytrec", lambda r, m=m: json_value(r, m))))
        specs.append((f"W5 graded pytrec_eval {m}", "graded qrels, linear gain",
                      ("W5/report-graded", ours["value"](m)), ("W5/pytrec-graded", lambda r, m=m: json_value(r, m))))
        specs.append((f"W5 long scores pytrec_eval {m}", "run with 16-17 digit scores (same order and ties)",
                      ("W5/report-long", ours["value"](m)), ("W5/pytrec-long", lambda r, m=m: json_value(r, m))))
        specs.append((f"W5 long scores = W5 {m}", "the same rankings, so the same value",
                      ("W5/report-long", ours["value"](m)), ("W5/report", ours["value"](m))))
    specs.append(("W5 pytrec_eval RR@10", "recip_rank of the run cut at 10 in trec_eval's order",
                  ("W5/report", ours["value"]("RR@10")), ("W5/pytrec-rr10", lambda r: json_value(r, "RR@10"))))
    for peer in ("irm", "ranx"):
        for m in ("nDCG@10", "RR@10", "AP", "R@1000"):
            specs.append((f"W5t {peer} {m}", "tie-free copy of the run",
                          ("W5t/report", ours["value"](m)), (f"W5/{peer}", lambda r, m=m: json_value(r, m))))
    for suffix, kind in (("", "binary"), ("-graded", "graded")):
        for m, name in (("nDCG@10", "ndcg_cut_10"), ("AP", "map"), ("R@1000", "recall_1000")):
            specs.append((f"W5 trec_eval {name} ({kind})", "the binary's output, printed to 4 decimals",
                          (f"W5/report{suffix}", ours["value"](m)),
                          (f"W5/trec_eval{suffix}", lambda r, name=name: trec_eval_value(r, name)), PRINTED))
    for ours_key, theirs_key, measures in (("W5p/irm-rankeval", "W5p/irm-default", ("nDCG@10", "AP", "RR@10")),
                                           ("W5p/irm-rk-rr", "W5p/irm-pytrec", ("nDCG@10", "AP", "RR"))):
        for m in measures:
            specs.append((f"W5p {theirs_key[8:]} {m}", "ir_measures, rankeval's provider (tie-free run)",
                          (ours_key, lambda r, m=m: json_value(r, m)), (theirs_key, lambda r, m=m: json_value(r, m))))
    return specs


def _ranx_value(metric: str):
    return lambda r: float(r.inner[metric]["value"])


def run_checks(results: dict) -> list[Check]:
    checks = []
    for label, config, (our_key, ours), (their_key, theirs), *tolerance in _specs():
        check = Check(label, config)
        a, b = results.get(our_key), results.get(their_key)
        if a is None or b is None:
            continue  # the workload was not selected
        if not (a.ok and b.ok):
            check.status = f"not run ({our_key}: {a.status}; {their_key}: {b.status})"
        else:
            try:
                check.ours, check.theirs = ours(a), theirs(b)
            except (KeyError, ValueError, OSError) as exc:
                check.status = f"unreadable: {exc}"
            else:
                same = math.isclose(check.ours, check.theirs, rel_tol=0, abs_tol=(tolerance or [TOLERANCE])[0])
                check.status = "same" if same else "DIFFERENT"
        checks.append(check)
    checks.extend(_roundtrip(results))
    checks.extend(_diversity(results))
    return checks


#: report's names of ndeval's columns (the cut-offs ndeval prints)
NDEVAL_COLUMNS = {"ERR_IA@20": "ERR-IA@20", "nERR_IA@20": "nERR-IA@20", "alpha_DCG@20": "alpha-DCG@20",
                  "alpha_nDCG@20": "alpha-nDCG@20", "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA",
                  "P_IA@20": "P-IA@20", "StRecall@20": "strec@20", "alpha_nDCG@10": "alpha-nDCG@10"}


def _diversity(results: dict) -> list[Check]:
    """W7: rankeval ndeval prints ndeval's bytes; report's means equal ndeval's amean (printed to 6 decimals)."""
    out = []
    ours, theirs, report = (results.get(k) for k in ("W7/rk-ndeval", "W7/ndeval", "W7/report-diversity"))
    if ours is not None and theirs is not None:
        check = Check("W7 rankeval ndeval = ndeval", "-traditional, byte-identical output")
        check.status = ("same" if filecmp.cmp(ours.output, theirs.output, shallow=False) else "DIFFERENT") \
            if ours.ok and theirs.ok else "not run"
        out.append(check)
    if report is not None and theirs is not None and report.ok and theirs.ok:
        lines = open(theirs.output, encoding="utf-8").read().splitlines()
        header, amean = lines[0].split(","), lines[-1].split(",")
        for name, column in NDEVAL_COLUMNS.items():
            check = Check(f"W7 ndeval {column}", "report's mean, ndeval's amean to 6 decimals")
            check.ours, check.theirs = tsv_value(report, name), float(amean[header.index(column)])
            check.status = "same" if abs(check.ours - check.theirs) <= 5.0000001e-7 else "DIFFERENT"
            out.append(check)
    return out


def _roundtrip(results: dict) -> list[Check]:
    out = []
    for workload, source in (("W1", "W1/to-tsv"),):
        back = results.get(source)
        if back is None:
            continue
        check = Check(f"{workload} TSV → JSONL → TSV", "byte-identical to the generated file")
        if back.ok:
            same = filecmp.cmp(back.case.source, back.output, shallow=False)
            check.status = "same" if same else "DIFFERENT"
        else:
            check.status = f"not run ({back.status})"
        out.append(check)
    from .trec_sizes import SAME_BYTES

    pairs = [(f"W5/rk-trec_eval{suffix}", f"W5/trec_eval{suffix}", f"W5, {what}")
             for suffix, what in (("", "four measures, binary qrels"), ("-graded", "four measures, graded qrels"),
                                  ("-all", "-m all_trec"))]
    for our_key, their_key, what in pairs + [(a, b, f"TREC, {w}") for a, b, w in SAME_BYTES]:
        ours, theirs = results.get(our_key), results.get(their_key)
        if ours is None or theirs is None:
            continue
        check = Check(f"rankeval trec_eval = trec_eval ({what})", "byte-identical output")
        if ours.ok and theirs.ok:
            check.status = "same" if filecmp.cmp(ours.output, theirs.output, shallow=False) else "DIFFERENT"
        else:
            why = "; ".join(f"{r.case.key}: {r.status}" for r in (ours, theirs) if not r.ok)
            check.status = f"not run ({why})"
        out.append(check)
    return out
