"""The command-line contract shared by every subcommand."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from rankeval_cli import __version__
from rankeval_cli.cli import main

TSV = "group\titem\tgold\tpred\ng\ta\t1\t2\ng\tb\t2\t1\n"


def run(*args, input=None):
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], input=input, capture_output=True,
                          text=True, timeout=120)


def test_help_imports_no_heavy_module():
    code = ("import sys\nfrom rankeval_cli.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'scipy', 'lxml') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]")


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_module_entry_point_and_stdin_dash():
    result = run("normalize", "-", input=TSV)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "group\titem\tgold\tpred"


def test_unknown_option_and_format_exit_2():
    assert CliRunner().invoke(main, ["normalize", "--bogus"]).exit_code == 2
    assert CliRunner().invoke(main, ["normalize", "--input-format", "xml"]).exit_code == 2
    assert CliRunner().invoke(main, ["convert", "--from", "nonesuch"]).exit_code == 2
    assert CliRunner().invoke(main, ["nonesuch"]).exit_code == 2


def test_missing_file_exits_1_naming_it(tmp_path):
    result = run("normalize", str(tmp_path / "absent.tsv"))
    assert result.returncode == 1
    assert result.stderr.startswith(f"rankeval: {tmp_path / 'absent.tsv'}: cannot open")
    assert "Traceback" not in result.stderr


def test_closed_pipe_ends_quietly():
    rows = "".join(f"g{i}\ti{j}\t{j}\t{(i + j) % 5}\n" for i in range(30000) for j in range(5))
    script = f"{sys.executable} -m rankeval_cli normalize | head -1"
    result = subprocess.run(["bash", "-o", "pipefail", "-c", script], input="group\titem\tgold\tpred\n" + rows,
                            capture_output=True, text=True, timeout=120)
    assert result.stdout == "group\titem\tgold\tpred\n"
    assert result.stderr == ""


def test_output_file_is_atomic(tmp_path):
    target = tmp_path / "out.tsv"
    target.write_text("precious\n")
    bad = TSV + "h\tx\tnot-a-number\t1\n"
    result = CliRunner().invoke(main, ["normalize", "-o", str(target)], input=bad)
    assert result.exit_code == 1
    assert target.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]
    ok = CliRunner().invoke(main, ["normalize", "-o", str(target)], input=TSV)
    assert ok.exit_code == 0 and ok.output == ""
    assert target.read_text().startswith("group\titem\tgold\tpred\n")


def test_exclude_systems_counts_on_stderr():
    text = "group\titem\tgold\tpred\ng\t_ref\t1\t2\ng\tb\t2\t1\nh\t_ref\t1\t1\n"
    result = CliRunner().invoke(main, ["normalize", "--exclude-systems", "_ref"], input=text)
    assert result.exit_code == 0
    assert result.stdout == "group\titem\tgold\tpred\ng\tb\t1\t1\n"
    assert "excluded 2 item rows matching _ref (1 groups left empty and dropped)" in result.stderr


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_reads_both_encodings(fmt):
    jsonl = '{"group": "g", "items": ["a", "b"], "gold": [1, 2], "pred": [2, 1]}\n'
    result = CliRunner().invoke(main, ["normalize", "--output-format", "tsv"], input=TSV if fmt == "tsv" else jsonl)
    assert result.exit_code == 0
    assert result.output == "group\titem\tgold\tpred\ng\ta\t1\t2\ng\tb\t2\t1\n"
