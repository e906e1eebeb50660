"""Measure names: trec_eval's spellings and ir_measures' grammar, to one kind of
:class:`~.registry.Measure` (one value each), shared by ``report -m``, ``compare -m``,
``trec_eval -m`` and the Python API; both grammars read the registry's tables.

**trec_eval** (``measures.c``, ``meas_init.c``): a root name, optionally ``.PARAMS``
(``P.5,10``, ``iprec_at_recall.0.25``, ``utility.2,-1,0,0``, ``ndcg.1=3,2=9``,
``relstring.20``), a value name as trec_eval prints it (``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.25``), or a named set (``official``, ``set``, ``all_trec``,
``all_prefs``, ``prefs``, ``qrels_jg``). A parameter list with several cut-offs names
several values.

**ir_measures** (Python expressions, as ``ir_measures.parse_measure`` reads them):
``NAME``, ``NAME@AT``, ``NAME(param=value, ...)``, ``NAME(param=value)@AT``, with the
aliases of each spelling (:func:`~.registry.spelling`, declared beside its measure in its
family's file). ``rel=`` sets the relevance level of that measure alone, ``judged_only=True``
drops the unjudged documents first (trec_eval -J), ``gains={grade: gain}`` maps the qrels
grades before nDCG (as ir_measures does for pytrec_eval).
"""

from __future__ import annotations

import ast
import difflib
import re

from . import registry
from .params import parse_params
from .registry import Measure  # noqa: F401  (the value a name denotes; re-exported)


def load_families() -> None:
    """Import the measure families beyond trec_eval's (each registers its measures on import)."""
    from .. import families  # noqa: F401


class UnknownMeasure(ValueError):
    """A name that is no measure; ``suggestions`` are the nearest known names."""

    def __init__(self, name: str, reason: str = "", suggestions=()):
        self.name, self.reason, self.suggestions = name, reason, list(suggestions)
        hint = f" (did you mean {', '.join(self.suggestions)}?)" if self.suggestions else ""
        super().__init__(f"{name!r} is not an IR measure{': ' + reason if reason else ''}{hint}")


def trec_roots(version: int = 10) -> list:
    """The measures trec_eval's spellings name (trec_eval's own, ``ndcg_p`` included)."""
    return [d for d in registry.definitions(version) if d.family == "trec_eval"]


def _trec(root: str, version: int):
    d = registry.get(root, version)
    return d if d is not None and d.family == "trec_eval" else None


# ---- trec_eval spellings ----------------------------------------------------------------

def trec_values(root: str, text: str | None, *, version: int = 10) -> list[Measure]:
    """The values of ``root.text`` (``text`` None = default parameters)."""
    d = _trec(root, version)
    if d is None:
        raise UnknownMeasure(root, f"not a measure of trec_eval {version}")
    params = d.defaults() if text is None else parse_params(d, text)
    return [Measure(name, root, params, i) for i, name in enumerate(d.value_names(params))]


def _value_name(name: str, version: int):
    """``P_10`` → (P, "10"); a root alone → (root, None); None if no root fits."""
    roots = [d.name for d in trec_roots(version)]
    if name in roots:
        return name, None
    for root in sorted(roots, key=len, reverse=True):
        if name.startswith(root + "_") and registry.get(root, version).kind != "none":
            return root, name[len(root) + 1:]
    return None


def parse_trec(name: str, *, version: int = 10) -> list[Measure] | None:
    """The values a trec_eval spelling names, or None if it is none."""
    if name in registry.SETS[version]:
        out = []
        for root in registry.SETS[version][name]:
            out.extend(trec_values(root, None, version=version))
        return out
    if "." in name:
        root, text = name.split(".", 1)
        if _trec(root, version) is not None:
            if text == "":
                raise UnknownMeasure(name, f"no parameters after the '.' of {root}")
            return trec_values(root, text, version=version)
    found = _value_name(name, version)
    if found is None:
        return None
    root, text = found
    try:
        values = trec_values(root, text, version=version)
    except ValueError:  # ndcg_cut10: no parameter list, so no value name
        return None
    if text is not None and len(values) == 1 and registry.get(root).kind in ("numbers", "pairs"):
        values = [Measure(name, root, values[0].params, 0)]
    return values


# ---- ir_measures' grammar ----------------------------------------------------------------

def _literal(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
            isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    raise ValueError("values must be numbers, strings, booleans or {grade: gain} dicts")


def _expression(name: str):
    """(base name, {param: value}, the @ value or None) of an ir_measures expression, or None."""
    try:
        node = ast.parse(name, mode="eval").body
    except SyntaxError:
        return None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _literal(node.right), node.left
    args = {}
    if isinstance(node, ast.Call):
        if node.args:
            return None
        for kw in node.keywords:
            args[kw.arg] = _literal(kw.value)
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    return node.id, args, at


def find_spelling(base: str) -> registry.Spelling | None:
    """The ir_measures spelling of a name or alias (the families beyond trec_eval's loaded if needed)."""
    if base not in registry.SPELLINGS:
        load_families()
    return registry.SPELLINGS.get(base)


def parse_ir_measures(name: str):
    """(spelling, parameters with defaults) of an ir_measures expression, or None if it is none."""
    found = _expression(name)
    if found is None:
        return None
    base, args, at = found
    spelling = find_spelling(base)
    if spelling is None:
        return None
    args = {**dict(next((preset for alias, preset in spelling.presets if alias == base), {})), **args}
    if at is not None:
        if spelling.at is None:
            raise UnknownMeasure(name, f"{spelling.name} takes no @ parameter")
        args[spelling.at] = at
    known = [p.name for p in spelling.params]
    unknown = set(args) - set(known)
    if unknown:
        raise UnknownMeasure(name, f"{spelling.name} has no parameter {', '.join(sorted(unknown))} "
                                   f"(it has {', '.join(known) or 'none'})")
    checked = {}
    for p in spelling.params:
        value = args.get(p.name, p.default)
        if value is None and p.required:
            example = {"cutoff": "@10", "recall": "@0.5"}.get(p.name, f"({p.name}=...)")
            what = {"cutoff": "a cut-off", "recall": "a recall level"}.get(p.name, f"the parameter {p.name}")
            raise UnknownMeasure(name, f"{spelling.name} needs {what} ({spelling.name}{example})")
        try:
            checked[p.name] = p.check(value)
        except ValueError as exc:
            raise UnknownMeasure(name, str(exc)) from None
    return spelling, checked


def from_ir_measures(name: str, spelling: registry.Spelling, p: dict, version: int = 10) -> Measure:
    """The :class:`Measure` of a parsed ir_measures expression."""
    try:
        return spelling.resolve(name, p, version)
    except ValueError as exc:
        raise UnknownMeasure(name, str(exc)) from None


# ---- one entry point ---------------------------------------------------------------------

def parse(name: str, *, version: int = 10) -> list[Measure]:
    """The values a name denotes (several for a set or a parameter list); raises
    :class:`UnknownMeasure` with the nearest known names when it is none."""
    try:
        values = parse_trec(name, version=version)
        if values is not None:
            return values
        found = parse_ir_measures(name)
    except UnknownMeasure:
        raise
    except ValueError as exc:
        raise UnknownMeasure(name, str(exc)) from None
    if found is not None:
        return [from_ir_measures(name, *found, version=version)]
    legacy = _legacy_spelling(name)
    if legacy is not None:
        try:
            return parse(legacy, version=version)
        except UnknownMeasure as exc:
            raise UnknownMeasure(name, exc.reason, exc.suggestions or suggest(name, version)) from None
    raise UnknownMeasure(name, suggestions=suggest(name, version))


def _legacy_spelling(name: str) -> str | None:
    """rankeval's earlier IR names and case variants: ``NumRet`` etc. and ``ndcg@10`` → ``nDCG@10``."""
    load_families()
    lowered = {n.lower(): n for n in registry.SPELLINGS}
    match = re.fullmatch(r"([A-Za-z_]+)(.*)", name)
    if match and match.group(1).lower() in lowered and match.group(1) not in lowered.values():
        return lowered[match.group(1).lower()] + match.group(2)
    return None


def vocabulary(version: int = 10) -> list[str]:
    """Every name a user could mean: roots, typical values, sets, ir_measures names."""
    load_families()
    names = []
    for d in trec_roots(version):
        names.append(d.name)
        if d.kind != "none":
            names.extend(d.value_names(d.defaults())[:3])
    names += list(registry.SETS[version]) + list(registry.SPELLINGS)
    names += [e for s in registry.SPELLINGS.values() for e in s.examples]
    return list(dict.fromkeys(names))


def suggest(name: str, version: int = 10, n: int = 3) -> list[str]:
    """The nearest known names (difflib), the spelling's case ignored: first the nearest measures
    with the name's own parameters and cut-off (``alpha_nDGC@10`` → ``alpha_nDCG@10``)."""
    vocab = vocabulary(version)
    by_lower = {v.lower(): v for v in vocab}
    close = [by_lower[c] for c in difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=0.6)]
    return list(dict.fromkeys(_with_suffix(name, version) + close))[:n]


def _with_suffix(name: str, version: int) -> list[str]:
    """The nearest measures' names followed by ``name``'s parameters and cut-off, those that parse."""
    base, suffix = re.match(r"([^(@.]*)(.*)", name).groups()
    if not suffix:
        return []
    roots: dict = {}
    for known in [d.name for d in trec_roots(version)] + list(registry.SPELLINGS):
        roots.setdefault(known.lower(), []).append(known)
    out = []
    for close in difflib.get_close_matches(base.lower(), list(roots), n=3, cutoff=0.6):
        nearest = max(roots[close], key=lambda known: difflib.SequenceMatcher(None, base, known).ratio())
        candidate = nearest + suffix
        try:
            if parse_trec(candidate, version=version) is not None or parse_ir_measures(candidate) is not None:
                out.append(candidate)
        except ValueError:
            continue
    return out


def better(name: str) -> str | None:
    """``higher``, ``lower`` or ``none`` (a count, a string): which values of the IR measure ``name``
    are better, by its definition; None when ``name`` is no IR measure."""
    try:
        measures = parse(name)
    except UnknownMeasure:
        return None
    d = measures[0].definition if measures else None
    return d.better if d is not None else None


def split_names(values) -> list[str]:
    """``-m`` values: repeatable, and comma lists outside brackets and trec_eval parameter
    lists (``P.5,10`` stays one name), in order, duplicates dropped."""
    out = []
    for value in values:
        for name in _split_top(value):
            name = name.strip()
            if name and name not in out:
                out.append(name)
    return out


def _split_top(value: str) -> list[str]:
    """Split at commas outside (), {} and []; a comma inside a trec_eval parameter list
    (``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``) continues it when what follows
    reads as a parameter."""
    segments, depth, current = [], 0, ""
    for ch in value:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            segments.append(current)
            current = ""
        else:
            current += ch
    segments.append(current)
    parts = [segments[0]]
    for segment in segments[1:]:
        if _in_params(parts[-1]) and re.match(r"\s*([-+.0-9]|[^,]*=)", segment):
            parts[-1] += "," + segment
        else:
            parts.append(segment)
    return parts


def _in_params(current: str) -> bool:
    """True when ``current`` is a trec_eval name with parameters."""
    head = current.strip()
    if "." in head:
        d = _trec(head.split(".", 1)[0], 10)
        return d is not None and d.kind != "none"
    found = _value_name(head, 10) if head else None
    return bool(found and found[1] is not None)
