"""TREC run files (and training qrels) stacked for fusion, ids as integer codes in byte order."""

from __future__ import annotations

import numpy as np

from .lists import Stacked, stack_codes


def locate_repeat(sources, repeated) -> None:
    """Raise the DataError (file and line) of the document a run lists twice (see lists.Repeated)."""
    from ...formats.byteids import ByteIds
    from ...formats.trec.run import read_run

    run = read_run(sources[repeated.run])
    docs, doc = ByteIds.concat([run.docno]).unique()
    check_repeats(run, np.asarray(run.code, np.int64), doc, docs, list(run.qids))


def read_stacked(sources, train_qrels=None):
    """(stacked runs, query ids, docnos as ByteIds, coded training qrels or None).

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
        coded = _coded_qrels(stacked, judged_q, doc_code[at:], qrels.grade)
    return stacked, qids, docs, coded


def _coded_qrels(stacked: Stacked, query: np.ndarray, doc: np.ndarray, grade: np.ndarray) -> tuple:
    """Training qrels in the codes of ``stacked`` (every query id has a code there)."""
    return query, doc, grade


def check_repeats(run, query: np.ndarray, doc: np.ndarray, docs, qids) -> None:
    """A document listed twice for one query of a run is an error at its second line."""
    from ...errors import DataError
    from ...formats.trec.fields import shown

    key = query * max(len(docs), 1) + doc
    order = np.argsort(key, kind="stable")
    again = np.flatnonzero(key[order][1:] == key[order][:-1]) + 1
    if len(again):
        row = int(order[again].min())  # the first repeat in the file
        d, q = shown(docs[int(doc[row])]), shown(qids[int(query[row])].encode("utf-8"))
        raise DataError(f"document '{d}' listed twice for query '{q}'", run.source,
                        run.line_of(row))
