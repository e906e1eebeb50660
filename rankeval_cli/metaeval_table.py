"""The WMT metrics-task table from a ``meta-eval`` summary (``rankeval table``).

A ``meta-eval`` (or ``spans eval``) summary has one row per language pair and metric
(``lp metric MEASURE MEASURE:rank [MEASURE:ci_low MEASURE:ci_high] ... avg avg:rank
... signature``) and one row per metric over all language pairs (lp ``all``: the
pooled pairwise accuracy and the average over tasks). The WMT findings papers print
it the other way round (Freitag et al. 2023, Table 3; 2024, Table 2): one row per
metric, best average first; the average with its cluster rank, then a column per
language pair and statistic, each value followed by the rank of its significance
cluster, the top cluster in bold. :func:`read` parses the summary, :func:`records`
lays it out, :func:`legend` says what the numbers are (the statistics, the task
weights, the permutation test, the intervals) from the summary's signature, and
:func:`latex` writes the LaTeX with one header row per language pair group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import DataError
from .formats.summary_reader import read_summaries, strict_number
from .inputs import source_name

#: columns of a meta-eval summary that are not statistics
_OTHER = ("lp", "metric", "systems", "segments", "items", "sys_scores", "signature")
#: what each statistic is, for the legend (name without its @grouping)
STATISTICS = {
    "sys-pa": "pairwise accuracy of the system scores (Kocmi et al. 2021)",
    "spa": "soft pairwise accuracy of the system rankings (Thompson et al. 2024)",
    "sys-pearson": "Pearson's r of the system scores",
    "sys-spearman": "Spearman's rho of the system scores",
    "sys-kendall": "Kendall's tau of the system scores",
    "seg-acc-eq": "pairwise accuracy of the segment scores with tie calibration (acc-eq, Deutsch et al. 2023)",
    "seg-pearson": "Pearson's r of the segment scores",
    "seg-spearman": "Spearman's rho of the segment scores",
    "seg-kendall": "Kendall's tau of the segment scores",
    "seg-pdp": "pairwise-difference Pearson of the segment scores",
    "span-f1": "character-level F1 of the predicted error spans, partial overlap and severity (half credit) "
               "counted",
    "span-p": "character-level precision of the predicted error spans",
    "span-r": "character-level recall of the predicted error spans",
}
GROUPINGS = {"none": "all segments at once", "item": "per item (segment), then averaged",
             "system": "per system, then averaged"}
WEIGHTS = {"uniform": "every task weighs the same (WMT24)",
           "wmt23": "pairwise accuracy pooled over the language pairs weighs as many as there are language "
                    "pairs, every other task 1 (WMT23)",
           "wmt25": "the WMT24-25 task set, soft pairwise accuracy and tie-calibrated acc-eq by item per language "
                    "pair, equally weighted"}


@dataclass
class Value:
    value: float | None
    rank: int | None = None
    ci: tuple | None = None


@dataclass
class Summary:
    """A meta-eval summary: ``cells[(lp, measure)][metric]`` (lp ``all``: pooled over the language
    pairs), ``average[metric]``, the metrics in table order and the signature's settings."""

    measures: list = field(default_factory=list)
    lps: list = field(default_factory=list)
    cells: dict = field(default_factory=dict)
    average: dict = field(default_factory=dict)
    metrics: list = field(default_factory=list)
    signatures: list = field(default_factory=list)

    @property
    def settings(self) -> dict:
        parts = str(self.signatures[0] if self.signatures else "").split("|")
        return dict(part.split(":", 1) for part in parts[1:] if ":" in part) | {"command": parts[0]}

    @property
    def columns(self) -> list:
        """(lp, measure) of every column with a value, pooled ones (lp ``all``) first."""
        pooled = [("all", m) for m in self.measures if self.cells.get(("all", m))]
        return pooled + [(lp, m) for lp in self.lps for m in self.measures if self.cells.get((lp, m))]


def is_metaeval(columns) -> bool:
    """True for the columns of a ``meta-eval`` (or ``spans eval``) summary."""
    return {"lp", "metric", "avg", "avg:rank"} <= set(columns)


def read(source) -> Summary:
    """Parse a meta-eval summary (TSV or JSON lines); a value that is not a number is an error at its line."""
    name = source_name(source)
    out = Summary()
    for line, record in read_summaries(source):
        if not is_metaeval(record):
            raise DataError("not a meta-eval summary (expected the columns lp, metric, avg, avg:rank)", name, line)
        lp, metric = str(record["lp"]), str(record["metric"])
        if lp != "all" and lp not in out.lps:
            out.lps.append(lp)
        if metric not in out.metrics:
            out.metrics.append(metric)
        for column in record:
            if ":" in column or column in _OTHER:
                continue
            value = _value(record, column, name, line)
            if value.value is None:
                continue
            if column == "avg":
                out.average[metric] = value
                continue
            if column not in out.measures:
                out.measures.append(column)
            out.cells.setdefault((lp, column), {})[metric] = value
        if record.get("signature") and record["signature"] not in out.signatures:
            out.signatures.append(record["signature"])
    if not out.metrics:
        raise DataError("not a summary: no records", name, 1)
    ranked = sorted(out.average, key=lambda m: (out.average[m].rank or 0, -out.average[m].value))
    out.metrics = [*ranked, *(m for m in out.metrics if m not in out.average)]
    return out


def _value(record: dict, column: str, name: str, line: int) -> Value:
    number = (lambda c: strict_number(record.get(c), c, name, line))
    rank = number(f"{column}:rank")
    low, high = number(f"{column}:ci_low"), number(f"{column}:ci_high")
    return Value(number(column), int(rank) if rank is not None else None,
                 (low, high) if low is not None and high is not None else None)


@dataclass(frozen=True)
class Style:
    digits: int = 3
    show_ci: bool = False
    markup: str = "markdown"  # markdown, latex or plain


def cell_text(value: Value | None, style: Style) -> str:
    """``0.905 (1)``: the value, its cluster rank in parentheses, the top cluster in bold, the interval
    in brackets with ``style.show_ci``."""
    fixed = (lambda x: f"{x:.{style.digits}f}")
    if value is None or value.value is None:
        return ""
    text = fixed(value.value)
    if value.rank == 1 and style.markup == "markdown":
        text = f"**{text}**"
    elif value.rank == 1 and style.markup == "latex":
        text = f"\\textbf{{{text}}}"
    if value.rank is not None:
        text += f" ({value.rank})"
    if style.show_ci and value.ci:
        text += f" [{fixed(value.ci[0])}, {fixed(value.ci[1])}]"
    return text


def header(summary: Summary) -> list[str]:
    """Column titles: metric, avg, then ``LP MEASURE`` (``all MEASURE`` for pooled values)."""
    return ["metric", *(["avg"] if summary.average else []), *(f"{lp} {m}" for lp, m in summary.columns)]


def records(summary: Summary, style: Style) -> list[dict]:
    """One record per metric in table order, cells as text (:func:`cell_text`)."""
    titles = header(summary)
    out = []
    for metric in summary.metrics:
        cells = [metric]
        if summary.average:
            cells.append(cell_text(summary.average.get(metric), style))
        cells += [cell_text(summary.cells[key].get(metric), style) for key in summary.columns]
        out.append(dict(zip(titles, cells)))
    return out


def latex(summary: Summary, rows: list[dict]) -> str:
    """A booktabs tabular: a first header row naming each language pair over its columns."""
    from .table_writers import latex_escape

    groups = []  # (lp, number of columns)
    for lp, _ in summary.columns:
        if groups and groups[-1][0] == lp:
            groups[-1] = (lp, groups[-1][1] + 1)
        else:
            groups.append((lp, 1))
    lead = 2 if summary.average else 1
    spec = "l" + "r" * (len(rows[0]) - 1 if rows else lead - 1 + len(summary.columns))
    top, rules, start = ["", *([""] if summary.average else [])], [], lead + 1
    for lp, width in groups:
        top.append(f"\\multicolumn{{{width}}}{{c}}{{{latex_escape(lp)}}}")
        rules.append(f"\\cmidrule(lr){{{start}-{start + width - 1}}}")
        start += width
    titles = ["Metric", *(["Avg"] if summary.average else []), *(latex_escape(m) for _, m in summary.columns)]
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(top) + " \\\\", "".join(rules),
             " & ".join(titles) + " \\\\", "\\midrule"]
    for row in rows:
        values = list(row.values())
        lines.append(" & ".join([latex_escape(values[0]), *(_latex_cell(v) for v in values[1:])]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _latex_cell(text: str) -> str:
    """A cell's text for LaTeX: its bold markup kept, the interval brackets and dashes set as text."""
    return text.replace("–", "--").replace(" [", " {\\scriptsize [").replace("]", "]}") if "[" in text else \
        text.replace("–", "--")


def legend(summary: Summary, style: Style) -> list[str]:
    """Sentences for the caption: the statistics, the average's weights, the clusters and test, the intervals."""
    settings = summary.settings
    lines = []
    names = []
    for measure in summary.measures:
        base, _, grouping = measure.partition("@")
        text = STATISTICS.get(base, base)
        if grouping:
            text += f", {GROUPINGS.get(grouping, grouping)}"
        if measure == "sys-pa" and ("all", measure) in summary.cells:
            text += "; all: pooled over the language pairs"
        names.append(f"{measure}: {text}")
    lines.append("; ".join(names) + ".")
    spans = settings.get("command") == "spans-eval"
    if summary.average and spans:
        lines.append(f"avg: span-f1 averaged over the language pairs (WMT25's avg_f1); span F1 as the "
                     f"{settings.get('definition', 'wmt25').upper()} error-span task defines it.")
    elif summary.average:
        weights = WEIGHTS.get(settings.get("weights", ""), settings.get("weights", "the tasks' weights"))
        lines.append(f"avg: the weighted average over the tasks, each rescaled to [0, 1] (a correlation r as "
                     f"(r + 1)/2); weights: {weights}; metrics scored in every task only.")
    if any(v.rank is not None for cells in summary.cells.values() for v in cells.values()):
        trials = settings.get("permutations")
        test = (f"a paired permutation test ({trials} trials, stopping early as mt-metrics-eval's tasks do)"
                if trials else "a paired permutation test")
        lines.append(f"In parentheses: the rank of the metric's significance cluster; a metric starts a new "
                     f"cluster when one above it in its cluster is better at p ≤ {settings.get('p', '0.05')} by "
                     f"{test}; bold: the top cluster.")
    if style.show_ci:
        level = settings.get("ci")
        shown = f"{float(level) * 100:g}% " if level else ""
        units = "source segments resampled" if spans else \
            "segments resampled for segment-level statistics, systems for system-level ones"
        lines.append(f"Brackets: {shown}percentile bootstrap intervals ({settings.get('bootstrap', 'N')} "
                     f"replicates; {units}).")
    if settings.get("human") == "excluded":
        lines.append("Human translations are not among the systems.")
    if style.markup == "latex":
        from .table_writers import latex_escape

        lines = [latex_escape(line).replace("≤", "$\\leq$") for line in lines]
    return lines
