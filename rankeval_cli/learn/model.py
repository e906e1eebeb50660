"""Training a model on a table, the versioned JSON model file, and scoring with it.

A model file (``rankeval learn train -o model.json``) is one JSON object:

    {"format": "rankeval-learn-model", "version": 1, "rankeval": "<version>",
     "objective": "ranksvm", "scorer": "linear",
     "hyperparameters": {"lambda": 0.1, "max_iter": 1000, "gtol": 1e-09, "hidden": 0, "loss": "squared-hinge"},
     "relevance": "grades",
     "features": ["f1", ...], "scaling": {"mean": [...], "std": [...]},
     "weights": {"w": [...], "b": 0.0},              (mlp: {"W": [[...]], "b1": [...], "v": [...], "c": 0.0})
     "training": {"sources": [...], "groups": G, "items": N, "pairs": P, "sha256": "...",
                  "objective_value": ..., "iterations": k, "converged": true, "message": "..."}}

Floats are written with Python's shortest repr, so reading a model back gives the
same weights bit for bit. The model's *score* is higher = better; streams written
with it carry ``pred = -score`` (lower = better, the stream's convention) and the
score itself in the column ``score``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from .._version import __version__
from ..errors import DataError
from . import data
from .model_file import FORMAT, VERSION, checked_parts, read_model_file
from .scaling import Scaler
from .scorers import MLP, Linear
from .train import DEFAULTS, Solver, fit


@dataclass
class Model:
    objective: str
    features: list[str]
    scaler: Scaler
    scorer: object
    theta: np.ndarray
    hyperparameters: dict
    relevance: str
    training: dict = field(default_factory=dict)

    def scores(self, X: np.ndarray) -> np.ndarray:
        """Model scores (higher = better) of raw feature rows; an overflow gives a non-finite
        score (quietly: :func:`with_scores` reports it with its line)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            s, _ = self.scorer.scores(self.theta, self.scaler.transform(X))
        return s

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "rankeval": __version__, "objective": self.objective,
                "scorer": self.scorer.name, "hyperparameters": self.hyperparameters, "relevance": self.relevance,
                "features": self.features, "scaling": self.scaler.to_dict(),
                "weights": self.scorer.to_dict(self.theta), "training": self.training}

    def to_json(self) -> str:
        """One top-level key per line, each value compact."""
        items = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in self.to_dict().items()]
        return "{\n" + ",\n".join(items) + "\n}\n"

    @classmethod
    def from_dict(cls, obj: dict, source: str | None = None, text: str | None = None) -> "Model":
        """The model of a model file's object, every field checked (:mod:`.model_file`)."""
        parts = checked_parts(obj, source, text)
        d = len(parts["features"])
        net = Linear(d) if parts["scorer"] == "linear" else MLP(d, parts["hidden"])
        scaler = Scaler(np.array(parts["mean"], dtype=np.float64), np.array(parts["std"], dtype=np.float64))
        return cls(objective=parts["objective"], features=list(parts["features"]), scaler=scaler, scorer=net,
                   theta=net.pack(parts["weights"]), hyperparameters=dict(parts["hyperparameters"]),
                   relevance=parts["relevance"], training=dict(parts["training"]))


def load_model(path: str) -> Model:
    """The model in a model file (a path; gzip, bzip2 or xz allowed); anything else is a DataError."""
    obj, text, name = read_model_file(path)
    return Model.from_dict(obj, name, text)


def settings(objective: str, **given) -> dict:
    """Hyperparameters with defaults filled in (only those the objective uses)."""
    hp = {k: (given.get(k) if given.get(k) is not None else v) for k, v in DEFAULTS.items()}
    if objective != "ranksvm":
        hp.pop("loss")
    if hp["hidden"] and objective not in ("listnet", "listmle"):
        raise ValueError(f"--hidden applies to listnet and listmle, not {objective}")
    if not hp["hidden"]:
        hp.pop("seed")  # a linear model starts from zero: nothing random
    return hp


def train_model(table: data.Table, objective: str, hp: dict, relevance: str, report=None) -> Model:
    """Fit scaling and weights on ``table`` (blank gold rows and groups without order left out, counted)."""
    pairwise = objective != "regression"
    rows, offsets, blanks, without_order = data.training_rows(table.utility, table.offsets, pairwise)
    if report and blanks:
        report(f"training: left out {blanks} item{'s' if blanks != 1 else ''} without a gold value")
    if report and without_order:
        report(f"training: left out {without_order} group{'s' if without_order != 1 else ''} whose items all "
               "have the same gold value (no order to learn)")
    if len(rows) == 0:
        raise DataError("no training data: no group has two different gold values" if pairwise
                        else "no training data: no item has a gold value", table.sources[0] if table.sources else None)
    every = len(rows) == len(table.utility)
    X, utility = (table.X, table.utility) if every else (table.X[rows], table.utility[rows])  # no copy when all rows train
    names = list(table.names)
    constant = Scaler.fit(X).constant()
    if constant.any():
        named = [n for n, c in zip(names, constant) if c and n in table.explicit]
        if named:
            raise DataError(f"feature{'s' if len(named) > 1 else ''} constant on the training data (nothing to learn, "
                            f"cannot be scaled): {', '.join(named)}; leave {'them' if len(named) > 1 else 'it'} out "
                            "of --features", table.sources[0] if table.sources else None)
        if report:
            report(f"training: left out feature{'s' if constant.sum() > 1 else ''} constant on the training data: "
                   f"{', '.join(n for n, c in zip(names, constant) if c)}")
        X = X[:, ~constant]
        names = [n for n, c in zip(names, constant) if not c]
        if not names:
            raise DataError("every selected feature is constant on the training data",
                            table.sources[0] if table.sources else None)
    scaler = Scaler.fit(X)
    result = fit(objective, scaler.transform(X), utility, offsets, Solver.of(hp))
    if report and not result.converged:
        report(f"training: L-BFGS-B stopped after {result.iterations} iterations without converging "
               f"({result.message}); raise --max-iter")
    training = {"sources": table.sources, "groups": int(len(offsets) - 1), "items": int(len(rows)),
                "pairs": result.n_pairs, "sha256": data.data_signature(X, utility, offsets),
                "objective_value": result.value, "iterations": result.iterations, "converged": result.converged,
                "message": result.message}
    if training["pairs"] is None:
        del training["pairs"]
    return Model(objective=objective, features=names, scaler=scaler, scorer=result.scorer,
                 theta=result.theta, hyperparameters=hp, relevance=relevance, training=training)


def with_scores(batch, scores: np.ndarray, **columns):
    """The batch with pred = -score (lower = better) and the score in a ``score`` column (plus ``columns``).

    A score that is not a finite number (features so far outside the scale the model was
    trained on that the arithmetic overflows) is an error at the item's line, never a blank.
    """
    from ..formats.columns import format_numbers
    from ..formats.validate import MAX_ABS_VALUE

    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(scores) <= MAX_ABS_VALUE)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        source, line = batch.row_location(row)
        what = "beyond ±1e300" if np.isfinite(scores[row]) else "not a finite number"
        raise DataError(f"the model's score for item {batch.item[row]!r} is {what}: the model's weights and "
                        "this item's features (far outside the training data's scale?) overflow", source, line)

    extra = dict(batch.extra)
    extra["score"] = format_numbers(scores)
    for name, values in columns.items():
        extra[name] = values
    return batch.with_values(pred=0.0 - scores, extra=extra)


def predict_batches(model: Model, batches):
    """Score every item of a stream with ``model``; a feature the model needs must be in the input."""
    for batch in batches:
        if batch.n_groups == 0:
            continue
        missing = [name for name in model.features if name not in batch.extra]
        if missing:
            raise DataError(f"the model needs feature column{'s' if len(missing) > 1 else ''} missing from the input: "
                            f"{', '.join(missing)}", batch.source, None if batch.line is None or not len(batch.line)
                            else int(batch.line[0]))
        yield with_scores(batch, model.scores(data.feature_matrix(batch, model.features)))
