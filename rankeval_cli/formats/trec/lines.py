"""Whitespace-separated TREC judgment files of small formats (judgment groups, preferences,
z-scores), read line by line in blocks: ``#`` comment lines and blank lines skipped, every
other line split into its fields, ids kept as bytes (trec_eval compares them with
``strcmp``), each line's number kept for errors."""

from __future__ import annotations

import re

from ...errors import DataError
from ...inputs import open_binary, read_blocks, source_name
from .fields import refuse_lone_cr


def field_lines(source, width: int, what: tuple):
    """Yield ``(line, fields)`` for every line that is not blank or a ``#`` comment; a line
    with another number of fields than ``width`` is a :class:`DataError` at its line."""
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            refuse_lone_cr(block, first_line, name)
            for offset, raw in enumerate(block.split(b"\n")):
                fields = raw.split()
                if not fields or raw.lstrip().startswith(b"#"):
                    continue
                if len(fields) != width:
                    raise DataError(f"expected {width} fields ({' '.join(what)}), found {len(fields)}", name,
                                    first_line + offset)
                yield first_line + offset, fields


#: a whole field that C's ``strtod`` reads entirely (decimal; ``inf``, ``nan``); not Python's extras (``1_0``)
_C_FLOAT = re.compile(rb"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE)
_INTEGER = re.compile(rb"[-+]?[0-9]+")


def integer(text: bytes, column: str, name: str, line: int) -> int:
    """A whole field of decimal digits within the 64-bit range (as the qrels reader takes grades)."""
    if _INTEGER.fullmatch(text) and -2 ** 63 <= int(text) < 2 ** 63:
        return int(text)
    raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not a 64-bit integer", name, line)


def c_float(text: bytes, column: str, name: str, line: int) -> float:
    """A whole field read as a C ``double`` (``nan`` and ``inf`` too); anything else is an error."""
    if _C_FLOAT.fullmatch(text):
        return float(text)
    raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not a number", name, line)


def number(text: bytes, column: str, name: str, line: int) -> float:
    import math

    value = float(text) if _C_FLOAT.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not a finite number", name, line)
    return value


def text_id(raw: bytes, column: str, name: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(f"invalid UTF-8 in a {column}", name, line) from None
