"""A run joined with its qrels by trec_eval's rules (``form_res_rels.c``, ``trec_eval.c``).

As in trec_eval, the rank field is ignored: the order of a query's documents is score
descending, ties broken by docno descending in byte order (``form_res_rels.c``,
``comp_sim_docno``; :func:`trec_order`). The join (:func:`join`):

- a retrieved document absent from the qrels is unjudged (relevance value −1) and
  counts as non-relevant; a judged one carries its grade; a negative grade means
  "in the pool but not judged" (value −2): non-relevant, and not a judged
  non-relevant document for bpref;
- judged documents the run did not retrieve have no rank, but count in the number
  of relevant documents R and in the ideal ranking of nDCG;
- only queries with both qrels and a ranking are evaluated, unless ``all_queries``
  (trec_eval ``-c``) adds the qrels' queries missing from the run with an empty ranking;
- ``depth`` (trec_eval ``-M``) keeps the first N documents of each ordered ranking.

Each retrieved document is found among its query's judgments by one probe of a hash
table of 64-bit keys (:class:`HashIndex`), the match checked on the ids themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...batch import distinct, offsets_from_sizes, sort_within_groups
from ...errors import DataError
from ..byteids import ByteIds, same
from .fields import shown
from .qrels import Qrels
from .repeats import repeat_positions, repeats_allowed
from .run import Run

#: relevance value of a retrieved document that the qrels do not hold (trec_eval RELVALUE_NONPOOL)
NONPOOL = -1
#: relevance value of a retrieved document whose qrels grade is negative (trec_eval RELVALUE_UNJUDGED)
UNJUDGED = -2


@dataclass
class Joined:
    """A run joined with qrels: per evaluated query its ordered ranking and its judgments.

    ``rel`` holds, per retrieved row in trec_eval order (depth applied), the grade of a
    judged document, :data:`NONPOOL` (−1) or :data:`UNJUDGED` (−2); ``row`` the run row;
    ``qrels_row`` the qrels row that judged it (−1: none). ``judged_grade`` holds each
    query's non-negative qrels grades, highest first (the ideal ranking; R and bpref's
    judged non-relevant count come from it); ``judged_row`` the qrels row of each,
    ``judged_retrieved`` whether the run retrieved it. ``tie_block`` numbers the blocks of
    equal scores (for the other tie policies).
    """

    qids: list
    offsets: np.ndarray
    rel: np.ndarray
    row: np.ndarray
    tie_block: np.ndarray
    judged_offsets: np.ndarray
    judged_grade: np.ndarray
    judged_row: np.ndarray
    judged_retrieved: np.ndarray
    skipped_queries: int = 0  # run queries without qrels
    tag: str = ""
    qrels_row: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    repeats: dict = field(default_factory=dict)  # qid -> a docno twice (.repeats; rankeval trec_eval only)

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


def docno_words(docno: np.ndarray) -> np.ndarray:
    """(n × w/8) big-endian 64-bit words of a fixed-width ``S`` array of ids: comparing the
    rows word by word is comparing the bytes (shorter ids are zero-padded, so a prefix
    sorts first, as strcmp)."""
    width = docno.dtype.itemsize
    if width % 8:
        docno = docno.astype(f"S{-(-width // 8) * 8}")
        width = docno.dtype.itemsize
    return np.ascontiguousarray(docno).view(">u8").reshape(len(docno), width // 8).astype(np.uint64)


def trec_order(run: Run, offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` (grouped by query, ``offsets``) reordered within each query by score
    descending, then docno descending; and the tie-block number of each ordered row."""
    score = run.score[rows]
    n = len(rows)
    same_group = np.ones(n, dtype=bool)
    if n:
        same_group[offsets[:-1][np.diff(offsets) > 0]] = False
    if n > 1 and not ((score[1:] <= score[:-1]) | ~same_group[1:]).all():
        order = sort_within_groups(offsets, -score)
        rows, score = rows[order], score[order]
    tie = np.zeros(n, dtype=bool)  # row equal in score to the row before, same query
    if n > 1:
        tie[1:] = (score[1:] == score[:-1]) & same_group[1:]
    block = np.cumsum(~tie) - 1
    tied = tie.copy()
    tied[:-1] |= tie[1:]
    if tied.any():
        where = np.flatnonzero(tied)
        local = np.lexsort((*run.docno.take(rows[where]).sort_keys(descending=True), block[where]))
        rows = rows.copy()
        rows[where] = rows[where][local]
    return rows, block


def join(run: Run, qrels: Qrels, *, depth: int | None = None, all_queries: bool = False,
         run_to_q: np.ndarray | None = None, queries: list | None = None) -> Joined:
    """Join a run with qrels by trec_eval's rules (module docstring). ``run_to_q`` (the
    qrels index of every run query code, −1 without qrels) may be given when known;
    ``queries`` (qrels indexes) replaces the evaluated queries."""
    if run_to_q is None:
        q_index = {q: i for i, q in enumerate(qrels.qids)}
        run_to_q = np.array([q_index.get(q, -1) for q in run.qids], dtype=np.int64)
    present = _distinct_sorted(run.code) if run.n_rows else np.zeros(0, np.int64)
    skipped = int((run_to_q[present] < 0).sum())
    q_list = list(range(len(qrels.qids))) if all_queries else \
        distinct(run_to_q[present][run_to_q[present] >= 0]).tolist()
    if queries is not None:
        q_list = list(queries)
    # rows of every evaluated query, grouped in qrels (byte) order of the qids
    q_of_code = run_to_q[run.code] if run.n_rows else np.zeros(0, np.int64)
    keep = q_of_code >= 0
    slot = np.full(len(qrels.qids), -1, dtype=np.int64)
    slot[q_list] = np.arange(len(q_list))
    row_slot = np.where(keep, slot[np.maximum(q_of_code, 0)], -1) if len(slot) else np.full(run.n_rows, -1)
    rows = np.flatnonzero(keep)
    key = row_slot[rows]
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():
        rows = rows[np.argsort(key, kind="stable")]
        key = row_slot[rows]
    sizes = np.bincount(key, minlength=len(q_list)) if len(key) else np.zeros(len(q_list), np.int64)
    offsets = offsets_from_sizes(sizes)
    allowed = repeats_allowed()  # rankeval trec_eval: trec_eval decides per query, after -M
    if not allowed:
        _check_duplicates(run, rows, key)
    rows, block = trec_order(run, offsets, rows)
    repeats = repeat_positions(run, rows, offsets, [qrels.qids[q] for q in q_list]) if allowed else {}
    if depth is not None:
        pos = np.arange(len(rows)) - offsets[:-1][np.repeat(np.arange(len(q_list)), sizes)]
        cut = pos < depth
        rows, block = rows[cut], block[cut]
        sizes = np.minimum(sizes, depth)
        offsets = offsets_from_sizes(sizes)
    q_rows = np.concatenate([np.arange(qrels.offsets[q], qrels.offsets[q + 1]) for q in q_list]) \
        if q_list else np.zeros(0, np.int64)
    q_slot = np.repeat(np.arange(len(q_list)), np.diff(qrels.offsets)[q_list]) if q_list else \
        np.zeros(0, np.int64)
    r_slot = np.repeat(np.arange(len(q_list)), sizes)
    found, cand = _lookup(qrels.docno.take(q_rows), q_slot, run.docno.take(rows), r_slot)
    grade = qrels.grade[q_rows]
    rel = np.full(len(rows), NONPOOL, dtype=np.int64)
    rel[found] = np.where(grade[cand[found]] >= 0, grade[cand[found]], UNJUDGED)
    retrieved = np.zeros(len(q_rows), dtype=bool)
    retrieved[cand[found]] = True
    # judged documents per query, grade descending (negative grades are not judgments)
    judged = grade >= 0
    j_rows = np.flatnonzero(judged)
    j_order = np.lexsort((-grade[j_rows], q_slot[j_rows]))
    j_rows = j_rows[j_order]
    j_sizes = np.bincount(q_slot[j_rows], minlength=len(q_list)) if len(j_rows) else np.zeros(len(q_list), np.int64)
    return Joined(
        qids=[qrels.qids[q] for q in q_list], offsets=offsets, rel=rel, row=rows, tie_block=block,
        judged_offsets=offsets_from_sizes(j_sizes), judged_grade=grade[j_rows], judged_row=q_rows[j_rows],
        judged_retrieved=retrieved[j_rows], skipped_queries=skipped, tag=run.tag,
        qrels_row=np.where(found, q_rows[cand] if len(q_rows) else -1, -1), repeats=repeats)


def _lookup(q_ids: ByteIds, q_slot: np.ndarray, r_ids: ByteIds, r_slot: np.ndarray):
    """(found, index into ``q_ids``) of every (r_slot, r_id) among the (q_slot, q_id): one
    probe of a hash table each, the match checked on the ids themselves."""
    if not len(q_ids) or not len(r_ids):
        return np.zeros(len(r_ids), bool), np.zeros(len(r_ids), np.int64)
    k = max(q_ids.key_words, r_ids.key_words)
    q_words, r_words = q_ids.words(k), r_ids.words(k)
    q_hash, r_hash = q_ids.hash(q_slot, q_words), r_ids.hash(r_slot, r_words)
    if len(distinct(q_hash)) < len(q_hash):  # a 64-bit collision inside the qrels: the exact way
        index = {key: i for i, key in enumerate(zip(q_slot.tolist(), q_ids.tolist()))}
        cand = np.array([index.get(key, -1) for key in zip(r_slot.tolist(), r_ids.tolist())], dtype=np.int64)
        return cand >= 0, np.maximum(cand, 0)
    cand = HashIndex(q_hash).find(r_hash)
    hit = np.flatnonzero(cand >= 0)  # checked on the ids: a hash may collide
    real = (q_slot[cand[hit]] == r_slot[hit]) & same(q_ids, cand[hit], r_ids, hit, q_words, r_words)
    found = np.zeros(len(r_ids), dtype=bool)
    found[hit[real]] = True
    return found, np.maximum(cand, 0)


def _distinct_sorted(code: np.ndarray) -> np.ndarray:
    """Distinct query codes: one per run of equal codes when they are grouped, else np.unique."""
    heads = code[np.r_[True, code[1:] != code[:-1]]]
    return heads if len(heads) < 2 or (heads[1:] > heads[:-1]).all() else np.unique(code)


class HashIndex:
    """An open-addressing table (linear probing, load ≤ 1/8) of 64-bit keys, built and
    probed with whole-array steps: ``find`` gives each key's position in the input, or −1.
    A slot is filled only once and never emptied, so a key sits after an unbroken run of
    filled slots from its home slot, and a probe may stop at the first empty one."""

    def __init__(self, keys: np.ndarray):
        size = 1 << max(4, int(len(keys) * 8 - 1).bit_length())
        self.mask = np.uint64(size - 1)
        self.keys = np.zeros(size, dtype=np.uint64)
        self.index = np.full(size, -1, dtype=np.int64)
        pending = np.arange(len(keys), dtype=np.int64)
        slot = keys & self.mask
        while len(pending):
            at = slot[pending]
            free = self.index[at] < 0
            first = np.zeros(len(pending), dtype=bool)
            if free.any():
                _, winners = np.unique(at[free], return_index=True)
                first[np.flatnonzero(free)[winners]] = True
            self.index[at[first]] = pending[first]
            self.keys[at[first]] = keys[pending[first]]
            pending = pending[~first]
            slot[pending] = (slot[pending] + np.uint64(1)) & self.mask
        self.filled = self.index >= 0

    def find(self, keys: np.ndarray) -> np.ndarray:
        out = np.full(len(keys), -1, dtype=np.int64)
        slot = keys & self.mask
        active = np.flatnonzero(self.filled[slot])  # a key whose home slot is empty is absent
        slot = slot[active]
        while len(active):
            index = self.index[slot]
            hit = (index >= 0) & (self.keys[slot] == keys[active])
            out[active[hit]] = index[hit]
            more = (index >= 0) & ~hit
            active, slot = active[more], (slot[more] + np.uint64(1)) & self.mask
        return out


def _check_duplicates(run: Run, rows: np.ndarray, key: np.ndarray) -> None:
    """A docno twice in one query's ranking is an error at its second line."""
    if len(rows) < 2:
        return
    ids = run.docno.take(rows)
    h = ids.hash(key)
    # Rows alone in their slot of a table 4x their number cannot repeat; each round keeps
    # those that share a slot (about 1/5), the next round uses the next bits of the hash.
    maybe, shift = np.arange(len(h)), 64
    while len(maybe) > 64:
        bits = max(4, int(len(maybe) * 4 - 1).bit_length())
        if bits > shift:
            break
        shift -= bits
        slot = ((h[maybe] >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.intp)
        shared = np.bincount(slot, minlength=1 << bits)[slot] > 1
        if shared.all():
            break
        maybe = maybe[shared]
    if len(maybe) < 2:
        return
    hm = h[maybe]
    order = np.argsort(hm, kind="stable")
    hs = hm[order]
    dup = np.flatnonzero(hs[1:] == hs[:-1])
    if len(dup) == 0:
        return
    a, b = maybe[order[dup]], maybe[order[dup + 1]]
    real = (key[a] == key[b]) & same(ids, a, ids, b)
    if real.any():  # report the repeat that comes first in the file
        ra, rb = rows[a[real]], rows[b[real]]
        i = int(np.argmin(np.maximum(ra, rb)))
        first, second = int(min(ra[i], rb[i])), int(max(ra[i], rb[i]))
        raise DataError(f"docno {shown(run.docno[second])} retrieved twice for query "
                        f"{shown(run.qids[run.code[second]].encode())} (first at line {run.line_of(first)})",
                        run.source, run.line_of(second))
