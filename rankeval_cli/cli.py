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

#: name -> one-line help, in the order ``--help`` lists them.
COMMANDS = {
    "convert": "Read a WMT, DARR, DA, JCML or canonical file; write TSV, JSONL or JCML.",
    "normalize": "Rewrite gold/pred values as ranks 1..n with a tie mode.",
    "tau": "Kendall's tau with a chosen tie convention, micro and macro.",
    "mrr": "Mean reciprocal rank of the best gold item.",
    "ndcg": "Normalized discounted cumulative gain at k.",
    "err": "Expected reciprocal rank at k.",
    "rankdcg": "rankDCG (Katerenchuk & Rosenberg 2016).",
    "report": "Every segment-level measure at once, as RankEval printed it.",
    "aggregate": "Aggregate many rankings into one system ranking.",
    "borda": "Borda count over rankings.",
    "correlate": "Correlation between system-level rankings.",
    "compare": "Compare two or more predictions with paired significance tests.",
    "power": "Topic set size and statistical power of a comparison.",
    "trec_eval": "trec_eval 10.0's command line and output (every measure, byte for byte).",
    "trec-eval": "The same as trec_eval.",
    "plot": "Figures: system rankings, metric versus human, a measure's distribution.",
    "meta-eval": "The WMT22-24 metrics table from MQM / mt-metrics-eval and metric score files.",
    "learn": "Train, apply and cross-validate rankers (RankSVM, ListNet, ListMLE, regression); BLEU features.",
    "table": "Gather the summaries of several runs into one Markdown, LaTeX or TSV table.",
    "completion": "Print the shell-completion script for bash, zsh or fish.",
}


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
        return command

    def format_commands(self, ctx, formatter):
        rows = [(name, COMMANDS[name]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _module(name: str) -> str:
    """The module of a command: ``meta-eval`` lives in ``meta_eval.py``."""
    return name.replace("-", "_")


def _module_exists(name: str) -> bool:
    return importlib.util.find_spec(f"rankeval_cli.commands.{_module(name)}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": HELP_NAMES})
@click.version_option(__version__, prog_name="rankeval")
def main():
    """Evaluate machine-predicted rankings against human (gold) rankings.

    Subcommands are Unix filters over a stream of ranking groups: canonical TSV
    (columns group, item, gold, pred, extras) or JSON lines, read from files or
    stdin (-) and written to stdout or -o FILE. Exit status: 0 success, 1 bad
    input data (one line naming file and line), 2 bad usage.

    \b
    Example:
      rankeval convert --from wmt-rr judgments.csv | rankeval tau --ties penalize
    """
