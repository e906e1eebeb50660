"""Writing batches as JCML, one <judgedsentence> per group, streaming batch by batch.

Columns map back to XML as the reader names them (see the package docstring), so
a JCML → TSV → JCML trip reproduces every attribute exactly. Each batch is
rendered at once with numpy object arrays of text (no Python loop per row).
"""

from __future__ import annotations

import re

import numpy as np

from ...batch import Batch
from ...errors import DataError
from ..columns import format_numbers
from .values import objects, parse_quietly

XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<jcml>\n'
_NCNAME_START = ("A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
                 "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_NCNAME = re.compile(f"[{_NCNAME_START}][{_NCNAME_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*\\Z")
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                               "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_COLUMN = re.compile(r"(?:(sentence|tgt|gold|pred|score)@(.+)|(src|ref)([2-9]|[1-9][0-9]+)?(?:@(.+)|\.(text)))\Z")


def write_jcml(batches, out) -> None:
    """Write batches as JCML, one <judgedsentence> per group, streaming batch by batch.

    Columns map back to XML as the reader names them (see the package docstring);
    any other extra column becomes a <tgt> attribute of the same name. Gold goes to
    the ``gold@A`` attribute A (default ``rank``; NaN as ``-1``), pred to its
    ``pred@A``/``score@A`` attribute A (else ``predicted_rank``; NaN omitted). A
    carried attribute text is kept where it still equals the value, so a
    JCML → TSV → JCML trip reproduces every attribute exactly. An empty value
    writes no attribute; a group without items writes nothing (a <judgedsentence>
    needs a <tgt>, as in TSV a group needs a row).
    """
    out.write(XML_HEAD)
    plan = None
    for batch in batches:
        if plan is None:
            plan = _Plan(list(batch.extra), batch.source)
        if (batch.sizes == 0).any():
            batch = batch.select_groups(batch.sizes > 0)
        if batch.n_groups:
            out.write(_render(batch, plan))
    out.write("</jcml>\n")


class _Plan:
    """Where each column goes: element, attribute or text; checked for clashes once per stream.

    ``tgt`` lists ``(kind, column, attribute)`` in column order, kind being ``attr``
    (a carried text), ``gold`` or ``pred`` (the value, with its carried text if any).
    """

    def __init__(self, columns: list[str], where):
        self.sentence: list = []
        self.tgt: list = []
        self.tgt_text = None
        self.elements: dict = {}
        self.pred_sign = 1.0
        for column in columns:
            self._place(column, where)
        self.sentence_id = any(a == "id" for _, a in self.sentence)
        self.system = "tgt@system" if "tgt@system" in columns else None
        self._add_defaults()
        self._check_clashes(where)

    def _place(self, column: str, where) -> None:
        match = _COLUMN.match(column)
        if match and match.group(3):
            slot = self.elements.setdefault((match.group(3), int(match.group(4) or 1)), {"attrs": [], "text": None})
            if match.group(6):
                slot["text"] = column
            else:
                slot["attrs"].append((column, _attr_name(match.group(5), column, where)))
            return
        kind, attr = (match.group(1), match.group(2)) if match else (None, column)
        if kind == "sentence":
            self.sentence.append((column, _attr_name(attr, column, where)))
        elif column == "tgt.text":
            self.tgt_text = column
        elif kind in ("gold", "pred", "score"):
            role = "gold" if kind == "gold" else "pred"
            if any(k == role for k, _, _ in self.tgt):
                raise DataError(f"two columns carry the {role} attribute (the second is {column})", where)
            self.pred_sign = -1.0 if kind == "score" else self.pred_sign
            self.tgt.append((role, column, _attr_name(attr, column, where)))
        else:
            self.tgt.append(("attr", column, _attr_name(attr, column, where)))

    def _add_defaults(self) -> None:
        """Gold without a carrier goes to ``rank``; pred to ``predicted_rank`` (or the first free name)."""
        taken = {a for _, _, a in self.tgt}
        if not any(k == "gold" for k, _, _ in self.tgt):
            self.tgt.append(("gold", None, "rank"))
            taken.add("rank")
        if not any(k == "pred" for k, _, _ in self.tgt):
            names = ["predicted_rank", "pred"] + [f"pred{k}" for k in range(2, len(taken) + 3)]
            self.tgt.append(("pred", None, next(n for n in names if n not in taken)))

    def _check_clashes(self, where) -> None:
        tgt = [(a, c or k) for k, c, a in self.tgt] + ([] if self.system else [("system", "item")])
        elements = [("tgt", tgt), ("judgedsentence", [(a, c) for c, a in self.sentence])]
        elements += [(f"{t}{k if k > 1 else ''}", [(a, c) for c, a in s["attrs"]])
                     for (t, k), s in self.elements.items()]
        for element, pairs in elements:
            seen: dict = {}
            for attr, column in pairs:
                if attr in seen:
                    raise DataError(f"{seen[attr]} and {column} would both write attribute {attr} of <{element}>",
                                    where)
                seen[attr] = column


def _attr_name(attr: str, column: str, where) -> str:
    if not _NCNAME.match(attr) or attr == "xmlns":
        raise DataError(f"column {column!r} cannot be written as a JCML attribute ({attr!r} is not an XML name)",
                        where)
    return attr


def _render(batch: Batch, plan: _Plan) -> str:
    """The <judgedsentence> elements of one batch as text, rows placed between group heads and tails."""
    first = batch.offsets[:-1]
    empty = batch.sizes == 0
    heads = _group_heads(batch, plan, first, empty)
    tails = _element_lines(batch, plan, "ref", first, empty) + "\t</judgedsentence>"
    g = np.arange(batch.n_groups)
    pieces = np.empty(batch.n_rows + 2 * batch.n_groups, dtype=object)
    pieces[first + 2 * g] = heads
    pieces[batch.offsets[1:] + 2 * g + 1] = tails
    pieces[np.arange(batch.n_rows) + 2 * batch.group_index + 1] = _tgt_lines(batch, plan)
    return "\n".join(pieces.tolist()) + "\n"


def _group_heads(batch: Batch, plan: _Plan, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    attrs = [] if plan.sentence_id else [_attribute("id", objects(batch.group.tolist()), batch, first)]
    attrs += [_attribute(a, _per_group(batch, c, first, empty), batch, first) for c, a in plan.sentence]
    return "\t<judgedsentence" + _sum(attrs, batch.n_groups) + ">" + _element_lines(batch, plan, "src", first, empty)


def _element_lines(batch: Batch, plan: _Plan, tag: str, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """The <src> (or <ref>) elements of each group, one per position with a non-empty value.

    Sources follow the <judgedsentence> tag (each after a newline); references precede
    its end tag (each before a newline).
    """
    out = np.full(batch.n_groups, "", dtype=object)
    for (kind, k), slot in sorted(plan.elements.items()):
        if kind != tag:
            continue
        values = [_per_group(batch, c, first, empty) for c, _ in slot["attrs"]]
        text = _per_group(batch, slot["text"], first, empty) if slot["text"] else None
        present = np.zeros(batch.n_groups, dtype=bool)
        for column in values + ([] if text is None else [text]):
            present |= column != ""
        attrs = _sum([_attribute(a, v, batch, first) for (_, a), v in zip(slot["attrs"], values)], batch.n_groups)
        body = "/>" if text is None else ">" + _escape(text, _TEXT_ESCAPES, batch, first) + f"</{tag}>"
        element = f"\n\t\t<{tag}" + attrs + body if tag == "src" else f"\t\t<{tag}" + attrs + body + "\n"
        out[present] = out[present] + element[present]
    return out


def _per_group(batch: Batch, column: str, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """A column's value on each group's first row; it must be the same on every row of the group."""
    values = batch.extra[column]
    if batch.n_rows == 0:
        return np.full(batch.n_groups, "", dtype=object)
    at_first = values[np.minimum(first, batch.n_rows - 1)]
    differs = np.flatnonzero(values != np.repeat(at_first, batch.sizes))
    if len(differs):
        source, line = batch.row_location(int(differs[0]))
        group = batch.group[batch.group_index[differs[0]]]
        raise DataError(f"column {column} differs within group {group!r}; it is written once per <judgedsentence>",
                        source, line)
    at_first[empty] = ""
    return at_first


def _tgt_lines(batch: Batch, plan: _Plan) -> np.ndarray:
    attrs = [] if plan.system else [_attribute("system", batch.item, batch, None, keep_empty=True)]
    for kind, column, attr in plan.tgt:
        if kind == "attr":
            values = batch.extra[column]
        else:
            values = _gold_texts(batch, column) if kind == "gold" else _pred_texts(batch, column, plan.pred_sign)
        attrs.append(_attribute(attr, values, batch, None))
    if plan.tgt_text:
        body = ">" + _escape(batch.extra[plan.tgt_text], _TEXT_ESCAPES, batch, None) + "</tgt>"
    else:
        body = "/>"
    return "\t\t<tgt" + _sum(attrs, batch.n_rows) + body


def _gold_texts(batch: Batch, column: str | None) -> np.ndarray:
    """Gold as attribute text: the carried text where it still holds the value, else the value (NaN = -1)."""
    minus_one = np.flatnonzero(batch.gold == -1)
    if len(minus_one):
        source, line = batch.row_location(int(minus_one[0]))
        raise DataError("a gold value of -1 cannot be written to JCML, where rank=\"-1\" means a blank; "
                        "normalize the ranks first", source, line)
    text = format_numbers(batch.gold)
    text[np.isnan(batch.gold)] = "-1"
    if column is None:
        return text
    carried = batch.extra[column]
    parsed = parse_quietly(carried)
    blank = (carried == "") | (parsed == -1)
    return np.where((parsed == batch.gold) | (np.isnan(batch.gold) & blank), carried, text)


def _pred_texts(batch: Batch, column: str | None, sign: float) -> np.ndarray:
    """Pred as attribute text (negated back for a ``score@`` carrier); NaN writes nothing."""
    value = sign * batch.pred
    text = format_numbers(value)
    if column is None:
        return text
    carried = batch.extra[column]
    keep = (parse_quietly(carried) == value) | (np.isnan(value) & (carried == ""))
    return np.where(keep, carried, text)


def _attribute(attr: str, values: np.ndarray, batch: Batch, rows, keep_empty: bool = False) -> np.ndarray:
    """`` attr="value"`` per entry, or ``""`` where the value is empty (an absent attribute)."""
    fragment = f' {attr}="' + _escape(values, _ATTR_ESCAPES, batch, rows) + '"'
    return fragment if keep_empty else np.where(values == "", "", fragment)


def _escape(values: np.ndarray, table: dict, batch: Batch, rows) -> np.ndarray:
    """XML-escaped texts; a character XML 1.0 cannot hold is an error naming the row's line."""
    texts = values.tolist()
    joined = "".join(texts)
    bad = _NOT_XML_CHAR.search(joined)
    if bad:
        index = next(i for i, t in enumerate(texts) if _NOT_XML_CHAR.search(t))
        row = index if rows is None else int(rows[index])
        source, line = batch.row_location(min(row, batch.n_rows - 1)) if batch.n_rows else (batch.source, None)
        raise DataError(f"value {texts[index]!r} holds a character XML 1.0 cannot represent "
                        f"(U+{ord(bad.group()):04X})", source, line)
    if not any(chr(code) in joined for code in table):
        return objects(texts)
    return objects([t.translate(table) for t in texts])


def _sum(fragments: list, n: int) -> np.ndarray:
    """Elementwise concatenation of object arrays of text."""
    total = np.full(n, "", dtype=object)
    for fragment in fragments:
        total = total + fragment
    return total
