"""No silent loss: round trips, one output row per input row or group, atomic -o.

* Round trips: canonical TSV and JSON lines are fixed points of ``convert`` and
  convert into each other byte for byte; JCML → TSV → JCML → TSV is a fixed point on
  the bundled real files and on random data.
* ``normalize`` keeps every row, column and id, in order; every ``--per-group``
  output (discovered from the CLI) has exactly one row per input group, in order.
* Counts of what was skipped reach stderr.
* ``-o FILE`` leaves an existing FILE untouched and no temporary file behind when the
  run fails midway: bad data after 100k good rows, an exception injected after the
  first batch, an interrupt; a successful run replaces FILE with normal permissions.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robust import (COMPRESSIONS, NEEDS, STREAM_COMMANDS, Dataset, argv, check_exit, datasets, escape, fuzz_settings,
                    invoke, parse_table, per_group_commands, params, to_jsonl, to_tsv)

ROOT = Path(__file__).resolve().parents[1]
JCML_FILES = sorted((ROOT / "tests" / "data").glob("*.jcml")) + sorted((ROOT / "examples").glob("*.jcml"))
HEADER = "group\titem\tgold\tpred\n"


def ok(args, data):
    result = invoke(args, data)
    assert check_exit(result) is None, result.stderr
    return result.stdout


# --- canonical round trips ------------------------------------------------------------------------

@fuzz_settings(150)
@given(data=datasets(max_groups=8))
def test_canonical_tsv_and_jsonl_are_fixed_points_and_convert_exactly(data):
    tsv, jsonl = to_tsv(data).decode(), to_jsonl(data).decode()
    if not data.groups:
        tsv = HEADER  # no JSON line carries the extra column names
        data = Dataset([], [], [])
    assert ok(["convert"], tsv) == tsv
    assert ok(["convert", "--output-format", "jsonl"], jsonl) == jsonl
    assert ok(["convert", "--output-format", "jsonl"], tsv) == jsonl
    assert ok(["convert"], jsonl) == tsv


@fuzz_settings(30)
@given(data=datasets(max_groups=6, min_groups=1), kind=st.sampled_from(sorted(COMPRESSIONS)),
       fmt=st.sampled_from(["tsv", "jsonl"]))
def test_compressed_files_round_trip_exactly(tmp_path_factory, data, kind, fmt):
    """Written compressed by -o NAME.gz/.bz2/.xz and read back (by magic bytes): the same stream."""
    folder = tmp_path_factory.mktemp("packed")
    text = to_tsv(data).decode() if fmt == "tsv" else to_jsonl(data).decode()
    path = folder / f"out.{fmt}{dict(gzip='.gz', bzip2='.bz2', xz='.xz')[kind]}"
    assert invoke(["convert", "--output-format", fmt, "-o", str(path)], text).exit_code == 0
    assert invoke(["convert", "--output-format", fmt, str(path)]).stdout == text
    assert invoke(["convert", "--output-format", fmt], COMPRESSIONS[kind](text.encode())).stdout == text


def test_numbers_survive_a_round_trip_exactly():
    values = ["0.1", "-0", "5e-324", "2.2250738585072014e-308", "1e300", "-1e300", "9007199254740993",
              "0.30000000000000004", "123456789012345678", "9.999999999999999e+299"]
    text = HEADER + "".join(f"g\ti{k}\t{v}\t{v}\n" for k, v in enumerate(values))
    back = parse_table(ok(["convert"], ok(["convert", "--output-format", "jsonl"], text)))
    assert [float(r["gold"]) for r in back] == [float(v) for v in values]
    assert [float(r["pred"]) for r in back] == [float(v) for v in values]


# --- JCML round trips -----------------------------------------------------------------------------

def _jcml_cycle(tsv: str, pred: bool) -> str:
    """TSV → JCML → TSV. (A stream without any prediction writes the attribute nowhere, and
    naming an attribute no <tgt> has is an error: pred is then read as it is, all blank.)"""
    jcml = ok(["convert", "--output-format", "jcml"], tsv)
    pred = pred and "predicted_rank=" in jcml
    return ok(["convert", "--from", "jcml", *(["--pred-attr", "predicted_rank"] if pred else [])], jcml)


@pytest.mark.parametrize("path", JCML_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("options", [[], ["--keep-text"], ["--pred-attr", "unk"]], ids=["plain", "text", "pred"])
def test_real_jcml_round_trips(path, options):
    pytest.importorskip("rankeval_cli.formats.jcml")
    if options[:1] == ["--pred-attr"] and b' unk="' not in path.read_bytes():
        options = []
    first = ok(["convert", "--from", "jcml", *options, str(path)], b"")
    jcml = ok(["convert", "--output-format", "jcml"], first)
    second = ok(["convert", "--from", "jcml", *options], jcml)
    assert second.replace("<stdin>", "") == first.replace(str(path), "")  # sources differ only in name
    assert ok(["convert", "--output-format", "jcml"], second) == jcml
    assert len(parse_table(second)) == len(parse_table(first))


XML_TEXT = st.lists(st.characters(min_codepoint=0x20, max_codepoint=0xD7FF, blacklist_categories=("Cs",)) |
                    st.sampled_from(["\t", "\n", "&", "<", '"', "'", "]]>", "&amp;", "é", "😀"]),
                    max_size=5).map("".join)


@fuzz_settings(100)
@given(data=datasets(max_groups=5, id_strategy=XML_TEXT.filter(bool)), pred=st.booleans())
def test_random_data_reaches_a_jcml_fixed_point(data, pred):
    """(An empty id has no JCML attribute: the reader names such items tgt<k>, groups #<n>; not drawn.)"""
    pytest.importorskip("rankeval_cli.formats.jcml")
    tsv = to_tsv(Dataset(data.groups, [[(i, None if g == -1 else g, p, {}) for i, g, p, _ in rows]
                                       for rows in data.rows]))  # -1 is JCML's blank: refused, below
    once = _jcml_cycle(tsv.decode(), pred)
    assert _jcml_cycle(once, pred) == once
    back = parse_table(once)
    assert len(back) == sum(len(r) for r in data.rows)
    assert [r["item"] for r in back] == [escape(i) for rows in data.rows for i, _, _, _ in rows]


def test_jcml_writer_refuses_a_gold_of_minus_one():
    """JCML's rank="-1" is a blank: writing a real -1 there once lost the value silently (fixed f9b6ce2)."""
    pytest.importorskip("rankeval_cli.formats.jcml")
    result = invoke(["convert", "--output-format", "jcml"], HEADER + "g\ta\t-1\t1\ng\tb\t2\t2\n")
    assert "a gold value of -1 cannot be written to JCML" in check_exit(result, line=2)


# --- one row per input row or group ---------------------------------------------------------------

@fuzz_settings(100)
@given(data=datasets(max_groups=8), ties=st.sampled_from(["minimize", "floor", "ceiling", "middle"]),
       column=st.sampled_from(["gold", "pred", "both"]), higher=st.booleans())
def test_normalize_keeps_every_row_column_and_id_in_order(data, ties, column, higher):
    args = ["normalize", "--ties", ties, "--column", column] + (["--higher-better"] if higher else [])
    rows_in = parse_table(to_tsv(data).decode())
    rows_out = parse_table(ok(args, to_tsv(data)))
    assert len(rows_out) == len(rows_in)
    kept = ["group", "item", *data.extras] + [c for c in ("gold", "pred") if column not in (c, "both")]
    for before, after in zip(rows_in, rows_out):
        assert list(after) == list(before)
        assert {c: after[c] for c in kept} == {c: before[c] for c in kept}
        for c in ("gold", "pred"):
            assert (after[c] == "") == (before[c] == "")  # a missing value stays missing, and only it


PER_GROUP = per_group_commands()


@pytest.mark.parametrize("cmd", PER_GROUP)
def test_per_group_output_has_one_row_per_group_in_order(cmd):
    @fuzz_settings(60)
    @given(data=datasets(max_groups=8, min_groups=1))
    def run(data):
        result = invoke([cmd, *NEEDS.get(cmd, []), "--per-group"], to_tsv(data))
        if check_exit(result) is not None:
            return  # a data error the measure refuses (covered by the fuzz suite)
        rows = parse_table(result.stdout)
        assert [r["group"] for r in rows] == [escape(g) for g in data.groups]
        if "items" in rows[0] and "skipped" in rows[0]:
            assert [int(r["items"]) + int(r["skipped"]) for r in rows] == [len(r) for r in data.rows]

    run()


def test_per_group_rows_are_written_as_they_are_computed(tmp_path):
    """Streaming: with a bad row at the very end, the rows before it are already out on stdout."""
    good = "".join(f"g{i}\ta\t1\t1\ng{i}\tb\t2\t2\n" for i in range(30000))
    result = invoke(["tau", "--per-group"], HEADER + good + "z\ta\tnan\t1\n")
    assert result.exit_code == 1
    assert result.stdout.count("\n") > 20000


@fuzz_settings(100)
@given(data=datasets(max_groups=8))
def test_skipped_items_are_counted_on_stderr(data):
    result = invoke(["tau"], to_tsv(data))
    missing = sum(1 for _, _, g, p, _ in data.flat() if g is None or p is None)
    summary = parse_table(result.stdout)[0]
    assert int(summary["skipped"]) == missing
    assert int(summary["groups"]) + int(summary["undefined"]) == len(data.groups)
    if missing:
        assert f"skipped {missing} item" in result.stderr
    else:
        assert "skipped" not in result.stderr


# --- -o is atomic ----------------------------------------------------------------------------------

#: plot writes images (its -o must end in .png, .svg or .pdf): tests/test_plot.py checks that a failed
#: plot leaves the old figure untouched.
OUTPUT_COMMANDS = [c for c in STREAM_COMMANDS if "output" in params(c) and c != "plot"]
PRECIOUS = "precious, written before the run\n"


def _target(tmp_path) -> Path:
    target = tmp_path / "out.tsv"
    target.write_text(PRECIOUS)
    return target


def _untouched(tmp_path, target):
    assert target.read_text() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temporary file left


def _good_rows(n_groups: int, size: int = 5) -> str:
    return "".join(f"g{g}\ti{i}\t{i + 1}\t{(g * 7 + i * 3) % size + 1}\n" for g in range(n_groups) for i in range(size))


@pytest.mark.parametrize("cmd", ["normalize", "convert", "tau"])
def test_bad_data_after_100k_rows_leaves_the_file_untouched(cmd, tmp_path):
    target = _target(tmp_path)
    extra = ["--per-group"] if "per_group" in params(cmd) else []
    data = HEADER + _good_rows(21000) + "z\ta\t1\tnot-a-number\n"  # 105k good rows first
    result = invoke([cmd, *extra, "-o", str(target)], data)
    assert check_exit(result, line=105002) is not None
    assert result.stdout == ""
    _untouched(tmp_path, target)


@pytest.mark.parametrize("cmd", OUTPUT_COMMANDS)
def test_bad_data_at_the_end_leaves_the_file_untouched(cmd, tmp_path):
    target = _target(tmp_path)
    extra = ["--per-group"] if "per_group" in params(cmd) else []
    data = HEADER + _good_rows(300) + "z\ta\t1\tnot-a-number\n"
    result = invoke([cmd, *NEEDS.get(cmd, []), *extra, "-o", str(target)], data)
    assert check_exit(result, line=1502) is not None
    _untouched(tmp_path, target)


def _fail_after_first_batch(monkeypatch, error):
    """Make every reader raise ``error`` once its first batch has been handed on."""
    import rankeval_cli.formats as formats

    real = formats.read

    def read(*args, **kwargs):
        for k, batch in enumerate(real(*args, **kwargs)):
            if k == 1:
                raise error
            yield batch
        raise error

    monkeypatch.setattr(formats, "read", read)


@pytest.mark.parametrize("cmd", OUTPUT_COMMANDS)
def test_a_failure_midway_leaves_the_file_untouched(cmd, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    target = _target(tmp_path)
    _fail_after_first_batch(monkeypatch, RuntimeError("injected failure"))
    extra = ["--per-group"] if "per_group" in params(cmd) else []
    result = CliRunner().invoke(main, argv([cmd, *NEEDS.get(cmd, []), *extra, "-o", str(target)]),
                                input=HEADER + _good_rows(50))
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "injected failure"
    _untouched(tmp_path, target)


@pytest.mark.parametrize("cmd", OUTPUT_COMMANDS)
def test_an_interrupt_midway_leaves_the_file_untouched(cmd, tmp_path, monkeypatch):
    target = _target(tmp_path)
    _fail_after_first_batch(monkeypatch, KeyboardInterrupt())
    result = invoke([cmd, *NEEDS.get(cmd, []), "-o", str(target)], HEADER + _good_rows(50))
    assert result.exit_code == 130
    _untouched(tmp_path, target)


@pytest.mark.parametrize("cmd", OUTPUT_COMMANDS)
def test_a_good_run_replaces_the_file(cmd, tmp_path):
    target = _target(tmp_path)
    data = HEADER + _good_rows(20)
    to_stdout = invoke([cmd, *NEEDS.get(cmd, [])], data)
    to_file = invoke([cmd, *NEEDS.get(cmd, []), "-o", str(target)], data)
    assert to_file.exit_code == 0 and to_file.stdout == ""
    assert target.read_text() == to_stdout.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_output_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = _target(tmp_path)
    target.chmod(0o640)
    assert invoke(["normalize", "-o", str(target)], HEADER + _good_rows(2)).exit_code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_new_output_file_gets_the_usual_permissions(tmp_path):
    target = tmp_path / "new.tsv"
    umask = os.umask(0o022)
    try:
        assert invoke(["normalize", "-o", str(target)], HEADER + _good_rows(2)).exit_code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # as '>' would create it, not mkstemp's 0600


def test_output_may_replace_its_own_input(tmp_path):
    path = tmp_path / "data.tsv"
    path.write_text(HEADER + "g\ta\t3\t1\ng\tb\t1\t5\n")
    assert invoke(["normalize", str(path), "-o", str(path)]).exit_code == 0
    assert path.read_text() == HEADER + "g\ta\t2\t1\ng\tb\t1\t2\n"
    path.write_text(HEADER + "g\ta\t3\t1\ng\tb\tx\t5\n")
    assert invoke(["normalize", str(path), "-o", str(path)]).exit_code == 1
    assert path.read_text() == HEADER + "g\ta\t3\t1\ng\tb\tx\t5\n"


def test_an_unwritable_output_is_a_one_line_error(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "out.tsv"
    result = invoke(["normalize", "-o", str(target)], HEADER + _good_rows(2))
    assert result.exit_code == 1
    assert result.stderr == f"rankeval: {target}: cannot write: No such file or directory\n"
