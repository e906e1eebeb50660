"""The records ``compare`` writes from a :class:`~rankeval_cli.stats.comparisons.Outcome`: one per row,
columns in the shared vocabulary (``system``, ``baseline``, ``measure``, ``value``, ``ci_low``,
``ci_high``, ``groups``, ``delta``..., ``p_<test>``, ``p_<test>_adj``, ``family``, ``signature``);
docs/significance.md lists them."""

from __future__ import annotations


def signature_fields(settings, pairs, names, baselines=(), all_pairs: bool = False) -> dict:
    """The statistics' settings for a signature: tests, resampling, correction, the family (``all-pairs``,
    ``baseline`` = the first system, or ``baseline=NAME+NAME`` as given) and the number of systems
    (ES_E and Tukey's HSD depend on the systems compared)."""
    if all_pairs:
        family = "all-pairs"
    elif baselines:
        family = "baseline=" + "+".join(dict.fromkeys(str(names[b]) for _, b in pairs))
    else:
        family = "baseline"
    return dict(test=",".join(settings.tests), ci=repr(float(settings.level)), bootstrap=settings.bootstrap,
                permutations=settings.permutations, seed=settings.seed,
                correction=None if settings.correction == "none" else settings.correction, family=family,
                systems=len(names))


def records(outcome, systems, settings, measure: str, signature, extra=None) -> list[dict]:
    """One record per row of ``outcome`` (:class:`~rankeval_cli.stats.comparisons.Outcome`).

    ``signature`` is the signature text, or a function of the system index giving it;
    ``extra[i]`` holds columns of system i written before the signature (e.g. ``undefined``).
    """
    from .comparisons import p_column

    names = systems.names
    with_runs = any(r is not None and r.runs > 1 for r in systems.runs)
    tests = list(settings.tests)
    adjusted = [t for t in tests if any(t in r.p_adj for r in outcome.rows)]
    out = []
    for row in outcome.rows:
        paired = row.baseline is not None
        record = {"system": names[row.system], "baseline": names[row.baseline if paired else row.system],
                  "measure": measure, "value": row.value, "ci_low": row.ci_low, "ci_high": row.ci_high}
        if with_runs:
            runs = systems.runs[row.system]
            record.update(runs=runs.runs if runs else 1, runs_sd=runs.sd if runs else None,
                          runs_ci_low=runs.ci_low if runs else None, runs_ci_high=runs.ci_high if runs else None)
        record["groups"] = row.groups
        record.update(delta=row.delta, delta_ci_low=row.delta_ci_low, delta_ci_high=row.delta_ci_high)
        if systems.per_topic:
            effect = row.effect
            wtl = row.wins_ties_losses or (None, None, None)
            record.update(delta_t_ci_low=effect.ci_low if effect else None,
                          delta_t_ci_high=effect.ci_high if effect else None,
                          d_z=effect.d_z if effect else None, g_z=effect.g_z if effect else None, es_e=row.es_e,
                          wins=wtl[0], ties=wtl[1], losses=wtl[2])
        for test in tests:
            record[p_column(test)] = row.p.get(test) if paired else None
        for test in adjusted:
            record[p_column(test) + "_adj"] = row.p_adj.get(test) if paired else None
        record["family"] = row.family
        record.update((extra or {}).get(row.system, {}))
        record["signature"] = signature(row.system) if callable(signature) else signature
        out.append(record)
    return out
