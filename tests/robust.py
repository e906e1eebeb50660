"""Shared by the robustness suites (contract, fuzz, no loss, determinism).

* the subcommands, discovered from the CLI itself, so commands that land later are covered;
* running one in-process (CliRunner, exceptions not caught) or as a real process;
* the exit contract: 0, or 1 with exactly one line ``rankeval: FILE:LINE: message``;
* random ranking data (hypothesis) and its encodings: canonical TSV and JSON lines, and
  variants that must mean the same (CRLF, BOM, blank lines, other number spellings, gzip, bzip2, xz).
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import os
import tempfile
import re
import subprocess
import sys
from dataclasses import dataclass, field

import click
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from rankeval_cli.cli import main

# --- the commands --------------------------------------------------------------------------------

def _command_names() -> tuple[list[str], set[str]]:
    """Every command, a group's subcommands as ``"group sub"`` after the group; and the groups."""
    ctx = click.Context(main)
    names, groups = [], set()
    for name in main.list_commands(ctx):
        names.append(name)
        group = main.get_command(ctx, name)
        if isinstance(group, click.Group):
            groups.add(name)
            names += [f"{name} {sub}" for sub in group.list_commands(click.Context(group, info_name=name, parent=ctx))]
    return names, groups


COMMANDS, GROUPS = _command_names()
#: commands that read no ranking stream (``completion SHELL`` prints a script; a group runs its subcommands).
NOT_STREAMS = {"completion", "table", "meta-eval", "trec_eval", "trec-eval", "agree", "repro", "judges", "spans score",
               "spans eval", "ndeval", "cwl_eval"} | GROUPS  # table reads summaries, meta-eval score files (SCORE_FILES), spans span annotations, trec_eval, agree, repro, judges, ndeval and cwl_eval TREC runs and qrels, completion nothing
#: stream commands that need feature columns (and a model): tests/test_learn.py holds their contract.
OWN_CONTRACT = {"learn train", "learn predict", "learn cv"}
NOT_STREAMS |= OWN_CONTRACT
STREAM_COMMANDS = [c for c in COMMANDS if c not in NOT_STREAMS]
#: extra arguments a command needs to run on one plain stream.
NEEDS: dict[str, list[str]] = {
    "compare": ["--pred-columns", "pred,pred", "--bootstrap", "20", "--permutations", "20"],
    "power": ["--items-are-systems", "--difference", "0.05"],
    "learn features": ["--hyp-column", "item", "--ref-column", "group", "--missing-ref", "drop"],  # groups may be empty
    # a figure of the stream's systems, written to a file (stdout stays empty)
    "plot": ["scatter", "-o", os.path.join(tempfile.mkdtemp(prefix="rankeval-contract-"), "plot.svg")],
}


#: commands whose stderr carries more than rankeval's lines because of a bug in a file this suite's
#: author may not edit: the spelling and batch-cut properties hold them as strict xfails until fixed
#: (none now: plot's missing-glyph warning became one note)
KNOWN_STDERR: dict[str, str] = {}


def argv(args) -> list[str]:
    """Command-line arguments: a subcommand named ``"group sub"`` split into its words."""
    args = list(args)
    return [*args[0].split(" "), *args[1:]] if args and args[0] in COMMANDS else args


def commands_marked(commands, known: dict[str, str]):
    """pytest params over ``commands``; those in ``known`` are strict xfails with that reason.

    For a bug found in a file the suite's author may not edit: the test fails until it is fixed.
    """
    import pytest

    return [pytest.param(c, marks=pytest.mark.xfail(reason=known[c], strict=True)) if c in known else c
            for c in commands]


def command(name: str) -> click.Command:
    ctx = click.Context(main)
    found = main
    for word in name.split(" "):
        found = found.get_command(ctx, word)
        ctx = click.Context(found, info_name=word, parent=ctx)
    return found


def params(name: str) -> set[str]:
    return {p.name for p in command(name).params}


def option_choices(name: str, param: str) -> tuple[str, ...]:
    for p in command(name).params:
        if p.name == param:
            return tuple(getattr(p.type, "choices", ()))
    return ()


def per_group_commands() -> list[str]:
    return [c for c in STREAM_COMMANDS if "per_group" in params(c)]


def bootstrap_commands() -> list[str]:
    return [c for c in STREAM_COMMANDS if {"bootstrap", "seed"} <= params(c)]


# --- running -------------------------------------------------------------------------------------

def invoke(args, data: bytes | str = b""):
    """Run ``rankeval ARGS`` in-process on ``data`` as stdin; any non-exit exception propagates."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return CliRunner().invoke(main, argv(args), input=data, catch_exceptions=False)


def run_process(args, data: bytes = b"", env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run ``python -m rankeval_cli ARGS`` as a real process (bytes in, bytes out)."""
    full_env = dict(os.environ, RANKEVAL_PROGRESS="0", **(env or {}))
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *argv(args)], input=data, capture_output=True,
                          env=full_env, timeout=300, **kwargs)


def run_to_closed_pipe(args, data: bytes = b"") -> subprocess.CompletedProcess:
    """Run ``python -m rankeval_cli ARGS`` with stdout a pipe whose reading end is already
    closed: every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "rankeval_cli", *argv(args)], input=data, stdout=write_end,
                              stderr=subprocess.PIPE, timeout=300, env=dict(os.environ, RANKEVAL_PROGRESS="0"))
    finally:
        os.close(write_end)


ERROR = re.compile(r"rankeval: (?P<source>.+?)(?::(?P<line>[0-9]+))?: (?P<message>\S.*)")


def check_exit(result, source: str = "<stdin>", line: int | None = None) -> str | None:
    """Assert the exit contract; returns the error message for exit 1, None for exit 0.

    Exit 1 must end stderr with one line ``rankeval: SOURCE:LINE: message`` naming
    ``source``, and the line ``line`` when given; any line before it is a one-line note
    (``rankeval: ...``, e.g. a count of excluded rows). (A problem of the whole input
    rather than of a row, e.g. a column name the JCML writer cannot use, may name the
    file alone.) No traceback, no other status.
    """
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    assert result.exit_code in (0, 1), (result.exit_code, stderr)
    if result.exit_code == 0:
        return None
    lines = stderr.split("\n")
    assert lines[-1] == "" and all(text.startswith("rankeval: ") for text in lines[:-1]), stderr
    error = lines[-2]  # notes (counts of skipped rows) may come first, one line each
    match = ERROR.fullmatch(error)
    assert match, f"not 'rankeval: FILE:LINE: message': {error!r}"
    assert match["source"] == source, error
    if line is not None:
        assert match["line"] is not None and int(match["line"]) == line, (line, error)
    return match["message"]


def fuzz_settings(examples: int, **kwargs) -> settings:
    """Hypothesis settings for CI: ``examples`` per test, reproducible, no deadline (shared cores).

    ``RANKEVAL_FUZZ_EXAMPLES=N`` (release run) sets every test to N examples and draws
    fresh random examples instead of the fixed CI ones; ``RANKEVAL_FUZZ_NO_SHRINK=1``
    reports failing examples as found, without minimizing them.
    """
    release = os.environ.get("RANKEVAL_FUZZ_EXAMPLES")
    if os.environ.get("RANKEVAL_FUZZ_NO_SHRINK"):  # report failures as found (shrinking can take minutes)
        kwargs.setdefault("phases", [Phase.explicit, Phase.reuse, Phase.generate])
    return settings(max_examples=int(release) if release else examples, derandomize=not release,
                    deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much], **kwargs)


# --- random ranking data -------------------------------------------------------------------------

@dataclass
class Dataset:
    """Groups of items: ``rows[g]`` is a list of (item, gold, pred, {extra: text})."""

    groups: list[str]
    rows: list[list[tuple]]
    extras: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return sum(map(len, self.rows))

    def flat(self):
        """(group, item, gold, pred, extras) per row, in order."""
        for gid, rows in zip(self.groups, self.rows):
            for item, gold, pred, extra in rows:
                yield gid, item, gold, pred, extra


#: Ids: printable text with the characters TSV must escape, non-ASCII and non-BMP characters.
ID_PIECES = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00") | \
    st.sampled_from(["\t", "\n", "\r", "\\", "\\t", "\\\\n", " ", "é", "😀", "#", "{", '"', "\ufeff"]) | \
    st.sampled_from("abcdef")
ids = st.lists(ID_PIECES, max_size=5).map("".join)
plain_ids = st.text("abcxyz0123_-", min_size=1, max_size=4)
#: Values: missing, small integers, fractions, negative, tiny and huge (within the ±1e300 limit).
numbers = st.one_of(
    st.integers(-3, 12).map(float),
    st.sampled_from([0.5, -0.25, 2.75, 0.1, 1e-3, 5e-324, 123456.789, 1e300, -1e300, 1e15 + 0.5, 2.0**53]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
values = st.one_of(st.none(), numbers, numbers)


@st.composite
def datasets(draw, max_groups: int = 6, max_items: int = 7, id_strategy=ids, min_groups: int = 0) -> Dataset:
    """Random groups: one-item and all-tied groups, blanks, duplicates of values, extra columns."""
    n_groups = draw(st.integers(min_groups, max_groups))
    groups = draw(st.lists(id_strategy, min_size=n_groups, max_size=n_groups, unique=True))
    extras = draw(st.lists(st.sampled_from(["lp", "judge", "note x"]), unique=True, max_size=2))
    rows = []
    for _ in groups:
        n = draw(st.integers(1, max_items))
        items = draw(st.lists(id_strategy, min_size=n, max_size=n, unique=True))
        kind = draw(st.sampled_from(["free", "free", "tied", "ranks"]))
        if kind == "tied":
            gold = [draw(values)] * n
            pred = [draw(values)] * n
        elif kind == "ranks":
            gold = [float(r) for r in draw(st.permutations(range(1, n + 1)))]
            pred = [draw(st.sampled_from([None, *gold])) for _ in range(n)]
        else:
            gold = [draw(values) for _ in range(n)]
            pred = [draw(values) for _ in range(n)]
        extra = [{c: draw(ids) for c in extras} for _ in range(n)]
        rows.append(list(zip(items, gold, pred, extra)))
    return Dataset(groups, rows, extras)


# --- encodings -----------------------------------------------------------------------------------

def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def number_text(value) -> str:
    """The canonical spelling: empty for missing, integers plain, others by repr."""
    if value is None:
        return ""
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def number_spellings(value) -> list[str]:
    """Other texts that must read as exactly the same float."""
    if value is None:
        return [""]
    out = [number_text(value), repr(float(value)), f"{value:.17g}", f"{value:.17e}", f" {number_text(value)} "]
    if value == int(value) and abs(value) < 1e15:
        i = int(value)
        out += [f"{i}.0", f"{i}e0", f"{i}.000", ("+" if i >= 0 else "-") + f"{abs(i)}", f"{i * 10}e-1"]
    return out


def tsv_lines(data: Dataset, spell=number_text) -> list[str]:
    """Header and one line per row, without line endings."""
    lines = ["\t".join(["group", "item", "gold", "pred", *data.extras])]
    for gid, item, gold, pred, extra in data.flat():
        lines.append("\t".join([escape(gid), escape(item), spell(gold), spell(pred),
                                *(escape(extra[c]) for c in data.extras)]))
    return lines


#: the compressions every reader undoes, recognised by their first bytes
COMPRESSIONS = {
    "gzip": lambda raw: gzip.compress(raw, mtime=0),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}


def to_tsv(data: Dataset) -> bytes:
    return ("\n".join(tsv_lines(data)) + "\n").encode("utf-8")


def jsonl_records(data: Dataset) -> list[dict]:
    records = []
    for gid, rows in zip(data.groups, data.rows):
        record = {"group": gid, "items": [r[0] for r in rows], "gold": [_json_number(r[1]) for r in rows],
                  "pred": [_json_number(r[2]) for r in rows]}
        for c in data.extras:
            record[c] = [r[3][c] for r in rows]
        records.append(record)
    return records


def _json_number(value):
    if value is None:
        return None
    return int(value) if value == int(value) and abs(value) < 2**53 else value


def to_jsonl(data: Dataset) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in jsonl_records(data)).encode("utf-8")


@st.composite
def tsv_variants(draw, data: Dataset) -> bytes:
    """A TSV spelling of ``data`` that must read the same: line endings, BOM, blank lines, numbers,
    compression."""
    lines = tsv_lines(data, spell=lambda v: draw(st.sampled_from(number_spellings(v))))
    out = []
    for i, text in enumerate(lines):
        if i and draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["\n", "\r\n"])))  # blank lines are skipped
        out.append(text + draw(st.sampled_from(["\n", "\n", "\r\n"])))
    if draw(st.booleans()):
        out[-1] = out[-1].rstrip("\r\n")  # no final line ending
    raw = "".join(out).encode("utf-8")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    if draw(st.integers(0, 4)) == 0:
        raw = COMPRESSIONS[draw(st.sampled_from(sorted(COMPRESSIONS)))](raw)
    return raw


@st.composite
def jsonl_variants(draw, data: Dataset) -> bytes:
    """A JSON-lines spelling of ``data`` that must read the same."""
    out = []
    for record in jsonl_records(data):
        record = dict(record)
        if all(v is None for v in record["pred"]) and draw(st.booleans()):
            del record["pred"]  # pred is optional
        for key in ("gold", "pred"):
            if key in record and draw(st.booleans()):
                record[key] = [None if v is None else float(v) for v in record[key]]
        for c in data.extras:
            values_ = record[c]
            if values_ and len(set(values_)) == 1 and draw(st.booleans()):
                record[c] = values_[0]  # a scalar applies to every item
        keys = draw(st.permutations(list(record)))
        extras_in_order = iter(data.extras)  # extra columns take the first line's key order, so keep it
        keys = [next(extras_in_order) if k in data.extras else k for k in keys]
        record = {k: record[k] for k in keys}
        text = json.dumps(record, ensure_ascii=draw(st.booleans()),
                          separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")])))
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["\n", " \n", "\r\n"])))
        out.append(text + draw(st.sampled_from(["\n", "\r\n"])))
    raw = "".join(out).encode("utf-8")
    if draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    if draw(st.integers(0, 4)) == 0:
        raw = COMPRESSIONS[draw(st.sampled_from(sorted(COMPRESSIONS)))](raw)
    return raw


def parse_table(text: str) -> list[dict]:
    """Rows of a TSV table with a header (summary or per-group output)."""
    lines = text.split("\n")  # not splitlines(): ids may hold \x1c, \x85, \u2028 ...
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return []
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


def as_float(text: str) -> float:
    return math.nan if text in ("", "nan") else float(text)


# The contract's sample (test_contract, test_determinism). Five groups: a WMT-style ranking with
# a tie and a blank, a one-item group, an all-tied group, fractional and negative values, and a
# pred that is missing.
SAMPLE = Dataset(
    groups=["s1", "s2", "s3", "s4", "s5"],
    rows=[
        [("A", 1.0, 2.0, {"lp": "de-en"}), ("B", 2.0, 1.0, {"lp": "de-en"}), ("C", 2.0, 1.5, {"lp": "de-en"}),
         ("D", None, 3.0, {"lp": "de-en"}), ("E", 4.0, 3.0, {"lp": "de-en"})],
        [("A", 1.0, 1.0, {"lp": "de-en"})],
        [("A", 3.0, 2.0, {"lp": "cs-en"}), ("B", 3.0, 2.0, {"lp": "cs-en"}), ("C", 3.0, 2.0, {"lp": "cs-en"})],
        [("B", -0.5, 0.25, {"lp": "cs-en"}), ("C", 2.5, -1.0, {"lp": "cs-en"}), ("E", 0.0, 7.0, {"lp": "cs-en"})],
        [("A", 2.0, None, {"lp": "cs-en"}), ("D", 1.0, 4.0, {"lp": "cs-en"}), ("E", 3.0, 1.0, {"lp": "cs-en"})],
    ],
    extras=["lp"],
)
