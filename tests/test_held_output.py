"""Output held: a closed stdout, an unencodable locale, -o through links to a stream, -o naming a folder,
and MTME trees with a FIFO, values beyond ±1e300 and a folder named like a glob."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREC = ROOT / "examples" / "trec"
QRELS, RUN = str(TREC / "qrels.txt"), str(TREC / "bm25.run")
MTME = ROOT / "tests" / "data" / "mtme" / "wmt20"


def _run(args, stdout=subprocess.PIPE, cwd=None, **env):
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], stdout=stdout, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, timeout=120, cwd=cwd,
                          env=dict(os.environ, RANKEVAL_PROGRESS="0", **env))


CLOSED = [["--version"], ["trec_eval", "-q", QRELS, RUN], ["report", "--qrels", QRELS, RUN],
          ["convert", "--from", "trec", "--qrels", QRELS, RUN], ["compare", "--qrels", QRELS, RUN,
                                                                   str(TREC / "dense.run")]]


@pytest.mark.parametrize("args", CLOSED, ids=lambda a: a[0])
def test_a_closed_stdout_is_one_line(args):
    proc = subprocess.run([sys.executable, "-c", "import os, sys; os.close(1); from rankeval_cli.cli import main; "
                           "sys.argv[0] = 'rankeval'; main()", *args], stderr=subprocess.PIPE, timeout=120,
                          stdin=subprocess.DEVNULL, env=dict(os.environ, RANKEVAL_PROGRESS="0"))
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert err.count("\n") == 1 and "cannot write" in err


def test_a_closed_stdout_with_o_writes_the_file(tmp_path):
    out = tmp_path / "out.tsv"
    proc = subprocess.run([sys.executable, "-c", "import os, sys; os.close(1); from rankeval_cli.cli import main; "
                           "sys.argv[0] = 'rankeval'; main()", "report", "--qrels", QRELS, RUN, "-o", str(out)],
                          stderr=subprocess.PIPE, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stderr == b""
    assert out.read_text().startswith("system\tmeasure")


@pytest.fixture(scope="module")
def accented(tmp_path_factory):
    folder = tmp_path_factory.mktemp("utf8")
    (folder / "q.txt").write_text("qé\t0\tdocé\t1\n", encoding="utf-8")
    (folder / "r.run").write_text("qé\tQ0\tdocé\t1\t1.0\truné\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"},
                                 {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}])
def test_utf8_is_written_whatever_the_locale(accented, env):
    proc = _run(["trec_eval", "-q", str(accented / "q.txt"), str(accented / "r.run")], **env)
    assert proc.returncode == 0, proc.stderr
    assert "num_ret               \tqé\t1\n".encode() in proc.stdout
    assert "runid                 \tall\truné\n".encode() in proc.stdout
    proc = _run(["trec_eval", str(accented / "q.txt"), str(accented / "missing-é.run")], **env)
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr and proc.stderr.count(b"\n") == 1


def test_o_through_links_to_stdout_writes_through(tmp_path):
    (tmp_path / "to-stdout").symlink_to("/dev/stdout")
    (tmp_path / "to-fd").symlink_to("/proc/self/fd/1")
    (tmp_path / "to-link").symlink_to(tmp_path / "to-fd")
    expected = _run(["report", "--qrels", QRELS, RUN]).stdout
    for link in ("to-stdout", "to-fd", "to-link"):
        target = tmp_path / "captured.tsv"
        target.write_text("old text that must not stay\n" * 50)
        with open(target, "w") as stdout:
            proc = _run(["report", "--qrels", QRELS, RUN, "-o", str(tmp_path / link)], stdout=stdout)
        assert proc.returncode == 0, proc.stderr
        assert target.read_bytes() == expected
        assert (tmp_path / link).is_symlink()


@pytest.mark.parametrize("name", ["newdir/", "newdir/.", "x/.."])
def test_o_naming_a_folder_is_a_usage_error(tmp_path, name):
    proc = _run(["report", "--qrels", QRELS, RUN, "-o", name], cwd=tmp_path)
    assert proc.returncode == 2 and b"names a directory" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == []


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "wmt[1]" / "test*set"
    shutil.copytree(MTME, root)
    return root


def test_mtme_folder_named_like_a_glob_is_read(tree):
    plain = _run(["meta-eval", "--mtme", str(MTME), "--permutations", "20"])
    proc = _run(["meta-eval", "--mtme", str(tree), "--permutations", "20"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_mtme_fifo_is_refused_not_waited_on(tree):
    fifo = tree / "metric-scores" / "en-de" / "chrF-ref.seg.score"
    fifo.unlink()
    os.mkfifo(fifo)
    proc = _run(["meta-eval", "--mtme", str(tree)])
    assert proc.returncode == 1 and b"not a regular file" in proc.stderr


@pytest.mark.parametrize("value", ["1e308", "-1e301", "1.0000001e300"])
def test_mtme_scores_beyond_the_limit_are_refused(tree, value):
    path = tree / "metric-scores" / "en-de" / "chrF-ref.seg.score"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].split("\t")[0] + "\t" + value
    path.write_text("\n".join(lines) + "\n")
    proc = _run(["meta-eval", "--mtme", str(tree)])
    assert proc.returncode == 1 and b":3: score" in proc.stderr and b"beyond" in proc.stderr


def test_mtme_scores_at_the_limit_give_no_warning(tree):
    for path, rows in ((tree / "metric-scores" / "en-de" / "chrF-ref.seg.score", (2, 4)),
                       (tree / "metric-scores" / "en-de" / "chrF-ref.sys.score", (0, 1))):
        lines = path.read_text().splitlines()
        for row, value in zip(rows, ("1e300", "-1e300")):
            lines[row] = lines[row].split("\t")[0] + "\t" + value
        path.write_text("\n".join(lines) + "\n")
    proc = _run(["meta-eval", "--mtme", str(tree), "--permutations", "20"], PYTHONWARNINGS="error")
    assert proc.returncode == 0, proc.stderr
    assert b"Warning" not in proc.stderr and b"Traceback" not in proc.stderr


@pytest.mark.parametrize("option", ["--title", "--label"])
def test_plot_text_that_is_not_utf8_is_a_usage_error(tmp_path, option):
    table = tmp_path / "table.tsv"
    table.write_text("group\tsystem\tmeasure\tvalue\nq1\ta\tmap\t0.5\nq2\ta\tmap\t0.25\n")
    proc = subprocess.run([sys.executable, "-m", "rankeval_cli", "plot", "distribution", option.encode() ,
                           b"bad\xff\xfe", str(table), "-o", str(tmp_path / "f.png")], capture_output=True, timeout=120)
    assert proc.returncode == 2 and b"not valid UTF-8" in proc.stderr and b"Traceback" not in proc.stderr
    assert not (tmp_path / "f.png").exists()
