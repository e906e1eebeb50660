"""Help that fits a screen: ``--help`` shows the short form, the man page the whole text.

A command's docstring and option help are written once, in full; the man page
(:mod:`.manpage`) prints all of it. ``--help`` prints, within about 40 lines at 80
columns:

* the description up to click's ``\\f`` mark when the docstring has one, else its
  first paragraph; then the paragraphs headed ``Example:`` or ``Examples:``;
* each option with its help up to a ``\\f`` mark in it, else its first sentence
  (the ``[default: ...]`` notes kept);
* the options every command shares (input, output, TREC joins, parallel work)
  named on one line, described in ``rankeval --help`` and the man pages; so are
  a command's own options whose help starts with :data:`MAN_ONLY` (no short
  form: the man page only), on a line of their own.

Commands get this through :func:`short_help`, applied as the lazy groups load them,
so a command added later follows it without code of its own.
"""

from __future__ import annotations

import re

import click

#: the width help is laid out for (and tested at)
WIDTH = 80
#: options shared by many commands: named on one line in a command's --help
COMMON = ("--input-format", "--exclude-systems", "-o", "--output", "--output-format", "--digits", "-j", "--jobs",
          "--scheduler", "--rel-level", "--depth", "--all-queries", "--doc-groups")
#: the start of an option's help that has no short form: --help only names the option
MAN_ONLY = "\b\f"
#: where every option is described in full
COMMON_NOTE = "every option in full: man {page}"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_BRACKETS = re.compile(r"\s*\[([^\[\]]*)\]")
_RANGE = re.compile(r"^[-\d.]*<?=?x[<>]?=?[-\d.]*$")


def short_option_help(text: str) -> str:
    """An option's help for --help: the part before a ``\\f`` mark (the man page shows the
    part after it), else the first sentence; and its default, from the square brackets
    (``[default: 1000; x>=1]`` -> ``[default: 1000]``; value ranges are left to the man page)."""
    if not text:
        return text
    short, full = text.split("\f", 1) if "\f" in text else (None, text)
    if short is not None and short.rstrip().endswith("[]"):  # an explicit "no notes"
        return " ".join(short.rstrip()[:-2].split())
    if short is None:
        short = _SENTENCE_END.split(_BRACKETS.sub("", full), 1)[0]
    short = " ".join((short if "[default" in short else _BRACKETS.sub("", short)).split()).rstrip(".")
    notes = []
    for found in _BRACKETS.finditer(full):
        parts = [p.strip() for p in found.group(1).split(";")]
        if any(p.startswith(("default", "required")) for p in parts):
            notes += [p for p in parts if not _RANGE.match(p.replace(" ", ""))]
    return f"{short} [{'; '.join(notes)}]" if notes and "[default" not in short else short


def long_option_help(text: str) -> str:
    """An option's help for the man page: the part after a ``\\f`` mark, else all of it."""
    return text.split("\f", 1)[1] if text and "\f" in text else text


def short_description(text: str, marked: bool) -> str:
    """The docstring for --help: all of it before ``\\f`` (``marked``), else the first paragraph and
    the example paragraphs."""
    if marked:
        return text
    paragraphs = re.split(r"\n\s*\n", text.strip())
    keep = paragraphs[:1] + [p for p in paragraphs[1:] if _is_examples(p)]
    return "\n\n".join(keep)


def _is_examples(paragraph: str) -> bool:
    first = paragraph.strip().lstrip("\b").strip().splitlines()[0] if paragraph.strip("\b \n") else ""
    return first.startswith(("Example:", "Examples:", "Examples ("))


class ShortHelpFormatter(click.HelpFormatter):
    """Writes a command's --help in its short form (see the module doc)."""

    def __init__(self, command: click.Command, name: str):
        super().__init__(width=WIDTH, max_width=WIDTH)
        self.command, self.name = command, name

    def write_text(self, text: str) -> None:
        marked = "\f" in (self.command.help or "")
        super().write_text(short_description(text, marked))

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        if not rows or not all(term.startswith("-") for term, _ in rows):
            return super().write_dl(rows, col_max, col_spacing)  # the commands of a group
        own, more, common = [], [], []
        for term, text in rows:
            names = [n.strip() for part in term.split(",") for n in part.split()[:1]]
            shared = names and all(n in COMMON for n in names) and "[required]" not in text
            (common if shared else more if text.startswith(MAN_ONLY) else own).append((term, text))
        if own:
            super().write_dl([(term, short_option_help(text)) for term, text in own], col_max, col_spacing)
        page = f"rankeval-{self.name}" if self.name else "rankeval"
        if more:
            self._names_line("More: ", more, ".")
        if common:
            self._names_line("Shared: ", common, f"; {COMMON_NOTE.format(page=page)}.")

    def _names_line(self, head: str, rows, tail: str) -> None:
        """The options of ``rows`` named in one paragraph."""
        import textwrap

        names = ", ".join(term.split()[0].rstrip(",") if not term.startswith("-o") else "-o FILE"
                          for term, _ in rows)
        self.write_paragraph()
        for line in textwrap.wrap(head + names + tail, WIDTH - self.current_indent, break_on_hyphens=False):
            self.write(f"{'':>{self.current_indent}}{line}\n")


class ShortHelpContext(click.Context):
    """A context whose --help is the short form."""

    def make_formatter(self) -> click.HelpFormatter:
        # the man page of "rankeval learn train" is rankeval-learn-train, whatever the program is called
        return ShortHelpFormatter(self.command, "-".join((self.command_path or "").split()[1:]))


def short_help(command: click.Command) -> click.Command:
    """Give ``command`` the short --help (idempotent); returns it."""
    command.context_class = ShortHelpContext
    return command
