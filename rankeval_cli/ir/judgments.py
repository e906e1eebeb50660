"""trec_eval's three kinds of judgments (``-R``) for the evaluation of a run: qrels, judgment
groups (``qrels_jg``) and preferences (``prefs``, ``qrels_prefs``) read, and the per-query
batches their measures read built from a batch of the run's rankings."""

from __future__ import annotations

import numpy as np

#: the document of the ranking trec_eval 10.0 gives a query the run lacks, under -c
BOGUS_DOCNO = b"ceci_nest_pas_un_docno"


def read_rel_info(rel_format: str, path: str):
    """The judgments of ``path`` in trec_eval's ``-R`` format."""
    if rel_format == "qrels":
        from ..formats.trec.qrels import read_qrels

        return read_qrels(path)
    if rel_format == "qrels_jg":
        from ..formats.trec.qrels_jg import read_qrels_jg

        return read_qrels_jg(path)
    from ..formats.trec.prefs import read_prefs

    return read_prefs(path, qrels_layout=rel_format == "qrels_prefs")


def query_list(rel_info):
    """A qrels with the queries of judgment groups or preferences and no judgment (the join
    then only orders and groups the run)."""
    from ..formats.trec.qrels import Qrels

    qids = list(rel_info.qids)
    return Qrels(rel_info.source, qids, np.zeros(len(qids) + 1, dtype=np.int64), np.zeros(0, "S8"),
                 np.zeros(0, np.int64), np.zeros(0, np.int64))


def stand_in(joined, rel_info, reads: str):
    """trec_eval 10.0's ranking of a query the run lacks (-c): one document,
    ``ceci_nest_pas_un_docno``, with score 1 (its qrels grade if a qrels judges it).
    Returns (ranking, docno, score)."""
    from ..measures.ir import Ranking

    q = joined.n_queries
    rel = np.full(q, -1, dtype=np.int64)
    if reads == "qrels":
        index = {qid: i for i, qid in enumerate(rel_info.qids)}
        for j, qid in enumerate(joined.qids):
            i = index[qid]
            hit = np.flatnonzero(rel_info.docno[rel_info.offsets[i]:rel_info.offsets[i + 1]] == BOGUS_DOCNO)
            if len(hit):
                grade = int(rel_info.grade[rel_info.offsets[i] + hit[0]])
                rel[j] = grade if grade >= 0 else -2
    ranking = Ranking(np.arange(q + 1, dtype=np.int64), rel, np.arange(q, dtype=np.int64), joined.judged_offsets,
                      joined.judged_grade)
    return ranking, np.full(q, BOGUS_DOCNO, dtype="S24"), np.ones(q)


def judgment_group_batch(rel_info, qids, ranking, docno, options):
    """A :class:`~rankeval_cli.measures.trec.groups.JudgmentGroups` batch: one pseudo-query per
    (query, judgment group), the documents judged by that group (``-J``: the others dropped)."""
    from ..measures.ir import Ranking
    from ..measures.trec.engine import query_batch
    from ..measures.trec.groups import JudgmentGroups

    index = {q: i for i, q in enumerate(rel_info.qids)}
    offsets, rel, blocks, j_offsets, j_grade, owner = [0], [], [], [0], [], []
    for qi, qid in enumerate(qids):
        lo, hi = ranking.offsets[qi], ranking.offsets[qi + 1]
        docs, tb = docno[lo:hi], np.asarray(ranking.tie_block[lo:hi])
        for _, jdocs, jgrades in rel_info.groups[index[qid]]:
            r = _grades_of(docs, jdocs, jgrades)
            keep = r >= 0 if options.judged_only else np.ones(len(r), dtype=bool)
            rel.append(r[keep])
            blocks.append(tb[keep])
            offsets.append(offsets[-1] + int(keep.sum()))
            grades = np.sort(jgrades[jgrades >= 0])[::-1]
            j_grade.append(grades)
            j_offsets.append(j_offsets[-1] + len(grades))
            owner.append(qi)

    def joined(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    pseudo = Ranking(np.array(offsets, dtype=np.int64), joined(rel), joined(blocks),
                     np.array(j_offsets, dtype=np.int64), joined(j_grade))
    qb = query_batch(pseudo, rel_level=options.rel_level, tie_policy=options.tie_policy,
                     num_docs_in_coll=options.num_docs, version=options.version)
    return JudgmentGroups(qb, np.array(owner, dtype=np.int64), len(qids))


def _grades_of(docs, jdocs, jgrades) -> np.ndarray:
    """Relevance values of ``docs`` in one group's judgments (sorted docnos ``jdocs``)."""
    r = np.full(len(docs), -1, dtype=np.int64)
    if len(jdocs) and len(docs):
        width = max(jdocs.dtype.itemsize, docs.dtype.itemsize)
        jd, dd = jdocs.astype(f"S{width}"), docs.astype(f"S{width}")
        at = np.minimum(np.searchsorted(jd, dd), len(jd) - 1)
        found = jd[at] == dd
        g = jgrades[at[found]]
        r[found] = np.where(g >= 0, g, -2)
    return r


def preference_batch(rel_info, qids, ranking, docno, score, options):
    """A :class:`~rankeval_cli.measures.trec.preferences.PrefsBatch`: per query the preference
    counts of its retrieved documents in the order of trec_eval's preference code — score
    descending, ties by docno *ascending* (scores as C floats in trec_eval 9) — the first -M kept."""
    from ..measures.trec.preferences import PrefsBatch, query_prefs

    index = {q: i for i, q in enumerate(rel_info.qids)}
    score = np.asarray(score).astype(np.float32 if options.version < 10 else np.float64)
    out = []
    for qi, qid in enumerate(qids):
        lo, hi = ranking.offsets[qi], ranking.offsets[qi + 1]
        docs, scores = docno[lo:hi].tolist(), score[lo:hi].tolist()
        order = sorted(range(len(docs)), key=lambda i: (-scores[i], docs[i]))
        if options.max_docs is not None:
            order = order[:max(options.max_docs, 0)]
        out.append(query_prefs(rel_info.lines[index[qid]], [docs[i] for i in order], qid, rel_info.source))
    return PrefsBatch(out)
