"""What every subcommand shares: input/output options, error mapping, pipes.

Command modules import only click and this module at top level; numpy and the
kernels are imported inside the command body, so ``--help`` stays fast. The option
groups reach the command as frozen objects (:class:`Inputs`, :class:`Output`; see :mod:`._groups`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
from dataclasses import dataclass

import click

from .. import vocabulary
from ..errors import DataError
from ..exits import run_mapped
from ..messages import warn  # noqa: F401  (re-exported: commands call _common.warn)
from ._groups import option_group, shared_groups
from ._groups import call as _call_body


@dataclass(frozen=True)
class Inputs:
    """FILES (none: stdin), --input-format, --exclude-systems."""

    files: tuple = ()
    format: str = "auto"
    exclude_systems: tuple = ()

    def read(self, **reader_options):
        """The batches of every file in turn (:func:`read_inputs`)."""
        return read_inputs(self.files, self.format, self.exclude_systems, **reader_options)


@dataclass(frozen=True)
class Output:
    """-o/--output (a file replaced atomically, or stdout) and --output-format."""

    path: str = "-"
    format: str = "tsv"

    def stream(self):
        """The text stream to write to (:func:`output_stream`)."""
        return output_stream(self.path)


@dataclass(frozen=True)
class Parallel:
    """-j/--jobs and --scheduler: where the independent work units run."""

    jobs: int | None = None
    scheduler: str | None = None

    def configure(self) -> None:
        """Check the values and set :mod:`rankeval_cli.executor`'s defaults for this run (the kernels
        read them): :func:`configure_executor`."""
        configure_executor("jobs", self.jobs)
        configure_executor("scheduler", self.scheduler)


class AliasOption(click.Option):
    """An option that also answers to old names (``aliases``), shown neither in help nor in completion.

    The shared vocabulary renamed a few options (``--scores`` is now ``--higher-better``,
    ``--ties`` of tau ``--tau-variant``); the old names keep working for one release.
    """

    def __init__(self, param_decls=None, aliases=(), **attrs):
        self.aliases = tuple(aliases)
        super().__init__(list(param_decls or ()) + list(self.aliases), **attrs)

    def get_help_record(self, ctx):
        shown = self.opts, self.secondary_opts
        self.opts = [o for o in shown[0] if o not in self.aliases]
        self.secondary_opts = [o for o in shown[1] if o not in self.aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts, self.secondary_opts = shown


def shown_name(param: click.Option) -> str:
    """The option's long name as help shows it (not a hidden old spelling), for messages."""
    aliases = getattr(param, "aliases", ())
    return [name for name in param.opts + param.secondary_opts if name not in aliases][-1]


class AliasChoice(click.Choice):
    """A choice that also accepts old or alternative spellings of its values (not offered in help)."""

    def __init__(self, choices, aliases: dict, case_sensitive: bool = True):
        super().__init__(choices, case_sensitive)
        self.aliases = dict(aliases)

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            value = self.aliases.get(value if self.case_sensitive else value.lower(), value)
        return super().convert(value, param, ctx)


def completion_of(values):
    """A click ``shell_complete`` callback offering ``values`` (for options parsed by a callback)."""
    def complete(ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(v) for v in values if v.startswith(incomplete)]
    return complete


def higher_better_option(help_text: str = vocabulary.HIGHER_BETTER.help, aliases=("--scores",)):
    """``--higher-better``: the values ranked by are scores, higher = better (default: ranks, lower = better)."""
    return click.option("--higher-better", "higher_better", cls=AliasOption, aliases=aliases, is_flag=True,
                        help=help_text)


class FiniteFloat(click.FloatRange):
    """A float option that refuses NaN and the infinities (``nan`` and ``inf`` parse as floats,
    then pass every range check and poison the results): a usage error, exit 2.

    Takes click.FloatRange's bounds (``min``, ``max``, ``min_open``, ``max_open``).
    """

    name = "float"

    def convert(self, value, param, ctx):
        import math

        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


def utf8_text(ctx, param, value):
    """A click callback refusing text that is not valid UTF-8 (bytes the shell passed through
    undecoded): a usage error naming the option, not a traceback where the text is drawn or written."""
    for text in (value if isinstance(value, (tuple, list)) else (value,)):
        if isinstance(text, str):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                shown = os.fsencode(text).decode("utf-8", "backslashreplace")
                raise click.BadParameter(f"'{shown}' is not valid UTF-8") from None
    return value


def replicates(minimum: int = 1) -> click.IntRange:
    """The type of --bootstrap and --permutations: a whole number from ``minimum`` to
    :data:`~rankeval_cli.vocabulary.MAX_REPLICATES` (beyond it, a usage error before any work)."""
    return click.IntRange(minimum, vocabulary.MAX_REPLICATES)


def jobs_options(f):
    """``-j/--jobs N`` and ``--scheduler ADDRESS``: where the command's independent work units run.

    The values are not passed to the command: their :class:`Parallel` configures
    :mod:`rankeval_cli.executor` before the body runs, whose ``map_units`` the kernels call, and
    the output is the same whichever is chosen.
    """
    f = click.option(vocabulary.SCHEDULER.name, default=None, metavar="ADDRESS", help=vocabulary.SCHEDULER.help)(f)
    f = click.option("-j", vocabulary.JOBS.name, type=click.IntRange(min=0), default=None, metavar="N",
                     help=vocabulary.JOBS.help)(f)
    return option_group(f, None, ("jobs", "scheduler"), lambda **values: Parallel(**values).configure())


def configure_executor(name: str, value):
    """Check ``--jobs`` (with $RANKEVAL_JOBS; more than a few per CPU is capped with a note) or
    ``--scheduler`` (with $RANKEVAL_SCHEDULER) before any work starts, and configure the executor."""
    from .. import executor

    if name == "jobs":
        note = executor.jobs_note(value)  # also refuses a malformed $RANKEVAL_JOBS (exit 2)
        if note:
            warn(note)
    else:
        value = _scheduler_address(value)
    executor.configure(**{name: value})
    return value


def _scheduler_address(value):
    """--scheduler (else $RANKEVAL_SCHEDULER) parsed before dask sees it: a usage error in one line."""
    from ..scheduler_address import check_address

    try:
        return check_address(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def by_option(help_text: str = vocabulary.BY.help):
    """``--by COLUMN`` (repeatable)."""
    return click.option(vocabulary.BY.name, "by", multiple=True, metavar="COLUMN", help=help_text)


def input_options(f):
    """FILES... (default stdin), --input-format, --exclude-systems: the command's ``inputs``."""
    f = click.option(vocabulary.EXCLUDE_SYSTEMS.name, "exclude_systems", multiple=True, metavar="PATTERN",
                     help=vocabulary.EXCLUDE_SYSTEMS.help)(f)
    f = click.option(vocabulary.INPUT_FORMAT.name, type=click.Choice(vocabulary.INPUT_FORMAT.values),
                     default=vocabulary.INPUT_FORMAT.default, show_default=True, help=vocabulary.INPUT_FORMAT.help)(f)
    f = click.argument("files", nargs=-1, type=click.Path(allow_dash=True, dir_okay=False))(f)
    return option_group(f, "inputs", ("files", "input_format", "exclude_systems"),
                        lambda files, input_format, exclude_systems: Inputs(files, input_format, exclude_systems))


def output_options(formats=vocabulary.STREAM_ENCODINGS, default="tsv"):
    """-o/--output (atomic) and --output-format, the command's ``output``; summary commands also
    get --digits (read by :func:`record_writer`)."""
    tables = "markdown" in formats

    def decorate(f):
        if tables:
            f = click.option(vocabulary.DIGITS.name, type=click.IntRange(0, 17), default=None, metavar="N",
                             expose_value=False, callback=_remember_digits, help=vocabulary.DIGITS.help)(f)
        f = click.option(
            "--output-format", type=AliasChoice(formats, vocabulary.FORMAT_ALIASES), default=default, show_default=True,
            help="Output encoding" + ("; markdown and latex print one table when the input ends." if tables
                                      else "."))(f)
        f = click.option("-o", vocabulary.OUTPUT.name, type=click.Path(dir_okay=False, allow_dash=True),
                         default=vocabulary.OUTPUT.default, help=vocabulary.OUTPUT.help)(f)
        return option_group(f, "output", ("output", "output_format"),
                            lambda output, output_format: Output(output, output_format))
    return decorate


def _remember_digits(ctx, param, value):
    ctx.meta["rankeval.digits"] = value
    return value


def record_writer(out, output_format: str):
    """A :class:`~rankeval_cli.record_writer.RecordWriter` for ``out`` with this command's --digits.

    Use it as a context manager: markdown and latex tables are written when it closes.
    """
    from ..record_writer import RecordWriter

    ctx = click.get_current_context(silent=True)
    digits = ctx.meta.get("rankeval.digits") if ctx is not None else None
    return RecordWriter(out, output_format, digits=digits)


def write_summary(out, records: list[dict], output_format: str, per_group: bool, rows_out=None) -> None:
    """Summary records to the output, or to stderr after the per-group rows (``rows_out``, closed here;
    the summary on stderr is a note: ``rankeval -q`` leaves it out)."""
    from ..messages import quiet

    if per_group:
        if rows_out is not None:
            rows_out.close()
        out.flush()
        if quiet():
            return
        text = io.StringIO()
        note_format = "tsv" if output_format in vocabulary.BINARY_FORMATS else output_format  # stderr is text
        with record_writer(text, note_format) as writer:
            writer.write_many(records)
        click.echo(text.getvalue(), err=True, nl=False)
    else:
        with record_writer(out, output_format) as writer:
            writer.write_many(records)


def parsed_by(target: str, keep_text: bool = False):
    """A click callback parsing the value with ``module:function`` (under rankeval_cli, imported on use).

    The function's ValueError becomes a usage error (exit 2); None passes through;
    with ``keep_text`` the value is only checked and passed on as given.
    """
    def callback(ctx, param, value):
        if value is None:
            return None
        import importlib

        module, function = target.split(":")
        parse = getattr(importlib.import_module(f"rankeval_cli.{module}"), function)
        try:
            parsed = parse(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
        return value if keep_text else parsed
    return callback


def handle_errors(f):
    """The command's innermost decorator: builds its option groups (:mod:`._groups`), calls it,
    and maps failures to exit statuses: DataError, a failed write or running out of memory → 1
    with one line; closed pipe → 0 quietly; Ctrl-C → 130 (:func:`rankeval_cli.exits.run_mapped`)."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return run_mapped(_call_body, wrapper, *args, **kwargs)
    shared_groups(wrapper)
    return wrapper


def read_inputs(files, input_format="auto", exclude_systems=(), fmt=None, sniffable=None, **reader_options):
    """Batches from every file in turn (stdin when none), filtered by --exclude-systems.

    ``fmt`` overrides ``input_format`` (``convert --from``); ``sniffable`` names the
    formats auto-detection may pick (default: the canonical TSV and JSON lines, and JCML).
    """
    from ..formats import read
    from ..pipeline import exclude, progress
    from ..prefetch import ahead_of_files
    from ..inputs import is_pipe

    sources = list(files) or ["-"]
    name = fmt or input_format

    def batches():
        for source in sources:
            yield from read(source, fmt=None if name == "auto" else name,
                            sniffable=sniffable or vocabulary.STREAM_FORMATS, **reader_options)

    context = click.get_current_context(silent=True)
    parsed = ahead_of_files(sources, batches)  # files are parsed a batch ahead, in a second thread
    stream = progress(parsed, fed_by_pipe=any(map(is_pipe, sources)), command=context and context.info_name)
    return exclude(stream, exclude_systems) if exclude_systems else stream


@contextlib.contextmanager
def output_stream(path):
    """The text stream for -o PATH (atomic) or stdout."""
    from ..outputs import atomic_output

    with atomic_output(path) as out:
        yield out
