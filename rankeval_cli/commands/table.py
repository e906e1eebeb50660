"""``rankeval table``: the summaries of several runs gathered into one table for a paper."""

from __future__ import annotations

import click

from ..vocabulary import EFFECTS, FORMAT_ALIASES, TABLE_BEST, TABLE_FORMATS, TEXT_SUMMARY_FORMATS
from . import _common


class _TableCommand(click.Command):
    """``--ci`` was a flag before 1.0 (show the intervals the summaries have); followed by no level
    it still is, for this release: it reads as ``--ci any``."""

    def parse_args(self, ctx, args):
        args = list(args)
        for i, arg in enumerate(args):
            if arg == "--":
                break
            if arg == "--ci" and (i + 1 == len(args) or not _is_level(args[i + 1])):
                args[i] = "--ci=any"
        return super().parse_args(ctx, args)


def _is_level(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _ci_level(ctx, param, value):
    """None, ``any`` (the old flag) or a level in (0, 1)."""
    if value is None or value == "any":
        return value
    try:
        level = float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a level (e.g. 0.95)") from None
    if not 0 < level < 1:
        raise click.BadParameter(f"{value} is not in (0, 1)")
    return level


@click.command(name="table", cls=_TableCommand)
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True, dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write here instead of stdout; written to a temporary file and renamed.")
@click.option("--output-format", type=_common.AliasChoice(TEXT_SUMMARY_FORMATS, FORMAT_ALIASES),
              default="markdown", show_default=True, help="Table encoding.")
@click.option("--digits", type=click.IntRange(0, 17), default=4, show_default=True, metavar="N",
              help="Decimal places (non-zero values below half a unit of the last place in scientific notation).")
@click.option("--label", "labels", multiple=True, metavar="NAME",
              help="Name of each file's rows [default: file name]\f"
                   "Name of each file's rows, in order (repeatable) [default: the file name without its "
                   "extensions].")
@click.option("--column", "value_column", cls=_common.AliasOption, aliases=("--values",), default=None,
              metavar="COLUMN", help="The column of the numbers [default: value]\f" "The column holding the numbers [default: value; micro and macro for tau].")
@click.option("--ci", "show_ci", default=None, metavar="LEVEL", callback=_ci_level,
              help="Show the intervals (at this level, e.g. 0.95)\f"
                   "Show each value's interval [ci_low, ci_high]; the summaries' intervals must be at this "
                   "level (their signature's ci:LEVEL).")
@click.option("--alpha", type=_common.FiniteFloat(0, 1, min_open=True), default=0.05, show_default=True,
              help="Mark p-values below this [default: 0.05]\f"
                   "Mark a value whose p-value is below this: a dagger in markdown and latex, * in tsv/jsonl; "
                   "with several baselines, the letters of those it differs from.")
@click.option("--test", default=None, metavar="NAME",
              help="compare: the test that marks [default: the first]\f"
                   "compare summaries: the test whose p-values mark (p_NAME, or p_NAME_adj when compare "
                   "corrected them) [default: the first adjusted p column, else the first p column].")
@click.option("--best", type=click.Choice(TABLE_BEST), default="auto", show_default=True,
              help="Bold the best value [default: auto]\f"
                   "Bold the best value of each column: high, low or none; auto = for compare summaries, the "
                   "best by each IR measure's definition (the lowest rND, rKL, rRD, unj, rbp_resid; no bold for "
                   "counts), else the highest; none for other summaries.")
@click.option("--effect", type=click.Choice(EFFECTS), default=None,
              help="compare: an effect size in parentheses\f"
                   "compare summaries: show this effect size against the (first) baseline in parentheses.")
@click.pass_context
@_common.handle_errors
def command(ctx, files, output, output_format, digits, labels, value_column, show_ci, alpha, test, best, effect):
    """Gather the summaries of several runs into one table: a row per run,
    system or metric, a column per measure.

    FILES are summaries written by rankeval commands (tau, mrr, ndcg, err,
    rankdcg, report, compare, correlate, aggregate, ...), as TSV or JSON lines.
    A row is keyed by the file's label (when there are several files) and by
    the record's key columns: its --by columns, level, system and metric.
    A column is the record's measure (tau gives tau_micro and tau_macro); an
    aggregate table gives one column per file. Significance is marked where the
    summaries carry it: the best cluster in bold and each value's cluster as a
    superscript (aggregate --ci), a dagger where p < --alpha (compare,
    correlate). A compare summary gives one row per system; with several
    baselines (or --all-pairs) each gets a letter and a cell lists the letters
    of the baselines it differs from. A legend (test, correction, family, alpha)
    and the signatures follow a Markdown or LaTeX table.

    A meta-eval summary (or spans eval) is laid out as the WMT metrics tasks
    print it: a row per metric, best average first; the average and every
    language pair's statistics as "value (cluster rank)", the top cluster in
    bold, intervals with --ci; a legend naming the statistics, the task weights
    and the permutation test (3 decimals unless --digits).

    \b
    Examples:
      rankeval ndcg --by lp a.tsv > a.ndcg; rankeval ndcg --by lp b.tsv > b.ndcg
      rankeval table --label baseline --label new a.ndcg b.ndcg
      rankeval compare --qrels q.txt -m map,P_10 --correction holm b.run x.run > c
      rankeval table --test t --effect es_e --output-format latex c
    """
    from ..formats.summary_reader import OLD_COLUMNS
    from ..summary_table import Style, gather, legend, table_records
    from ..record_writer import RecordWriter

    files = list(files) or ["-"]  # no file: the summary on stdin
    if _judges_table(files, output, output_format, digits):
        return
    sources = [_rewindable_stdin() if f == "-" else f for f in files]
    if any(_is_metaeval(source) for source in sources):
        _check_metaeval_options(ctx, sources)
        if ctx.get_parameter_source("digits") is not click.core.ParameterSource.COMMANDLINE:
            digits = 3
        _metaeval_table(sources[0], output, output_format, digits, show_ci)
        return
    files = sources
    if labels and len(labels) != len(files):
        raise click.UsageError(f"give one --label per file ({len(files)} files, {len(labels)} labels)")
    names = list(labels) or [_stem(f) for f in files]
    table = gather(files, names, OLD_COLUMNS.get(value_column, value_column), test, effect)
    if show_ci not in (None, "any"):
        _check_level(table.signatures, show_ci)
    markup = output_format if output_format in TABLE_FORMATS else "plain"
    if best == "auto":
        best = "measure" if table.baselines or table.markings else "none"
    style = Style(digits, show_ci, alpha, markup, best, effect)
    records = table_records(table, style)
    with _common.output_stream(output) as out:
        with RecordWriter(out, output_format) as writer:
            writer.write_many(records)
        if records:
            _write_legend(out, legend(table, style), output_format)
            _write_signatures(out, table.signatures, output_format)


def _rewindable_stdin():
    """Standard input read into memory (a summary is small), so that it can be sniffed and then read:
    closing it rewinds it."""
    import io
    import sys

    class Rereadable(io.BytesIO):
        name = "<stdin>"

        def close(self):
            self.seek(0)

    return Rereadable(sys.stdin.buffer.read())


def _is_metaeval(source) -> bool:
    """Whether ``source`` is a meta-eval summary (its first record's columns); rewinds a buffer."""
    from ..errors import DataError
    from ..formats.summary_reader import read_summaries
    from ..metaeval_table import is_metaeval

    records = read_summaries(source)
    try:
        first = next(records, None)
    except DataError:
        first = None  # the ordinary path reports it
    finally:
        records.close()
    return first is not None and is_metaeval(first[1])


def _check_metaeval_options(ctx, sources) -> None:
    from click.core import ParameterSource

    if len(sources) > 1:
        raise click.UsageError("a meta-eval summary makes a table of its own: give one file")
    for name in ("labels", "value_column", "alpha", "test", "best", "effect"):
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            option = _common.shown_name(next(p for p in ctx.command.params if p.name == name))
            raise click.UsageError(f"{option} does not apply to a meta-eval summary")


def _metaeval_table(source, output, output_format, digits, show_ci) -> None:
    """The WMT layout of a meta-eval summary (:mod:`rankeval_cli.metaeval_table`)."""
    from .. import metaeval_table as mt
    from ..record_writer import RecordWriter
    from ..table_writers import signature_note

    from ..errors import DataError
    from ..inputs import source_name

    summary = mt.read(source)
    level = summary.settings.get("ci")
    if show_ci not in (None, "any") and level is not None and float(level) != show_ci:
        raise DataError(f"the intervals are at level {level}, not --ci {show_ci}", source_name(source))
    if show_ci is not None and level is None:
        _common.warn(f"{source_name(source)}: no intervals to show (meta-eval --ci LEVEL writes them)")
    markup = output_format if output_format in TABLE_FORMATS else "plain"
    style = mt.Style(digits, show_ci is not None and level is not None, markup)
    records = mt.records(summary, style)
    with _common.output_stream(output) as out:
        if output_format == "latex":
            out.write(mt.latex(summary, records))
        else:
            with RecordWriter(out, output_format) as writer:
                writer.write_many(records)
        _write_legend(out, mt.legend(summary, style), output_format)
        if output_format in TABLE_FORMATS:
            out.write(signature_note(summary.signatures, output_format))


def _judges_table(files, output, output_format, digits) -> bool:
    """A ``rankeval judges`` table is laid out by its own paper writer (one file, or stdin)."""
    from ..judging.paper import read_judges_table, write_paper

    if len(files) != 1:
        return False
    records = read_judges_table(files[0]) if files[0] != "-" else _stdin_judges(files)
    if records is None:
        return False
    with _common.output_stream(output) as out:
        write_paper(out, records, output_format, digits)
    return True


def _stdin_judges(files):
    """A judges table on stdin, told by its first line (peeked: stdin stays whole for the gathering)."""
    import sys

    from ..judging.paper import read_judges_table

    peek = getattr(sys.stdin.buffer, "peek", None)
    first = peek(1 << 16).split(b"\n", 1)[0] if peek else b""
    if not (first.startswith(b"section\tcandidate\t") or
            (first.lstrip().startswith(b"{") and b'"section"' in first and b'"candidate"' in first)):
        return None
    return read_judges_table(files[0])


def _check_level(signatures: dict, level: float) -> None:
    """Every interval of the table is at ``level`` (a summary's signature records it as ci:LEVEL)."""
    from ..errors import DataError

    for column, sigs in signatures.items():
        for sig in sigs:
            found = next((part[3:] for part in sig.split("|") if part.startswith("ci:")), None)
            if found is not None and float(found) != level:
                raise DataError(f"{column}: the intervals are at level {found}, not --ci {level} "
                                f"(signature {sig})")


def _stem(path: str) -> str:
    import os

    if path == "-" or not isinstance(path, str):
        return None  # stdin: the table names it (gather)
    name = os.path.basename(path)
    return name.split(".")[0] or name


def _write_signatures(out, signatures: dict, output_format: str) -> None:
    """One line per measure under a Markdown or LaTeX table (TSV and JSON lines stay pure records)."""
    if output_format not in TABLE_FORMATS:
        return
    lines = [f"{column}: {' ; '.join(sorted(sigs))}" for column, sigs in signatures.items()]
    if output_format == "markdown":
        out.write("\n" + "".join(f"- `{line}`\n" for line in lines))
    else:
        out.write("".join(f"% {line}\n" for line in lines))


def _write_legend(out, lines: list, output_format: str) -> None:
    """The legend under a Markdown or LaTeX table (TSV and JSON lines stay pure records)."""
    if not lines or output_format not in TABLE_FORMATS:
        return
    if output_format == "markdown":
        out.write("\n" + " ".join(lines) + "\n")
    else:
        out.write("\\par\\smallskip\n{\\footnotesize " + " ".join(lines) + "\\par}\n")
