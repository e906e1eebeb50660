"""What the families' ir_measures spellings share: the parameters most measures take
(``cutoff``, ``rel``, ``judged_only``, ...), and the :class:`~.registry.Measure` values a
spelling resolves to: a trec_eval measure with its ``.PARAMS`` text (:func:`trec_value`) or
a measure with named parameters (:func:`named_value`)."""

from __future__ import annotations

from . import registry
from .params import parse_params
from .registry import Measure, Param, Params

CUTOFF = Param("cutoff", "int", None, "ranking cut-off (None: the whole ranking)", low=1)
CUTOFF_REQUIRED = Param("cutoff", "int", None, "ranking cut-off", required=True, low=1)
REL = Param("rel", "int", None, "the smallest relevant grade (None: the command's --rel-level, 1)")
JUDGED_ONLY = Param("judged_only", "bool", False, "drop the retrieved documents the judgments lack first")
MIN_REL = Param("min_rel", "int", 0, "the grade of gain 0 (lower grades too)")
MAX_REL = Param("max_rel", "int", None, "the grade of gain 1 (higher grades too)", required=True)


def trec_value(name: str, root: str, text: str | None = None, *, version: int = 10, **settings) -> Measure:
    """The first value of trec_eval's ``root.text`` (``text`` None: its defaults), named ``name``,
    with this measure's own settings (``rel_level``, ``judged_only``, ``grade_map``, ``depth``)."""
    d = registry.get(root, version)
    if d is None:
        raise ValueError(f"not a measure of trec_eval {version}")
    params = d.defaults() if text is None else parse_params(d, text)
    return Measure(name, root, params, 0, **settings)


def named_value(name: str, root: str, args: dict, **settings) -> Measure:
    """A measure with named parameters: its definition's parameters taken from ``args`` (a
    parameter the spelling does not set keeps its default), the text canonical."""
    d = registry.REGISTRY[root]
    values = tuple((p.name, args.get(p.name, p.default)) for p in d.named)
    text = ",".join(f"{k}={v!r}" for k, v in values if v is not None)
    return Measure(name, root, Params(values, text or None), 0, **settings)


def common(p: dict) -> dict:
    """The settings of ``rel`` and ``judged_only`` (when the spelling has them)."""
    return {"rel_level": p.get("rel"), "judged_only": bool(p.get("judged_only", False))}
