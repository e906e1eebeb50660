"""``rankeval err``: expected reciprocal rank at k (Avramidis 2013 §3.4, Algorithm 1)."""

from __future__ import annotations

import click

from ..vocabulary import IR_SUMMARY_FORMATS, REL_MAX_VALUES
from . import _ci, _common, _ir, _position


@click.command(name="err")
@_common.input_options
@_common.output_options(formats=IR_SUMMARY_FORMATS)
@_common.jobs_options
@_position.position_options("group, items, skipped, err")
@_ir.ir_options
@_position.k_option("ERR@K: stop after K positions [default: the whole list].")
@click.option("--rel-max", default=None, callback=_position.check_rel_max, metavar="MAX",
              shell_complete=_common.completion_of(REL_MAX_VALUES),
              help="Denominator 2^rel_max [default: n; grades: scale:4]\f"
                   "Denominator of R = (2^rel - 1) / 2^rel_max: n = ranked items of the group (RankEval "
                   "2013; default with --relevance ranks), scale:G = top grade G of the scale (Chapelle "
                   "et al., Yahoo! LTR, gdeval: scale:4; default with --relevance grades), list-max = the "
                   "group's highest relevance.")
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, tie_policy, relevance, higher_better,
            missing_pred, per_group, by, qrels, rel_level, depth, all_queries, k, rel_max, ci, bootstrap, seed):
    """ERR@k of the predicted order, averaged over groups.

    ERR@k = sum over r <= k of (1/r) R_r prod_{i<r} (1 - R_i), with
    R = (2^rel - 1) / 2^rel_max, computed in one pass (never by enumeration).
    --tie-policy expected is the exact mean over random orders of each tied
    block (elementary symmetric polynomials, O(m^2) per block of m items).

    With --qrels FILE the FILES are TREC runs: ERR@k as gdeval (TREC Web
    track) computes it, grades on the scale 0-4, one summary per run.

    --ci LEVEL adds a percentile bootstrap interval over groups (ci_low,
    ci_high) of the mean; see 'rankeval compare' for paired tests.

    \b
    Examples:
      rankeval err --ci 0.9 --bootstrap 2000 judgments.tsv
      rankeval err --relevance grades --rel-max scale:4 --k 20 run.tsv
      rankeval err --qrels examples/trec/qrels.txt --k 20 examples/trec/dense.run
    """
    from ..measures.err import err_values, format_rel_max, parse_rel_max

    parsed = parse_rel_max(rel_max, relevance)
    batches = _ir.single_measure(
        "ERR" if k is None else f"ERR@{k}", files=files, qrels=qrels, tie_policy=tie_policy,
        rel_level=rel_level, depth=depth, all_queries=all_queries, scores=higher_better,
        input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, ci=ci, bootstrap=bootstrap,
        seed=seed, by=by, rel_max=rel_max)
    if batches is None:
        return
    _position.run_mean_measure(
        "err", err_values, files=files, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, tie_policy=tie_policy,
        relevance=relevance, missing_pred=missing_pred, higher_better=higher_better, by=by, ci=ci, bootstrap=bootstrap,
        seed=seed, batches=batches, settings=dict(k=k, rel_max=format_rel_max(*parsed)), k=k, rel_max=parsed)
