"""Measure names: trec_eval's spellings and ir_measures' grammar, to one kind of
:class:`Measure` (one value each), shared by ``report -m``, ``compare -m``, ``trec_eval -m``
and the Python API.

**trec_eval** (``measures.c``, ``meas_init.c``): a root name, optionally ``.PARAMS``
(``P.5,10``, ``iprec_at_recall.0.25``, ``utility.2,-1,0,0``, ``ndcg.1=3,2=9``,
``relstring.20``), a value name as trec_eval prints it (``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.25``), or a named set (``official``, ``set``, ``all_trec``,
``all_prefs``, ``prefs``, ``qrels_jg``). A parameter list with several cut-offs names
several values.

**ir_measures** (Python expressions, as ``ir_measures.parse_measure`` reads them):
``NAME``, ``NAME@AT``, ``NAME(param=value, ...)``, ``NAME(param=value)@AT``, with its
aliases (``MAP``, ``MRR``, ``NDCG``, ``BPref``, ``Precision``, ``Recall``, ``RPrec``,
``NumRelRet``, ``SetRelP``). How each maps to trec_eval is the table :data:`IR_MEASURES`;
``rel=`` sets the relevance level of that measure alone, ``judged_only=True`` drops the
unjudged documents first (trec_eval -J), ``gains={grade: gain}`` maps the qrels grades
before nDCG (as ir_measures does for pytrec_eval).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field

from . import registry
from .params import parse_params

#: measures computed by rankeval's own kernels (not trec_eval's): kind -> description
OWN_KINDS = ("err", "judged", "rankdcg", "rr_cut", "ndcg_exp")


@dataclass(frozen=True)
class Measure:
    """One value of one measure: what ``-m`` names, and how it is computed.

    ``root``/``params``/``index``: the registry measure, its parameters and which of its
    values (``P.5,10`` has two); or ``own`` = one of :data:`OWN_KINDS` with cut-off ``k``.
    ``rel_level``, ``judged_only``, ``grade_map``, ``depth``: this measure's own settings
    (None = the command's)."""

    name: str
    root: str | None = None
    params: registry.Params = field(default_factory=registry.Params)
    index: int = 0
    own: str | None = None
    k: int | None = None
    rel_level: int | None = None
    judged_only: bool = False
    grade_map: tuple | None = None
    depth: int | None = None

    @property
    def definition(self) -> registry.Definition | None:
        return registry.get(self.root) if self.root else None

    @property
    def summed(self) -> bool:
        d = self.definition
        return bool(d and d.summary in ("sum", "queries"))

    @property
    def kind(self) -> str:
        """The family, for signatures: ``ndcg`` (gains), ``err`` (its scale), ``num_rel``, or the root."""
        if self.own:
            return {"ndcg_exp": "ndcg", "rr_cut": "rr"}.get(self.own, self.own)
        return {"ndcg": "ndcg", "ndcg_cut": "ndcg", "num_rel": "num_rel"}.get(self.root, self.root)

    def variant(self, rel_level: int):
        """The per-query intermediates this measure reads: (ℓ, -J, grade map, depth)."""
        return (self.rel_level if self.rel_level is not None else rel_level, self.judged_only, self.grade_map,
                self.depth)


class UnknownMeasure(ValueError):
    """A name that is no measure; ``suggestions`` are the nearest known names."""

    def __init__(self, name: str, reason: str = "", suggestions=()):
        self.name, self.reason, self.suggestions = name, reason, list(suggestions)
        hint = f" (did you mean {', '.join(self.suggestions)}?)" if self.suggestions else ""
        super().__init__(f"{name!r} is not an IR measure{': ' + reason if reason else ''}{hint}")


# ---- trec_eval spellings ----------------------------------------------------------------

def trec_values(root: str, text: str | None, *, version: int = 10) -> list[Measure]:
    """The values of ``root.text`` (``text`` None = default parameters)."""
    d = registry.get(root, version)
    if d is None:
        raise UnknownMeasure(root, f"not a measure of trec_eval {version}")
    params = d.defaults() if text is None else parse_params(d, text)
    return [Measure(name, root, params, i) for i, name in enumerate(d.value_names(params))]


def _value_name(name: str, version: int):
    """``P_10`` → (P, "10"); a root alone → (root, None); None if no root fits."""
    roots = [d.name for d in registry.definitions(version)]
    if name in roots:
        return name, None
    for root in sorted(roots, key=len, reverse=True):
        if name.startswith(root + "_") and registry.get(root).kind != "none":
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
        if registry.get(root, version) is not None:
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

#: ir_measures name -> (its parameters with defaults, the AT parameter); aliases below
IR_MEASURES = {
    "AP": ({"cutoff": None, "rel": None, "judged_only": False}, "cutoff"),
    "P": ({"cutoff": None, "rel": None, "judged_only": False}, "cutoff"),
    "R": ({"cutoff": None, "rel": None, "judged_only": False}, "cutoff"),
    "RR": ({"cutoff": None, "rel": None, "judged_only": False}, "cutoff"),
    "nDCG": ({"cutoff": None, "dcg": "log2", "gains": None, "judged_only": False}, "cutoff"),
    "Rprec": ({"rel": None, "judged_only": False}, None),
    "Bpref": ({"rel": None}, None),
    "infAP": ({"rel": None}, None),
    "IPrec": ({"recall": None, "rel": None, "judged_only": False}, "recall"),
    "Judged": ({"cutoff": None}, "cutoff"),
    "NumQ": ({}, None),
    "NumRel": ({"rel": None}, None),
    "NumRet": ({"rel": None}, None),
    "SetP": ({"rel": None, "relative": False, "judged_only": False}, None),
    "SetR": ({"rel": None}, None),
    "SetF": ({"rel": None, "beta": 1.0, "judged_only": False}, None),
    "SetAP": ({"rel": None, "judged_only": False}, None),
    "Success": ({"cutoff": None, "rel": None, "judged_only": False}, "cutoff"),
    "ERR": ({"cutoff": None}, "cutoff"),
    "RBP": ({"cutoff": None, "p": 0.8, "rel": None}, "cutoff"),
    "rankDCG": ({}, None),  # rankeval's (Katerenchuk & Rosenberg 2016)
}
IR_ALIASES = {"MAP": ("AP", {}), "MRR": ("RR", {}), "NDCG": ("nDCG", {}), "BPref": ("Bpref", {}),
              "Precision": ("P", {}), "Recall": ("R", {}), "RPrec": ("Rprec", {}),
              "NumRelRet": ("NumRet", {"rel": 1}), "SetRelP": ("SetP", {"relative": True})}
#: ir_measures' measures that rankeval does not compute
IR_NOT_COMPUTED = ("Accuracy", "BPM", "Compat", "INST", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG",
                   "alpha_DCG", "alpha_nDCG", "α_DCG", "α_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA",
                   "MAP_IA", "P_IA", "StRecall")


def _literal(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and \
            isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    raise ValueError("values must be numbers, strings, booleans or {grade: gain} dicts")


def parse_ir_measures(name: str):
    """(ir_measures name, parameters) of an ir_measures expression, or None if it is none."""
    try:
        node = ast.parse(name, mode="eval").body
    except SyntaxError:
        return None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = node.right, node.left
    args = {}
    if isinstance(node, ast.Call):
        if node.args:
            return None
        for kw in node.keywords:
            args[kw.arg] = _literal(kw.value)
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    base = node.id
    if base in IR_ALIASES:
        base, preset = IR_ALIASES[base]
        args = {**preset, **args}
    if base in IR_NOT_COMPUTED:
        raise UnknownMeasure(name, "an ir_measures measure that rankeval does not compute")
    if base not in IR_MEASURES:
        return None
    supported, at_param = IR_MEASURES[base]
    if at is not None:
        if at_param is None:
            raise UnknownMeasure(name, f"{base} takes no @ parameter")
        args[at_param] = _literal(at)
    unknown = set(args) - set(supported)
    if unknown:
        raise UnknownMeasure(name, f"{base} has no parameter {', '.join(sorted(unknown))} "
                                   f"(it has {', '.join(supported) or 'none'})")
    return base, {**supported, **args}


def _int_param(name, key, value, low=None):
    if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
        raise UnknownMeasure(name, f"{key} must be an integer" + (f" >= {low}" if low is not None else ""))
    return value


def from_ir_measures(name: str, base: str, p: dict, version: int = 10) -> Measure:
    """The :class:`Measure` of a parsed ir_measures expression."""
    cutoff = p.get("cutoff")
    if cutoff is not None:
        cutoff = _int_param(name, "cutoff", cutoff, 1)
    rel = p.get("rel")
    if rel is not None:
        rel = _int_param(name, "rel", rel)
    common = dict(rel_level=rel, judged_only=bool(p.get("judged_only", False)))

    def trec(root, text=None, **extra):
        (value,) = trec_values(root, text, version=version)[:1]
        return Measure(name, root, value.params, 0, **{**common, **extra})

    if base == "AP":
        return trec("map") if cutoff is None else trec("map_cut", str(cutoff))
    if base in ("P", "R", "Success"):
        if cutoff is None:
            raise UnknownMeasure(name, f"{base} needs a cut-off ({base}@10)")
        return trec({"P": "P", "R": "recall", "Success": "success"}[base], str(cutoff))
    if base == "RR":
        if cutoff is None:
            return trec("recip_rank")
        return Measure(name, own="rr_cut", k=cutoff, **common)
    if base == "nDCG":
        gains = p.get("gains")
        grade_map = None
        if gains is not None:
            if not isinstance(gains, dict) or not all(isinstance(k, int) and isinstance(v, (int, float))
                                                      for k, v in gains.items()):
                raise UnknownMeasure(name, "gains must be a {grade: gain} dict of numbers")
            grade_map = tuple(sorted(gains.items()))
        if p.get("dcg") == "exp-log2":
            if grade_map is not None:
                raise UnknownMeasure(name, "dcg='exp-log2' and gains cannot be combined")
            return Measure(name, own="ndcg_exp", k=cutoff, judged_only=common["judged_only"])
        if p.get("dcg") != "log2":
            raise UnknownMeasure(name, "dcg is 'log2' or 'exp-log2'")
        measure = trec("ndcg") if cutoff is None else trec("ndcg_cut", str(cutoff))
        return Measure(name, measure.root, measure.params, 0, grade_map=grade_map,
                       judged_only=common["judged_only"])
    if base == "Rprec":
        return trec("Rprec")
    if base == "Bpref":
        return trec("bpref")
    if base == "infAP":
        return trec("infAP")
    if base == "IPrec":
        recall = p.get("recall")
        if not isinstance(recall, (int, float)) or isinstance(recall, bool):
            raise UnknownMeasure(name, "IPrec needs a recall level (IPrec@0.5)")
        return trec("iprec_at_recall", repr(float(recall)))
    if base == "Judged":
        return Measure(name, own="judged", k=cutoff)
    if base == "NumQ":
        return trec("num_q")
    if base == "NumRel":
        return trec("num_rel")
    if base == "NumRet":
        return trec("num_ret") if rel is None else trec("num_rel_ret")
    if base == "SetP":
        return trec("set_relative_P" if p.get("relative") else "set_P")
    if base == "SetR":
        return trec("set_recall")
    if base == "SetF":
        return trec("set_F", repr(float(p.get("beta", 1.0))))
    if base == "SetAP":
        return trec("set_map")
    if base == "ERR":
        return Measure(name, own="err", k=cutoff)
    if base == "RBP":
        pp = p.get("p", 0.8)
        if not isinstance(pp, (int, float)) or isinstance(pp, bool):
            raise UnknownMeasure(name, "p must be a number")
        grade_map = None if rel is None else ("binary", rel)
        value = trec("rbp", f"p={float(pp)!r}")
        return Measure(name, "rbp", value.params, 0, rel_level=None, grade_map=grade_map, depth=cutoff)
    if base == "rankDCG":
        return Measure(name, own="rankdcg")
    raise UnknownMeasure(name)  # pragma: no cover - IR_MEASURES and this function list the same names


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
        return parse(legacy, version=version)
    raise UnknownMeasure(name, suggestions=suggest(name, version))


def _legacy_spelling(name: str) -> str | None:
    """rankeval's earlier IR names and case variants: ``NumRet`` etc. and ``ndcg@10`` → ``nDCG@10``."""
    lowered = {n.lower(): n for n in list(IR_MEASURES) + list(IR_ALIASES)}
    match = re.fullmatch(r"([A-Za-z_]+)(.*)", name)
    if match and match.group(1).lower() in lowered and match.group(1) not in lowered.values():
        return lowered[match.group(1).lower()] + match.group(2)
    return None


def vocabulary(version: int = 10) -> list[str]:
    """Every name a user could mean: roots, typical values, sets, ir_measures names."""
    names = []
    for d in registry.definitions(version):
        names.append(d.name)
        if d.kind != "none":
            names.extend(d.value_names(d.defaults())[:3])
    names += list(registry.SETS[version]) + list(IR_MEASURES) + list(IR_ALIASES)
    names += ["nDCG@10", "P@10", "R@1000", "RR@10", "AP@100", "ERR@20", "Judged@10", "Success@10"]
    return list(dict.fromkeys(names))


def suggest(name: str, version: int = 10, n: int = 3) -> list[str]:
    """The nearest known names (difflib), the spelling's case ignored."""
    vocab = vocabulary(version)
    by_lower = {v.lower(): v for v in vocab}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=0.6)
    return [by_lower[c] for c in close]


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
        d = registry.get(head.split(".", 1)[0])
        return d is not None and d.kind != "none"
    found = _value_name(head, 10) if head else None
    return bool(found and found[1] is not None)
