"""The reader tests' checks: a converted file round-trips through TSV and JSON lines byte for
byte, its counts, and a malformed file fails at its file and line."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rankeval_cli.batch import concat
from rankeval_cli.formats import read

from helpers.cli import cli, ok


def round_trip(tmp_path: Path, source, *options) -> tuple[Path, Path]:
    """Convert to TSV and JSONL, then TSV→JSONL→TSV; both encodings must come back byte for byte."""
    a_tsv, a_jsonl, b_jsonl, b_tsv = (tmp_path / n for n in ("a.tsv", "a.jsonl", "b.jsonl", "b.tsv"))
    ok(cli("convert", *options, source, "-o", a_tsv))
    ok(cli("convert", *options, source, "--output-format", "jsonl", "-o", a_jsonl))
    ok(cli("convert", a_tsv, "--output-format", "jsonl", "-o", b_jsonl))
    ok(cli("convert", b_jsonl, "-o", b_tsv))
    assert a_tsv.read_bytes() == b_tsv.read_bytes()
    assert a_jsonl.read_bytes() == b_jsonl.read_bytes()
    return a_tsv, a_jsonl


def counts(tsv: Path, jsonl: Path) -> tuple[int, int, int]:
    """(groups, items, blank gold cells) of a converted file."""
    batch = concat(list(read(str(tsv), "tsv")))
    groups = sum(1 for line in jsonl.read_text().splitlines() if line.strip())
    assert groups == batch.n_groups
    return batch.n_groups, batch.n_rows, int(np.isnan(batch.gold).sum())


def read_all(source, fmt="wmt-rr", **options):
    """Every batch the reader of ``fmt`` yields for ``source``, as one batch."""
    return concat(list(read(str(source), fmt, **options)))


def fails_at(tmp_path, text, line, *options, name="bad.csv", fmt="wmt-rr", contains=""):
    """The CLI exits 1 with ``rankeval: FILE:LINE: ...``."""
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    result = cli("convert", "--from", fmt, *options, path)
    assert result.exit_code == 1, result.stdout
    assert result.stderr.startswith(f"rankeval: {path}:{line}: "), result.stderr
    assert contains in result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr
