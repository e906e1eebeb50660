"""Where an IR evaluation's runs come from, and which way a measure command's input goes.

A measure command (``report``, ``mrr``, ``ndcg``, ``err``, ``rankdcg``, ``compare``, ``power``)
evaluates IR runs when it is given qrels (the files are then TREC runs, :func:`.evaluate.evaluate_trec`),
when its stream was written by ``convert --from trec`` (it has a ``run`` column,
:func:`.evaluate.evaluate_stream`), or when ``-m`` names IR measures only; else its stream holds
MT rankings. :func:`tell` reads the first batch to decide, :class:`Runs` says where the runs
are, :func:`evaluation_settings` reads the options an IR evaluation takes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable

from .evaluate import Settings, evaluate_stream, evaluate_trec


@dataclass(frozen=True)
class Runs:
    """The runs to evaluate: TREC run files joined with the ``qrels`` file, or the ``batches`` of a
    canonical stream (``convert --from trec``) already opened."""

    files: tuple = ()
    qrels: str | None = None
    batches: Iterable | None = None

    @property
    def from_files(self) -> bool:
        return self.qrels is not None

    def evaluate(self, measures, settings: Settings, warn=None) -> list:
        """[RunValues] of every run (``warn`` hears of a run's queries the qrels lack)."""
        if self.from_files:
            return evaluate_trec(list(self.files) or ["-"], self.qrels, measures, settings, warn=warn)
        return evaluate_stream(self.batches, measures, settings)


def is_trec_stream(batch) -> bool:
    """A canonical stream written by ``convert --from trec`` carries a ``run`` column."""
    return "run" in batch.extra


def is_ir_name(name: str) -> bool:
    """Whether ``name`` is an IR measure's (trec_eval or ir_measures spelling)."""
    from ..measures.trec.names import UnknownMeasure, parse

    try:
        return bool(parse(name))
    except UnknownMeasure:
        return False


def tell(batches, names=(), mt_names=(), trec_output: bool = False):
    """(whether the stream holds IR runs, the stream): a ``convert --from trec`` stream, an ``-m``
    name that is an IR measure and no MT measure (``mt_names``), or trec_eval's output layout asked
    for. The first batch is read to tell; it is handed back with the rest."""
    batches = iter(batches)
    first = next(batches, None)
    rest = batches if first is None else itertools.chain([first], batches)
    if first is not None and is_trec_stream(first):
        return True, rest
    ir_only = [n for n in names if n not in mt_names and is_ir_name(n)]
    return bool(ir_only) or trec_output, rest


def err_scale(rel_max: str | None) -> float:
    """The top grade G of ERR's ``--rel-max scale:G`` (4 when not given); with TREC input ERR needs
    a fixed scale, so any other value is a ValueError."""
    from ..measures.err import parse_rel_max

    kind, top = parse_rel_max(rel_max, "grades") if rel_max else ("scale", 4.0)
    if kind != "scale":
        raise ValueError("with TREC input ERR needs a fixed scale: --rel-max scale:G")
    return top


def evaluation_settings(*, tie_policy=None, rel_level=1, depth=None, all_queries=False, gain=None, rel_max=None,
                        higher_better=False, doc_groups=None) -> Settings:
    """The :class:`~.evaluate.Settings` of the command line's options (``rel_max`` as ``--rel-max``
    gives it: :func:`err_scale`; ``doc_groups``: the document-groups file of the fairness measures)."""
    return Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                    rel_max=err_scale(rel_max), higher_better=higher_better, doc_groups=doc_groups)
