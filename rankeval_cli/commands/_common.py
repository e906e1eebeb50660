"""What every subcommand shares: input/output options, error mapping, pipes.

Command modules import only click and this module at top level; numpy and the
kernels are imported inside the command body, so ``--help`` stays fast.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys

import click

from ..errors import DataError
from ..messages import warn  # noqa: F401  (re-exported: commands call _common.warn)

INPUT_FORMATS = ("auto", "tsv", "jsonl", "jcml", "parquet", "arrow")
#: what --input-format auto recognises: the canonical encodings and JCML, read with the JCML
#: reader's defaults (gold from rank=; 'convert --from jcml' for its other options).
STREAM_FORMATS = ("tsv", "jsonl", "jcml", "parquet", "arrow")
#: formats of commands that write a stream of groups (convert adds jcml).
OUTPUT_FORMATS = ("tsv", "jsonl", "parquet", "arrow")
#: formats of commands that write summary records; tables are written when the input ends.
SUMMARY_FORMATS = ("tsv", "jsonl", "markdown", "latex", "parquet", "arrow")
#: old spellings kept for one release, accepted but not shown.
FORMAT_ALIASES = {"json": "jsonl", "md": "markdown", "tex": "latex"}


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


def higher_better_option(help_text: str, aliases=("--scores",)):
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


def jobs_options(f):
    """``-j/--jobs N`` and ``--scheduler ADDRESS``: where the command's independent work units run.

    The values are not passed to the command: they configure :mod:`rankeval_cli.executor`,
    whose ``map_units`` the kernels call, and the output is the same whichever is chosen.
    """
    f = click.option(
        "--scheduler", default=None, metavar="ADDRESS", callback=_configure_executor, expose_value=False,
        help="A dask.distributed scheduler to run on\f"
             "Run the work units on this dask.distributed scheduler (e.g. tcp://host:8786) "
             "[default: $RANKEVAL_SCHEDULER; needs the dask extra].")(f)
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=0), default=None, metavar="N", callback=_configure_executor,
        expose_value=False,
        help="Worker processes (0 = one per CPU)\f"
             "Worker processes for the independent work units; 0 = one per CPU "
             "[default: $RANKEVAL_JOBS, else 1]. The output does not depend on N.")(f)


def _configure_executor(ctx, param, value):
    """--jobs / --scheduler also set the executor's defaults for this run (kernels read them)."""
    from .. import executor

    executor.configure(**{param.name: value})
    return value


def by_option(help_text: str = "One summary per value of this column (e.g. lp)\f"
                               "One summary per value of this extra column (e.g. lp), rows keyed by its "
                               "value; repeatable. The value must be constant within a group."):
    """``--by COLUMN`` (repeatable)."""
    return click.option("--by", "by", multiple=True, metavar="COLUMN", help=help_text)


def input_options(f):
    """FILES... (default stdin), --input-format, --exclude-systems."""
    f = click.option(
        "--exclude-systems", "exclude_systems", multiple=True, metavar="PATTERN",
        help="Drop items whose id matches a shell pattern\f"
             "Drop items whose id matches this shell-style pattern (e.g. '_ref', 'Human-*'); "
             "repeatable. The number of rows dropped goes to stderr.")(f)
    f = click.option(
        "--input-format", type=click.Choice(INPUT_FORMATS), default="auto", show_default=True,
        help="Input encoding; auto sniffs JSON lines by a leading '{', JCML by '<', Parquet and "
             "Arrow by their magic bytes.")(f)
    return click.argument("files", nargs=-1, type=click.Path(allow_dash=True, dir_okay=False))(f)


def output_options(formats=OUTPUT_FORMATS, default="tsv"):
    """-o/--output (atomic) and --output-format; summary commands also get --digits."""
    tables = "markdown" in formats

    def decorate(f):
        if tables:
            f = click.option(
                "--digits", type=click.IntRange(0, 17), default=None, metavar="N", expose_value=False,
                callback=_remember_digits,
                help="Decimal places\f"
                     "Round numbers to N decimal places [default: 4 in markdown and latex tables, "
                     "every digit otherwise].")(f)
        f = click.option(
            "--output-format", type=AliasChoice(formats, FORMAT_ALIASES), default=default, show_default=True,
            help="Output encoding" + ("; markdown and latex print one table when the input ends." if tables
                                      else "."))(f)
        return click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
                            help="Write here instead of stdout\f"
                                 "Write here instead of stdout; a file is replaced only when the run succeeds; "
                                 "a .gz, .bz2 or .xz name is compressed.")(f)
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
    """Map failures to exit statuses: DataError, a failed write or running out of memory → 1 with one
    line; closed pipe → 0 quietly; Ctrl-C → 130."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except DataError as exc:
            _quiet_stdout_flush()
            click.echo(f"rankeval: {exc}", err=True)
            sys.exit(1)
        except BrokenPipeError:
            _silence_broken_pipe()
            sys.exit(0)
        except KeyboardInterrupt:
            sys.exit(130)
        except MemoryError:  # a last resort: the readers bound their memory, a measure or option may not
            _quiet_stdout_flush()
            click.echo("rankeval: out of memory (the input or the options ask for more than this machine "
                       "or its limits allow)", err=True)
            sys.exit(1)
        except OSError as exc:  # inputs and -o files map their own; this is stdout (disk full, EIO)
            _silence_broken_pipe()
            click.echo(f"rankeval: {exc.filename or '<stdout>'}: cannot write: {exc.strerror or exc}", err=True)
            sys.exit(1)
    return wrapper


def _quiet_stdout_flush():
    with contextlib.suppress(Exception):
        sys.stdout.flush()


def _silence_broken_pipe():
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush is silent."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def read_inputs(files, input_format="auto", exclude_systems=(), fmt=None, sniffable=None, **reader_options):
    """Batches from every file in turn (stdin when none), filtered by --exclude-systems.

    ``fmt`` overrides ``input_format`` (``convert --from``); ``sniffable`` names the
    formats auto-detection may pick (default: the canonical TSV and JSON lines, and JCML).
    """
    from ..formats import read
    from ..pipeline import exclude, progress
    from ..prefetch import ahead_of_files
    from ..textio import is_pipe

    sources = list(files) or ["-"]
    name = fmt or input_format

    def batches():
        for source in sources:
            yield from read(source, fmt=None if name == "auto" else name, sniffable=sniffable or STREAM_FORMATS,
                            **reader_options)

    context = click.get_current_context(silent=True)
    parsed = ahead_of_files(sources, batches)  # files are parsed a batch ahead, in a second thread
    stream = progress(parsed, fed_by_pipe=any(map(is_pipe, sources)), command=context and context.info_name)
    return exclude(stream, exclude_systems) if exclude_systems else stream


@contextlib.contextmanager
def output_stream(path):
    """The text stream for -o PATH (atomic) or stdout."""
    from ..textio import atomic_output

    with atomic_output(path) as out:
        yield out
