"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages of the site generated at build time.

- ``commands/*.md``: the reference of every command, walked from the click definitions
  (``rankeval_cli.cli.main``) as ``rankeval_cli/manpage.py`` walks them for the man pages,
  so the site, ``--help`` and the man pages cannot disagree. ``docs/NAME.md#anchor``
  references in help texts become links, which the strict build checks.
- ``python-reference.md``: the public functions of the Python API (``rankeval_cli.__all__``),
  their signatures and docstrings (the docstrings' examples run in tests/test_readme.py).
- ``benchmarks.md``: the repository's BENCHMARKS.md, so pages may link ``../BENCHMARKS.md``
  (right on GitHub) and reach it on the site too.
- ``measures/*.md``: a page per family of IR measures and an index, written from the measure
  registry (``rankeval_cli.measures.trec.catalogue``), as ``report --help`` and completion are.

The nav entry ``commands/index.md`` becomes a section listing every generated command page.
A GitHub-style list that interrupts a paragraph (no blank line before it) is rendered as a
list, as GitHub does, instead of running into the paragraph. The functions that make the
Markdown import nothing from MkDocs, so tests can call them without the docs extra.
"""

from __future__ import annotations

import html
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
COMMANDS_INDEX = "commands/index.md"
MEASURES_INDEX = "measures/index.md"
#: repository files outside docs/ that are pages of the site: path from the root -> page
ROOT_PAGES = {"BENCHMARKS.md": "benchmarks.md"}


# --- the command reference -----------------------------------------------------------------------

def _fresh_cli():
    """``rankeval_cli.cli.main`` of this checkout, imported anew (``mkdocs serve`` rebuilds in one
    process: a changed help text must show)."""
    if str(ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(ROOT))
    for name in [m for m in sys.modules if m == "rankeval_cli" or m.startswith("rankeval_cli.")]:
        del sys.modules[name]
    return importlib.import_module("rankeval_cli.cli").main


def _walk(main):
    """(page name, command path, click command, its context) for every command and subcommand."""
    import click

    root = click.Context(main, info_name="rankeval", **main.context_settings)
    yield "index", "rankeval", main, root

    def children(group, ctx, prefix):
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None or getattr(command, "hidden", False):
                continue
            sub = click.Context(command, info_name=name, parent=ctx)
            path = f"{prefix} {name}"
            yield path.split(" ", 1)[1].replace(" ", "-"), path, command, sub
            if isinstance(command, click.Group):
                yield from children(command, sub, path)

    yield from children(main, root, "rankeval")


def command_titles(main=None) -> list[tuple[str, str]]:
    """(nav title, page path) of every command page, in ``--help`` order (titles without ``rankeval``)."""
    main = main or _fresh_cli()
    return [(path.split(" ", 1)[1], f"commands/{page}.md") for page, path, _, _ in _walk(main) if page != "index"]


_ESCAPE = re.compile(r"([\\`*\[\]|])")
_UNDERSCORE = re.compile(r"(?<!\w)_|_(?!\w)")  # inside a word (tgt@unk_x) it never starts emphasis
_DOC_LINK = re.compile(r"\bdocs/([\w-]+\.md)(#[\w-]+)?")


def _text(text: str, depth: int) -> str:
    """Help text as Markdown inline text: escaped, with ``docs/PAGE.md#anchor`` as links."""
    out = _UNDERSCORE.sub(r"\\_", _ESCAPE.sub(r"\\\1", html.escape(text, quote=False)))
    up = "../" * depth

    def link(match):
        page, anchor = match.group(1), match.group(2) or ""
        if not (DOCS / page).is_file():
            return match.group(0)
        return f"[docs/{page}{anchor}]({up}{page}{anchor})"

    return re.sub(r"^([#>+\-]|\d+[.)])", r"\\\1", _DOC_LINK.sub(link, out))


def _description(help_text: str, depth: int) -> str:
    """click help text: paragraphs rewrapped as text, ``\\b`` blocks kept verbatim in a text fence."""
    import textwrap

    out = []
    for para in inspect.cleandoc(help_text or "").split("\n\n"):
        if para.strip().startswith("\b"):
            body = textwrap.dedent(para.strip()[1:].strip("\n"))
            out.append(f"```text\n{body}\n```")
        elif para.strip():
            out.append(_text(" ".join(line.strip() for line in para.splitlines()), depth))
    return "\n\n".join(out)


def _options(command, ctx, depth: int) -> str:
    import click

    rows = []
    for param in command.get_params(ctx):
        if isinstance(param, click.Argument):
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        rows.append(f"`{names}`\n:   {_text(help_text, depth) if help_text else ''}")
    return "\n\n".join(rows)


def command_page(path: str, command, ctx) -> str:
    """The Markdown page of one command."""
    import click

    depth = 1  # pages live in commands/
    usage = " ".join(command.collect_usage_pieces(ctx))
    short = command.get_short_help_str(limit=300)
    parts = [f"# {path}", _text(short, depth) if short and not command.help else "",
             "```text\n" + f"{path} {usage}".strip() + "\n```",
             _description(command.help or "", depth)]
    if isinstance(command, click.Group):
        rows = ["| command | what it does |", "|---|---|"]
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            page = f"{path} {name}".split(" ", 1)[1].replace(" ", "-")
            rows.append(f"| [`{path} {name}`]({page}.md) | {_text(sub.get_short_help_str(limit=300), depth)} |")
        parts += ["## Commands", "\n".join(rows)]
    options = _options(command, ctx, depth)
    if options:
        parts += ["## Options", options]
    man = path.replace(" ", "-")
    parts.append(f"*Generated from the command's own definition, as `{path} --help` and "
                 f"`man {man}` (`man -l man/{man}.1` in a checkout) print it.*")
    return "\n\n".join(p for p in parts if p) + "\n"


def index_page(main) -> str:
    """commands/index.md: the top-level help as rankeval prints it, and a link to every command."""
    import click

    ctx = click.Context(main, info_name="rankeval", terminal_width=80, max_content_width=80,
                        **main.context_settings)
    rows = ["| command | what it does |", "|---|---|"]
    for page, path, command, _ in _walk(main):
        if page != "index":
            rows.append(f"| [`{path}`]({page}.md) | {_text(command.get_short_help_str(limit=300), 1)} |")
    parallel = [f"[`{path}`]({page}.md)" for page, path, command, sub in _walk(main)
                if any("--jobs" in getattr(p, "opts", ()) for p in command.get_params(sub))]
    return ("# Command reference\n\n"
            "Every command and option, generated from the click definitions when the site is built: "
            "the same text as `--help` and the man pages. The task pages explain when to use which.\n\n"
            "```text\n$ rankeval --help\n" + main.get_help(ctx) + "\n```\n\n" + "\n".join(rows) + "\n\n"
            "## Commands with parallel work units\n\n"
            "These take `--jobs N` and `--scheduler ADDRESS` ([Parallel runs](../parallel.md)): "
            + (", ".join(parallel) or "none yet") + ".\n")


def command_pages(main=None) -> dict[str, str]:
    """page path (under the docs) -> Markdown, for the index and every command."""
    main = main or _fresh_cli()
    pages = {}
    for page, path, command, ctx in _walk(main):
        pages[f"commands/{page}.md"] = index_page(main) if page == "index" else command_page(path, command, ctx)
    return pages


# --- the Python API reference ----------------------------------------------------------------------

def _docstring(doc: str) -> str:
    """A docstring as Markdown: reST roles to code, doctest examples and ``::`` blocks fenced."""
    doc = inspect.cleandoc(doc or "")
    doc = re.sub(r":(?:func|class|mod|meth|attr):`~?(?:[\w.]+\.)?([\w]+)`", r"`\1`", doc)
    doc = doc.replace("``", "`")
    out, lines, i = [], doc.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i].strip() if lines[i].lstrip().startswith((">>>", "...")) else lines[i])
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            out.append(line.rstrip()[:-1])
            i += 2
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```python", *block, "```", ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _signature(kind: str, name: str, obj) -> str:
    """``def name(a, *, b: int = 1) -> float``, one parameter a line when it would pass 80 columns."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return f"{kind} {name}(...)"

    def annotation(a):
        return a if isinstance(a, str) else inspect.formatannotation(a)

    params, star = [], False
    for p in signature.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            params.append("*")
        star = star or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.annotation is not p.empty:
            text += f": {annotation(p.annotation)}"
        if p.default is not p.empty:
            default = "<factory>" if repr(p.default) == "<factory>" else repr(p.default)
            text += f" = {default}" if p.annotation is not p.empty else f"={default}"
        params.append(text)
    returns = "" if signature.return_annotation is signature.empty or kind == "class" \
        else f" -> {annotation(signature.return_annotation)}"
    one_line = f"{kind} {name}({', '.join(params)}){returns}"
    if len(one_line) <= 80:
        return one_line
    return f"{kind} {name}(\n" + "".join(f"    {p},\n" for p in params) + f"){returns}"


def python_reference() -> str:
    """python-reference.md: every public name of ``rankeval_cli`` with its signature and docstring."""
    _fresh_cli()
    import rankeval_cli

    parts = ["# Python API reference",
             "Generated from the docstrings of `rankeval_cli` (`import rankeval_cli as rk`) when the site "
             "is built. [Python API](python-api.md) shows them at work."]
    names = [n for n in rankeval_cli.__all__ if callable(getattr(rankeval_cli, n))]
    for name in sorted(names, key=lambda n: inspect.isclass(getattr(rankeval_cli, n))):  # functions first
        obj = getattr(rankeval_cli, name)
        kind = "class" if inspect.isclass(obj) else "def"
        parts.append(f"## `{name}`\n\n```python\n{_signature(kind, name, obj)}\n```\n\n{_docstring(obj.__doc__)}")
        fields = getattr(obj, "__dataclass_fields__", None)
        if fields:
            rows = ["| field | type |", "|---|---|"]
            rows += [f"| `{f}` | `{v.type}` |" for f, v in fields.items()]
            parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


# --- Markdown as GitHub renders it -------------------------------------------------------------------

_LIST_ITEM = re.compile(r"^ {0,3}([-*+]|1[.)]) ")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def github_lists(markdown: str) -> str:
    """A blank line before a list that interrupts a paragraph: GitHub starts a list there, while
    Python-Markdown would run the items into the paragraph."""
    out, fence, in_list, prev = [], False, False, ""
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fence = not fence
        elif not fence:
            if not line.strip():
                in_list = False
            elif _LIST_ITEM.match(line):
                if prev.strip() and not in_list and not prev.lstrip().startswith(("|", "#", "<")) \
                        and not prev.startswith("    "):
                    out.append("")
                in_list = True
        out.append(line)
        prev = line
    return "\n".join(out)


def _root_links(markdown: str) -> str:
    """Links to repository files that are pages of the site (``../BENCHMARKS.md``) go to those pages."""
    for source, page in ROOT_PAGES.items():
        markdown = re.sub(r"\]\(\.\./" + re.escape(source) + r"(#[^)]*)?\)", lambda m: f"]({page}{m.group(1) or ''})",
                          markdown)
    return markdown


# --- the hooks ----------------------------------------------------------------------------------------

# --- the IR measures -------------------------------------------------------------------------------

def measure_pages() -> dict:
    """page path -> Markdown of the measure families (the registry written out), docstrings' reST made Markdown."""
    _fresh_cli()
    from rankeval_cli.measures.trec import catalogue

    return {path: _docstring(text) for path, text in catalogue.pages().items()}


def measure_titles() -> list:
    from rankeval_cli.measures.trec import catalogue

    return [(catalogue.TITLES.get(f, f), f"measures/{f}.md") for f in catalogue.families()]


def on_config(config):
    """Expand the nav entries ``commands/index.md`` and ``measures/index.md`` into sections of every page."""
    titles = command_titles()
    measure_nav = measure_titles()

    def expand(items):
        out = []
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                if value == MEASURES_INDEX:
                    item = {title: [MEASURES_INDEX] + [{t: p} for t, p in measure_nav]}
                elif value == COMMANDS_INDEX:
                    item = {title: [COMMANDS_INDEX] + [{t: p} for t, p in titles]}
                elif isinstance(value, list):
                    item = {title: expand(value)}
            out.append(item)
        return out

    if config.get("nav"):
        config["nav"] = expand(config["nav"])
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    generated = dict(command_pages())
    generated.update(measure_pages())
    generated["python-reference.md"] = python_reference()
    for source, page in ROOT_PAGES.items():
        generated[page] = (ROOT / source).read_text(encoding="utf-8")
    for path, content in generated.items():
        if files.get_file_from_path(path) is not None:
            raise ValueError(f"docs/{path} would hide a generated page of the same name")
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri in ROOT_PAGES.values():  # a root file's links into docs/ are the site's own pages
        markdown = re.sub(r"\]\(docs/", "](", markdown)
    return _root_links(github_lists(markdown))
