"""``rankeval power``: how many topics a comparison needs, and what a finished one could detect."""

from __future__ import annotations

import click

from ..vocabulary import IR_COMPARE_MEASURES, POWER_DESIGNS, POWER_VARIANCES, SUMMARY_FORMATS
from . import _common, _ir


def _designs(ctx, param, value):
    designs = tuple(dict.fromkeys(v.strip() for text in value for v in text.split(",") if v.strip()))
    bad = [d for d in designs if d not in POWER_DESIGNS]
    if bad:
        raise click.BadParameter(f"unknown design {bad[0]!r}; expected {', '.join(POWER_DESIGNS)}")
    return designs or ("t",)


def _variance(ctx, param, value):
    if value in POWER_VARIANCES:
        return value
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected {', '.join(POWER_VARIANCES)} or a positive number") from None
    if not (number > 0 and number != float("inf")):
        raise click.BadParameter(f"{value!r}: a variance is a positive finite number")
    return number


@click.command(name="power")
@_common.input_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_ir.measure_option("TREC input: IR measures [default: map, ndcg_cut_10, P_10, recip_rank].")
@click.option("--qrels", default=None, metavar="FILE", type=click.Path(dir_okay=False),
              help="TREC qrels: the FILES are runs.")
@click.option("--items-are-systems", "items_are_systems", is_flag=True,
              help="Each group's items are the systems (as compare).")
@click.option("--values", "value_column", default=None, metavar="COLUMN",
              help="--items-are-systems: the values [default: pred].")
@_common.by_option("--items-are-systems: one estimate per value of this column.")
@click.option("--design", "designs", multiple=True, callback=_designs, metavar="t|anova|ci",
              shell_complete=_common.completion_of(POWER_DESIGNS),
              help="Paired t-test, one-way ANOVA, CI width [default: t].")
@click.option("--difference", type=_common.FiniteFloat(0, min_open=True), default=None, metavar="D",
              help="Difference to detect (anova: range; ci: width).")
@click.option("--alpha", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Level of the two-sided tests.")
@click.option("--power", "target", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.8,
              show_default=True, help="Power to reach (1 - beta).")
@click.option("--variance", default="within", show_default=True, callback=_variance,
              shell_complete=_common.completion_of(POWER_VARIANCES),
              metavar="within|residual|paired|V", help="Estimate from the data, or a given σ².")
@click.option("--systems", type=click.IntRange(min=2), default=None, metavar="M",
              help="anova: systems [default: the data's, else 2].")
@click.option("--topics", type=click.IntRange(min=2), default=None, metavar="N",
              help="Achieved power at N topics [default: the data's].")
@click.option("--pairs", is_flag=True, help="Per run against the first: its own power.")
@click.option("--all-pairs", is_flag=True, help="As --pairs, for every pair.")
@_common.handle_errors
def command(inputs, output, measures, qrels, items_are_systems, value_column, by, designs, difference, alpha, target,
            variance, systems, topics, pairs, all_pairs):
    """Topic set size and power (Sakai 2016; Webber, Moffat & Zobel 2008).

    From the variance of existing runs (TREC runs with --qrels, MT systems
    with --items-are-systems) or a given σ²: the topics needed to detect D
    with --power at --alpha, the power the data's topics achieve and the
    least difference they detect. Equations: docs/significance.md.

    \b
    Examples:
      rankeval power --qrels q.txt -m map --difference 0.05 a.run b.run
      rankeval power --variance 0.04 --difference 0.05 --design t,anova
    """
    from ..stats import power as P

    if difference is None:
        raise click.UsageError("give --difference D (the difference to detect; ci: the width)")
    given = isinstance(variance, float)
    if given and (inputs.files or qrels):
        raise click.UsageError("--variance V replaces the data: give either a number or FILES, not both")
    if (pairs or all_pairs) and given:
        raise click.UsageError("--pairs needs the runs of the finished comparison (FILES)")
    requirement = dict(alpha=alpha, power=target, difference=difference)
    rows = []
    if given:
        rows.extend(_plan_row({}, None, P.Variances(systems or 2, None, variance, variance, 2 * variance), designs,
                              requirement, systems, topics))
    else:
        for key, measure, names, matrix in _matrices(inputs, qrels, measures, items_are_systems, value_column, by):
            head = dict(zip(by, key)) | {"measure": measure}
            if pairs or all_pairs:
                rows.extend(_pair_rows(head, names, matrix, all_pairs, requirement))
                continue
            complete = matrix[:, (matrix == matrix).all(axis=0)]
            if complete.shape[1] < 2:
                where = "".join(f" {k}={v}" for k, v in zip(by, key))
                _common.warn(f"{measure}{where}: fewer than two topics every system has: no variance to estimate")
                continue
            rows.extend(_plan_row(head, variance, P.variance_estimates(complete), designs, requirement, systems,
                                  topics))
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(rows)


def _matrices(inputs, qrels, measures, items_are_systems, value_column, by):
    """(by key, measure, system names, systems × topics matrix) of the data."""
    from . import _comparison

    if items_are_systems:
        if qrels:
            raise click.UsageError("--qrels does not apply to --items-are-systems")
        for key, (names, matrix) in _comparison.item_matrices(inputs, value_column or "pred", by,
                                                              require_two=False).items():
            yield key, value_column or "pred", names, matrix
        return
    if value_column is not None:
        raise click.UsageError("--values applies to --items-are-systems")
    _ir.no_by(by)
    import numpy as np

    from ..ir.sources import Runs, evaluation_settings
    from ..ir.systems import system_matrix

    parsed = _ir.parse_measures(measures, IR_COMPARE_MEASURES)
    settings = evaluation_settings()
    runs = Runs(files=tuple(inputs.files), qrels=qrels) if qrels else Runs(batches=inputs.read())
    systems, _ = _ir.run_systems(runs, parsed, settings)
    names = [name for name, _ in systems]
    for m in parsed:
        yield (), m.name, names, np.vstack(system_matrix(systems, m, settings).raws)


def _plan_row(head: dict, source, variances, designs, requirement, systems, topics) -> list[dict]:
    """One record per design: the topics needed, and the power and least difference at the data's topics
    (``source`` None: the variance was given as σ²)."""
    from ..stats import power as P
    from ..signature import signature

    alpha, target, difference = requirement["alpha"], requirement["power"], requirement["difference"]
    n = topics or variances.topics
    label = source or "given"
    out = []
    for design in designs:
        m = systems or variances.systems
        used = variances.sigma2(source or "within") if design == "anova" else variances.sigma_d2(source or "within")
        if design == "t":
            needed = P.ttest_topics(difference, used, alpha, target)
            achieved = P.ttest_power(difference, used, n, alpha) if n else None
        elif design == "anova":
            needed = P.anova_topics(difference, used, m, alpha, target)
            achieved = P.anova_power(difference, used, m, n, alpha) if n else None
        else:
            needed, achieved = P.ci_topics(difference, used, alpha), None
        out.append(head | {
            "design": design, "variance_from": label, "variance": used, "systems": m if design == "anova" else 2,
            "groups": n, "alpha": alpha, "power": target, "difference": difference, "topics": needed,
            "achieved_power": achieved,
            "detectable": P.minimum_difference(design, used, n, alpha, target, m) if n else None,
            "signature": signature("power", design=design, variance=label)})
    return out


def _pair_rows(head: dict, names, matrix, all_pairs: bool, requirement) -> list[dict]:
    """The finished comparison: per pair its topics, σ_d², power for --difference, topics needed, least difference."""
    import numpy as np

    from ..stats import power as P
    from ..stats.effect import mean_sd
    from ..stats.comparisons import pairs_of
    from ..signature import signature

    alpha, target, difference = requirement["alpha"], requirement["power"], requirement["difference"]
    out = []
    for s, b in pairs_of(len(names), [0], all_pairs):
        both = np.isfinite(matrix[s]) & np.isfinite(matrix[b])
        d = matrix[s][both] - matrix[b][both]
        n = int(both.sum())
        var = mean_sd(d)[1] ** 2 if n >= 2 else float("nan")
        ok = var == var and var > 0
        out.append(head | {
            "system": names[s], "baseline": names[b], "design": "t", "variance_from": "pair", "variance": var,
            "groups": n, "alpha": alpha, "power": target, "difference": difference,
            "topics": P.ttest_topics(difference, var, alpha, target) if ok else None,
            "achieved_power": P.ttest_power(difference, var, n, alpha) if ok else None,
            "detectable": P.minimum_difference("t", var, n, alpha, target) if ok else None,
            "signature": signature("power", design="t", variance="pair")})
    return out
