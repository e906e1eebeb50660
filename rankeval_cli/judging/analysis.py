"""A whole study: the qrels aligned, the study's topics chosen, the runs evaluated under every
qrels, the per-topic sums built, the statistics computed on the topics and their bootstrap
replicates, and the candidates ranked per statistic.

Topics: the reference's topics (those it gives a label) that some run retrieves for; a
reference topic no run has is left out with a note naming the reference's line, as are the
runs' topics the reference lacks (trec_eval skips them). With ``fill``, every candidate is
evaluated as the reference completed by it: the reference's label where it has one, the
candidate's elsewhere (label statistics still compare the candidate itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .labels import MISSING
from .study import Settings, TopicData


@dataclass(frozen=True)
class Request:
    """What a study is asked: files, measures and settings."""

    reference: str
    reference_name: str
    candidates: tuple  # (name, path)
    runs: tuple
    measures: tuple  # rankeval_cli.measures.trec.names.Measure
    ir: object  # rankeval_cli.ir.evaluate.Settings
    settings: Settings
    fill: bool = False
    k: int = 10  # depth of the unjudged share
    per_topic: bool = False


@dataclass
class Outcome:
    """Everything the records are written from."""

    request: Request
    labels: object
    topics: np.ndarray  # study topic indexes into labels.qids
    evaluated: object  # evaluation.Evaluated (qrels: reference, then candidates or filled)
    data: TopicData
    columns: list
    values: np.ndarray
    reps: np.ndarray
    filled: np.ndarray | None = None  # (candidates, topics) pairs filled from the candidate
    notes: list = field(default_factory=list)


def run_study(request: Request, warn) -> Outcome:
    from . import study
    from .evaluation import Evaluated, evaluate_runs, judgments
    from .labels import read_labels

    labels = read_labels([request.reference] + [path for _, path in request.candidates])
    topics = np.flatnonzero(np.bincount(labels.topic[labels.labelled(0)], minlength=len(labels.qids)) > 0)
    grades, filled = _evaluated_grades(labels, request.fill)
    if request.runs:
        shared = judgments(labels, grades, topics, request.measures, request.ir, request.k)
        evaluated = evaluate_runs(request.runs, shared)
        keep = _topics_in_runs(labels, topics, evaluated, request, warn)
        evaluated = _subset_topics(evaluated, keep)
        topics = topics[keep]
    else:  # the labels alone
        evaluated = Evaluated([], [], np.zeros((grades.shape[1], 0, 0, len(topics))),
                              np.zeros((grades.shape[1], 0, len(topics))), [])
    _note_candidate_gaps(labels, topics, request, warn)
    data = topic_data(labels, topics, evaluated.values, [m.name for m in request.measures], request.settings)
    if data.fleiss is None and len(request.candidates) > 1:
        warn("Fleiss' kappa: no pair of the study is labelled by every candidate")
    if len(request.candidates) < 2:
        warn("one candidate: no Fleiss' kappa and no comparison between candidates (they need two)")
    values = study.observed(data)
    reps = study.replicates(data) if request.settings.bootstrap else np.zeros((0, len(values)))
    filled_counts = _filled_counts(labels, topics, filled) if filled is not None else None
    return Outcome(request, labels, topics, evaluated, data, data.columns(), values, reps, filled_counts)


def _evaluated_grades(labels, fill: bool):
    """(pairs × qrels) grade columns the runs are evaluated under, and the fill mask."""
    if not fill:
        return labels.grades, None
    ref = labels.grades[:, :1]
    holes = ref < 0  # no reference label (absent or negative)
    cand = labels.grades[:, 1:]
    used = holes & (cand >= 0)
    filled = np.where(used, cand, np.broadcast_to(ref, cand.shape))
    filled = np.where(holes & ~used & (ref == MISSING), MISSING, filled)
    return np.concatenate([ref, filled], axis=1), used


def _filled_counts(labels, topics, used) -> np.ndarray:
    topic = labels.topic
    out = np.zeros((used.shape[1], len(topics)), np.int64)
    where = {t: i for i, t in enumerate(topics.tolist())}
    rows = np.isin(topic, topics)
    for c in range(used.shape[1]):
        hit = used[:, c] & rows
        counts = np.bincount(topic[hit], minlength=len(labels.qids))
        out[c] = [counts[t] for t in where]
    return out


def _topics_in_runs(labels, topics, evaluated, request, warn) -> np.ndarray:
    """Keep the topics some run retrieves for; note the others at the reference's line."""
    names = [labels.qids[t] for t in topics.tolist()]
    missing_everywhere = set(names)
    for missing in evaluated.missing:
        missing_everywhere &= set(missing)
    keep = np.array([n not in missing_everywhere for n in names], bool)
    for t in topics[~keep].tolist():
        warn(f"{labels.sources[0]}:{labels.first_line(0, t)}: topic {labels.qids[t]} is in no run: left out")
    partial = sum(1 for missing in evaluated.missing if set(missing) - missing_everywhere)
    if partial:
        warn(f"{partial} runs lack some of the study's topics: each counts there as an empty ranking "
             "(trec_eval -c)")
    if not keep.any():
        from ..errors import DataError

        raise DataError("no topic of the reference is in any run", request.reference)
    return keep


def _subset_topics(evaluated, keep):
    from dataclasses import replace

    return replace(evaluated, values=evaluated.values[..., keep], unjudged=evaluated.unjudged[..., keep])


def _note_candidate_gaps(labels, topics, request, warn) -> None:
    study = {labels.qids[t] for t in topics.tolist()}
    for c, (name, path) in enumerate(request.candidates):
        have = labels.topics_of(c + 1)
        lacking, extra = len(study - have), len(have - study)
        if lacking:
            warn(f"{path}: {lacking} of the study's {len(study)} topics have no judgment here: no label to "
                 "compare there, and every run gets 0 there under it" + (" (but --fill)" if request.fill else ""))
        if extra:
            warn(f"{path}: {extra} topics outside the study (not the reference's, or in no run): not used")


def topic_data(labels, topics, values, measure_names, settings: Settings) -> TopicData:
    """The per-topic sums of the study's label statistics and the runs' values."""
    from .agreement import fleiss_sums

    k = len(labels.scale)
    n_cand = labels.grades.shape[1] - 1
    topic = labels.topic
    slot = np.full(len(labels.qids), -1, np.int64)
    slot[topics] = np.arange(len(topics))
    pair_slot = slot[topic]
    ref = labels.positions(0)
    conf = np.zeros((n_cand, len(topics), k, k))
    for c in range(n_cand):
        cand = labels.positions(c + 1)
        both = (ref >= 0) & (cand >= 0) & (pair_slot >= 0)
        np.add.at(conf[c], (pair_slot[both], ref[both], cand[both]), 1.0)
    fleiss = None
    if n_cand >= 2:
        positions = np.stack([labels.positions(c + 1) for c in range(n_cand)], axis=1)
        every = (positions >= 0).all(axis=1) & (pair_slot >= 0)
        if every.any():
            fleiss = np.zeros((len(topics), 2 + k))
            for i in range(len(topics)):
                rows = every & (pair_slot == i)
                if rows.any():
                    fleiss[i] = fleiss_sums(positions[rows], k)
    return TopicData(conf, labels.scale, fleiss, n_cand, values, list(measure_names), settings)
