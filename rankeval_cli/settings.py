"""What two option groups many commands share mean, as frozen values the library takes: how a
rank-position measure reads a group (:class:`Positions`) and a percentile bootstrap over groups
(:class:`Resampling`). The commands build them from their options; the measures, the IR
evaluation and the statistics read them. Imports nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass

from .vocabulary import DEFAULT_TIE_POLICY


@dataclass(frozen=True)
class Positions:
    """How a measure of rank positions (RR, NDCG, ERR, rankDCG, BPH) reads a group: the order of
    tied predictions, what gold holds, whether values are scores, and items without a prediction
    (docs/definitions.md#tie-policy)."""

    tie_policy: str = DEFAULT_TIE_POLICY
    relevance: str = "ranks"
    higher_better: bool = False
    missing_pred: str = "drop"

    def preparation(self) -> dict:
        """The keywords of :func:`rankeval_cli.measures.ties.prepare_batch`."""
        return dict(tie_policy=self.tie_policy, relevance=self.relevance, missing_pred=self.missing_pred)

    def signature(self) -> dict:
        """The signature fields: ties, relevance, scores, missing_pred."""
        return dict(ties=self.tie_policy, relevance=self.relevance, scores=self.higher_better,
                    missing_pred=self.missing_pred)


@dataclass(frozen=True)
class Resampling:
    """A percentile bootstrap over groups: interval level, replicates, seed (Efron & Tibshirani 1993)."""

    level: float
    replicates: int
    seed: int

    def signature(self) -> dict:
        """Signature fields: ci level, bootstrap replicates, seed."""
        return dict(ci=repr(float(self.level)), bootstrap=self.replicates, seed=self.seed)
