"""Markdown and LaTeX tables: the presentation stage, a writer like TSV and JSON lines.

Cells arrive as text (numbers already formatted by the caller); columns whose cells
are all numbers are right-aligned. Markdown escapes ``|``; LaTeX escapes its special
characters and uses booktabs rules (``\\usepackage{booktabs}``).

:func:`paper_columns` lays summary records out for a paper (intervals in one column,
p-values as ``< 0.001``, no signature column) and :func:`signature_note` writes the
signatures under the table, for its caption or a footnote.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"^(<\s*)?[-+−]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$|^(nan|inf|-inf|–)?$"
                     r"|^\[[^,\]]+, [^,\]]+\]$")


_MARKS = re.compile(r"\\textbf\{([^{}]*)\}|\$[^$]*\$|<sup>[^<]*</sup>|\*\*|†|\*| \[[^\]]*\]| \(\d+\)"
                    r"| \([-+−]?(\d+(\.\d*)?([eE][-+]?\d+)?|–)\)")  # ... an effect size: (+0.42)


def numeric_columns(cells: list[list[str]], width: int) -> list[bool]:
    """True for each column whose every cell is a number (or empty / undefined), marks aside."""
    return [all(_NUMBER.match(_MARKS.sub(lambda m: m.group(1) or "", row[j]).strip()) for row in cells)
            for j in range(width)]


def markdown_table(columns: list[str], cells: list[list[str]]) -> str:
    """A GitHub-flavoured Markdown table, numeric columns right-aligned."""
    right = numeric_columns(cells, len(columns))
    escape = (lambda text: text.replace("|", "\\|"))
    lines = ["| " + " | ".join(escape(c) for c in columns) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in cells]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"$<$", ">": r"$>$"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex_table(columns: list[str], cells: list[list[str]]) -> str:
    """A LaTeX ``tabular`` with booktabs rules, numeric columns right-aligned."""
    right = numeric_columns(cells, len(columns))
    spec = "".join("r" if r else "l" for r in right)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
             " & ".join(latex_escape(c) for c in columns) + " \\\\", "\\midrule"]
    lines += [" & ".join(_latex_cell(c) for c in row) + " \\\\" for row in cells]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


_MARKUP = re.compile(r"(\\textbf\{[^{}]*\}|\$[^$]*\$)")


def _latex_cell(text: str) -> str:
    """Escape a cell, keeping the markup ``rankeval table`` adds (``\\textbf{...}``, ``$...$``) intact."""
    parts = _MARKUP.split(text)
    return "".join(part if i % 2 else latex_escape(part).replace("–", "--") for i, part in enumerate(parts))


#: columns a paper table leaves out (the signature goes under the table)
_LEFT_OUT = ("signature",)


def paper_columns(rows: list[dict], cell, p_cell) -> tuple[list[str], list[list[str]]]:
    """Header and cells of summary records for a paper table.

    ``X_ci_low`` and ``X_ci_high`` (``X`` empty, ``micro``, ``delta``, ...) become one
    column ``X 95% CI`` (the level from the signature's ``ci:``) holding ``[low, high]``;
    p-value columns (``p_*``) and the value of a p-value row (``measure`` ``tau_p`` or
    ``p_*``) are written by ``p_cell(value)``, the rest by ``cell(value, column)``.
    """
    names = [c for c in dict.fromkeys(c for row in rows for c in row) if c not in _LEFT_OUT]
    level = _ci_level(rows)
    columns, makers = [], []
    for name in names:
        if name.endswith("ci_high") and name[:-4] + "low" in names:
            continue
        if name.endswith("ci_low") and name[:-3] + "high" in names:
            low, high = name, name[:-3] + "high"
            prefix = name[: -len("ci_low")].rstrip("_")
            columns.append(f"{prefix} {level}".strip())
            makers.append(lambda row, low=low, high=high: _interval(cell(row.get(low), low), cell(row.get(high), high)))
        elif name.startswith("p_") or name == "p":
            columns.append(name)
            makers.append(lambda row, name=name: p_cell(row.get(name)))
        else:
            columns.append(name)
            makers.append(lambda row, name=name: p_cell(row.get(name)) if name == "value" and _is_p(row.get("measure"))
                          else cell(row.get(name), name))
    return columns, [[make(row) for make in makers] for row in rows]


def _is_p(measure) -> bool:
    return isinstance(measure, str) and (measure.startswith("p_") or measure.endswith("_p"))


def _interval(low: str, high: str) -> str:
    return "" if not low and not high else f"[{low}, {high}]"


def _ci_level(rows: list[dict]) -> str:
    """``95% CI`` from the first signature holding ``ci:0.95`` (``CI`` when none does)."""
    for row in rows:
        for part in str(row.get("signature") or "").split("|"):
            if part.startswith("ci:"):
                try:
                    return f"{float(part[3:]) * 100:g}% CI"
                except ValueError:
                    break
    return "CI"


def p_value_text(value: float, digits: int | None = None) -> str:
    """A p-value for a paper: ``digits`` decimals (3 by default), and ``< 0.001`` (with 3)
    for anything that would print as zero; undefined as ``–``."""
    import math

    digits = 3 if digits is None else max(digits, 1)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if math.isnan(value):
        return "–"
    floor = 10.0 ** -digits
    if value < floor:
        return f"< {floor:.{digits}f}"
    return f"{value:.{digits}f}"


def signature_note(signatures, fmt: str) -> str:
    """The distinct signatures of a table, under it: for its caption or a footnote.

    Markdown: a line ``Signature: `...` `` (one per signature); LaTeX: comment lines
    ``% signature: ...`` after the tabular, so the table compiles as it is.
    """
    distinct = [s for s in dict.fromkeys(str(s) for s in signatures if s) if s]
    if not distinct:
        return ""
    if fmt == "markdown":
        return "\n" + "".join(f"Signature: `{s}`\n" for s in distinct)
    return "".join(f"% signature: {s}\n" for s in distinct)
