"""Per-query values of two runs aligned on the queries both have (what paired tests read)."""

from __future__ import annotations


def common_queries(run, base) -> list:
    """The query ids of both runs, sorted."""
    return sorted(set(run.qids) & set(base.qids))


def aligned(run, name, qids):
    """The run's values of measure ``name`` for ``qids``, in that order."""
    import numpy as np

    index = {q: i for i, q in enumerate(run.qids)}
    values = run.values(name)
    return np.array([values[index[q]] for q in qids], dtype=np.float64)
