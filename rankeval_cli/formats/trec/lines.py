"""Whitespace-separated TREC judgment files of small formats (judgment groups, preferences,
z-scores), read line by line in blocks: ``#`` comment lines and blank lines skipped, every
other line split into its fields, ids kept as bytes (trec_eval compares them with
``strcmp``), each line's number kept for errors."""

from __future__ import annotations

from ...errors import DataError
from ...inputs import open_binary, read_blocks, source_name


def field_lines(source, width: int, what: tuple):
    """Yield ``(line, fields)`` for every line that is not blank or a ``#`` comment; a line
    with another number of fields than ``width`` is a :class:`DataError` at its line."""
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            for offset, raw in enumerate(block.split(b"\n")):
                fields = raw.split()
                if not fields or raw.lstrip().startswith(b"#"):
                    continue
                if len(fields) != width:
                    raise DataError(f"expected {width} fields ({' '.join(what)}), found {len(fields)}", name,
                                    first_line + offset)
                yield first_line + offset, fields


def integer(text: bytes, column: str, name: str, line: int) -> int:
    try:
        if text.lstrip(b"+-").isdigit():
            return int(text)
    except ValueError:
        pass
    raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not an integer", name, line)


def number(text: bytes, column: str, name: str, line: int) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not a finite number", name, line)
    return value


def text_id(raw: bytes, column: str, name: str, line: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DataError(f"invalid UTF-8 in a {column}", name, line) from None
