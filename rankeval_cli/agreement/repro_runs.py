"""``rankeval repro`` on files: the four runs read and evaluated, the measures of :mod:`.repro`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import repro


@dataclass(frozen=True)
class ReproSettings:
    measures: tuple
    cutoffs: tuple
    p: float
    qrels: str
    qrels_repro: str | None = None


def _values(path: str, qrels: str, names: tuple, warn) -> tuple[list, dict]:
    """(query ids, measure name -> per-query values) of one run, as rankeval report --qrels evaluates it."""
    from ..ir.evaluate import Settings, evaluate_trec, measures_of

    measures = measures_of(names)
    (run,) = evaluate_trec([path], qrels, measures, Settings(), warn=warn)
    return run.qids, {m.name: np.asarray(run.values(m.name), dtype=np.float64) for m in measures}


def _aligned(qids_a, values_a, qids_b, values_b, name):
    common = [q for q in qids_a if q in set(qids_b)]
    ia, ib = {q: i for i, q in enumerate(qids_a)}, {q: i for i, q in enumerate(qids_b)}
    return (values_a[name][[ia[q] for q in common]], values_b[name][[ib[q] for q in common]], len(common))


def repro_records(paths, settings: ReproSettings, warn) -> list[dict]:
    """The records of ``rankeval repro`` (see its help)."""
    from ..errors import DataError

    orig_b, orig_a, rep_b, rep_a = paths
    replicating = settings.qrels_repro is None
    rep_qrels = settings.qrels if replicating else settings.qrels_repro
    evaluated = [_values(path, q, settings.measures, warn)
                 for path, q in ((orig_b, settings.qrels), (orig_a, settings.qrels), (rep_b, rep_qrels),
                                 (rep_a, rep_qrels))]
    (qb, vb), (qa, va), (rqb, rvb), (rqa, rva) = evaluated
    names = list(vb)
    records = []
    if replicating:
        records += _orderings(paths, settings, warn)
        for system, (qo, vo, qr, vr) in (("baseline", (qb, vb, rqb, rvb)), ("advanced", (qa, va, rqa, rva))):
            if set(qo) - set(qr):
                raise DataError(f"the reproduced {system} run lacks {len(set(qo) - set(qr))} evaluated topics of "
                                f"the original (replicability compares topic by topic)")
            for name in names:
                o, r, n = _aligned(qo, vo, qr, vr, name)
                records += [_row(system, name, "rmse", repro.rmse(o, r), n),
                            _row(system, name, "nrmse", repro.nrmse(o, r), n),
                            _row(system, name, "p_t", repro.t_test(o, r, paired=True), n)]
    else:
        for system, (vo, vr) in (("baseline", (vb, rvb)), ("advanced", (va, rva))):
            for name in names:
                records.append(_row(system, name, "p_t", repro.t_test(vo[name], vr[name], paired=False),
                                    len(vo[name])))
    for name in names:
        ob, oa, n = _aligned(qb, vb, qa, va, name)
        rb, ra, _ = _aligned(rqb, rvb, rqa, rva, name)
        records += [_row("both", name, "er", repro.effect_ratio(ob, oa, rb, ra), n),
                    _row("both", name, "dri", repro.delta_ri(ob, oa, rb, ra), n)]
    undefined = [f"{r['system']} {r['measure']} {r['statistic']}" for r in records if r["value"] is None]
    if undefined:
        warn(f"undefined (written empty): {', '.join(undefined)}")
    return records


def _row(system, measure, statistic, value, groups) -> dict:
    """A record; an undefined value (a zero denominator, fewer than two topics) is an empty field."""
    value = None if value is None or value != value else value
    return {"system": system, "measure": measure, "statistic": statistic, "value": value, "groups": groups}


def _orderings(paths, settings: ReproSettings, warn) -> list[dict]:
    """ktu@K and rbo@K of each reproduced run against its original, mean over the reproduced run's topics."""
    from .runs import EMPTY, read_runs

    runs, _ = read_runs(list(paths))
    out = []
    for system, (orig, rep) in (("baseline", (runs[0], runs[2])), ("advanced", (runs[1], runs[3]))):
        topics = sorted(rep.lists)
        missing = [q for q in topics if q not in orig.lists]
        if missing:
            warn(f"the original {system} run lacks {len(missing)} of the reproduction's topics: empty rankings there")
        for k in settings.cutoffs:
            ktu = np.array([repro.ktu(orig.lists.get(q, EMPTY), rep.lists[q], k) for q in topics])
            rbo = np.array([repro.rbo_at(orig.lists.get(q, EMPTY), rep.lists[q], settings.p, k) for q in topics])
            defined = ~np.isnan(ktu)
            out += [_row(system, f"order@{k}", "ktu", float(ktu[defined].mean()) if defined.any() else float("nan"),
                         int(defined.sum())),
                    _row(system, f"order@{k}", "rbo", float(rbo.mean()) if len(rbo) else float("nan"), len(rbo))]
    return out
