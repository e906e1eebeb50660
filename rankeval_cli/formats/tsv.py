"""The canonical long TSV: one row per item, header first.

Required columns ``group``, ``item``, ``gold``; ``pred`` optional (missing → empty);
any other column is carried through as text. Rows of a group are contiguous.
Empty lines are skipped; an empty field is a missing value. Fields may carry
tabs, newlines and backslashes escaped as ``\\t``, ``\\n``, ``\\r``, ``\\\\``.

Parsing is per block. A block of plain ASCII lines (no CR, backslash or NUL),
each with exactly one field per header column, takes a fast path: field bounds
come from the positions of the tab and newline bytes, text fields are cut out
as fixed-width byte strings, and one Python ``str`` is made per distinct value.
Any other block takes the general path: line boundaries and field counts are
found with numpy on the raw bytes, then each column is split out of one flat
``str.split``; it is also the path that reports bad lines.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..batch import Batch, empty_batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import decode, open_binary, read_blocks, source_name
from .columns import _unescape_one, escape_tsv, format_numbers, unescape_tsv
from .numparse import parse_exact
from . import validate

REQUIRED = ("group", "item", "gold")
CORE = ("group", "item", "gold", "pred")


def read_tsv(source, empty_ok: bool = False, **_options) -> Iterator[Batch]:
    """Stream batches from canonical TSV (a path, ``-`` or a file object).

    Input without a header line (empty, or blank lines only) is an error unless
    ``empty_ok``: then it is a stream of no groups (a sniffed empty input).
    """
    name = source_name(source)
    with open_binary(source) as stream:
        yield from _read_blocks(read_blocks(stream, name, skip_blank=True), name, empty_ok)


def _read_blocks(blocks, name: str, empty_ok: bool = False) -> Iterator[Batch]:
    """Batches from blocks of lines; the last group of a block is carried into the next.

    A group longer than a block is carried whole; blocks that plainly continue it
    are held unparsed (``held``) and joined once when the group ends, so a long
    group costs one parse, not one per block. Runs of blank lines are left out by
    ``read_blocks``; a joined block whose pieces are not consecutive lines is then
    numbered line by line (:func:`_joined_numbering`).
    """
    header = None
    carry, carry_line = b"", None
    held, held_lines = [], 0
    rows = False
    for block, first_line in blocks:
        if carry and held_lines <= validate.MAX_GROUP_ITEMS and _continues(carry, block, header):
            lines = block.count(b"\n")
            held.append((block, first_line, lines))
            held_lines += lines
            continue
        if carry:
            pieces = [(carry, carry_line, None), *held, (block, first_line, None)]
            block, first_line = b"".join(p[0] for p in pieces), _joined_numbering(pieces)
            held, held_lines = [], 0
        if header is None:
            header, block, first_line = _take_header(block, first_line, name)
            if header is None:
                continue
        batch, rest = _parse_block(block, first_line, header, name, final=False)
        carry, carry_line = rest
        if batch is not None:
            rows = True
            yield batch
    if carry:
        pieces = [(carry, carry_line, None), *held]
        batch, _ = _parse_block(b"".join(p[0] for p in pieces), _joined_numbering(pieces), header, name, final=True)
        if batch is not None:
            rows = True
            yield batch
    if header is not None and not rows and any(c not in CORE for c in header):
        yield empty_batch([c for c in header if c not in CORE], name)  # writers keep the extra columns
    if header is None and not empty_ok:
        raise DataError("empty input: expected a header line with columns group, item, gold, pred", name, 1)


def _joined_numbering(pieces):
    """The numbering of ``(block, numbering, newlines or None)`` pieces joined in order: the first
    one's first line when they are consecutive lines (the usual case), else the number of every
    line, as an int64 array."""
    start = expected = pieces[0][1]
    for k, (data, numbering, lines) in enumerate(pieces):
        if isinstance(numbering, np.ndarray) or numbering != expected:
            return np.concatenate([_line_numbers(n, d.count(b"\n") + (not d.endswith(b"\n"))) for d, n, _ in pieces])
        if k + 1 < len(pieces):
            expected = numbering + (data.count(b"\n") if lines is None else lines)
    return start


def _line_numbers(numbering, count: int) -> np.ndarray:
    """Numbers of the first ``count`` lines of a block numbered from ``numbering`` (an int: its first
    line; an array: every line's number)."""
    if isinstance(numbering, np.ndarray):
        return numbering[:count]
    return numbering + np.arange(count, dtype=np.int64)


def _lines_from(numbering, k: int):
    """The numbering of a block's lines from its ``k``-th line on."""
    return numbering[k:] if isinstance(numbering, np.ndarray) else numbering + k


def _decoded(block: bytes, name: str, numbering) -> str:
    """:func:`decode` for a block numbered either way."""
    if not isinstance(numbering, np.ndarray):
        return decode(block, name, numbering)
    try:
        return decode(block, name, 0)
    except DataError as exc:
        exc.line = int(numbering[exc.line])
        raise


def _take_header(block: bytes, first_line: int, name: str):
    """Split off the header line, skipping blank lines before it.

    Returns (columns or None if the block holds only blank lines, rest of block, its first line).
    """
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        text = decode(block[start:end], name, first_line).rstrip("\r")
        if text.strip():
            return _header_columns(text, name, first_line), block[end + 1:], first_line + 1
        start, first_line = end + 1, first_line + 1
    return None, b"", first_line


def _header_columns(text: str, name: str, first_line: int) -> list[str]:
    if "\r" in text:
        raise DataError("carriage return inside the header line: lines must end with \\n or \\r\\n "
                        "(old Mac \\r line endings are not supported)", name, first_line)
    columns = text.split("\t")
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        from . import READERS
        from .detect import header_problem

        problem = header_problem(text, name, READERS)
        if problem:
            raise DataError(problem, name, first_line)
        raise DataError(f"header lacks column(s) {', '.join(missing)} (found: {', '.join(columns)})", name, first_line)
    dupes = sorted({c for c in columns if columns.count(c) > 1})
    if dupes:
        raise DataError(f"header repeats column(s) {', '.join(dupes)}", name, first_line)
    return columns


def _parse_block(block: bytes, first_line, header: list[str], name: str, final: bool):
    """Parse whole lines; hold back the last group (unless final) as carried bytes.

    ``first_line`` numbers the lines: the first one's number, or every line's (an array).
    """
    if not block:
        return None, (b"", None)
    buf = np.frombuffer(block, dtype=np.uint8)
    parsed = _parse_plain(block, buf, first_line, header, name, final)
    if parsed is not None:
        return parsed
    newline = np.flatnonzero(buf == 10)
    ends = newline if (len(buf) and buf[-1] == 10) else np.append(newline, len(buf))
    starts = np.concatenate(([0], ends[:-1] + 1))
    line_numbers = _line_numbers(first_line, len(ends))
    lengths = ends - starts
    blank = (lengths == 0) | ((lengths == 1) & (buf[np.minimum(starts, len(buf) - 1)] == 13))
    tabs = np.flatnonzero(buf == 9)
    tab_counts = np.searchsorted(tabs, ends) - np.searchsorted(tabs, starts)

    keep = ~blank
    wrong = keep & (tab_counts != len(header) - 1)
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        from .detect import separator_hint

        line = block[starts[row]:ends[row]].decode("utf-8", "replace")
        raise DataError(f"expected {len(header)} tab-separated fields, found {tab_counts[row] + 1}"
                        + separator_hint(line, len(header)), name, int(line_numbers[row]))

    bounds = _field_bounds(tabs, buf, starts[keep], ends[keep], len(header))
    fields = _split_fields(_decoded(block, name, first_line), keep, len(ends))
    kept_lines = np.flatnonzero(keep)
    line_numbers, starts = line_numbers[keep], starts[keep]
    if not fields:
        return None, (b"", None)
    width = len(header)
    group = np.array(fields[header.index("group")::width], dtype=object)
    new_group = np.ones(len(group), dtype=bool)
    new_group[1:] = group[1:] != group[:-1]
    group_starts = np.flatnonzero(new_group)

    carry = (b"", None)
    rows = len(group)
    if not final and len(group_starts):
        rows = int(group_starts[-1])
        carry = (block[int(starts[rows]):], _lines_from(first_line, int(kept_lines[rows])))
        if rows == 0:
            limit = validate.MAX_GROUP_ITEMS
            if len(group) > limit:  # fail before holding more of one group
                raise DataError(validate.group_too_large(_unescape_one(group[0])), name, int(line_numbers[limit]))
            return None, carry
        group_starts = group_starts[:-1]
    numbers = {c: _numbers(buf, bounds, header.index(c), rows, c, name, line_numbers)
               for c in ("gold", "pred") if c in header}
    return _make_batch(fields[: rows * width], header, group[:rows], group_starts, numbers,
                       line_numbers[:rows], name, b"\\" in block), carry


#: Bytes that send a block to the general path (besides non-ASCII): NUL, CR, backslash (escapes).
_NOT_PLAIN = (b"\0", b"\r", b"\\")
#: Widest text field (bytes) of the fast path; wider ones (sentences) take the general path.
MAX_FIXED = 128


def _parse_plain(block: bytes, buf: np.ndarray, first_line, header: list[str], name: str, final: bool):
    """The fast path: a block of plain lines (:func:`_plain_field_ends`), else None."""
    ends = _plain_field_ends(block, buf, len(header))
    if ends is None:
        return None
    starts = np.empty_like(ends)
    starts[0, 0] = 0
    starts[1:, 0] = ends[:-1, -1] + 1
    starts[:, 1:] = ends[:, :-1] + 1
    lengths = ends - starts
    texts = [i for i, c in enumerate(header) if c not in ("gold", "pred")]
    if lengths[:, texts].max() > MAX_FIXED:
        return None
    padded = np.concatenate((buf, np.zeros(MAX_FIXED, dtype=np.uint8)))
    g = header.index("group")
    group = _fixed(padded, starts[:, g], lengths[:, g])
    new_group = np.ones(len(group), dtype=bool)
    new_group[1:] = group[1:] != group[:-1]
    group_starts = np.flatnonzero(new_group)
    rows, carry = len(group), (b"", None)
    if not final:
        rows = int(group_starts[-1])
        if rows == 0:  # one group fills the block: carry it whole (the general path reports one too large)
            return None if len(group) > validate.MAX_GROUP_ITEMS else (None, (block, first_line))
        carry = (block[int(starts[rows, 0]):], _lines_from(first_line, rows))
        group_starts = group_starts[:-1]
    line_numbers = _line_numbers(first_line, rows)
    numbers = {c: _numbers(buf, (starts, ends), header.index(c), rows, c, name, line_numbers)
               for c in ("gold", "pred") if c in header}
    column = {c: _strings(_fixed(padded, starts[:rows, i], lengths[:rows, i]))
              for i, c in enumerate(header) if i in texts and c != "group"}
    sizes = np.diff(np.append(group_starts, rows))
    batch = Batch(
        group=_decode(group[group_starts]),
        offsets=offsets_from_sizes(sizes),
        item=column["item"],
        gold=numbers["gold"],
        pred=numbers["pred"] if "pred" in numbers else np.full(rows, np.nan),
        extra={c: v for c, v in column.items() if c not in CORE},
        line=line_numbers,
        source=name,
    )
    return batch, carry


def _plain_field_ends(block: bytes, buf: np.ndarray, width: int) -> np.ndarray | None:
    """The byte offset ending each field, shaped (lines, width), if ``block`` is plain lines; else None.

    Plain: ASCII without CR, backslash or NUL, ending in a newline, every line with
    exactly ``width`` fields and none blank, which holds exactly when the bytes up to
    10 (tab, newline and the rare other control bytes, which thus disqualify a block),
    taken ``width`` at a time, are width - 1 tabs then a newline.
    """
    if not block.endswith(b"\n") or not block.isascii() or any(b in block for b in _NOT_PLAIN):
        return None
    seps = np.flatnonzero(buf <= 10)
    if len(seps) % width:
        return None
    ends = seps.reshape(-1, width)
    kinds = buf[ends]
    if not ((kinds[:, -1] == 10).all() and (kinds[:, :-1] == 9).all()):
        return None
    return ends


def _continues(carry: bytes, block: bytes, header: list[str]) -> bool:
    """True if every line of ``block`` is a plain line of the one group ``carry`` holds.

    Compares the raw bytes of the group field, so it answers False whenever in
    doubt (escapes, CR, non-ASCII, a malformed line): the block is then parsed.
    """
    end = carry.find(b"\n")
    first = carry[:end] if end >= 0 else carry
    width, g = len(header), header.index("group")
    carried = first.split(b"\t")
    last_line = block[block.rfind(b"\n", 0, len(block) - 1) + 1:]
    if len(carried) != width or last_line.split(b"\t")[g:g + 1] != carried[g:g + 1]:
        return False  # the usual answer (a block ends in a later group), found without scanning it
    group = carried[g]
    buf = np.frombuffer(block, dtype=np.uint8)
    ends = _plain_field_ends(block, buf, width)
    if ends is None:
        return False
    starts = np.concatenate(([0], ends[:-1, -1] + 1)) if g == 0 else ends[:, g - 1] + 1
    if not (ends[:, g] - starts == len(group)).all():
        return False
    if not group:
        return True
    fields = sliding_window_view(buf, len(group))[starts]
    return bool((fields == np.frombuffer(group, dtype=np.uint8)).all())


def _fixed(padded: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The fields ``padded[start:start + length]`` as a zero-padded fixed-width bytes array.

    The width is a multiple of 8: each field is gathered as little-endian 64-bit
    words, read unaligned from a 1-byte-strided view, with the bytes past its end
    masked off. ``padded`` has at least ``MAX_FIXED`` bytes after the last field.
    """
    words = max(-(-int(length.max()) // 8), 1) if len(length) else 1
    unaligned = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    out = np.empty((len(start), words), dtype="<u8")
    for j in range(words):
        bits = np.clip(length - 8 * j, 0, 8).astype(np.uint64) * np.uint64(8)
        mask = np.where(bits == 64, ~np.uint64(0), (np.uint64(1) << (bits & np.uint64(63))) - np.uint64(1))
        np.bitwise_and(unaligned[start + 8 * j], mask, out=out[:, j])
    return out.view(f"S{8 * words}").ravel()


def _strings(fixed: np.ndarray) -> np.ndarray:
    """Object array of ``str`` from ASCII bytes; equal values share one ``str`` object."""
    keys = fixed.view(np.uint64) if fixed.dtype.itemsize == 8 else fixed
    distinct, inverse = _distinct(keys)
    return _decode(distinct.view(fixed.dtype))[inverse.reshape(-1)]


def _distinct(keys: np.ndarray):
    """(sorted distinct keys, index of each key among them).

    Columns such as system names hold a few values: when those of the first rows
    are all there is, a binary search among them replaces sorting every row.
    """
    head = np.sort(keys[:1024])
    head = head[np.append(True, head[1:] != head[:-1])]  # np.unique, without importing numpy.ma
    at = np.minimum(np.searchsorted(head, keys), len(head) - 1)
    if (head[at] == keys).all():
        return head, at
    return np.unique(keys, return_inverse=True)


def _decode(fixed: np.ndarray) -> np.ndarray:
    """Object array of ``str`` from fixed-width ASCII bytes without newlines (one decode, one split)."""
    if len(fixed) == 0:
        return np.empty(0, dtype=object)
    return np.array(b"\n".join(fixed.tolist()).decode("ascii").split("\n"), dtype=object)


def _split_fields(text: str, keep: np.ndarray, n_lines: int) -> list[str]:
    """All fields of the kept lines, flat, in row-major order."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if keep.all():
        if text.endswith("\n"):
            text = text[:-1]
        return text.replace("\n", "\t").split("\t") if text else []
    lines = text.split("\n")[:n_lines]
    lines = [line for line, k in zip(lines, keep.tolist()) if k]
    return "\t".join(lines).split("\t") if lines else []


def _field_bounds(tabs, buf, line_starts: np.ndarray, line_ends: np.ndarray, width: int):
    """(start, end) byte offsets of every field, shaped (lines, width); ends exclude a CR."""
    tabs = tabs.reshape(len(line_starts), width - 1)
    start = np.empty((len(line_starts), width), dtype=np.int64)
    end = np.empty_like(start)
    start[:, 0] = line_starts
    start[:, 1:] = tabs + 1
    end[:, :-1] = tabs
    cr = (line_ends > line_starts) & (buf[np.maximum(line_ends - 1, 0)] == 13)
    end[:, -1] = line_ends - cr
    return start, end


def _numbers(buf, bounds, column: int, rows: int, name: str, source: str, line_numbers) -> np.ndarray:
    """Parse one numeric column of the first ``rows`` lines; errors name the line."""
    start, end = bounds[0][:rows, column], bounds[1][:rows, column]
    values, bad = parse_exact(buf, start, end)
    if bad is not None:
        text = bytes(buf[start[bad]:end[bad]]).decode("utf-8")
        raise DataError(f"column {name!r}: {text!r} is not a finite number", source, int(line_numbers[bad]))
    return values


def _make_batch(fields, header, group, group_starts, numbers, line_numbers, name, escaped) -> Batch:
    width = len(header)
    column = {c: fields[i::width] for i, c in enumerate(header)}
    unescape = unescape_tsv if escaped else (lambda texts: texts)
    n = len(group)
    sizes = np.diff(np.append(group_starts, n))
    return Batch(
        group=np.array(unescape(group[group_starts].tolist()), dtype=object),
        offsets=offsets_from_sizes(sizes),
        item=np.array(unescape(column["item"]), dtype=object),
        gold=numbers["gold"],
        pred=numbers["pred"] if "pred" in numbers else np.full(n, np.nan),
        extra={c: np.array(unescape(v), dtype=object) for c, v in column.items() if c not in CORE},
        line=line_numbers,
        source=name,
    )


def write_tsv(batches, out) -> None:
    """Write batches as canonical TSV to a text stream (header from the first batch)."""
    extras = None
    for batch in batches:
        if extras is None:
            extras = list(batch.extra)
            out.write("\t".join((*CORE, *extras)) + "\n")
        _write_rows(batch, extras, out)
    if extras is None:
        out.write("\t".join(CORE) + "\n")


def _write_rows(batch: Batch, extras: list[str], out) -> None:
    if batch.n_rows == 0:
        return
    columns = [
        escape_tsv(np.repeat(batch.group, batch.sizes)),
        escape_tsv(batch.item),
        format_numbers(batch.gold),
        format_numbers(batch.pred),
        *(escape_tsv(batch.extra[name]) for name in extras),
    ]
    out.write("\n".join(map("\t".join, zip(*(c.tolist() for c in columns)))))
    out.write("\n")
