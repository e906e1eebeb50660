"""``rankeval cwl_eval``: cwl_eval's command line and report (C/W/L user models)."""

from __future__ import annotations

import click

from . import _common


@click.command(name="cwl_eval")
@click.argument("gain_file", type=click.Path(dir_okay=False))
@click.argument("result_file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-c", "--cost_file", metavar="FILE", help="Cost per element type (element_type cost).")
@click.option("-m", "--metrics_file", metavar="FILE", help="The models, one a line: ClassName(params).")
@click.option("-b", "--bib_file", metavar="FILE", help="Write the BibTeX of the models used here.")
@click.option("-n", "--colnames", is_flag=True, help="A header line first.")
@click.option("-r", "--residuals", is_flag=True, help="Also the residuals (unjudged at the best case).")
@click.option("--max_gain", type=_common.FiniteFloat(), default=1.0, show_default=True, metavar="G", help="Largest gain.")
@click.option("--min_gain", type=_common.FiniteFloat(), default=0.0, show_default=True, metavar="G", help="Smallest gain.")
@click.option("--max_cost", type=_common.FiniteFloat(), default=1.0, show_default=True, metavar="C", help="Largest cost.")
@click.option("--min_cost", type=_common.FiniteFloat(), default=1.0, show_default=True, metavar="C", help="Smallest cost.")
@click.option("--max_depth", type=click.IntRange(min=1), default=1000, show_default=True, metavar="N",
              help="Depth of every ranking.")
@_common.handle_errors
def command(gain_file, result_file, cost_file, metrics_file, bib_file, colnames, residuals, max_gain, min_gain,
            max_cost, min_cost, max_depth):
    """cwl_eval's command line and report: per topic and C/W/L model, the
    expected utility per item (EU), total utility (ETU), cost per item (EC),
    total cost (ETC) and depth (ED), and with -r the residual of each (the
    unjudged documents at the largest gain and the smallest cost). GAIN_FILE is
    a qrels file of gains in [min_gain, max_gain]; a topic's ranking is its lines
    of RESULT_FILE in file order.

    \b
    Examples:
      rankeval cwl_eval -n gains.qrels run.txt
      rankeval cwl_eval -r -m metrics.txt -c costs.txt gains.qrels run.txt
    \f
    A metrics file names cwl_eval's classes (PrecisionCWLMetric(k), RBPCWLMetric(theta),
    NDCGCWLMetric(k), RRCWLMetric(), APCWLMetric(), TrAPCWLMetric(), INSTCWLMetric(T),
    INSQCWLMetric(T), BPMCWLMetric(T,K), BPMDCWLMetric(T,K,hb,hc,gain_med), NERReq8CWLMetric(k) …
    NERReq11CWLMetric(T), TBGCWLMetric(halflife), UMeasureCWLMetric(L), IFTGoalCWLMetric(T,b1,R1),
    IFTRateCWLMetric(A,b2,R2), IFTGoalRateCWLMetric(T,b1,R1,A,b2,R2), SETCWLMetric(beta,k),
    NPVCWLMetric(rate)); without one, cwl_eval's sixteen defaults. The same models in report:
    -m 'INST(T=2.0,max_rel=3)' and the like (docs/measures/cwl.md).
    """
    import sys

    from ..ir import cwl_eval

    options = cwl_eval.Options(cost_file=cost_file, metrics_file=metrics_file, bib_file=bib_file, colnames=colnames,
                               residuals=residuals, max_gain=max_gain, min_gain=min_gain, max_cost=max_cost,
                               min_cost=min_cost, max_depth=max_depth)
    for line in cwl_eval.report(options, gain_file, result_file):
        sys.stdout.write(line)
