"""A measure's ``.PARAMS`` string read as trec_eval's ``meas_init.c`` reads it: C's
``atol``/``atof`` on each comma-separated field, cut-offs sorted (and refused when not
positive or repeated), fractions sorted (refused when repeated), numbers kept in order,
``name=value`` pairs checked for their shape."""

from __future__ import annotations

from ...formats.numparse import c_atof, c_atol  # noqa: F401  (C's readings; the readers use them too)
from .registry import Definition, Params


class ParamError(ValueError):
    """A parameter string trec_eval refuses (its message)."""


def parse_params(definition: Definition, text: str) -> Params:
    """The parameters of ``definition`` written ``text`` (what follows ``NAME.``)."""
    kind = definition.kind
    fields = text.split(",")
    if kind == "none":
        return definition.defaults()
    if kind == "cutoffs":
        cutoffs = sorted(c_atol(f) for f in fields)
        if cutoffs[0] <= 0:
            raise ParamError("Negative cutoff detected")
        if any(a == b for a, b in zip(cutoffs, cutoffs[1:])):
            raise ParamError("duplicate cutoffs detected")
        return Params(tuple(cutoffs), text)
    if kind == "fractions":
        values = sorted(c_atof(f) for f in fields)
        if any(a == b for a, b in zip(values, values[1:])):
            raise ParamError("duplicate cutoffs detected")
        return Params(tuple(values), text)
    if kind == "numbers":
        return Params(tuple(c_atof(f) for f in fields), text)
    return Params(tuple(_pairs(text)), text)


def _pairs(text: str) -> list[tuple[str, float]]:
    """``name=value,...`` as ``get_param_pairs`` checks and reads it."""
    last = ","
    bad = False
    for ch in text:
        if ch == ",":
            if last == ",":
                bad = True
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if bad or last != "=":
        raise ParamError(f"malformed pair parameters in '{text}'")
    out = []
    for segment in text.split(","):
        name, value = segment.split("=", 1)
        out.append((name, c_atof(value)))
    return out
