"""TREC run files fused a block of whole queries at a time, and stacked whole for ``--optimize``.

Every fusion method and normalization works query by query (the learning methods with a
model estimated once, from the training topics), so fusing the runs a block of queries at
a time (:mod:`.blocks`) gives the fused run of fusing them at once. In a block, query ids
are indices into the block's ids (in byte order) and docnos codes in the byte order of the
block's distinct docnos, so that sorting codes sorts ids as trec_eval compares them.
"""

from __future__ import annotations

import numpy as np

from .lists import Repeated, stack_codes


def fused_blocks(sources, fusion, train_qrels=None, report=None, whole: bool = False):
    """Yield the fused run of each block of queries (a :class:`~.Fused` whose ``query`` is a
    ByteIds column of the ids' UTF-8 bytes), in the byte order of the query ids.

    Runs are read side by side (:func:`.blocks.streamed`) unless ``whole``, a source is not
    a regular file, or the method learns from ``train_qrels`` (a qrels file): then they are
    read whole first. Raises :class:`.blocks.NotByQuery` (before the first block that would
    be wrong) when a run read side by side turns out not to be in query order: call again
    with ``whole``. ``report`` receives a note on what a learning method was trained on.
    """
    from .table import METHODS
    from .blocks import WholeRuns, query_blocks

    model = None
    if METHODS[fusion.method].train is not None:
        runs = WholeRuns(sources)
        model = train(runs, train_qrels, fusion, report)
        blocks = runs.blocks()
    else:
        blocks = query_blocks(sources, whole)
    for block in blocks:
        yield fuse_block(block, fusion, model)


def fuse_block(block, fusion, model=None):
    """The :class:`~.Fused` run of one block; a document twice in a run is a DataError at its line."""
    from .core import Fused, fuse_stacked

    try:
        stacked, docs, _ = stack_block(block)
        q, d, rank, s = fuse_stacked(stacked, fusion, model=model)
    except Repeated as exc:
        raise repeat_error(block, exc.run) from None
    from ...formats.byteids import ByteIds

    names = ByteIds.from_list([n.encode("utf-8") for n in block.names])
    return Fused(names.take(q), docs.take(d), rank, s)


def stack_block(block, extra=None) -> tuple:
    """(the block's runs stacked, its distinct docnos in byte order, the codes of the docnos
    ``extra`` (ByteIds, or None) among them)."""
    from ...formats.byteids import ByteIds

    if extra is None:
        found = _candidates(block)
        if found is not None:
            return found
    parts = [p.docno for p in block.parts] + ([extra] if extra is not None else [])
    docs, code = doc_codes(ByteIds.concat(parts))
    triples, at = [], 0
    for part in block.parts:
        triples.append((part.query, code[at:at + len(part.score)], part.score))
        at += len(part.score)
    return stack_codes(triples, len(block.names), len(docs)), docs, code[at:]


def block_candidates(block):
    """(the docnos of the block, each row's candidate, each candidate's query, a row of each
    candidate) by :func:`.grouping.candidates` (rows: the parts one after another), or None
    where that does not apply; :class:`.lists.Repeated` for a document twice in a run's query."""
    from ...formats.byteids import ByteIds
    from .grouping import candidates

    ids = ByteIds.concat([p.docno for p in block.parts])
    sizes = [len(p.score) for p in block.parts]
    query = np.concatenate([p.query for p in block.parts]) if block.parts else np.zeros(0, np.int64)
    run = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    found = candidates(query, ids, run)
    if found is None:
        return None
    cand, cand_query, first, repeat = found
    if repeat >= 0:
        raise Repeated(int(run[repeat]), block.names[int(query[repeat])], ids[repeat])
    return ids, cand, cand_query, first


def _candidates(block):
    """:func:`stack_block` with the docnos coded by candidate, or None where that does not apply."""
    found = block_candidates(block)
    if found is None:
        return None
    ids, cand, cand_query, first = found
    sizes = [len(p.score) for p in block.parts]
    triples, at = [], 0
    for part, size in zip(block.parts, sizes):
        triples.append((part.query, cand[at:at + size], part.score))
        at += size
    stacked = stack_codes(triples, len(block.names), len(cand_query))
    stacked.cand_query = cand_query
    return stacked, ids.take(first), None


def doc_codes(ids) -> tuple:
    """(the distinct ids in byte order, each id's index among them)."""
    from .grouping import dense_rank

    if len(ids) == 0 or ids.width != 8:
        return ids.unique()
    code, n = dense_rank(ids.data[:, 0])  # one big-endian word per id: integer order is byte order
    one = np.empty(n, dtype=np.int64)
    one[code] = np.arange(len(code), dtype=np.int64)  # a row of each distinct id
    return ids.take(one), code


def train(runs, train_qrels, fusion, report=None):
    """What a learning method estimates from the training qrels (a file), on the training
    topics' rows of the runs (read whole: :class:`.blocks.WholeRuns`)."""
    from ...formats.trec.qrels import read_qrels
    from .training import judge
    from .table import METHODS
    from .lists import Lists

    qrels = read_qrels(train_qrels)
    topics = set(qrels.qids)
    keep = np.array([q in topics for q in runs.names], dtype=bool)
    block = runs.block(0, len(runs.names), keep)
    block.names = [q for q, k in zip(runs.names, keep) if k]
    remap = np.cumsum(keep) - 1
    for part in block.parts:
        part.query = remap[part.query]
    stacked, _, judged_doc = stack_block(block, qrels.docno)
    index = {q: i for i, q in enumerate(block.names)}
    unseen = [q for q in qrels.qids if q not in index]  # topics no run has: codes past the end
    index.update({q: len(block.names) + i for i, q in enumerate(unseen)})
    judged_q = np.repeat(np.array([index[q] for q in qrels.qids], dtype=np.int64), np.diff(qrels.offsets))
    if report is not None:
        report(f"{fusion.method}: trained on the {len(qrels.qids)} topics of {train_qrels}; {len(block.names)} "
               f"of the {len(runs.names)} fused queries are among them (fused in sample)")
    fusion = fusion.checked(stacked.n_runs, trained=True)
    lists = Lists.of(stacked)
    return METHODS[fusion.method].train(lists, judge(lists, (judged_q, judged_doc, qrels.grade)),
                                        fusion.params)


def repeat_error(block, run: int):
    """The DataError of the first line (in the file) of run ``run`` that repeats a document
    of its query, among the block's queries."""
    from ...errors import DataError
    from ...formats.trec.fields import shown

    part = block.parts[run]
    docs, code = doc_codes(part.docno)
    key = part.query * max(len(docs), 1) + code
    order = np.argsort(key, kind="stable")
    again = np.flatnonzero(key[order][1:] == key[order][:-1]) + 1
    row = int(order[again].min())
    return DataError(f"document '{shown(part.docno[row])}' listed twice for query "
                     f"'{shown(block.names[int(part.query[row])].encode('utf-8'))}'", part.source, part.line(row))


def read_stacked(sources, train_qrels=None):
    """(stacked runs, query ids, docnos as ByteIds, coded training qrels or None): the runs
    read whole and stacked at once (``aggregate --optimize`` fuses them many times).

    Query ids and docnos become codes in the order of their bytes (the judged documents of
    ``train_qrels`` included), so that sorting codes sorts ids as trec_eval compares them.
    """
    from ...formats.byteids import ByteIds
    from ...formats.trec.qrels import read_qrels
    from ...formats.trec.run import read_run

    runs = [read_run(source) for source in sources]
    qrels = read_qrels(train_qrels) if train_qrels is not None else None
    extra_q = qrels.qids if qrels is not None else []
    qids = sorted({q for run in runs for q in run.qids} | set(extra_q), key=lambda q: q.encode("utf-8"))
    q_code = {q: i for i, q in enumerate(qids)}
    parts = [run.docno for run in runs] + ([qrels.docno] if qrels is not None else [])
    docs, doc_code = ByteIds.concat(parts).unique()
    at, triples = 0, []
    for run in runs:
        query = np.array([q_code[q] for q in run.qids], dtype=np.int64)[run.code] if run.n_rows else \
            np.zeros(0, np.int64)
        doc = doc_code[at:at + run.n_rows]
        at += run.n_rows
        triples.append((query, doc, run.score))
    stacked = stack_codes(triples, len(qids), len(docs))
    coded = None
    if qrels is not None:
        judged_q = np.repeat([q_code[q] for q in qrels.qids], np.diff(qrels.offsets))
        coded = (judged_q, doc_code[at:], qrels.grade)
    return stacked, qids, docs, coded
