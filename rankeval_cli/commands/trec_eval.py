"""``rankeval trec_eval`` (also ``trec-eval``): trec_eval 10.0's command line and output.

Its options are read as trec_eval reads them (glibc ``getopt_long``: bundled short options
``-qc``, attached values ``-mP.10`` ``-M100``, long options by a unique prefix, options
after the file names), so click's parser is replaced by :func:`getopt`; the click options
below document them for ``--help`` and the man page.
"""

from __future__ import annotations

import click

from ..vocabulary import TIE_POLICIES as _POLICIES
from ..vocabulary import TREC_EVAL_VERSIONS, TREC_REL_FORMATS, TREC_RESULTS_FORMATS, TREC_TIE_POLICY
from . import _common

#: trec_eval's option string and long options, and rankeval's own
SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
LONG = {  # name -> (takes a value, the short option it stands for)
    "help": (False, "h"), "version": (False, "v"), "query_eval_wanted": (False, "q"), "measure": (True, "m"),
    "complete_rel_info_wanted": (False, "c"), "level_for_rel": (True, "l"), "nosummary": (False, "n"),
    "Debug_level": (True, "D"), "Judged_docs_only": (False, "J"), "Number_docs_in_coll": (True, "N"),
    "Max_retrieved_per_topic": (True, "M"), "Rel_info_format": (True, "R"), "Results_format": (True, "T"),
    "Output_old_results_format": (True, "o"), "Zscore": (True, "Z"),
    "trec-eval-version": (True, "trec-eval-version"), "tie-policy": (True, "tie-policy"),
    "jobs": (True, "jobs"), "scheduler": (True, "scheduler"),
}
REL_FORMATS = TREC_REL_FORMATS
#: trec_eval's own first
TIE_POLICIES = (TREC_TIE_POLICY, *(p for p in _POLICIES if p != TREC_TIE_POLICY))


def _configure_executor(**settings):
    from .. import executor

    executor.configure(**settings)


def getopt(args):
    """(options as [(letter or long name, value)], operands) as glibc's getopt_long reads ``args``."""
    opts, operands = [], []
    takes = {c: SHORT[i + 1:i + 2] == ":" for i, c in enumerate(SHORT) if c != ":"}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            matches = [n for n in LONG if n == name] or [n for n in LONG if n.startswith(name)]
            if not matches:
                raise click.UsageError(f"unrecognized option '{arg}'")
            if len(matches) > 1:
                raise click.UsageError(f"option '--{name}' is ambiguous; possibilities: "
                                       + " ".join("'--" + m + "'" for m in matches))
            needs, key = LONG[matches[0]]
            if needs and not eq:
                if i >= len(args):
                    raise click.UsageError(f"option '--{matches[0]}' requires an argument")
                value, i = args[i], i + 1
            elif eq and not needs:
                raise click.UsageError(f"option '--{matches[0]}' doesn't allow an argument")
            opts.append((key, value if needs else None))
            continue
        if arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                c = arg[j]
                j += 1
                if c not in takes:
                    raise click.UsageError(f"invalid option -- '{c}'")
                if takes[c]:
                    if j < len(arg):
                        value = arg[j:]
                    elif i < len(args):
                        value, i = args[i], i + 1
                    else:
                        raise click.UsageError(f"option requires an argument -- '{c}'")
                    opts.append((c, value))
                    break
                opts.append((c, None))
            continue
        operands.append(arg)
    return opts, operands


def c_atol(text: str) -> int:
    from ..measures.trec.params import c_atol as atol

    return atol(text)


#: trec_eval's options that set a value: flags, numbers (read as C's atol reads them), texts
_FLAGS = {"v": "show_version", "q": "query", "c": "complete", "n": "nosummary", "J": "judged"}
_NUMBERS = {"l": "level", "N": "num_docs", "M": "depth"}
_TEXTS = {"R": "rel_format", "T": "results_format", "Z": "zscores"}


class GetoptCommand(click.Command):
    """A click command whose arguments are read by :func:`getopt` (trec_eval's way)."""

    def parse_args(self, ctx, args):
        if ctx.resilient_parsing:  # shell completion: click's own parser, which forgives
            return super().parse_args(ctx, args)
        opts, operands = getopt(list(args))
        if any(key == "h" for key, _ in opts):
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit()
        _configure_executor(jobs=None, scheduler=None)
        values = dict(query=False, complete=False, nosummary=False, level=1, measures=[], judged=False,
                      num_docs=0, depth=None, rel_format="qrels", results_format="trec_results", zscores=None,
                      version=10, tie_policy="trec", show_version=False)
        for key, value in opts:
            if key in _FLAGS:
                values[_FLAGS[key]] = True
            elif key in _NUMBERS:
                values[_NUMBERS[key]] = c_atol(value)
            elif key in _TEXTS:
                values[_TEXTS[key]] = value
            elif key == "m":
                values["measures"].append(value)
            elif key == "trec-eval-version":
                if value not in TREC_EVAL_VERSIONS:
                    raise click.BadParameter(f"{value!r} is not 9 or 10", ctx, param_hint="'--trec-eval-version'")
                values["version"] = int(value)
            elif key == "tie-policy":
                if value not in TIE_POLICIES:
                    raise click.BadParameter(f"{value!r} is not one of {', '.join(TIE_POLICIES)}", ctx,
                                             param_hint="'--tie-policy'")
                values["tie_policy"] = value
            elif key == "jobs":
                if not value.isdigit():
                    raise click.BadParameter(f"{value!r} is not a whole number", ctx, param_hint="'--jobs'")
                _configure_executor(jobs=int(value))
            elif key == "scheduler":
                _configure_executor(scheduler=value)
            # -D (debug level) and -o (obsolete in trec_eval) are accepted and change nothing
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

    from ..ir import trec_eval as te

    if show_version:
        click.echo(f"trec_eval version {te.VERSION_STRINGS[int(version)]} (rankeval)", err=True)
        return
    if len(files) < 2:
        raise click.UsageError("give the qrels and one or more runs: QRELS RUN...")
    if results_format != "trec_results":
        raise click.UsageError(f"Illegal retrieval results format '{results_format}'")
    if depth is not None and depth < 0:
        raise click.BadParameter("must be 0 or more", param_hint="'-M'")
    options = te.Options(per_query=query, complete=complete, summary=not nosummary, rel_level=level,
                         num_docs=num_docs or 0, max_docs=depth, judged_only=judged, rel_format=rel_format,
                         zscores=zscores, measures=list(measures), version=int(version), tie_policy=tie_policy)
    try:
        te.validate(options)
        rel_info = te.read_rel_info(rel_format, files[0]) if rel_format in REL_FORMATS else None
        for text in te.reports(options, files[0], files[1:], rel_info=rel_info):
            sys.stdout.write(text)
    except te.TrecEvalError as exc:
        raise click.UsageError(f"trec_eval: {exc}") from None
