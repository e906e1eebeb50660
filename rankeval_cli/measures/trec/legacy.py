"""The ``expected`` tie policy of the measures rankeval had before the registry: their
verified kernels (:class:`rankeval_cli.measures.ir.Evaluator`), read through a
:class:`~.queries.QueryBatch`."""

from __future__ import annotations

import numpy as np


def legacy_values(qb, kind: str, cutoffs) -> np.ndarray:
    """(queries × cut-offs) values of the legacy kernel ``kind`` (``None`` = no cut-off)
    under the expected tie policy."""
    from ..ir import Evaluator, Measure, Ranking

    def build():
        ranking = Ranking(qb.offsets, qb.rel, qb.tie_block, qb.judged_offsets, qb.judged_grade)
        return Evaluator(ranking, tie_policy="expected", rel_level=qb.level, gain="linear")

    evaluator = qb.memo("legacy_evaluator", build)
    return np.stack([evaluator.values(Measure(kind, kind, k)) for k in cutoffs], axis=1)
