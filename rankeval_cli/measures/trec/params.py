"""A measure's ``.PARAMS`` string read as trec_eval's ``meas_init.c`` reads it: C's
``atol``/``atof`` on each comma-separated field, cut-offs sorted (and refused when not
positive or repeated), fractions sorted (refused when repeated), numbers kept in order,
``name=value`` pairs checked for their shape."""

from __future__ import annotations

import math
import re

from ...formats.numparse import c_atof, c_atol  # noqa: F401  (C's readings; the readers use them too)
from .registry import Definition, Params


class ParamError(ValueError):
    """A parameter string trec_eval refuses (its message)."""


#: the largest |value| of a float parameter (gains, utility's coefficients, set_F's beta, rbp's p)
MAX_PARAM = 1e300
#: the largest |gain| of a grade (``ndcg.2=…``): trec_eval sorts its gain table comparing the
#: differences of gains as C ints, undefined when a difference leaves their range
MAX_GAIN = 1e9
#: measures whose float parameters become counts of documents (fractions of R, recall levels, a
#: depth): trec_eval converts them to C integers, undefined beyond its range; refused beyond this
MAX_COUNT_PARAM = 1e6
COUNT_PARAMS = frozenset({"Rprec_mult", "Rprec_mult_avgjg", "iprec_at_recall", "11pt_avg", "relstring"})


def parse_params(definition: Definition, text: str) -> Params:
    """The parameters of ``definition`` written ``text`` (what follows ``NAME.``).

    Where trec_eval reads a float it cannot use (``nan``, ``inf``, a recall level of 1e300
    that its C code converts to an integer), its output is undefined: rankeval refuses the
    parameter (:func:`check_floats`) instead of printing a number."""
    params = _parse(definition, text)
    check_floats(definition, params)
    return params


def check_floats(definition: Definition, params: Params) -> None:
    """Every float parameter finite and within :data:`MAX_PARAM` (:data:`MAX_COUNT_PARAM` for counts)."""
    if definition.kind not in ("fractions", "numbers", "pairs"):
        return
    limit = MAX_COUNT_PARAM if definition.name in COUNT_PARAMS else MAX_PARAM
    for value in params.values:
        name, number = value if isinstance(value, tuple) else (None, value)
        bound = MAX_GAIN if name is not None and re.fullmatch(r"\s*[-+]?\d+", name) else limit
        if not math.isfinite(number) or abs(number) > bound:
            shown = f"{name}={number!r}" if name is not None else repr(number)
            raise ParamError(f"parameter {shown} of '{definition.name}' is not a finite number within "
                             f"±{bound:g} (trec_eval's result would be undefined)")


def _parse(definition: Definition, text: str) -> Params:
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
