"""``rankeval trec_eval`` (also ``trec-eval``): trec_eval 10.0's command line and output.

Its options are read as trec_eval reads them (glibc ``getopt_long``: bundled short options
``-qc``, attached values ``-mP.10`` ``-M100``, long options by a unique prefix, options
after the file names), so click's parser is replaced by :func:`getopt`; the click options
below document them for ``--help`` and the man page.
"""

from __future__ import annotations

import click

from ..ir.trec_eval_argv import LONG, SHORT, TIE_POLICIES, ArgError, getopt, run, settings  # noqa: F401
from ..vocabulary import TREC_EVAL_VERSIONS, TREC_REL_FORMATS, TREC_RESULTS_FORMATS
from . import _common

REL_FORMATS = TREC_REL_FORMATS


def _configure_executor(**settings):
    from .. import executor

    executor.configure(**settings)


class GetoptCommand(click.Command):
    """A click command whose arguments are read by :func:`getopt` (trec_eval's way)."""

    def parse_args(self, ctx, args):
        if ctx.resilient_parsing:  # shell completion: click's own parser, which forgives
            return super().parse_args(ctx, args)
        try:
            opts, operands = getopt(list(args))
            if any(key == "h" for key, _ in opts):
                click.echo(ctx.get_help(), color=ctx.color)
                ctx.exit()
            values = settings(opts)
        except ArgError as exc:
            if exc.hint is None:
                raise click.UsageError(str(exc), ctx) from None
            raise click.BadParameter(str(exc), ctx, param_hint=exc.hint) from None
        _configure_executor(jobs=values.pop("jobs"), scheduler=values.pop("scheduler"))
        ctx.params.update(values, files=tuple(operands))
        return []


@click.command(name="trec_eval", cls=GetoptCommand)
@click.option("-q", "--query_eval_wanted", "query", is_flag=True, help="Also print each query's values.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME[.PARAMS]",
              help="Measure or set (repeatable): P.5,10, ndcg_cut.10, all_trec, ...; also P_10, "
                   "nDCG@10 [default: official].")
@click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
              help="Average over every qrels query.")
@click.option("-n", "--nosummary", is_flag=True, help="No summary (all) lines.")
@click.option("-l", "--level_for_rel", "level", type=int, default=1, metavar="N", help="Grade >= N is relevant.")
@click.option("-M", "--Max_retrieved_per_topic", "depth", type=int, metavar="N",
              help="Only the first N documents of each ranking.")
@click.option("-N", "--Number_docs_in_coll", "num_docs", type=int, metavar="N",
              help="Documents in the collection (for utility).")
@click.option("-J", "--Judged_docs_only", "judged", is_flag=True, help="Drop the unjudged documents first.")
@click.option("-R", "--Rel_info_format", "rel_format", type=click.Choice(REL_FORMATS), default="qrels",
              help="Format of QRELS.")
@click.option("-T", "--Results_format", "results_format", type=click.Choice(TREC_RESULTS_FORMATS),
              default="trec_results", help="Format of the runs.")
@click.option("-Z", "--Zscore", "zscores", metavar="FILE", help="Z-scores against FILE (qid measure mean sd).")
@click.option("-v", "--version", "show_version", is_flag=True, help="Print the emulated version and exit.")
@click.option("--trec-eval-version", "version", type=click.Choice(TREC_EVAL_VERSIONS), default="10",
              help="Reproduce trec_eval 9.0.8 or 10.0 [default: 10].")
@click.option("--tie-policy", type=click.Choice(TIE_POLICIES), default="trec",
              help="Order of tied scores [default: trec].")
@click.option("--jobs", type=click.IntRange(min=0), metavar="N",
              help="Runs evaluated in N processes at once (0: one per CPU) [default: $RANKEVAL_JOBS, else 1].")
@click.option("--scheduler", metavar="ADDRESS", help="Evaluate the runs on this dask.distributed scheduler.")
@click.argument("files", nargs=-1, metavar="QRELS RUN...")
@_common.handle_errors
def command(query, measures, complete, nosummary, level, depth, num_docs, judged, rel_format, results_format,
            zscores, show_version, version, tie_policy, files, jobs=None, scheduler=None):
    """trec_eval 10.0's command line and output, byte for byte: its measures,
    sets, options (-qc, -mP.10, -M100, long forms) and lines. RUN may be -
    (stdin); several runs print one after the other. Unlike 10.0 (exit 4), a
    qrels query missing from the run without -c is left out, as 9.0.8 does.

    \b
    Examples:
      rankeval trec_eval -q -c -m all_trec qrels.txt bm25.run
      rankeval trec_eval -m P.5,10 -m ndcg_cut.10 -M1000 qrels.txt bm25.run
      rankeval trec_eval --trec-eval-version 9 -m iprec_at_recall qrels.txt a.run
    """
    import sys

    params = dict(query=query, measures=measures, complete=complete, nosummary=nosummary, level=level,
                  depth=depth, num_docs=num_docs, judged=judged, rel_format=rel_format,
                  results_format=results_format, zscores=zscores, show_version=show_version, version=version,
                  tie_policy=tie_policy)
    try:
        run(params, files, sys.stdout)
    except ArgError as exc:
        if exc.hint is None:
            raise click.UsageError(str(exc)) from None
        raise click.BadParameter(str(exc), param_hint=exc.hint) from None
