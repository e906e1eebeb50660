"""Man pages generated from the click definitions (``scripts/gen-man`` writes man/).

One page for ``rankeval`` and one per subcommand, in roff. The text depends only on
the click definitions and the version, so a test can regenerate the pages and
fail when the committed ones are out of date.
"""

from __future__ import annotations

import click

from ._version import __version__
from .helpformat import long_option_help


def _roff(text: str) -> str:
    """Escape text for roff: backslashes, leading dots and quotes."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def _paragraphs(help_text: str) -> str:
    """click help text (with \\b no-rewrap blocks) as roff paragraphs."""
    out, block = [], []
    for para in help_text.replace("\f", "\n\n").strip().split("\n\n"):
        if para.strip().startswith("\b"):
            body = para.strip()[1:].strip("\n")
            out.append(".PP\n.nf\n" + _roff(body) + "\n.fi")
        else:
            block = " ".join(line.strip() for line in para.splitlines())
            out.append(".PP\n" + _roff(block))
    return "\n".join(out)


def _header(name: str, summary: str) -> str:
    return (f'.TH "{name.upper()}" "1" "" "rankeval {__version__}" "rankeval manual"\n'
            f".SH NAME\n{_roff(name)} \\- {_roff(summary)}\n")


def _options(command: click.Command, ctx: click.Context) -> str:
    rows = []
    for param in command.get_params(ctx):
        if isinstance(param, click.Argument):  # shown in the synopsis; click versions differ here
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        rows.append(f".TP\n\\fB{_roff(names)}\\fR\n{_roff(long_option_help(help_text))}")
    return ".SH OPTIONS\n" + "\n".join(rows) + "\n" if rows else ""


def page(command: click.Command, name: str, summary: str, parent: click.Context | None = None) -> str:
    """The roff text of one man page (``parent``: the group's context, for its settings)."""
    settings = {} if parent else dict(command.context_settings)
    ctx = click.Context(command, info_name=name.split()[-1], parent=parent, **settings)
    usage = " ".join(command.collect_usage_pieces(ctx))
    text = _header(name.replace(" ", "-"), summary)
    text += f".SH SYNOPSIS\n\\fB{_roff(name)}\\fR {_roff(usage)}\n"
    text += ".SH DESCRIPTION\n" + _paragraphs(command.help or "") + "\n"
    text += _options(command, ctx)
    if name == "rankeval":
        text += _exit_status()
    text += f'.SH SEE ALSO\n{_see_also(name)}\n'
    return text


def _exit_status() -> str:
    return (".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\nbad input data; one line on stderr names the file, "
            "the line and the problem\n.TP\n2\nbad usage (unknown option, format or value)\n")


def _see_also(name: str) -> str:
    from .cli import COMMANDS

    names = ["rankeval"] + [f"rankeval-{c}" for c in COMMANDS]
    return ", ".join(f"\\fB{n}\\fR(1)" for n in names if n != name.replace(" ", "-"))


def all_pages() -> dict[str, str]:
    """file name -> roff text for every page."""
    from .cli import COMMANDS, main

    ctx = click.Context(main, info_name="rankeval", **main.context_settings)
    pages = {"rankeval.1": page(main, "rankeval", "evaluate machine-predicted rankings against human rankings")}
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        pages[f"rankeval-{name}.1"] = page(command, f"rankeval {name}", COMMANDS[name], ctx)
        if isinstance(command, click.Group):  # rankeval learn train, ...: one page per subcommand
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            for sub in command.list_commands(sub_ctx):
                sub_command = command.get_command(sub_ctx, sub)
                pages[f"rankeval-{name}-{sub}.1"] = page(sub_command, f"rankeval {name} {sub}",
                                                          sub_command.get_short_help_str(limit=200), sub_ctx)
    return pages
