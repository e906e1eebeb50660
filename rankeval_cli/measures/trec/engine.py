"""Evaluating many measures of one ranking batch at once: the tie policy's order, each
measure's own settings (relevance level, judged documents only, a grade map, a cut-off),
one :class:`~.queries.QueryBatch` per distinct setting (or the batch its measures read:
diversity qrels, document groups), each registry measure computed once per parameter list."""

from __future__ import annotations

import numpy as np

from ..ir import UNJUDGED, Ranking
from ...batch import offsets_from_sizes
from .queries import BatchSettings, QueryBatch
from . import registry


class NoExpectedValue(ValueError):
    """The expected tie policy has no definition for a measure."""


def policy_order(ranking: Ranking, tie_policy: str) -> np.ndarray | None:
    """The rows' order with each tied block in the policy's order (None = unchanged):
    ``pessimistic`` worst relevance value first (not in the qrels, then unjudged, then
    grades ascending), ``optimistic`` the reverse; ``trec`` and ``expected`` keep
    trec_eval's order."""
    if tie_policy not in ("pessimistic", "optimistic") or not len(ranking.rel):
        return None
    rel = np.asarray(ranking.rel, dtype=np.float64)
    key = np.where(rel == UNJUDGED, -0.5, rel)
    return np.lexsort((key if tie_policy == "pessimistic" else -key, np.asarray(ranking.tie_block)))


def reorder(ranking: Ranking, order: np.ndarray | None) -> Ranking:
    if order is None:
        return ranking
    return Ranking(ranking.offsets, np.asarray(ranking.rel)[order], np.asarray(ranking.tie_block)[order],
                   ranking.judged_offsets, ranking.judged_grade, _rows(ranking.doc, order), ranking.judged_doc,
                   _rows(ranking.label, order), ranking.query)


def _rows(values, rows):
    return None if values is None else np.asarray(values)[rows]


def ordered(ranking: Ranking, tie_policy: str) -> Ranking:
    """The ranking in the tie policy's order (:func:`policy_order`)."""
    return reorder(ranking, policy_order(ranking, tie_policy))


def kept(ranking: Ranking, depth: int | None = None, judged_only: bool = False) -> np.ndarray | None:
    """The rows left by the first ``depth`` documents of each ranking (trec_eval -M), then
    without the documents not judged (-J: relevance value < 0); None = all."""
    rel = np.asarray(ranking.rel)
    sizes = np.diff(ranking.offsets)
    keep = np.ones(len(rel), dtype=bool)
    if depth is not None:
        group = np.repeat(np.arange(len(sizes)), sizes)
        keep &= np.arange(len(rel)) - ranking.offsets[group] < depth
    if judged_only:
        keep &= rel >= 0
    return None if keep.all() else keep


def subset(ranking: Ranking, keep: np.ndarray | None) -> Ranking:
    if keep is None:
        return ranking
    sizes = np.diff(ranking.offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    return Ranking(offsets_from_sizes(np.bincount(group[keep], minlength=len(sizes))), np.asarray(ranking.rel)[keep],
                   np.asarray(ranking.tie_block)[keep], ranking.judged_offsets, ranking.judged_grade,
                   _rows(ranking.doc, keep), ranking.judged_doc, _rows(ranking.label, keep), ranking.query)


def cut(ranking: Ranking, depth: int | None = None, judged_only: bool = False) -> Ranking:
    """The ranking cut as :func:`kept` says."""
    return subset(ranking, kept(ranking, depth, judged_only))


def remap_grades(ranking: Ranking, grade_map) -> Ranking:
    """Grades mapped (``((grade, new), ...)``, others kept; or ``("binary", ℓ)``: 1 if ≥ ℓ else 0);
    not-judged codes kept; each query's judged grades sorted again, highest first."""
    if grade_map is None:
        return ranking

    def mapped(values):
        values = np.asarray(values)
        if grade_map[0] == "binary":
            return np.where(values >= grade_map[1], 1, 0)
        out = values.astype(np.float64)
        for grade, new in grade_map:
            out[values == grade] = new
        return out

    rel = np.asarray(ranking.rel)
    new_rel = np.where(rel >= 0, mapped(np.maximum(rel, 0)), rel)
    grades = mapped(ranking.judged_grade)
    q = len(ranking.judged_offsets) - 1
    group = np.repeat(np.arange(q), np.diff(ranking.judged_offsets))
    order = np.lexsort((-grades, group))
    if np.any(new_rel != np.round(new_rel)) or np.any(grades != np.round(grades)):
        raise ValueError("gains must be integers (they replace the qrels grades)")
    return Ranking(ranking.offsets, new_rel.astype(np.int64), ranking.tie_block, ranking.judged_offsets,
                   grades[order].astype(np.int64), ranking.doc, _rows(ranking.judged_doc, order), ranking.label,
                   ranking.query)


def query_batch(ranking: Ranking, *, rel_level: int, tie_policy: str = "trec", **options) -> QueryBatch:
    """The :class:`~.queries.QueryBatch` of a ranking batch."""
    settings = BatchSettings(rel_level=rel_level, expected=tie_policy == "expected", **options)
    return QueryBatch(ranking.offsets, ranking.rel, ranking.judged_offsets, ranking.judged_grade,
                      tie_block=ranking.tie_block, settings=settings)


def compute(batch, definition: registry.Definition, params: registry.Params, expected: bool = False):
    """One measure's per-query values: (queries × values) floats, or a list of strings; under the
    expected tie policy its expected kernel, or :class:`NoExpectedValue` with its statement."""
    if expected:
        if definition.expected is None:
            note = definition.ties.note or "none is defined"
            raise NoExpectedValue(f"{definition.name}: no expected value over tied scores ({note}); "
                                  "use --tie-policy trec, pessimistic or optimistic")
        return definition.expected(batch, params)
    return definition.compute(batch, params)


def without_expected(measures) -> list:
    """The statements (``name: why``) of the measures among ``measures`` that have no expected value
    over tied scores, each once: ``--tie-policy expected`` refuses them before reading a file."""
    out = {}
    for m in measures:
        d = m.definition
        if d is not None and d.expected is None:
            out.setdefault(d.name, f"{m.name}: {d.ties.note or 'none is defined'}")
    return list(out.values())


def evaluate(ranking: Ranking, measures, *, tie_policy: str = "trec", rel_level: int = 1, gain: str = "linear",
             rel_max: float = 4.0, version: int = 10, extra=None) -> dict:
    """measure name -> per-query values, for :class:`~.registry.Measure` objects. ``extra``: what
    the measures that read more than qrels read (diversity qrels, document groups), by ``reads``."""
    out = {}
    by_variant: dict = {}
    for m in measures:
        if gain == "exp" and m.grade_map is None and (m.root == "ndcg_cut" or (m.root == "ndcg" and
                                                                                 not m.params.values)):
            m = _exp_gain(m)
        by_variant.setdefault(m.variant(rel_level), []).append(m)
    for (level, judged_only, grade_map, depth), group in by_variant.items():
        if tie_policy == "expected" and depth is not None and _splits_ties(ranking, depth):
            raise NoExpectedValue(f"{group[0].name}: no expected value over tied scores when its cut-off splits a "
                                  "block of tied scores; use --tie-policy trec, pessimistic or optimistic")
        ranked = cut(ordered(remap_grades(ranking, grade_map), tie_policy), depth, judged_only)
        batches = {"qrels": lambda: query_batch(ranked, rel_level=level, tie_policy=tie_policy, version=version,
                                                rel_max=rel_max)}
        computed: dict = {}
        for m in group:
            d = m.definition
            reads = "qrels" if d.reads == "any" else d.reads
            if reads not in batches:
                batches[reads] = _reader_batch(reads, ranked, level, tie_policy, extra)
            batch = batches[reads]
            if callable(batch):
                batch = batches[reads] = batch()
            key = (d.name, m.params)
            if key not in computed:
                computed[key] = compute(batch, d, m.params, expected=tie_policy == "expected")
            values = computed[key]
            out[m.name] = np.asarray(values)[:, m.index] if not isinstance(values, list) else values
    return out


def _splits_ties(ranking: Ranking, depth: int) -> bool:
    """Whether a query's document at ``depth`` and the next share a block of tied scores."""
    sizes = np.diff(ranking.offsets)
    rows = ranking.offsets[:-1][sizes > depth] + depth
    block = np.asarray(ranking.tie_block)
    return bool(len(rows) and np.any(block[rows - 1] == block[rows]))


def _reader_batch(reads: str, ranked: Ranking, level: int, tie_policy: str, extra):
    """The batch of the measures that read more than qrels: built by what ``extra`` holds for them."""
    build = (extra or {}).get(reads)
    if build is None:
        raise ValueError(f"these measures read {reads} judgments, which were not given")
    return lambda: build(ranked, rel_level=level, expected=tie_policy == "expected")


def _exp_gain(m):
    """nDCG with --gain exp: rankeval's kernel with gain 2^grade − 1 (trec_eval has none)."""
    from dataclasses import replace

    k = m.params.values[m.index] if m.root == "ndcg_cut" else None
    return replace(m, root="ndcg_exp", params=registry.Params((("cutoff", k),), None), index=0)

