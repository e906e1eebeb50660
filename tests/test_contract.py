"""The contract every subcommand keeps, parametrized over the CLI's own command list.

Commands are discovered with ``main.list_commands``, so a command that lands later is
covered without editing this file. For each: ``--help`` exits 0; an empty input (no
bytes, a BOM, blank lines, a header) gives a well-defined result (no output, a header,
or a summary of zero groups) with exit 0; an unknown format exits 2; the same data as
TSV and as JSON lines gives byte-identical output; a closed stdout pipe ends with exit 0
and nothing on stderr; Ctrl-C exits 130 quietly.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from robust import (COMMANDS, NEEDS, NOT_STREAMS, OWN_CONTRACT, SAMPLE, STREAM_COMMANDS, Dataset, argv, check_exit,
                    invoke, option_choices, params, parse_table, run_to_closed_pipe, to_jsonl, to_tsv)

HEADER = b"group\titem\tgold\tpred\n"

SAMPLE_TSV = to_tsv(SAMPLE)
SAMPLE_JSONL = to_jsonl(SAMPLE)

EMPTY_INPUTS = {
    "no bytes": b"",
    "BOM only": b"\xef\xbb\xbf",
    "blank lines": b"\n\r\n\n",
    "header only": HEADER,
    "header, CRLF": HEADER.replace(b"\n", b"\r\n"),
    "BOM and header": b"\xef\xbb\xbf" + HEADER,
    "gzip of nothing": gzip.compress(b"", mtime=0),
}


def args_for(cmd, *extra):
    return [cmd, *NEEDS.get(cmd, []), *extra]


def assert_no_groups(output: str) -> None:
    """Empty output, a canonical header, or summary records that count zero groups."""
    lines = output.splitlines()
    if not lines:
        return
    if lines[0].startswith("{"):
        records = [json.loads(line) for line in lines]
        assert all("group" not in r for r in records), output
        assert all(r.get("groups") in (0, None) and r.get("n") in (0, None) for r in records), output
        return
    if lines[0].startswith("group\titem\tgold\tpred"):
        assert len(lines) == 1, output
        return
    if lines[0].startswith("<?xml"):  # convert --output-format jcml
        assert "<judgedsentence" not in output, output
        return
    for row in parse_table(output):
        assert "group" not in row, output
        assert row.get("groups", "0") in ("0", "") and row.get("n", "0") in ("0", ""), output


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_0(cmd, flag):
    result = invoke([cmd, flag])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Usage: main {cmd}") or result.stdout.startswith(f"Usage: rankeval {cmd}")
    assert result.stderr == ""


def test_every_listed_command_loads():
    assert {"convert", "normalize", "tau"} <= set(COMMANDS)
    assert all(invoke([cmd, "--help"]).exit_code == 0 for cmd in COMMANDS)


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
@pytest.mark.parametrize("name", list(EMPTY_INPUTS))
def test_empty_input_is_a_result_with_no_groups(cmd, name):
    result = invoke(args_for(cmd), EMPTY_INPUTS[name])
    assert check_exit(result) is None, result.stderr
    assert_no_groups(result.stdout)
    assert result.stdout == invoke(args_for(cmd), b"").stdout  # every empty input means the same


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_empty_input_in_every_output_format(cmd):
    for fmt in option_choices(cmd, "output_format"):
        result = invoke(args_for(cmd, "--output-format", fmt), b"")
        assert check_exit(result) is None, (fmt, result.stderr)
        assert_no_groups(result.stdout)


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_excluding_every_item_leaves_no_groups(cmd):
    result = invoke(args_for(cmd, "--exclude-systems", "*"), SAMPLE_TSV)
    assert check_exit(result) is None, result.stderr
    assert_no_groups(result.stdout)
    assert f"excluded {SAMPLE.n_rows} item rows" in result.stderr


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_header_only_keeps_extra_columns_or_counts_zero(cmd):
    result = invoke(args_for(cmd), b"group\titem\tgold\tpred\tlp\n")
    assert check_exit(result) is None, result.stderr
    assert_no_groups(result.stdout)
    if cmd in ("convert", "normalize"):
        assert result.stdout == "group\titem\tgold\tpred\tlp\n"


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_unknown_formats_exit_2(cmd):
    if "input_format" in params(cmd):
        result = invoke(args_for(cmd, "--input-format", "xml"), SAMPLE_TSV)
        assert result.exit_code == 2 and "Invalid value for '--input-format'" in result.stderr
    if "output_format" in params(cmd):
        result = invoke(args_for(cmd, "--output-format", "xml"), SAMPLE_TSV)
        assert result.exit_code == 2 and "Invalid value for '--output-format'" in result.stderr
    assert invoke(args_for(cmd, "--no-such-option"), SAMPLE_TSV).exit_code == 2


def test_unknown_command_and_reader_exit_2():
    assert invoke(["no-such-command"]).exit_code == 2
    assert invoke(["convert", "--from", "xml"], SAMPLE_TSV).exit_code == 2
    if "completion" in COMMANDS:
        assert invoke(["completion", "tcsh"]).exit_code == 2


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_tsv_and_jsonl_give_identical_output(cmd):
    assert invoke(args_for(cmd), SAMPLE_TSV).exit_code == 0
    for fmt in option_choices(cmd, "output_format") or (None,):
        extra = ["--output-format", fmt] if fmt else []
        from_tsv = invoke(args_for(cmd, *extra), SAMPLE_TSV)
        from_jsonl = invoke(args_for(cmd, *extra), SAMPLE_JSONL)
        assert check_exit(from_tsv) is None and check_exit(from_jsonl) is None, from_tsv.stderr + from_jsonl.stderr
        assert from_tsv.stdout == from_jsonl.stdout, (cmd, fmt)
        assert from_tsv.stderr == from_jsonl.stderr, (cmd, fmt)
        named = invoke(args_for(cmd, *extra, "--input-format", "jsonl"), SAMPLE_JSONL)
        assert named.stdout == from_jsonl.stdout


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_per_group_rows_also_identical_for_tsv_and_jsonl(cmd):
    if "per_group" not in params(cmd):
        pytest.skip(f"{cmd} has no --per-group")
    from_tsv = invoke(args_for(cmd, "--per-group"), SAMPLE_TSV)
    from_jsonl = invoke(args_for(cmd, "--per-group"), SAMPLE_JSONL)
    assert from_tsv.exit_code == from_jsonl.exit_code == 0
    assert (from_tsv.stdout, from_tsv.stderr) == (from_jsonl.stdout, from_jsonl.stderr)


BIG_TSV = HEADER + b"".join(b"g%d\ti%d\t%d\t%d\n" % (g, i, i, (g * i) % 5) for g in range(4000) for i in range(5))


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_closed_pipe_ends_quietly(cmd):
    extra = ["--per-group"] if "per_group" in params(cmd) else []
    proc = run_to_closed_pipe(args_for(cmd, *extra), BIG_TSV)
    assert (proc.returncode, proc.stderr.decode()) == (0, "")


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_closed_pipe_ends_quietly_reading_a_file(cmd, tmp_path):
    """A file is parsed ahead in a second thread: a closed stdout still ends quietly."""
    path = tmp_path / "big.tsv"
    path.write_bytes(BIG_TSV)
    extra = ["--per-group"] if "per_group" in params(cmd) else []
    proc = run_to_closed_pipe(args_for(cmd, *extra, str(path)), b"")
    assert (proc.returncode, proc.stderr.decode()) == (0, "")


def test_sigint_while_reading_a_file_exits_130(tmp_path):
    """SIGINT with the read-ahead thread busy on a large file: exit 130, nothing on stderr."""
    path = tmp_path / "big.tsv"
    rows = "".join(f"g{g}\ti{i}\t{i}\t{(g * i) % 5}\n" for g in range(1_000_000) for i in range(5))
    path.write_bytes(HEADER + rows.encode())
    proc = subprocess.Popen([sys.executable, "-m", "rankeval_cli", "report", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, RANKEVAL_PROGRESS="0"))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # wait until the file is open
        with contextlib.suppress(OSError):
            if any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{proc.pid}/fd")):
                break
        time.sleep(0.01)
    assert proc.poll() is None, "finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (130, b""), err


def test_closed_pipe_small_summary_ends_quietly():
    proc = run_to_closed_pipe(["tau"], SAMPLE_TSV)
    assert (proc.returncode, proc.stderr.decode()) == (0, "")


@pytest.mark.parametrize("cmd", STREAM_COMMANDS)
def test_interrupt_exits_130_quietly(cmd, monkeypatch):
    import rankeval_cli.formats as formats

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
        yield  # a generator, as a reader is

    monkeypatch.setattr(formats, "read", interrupted)
    result = invoke(args_for(cmd), SAMPLE_TSV)
    assert result.exit_code == 130
    assert result.stdout == "" and result.stderr == ""


def test_sigint_while_reading_stdin_exits_130():
    proc = subprocess.Popen([sys.executable, "-m", "rankeval_cli", "tau"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(HEADER)
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until it blocks reading stdin (imports done)
        try:
            with open(f"/proc/{proc.pid}/wchan") as f:
                if "pipe" in f.read():
                    break
        except OSError:
            time.sleep(3)
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == b"", err


def test_not_stream_commands_are_known():
    """Commands left out of the stream contracts are listed here on purpose."""
    assert NOT_STREAMS <= set(COMMANDS) | {"completion"}
    for cmd in NOT_STREAMS & set(COMMANDS) - OWN_CONTRACT:
        # no input stream at all, or FILES that are summaries (table) rather than canonical streams
        assert "files" not in params(cmd) or "input_format" not in params(cmd)


# --- documented limits (README "Limits") -----------------------------------------------------------

def test_the_documented_limits():
    from rankeval_cli.formats import validate
    from rankeval_cli.measures import tau

    assert validate.MAX_ABS_VALUE == 1e300
    assert validate.MAX_GROUP_ITEMS == 2**20
    assert tau.CALIBRATION_MAX_PAIRS == 20_000_000


@pytest.mark.parametrize("value", ["1.0000000000000002e300", "-1.0000000000000002e300", "1e301", "1e308"])
def test_values_beyond_the_range_are_refused_with_their_line(value):
    edge = "g\ta\t1e300\t-1e300\n"
    assert invoke(["tau"], HEADER.decode() + edge).exit_code == 0
    for row in (f"g\tb\t{value}\t1\n", f"g\tb\t1\t{value}\n"):
        message = check_exit(invoke(["tau"], HEADER.decode() + edge + row), line=3)
        assert "outside the supported range [-1e+300, 1e+300]" in message
    jsonl = '{"group": "g", "items": ["a", "b"], "gold": [1e300, %s], "pred": [1, 2]}\n' % value
    assert "outside the supported range" in check_exit(invoke(["tau"], '{"group": "f", "items": ["a"], "gold": [1]}\n'
                                                              + jsonl), line=2)


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
@pytest.mark.parametrize("block", [64, 1 << 22])
def test_a_group_beyond_the_largest_is_refused_with_the_line_past_it(fmt, block, monkeypatch):
    from rankeval_cli import inputs
    from rankeval_cli.formats import validate

    monkeypatch.setattr(validate, "MAX_GROUP_ITEMS", 50)
    monkeypatch.setattr(inputs, "BLOCK_BYTES", block)
    ok = Dataset(["g"], [[(f"i{k}", float(k), 1.0, {}) for k in range(50)]])
    big = Dataset(["f", "g"], [[("a", 1.0, 1.0, {})], [(f"i{k}", float(k), 1.0, {}) for k in range(51)]])
    encode = to_tsv if fmt == "tsv" else to_jsonl
    assert invoke(["tau"], encode(ok)).exit_code == 0
    line = 53 if fmt == "tsv" else 2  # the 51st item of g, or g's JSON line
    message = check_exit(invoke(["tau"], encode(big)), line=line)
    assert message.startswith("group 'g' has more than 50 items, the largest group supported")


def test_tie_calibration_refuses_a_huge_group_before_building_its_pairs():
    rows = "".join(f"g\ti{k}\t{k % 3}\t1\n" for k in range(7000))  # 24.5 million pairs > 20 million
    start = time.monotonic()
    message = check_exit(invoke(["tau", "--ties", "eq", "--calibrate-ties", "--average", "micro"],
                                HEADER.decode() + rows), line=2)
    assert "stops at 20000000 pairs" in message
    assert time.monotonic() - start < 10


# --- float options --------------------------------------------------------------------------------

def _float_types(kind):
    """The float types inside a parameter type (a tuple's members included)."""
    import click

    for member in getattr(kind, "types", None) or [kind]:
        if isinstance(member, click.types.FloatParamType):
            yield member


def _float_options():
    """(command, option) for every float option of every command, found in click's own parameters."""
    import click

    found = []
    for cmd in COMMANDS:
        from robust import command

        for param in command(cmd).params:
            if isinstance(param, click.Option) and any(_float_types(param.type)):
                found.append(pytest.param(cmd, param, id=f"{cmd} {param.opts[0]}"))
    return found


#: the arguments a command needs before its options are read (a missing one is another usage error)
POSITIONAL = {"plot": ["scatter"]}
#: and those after them (ndeval reads its options before its two files)
TRAILING = {"ndeval": ["qrels", "run"], "cwl_eval": ["gains", "run"]}


@pytest.mark.parametrize("cmd, option", _float_options())
def test_every_float_option_refuses_nan_and_infinity(cmd, option):
    """NaN and the infinities pass every range check, then poison or empty the results; each float
    option of each command (a future one included) refuses them as bad usage (exit 2)."""
    from rankeval_cli.commands._common import FiniteFloat

    assert all(isinstance(kind, FiniteFloat) for kind in _float_types(option.type)), \
        f"{cmd} {option.opts[0]}: use _common.FiniteFloat"
    for text in ("nan", "NaN", "inf", "-inf", "Infinity", "1e999"):
        values = [text] * max(option.nargs, 1)
        result = invoke([cmd, *POSITIONAL.get(cmd, []), option.opts[0], *values, *TRAILING.get(cmd, [])], HEADER)
        assert result.exit_code == 2, (text, result.stderr)
        assert "is not a finite number" in result.stderr and "Traceback" not in result.stderr, result.stderr
