"""Performance targets and the printed tables (plain text or Markdown)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .harness import phase_note
from .plan import W1_MEASURES

W1_COMMANDS = (*W1_MEASURES, "normalize", "to-jsonl", "to-tsv", "aggregate", "borda")
FLOOR_KEYS = ("pandas", "pyarrow")


@dataclass
class Target:
    label: str
    limit: str
    measured: str = "n/a"
    met: bool | None = None
    detail: str = ""


def floor(results: dict, workload: str):
    """(seconds, name) of the faster C CSV loader on ``workload``, or None."""
    found = [(results[k].median, k.split("/")[1]) for k in (f"{workload}/{f}" for f in FLOOR_KEYS)
             if k in results and results[k].ok]
    return min(found) if found else None


def _get(results, key):
    r = results.get(key)
    return r if r is not None and r.ok else None


def _ratio_target(results, label, key, ref, limit) -> Target:
    """measured / reference <= limit; ``ref`` is a key or (seconds, name)."""
    t = Target(label, f"≤ {limit:g}×")
    mine, other = _get(results, key), None
    if isinstance(ref, str):
        other = _get(results, ref)
        ref = (other.median, ref) if other else None
    if mine and ref:
        ratio = mine.median / ref[0]
        t.measured, t.met = f"{ratio:.2f}×", ratio <= limit
        t.detail = f"{mine.median:.3f} s vs {ref[1]} {ref[0]:.3f} s"
        t.detail += _cpu(mine, other, speedup=False) if other else ""
    else:
        t.detail = _why(results, key)
    return t


def _speedup_target(results, label, key, slower, limit, strict=False) -> Target:
    """reference / measured >= limit (or > limit when ``strict``)."""
    t = Target(label, f"{'>' if strict else '≥'} {limit:g}× faster")
    mine, other = _get(results, key), _get(results, slower)
    if mine and other:
        speedup = other.median / mine.median
        t.measured = f"{speedup:.1f}×"
        t.met = speedup > limit if strict else speedup >= limit
        t.detail = f"{mine.median:.3f} s vs {other.median:.3f} s" + _cpu(mine, other)
    else:
        t.detail = _why(results, key if not mine else slower)
    return t


def _cpu(mine, other, speedup: bool = True) -> str:
    """The same comparison in CPU seconds (user + system), where both were measured (a peer's
    in-process timing: the ``cpu`` it reports of itself)."""
    theirs = other.cpu_median if "cpu" not in other.phases else statistics.median(other.phases["cpu"])
    if not mine.cpu_median or not theirs:
        return ""
    ratio = theirs / mine.cpu_median if speedup else mine.cpu_median / theirs
    return f"; CPU {mine.cpu_median:.3f} s vs {theirs:.3f} s ({ratio:.2f}×)"


def _slowdown_target(results, label, key, other_key, limit) -> Target:
    """wall time of ``key`` / that of ``other_key`` <= limit."""
    return _ratio_of(results, (label, key, other_key, limit), "median", "s")


def _memory_target(results, label, key, other_key, limit) -> Target:
    """peak RSS of ``key`` / that of ``other_key`` <= limit."""
    return _ratio_of(results, (label, key, other_key, limit), "peak", "MB")


def _ratio_of(results, spec, what: str, unit: str) -> Target:
    label, key, other_key, limit = spec
    t = Target(label, f"≤ {limit:g}×")
    mine, other = _get(results, key), _get(results, other_key)
    if mine and other:
        a, b = getattr(mine, what), getattr(other, what)
        t.measured, t.met = f"{a / b:.2f}×", a / b <= limit
        t.detail = f"{a:.3f} s vs {b:.3f} s" if unit == "s" else f"{a:.0f} MB vs {b:.0f} MB"
    else:
        t.detail = _why(results, key if not mine else other_key)
    return t


def _extra_memory_target(results, label, key, other_key, limit) -> Target:
    """The peak beyond the loaded inputs (a peer's ``eval_peak_extra_mb``): key / other <= limit."""
    t = Target(label, f"≤ {limit:g}×")
    mine, other = results.get(key), results.get(other_key)
    values = [r.inner.get("eval_peak_extra_mb") if r is not None and r.ok and r.inner else None for r in (mine, other)]
    if None not in values:
        ratio = values[0] / values[1]
        t.measured, t.met = f"{ratio:.2f}×", ratio <= limit
        t.detail = f"{values[0]:.0f} MB vs {values[1]:.0f} MB beyond the inputs"
    else:
        t.detail = _why(results, key if values[0] is None else other_key)
    return t


def _why(results, key) -> str:
    r = results.get(key)
    return "not selected" if r is None else r.status


def targets(results: dict) -> list[Target]:
    out = []
    w1_floor = floor(results, "W1")
    pandas = _get(results, "W1/pandas")
    for m in W1_MEASURES:
        t = _ratio_target(results, f"W1 {m}: time vs C CSV load", f"W1/{m}", w1_floor, 2.5)
        mine = _get(results, f"W1/{m}")
        if mine and pandas and w1_floor and w1_floor[1] != "pandas":
            t.detail += f" ({mine.median / pandas.median:.2f}× pandas {pandas.median:.3f} s)"
        out.append(t)
    for m in ("ndcg", "mrr"):
        out.append(_speedup_target(results, f"W1 {m} vs pytrec_eval (incl. building input)", f"W1/{m}",
                                   f"W1/pytrec-{m}", 10))
    for m in ("tau", "mrr", "ndcg", "err"):
        out.append(_speedup_target(results, f"W1 {m} vs naive pure Python", f"W1/{m}", f"W1/naive-{m}", 100))
    for c in W1_COMMANDS:
        r = _get(results, f"W1/{c}")
        t = Target(f"W1 {c}: peak RSS", "≤ 300 MB")
        if r:
            t.measured, t.met = f"{r.peak:.0f} MB", r.peak <= 300
        else:
            t.detail = _why(results, f"W1/{c}")
        out.append(t)
    for c in W1_COMMANDS:
        small, large = _get(results, f"W1/{c}"), _get(results, f"W1x10/{c}")
        if f"W1x10/{c}" not in results:
            continue
        t = Target(f"W1x10 {c}: peak RSS vs W1", "≤ 1.2×")
        if small and large:
            ratio = large.peak / small.peak
            t.measured, t.met = f"{ratio:.2f}×", ratio <= 1.2
            t.detail = f"{large.peak:.0f} MB vs {small.peak:.0f} MB"
        else:
            t.detail = _why(results, f"W1x10/{c}" if small else f"W1/{c}")
        out.append(t)
    for m, peers in (("ndcg", ("pytrec-ndcg", "ranx-warm-ndcg")), ("mrr", ("pytrec-mrr", "ranx-warm-mrr"))):
        for peer in peers:
            out.append(_speedup_target(results, f"W2 {m} vs {peer}", f"W2/{m}", f"W2/{peer}", 1, strict=True))
    out.append(_ratio_target(results, "W3 tau -b vs read_csv + scipy kendalltau", "W3/tau-b", "W3/scipy", 1.5))
    if "W6/read" in results:
        for m in ("combsum", "rrf", "combmnz", "wsum"):
            out.append(_ratio_target(results, f"W6 fuse {m} vs reading the runs", f"W6/{m}", "W6/read", 2))
            out.append(_speedup_target(results, f"W6 fuse {m} vs ranx (warm, in-process)", f"W6/{m}",
                                       f"W6/ranx-{m}-warm", 4))
        t = Target("W6 agree -m rbo on every query of two runs, on one core (CPU time)", "< 10 s")
        r = _get(results, "W6/agree-rbo")
        if r and r.cpu_median is not None:
            t.measured, t.met = f"{r.cpu_median:.2f} s", r.cpu_median < 10
            t.detail = f"wall {r.median:.2f} s"
        out.append(t)
    if "W5/report" in results:
        out.append(_speedup_target(results, "W5 report vs pytrec_eval (parsers + evaluation)", "W5/report",
                                   "W5/pytrec", 3))
        out.append(_speedup_target(results, "W5 report vs pytrec_eval, 16-17 digit scores", "W5/report-long",
                                   "W5/pytrec-long", 3))
        for peer in ("irm", "ranx-warm", "ranx"):
            out.append(_speedup_target(results, f"W5 report vs {peer}", "W5/report", f"W5/{peer}", 1, strict=True))
        out.append(_memory_target(results, "W5 report: peak RSS vs pytrec_eval", "W5/report", "W5/pytrec", 0.25))
    if "W5p/irm-rankeval" in results:
        out.append(_speedup_target(results, "W5p ir_measures: rankeval's provider vs the default pipeline",
                                   "W5p/irm-rankeval", "W5p/irm-default", 3))
        out.append(_speedup_target(results, "W5p ir_measures [nDCG@10, AP, RR]: rankeval vs pytrec_eval provider",
                                   "W5p/irm-rk-rr", "W5p/irm-pytrec", 3))
        out.append(_memory_target(results, "W5p rankeval's provider: peak RSS vs pytrec_eval's", "W5p/irm-rk-rr",
                                  "W5p/irm-pytrec", 1 / 3))
        out.append(_memory_target(results, "W5p rankeval's provider: peak RSS vs the default pipeline",
                                  "W5p/irm-rankeval", "W5p/irm-default", 1 / 3))
        for key, other in (("W5p/irm-rk-rr", "W5p/irm-pytrec"), ("W5p/irm-rankeval", "W5p/irm-default")):
            out.append(_extra_memory_target(results, f"W5p {key[4:]}: evaluation's own memory vs {other[4:]}", key,
                                            other, 1 / 3))
        out.append(_speedup_target(results, "W5p Parquet run read vs the TREC text", "W5p/read-parquet",
                                   "W5p/read-text", 1))
    if "W5/trec_eval" in results:
        out.append(_speedup_target(results, "W5 report vs trec_eval (four measures)", "W5/report", "W5/trec_eval", 3))
        out.append(_speedup_target(results, "W5 rankeval trec_eval vs trec_eval (four measures)", "W5/rk-trec_eval",
                                   "W5/trec_eval", 3))
        out.append(_speedup_target(results, "W5 rankeval trec_eval -m all_trec vs trec_eval", "W5/rk-trec_eval-all",
                                   "W5/trec_eval-all", 3))
        out.append(_memory_target(results, "W5 rankeval trec_eval -m all_trec: peak RSS vs trec_eval",
                                  "W5/rk-trec_eval-all", "W5/trec_eval-all", 0.5))
    if "W7/report-diversity" in results:
        out.append(_speedup_target(results, "W7 report, 10 diversity measures, vs ndeval", "W7/report-diversity",
                                   "W7/ndeval", 3))
        out.append(_memory_target(results, "W7 report, 10 diversity measures: peak RSS vs ndeval",
                                  "W7/report-diversity", "W7/ndeval", 0.5))
        from .diversity import CWL_MEASURES

        for i in range(len(CWL_MEASURES)):
            if f"W7/report-cwl{i}" in results:
                out.append(_ratio_target(results, f"W7 report {CWL_MEASURES[i]} vs nDCG@10",
                                         f"W7/report-cwl{i}", "W7/report-ndcg", 1.5))
    if "TREC/te-50" in results:
        from .trec_sizes import MEMORY_TARGETS, TIME_TARGETS

        out.extend(_slowdown_target(results, *spec) for spec in TIME_TARGETS)
        out.extend(_memory_target(results, *spec) for spec in MEMORY_TARGETS)
    out.append(_ratio_target(results, "start-up: rankeval --help vs python -c pass", "S/help", "S/python", 3))
    out.append(_ratio_target(results, "start-up: rankeval tau (10 lines) vs python -c pass", "S/tau", "S/python", 3))
    return [t for t in out if t.detail != "not selected"]


# tables ---------------------------------------------------------------------

def measurement_rows(results: dict, workloads: list[str]) -> list[list[str]]:
    rows = []
    for workload in workloads:
        ref = floor(results, workload)
        for key, r in results.items():
            if r.case.workload != workload or r.case.check_only:
                continue
            if r.ok:
                times = f"{r.median:.3f}"
                rows.append([workload, r.case.label, times, f"{r.best:.3f}", str(len(r.seconds)),
                             f"{r.peak:.0f}", f"{r.median / ref[0]:.2f}" if ref else "", phase_note(r)])
            else:
                rows.append([workload, r.case.label, "", "", "0", "", "", r.status])
    return rows


MEASURE_HEAD = ["workload", "command", "median s", "min s", "runs", "peak MB", "× load", "notes"]
TARGET_HEAD = ["target", "limit", "measured", "met", "detail"]
CHECK_HEAD = ["check", "comparable configuration", "rankeval", "peer", "result"]


def target_rows(ts) -> list[list[str]]:
    met = {True: "yes", False: "NO", None: "n/a"}
    return [[t.label, t.limit, t.measured, met[t.met], t.detail] for t in ts]


def check_rows(checks) -> list[list[str]]:
    fmt = lambda v: "" if v is None else repr(v)  # noqa: E731
    return [[c.label, c.config, fmt(c.ours), fmt(c.theirs), c.status] for c in checks]


def text_table(head, rows) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)] if rows else [len(h) for h in head]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(head), line("-" * w for w in widths), *map(line, rows)])


def markdown_table(head, rows) -> str:
    esc = lambda c: str(c).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
    return "\n".join(lines)
