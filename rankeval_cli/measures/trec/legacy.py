"""rankeval's verified kernels of the measures it had before the registry
(:class:`rankeval_cli.measures.ir.Evaluator`: ERR, rankDCG, nDCG with exponential gain, and the
``expected`` tie policy of P, R, AP, RR, R-prec, nDCG and Success), read through a
:class:`~.queries.QueryBatch`."""

from __future__ import annotations

import numpy as np


def legacy_values(qb, kind: str, cutoffs, *, expected: bool = True, gain: str = "linear") -> np.ndarray:
    """(queries × cut-offs) values of the legacy kernel ``kind`` (``None`` = no cut-off), under
    the expected tie policy or in the batch's order."""
    from ..ir import Evaluator, Measure, Ranking

    def build():
        ranking = Ranking(qb.offsets, qb.rel, qb.tie_block if expected else np.arange(len(qb.rel)),
                          qb.judged_offsets, qb.judged_grade)
        return Evaluator(ranking, tie_policy="expected" if expected else "trec", rel_level=qb.level, gain=gain,
                         rel_max=qb.rel_max)

    evaluator = qb.memo(("legacy_evaluator", expected, gain), build)
    return np.stack([evaluator.values(Measure(kind, kind, k)) for k in cutoffs], axis=1)
