"""``rankeval err``: expected reciprocal rank at k (Avramidis 2013 §3.4, Algorithm 1)."""

from __future__ import annotations

import click

from ..vocabulary import REL_MAX_VALUES
from . import _ci, _common, _position


@click.command(name="err")
@_position.measure_options("group, items, skipped, err")
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
def command(inputs, output, position, ir, k, rel_max, resampling):
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

    parsed = parse_rel_max(rel_max, position.relevance)
    _position.run_measure(
        _position.MeasureCommand("err", err_values, "ERR" if k is None else f"ERR@{k}", dict(k=k, rel_max=parsed),
                                 dict(k=k, rel_max=format_rel_max(*parsed)), ir_options=dict(rel_max=rel_max)),
        _position.MeasureSettings(inputs, output, position, ir, resampling))
