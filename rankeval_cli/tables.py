"""Markdown and LaTeX tables: the presentation stage, a writer like TSV and JSON lines.

Cells arrive as text (numbers already formatted by the caller); columns whose cells
are all numbers are right-aligned. Markdown escapes ``|``; LaTeX escapes its special
characters and uses booktabs rules (``\\usepackage{booktabs}``).
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"^[-+−]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?%?$|^(nan|inf|-inf|–)?$")


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
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


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
