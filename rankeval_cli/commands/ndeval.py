"""``rankeval ndeval``: ndeval's command line and output (the TREC Web track's diversity evaluation,
``ndeval.c`` 4.5). Its arguments are read as ndeval reads them (options first, each followed by
its value, then QRELS RUN), so click's parser is replaced; the click options below document them
for ``--help`` and the man page.
"""

from __future__ import annotations

import click

from . import _common

#: ndeval's options that take a value, and the flags
VALUED = ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha")


def _scan(text: str, option: str, whole: bool = False):
    """C's ``sscanf(text, "%lf" or "%d", &x)``: the number at the start of ``text``. Where ndeval would
    keep its default (no number) or take NaN or an infinity, a usage error."""
    import math
    import re

    pattern = r"\s*[-+]?\d+" if whole else r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
    match = re.match(pattern, text)
    number = None if not match else int(match.group(0)) if whole else float(match.group(0))
    if number is None or not math.isfinite(number):
        raise click.BadParameter(f"{text!r} is not a finite number.", param_hint=f"'{option}'")
    return number


def ndeval_args(args):
    """(settings, [QRELS, RUN]) as ndeval's ``main`` reads ``args``: options until two arguments are left."""
    args = list(args)
    values = dict(alpha=0.5, beta=0.5, traditional=False, depth=0, baseline=None, risk_alpha=0.0,
                  risk_alpha_text="0", complete=False, show_version=False, show_help=False)
    usage = click.UsageError("usage: rankeval ndeval [options] QRELS RUN (-help for full usage information)")
    while len(args) != 2:
        head = args[0] if args else ""
        if head in ("-version", "-help"):
            values["show_version" if head == "-version" else "show_help"] = True
            return values, []
        if head in VALUED and len(args) >= 4:
            value = args[1]
            if head == "-baseline":
                values["baseline"] = value
            elif head == "-M":
                values["depth"] = _scan(value, head, whole=True)
                if values["depth"] <= 0:
                    raise usage
            else:
                key = {"-alpha": "alpha", "-beta": "beta", "-riskAlpha": "risk_alpha"}[head]
                values[key] = _scan(value, head)
                if key == "risk_alpha":
                    values["risk_alpha_text"] = value
                if values[key] < 0 or (key != "risk_alpha" and values[key] > 1):
                    raise usage
            args = args[2:]
        elif head == "-traditional" and len(args) >= 3:
            values["traditional"], args = True, args[1:]
        elif head.startswith("-") and len(args) >= 3 and set(head[1:]) <= {"a", "c"}:
            values["complete"] = values["complete"] or "c" in head
            args = args[1:]
        else:
            raise usage
    return values, args


class NdevalCommand(click.Command):
    """A click command whose arguments are read by :func:`ndeval_args` (ndeval's way)."""

    def parse_args(self, ctx, args):
        if ctx.resilient_parsing or any(a in ("-h", "--help") for a in args):
            return super().parse_args(ctx, args)
        values, files = ndeval_args(args)
        if values.pop("show_help"):
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit()
        ctx.params.update(values, files=tuple(files))
        return []


@click.command(name="ndeval", cls=NdevalCommand)
@click.option("-alpha", "alpha", type=_common.FiniteFloat(), default=0.5, metavar="A", help="Redundancy intolerance α [default: 0.5].")
@click.option("-beta", "beta", type=_common.FiniteFloat(), default=0.5, metavar="B", help="Patience β of NRBP [default: 0.5].")
@click.option("-traditional", "traditional", is_flag=True,
              help="Order by score, then docno (not by the rank field).")
@click.option("-M", "depth", type=int, default=0, metavar="N", help="Only the first N documents of each ranking.")
@click.option("-c", "complete", is_flag=True, help="Average over every qrels topic.")
@click.option("-baseline", "baseline", metavar="RUN", help="Risk-sensitive: each value minus the baseline's.")
@click.option("-riskAlpha", "risk_alpha", type=_common.FiniteFloat(), default=0.0, metavar="A",
              help="Losses against the baseline count 1 + A times [default: 0].")
@click.option("-version", "show_version", is_flag=True, help="Print ndeval's version and exit.")
@click.argument("files", nargs=-1, metavar="QRELS RUN")
@_common.handle_errors
def command(alpha, beta, traditional, depth, complete, baseline, risk_alpha, show_version, files,
            risk_alpha_text="0"):
    """ndeval's command line and CSV output, byte for byte: the TREC Web track's
    diversity measures (ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG at 5, 10, 20, NRBP,
    nNRBP, MAP-IA, P-IA, strec) per topic and their mean. QRELS holds diversity
    judgments (topic subtopic docno judgment); the run's documents are ordered by
    their rank field unless -traditional. Options come before the files, as ndeval
    reads them; -a is accepted and changes nothing.

    \b
    Examples:
      rankeval ndeval qrels.diversity.txt run.txt
      rankeval ndeval -c -alpha 0.8 -traditional qrels.diversity.txt run.txt
      rankeval ndeval -baseline base.txt -riskAlpha 1 qrels.diversity.txt run.txt
    \f
    The same measures for any cut-off, with rankeval's tie policies and intervals:
    rankeval report --qrels QRELS -m alpha_nDCG@20,ERR_IA@20,... (docs/measures/diversity.md).
    """
    import sys

    from ..ir import ndeval

    if show_version:
        click.echo(f"ndeval: {ndeval.VERSION} (rankeval)")
        return
    if len(files) != 2:
        raise click.UsageError("give the qrels and one run: QRELS RUN")
    options = ndeval.Options(alpha=alpha, beta=beta, traditional=traditional, depth=depth or 0, baseline=baseline,
                             risk_alpha=risk_alpha, risk_alpha_text=risk_alpha_text, complete=complete)
    sys.stdout.write(ndeval.report(options, files[0], files[1]))
