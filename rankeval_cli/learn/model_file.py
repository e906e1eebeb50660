"""Reading a model file back (``learn predict --model FILE``): strict JSON, every field checked.

A model file is data like any input: it may be cut, edited by hand or not a model at
all. Whatever it holds ends in a :class:`Model` whose numbers are all finite and whose
shapes agree, or in a :class:`DataError` naming the file and, where the file has it, the
line of the offending key (the writer puts one top-level key per line):

- the whole file is at most :func:`~rankeval_cli.inputs.max_line_bytes` (it is one record);
- strict JSON: no ``NaN``/``Infinity``, no integer of more than 400 digits (Python refuses to
  convert beyond 4300), no nesting deeper than the interpreter's recursion limit;
- ``features``: distinct non-empty strings; ``scaling``: a finite mean and a positive finite
  standard deviation per feature; ``weights``: finite numbers in the scorer's shape (``w``
  and ``b``; or ``W`` d x H, ``b1`` and ``v`` of H, ``c``, with H = ``hidden`` >= 1);
- ``objective``, ``scorer`` and ``relevance`` among the known names.
"""

from __future__ import annotations

import json
import math
import re

from ..errors import DataError

#: the ``format`` of a model file, and the ``version`` of it this rankeval writes and reads
FORMAT = "rankeval-learn-model"
VERSION = 1
#: longest integer literal read (a float's range ends near 10^308)
MAX_DIGITS = 400


class _HugeInteger(ValueError):
    def __init__(self, digits: str):
        super().__init__(digits)
        self.digits = digits


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _HugeInteger(text)
    return int(text)


class _Constant(ValueError):
    def __init__(self, token: str):
        super().__init__(f"{token} is not a number JSON allows")
        self.token = token


def _constant(token: str):
    raise _Constant(token)


def read_model_file(path) -> tuple[dict, str, str]:
    """``(object, text, name)`` of a model file; a file that is not JSON is a DataError."""
    from ..inputs import decode, format_size, max_line_bytes, open_binary, read_chunk, source_name

    name = source_name(path)
    cap = max_line_bytes()
    with open_binary(path) as stream:
        raw = read_chunk(stream, cap + 1, name)
    if len(raw) > cap:
        raise DataError(f"model file larger than {format_size(cap)} (the cap on one record; raise it with "
                        "rankeval --max-line-bytes SIZE)", name)
    text = decode(raw, name, 1)
    try:
        obj = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except RecursionError:
        raise DataError("not a model file: JSON nested too deeply", name) from None
    except _HugeInteger as exc:
        line = text.count("\n", 0, max(text.find(exc.digits), 0)) + 1
        raise DataError(f"an integer of {len(exc.digits)} digits is no float a model can hold", name, line) from None
    except _Constant as exc:
        line = text.count("\n", 0, max(text.find(exc.token), 0)) + 1
        raise DataError(f"not a JSON model file ({exc})", name, line) from None
    except json.JSONDecodeError as exc:
        raise DataError(f"not a JSON model file ({exc.msg})", name, exc.lineno) from None
    except ValueError as exc:
        raise DataError(f"not a JSON model file ({exc})", name) from None
    return obj, text, name


class Checked:
    """The fields of a model object, checked; errors name the line of their top-level key."""

    def __init__(self, obj, source: str | None = None, text: str | None = None):
        self.obj, self.source, self.text = obj, source, text

    def fail(self, key: str, message: str):
        raise DataError(f"malformed model file: {message}", self.source, self.line_of(key))

    def line_of(self, key: str) -> int | None:
        if not self.text:
            return None
        found = re.search(r'^\s*"' + re.escape(key) + r'"\s*:', self.text, re.MULTILINE)
        return self.text.count("\n", 0, found.start()) + 1 if found else None

    def field(self, key: str, kind):
        if key not in self.obj:
            self.fail(key, f"no {key!r}")
        value = self.obj[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            self.fail(key, f"{key!r} must be {_kind_name(kind)}, found {_shown(value)}")
        return value

    def choice(self, key: str, known) -> str:
        value = self.field(key, str)
        if value not in known:
            self.fail(key, f"unknown {key} {value!r}; known: {', '.join(known)}")
        return value

    def number(self, value, key: str, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"{what} must be a number, found {_shown(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            self.fail(key, f"{what} is not a finite number")
        return number

    def numbers(self, value, n: int, key: str, what: str) -> list[float]:
        if not isinstance(value, list):
            self.fail(key, f"{what} must be a list of {n} numbers, found {_shown(value)}")
        if len(value) != n:
            self.fail(key, f"{what} has {len(value)} numbers; the model has {n} features" if key != "weights"
                      else f"{what} has {len(value)} numbers, expected {n}")
        return [self.number(v, key, f"{what}[{i}]") for i, v in enumerate(value)]


def _kind_name(kind) -> str:
    names = {str: "a string", int: "an integer", dict: "an object", list: "a list", bool: "true or false"}
    return names.get(kind, getattr(kind, "__name__", str(kind)))


def _shown(value) -> str:
    text = json.dumps(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def checked_parts(obj, source: str | None = None, text: str | None = None) -> dict:
    """The validated pieces of a model object: objective, scorer, relevance, features, hidden,
    mean, std, weights (a dict of float lists), hyperparameters, training."""
    from .data import RELEVANCE
    from .objectives import OBJECTIVES

    c = Checked(obj, source, text)
    if not isinstance(obj, dict):
        raise DataError("not a rankeval model file (expected a JSON object)", source, 1)
    if obj.get("format") != FORMAT:
        raise DataError(f"not a rankeval model file (expected \"format\": \"{FORMAT}\")", source, c.line_of("format"))
    if obj.get("version") != VERSION:
        raise DataError(f"model file version {obj.get('version')!r} is not supported (this rankeval reads "
                        f"version {VERSION})", source, c.line_of("version"))
    parts = {"objective": c.choice("objective", tuple(OBJECTIVES)), "scorer": c.choice("scorer", ("linear", "mlp")),
             "relevance": c.choice("relevance", RELEVANCE)}
    hp = c.field("hyperparameters", dict)
    features = c.field("features", list)
    if not features:
        c.fail("features", "no features")
    for f in features:
        if not isinstance(f, str) or not f:
            c.fail("features", f"a feature name must be a non-empty string, found {_shown(f)}")
    if len(set(features)) != len(features):
        c.fail("features", f"feature {next(f for f in features if features.count(f) > 1)!r} is named twice")
    d = len(features)
    scaling = c.field("scaling", dict)
    mean = c.numbers(scaling.get("mean"), d, "scaling", "scaling mean")
    std = c.numbers(scaling.get("std"), d, "scaling", "scaling std")
    for name, s in zip(features, std):
        if not s > 0:
            c.fail("scaling", f"the standard deviation of feature {name!r} is {s!r}: it must be positive "
                              "(a constant feature cannot be scaled)")
    weights = c.field("weights", dict)
    hidden = 0
    if parts["scorer"] == "mlp":
        hidden = hp.get("hidden")
        if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
            c.fail("hyperparameters", f"an mlp scorer needs \"hidden\": a positive integer, found {_shown(hidden)}")
        matrix = weights.get("W")
        if not isinstance(matrix, list) or len(matrix) != d:
            c.fail("weights", f"W must be a list of {d} rows (one per feature)")
        shaped = {"W": [c.numbers(row, hidden, "weights", f"W[{i}]") for i, row in enumerate(matrix)],
                  "b1": c.numbers(weights.get("b1"), hidden, "weights", "b1"),
                  "v": c.numbers(weights.get("v"), hidden, "weights", "v"),
                  "c": c.number(weights.get("c"), "weights", "c")}
    else:
        shaped = {"w": c.numbers(weights.get("w"), d, "weights", "w"), "b": c.number(weights.get("b"), "weights", "b")}
    training = obj.get("training", {})
    if not isinstance(training, dict):
        c.fail("training", f"'training' must be an object, found {_shown(training)}")
    parts.update(features=features, hidden=hidden, mean=mean, std=std, weights=shaped, hyperparameters=hp,
                 training=training)
    return parts
