"""The registry written out: the public listing of every measure, a Markdown page per family of
measures (the docs site's ``measures/`` pages, made by scripts/mkdocs_hooks.py), the names
``report --help`` lists, and the spellings shell completion offers. Everything here is read from
the registry's declarations.

**The public listing** (for programs that offer rankeval's measures elsewhere, such as an
ir_measures provider): :func:`listing` gives every measure rankeval computes, once, as a
:class:`Listed` record in the registry's order (trec_eval's measures in ``measures.c``'s order,
then the others by family) — its registry name, family, source, whether ``rankeval trec_eval -m``
has it and its trec_eval parameter grammar and defaults, its named parameters (:class:`~.registry.Param`:
name, type, default, lowest value, choices), the ir_measures spellings that reach it
(:class:`~.registry.Spelling`: name, aliases, typed parameters, the ``@`` parameter, the ir_measures
provider rankeval's values equal), its tie statement, direction and what it reads besides the run.
:func:`spellings` gives each ir_measures spelling once. Both load every family first; the records
are frozen and stable across releases of the same major version. A spelling written out (for
example ``nDCG@10`` or ``INST(T=3)``) is resolved to the values it names by
:func:`rankeval_cli.measures.trec.names.parse`::

    from rankeval_cli.measures.trec import catalogue
    for m in catalogue.listing():
        print(m.name, [s.name for s in m.spellings], [p.name for p in m.params])
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass

from . import registry

#: the pages' titles (a family missing here is titled by its name)
TITLES = {"trec_eval": "trec_eval's measures", "rankeval": "rankeval's own measures", "diversity": "Diversity",
          "cwl": "C/W/L user models", "ordering": "Agreement with the qrels' order", "fairness": "Group fairness"}
PEERS = {"pytrec_eval": "ir_measures (pytrec_eval)", "pyndeval": "ir_measures (pyndeval: ndeval 4.5)",
         "cwl_eval": "ir_measures (cwl_eval 1.0.12)", "compat": "ir_measures (compat)",
         "accuracy": "ir_measures (accuracy)", "judged": "ir_measures (judged)", "gdeval": "ir_measures (gdeval)"}


def load() -> None:
    """Every family, trec_eval's and the others."""
    from .names import load_families

    load_families()


def families() -> list:
    """The families, in the order of their first measure."""
    load()
    return list(dict.fromkeys(d.family for d in registry.definitions(10)))


def spellings_of(d: registry.Definition) -> list:
    """The ir_measures spellings whose examples name ``d``."""
    return _reached().get(d.name, [])


_REACHED: dict = {}


def _reached() -> dict:
    """registry name -> the spellings whose examples name it (each example parsed once; rebuilt when
    a family registers more)."""
    from .names import parse

    key = (len(registry.REGISTRY), len(registry.SPELLINGS))
    if key not in _REACHED:
        out: dict = {}
        for name, sp in registry.SPELLINGS.items():
            if name != sp.name:
                continue
            roots = set()
            for example in sp.examples:
                try:
                    roots |= {m.root for m in parse(example)}
                except ValueError:
                    continue
            for root in roots:
                out.setdefault(root, []).append(sp)
        _REACHED.clear()
        _REACHED[key] = out
    return _REACHED[key]


@dataclass(frozen=True)
class Listed:
    """One measure of :func:`listing` (see the module docstring). ``name``: the registry name, which
    is also a ``-m`` name in trec_eval's grammar for the family "trec_eval"; ``trec_eval``: whether
    trec_eval 10.0's binary computes it (``rankeval trec_eval -m``); ``grammar``/``default``: the
    trec_eval parameter kind of ``NAME.PARAMS`` (:data:`~.registry.PARAM_KINDS`) and its default
    values; ``params``: the named parameters of a measure trec_eval lacks (``grammar`` "named");
    ``ties``: "expected", "order-free" or "one-order" (``ties_note`` says why); ``reads``: what it
    needs besides the run (:data:`~.registry.READS`); ``doc``: its equation and source."""

    name: str
    family: str
    source: str
    trec_eval: bool
    grammar: str
    default: tuple
    params: tuple
    spellings: tuple
    ties: str
    ties_note: str
    better: str
    reads: str
    doc: str


def listing() -> list:
    """Every measure rankeval computes, once, as :class:`Listed` records in the registry's order."""
    load()
    return [Listed(d.name, d.family, d.source, d.in_trec_eval, d.kind, d.default, d.named,
                   tuple(spellings_of(d)), d.ties.kind, d.ties.note, d.better, d.reads, inspect.cleandoc(d.doc))
            for d in registry.definitions(10)]


def spellings() -> list:
    """Every ir_measures spelling (:class:`~.registry.Spelling`) once, in the order registered."""
    load()
    return list({id(sp): sp for sp in registry.SPELLINGS.values()}.values())


def _intro(family: str) -> str:
    d = registry.definitions(10, family=family)[0]
    module = importlib.import_module(d.compute.__module__)
    if family == "trec_eval":
        module = importlib.import_module(__package__)
    return inspect.cleandoc(module.__doc__ or "")


def _params(d: registry.Definition) -> str:
    if d.kind == "named":
        return "; ".join(f"`{p.name}` ({p.type}, {p.default!r}): {p.doc}" for p in d.named) or "none"
    if d.kind == "none":
        return "none"
    default = ",".join(str(v) if not isinstance(v, tuple) else f"{v[0]}={v[1]}" for v in d.default)
    return f"{d.kind} (`{d.name}.{default or 'PARAMS'}`)"


def _ties(d: registry.Definition) -> str:
    if d.ties.kind == "order-free":
        return "order-free"
    if d.ties.kind == "one-order":
        return f"none: {d.ties.note}"
    return "exact"


def _markdown(text: str) -> str:
    """A docstring's reST roles and double backquotes as Markdown code."""
    text = re.sub(r":(?:func|class|mod|meth|attr|data):`~?\.?([\w.]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def family_page(family: str) -> str:
    """The Markdown page of one family: its introduction and a section per measure."""
    load()
    parts = [f"# {TITLES.get(family, family)}", _markdown(_intro(family)),
             "Every measure below is one declaration in the registry; this page is generated from them. "
             "*Tie policy expected*: whether `--tie-policy expected` computes the exact expected value over "
             "the orders of tied scores. *Peer*: the tool whose values rankeval's equal in the tests."]
    for d in registry.definitions(10, family=family):
        spelled = spellings_of(d)
        names = [f"`{d.name}`" if family == "trec_eval" else ""]
        names += [", ".join(f"`{n}`" for n in (s.name, *s.aliases, *(a for a, _ in s.presets))) for s in spelled]
        examples = ", ".join(f"`{e}`" for s in spelled for e in s.examples)
        peer = "trec_eval 10.0" if d.in_trec_eval else \
            ", ".join(dict.fromkeys(PEERS.get(s.peer, s.peer) or "rankeval's own" for s in spelled)) or "—"
        rows = ["| | |", "|---|---|",
                f"| names | {', '.join(n for n in names if n) or '—'} |",
                f"| examples | {examples or '—'} |",
                f"| parameters | {_cell(_params(d))} |",
                f"| source | {_cell(d.source)} |",
                f"| peer | {peer} |",
                f"| tie policy expected | {_cell(_ties(d))} |",
                f"| better | {d.better} |"]
        parts.append(f"## {d.name}\n\n{_markdown(inspect.cleandoc(d.doc))}\n\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


def index_page() -> str:
    """measures/index.md: every family and its measures' names."""
    rows = ["| family | measures (ir_measures' names) |", "|---|---|"]
    for family in families():
        names = sorted({s.name for d in registry.definitions(10, family=family) for s in spellings_of(d)})
        shown = ", ".join(f"`{n}`" for n in names) or f"{len(registry.definitions(10, family=family))} measures"
        rows.append(f"| [{TITLES.get(family, family)}]({family}.md) | {shown} |")
    return ("# IR measures\n\nEvery IR measure rankeval computes, by family, generated from the registry "
            "(`rankeval_cli/measures/`). `report -m`, `compare -m`, `rankeval trec_eval -m` (trec_eval's "
            "measures) and the Python API read the same names. [IR measures, join and tests](../ir.md) "
            "explains the join, the tie policies and the names' grammar.\n\n" + "\n".join(rows) + "\n")


def pages() -> dict:
    """page path under docs/ -> Markdown."""
    out = {"measures/index.md": index_page()}
    for family in families():
        out[f"measures/{family}.md"] = family_page(family)
    return out


def help_names() -> str:
    """The ir_measures names ``report --help`` lists, one line of text."""
    load()
    return " ".join(sorted({sp.name for sp in registry.SPELLINGS.values()}, key=str.lower))
