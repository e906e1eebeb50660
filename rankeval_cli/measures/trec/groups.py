"""Measures over judgment groups (``qrels_jg``: several users' qrels of one query): each
group's value as for ordinary qrels, summed over the groups of a query and divided by
their number (when more than one).

The input is a :class:`JudgmentGroups` batch: one pseudo-query per (query, group), in the
order of the query's groups (sorted by their ids), as a
:class:`~rankeval_cli.measures.trec.queries.QueryBatch`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .precision import CUTOFFS, r_precision_multiples
from .queries import QueryBatch
from .registry import measure, one_order

GROUPS = "judgment groups are evaluated in trec_eval's order of the run"


@dataclass
class JudgmentGroups:
    """Pseudo-queries (query × judgment group) and the query each belongs to."""

    qb: QueryBatch
    query: np.ndarray  # query index of every pseudo-query, nondecreasing
    n_queries: int

    def average(self, values: np.ndarray) -> np.ndarray:
        """(queries × k) per query: Σ over its groups in order, / the number of groups if > 1."""
        groups = np.bincount(self.query, minlength=self.n_queries)
        total = np.stack([np.bincount(self.query, weights=values[:, j], minlength=self.n_queries)
                          for j in range(values.shape[1])], axis=1) if values.shape[1] else \
            np.zeros((self.n_queries, 0))
        return np.where(groups[:, None] > 1, total / np.maximum(groups, 1)[:, None], total)


@measure("map_avgjg", "m_map_avgjg.c", reads="qrels_jg", position=50, family="trec_eval", ties=one_order(GROUPS))
def map_avgjg(jg, params):
    """map_avgjg: AP per judgment group (the group's own R and judgments), averaged over the groups."""
    from .average import _ap

    return jg.average(_ap(jg.qb)[:, None])


@measure("P_avgjg", "m_P_avgjg.c", kind="cutoffs", default=CUTOFFS, reads="qrels_jg", position=51, family="trec_eval",
         ties=one_order(GROUPS))
def p_avgjg(jg, params):
    """P_avgjg_k: P_k per judgment group, averaged over the groups."""
    qb = jg.qb
    return jg.average(np.stack([qb.rel_upto(k) / k for k in params.values], axis=1))


@measure("Rprec_mult_avgjg", "m_Rprec_mult_avgjg.c", kind="fractions",
         default=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), reads="qrels_jg", position=52, family="trec_eval",
         ties=one_order(GROUPS))
def r_precision_multiples_avgjg(jg, params):
    """Rprec_mult_avgjg_x: Rprec_mult_x per judgment group (its own R), averaged over the groups."""
    return jg.average(r_precision_multiples(jg.qb, params))
