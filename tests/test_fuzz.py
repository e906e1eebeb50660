"""Property-based fuzzing of every reader and every subcommand.

Every input ends in a correct result or in exit status 1 with exactly one line
``rankeval: FILE:LINE: message`` on stderr: never a traceback, never another status.

* Spellings that mean the same data (CRLF, BOM, blank lines, ``1.0``/``+1``/``1e0``,
  gzip, JSON key order, ``\\u`` escapes, scalar extras) give byte-identical output.
* Each kind of bad data (a truncated line, a wrong column count, NaN, inf, huge or
  malformed numbers, invalid UTF-8, a duplicate item, a group that reappears, a bare-CR
  file, a gzip that ends early) is an error naming the exact line.
* Random byte damage to valid files, for every reader (the canonical ones through every
  command, the others through ``convert --from`` and their Python functions).
* Oracles where they are cheap: ``normalize`` against scipy's rankdata and ``tau`` pair
  counts against a brute-force loop, on data with negative and fractional values,
  one-item and all-tied groups, blanks.

CI runs a few thousand examples in total (fixed, reproducible). A release run draws
fresh examples, e.g. ``RANKEVAL_FUZZ_EXAMPLES=100000 python -m pytest tests/test_fuzz.py``
(every test then runs that many examples).
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from robust import (COMPRESSIONS, ERROR, KNOWN_STDERR, NEEDS, STREAM_COMMANDS, Dataset, as_float, check_exit,
                    datasets, escape, fuzz_settings, ids, invoke, jsonl_records, jsonl_variants, number_text, parse_table, plain_ids, to_jsonl, to_tsv,
                    tsv_lines, tsv_variants)
from rankeval_cli.errors import DataError
from rankeval_cli.formats import READERS, read
from rankeval_cli.formats.validate import MAX_ABS_VALUE

DATA = Path(__file__).resolve().parent / "data"

# --- options worth fuzzing, per command (a command not listed runs with its defaults) ------------

POSITION = [[], ["--tie-policy", "expected"], ["--tie-policy", "optimistic"], ["--per-group"], ["--scores"],
            ["--missing-pred", "last"], ["--k", "2"], ["--relevance", "grades"]]
OPTIONS = {
    "convert": [[], ["--output-format", "jsonl"], ["--output-format", "jcml"]],
    "normalize": [[], ["--ties", "minimize"], ["--ties", "floor"], ["--ties", "middle"], ["--higher-better"],
                  ["--column", "pred", "--output-format", "jsonl"]],
    "tau": [[], ["--per-group"], ["--ties", "b"], ["--ties", "c"], ["--ties", "wmt14", "--average", "macro"],
            ["--ties", "acc-eq", "--calibrate-ties", "--average", "macro"], ["--ties", "eq", "--output-format", "json"]],
    "mrr": POSITION, "ndcg": POSITION + [["--gain", "linear"]], "rankdcg": POSITION[:-2],
    "err": POSITION + [["--relevance", "grades", "--rel-max", "list-max"]],
    "report": POSITION + [["--tau-ties", "b", "--output-format", "json"]],
    "aggregate": [[], ["-m", "borda"], ["-m", "fv"], ["-m", "ge-others"], ["-m", "copeland"],
                  ["-m", "bradley-terry"], ["--column", "both"], ["--bootstrap", "7", "--seed", "3"],
                  ["-m", "kemeny", "--approximate"], ["--higher-better", "--by", "lp"]],
    "borda": [[], ["--missing", "bottom"], ["--points", "n-r+1", "--column", "pred"], ["--bootstrap", "5"]],
    "correlate": [[], ["-m", "borda"], ["--by", "lp"]],
}


def options_for(cmd, data: Dataset | None = None):
    """Option sets for ``cmd``, after the arguments it NEEDS."""
    return st.sampled_from([NEEDS.get(cmd, []) + o for o in OPTIONS.get(cmd, [[]])])


commands = st.sampled_from(STREAM_COMMANDS)


def run_checked(args, data, **expect):
    result = invoke(args, data)
    return result, check_exit(result, **expect)


def without_location(text: str) -> str:
    """stderr with the FILE:LINE of each message dropped (blank lines shift line numbers)."""
    return "\n".join(ERROR.sub(lambda m: f"rankeval: {m['message']}", t) for t in text.splitlines())


# --- spellings that mean the same data -----------------------------------------------------------

clean_commands = st.sampled_from([c for c in STREAM_COMMANDS if c not in KNOWN_STDERR])


@fuzz_settings(300)
@given(data=datasets(), cmd=clean_commands, choice=st.data())
def test_tsv_spellings_give_the_canonical_output(data, cmd, choice):
    tsv_spellings_agree(data, cmd, choice)


@fuzz_settings(300)
@given(data=datasets(), cmd=clean_commands, choice=st.data())
def test_jsonl_spellings_give_the_tsv_output(data, cmd, choice):
    jsonl_spellings_agree(data, cmd, choice)


def tsv_spellings_agree(data, cmd, choice):
    args = [cmd, *choice.draw(options_for(cmd, data))]
    canonical, error = run_checked(args, to_tsv(data))
    variant, variant_error = run_checked(args, choice.draw(tsv_variants(data)))
    assert variant.exit_code == canonical.exit_code
    if error:  # output written before the error may be cut elsewhere; the error is the same
        if args == [cmd, *NEEDS.get(cmd, [])]:  # (with options: see the JSONL test below)
            assert variant_error == error
        return
    assert variant.stdout == canonical.stdout
    assert without_location(variant.stderr) == without_location(canonical.stderr)


def jsonl_spellings_agree(data, cmd, choice):
    if not data.groups:
        data = Dataset([], [], [])  # no JSON line, so no extra column names either
    args = [cmd, *choice.draw(options_for(cmd, data))]
    from_tsv, error = run_checked(args, to_tsv(data))
    from_jsonl, jsonl_error = run_checked(args, choice.draw(jsonl_variants(data)))
    if error or jsonl_error:  # the same data error, located by TSV row or by JSONL group line
        assert from_tsv.exit_code == from_jsonl.exit_code
        if args == [cmd, *NEEDS.get(cmd, [])]:  # reader errors; with options, checks run batch by batch in
            assert error == jsonl_error  # their own order, so two errors may be met in another order
        return
    assert (from_jsonl.stdout, from_jsonl.stderr) == (from_tsv.stdout, from_tsv.stderr)


# Found by this suite and fixed (425c726, 1c82d9b); kept as regression tests. A TSV and a JSONL
# reading cut the same data into different batches, and a mean was once summed per batch.

def test_mean_does_not_depend_on_batches():
    """0.5 + 2^-54 + 2^-54 is 0.5 + 2^-53 exactly; summed per batch it rounded to 0.5 twice."""
    from rankeval_cli.batch import Batch, offsets_from_sizes
    from rankeval_cli.measures.ties import MeanSummary, Scores

    class Prep:
        blanks = missing_pred = 0

    def scores(values):
        n = len(values)
        batch = Batch(np.array([f"g{i}" for i in range(n)], dtype=object), offsets_from_sizes(np.ones(n, np.int64)),
                      np.array(["a"] * n, dtype=object), np.ones(n), np.ones(n))
        return Scores(batch, np.array(values), Prep())

    whole, cut = MeanSummary("x"), MeanSummary("x")
    whole.add(scores([0.5, 2.0**-54, 2.0**-54]))
    cut.add(scores([0.5, 2.0**-54]))
    cut.add(scores([2.0**-54]))
    assert cut.mean == whole.mean == (0.5 + 2.0**-53) / 3


@pytest.mark.parametrize("cmd", ["err", "report"])
def test_grade_above_the_scale_names_file_and_line(cmd):
    """Once 'rankeval: <input>: relevance 5 exceeds the scale top 4', without file and line (fixed 425c726)."""
    result = invoke([cmd, "--relevance", "grades"], "group\titem\tgold\tpred\ng\ta\t1\t1\ng\tb\t5\t2\n")
    check_exit(result, line=3)


@pytest.mark.parametrize("cmd", ["mrr", "report"])
@pytest.mark.parametrize("data", ["group\titem\tgold\tpred\ng\ta\t\t1\nh\ta\t1\t1\n",
                                  "group\titem\tgold\tpred\ng\ta\t1\t\n", "group\titem\tgold\tpred\tlp\n"])
def test_expected_rr_with_a_group_without_ranked_items(cmd, data):
    """Once an IndexError in measures/rr.py (fixed 425c726)."""
    check_exit(invoke([cmd, "--tie-policy", "expected"], data))


@pytest.mark.parametrize("method", [["-m", "kemeny", "--approximate"], ["-m", "bradley-terry"]])
@pytest.mark.parametrize("data", ["group\titem\tgold\tpred\ng\ta\t\t1\n", "group\titem\tgold\tpred\tlp\n"])
def test_aggregate_with_no_ranked_item(method, data):
    """Once a ValueError (reshape of size 0) in kemeny/bradley_terry (fixed 425c726)."""
    check_exit(invoke(["aggregate", *method], data))


def test_segment_spearman_does_not_depend_on_batches():
    """2^-54 + 2^-54 + 0.5 is 0.5 + 2^-53 exactly; cut as [2^-54] + [2^-54, 0.5] it rounded to 0.5."""
    from rankeval_cli.aggregate.correlate import SegmentSpearman

    whole, cut = SegmentSpearman(), SegmentSpearman()
    for seg in (whole, cut):
        seg.per_group = lambda rho: rho  # feed per-group rho values directly
    whole.add(np.array([2.0**-54, 2.0**-54, 0.5]))
    cut.add(np.array([2.0**-54]))
    cut.add(np.array([2.0**-54, 0.5]))
    assert cut.total == whole.total == 0.5 + 2.0**-53


# --- bad data names its line ---------------------------------------------------------------------

BAD_NUMBERS = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "-1e400", "1e301", "-2e300",
               "1.0000001e300", "abc", "1,5", "0x10", "1_0", "\u0663", "\uff11", "--1", "1..2", ".", "e5", "1e",
               "+", "-", "1 2", "\x00", "１"]
PLACEHOLDER = "\x00@@"  # json.dumps writes it as "\u0000@@", which no other value's text contains
BAD_BYTES = [b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80", b"\x80"]


@st.composite
def tsv_with_error(draw):
    """(TSV bytes, line of the first error) for one kind of damage to valid data."""
    data = draw(datasets(min_groups=1, id_strategy=draw(st.sampled_from([plain_ids, ids]))))
    lines = [line.encode("utf-8") for line in tsv_lines(data)]
    rows = len(lines) - 1
    kind = draw(st.sampled_from(["cut", "extra", "number", "utf8", "duplicate", "reappear", "header", "cr"]))
    if kind == "reappear" and len(data.groups) < 2:
        kind = "duplicate"
    if kind == "cr" and rows == 0:
        kind = "cut"
    at = draw(st.integers(1, rows))  # a data line (index into lines)
    if kind == "cut":
        line = lines[at]
        last_tab = line.rfind(b"\t")
        lines[at] = line[:draw(st.integers(1, last_tab))]  # at least one tab lost, never a blank line
        if at == rows and draw(st.booleans()):
            return b"\n".join(lines), at + 1  # the file ends inside the line
    elif kind == "extra":
        lines[at] += draw(st.sampled_from([b"\t", b"\tx", b"\t1\t2"]))
    elif kind == "number":
        fields = lines[at].split(b"\t")
        fields[draw(st.sampled_from([2, 3]))] = draw(st.sampled_from(BAD_NUMBERS)).encode("utf-8")
        lines[at] = b"\t".join(fields)
    elif kind == "utf8":
        fields = lines[at].split(b"\t")
        column = draw(st.sampled_from([0, 1] + list(range(4, len(fields)))))
        fields[column] = fields[column] + draw(st.sampled_from(BAD_BYTES))
        lines[at] = b"\t".join(fields)
    elif kind == "duplicate":
        g = draw(st.integers(0, len(data.groups) - 1))
        last = sum(len(r) for r in data.rows[:g + 1])  # index of the group's last line
        copy = lines[draw(st.integers(last - len(data.rows[g]) + 1, last))]
        fields = copy.split(b"\t")
        fields[2:4] = [b"1", b""]  # the same item again, other values
        lines.insert(last + 1, b"\t".join(fields))
        at = last + 1
    elif kind == "reappear":  # a row of group g after a whole later group
        g = draw(st.integers(0, len(data.groups) - 2))
        starts = np.cumsum([1] + [len(r) for r in data.rows]).tolist()  # line index where each group starts
        at = draw(st.sampled_from(starts[g + 2:]))
        lines.insert(at, b"\t".join([escape(data.groups[g]).encode(), b"fresh item", b"1", b"1",
                                     *[b""] * len(data.extras)]))
    elif kind == "header":
        columns = lines[0].split(b"\t")
        lost = draw(st.sampled_from([b"group", b"item", b"gold"]))
        lines[0] = b"\t".join(c for c in columns if c != lost)
        at = 0
    else:  # the classic Mac's bare CR: one line, whose header holds CRs
        return b"\r".join(lines) + b"\r", 1
    raw = b"\n".join(lines) + b"\n"
    if draw(st.booleans()):
        raw = raw.replace(b"\n", b"\r\n")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    return raw, at + 1


@fuzz_settings(450)
@given(case=tsv_with_error(), cmd=commands)
def test_bad_tsv_names_the_line(case, cmd):
    raw, line = case
    result, message = run_checked([cmd, *NEEDS.get(cmd, [])], raw, line=line)
    assert result.exit_code == 1 and message


@st.composite
def jsonl_with_error(draw):
    """(JSON-lines bytes, line of the first error) for one kind of damage to valid data."""
    data = draw(datasets(min_groups=1))
    records = jsonl_records(data)
    at = draw(st.integers(0, len(records) - 1))
    record = records[at]
    kind = draw(st.sampled_from(["cut", "key", "length", "number", "type", "utf8", "surrogate", "duplicate",
                                 "reappear", "array", "extra keys"]))
    if kind == "reappear" and len(records) < 2:
        kind = "duplicate"
    if kind == "reappear":  # a group again, after at least one other group
        at = draw(st.integers(2, len(records)))
        earlier = records[draw(st.integers(0, at - 2))]
        copy = dict(earlier, items=["fresh item"], gold=[1], pred=[None], **{c: [""] for c in data.extras})
        records.insert(at, copy)
        lines = [json.dumps(r, ensure_ascii=False) for r in records]
        return ("\n".join(lines) + "\n").encode("utf-8"), at + 1
    text = None
    if kind == "cut":
        full = json.dumps(record, ensure_ascii=False)
        text = full[:draw(st.integers(1, len(full) - 1))]
    elif kind == "key":
        del record[draw(st.sampled_from(["group", "items", "gold"]))]
    elif kind == "length":
        record[draw(st.sampled_from(["gold", "pred"]))] = draw(st.lists(st.integers(1, 3), max_size=8).filter(
            lambda v: len(v) != len(record["items"])))
    elif kind == "number":
        bad = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400, "1e301", "-2e300",
                                    '"1"', "true", "[1]", "{}"]))
        record[draw(st.sampled_from(["gold", "pred"]))] = [PLACEHOLDER] * len(record["items"])
        text = json.dumps(record, ensure_ascii=False)
        text = text.replace(json.dumps(PLACEHOLDER), bad, 1).replace(json.dumps(PLACEHOLDER), "1")
    elif kind == "type":
        key, value = draw(st.sampled_from([("group", None), ("group", True), ("group", {"a": 1}), ("group", [1]),
                                           ("items", "ab"), ("items", None), ("items", {"a": 1})]))
        record[key] = value
    elif kind == "utf8":
        raw = json.dumps(record, ensure_ascii=False).encode("utf-8")
        cut = raw.index(b'"items"') + 10
        lines = [json.dumps(r, ensure_ascii=False).encode("utf-8") for r in records]
        lines[at] = raw[:cut] + draw(st.sampled_from(BAD_BYTES)) + raw[cut:]
        return b"\n".join(lines) + b"\n", at + 1
    elif kind == "surrogate":
        text = json.dumps(record, ensure_ascii=False).replace('"items": [', '"items": ["\\udc80x", ', 1)
        text = text.replace('"gold": [', '"gold": [1, ', 1).replace('"pred": [', '"pred": [1, ', 1)
        for c in data.extras:
            text = text.replace(f'{json.dumps(c)}: [', f'{json.dumps(c)}: ["", ', 1)
    elif kind == "duplicate":
        i = draw(st.integers(0, len(record["items"]) - 1))
        for key in ("items", "gold", "pred", *data.extras):
            record[key] = record[key] + [record[key][i]]
    elif kind == "array":
        text = json.dumps([record])
    else:  # extra keys that differ from the first line's
        if len(records) < 2:
            text = "{]"
        else:
            at = draw(st.integers(1, len(records) - 1))
            record = records[at]
            record["unexpected"] = "x"
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    if text is not None:
        lines[at] = text
    else:
        lines[at] = json.dumps(record, ensure_ascii=draw(st.booleans()))
    return ("\n".join(lines) + "\n").encode("utf-8"), at + 1


@fuzz_settings(400)
@given(case=jsonl_with_error(), cmd=commands)
def test_bad_jsonl_names_the_line(case, cmd):
    raw, line = case
    result, message = run_checked([cmd, *NEEDS.get(cmd, [])], raw, line=line)
    assert result.exit_code == 1 and message


@fuzz_settings(40)
@given(data=datasets(min_groups=1), cmd=commands, keep=st.floats(0.05, 0.95),
       kind=st.sampled_from(sorted(COMPRESSIONS)))
def test_compressed_input_that_ends_early(data, cmd, keep, kind):
    whole = COMPRESSIONS[kind](to_tsv(data) + b"".join(b"pad%d\tx\t1\t1%s\n" % (i, b"\t" * len(data.extras))
                                                     for i in range(2000)))
    result, message = run_checked([cmd, *NEEDS.get(cmd, [])], whole[:max(10, int(len(whole) * keep))])
    assert result.exit_code == 1 and "compressed input" in message


@pytest.mark.parametrize("kind", sorted(COMPRESSIONS))
def test_compressed_input_that_ends_early_in_a_file(tmp_path, kind):
    path = tmp_path / "cut.tsv.z"
    rows = b"".join(b"g%d\ta\t1\t2\n" % i for i in range(200000))
    packed = COMPRESSIONS[kind](b"group\titem\tgold\tpred\n" + rows)
    path.write_bytes(packed[:len(packed) * 3 // 4])
    result = invoke(["tau", str(path)])
    assert "compressed input" in check_exit(result, source=str(path))
    line = int(result.stderr.rsplit(f"{path}:", 1)[1].split(":")[0])
    assert 100000 < line <= 200001  # the line reached (3/4 of the stream is there), not a block's first line


# --- random damage -------------------------------------------------------------------------------

@st.composite
def damaged(draw, raw: bytes) -> bytes:
    """``raw`` with a few random byte-level edits."""
    data = bytearray(raw)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "delete", "insert", "repeat", "truncate"]))
        if edit == "flip":
            data[i] = draw(st.integers(0, 255))
        elif edit == "delete":
            del data[i:i + draw(st.integers(1, 8))]
        elif edit == "insert":
            data[i:i] = draw(st.sampled_from([b"\t", b"\n", b"\r", b"\x00", b"\xff", b"{", b"}", b'"', b",", b"-",
                                              b"\\", b"e", b".", b"\xef\xbb\xbf", b"\r\n", b"null", b"1e309"]))
        elif edit == "repeat":
            j = draw(st.integers(i, min(len(data), i + 40)))
            data[j:j] = data[i:j]
        else:
            del data[i:]
    return bytes(data)


@fuzz_settings(400)
@given(data=datasets(), cmd=commands, jsonl=st.booleans(), choice=st.data())
def test_random_damage_is_a_clean_result_or_a_located_error(data, cmd, jsonl, choice):
    raw = choice.draw(damaged(to_jsonl(data) if jsonl else to_tsv(data)))
    run_checked([cmd, *choice.draw(options_for(cmd, data))], raw)


@fuzz_settings(150)
@given(raw=st.binary(max_size=200), cmd=commands)
def test_random_bytes(raw, cmd):
    run_checked([cmd, *NEEDS.get(cmd, [])], raw)


@fuzz_settings(100)
@given(raw=st.text(st.sampled_from("\t\n\r{}[]\":,0123456789.e-+ abgnulrtfINa"), max_size=120), cmd=commands)
def test_random_text_of_delimiters(raw, cmd):
    run_checked([cmd, *NEEDS.get(cmd, [])], raw.encode("utf-8"))


# --- every reader ---------------------------------------------------------------------------------

#: reader -> (sample files in tests/data, options): the seeds of the damage below.
READER_SAMPLES = {
    "jcml": (["jcml_wmt10_xf.jcml", "jcml_wmt08.jcml", "jcml_analytic_1.jcml"], {}),
    "wmt-rr": (["wmt08-excerpt.csv", "wmt12-excerpt.csv", "wmt13-excerpt.csv", "wmt16-excerpt.ron-eng.csv"], {}),
    "wmt-scores": (["wmt20-chrF-excerpt.seg.score", "wmt20-chrF-excerpt.sys.score"], {}),
    "darr": (["wmt20-darr-excerpt.csv"], {}),
    "wmt-da": (["wmt20-da-excerpt-en-de.csv"], {"lp": "en-de"}),
    "wmt-da-scores": (["wmt20-da-excerpt-en-de.csv", "synthetic-ad-seg-scores-de-en.csv"], {"lp": "en-de"}),
    "appraise": (["appraise/synthetic-segment-da.en-de.csv", "appraise/synthetic-document-esa.en-zh.csv"], {}),
    "mqm": (["wmt20-mqm-excerpt/mqm_newstest2020_ende.tsv", "wmt20-mqm-excerpt/mqm_newstest2020_zhen.tsv"],
            {"lp": "en-de"}),
}


def _available(name: str) -> bool:
    module = READERS[name].split(":")[0]
    return importlib.util.find_spec(f"rankeval_cli.formats.{module}") is not None


def _samples(name: str) -> list[bytes]:
    files, _ = READER_SAMPLES[name]
    return [(DATA / f).read_bytes() for f in files if (DATA / f).exists()]


OTHER_READERS = [pytest.param(name, marks=pytest.mark.skipif(not _available(name), reason=f"no {name} reader yet"))
                 for name in READER_SAMPLES]


def check_batches(batches) -> int:
    """The invariants every reader's batches keep; returns the number of rows."""
    rows = 0
    for b in batches:
        assert b.offsets[0] == 0 and np.all(np.diff(b.offsets) >= 1), "groups must be non-empty"
        n = int(b.offsets[-1])
        assert len(b.group) == len(b.offsets) - 1
        assert len(b.item) == len(b.gold) == len(b.pred) == n
        assert b.gold.dtype == b.pred.dtype == np.float64
        for v in (b.gold, b.pred):
            assert np.all(np.isnan(v) | (np.abs(v) <= MAX_ABS_VALUE))
        assert all(len(v) == n for v in b.extra.values())
        assert b.line is None or len(b.line) == n
        rows += n
    return rows


def read_all(raw: bytes, fmt: str, **options):
    """Read through the public ``read``: batches, or the DataError it raised (any other exception fails)."""
    try:
        return check_batches(read(io.BytesIO(raw), fmt=fmt, **options)), None
    except DataError as exc:
        assert "\n" not in str(exc), str(exc)
        return None, exc


# Found by this suite and fixed (f9b6ce2); kept as regression tests.

def test_jcml_syntax_error_is_one_line():
    """libxml2's messages end with (and may hold) newlines; the error must stay one line."""
    pytest.importorskip("rankeval_cli.formats.jcml")
    raw = b'<?xml version="1.0"?>\n<jcml>\n<judgedsentence id="1"><tgt system="a" rank="1">x\x00</tgt>' \
          b'</judgedsentence>\n</jcml>\n'
    with pytest.raises(DataError) as error:
        list(read(io.BytesIO(raw), fmt="jcml"))
    assert "\n" not in str(error.value)


def test_wmt_rr_stray_quote_is_a_data_error():
    """A stray quote before the line end once escaped as csv.Error."""
    pytest.importorskip("rankeval_cli.formats.wmt_rr")
    header, first = (DATA / "wmt16-excerpt.ron-eng.csv").read_bytes().split(b"\r\r\n")[:2]
    with pytest.raises(DataError):
        list(read(io.BytesIO(header + b"\r\r\n" + first + b'\r"\n'), fmt="wmt-rr"))


def test_darr_cut_short_is_a_data_error():
    """A DARR file whose first data line has 4 fields once raised IndexError."""
    pytest.importorskip("rankeval_cli.formats.darr")
    with pytest.raises(DataError):
        list(read(io.BytesIO(b"LP DATA SID BETTER WORSE\nen-de newstest2020 s1 A\n"), fmt="darr"))


@pytest.mark.parametrize("name", OTHER_READERS)
def test_samples_read_cleanly(name):
    _, options = READER_SAMPLES[name]
    for raw in _samples(name):
        rows, error = read_all(raw, name, **options)
        assert error is None and rows > 0, error


@pytest.mark.parametrize("name", OTHER_READERS)
def test_damaged_samples_read_or_fail_with_a_data_error(name):
    _, options = READER_SAMPLES[name]
    samples = _samples(name)

    @fuzz_settings(150)
    @given(choice=st.data())
    def run(choice):
        raw = choice.draw(damaged(choice.draw(st.sampled_from(samples))))
        read_all(raw, name, **options)

    run()


@pytest.mark.parametrize("name", OTHER_READERS)
def test_damaged_samples_through_convert(name):
    _, options = READER_SAMPLES[name]
    samples = _samples(name)
    extra = ["--lp", options["lp"]] if "lp" in options else []
    if extra and invoke(["convert", "--from", name, *extra], samples[0]).exit_code == 2:
        pytest.skip("convert has no --lp option for this reader")

    @fuzz_settings(80)
    @given(choice=st.data())
    def run(choice):
        raw = choice.draw(damaged(choice.draw(st.sampled_from(samples))))
        check_exit(invoke(["convert", "--from", name, *extra], raw))

    run()


@pytest.mark.parametrize("name", OTHER_READERS)
def test_truncated_compression_of_a_sample(name):
    _, options = READER_SAMPLES[name]
    for raw in _samples(name):
        for kind, compress in COMPRESSIONS.items():
            packed = compress(raw * 20)
            rows, error = read_all(packed[: len(packed) // 2], name, **options)
            assert error is not None and "compressed" in error.message, (kind, error)


@pytest.mark.parametrize("name", ["tsv", "jsonl"])
def test_canonical_readers_on_damage(name):
    @fuzz_settings(200)
    @given(data=datasets(), choice=st.data())
    def run(data, choice):
        raw = choice.draw(damaged(to_tsv(data) if name == "tsv" else to_jsonl(data)))
        rows, error = read_all(raw, name)
        if error is not None:
            assert error.source and error.line is not None, str(error)

    run()


# --- oracles on random data ----------------------------------------------------------------------

def _present(values):
    return [v for v in values if v is not None]


@fuzz_settings(150)
@given(data=datasets(max_items=9), ties=st.sampled_from(["minimize", "floor", "ceiling", "middle"]),
       higher=st.booleans())
def test_normalize_matches_scipy(data, ties, higher):
    from scipy.stats import rankdata

    args = ["normalize", "--ties", ties] + (["--higher-better"] if higher else [])
    result, _ = run_checked(args, to_tsv(data))
    out = parse_table(result.stdout)
    assert len(out) == data.n_rows  # one row per input row, in order
    method = {"minimize": "dense", "floor": "min", "ceiling": "max", "middle": "average"}[ties]
    k = 0
    for gid, rows in zip(data.groups, data.rows):
        for column in (1, 2):
            values = [r[column] for r in rows]
            present = [(-v if higher else v) for v in _present(values)]
            expected = iter(rankdata(present, method=method).tolist()) if present else iter(())
            for i, v in enumerate(values):
                got = out[k + i]["gold" if column == 1 else "pred"]
                assert got == ("" if v is None else number_text(next(expected)))
        assert [out[k + i]["item"] for i in range(len(rows))] == [escape(r[0]) for r in rows]
        k += len(rows)


@fuzz_settings(150)
@given(data=datasets(max_items=9))
def test_tau_pair_counts_match_brute_force(data):
    result, _ = run_checked(["tau", "--per-group"], to_tsv(data))
    rows = parse_table(result.stdout)
    assert [r["group"] for r in rows] == [escape(g) for g in data.groups]  # one row per group, in order
    for row, group in zip(rows, data.rows):
        pairs = [(g, p) for _, g, p, _ in group if g is not None and p is not None]
        counts = dict(C=0, D=0, T_h=0, T_m=0, T_hm=0)
        for i in range(len(pairs)):
            for j in range(i + 1, len(pairs)):
                dg, dp = pairs[j][0] - pairs[i][0], pairs[j][1] - pairs[i][1]
                key = "T_hm" if dg == dp == 0 else "T_h" if dg == 0 else "T_m" if dp == 0 else \
                    "C" if (dg > 0) == (dp > 0) else "D"
                counts[key] += 1
        assert {k: int(row[k]) for k in counts} == counts
        assert int(row["items"]) == len(pairs) and int(row["skipped"]) == len(group) - len(pairs)
        tau = as_float(row["tau"])
        assert math.isnan(tau) or -1 <= tau <= 1


UNIT_INTERVAL = {"mrr": "mrr", "ndcg": "ndcg", "err": "err", "rankdcg": "rankdcg"}


@fuzz_settings(200)
@given(data=datasets(max_items=9), cmd=st.sampled_from([c for c in UNIT_INTERVAL if c in STREAM_COMMANDS]),
       choice=st.data())
def test_position_measures_stay_in_the_unit_interval(data, cmd, choice):
    result, error = run_checked([cmd, "--per-group", *choice.draw(options_for(cmd, data))], to_tsv(data))
    if error:
        return
    rows = parse_table(result.stdout)
    assert [r["group"] for r in rows] == [escape(g) for g in data.groups]
    for row in rows:
        value = as_float(row[UNIT_INTERVAL[cmd]])
        assert math.isnan(value) or -1e-12 <= value <= 1 + 1e-12, row


def test_limits_hold_at_the_edge():
    """±1e300 itself is accepted; the next float beyond is refused with its line."""
    edge = "group\titem\tgold\tpred\ng\ta\t1e300\t-1e300\n"
    assert invoke(["tau"], edge).exit_code == 0
    beyond = edge + f"g\tb\t{float(np.nextafter(1e300, np.inf))!r}\t1\n"
    assert "outside the supported range" in check_exit(invoke(["tau"], beyond), line=3)
