"""Per-feature z-scores learned on the training data only and stored in the model.

x' = (x - μ) / σ, with μ and σ the mean and (population) standard deviation of the
feature over the training items. The same μ and σ are applied to any data the
model scores later (and, in cross-validation, to the held-out fold), so nothing
about held-out data leaks into the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Scaler:
    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray) -> "Scaler":
        mean = X.mean(axis=0) if len(X) else np.zeros(X.shape[1])
        std = X.std(axis=0) if len(X) else np.ones(X.shape[1])
        return cls(mean, std)

    def constant(self) -> np.ndarray:
        """Boolean per feature: zero spread on the training data (cannot be scaled)."""
        return ~(self.std > 0)

    def transform(self, X: np.ndarray) -> np.ndarray:
        return (X - self.mean) / self.std

    def to_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "std": self.std.tolist()}

    @classmethod
    def from_dict(cls, data: dict) -> "Scaler":
        return cls(np.asarray(data["mean"], dtype=np.float64), np.asarray(data["std"], dtype=np.float64))
