"""The one table ``rankeval judges`` writes: every row has the same columns (:data:`COLUMNS`),
its ``section`` saying what it holds.

| section | one row per | value |
|---|---|---|
| ``labels`` | candidate, statistic (and topic with ``--per-group``) | kappa, alpha, agreement, ... |
| ``grades`` | candidate, precision or recall, reference grade | the grade's precision or recall |
| ``fleiss`` | the candidates together | Fleiss' kappa |
| ``confusion`` | candidate, reference grade, candidate grade | pairs labelled so |
| ``ranking`` | candidate, measure, statistic | tau_b, tau_ap, ..., best_rank_change |
| ``systems`` | candidate, measure, system | the system's value (``gold_value``: under the reference) |
| ``judges`` | statistic, two candidates | the difference, its interval and p-value |
| ``holes`` | qrels, statistic (and topic with ``--per-group``) | unjudged share at depth k; filled pairs |

Pooled rows have ``group`` ``all``; ``groups`` is the number of topics, ``items`` the number
of (topic, document) pairs a label statistic counts; ``cluster`` the candidate's
significance cluster for the statistic (:mod:`.versus`).
"""

from __future__ import annotations

import numpy as np

COLUMNS = ("section", "candidate", "versus", "measure", "statistic", "group", "system", "gold_grade", "pred_grade",
           "gold_value", "value", "ci_low", "ci_high", "cluster", "p_bootstrap", "groups", "items", "signature")
ALL = "all"


def _row(**fields) -> dict:
    row = {c: None for c in COLUMNS}
    row.update(fields)
    return row


def signature_of(outcome, measure=None) -> str:
    """The settings of the study (and of ``measure``, an IR measure, for its rows)."""
    from ..signature import signature

    s, r = outcome.request.settings, outcome.request
    extra = dict(rel_level=s.rel_level, test="t", alpha=s.alpha, top=s.top, k=r.k, fill=r.fill or None,
                 ci=s.level, bootstrap=s.bootstrap, seed=s.seed)
    if measure is None:
        return signature("judges", **extra)
    extra.pop("rel_level")
    return r.ir.signature(measure, judges="yes", **extra)


def study_records(outcome) -> list:
    """Every row of the table, in section order."""
    from .versus import rank_candidates
    from .ranking import LOWER_IS_BETTER

    names = [name for name, _ in outcome.request.candidates]
    low, high = _intervals(outcome)
    clusters, versus = {}, []
    for key, idx in _families(outcome.columns).items():
        ranked = rank_candidates([names[outcome.columns[i].candidate] for i in idx], outcome.values[idx],
                                 outcome.reps[:, idx], lower_is_better=key[2] in LOWER_IS_BETTER,
                                 alpha=outcome.request.settings.alpha, level=outcome.request.settings.level)
        for position, rank in zip(ranked.order, ranked.ranks):
            clusters[idx[position]] = rank
        if len(idx) > 1 and len(outcome.reps):
            versus.append((key, idx, ranked))
    rows = []
    rows += _label_rows(outcome, low, high, clusters)
    rows += _confusion_rows(outcome, names)
    rows += _ranking_rows(outcome, low, high, clusters)
    rows += _system_rows(outcome, names)
    rows += _versus_rows(outcome, names, versus)
    rows += _hole_rows(outcome, names)
    return rows


def _intervals(outcome):
    from .study import intervals

    if not len(outcome.reps):
        n = len(outcome.values)
        return np.full(n, np.nan), np.full(n, np.nan)
    return intervals(outcome.reps, outcome.request.settings.level)


def _families(columns) -> dict:
    """(section, measure, statistic, grade) -> the column of every candidate (fleiss has none)."""
    out: dict = {}
    for i, col in enumerate(columns):
        if col.candidate >= 0:
            out.setdefault((col.section, col.measure, col.statistic, col.grade), []).append(i)
    return out


def _label_rows(outcome, low, high, clusters) -> list:
    from .agreement import label_statistics

    names = [name for name, _ in outcome.request.candidates]
    sig = signature_of(outcome)
    t = len(outcome.topics)
    rows = []
    for i, col in enumerate(outcome.columns):
        if col.section not in ("labels", "grades", "fleiss"):
            continue
        items = _pairs(outcome, col)
        rows.append(_row(section=col.section, candidate=names[col.candidate] if col.candidate >= 0 else ALL,
                         statistic=col.statistic, group=ALL, gold_grade=col.grade, value=float(outcome.values[i]),
                         ci_low=float(low[i]), ci_high=float(high[i]), cluster=clusters.get(i), groups=t,
                         items=items, signature=sig))
    if outcome.request.per_topic:
        from .agreement import LABEL_STATISTICS

        conf = outcome.data.conf
        per = label_statistics(conf, outcome.data.scale, outcome.request.settings.rel_level)  # (C, T, S)
        for c, name in enumerate(names):
            for ti, topic in enumerate(outcome.topics.tolist()):
                for s, stat in enumerate(LABEL_STATISTICS):
                    rows.append(_row(section="labels", candidate=name, statistic=stat,
                                     group=outcome.labels.qids[topic], value=float(per[c, ti, s]), groups=1,
                                     items=int(conf[c, ti].sum()), signature=sig))
    return rows


def _pairs(outcome, col) -> int:
    if col.section == "fleiss":
        return int(outcome.data.fleiss[:, 0].sum())
    return int(outcome.data.conf[col.candidate].sum())


def _confusion_rows(outcome, names) -> list:
    scale = outcome.data.scale.tolist()
    sig = signature_of(outcome)
    pooled = outcome.data.conf.sum(axis=1)
    return [_row(section="confusion", candidate=name, statistic="pairs", group=ALL, gold_grade=int(a),
                 pred_grade=int(b), value=int(pooled[c, i, j]), groups=len(outcome.topics), signature=sig)
            for c, name in enumerate(names) for i, a in enumerate(scale) for j, b in enumerate(scale)]


def _ranking_rows(outcome, low, high, clusters) -> list:
    names = [name for name, _ in outcome.request.candidates]
    by_name = {m.name: m for m in outcome.request.measures}
    rows = []
    for i, col in enumerate(outcome.columns):
        if col.section != "ranking":
            continue
        rows.append(_row(section="ranking", candidate=names[col.candidate], measure=col.measure,
                         statistic=col.statistic, group=ALL, value=float(outcome.values[i]), ci_low=float(low[i]),
                         ci_high=float(high[i]), cluster=clusters.get(i), groups=len(outcome.topics),
                         signature=signature_of(outcome, by_name[col.measure])))
    return rows


def _system_rows(outcome, names) -> list:
    values = outcome.evaluated.values.mean(axis=3)  # (qrels, measures, systems)
    rows = []
    for m, measure in enumerate(outcome.request.measures):
        sig = signature_of(outcome, measure)
        for c, name in enumerate(names):
            for s, system in enumerate(outcome.evaluated.systems):
                rows.append(_row(section="systems", candidate=name, measure=measure.name, statistic="value",
                                 group=ALL, system=system, gold_value=float(values[0, m, s]),
                                 value=float(values[c + 1, m, s]), groups=len(outcome.topics), signature=sig))
    return rows


def _versus_rows(outcome, names, versus) -> list:
    by_name = {m.name: m for m in outcome.request.measures}
    rows = []
    for (section, measure, statistic, grade), idx, ranked in versus:
        sig = signature_of(outcome, by_name[measure]) if measure else signature_of(outcome)
        cands = [outcome.columns[i].candidate for i in idx]
        n = len(ranked.order)
        for a in range(n):
            for b in range(a + 1, n):
                rows.append(_row(section="judges", candidate=names[cands[ranked.order[a]]],
                                 versus=names[cands[ranked.order[b]]], measure=measure or None, statistic=statistic,
                                 group=ALL, gold_grade=grade, value=float(ranked.delta[a, b]),
                                 ci_low=float(ranked.ci_low[a, b]), ci_high=float(ranked.ci_high[a, b]),
                                 p_bootstrap=float(ranked.p[a, b]), groups=len(outcome.topics), signature=sig))
    return rows


def _hole_rows(outcome, names) -> list:
    from ..stats.resample import safe_ratio

    sig = signature_of(outcome)
    unjudged = outcome.evaluated.unjudged  # (qrels, systems, topics)
    qrels_names = [outcome.request.reference_name] + names
    defined = np.isfinite(unjudged)
    per_topic = safe_ratio(np.where(defined, unjudged, 0).sum(axis=1), defined.sum(axis=1))
    pooled = safe_ratio(np.where(defined, unjudged, 0).sum(axis=(1, 2)), defined.sum(axis=(1, 2)))
    stat = f"unjudged@{outcome.request.k}"
    rows = [_row(section="holes", candidate=q, statistic=stat, group=ALL, value=float(pooled[i]),
                 groups=len(outcome.topics), signature=sig) for i, q in enumerate(qrels_names)] \
        if outcome.request.runs else []
    if outcome.filled is not None:
        rows += [_row(section="holes", candidate=name, statistic="filled", group=ALL,
                      value=int(outcome.filled[c].sum()), groups=len(outcome.topics), signature=sig)
                 for c, name in enumerate(names)]
    if outcome.request.per_topic or outcome.filled is not None:
        for ti, topic in enumerate(outcome.topics.tolist()):
            qid = outcome.labels.qids[topic]
            if outcome.request.per_topic and outcome.request.runs:
                rows += [_row(section="holes", candidate=q, statistic=stat, group=qid, value=float(per_topic[i, ti]),
                              groups=1, signature=sig) for i, q in enumerate(qrels_names)]
            if outcome.filled is not None:
                rows += [_row(section="holes", candidate=name, statistic="filled", group=qid,
                              value=int(outcome.filled[c, ti]), groups=1, signature=sig)
                         for c, name in enumerate(names)]
    return rows
