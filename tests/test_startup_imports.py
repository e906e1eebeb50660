"""Start-up: what ``rankeval trec_eval``, ``rankeval report`` and ``rankeval tau`` import
(``python -X importtime``), and the fast path of ``rankeval trec_eval`` (no click) printing the
same bytes, errors and exit statuses as the click command."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.utils import _detect_program_name

from rankeval_cli import entry
from rankeval_cli.cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
OUTPUTS = {"10": "outputs-trec_eval-10.0-f4253652c8ef", "9": "outputs-trec_eval-9.0.8-d95ca64e14a4"}
ROOT = Path(__file__).parent.parent
#: what no start-up of these commands may import (heavy, or not needed for what they print)
NEVER = ("scipy", "matplotlib", "lxml", "pandas", "dask", "distributed", "statsmodels", "sklearn", "pyarrow")
#: and what ``rankeval trec_eval`` does without as well (``inspect`` comes with the standard
#: library's ``dataclasses``, which the measure registry declares its measures with)
NOT_TREC_EVAL = ("click", "numpy.ma", "json", "pathlib", "rankeval_cli.cli", "rankeval_cli.commands")


def imported(args, stdin: str | None = None) -> list[str]:
    """The modules ``rankeval ARGS`` imports, as ``python -X importtime`` lists them after the
    interpreter's own start-up (``site``, and what an editable install's path finder brings)."""
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "rankeval_cli", *args], cwd=ROOT, input=stdin,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    names = [line.split("|")[-1].rstrip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    return [name.strip() for name in names[names.index(" site") + 1:]]


def offending(modules, prefixes):
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_trec_eval_imports_only_what_it_needs():
    modules = imported(["trec_eval", "-q", "-c", "-m", "all_trec", "examples/trec/qrels.txt",
                        "examples/trec/bm25.run"])
    assert "numpy" in modules and "rankeval_cli.ir.trec_eval" in modules
    assert offending(modules, NEVER + NOT_TREC_EVAL) == []


@pytest.mark.parametrize("command", ["report", "tau"])
def test_report_and_tau_import_no_heavy_library(command):
    rows = "group\titem\tgold\tpred\n" + "".join(f"g{g}\ti{i}\t{i}\t{(i * 7 + g) % 5}\n"
                                               for g in range(3) for i in range(4))
    modules = imported([command], stdin=rows)
    assert "click" in modules and offending(modules, NEVER) == []


def run_fast(args, capsysbinary) -> tuple[int, bytes, bytes]:
    """``rankeval ARGS`` through the console script's entry point, in this process."""
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = ["rankeval", *args]
    os.chdir(DATA)
    code = 0
    try:
        entry.main()
    except SystemExit as exc:
        code = exc.code or 0
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    out, err = capsysbinary.readouterr()
    return code, out, err


def test_fast_path_prints_every_golden_byte_for_byte(capsysbinary):
    for case in json.loads((DATA / "cases.json").read_text(encoding="utf-8")):
        for version in case["versions"]:
            want = gzip.decompress((DATA / OUTPUTS[version] / f"{case['name']}.out.gz").read_bytes())
            args = (["--trec-eval-version", "9"] if version == "9" else []) + case["args"]
            code, out, err = run_fast(["trec_eval", *args], capsysbinary)
            assert (code, out) == (case.get("exit", {}).get(version, 0), want), (case["name"], version, err)


@pytest.mark.parametrize("args", [
    ["-x", "qrels", "run1"], ["qrels"], ["-m", "P.0", "qrels", "run1"], ["-M", "-3", "qrels", "run1"],
    ["--trec-eval-version", "11", "qrels", "run1"], ["-m", "ERR@20", "qrels", "run1"],
    ["qrels", "no-such-run"], ["-h"], ["-v"], ["--trec-eval-version", "9", "-v"],
])
def test_fast_path_errors_and_help_as_click_prints_them(args, capsysbinary, monkeypatch):
    code, out, err = run_fast(["trec-eval", *args], capsysbinary)
    monkeypatch.setattr(sys, "argv", ["rankeval"])  # the name click gives the program, as run_fast ran it
    old = os.getcwd()
    os.chdir(DATA)
    try:
        want = CliRunner().invoke(main, ["trec-eval", *args], prog_name=_detect_program_name())
    finally:
        os.chdir(old)
    assert (code, out, err) == (want.exit_code, want.stdout_bytes, want.stderr_bytes)
