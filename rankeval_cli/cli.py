"""The ``rankeval`` command: a click group whose subcommands load on demand.

Each subcommand lives in ``rankeval_cli/commands/<name>.py`` as ``command``.
Listing them (``rankeval --help``) uses the short help below and imports none of
them, so start-up stays cheap: no numpy, scipy or lxml until a command runs.
"""

from __future__ import annotations

import importlib
import importlib.util

import click

from ._version import __version__
from .helpformat import short_help

#: name -> one-line help (at most 56 characters: one line of ``rankeval --help``).
COMMANDS = {
    "convert": "WMT, DA, MQM, JCML, LETOR, TREC files as a stream.",
    "normalize": "Rewrite gold/pred values as ranks with a tie mode.",
    "tau": "Kendall's tau (WMT, RankEval variants): micro, macro",
    "mrr": "Mean reciprocal rank (TREC runs with --qrels).",
    "ndcg": "NDCG@k (TREC runs with --qrels).",
    "err": "Expected reciprocal rank at k (TREC runs with --qrels).",
    "rankdcg": "rankDCG (Katerenchuk & Rosenberg 2016).",
    "report": "Every measure at once; trec_eval's with --qrels.",
    "aggregate": "One system ranking of many (WMT, TrueSkill); fusion.",
    "borda": "Borda count over rankings.",
    "correlate": "Correlation of the gold and pred system rankings.",
    "compare": "Paired significance tests of two or more systems.",
    "judges": "Candidate qrels (LLM, crowd) against reference qrels.",
    "agree": "Agreement between runs: RBO with ties, tau, overlap.",
    "repro": "Reproducibility of runs: KTU, RBO, RMSE, ER, DeltaRI.",
    "power": "Topic set size and power of a comparison.",
    "trec_eval": "trec_eval 10.0's options and output, byte for byte.",
    "trec-eval": "The same as trec_eval.",
    "ndeval": "ndeval's command line and output, byte for byte.",
    "cwl_eval": "cwl_eval's command line and report (C/W/L).",
    "plot": "Figures: rankings, metric vs human, distributions.",
    "meta-eval": "The WMT22-24 metrics table (MQM, mt-metrics-eval).",
    "spans": "MQM/ESA error spans: scores, span F1 meta-evaluation.",
    "learn": "Train, apply, cross-validate rankers; BLEU features.",
    "table": "Summaries gathered into a Markdown or LaTeX table.",
    "completion": "The shell-completion script for bash, zsh or fish.",
}

#: the headings of ``rankeval --help``, each with its commands (a tuple of names shares one
#: line, described in SHARED_LINES); a command listed nowhere goes under "Other", a name
#: not installed is skipped.
TASKS = (
    ("MT evaluation (segment level)", ("tau", "report")),
    ("IR/TREC evaluation (runs and qrels)", (("trec_eval", "trec-eval"), ("ndeval", "cwl_eval"), "ndcg",
                                            ("mrr", "err", "rankdcg"))),
    ("System rankings", (("aggregate", "borda"), "correlate")),
    ("Meta-evaluation (MT metrics, relevance judges)", (("meta-eval", "judges", "spans"),)),
    ("Significance", (("compare", "power"), ("agree", "repro"))),
    ("Learning to rank", ("learn",)),
    ("Tables, figures, streams & shell", (("table", "plot"), "convert", "normalize", "completion")),
)
SHARED_LINES = {("mrr", "err", "rankdcg"): "MRR, ERR@k, rankDCG (TREC runs with --qrels).",
                ("agree", "repro"): "Runs: agreement (RBO, tau), reproducibility.",
                ("compare", "power"): "Paired tests of systems; topic set size, power.",
                ("trec_eval", "trec-eval"): "trec_eval 10.0's options and output, byte for byte.",
                ("ndeval", "cwl_eval"): "ndeval's diversity CSV; cwl_eval's C/W/L report.",
                ("aggregate", "borda"): "One system ranking of many (WMT, TrueSkill); fusion.",
                ("table", "plot"): "Markdown/LaTeX tables of summaries; figures.",
                ("meta-eval", "judges", "spans"): "WMT metrics table; judges (qrels); MQM/ESA spans."}


HELP_NAMES = ["-h", "--help"]


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand runs."""

    def list_commands(self, ctx):
        return [name for name in COMMANDS if _module_exists(name)]

    def get_command(self, ctx, name):
        if name not in COMMANDS or not _module_exists(name):
            return None
        command = importlib.import_module(f"rankeval_cli.commands.{_module(name)}").command
        # -h works however the command's context is made (click caches its help option per command)
        command.context_settings.setdefault("help_option_names", HELP_NAMES)
        return short_help(command)

    def format_commands(self, ctx, formatter):
        """The commands under their task headings, one line each (no blank line between tasks)."""
        present = self.list_commands(ctx)
        listed = {n for _, rows in TASKS for row in rows for n in ((row,) if isinstance(row, str) else row)}
        tasks = [*TASKS, ("Other", tuple(n for n in present if n not in listed))]
        lines = []
        for heading, rows in tasks:
            shown = []
            for row in rows:
                names = [n for n in ((row,) if isinstance(row, str) else row) if n in present]
                if names:
                    text = COMMANDS[names[0]] if len(names) == 1 else SHARED_LINES.get(tuple(names), "")
                    shown.append((", ".join(names), text))
            if shown:
                lines.append((heading, shown))
        width = max(len(name) for _, shown in lines for name, _ in shown) + 2
        with formatter.section("Commands by task"):
            for heading, shown in lines:
                formatter.write(f"{'':>{formatter.current_indent - 1}}{heading}:\n")
                for name, text in shown:
                    formatter.write(f"{'':>{formatter.current_indent}}{name:<{width}}{text}\n")


def call_body(command: click.Command, **params):
    """Run a command's body with click's parameters by name, its option groups built and its errors
    raised (not mapped to exit statuses): how :func:`rankeval_cli.api.evaluate` runs a command."""
    from .commands._groups import call

    return call(command.callback, **params)


def _module(name: str) -> str:
    """The module of a command: ``meta-eval`` lives in ``meta_eval.py``."""
    return name.replace("-", "_")


def _module_exists(name: str) -> bool:
    return importlib.util.find_spec(f"rankeval_cli.commands.{_module(name)}") is not None


class Size(click.ParamType):
    """A size in bytes: ``1000``, ``64K``, ``256M``, ``2G`` (powers of 1024)."""

    name = "size"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        from .inputs import parse_size

        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _set_line_cap(ctx, param, value):
    """Apply ``--max-line-bytes`` (or its environment variable) to this run; put back the old cap after."""
    from . import inputs

    if value is not None and not ctx.resilient_parsing:
        previous = inputs.set_max_line_bytes(value)
        ctx.call_on_close(lambda: inputs.set_max_line_bytes(previous))
    return value


@click.group(cls=LazyGroup, context_settings={"help_option_names": HELP_NAMES})
@click.version_option(__version__, prog_name="rankeval")
@click.option("--max-line-bytes", type=Size(), envvar="RANKEVAL_MAX_LINE_BYTES", default=None, metavar="SIZE",
              expose_value=False, is_eager=True, callback=_set_line_cap,
              help="Longest input line [default: 64M]\f"
                   "The longest input line any reader accepts, e.g. 256M [default: $RANKEVAL_MAX_LINE_BYTES, "
                   "else 64M]; a longer line is an error naming it (exit 1).")
@click.option("-q", "--quiet", is_flag=True,
              help="No notes or progress on stderr\f"
                   "No notes on stderr (counts of skipped rows, progress); errors still print.")
@click.pass_context
def main(ctx, quiet):
    """Evaluate predicted rankings against human (gold) ones: MT metrics and
    systems, IR/TREC runs as trec_eval does, system rankings, learning to rank.

    \b
    Examples:
      rankeval convert --from jcml --pred-attr unk examples/wmt10-de-en.xf.jcml \\
        | rankeval tau --tau-variant penalize --ci 0.95
      rankeval report --qrels examples/trec/qrels.txt examples/trec/bm25.run

    Streams are canonical TSV (columns group, item, gold, pred, extras), JSON
    lines or JCML. Exit status: 0 success, 1 bad input data (one line naming
    file and line), 2 bad usage. Every command's options in full: man
    rankeval-COMMAND; the vocabulary of options and columns: docs/vocabulary.md.
    """
    ctx.meta["rankeval.quiet"] = quiet


short_help(main)
