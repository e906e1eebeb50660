"""rankeval as an ir_measures provider: ``ir_measures.calc_aggregate`` and PyTerrier's
``pt.Experiment`` computing their measures with rankeval.

ir_measures (MacAvaney, Macdonald & Ounis 2022) sends each measure to the first *provider*
of its default pipeline that supports it (pytrec_eval, cwl_eval, pyndeval, ...). Importing
this module, or calling :func:`register`, registers the provider ``rankeval``: it is then
``ir_measures.providers.registry["rankeval"]`` and ``ir_measures.rankeval`` (chosen
explicitly: ``ir_measures.rankeval.calc_aggregate(measures, qrels, run)``), and it comes
first in ``ir_measures.DefaultPipeline`` (after the measures defined at run time), so ``ir_measures.calc_aggregate`` and
``pt.Experiment`` use it for every measure it supports and the other providers for the rest
(``register(first=False)`` puts it last: only for measures no other provider has).

A measure is supported when rankeval reads its name (:func:`rankeval_cli.measures.trec.names.parse`,
the grammar of ``rankeval report -m``): so every measure of rankeval's registry with an
ir_measures name is, and one added to the registry is without a change here, except the
measures that read more than ordinary qrels (diversity qrels, document groups), which stay with
the providers that define them. Values follow
trec_eval 10.0 (docs/ir-measures.md), as ``rankeval trec_eval`` prints them: documents of a query
ordered by score descending, ties broken by docno descending (trec_eval's convention,
which pytrec_eval shares); relevance levels, cut-offs and ``judged_only`` as ir_measures
defines them. A query of the qrels that the run lacks gets the measure's default (0), as
from every provider; a query of the run without qrels is left out.
"""

from __future__ import annotations

import ir_measures
from ir_measures.providers.base import Evaluator, Provider
from ir_measures.util import Metric

NAME = "rankeval"
#: rows of a run joined and evaluated at once (whole queries)
PART_ROWS = 1 << 19


def _parsed(measure):
    """rankeval's :class:`~rankeval_cli.measures.trec.names.Measure` of an ir_measures measure, or None."""
    from .ir.evaluate import measures_of
    from .measures.trec.names import UnknownMeasure

    try:
        found = measures_of([str(measure)])
    except (UnknownMeasure, ValueError):
        return None
    return found[0] if len(found) == 1 else None


class RankevalEvaluator(Evaluator):
    """The qrels read once; each run joined with them and evaluated in one vectorized pass."""

    def __init__(self, measures, qrels):
        from .frames import qrels_from

        measures = list(measures)
        self._qrels = qrels_from(qrels)
        self._table = [(m, _parsed(m)) for m in measures]
        super().__init__(measures, set(self._qrels.qids))

    def _iter_calc(self, run):
        from .formats.trec.join import join
        from .frames import query_parts, run_from
        from .ir.evaluate import Settings, evaluate
        from .measures.ir import ranking_from_joined

        for part in query_parts(run_from(run), PART_ROWS):  # memory: one part's join, not the run's
            joined = join(part, self._qrels)
            if joined.n_queries == 0:
                continue
            values = evaluate(ranking_from_joined(joined), [parsed for _, parsed in self._table], Settings())
            for measure, parsed in self._table:
                column = values[parsed.name].tolist()
                for qid, value in zip(joined.qids, column):
                    yield Metric(query_id=qid, measure=measure, value=value)


class RankevalProvider(Provider):
    """rankeval's measures for ir_measures (module docstring)."""

    NAME = NAME
    SUPPORTED_MEASURES = []  # any measure whose name rankeval reads: see supports

    def supports(self, measure) -> bool:
        """A measure rankeval reads that needs only the run and ordinary qrels; the diversity
        measures (subtopic qrels: ir_measures' ``iteration`` is the subtopic) and the fairness
        ones (document groups) are left to the providers that define them (pyndeval, ...)."""
        parsed = _parsed(measure)
        return parsed is not None and (parsed.definition is None or parsed.definition.reads in ("qrels", "any"))

    def _evaluator(self, measures, qrels):
        return RankevalEvaluator(measures, qrels)


def register(first: bool = True) -> RankevalProvider:
    """Register the provider with ir_measures (idempotent); ``first``: ahead of the other
    providers in the default pipeline, else after them."""
    provider = ir_measures.providers.registry.get(NAME)
    if provider is None:
        provider = ir_measures.providers.register(RankevalProvider())
    ir_measures.rankeval = provider
    pipeline = ir_measures.DefaultPipeline.providers
    if provider in pipeline:
        pipeline.remove(provider)
    runtime = 1 if pipeline and pipeline[0].NAME == "runtime" else 0  # measures defined at run time stay first
    pipeline.insert(runtime if first else len(pipeline), provider)
    return provider


register()
