"""Reading JCML groups into batches, in two passes over the parsed elements.

The first pass (:func:`scan`) validates every group and collects the attribute
names of each element, so that the columns are known before the first batch; the
second (:func:`batches`) turns <judgedsentence> groups into batches. Column names
are described in the package docstring.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from ...batch import Batch, offsets_from_sizes
from ...errors import DataError
from .ids import UsedIds, group_id, items
from .values import numbers, objects

CHILDREN = ("src", "tgt", "ref")


# --- first pass: the columns --------------------------------------------------------------------------

class Layout:
    """Attribute names per element, in order of first appearance, and the reading options."""

    def __init__(self, gold_attr, pred_attr, pred_higher_better, keep_text):
        self.gold_attr, self.pred_attr = gold_attr, pred_attr
        self.pred_higher_better, self.keep_text = pred_higher_better, keep_text
        self.sentence: dict = {}
        self.tgt: dict = {}
        self.src: list[dict] = []  # one dict per position (src, src2, ...)
        self.ref: list[dict] = []
        self.carry_system = False

    def tgt_columns(self) -> list[tuple[str, str]]:
        """(column, attribute) for the per-row attribute columns, gold and pred carriers in place."""
        names = dict.fromkeys(self.tgt)
        names.pop("system", None)
        names = {self.gold_attr: None, **names} if self.gold_attr not in names else names
        if self.pred_attr and self.pred_attr not in names:
            names[self.pred_attr] = None
        columns = [(_tgt_column(a, self), a) for a in names]
        return ([("tgt@system", "system")] if self.carry_system else []) + columns

    def element_columns(self, tag: str) -> list[tuple[str, int, str | None]]:
        """(column, position, attribute or None for the text) for src or ref."""
        out = []
        for k, names in enumerate(getattr(self, tag)):
            prefix = tag if k == 0 else f"{tag}{k + 1}"
            out += [(f"{prefix}@{a}", k, a) for a in names]
            if self.keep_text:
                out.append((f"{prefix}.text", k, None))
        return out


def _tgt_column(attr: str, layout: Layout) -> str:
    if attr == layout.gold_attr:
        return f"gold@{attr}"
    if attr == layout.pred_attr:
        return f"{'score' if layout.pred_higher_better else 'pred'}@{attr}"
    return f"tgt@{attr}"


def scan(elements, name, gold_attr, pred_attr, pred_higher_better, keep_text) -> Layout:
    """Validate every group and collect the attribute names (the first pass)."""
    layout = Layout(gold_attr, pred_attr, pred_higher_better, keep_text)
    for elem in elements:
        _add_names(layout.sentence, elem, name)
        _check_text(elem.text, name, elem.sourceline)
        counts = {"src": 0, "ref": 0}
        systems: set = set()
        for child in elem:
            tag = _child_tag(child, name)
            if tag == "tgt":
                _add_names(layout.tgt, child, name)
                system = child.get("system")
                layout.carry_system |= not system or system in systems
                systems.add(system)
            else:
                slots = getattr(layout, tag)
                if counts[tag] == len(slots):
                    slots.append({})
                _add_names(slots[counts[tag]], child, name)
                counts[tag] += 1
        if not systems:
            raise DataError("<judgedsentence> has no <tgt> items", name, elem.sourceline)
    _check_attributes(layout, name)
    return layout


def _check_attributes(layout: Layout, name: str) -> None:
    """A --pred-attr (or a --gold-attr other than rank) that no <tgt> has is a typo, not a column of
    blanks: an error naming the nearest attribute the file has."""
    if not layout.tgt:
        return
    for option, attr in (("--pred-attr", layout.pred_attr), ("--gold-attr", layout.gold_attr)):
        if attr is None or attr in layout.tgt or option == "--gold-attr" and attr == "rank":
            continue
        import difflib

        known = [a for a in layout.tgt if a != "system"]
        lowered = {a.lower(): a for a in reversed(known)}
        near = [lowered[m] for m in difflib.get_close_matches(attr.lower(), list(lowered), n=1, cutoff=0.5)]
        listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "") if known else "none but system"
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise DataError(f"no <tgt> has the attribute {attr!r} ({option}){hint} (the <tgt> attributes: {listed})", name)


def _add_names(names: dict, elem, name: str) -> None:
    keys = elem.keys()
    if len(names) < len(keys) or not all(map(names.__contains__, keys)):
        for key in keys:
            if key.startswith("{"):
                raise DataError(f"namespaced attribute {key} is not supported", name, elem.sourceline)
            names.setdefault(key, None)


def _child_tag(child, name: str) -> str:
    tag = child.tag
    if tag not in CHILDREN:
        raise DataError(f"unexpected element <{tag}> in <judgedsentence>; expected <src>, <tgt> or <ref>",
                        name, child.sourceline)
    if len(child):
        raise DataError(f"<{tag}> may hold only text, found element <{child[0].tag}>", name, child[0].sourceline)
    _check_text(child.tail, name, child.sourceline)
    return tag


def _check_text(text, name: str, line) -> None:
    if text and not text.isspace():
        raise DataError("text directly inside <judgedsentence>; text belongs in <src>, <tgt> or <ref>", name, line)


# --- second pass: the batches -------------------------------------------------------------------------

class _Rows:
    """Column lists for the groups read since the last batch."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.tgt_columns = layout.tgt_columns()
        self.element_columns = {t: layout.element_columns(t) for t in ("src", "ref")}
        self.sentence_columns = [(f"sentence@{a}", a) for a in layout.sentence]
        self.reset()

    def reset(self):
        self.groups, self.sizes, self.items, self.lines = [], [], [], []
        self.per_group = {c: [] for c, _ in self.sentence_columns}
        self.per_group.update({c: [] for t in ("src", "ref") for c, _, _ in self.element_columns[t]})
        self.per_row = {c: [] for c, _ in self.tgt_columns}
        self.text = []


def batches(elements, layout: Layout, name: str, fed: list, batch_rows: int, batch_bytes: int) -> Iterator[Batch]:
    """Batches of about ``batch_rows`` rows or ``batch_bytes`` of XML (counted in ``fed[0]``), whichever
    comes first."""
    rows = _Rows(layout)
    used = UsedIds()
    start = 0
    for ordinal, elem in enumerate(elements, start=1):
        _read_group(elem, ordinal, rows, used)
        if len(rows.items) >= batch_rows or fed[0] - start >= batch_bytes:
            yield _make_batch(rows, name)
            rows.reset()
            start = fed[0]
    if rows.groups:
        yield _make_batch(rows, name)


def _read_group(elem, ordinal: int, rows: _Rows, used: UsedIds) -> None:
    rows.groups.append(group_id(elem, ordinal, used))
    attrib = elem.attrib
    for column, attr in rows.sentence_columns:
        rows.per_group[column].append(attrib.get(attr, ""))
    children = {"src": [], "tgt": [], "ref": []}
    for child in elem:
        children[child.tag].append(child)
    for tag in ("src", "ref"):
        found = children[tag]
        for column, k, attr in rows.element_columns[tag]:
            value = "" if k >= len(found) else (found[k].text or "") if attr is None else found[k].get(attr, "")
            rows.per_group[column].append(value)
    tgts = children["tgt"]
    rows.sizes.append(len(tgts))
    rows.items.extend(items(tgts) if rows.layout.carry_system else [t.get("system") for t in tgts])
    for column, attr in rows.tgt_columns:
        rows.per_row[column].extend([t.get(attr, "") for t in tgts])
    rows.lines.extend([t.sourceline for t in tgts])
    if rows.layout.keep_text:
        rows.text.extend([t.text or "" for t in tgts])


def _make_batch(rows: _Rows, name: str) -> Batch:
    layout = rows.layout
    sizes = np.array(rows.sizes, dtype=np.int64)
    lines = np.array(rows.lines, dtype=np.int64)
    gold_column = _tgt_column(layout.gold_attr, layout)
    gold = numbers(rows.per_row[gold_column], layout.gold_attr, name, lines)
    gold[gold == -1] = np.nan
    pred = np.full(len(lines), np.nan)
    if layout.pred_attr:
        pred = numbers(rows.per_row[_tgt_column(layout.pred_attr, layout)], layout.pred_attr, name, lines)
        if layout.pred_higher_better:
            pred = -pred
    return Batch(
        group=objects(rows.groups),
        offsets=offsets_from_sizes(sizes),
        item=objects(rows.items),
        gold=gold,
        pred=pred,
        extra=_extra_columns(rows, sizes),
        line=lines,
        source=name,
    )


def _extra_columns(rows: _Rows, sizes: np.ndarray) -> dict:
    """Columns in a fixed order: sentence, src, tgt (+ tgt.text), ref."""
    def per_group(column):
        return np.repeat(objects(rows.per_group[column]), sizes)

    extra = {c: per_group(c) for c, _ in rows.sentence_columns}
    extra.update({c: per_group(c) for c, _, _ in rows.element_columns["src"]})
    extra.update({c: objects(rows.per_row[c]) for c, _ in rows.tgt_columns})
    if rows.layout.keep_text:
        extra["tgt.text"] = objects(rows.text)
    extra.update({c: per_group(c) for c, _, _ in rows.element_columns["ref"]})
    return extra
