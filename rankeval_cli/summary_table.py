"""Gathering the summaries of several runs into one table (``rankeval table``).

Each input is a summary a rankeval command wrote (TSV or JSON lines). A record's
*row key* is its file's label plus its key columns: the columns written before
``measure`` (the ``--by`` columns) and ``level``, ``system``, ``metric`` where
present. Its *column* is the value of ``measure`` (``tau`` summaries give
``tau_micro`` and ``tau_macro``); a table without ``measure`` (``aggregate``) takes
the file's label. Cells keep their interval (``ci_low``, ``ci_high``), p-value
(``p_randomization``, ``p_bootstrap``, ``p_independence``) and significance cluster
(``cluster``) so the writer can mark them. Summaries written before 1.0 are read
under today's column names (:func:`.formats.summaries.current_names`).

A ``compare`` summary (it has a ``baseline`` column) gives one row per system: its
comparisons with each baseline are gathered into the system's cell (``versus``: the
baseline's name → p-value, effect size), so that several baselines or all pairs mark
one cell. The p-value is the chosen test's (``p_<test>``), adjusted (``p_<test>_adj``)
when ``compare --correction`` adjusted it; what was used is kept per column
(:class:`Marking`) for the table's legend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import DataError
from .formats.summary_reader import OLD_COLUMNS, read_summaries, strict_number
from .inputs import source_name
from .vocabulary import EFFECTS, TAU_AVERAGES

KEY_COLUMNS = ("level", "system", "metric")
P_COLUMNS = ("p_randomization", "p_permutation", "p_bootstrap", "p_independence")
VALUE_COLUMNS = ("value",)
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "randomization":
              "paired randomization test", "bootstrap": "paired bootstrap test", "tukey": "Tukey's HSD",
              "randomized_tukey": "randomized Tukey HSD", "permutation": "permutation test", "value": "test"}


@dataclass
class Cell:
    value: float | None
    ci: tuple | None = None
    p: float | None = None
    cluster: int | None = None
    versus: dict = field(default_factory=dict)  # baseline -> (p, effect)


@dataclass
class Marking:
    """How one column's significance was decided (for the legend)."""

    test: str  # the p column's test, e.g. t, randomization
    adjusted: bool = False
    corrections: set = field(default_factory=set)
    families: set = field(default_factory=set)  # family sizes
    kinds: set = field(default_factory=set)  # baseline, all-pairs, k-baselines


@dataclass
class Gathered:
    key_names: list
    columns: list = field(default_factory=list)
    rows: dict = field(default_factory=dict)  # row key -> {column: Cell}
    signatures: dict = field(default_factory=dict)  # column -> set of signatures
    markings: dict = field(default_factory=dict)  # column -> Marking
    baselines: list = field(default_factory=list)  # compare baselines, in order of appearance


#: the row key of a file's label while gathering (named at the end: see :func:`gather`)
_LABEL = "\0label"


def gather(sources, labels, value_column: str | None = None, test: str | None = None,
           effect: str | None = None) -> Gathered:
    """Read every source and place each record's value at (row key, column).

    With several sources, rows are keyed by each file's label first, a column named
    ``system`` (``label`` when the summaries have a ``system`` column of their own).
    A label of None (stdin, no --label) reads ``stdin`` there; a table without a
    ``measure`` column (``aggregate``) takes the label as its column, or, for None, the
    method of its signature (``expected-wins``).

    Input that is not a summary (no value column; no records at all), a value that is not a
    number and a second value for the same row and column (and baseline) are errors naming
    the file and line: none is shown as missing, none is dropped.
    """
    table = Gathered(key_names=[_LABEL] if len(sources) > 1 else [])
    placed: dict = {}  # (row, column, baseline) -> (source, line) of its value
    for source, label in zip(sources, labels):
        where, records, header = source_name(source), 0, []

        def check_header(line, columns, where=where):
            columns = [OLD_COLUMNS.get(c, c) for c in columns]
            header.append(columns)
            if value_column is None and not any(c in columns for c in (*VALUE_COLUMNS, "micro", "macro")):
                raise DataError(_no_value(columns), where, line)

        for line, record in read_summaries(source, on_header=check_header):
            records += 1
            number = _reader(where, line)
            compared = "baseline" in record
            keys = [k for k in _key_columns(record) if not (compared and k == "baseline")]
            for name in keys:
                if name not in table.key_names:
                    table.key_names.append(name)
            row = ((_LABEL, label or "stdin"),) * (len(sources) > 1) + tuple((k, str(record[k])) for k in keys)
            cells = list(_cells(record, label or _method(record), value_column, number))
            if value_column is not None and value_column not in record:
                raise DataError(f"no column {value_column!r} (--column)", source_name(source), line)
            if not cells:
                raise DataError(_no_value(list(record)), source_name(source), line)
            p_name = _p_column(record, test, source, line) if compared else None
            for column, cell in cells:
                slot = (row, column, str(record["baseline"]) if compared else None)
                if slot in placed:
                    first = placed[slot]
                    hint = "; tell the runs apart with --label" if first[0] != where or len(sources) > 1 else ""
                    raise DataError(f"a second value for {_row_text(row, slot[2])} in column {column!r} (the first "
                                    f"at {first[0]}:{first[1]}){hint}", where, line)
                placed[slot] = (where, line)
                if column not in table.columns:
                    table.columns.append(column)
                here = table.rows.setdefault(row, {})
                if compared:
                    if effect is not None and effect not in record:
                        raise DataError(f"no column {effect} (compare writes {', '.join(e for e in EFFECTS)} for "
                                        "mean measures)", source_name(source), line)
                    cell = _merge_comparison(table, here.get(column) or cell, record, column, p_name, effect, number)
                here[column] = cell
                if record.get("signature"):
                    table.signatures.setdefault(column, set()).add(str(record["signature"]))
        if not records and not header:
            raise DataError("not a summary: no records (expected the TSV or JSON lines a rankeval summary "
                            "command writes)", where, 1)
    if _LABEL in table.key_names:
        name = "label" if "system" in table.key_names else "system"
        table.key_names = [name if k == _LABEL else k for k in table.key_names]
        table.rows = {tuple((name if k == _LABEL else k, v) for k, v in row): cells
                      for row, cells in table.rows.items()}
    return table


def _reader(name: str, line: int):
    """``number(value, column)``: a record's value as a float (None when missing); anything
    else is an error at its line."""
    return lambda value, column: strict_number(value, column, name, line)


def _no_value(columns) -> str:
    return (f"not a summary: no value column ({', '.join(VALUE_COLUMNS)}, or micro and macro; --column names "
            f"another); found {', '.join(map(repr, list(columns)[:8]))}")


def _row_text(row: tuple, baseline: str | None) -> str:
    text = "the row " + (", ".join(f"{k}={v}" for k, v in row) if row else "(no key columns)")
    return text + (f" against baseline {baseline}" if baseline is not None else "")


def _method(record: dict) -> str:
    """The method a summary's signature names (``aggregate|method:expected-wins|...``), else ``value``."""
    parts = str(record.get("signature") or "").split("|")
    found = next((p[len("method:"):] for p in parts if p.startswith("method:")), None)
    return found or (parts[0] if parts[0] in ("borda",) else "value")


def _p_column(record: dict, test: str | None, source, line) -> str | None:
    """The p column of a compare record: ``p_<test>[_adj]`` (adjusted when present), else the first one."""
    names = [c for c in record if c.startswith("p_")]
    if test is not None:
        wanted = "p_" + test.replace("-", "_")
        if wanted not in record:
            have = ", ".join(c for c in names if not c.endswith("_adj")) or "none"
            raise DataError(f"no column {wanted} (p-values here: {have}); run compare with --test {test}",
                            source_name(source), line)
        return wanted + "_adj" if wanted + "_adj" in record else wanted
    adjusted = [c for c in names if c.endswith("_adj")]
    return (adjusted or names or [None])[0]


def _merge_comparison(table: Gathered, cell: Cell, record: dict, column: str, p_name, effect, number) -> Cell:
    """A system's cell with this record's comparison (``p_name``, ``effect``: its columns) added to ``versus``."""
    system, baseline = str(record.get("system")), str(record["baseline"])
    if baseline == system:
        return cell
    if baseline not in table.baselines:
        table.baselines.append(baseline)
    p = number(record.get(p_name), p_name) if p_name else None
    cell.versus[baseline] = (p, number(record.get(effect), effect) if effect else None)
    if p_name:
        test = p_name[2:].removesuffix("_adj")
        marking = table.markings.setdefault(column, Marking(test, p_name.endswith("_adj")))
        marking.adjusted = marking.adjusted or p_name.endswith("_adj")
        marking.families.update({int(f)} if (f := number(record.get("family"), "family")) is not None else set())
        settings = _signature_settings(record.get("signature"))
        if settings.get("correction"):
            marking.corrections.add(settings["correction"])
        if settings.get("family"):
            marking.kinds.add(settings["family"])
    return cell


def _signature_settings(signature) -> dict:
    parts = str(signature or "").split("|")[1:]
    return dict(part.split(":", 1) for part in parts if ":" in part)


def _key_columns(record: dict) -> list:
    names = list(record)
    head = names[:names.index("measure")] if "measure" in names else \
        names[:names.index("system")] if "system" in names else []
    return [n for n in names if n in head or n in KEY_COLUMNS]


def _cells(record: dict, label: str, value_column: str | None, number):
    """(column, Cell) pairs of one record; ``number(value, column)`` reads a value."""
    measure = record.get("measure")
    p = next((v for c in P_COLUMNS if c in record and (v := number(record[c], c)) is not None), None)
    cluster = number(record.get("cluster"), "cluster")
    cluster = int(cluster) if cluster is not None else None
    if value_column is not None or any(c in record for c in VALUE_COLUMNS):
        name = value_column or next(c for c in VALUE_COLUMNS if c in record)
        if name not in record:
            return
        ci = (number(record.get("ci_low"), "ci_low"), number(record.get("ci_high"), "ci_high"))
        yield (str(measure) if measure is not None else label), Cell(
            number(record[name], name), ci if None not in ci else None, p, cluster)
        return
    for average in TAU_AVERAGES:  # tau summaries
        if average in record:
            ci = tuple(number(record.get(f"{average}_ci_{end}"), f"{average}_ci_{end}") for end in ("low", "high"))
            # tau's p_independence is not a comparison: no mark (as before 1.0, when it was named p)
            yield f"{measure}_{average}", Cell(number(record[average], average), ci if None not in ci else None)


# --- formatting ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Style:
    """What the cells show: decimals, intervals, significance level, best-in-column, effect size."""

    digits: int = 4
    show_ci: bool = False
    alpha: float | None = 0.05
    markup: str = "plain"  # markdown, latex or plain
    best: str = "none"  # high, low, none, or measure: each column by its IR measure's direction
    effect: str | None = None


def letters(table: Gathered) -> dict:
    """The mark of each baseline when there are several: a, b, c, ... in order of appearance."""
    if len(table.baselines) < 2:
        return {}
    return {name: _letter(i) for i, name in enumerate(table.baselines)}


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def table_records(table: Gathered, style: Style) -> list[dict]:
    """Records ready for the writer: cells formatted as text with their marks.

    ``style.markup`` is ``markdown``, ``latex`` or ``plain``: how clusters (best cluster in
    bold, the cluster number as a superscript), the best value of a column (bold) and
    significance (a dagger when p < alpha against the one baseline; with several
    baselines, the letters of those that differ) are drawn.
    """
    counts = {column for column in table.columns  # columns of whole numbers print without decimals
              if all(c.value is None or float(c.value).is_integer()
                     for cells in table.rows.values() if (c := cells.get(column)) is not None)}
    best = {column: _best(table, column, _direction(column, style.best)) for column in table.columns}
    marks = letters(table)
    records = []
    for row, cells in table.rows.items():
        record = dict(row)
        for column in table.columns:
            cell = cells.get(column)
            record[column] = "" if cell is None else format_cell(
                cell, 0 if column in counts else style.digits, style, marks,
                cell.value is not None and cell.value == best[column], table.baselines[:1])
        records.append(record)
    return records


def _direction(column: str, best: str) -> str:
    """``high``, ``low`` or ``none`` for a column: ``best`` itself, or with ``measure`` the direction the
    registry gives the column's IR measure (``high`` for a name that is none)."""
    if best != "measure":
        return best
    from .measures.trec.names import better

    return {"lower": "low", "none": "none"}.get(better(column), "high")


def _best(table: Gathered, column: str, direction: str):
    if direction == "none":
        return None
    values = [c.value for cells in table.rows.values() if (c := cells.get(column)) is not None
              and c.value is not None and c.cluster is None]
    if not values:
        return None
    return max(values) if direction == "high" else min(values)


def format_cell(cell: Cell, digits: int, style: Style, marks: dict | None = None, best: bool = False,
                first=()) -> str:
    """One cell as text: the value, its interval, its effect size (against the ``first`` baseline when the
    cell was compared with it, else its first comparison), the significance marks, its cluster."""
    text = fixed(cell.value, digits)
    if style.show_ci and cell.ci:
        text += f" [{fixed(cell.ci[0], digits)}, {fixed(cell.ci[1], digits)}]"
    alpha = style.alpha
    if cell.versus:
        differing = [b for b, (p, _) in cell.versus.items() if alpha is not None and p is not None and p < alpha]
        significant = bool(differing) and not marks
        letters_ = "".join(marks[b] for b in differing) if marks else ""
        against = first[0] if first and first[0] in cell.versus else next(iter(cell.versus))
        effect = cell.versus[against][1] if style.effect else None
    else:
        significant = alpha is not None and cell.p is not None and cell.p < alpha
        letters_, effect = "", None
    effect_text = f" ({_signed(effect, digits)})" if style.effect and cell.versus else ""
    if style.markup == "latex":
        text = text.replace("–", "--")
        if cell.cluster == 1 or best:
            text = f"\\textbf{{{text}}}"
        marks_ = ("\\dagger" if significant else "") + (f"^{{{cell.cluster}}}" if cell.cluster else "") + \
            (f"^{{\\mathrm{{{letters_}}}}}" if letters_ else "")
        return text + (f"${marks_}$" if marks_ else "") + effect_text
    if style.markup == "markdown":
        if cell.cluster == 1 or best:
            text = f"**{text}**"
        return text + ("†" if significant else "") + (f"<sup>{cell.cluster}</sup>" if cell.cluster else "") + \
            (f"<sup>{letters_}</sup>" if letters_ else "") + effect_text
    return text + ("*" if significant else "") + (f" ({cell.cluster})" if cell.cluster else "") + \
        (f" [{letters_}]" if letters_ else "") + effect_text


def _signed(value: float | None, digits: int) -> str:
    if value is None:
        return "–"
    return ("+" if value >= 0 else "") + fixed(value, digits)


def fixed(value: float | None, digits: int) -> str:
    """``value`` with ``digits`` decimals; tiny non-zero values in scientific notation; – when undefined."""
    if value is None:
        return "–"
    if digits == 0:
        return f"{value:.0f}"
    if value != 0 and abs(value) < 0.5 * 10 ** -digits:
        return f"{value:.{max(digits - 2, 1)}e}"
    return f"{value:.{digits}f}"


# --- the legend ------------------------------------------------------------------------------

EFFECT_NAMES = {"delta": "the difference to the baseline", "d_z": "Cohen's d_z against the baseline (mean "
                "difference / sd of the per-topic differences)", "g_z": "Hedges' g_z against the baseline (d_z "
                "corrected for small samples)", "es_e": "Sakai's ES_E against the baseline (mean difference / √V_E, "
                "the residual variance of the two-way ANOVA of all systems)"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli"}


def legend(table: Gathered, style: Style) -> list[str]:
    """Sentences saying what the marks of the table mean: test, correction, family, α, best, effect."""
    out = []
    alpha = f"{style.alpha:g}" if style.alpha is not None else None
    marks = letters(table)
    described = {}
    for column in table.columns:
        marking = table.markings.get(column)
        if marking is not None:
            described.setdefault(_marking_text(marking), []).append(column)
    if alpha is not None and table.baselines:
        if marks:
            named = ", ".join(f"{letter} = {name}" for name, letter in marks.items())
            head = f"Letters: p < {alpha} against that system, {named}"
        else:
            head = f"{_dagger(style)} p < {alpha} against {table.baselines[0]}"
        how = "; ".join(text if len(described) == 1 else f"{', '.join(cols)}: {text}"
                        for text, cols in described.items())
        out.append(head + (f" ({how})." if how else "."))
    elif alpha is not None and any(c.p is not None for cells in table.rows.values() for c in cells.values()):
        out.append(f"{_dagger(style)} p < {alpha}.")
    directions = {c: _direction(c, style.best) for c in table.columns}
    bold = [c for c in table.columns if _best(table, c, directions[c]) is not None]
    if bold:
        common = "low" if all(directions[c] == "low" for c in bold) else "high"
        others = [c for c in bold if directions[c] != common]
        text = f"Bold: the {'highest' if common == 'high' else 'lowest'} value of each column"
        out.append(text + (f" (the lowest for {', '.join(others)})." if others else "."))
    if style.effect and table.baselines:
        against = f"against {table.baselines[0]}" + (" (or the first baseline compared)" if marks else "")
        out.append(f"In parentheses: {EFFECT_NAMES[style.effect].replace('against the baseline', against)}.")
    if style.show_ci:
        out.append("Brackets: the value's confidence interval (its level in the signature).")
    if style.markup == "latex":
        out = [_latex_text(line, style) for line in out]
    return out


def _marking_text(marking: Marking) -> str:
    test = marking.test
    text = TEST_NAMES.get(test, test.replace("_", " ") + " test")
    if test in ("tukey", "randomized_tukey"):
        return text + ", which controls the error over all pairs of the systems"
    if marking.adjusted:
        names = " or ".join(sorted(CORRECTION_NAMES.get(c, c) for c in marking.corrections)) or "adjusted"
        sizes = " or ".join(str(f) for f in sorted(marking.families))
        kinds = "all pairs" if "all-pairs" in marking.kinds else ""
        plural = "s" if sizes != "1" else ""
        family = f" over the {sizes} comparison{plural} of each measure" if sizes else ""
        return f"{text}, {names}-adjusted{family}" + (f": {kinds}" if kinds else "")
    return text + ", not adjusted for multiple comparisons"


def _dagger(style: Style) -> str:
    return {"markdown": "†", "latex": "$^\\dagger$"}.get(style.markup, "*")


def _latex_text(line: str, style: Style) -> str:
    from .table_writers import latex_escape

    import re

    dagger = "$^\\dagger$"
    text = dagger.join(latex_escape(part).replace("√", "$\\surd$") for part in line.split(dagger))
    return re.sub(r"p \$<\$ ([0-9.e-]+)", r"$p<\1$", text)  # latex_escape wrote < as $<$
