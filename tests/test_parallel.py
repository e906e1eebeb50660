"""--jobs and --scheduler: byte-identical output for one process, two processes and a dask
cluster, for every command that takes --jobs (found by walking the commands, so a command
that gains --jobs without a case here fails); a worker's error is the same one-line message
and exit status as in-process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import TEST_DATA
from rankeval_cli.cli import main
from test_vocabulary import COMMANDS


def _stream(seed=3, groups=40, items=5) -> str:
    rng = np.random.default_rng(seed)
    lines = ["group\titem\tgold\tpred\tlp\tf1\tf2"]
    for g in range(groups):
        lp = "xx-en" if g % 2 else "yy-en"
        for i in rng.choice(8, items, replace=False):
            lines.append(f"g{g}\tS{i}\t{rng.integers(1, 5)}\t{rng.random():.4f}\t{lp}\t{rng.normal():.4f}\t"
                         f"{rng.normal():.4f}")
    return "\n".join(lines) + "\n"


STREAM = _stream()
CI = ["--ci", "0.95", "--bootstrap", "60", "--seed", "7"]
#: command path -> arguments exercising its work units on STREAM
CASES = {
    ("tau",): CI,
    ("report",): CI,
    ("mrr",): CI,
    ("ndcg",): CI,
    ("err",): CI,
    ("rankdcg",): CI,
    ("borda",): CI,
    ("aggregate",): ["--method", "kemeny", *CI],
    ("correlate",): CI,
    ("learn", "cv"): ["--model", "listnet", "--folds", "4", "--features", "f*", "--seed", "5"],
    ("meta-eval",): ["--mtme", str(TEST_DATA / "mtme" / "wmt20"), "--permutations", "20", *CI],
    ("compare",): ["--pred-columns", "pred,f1,f2", "--measure", "ndcg", "--all-pairs", "--by", "lp", "--test",
                   "t,bootstrap,randomization,randomized-tukey", "--bootstrap", "300", "--permutations", "300"],
}
TRUESKILL = ["aggregate", "--method", "trueskill", "--bootstrap", "120", "--by", "lp"]
TREC = Path(__file__).resolve().parents[1] / "examples" / "trec"
RUNS = [str(TREC / "bm25.run"), str(TREC / "dense.run")]
JUDGES = Path(__file__).resolve().parents[1] / "examples" / "judges"
#: commands over several TREC run files: one run per work unit, the qrels read once
RUN_CASES = {
    ("trec_eval",): ["-q", "-m", "all_trec", str(TREC / "qrels.txt"), *RUNS],
    ("report",): ["--qrels", str(TREC / "qrels.txt"), *RUNS],
    # run files are units, and so are ranges of the bootstrap replicates over topics
    ("judges",): ["--qrels", str(JUDGES / "reference.qrels"), f"--candidate={JUDGES / 'careful.qrels'}",
                  f"--candidate={JUDGES / 'random.qrels'}", "--bootstrap", "200",
                  *sorted(str(p) for p in (JUDGES / "runs").glob("sys0*.run"))],
}
EXCERPT = TEST_DATA / "wmt20-mqm-excerpt"
#: meta-eval from score files: one file per work unit (its notes printed in file order), then the pairs
META_EVAL_FILES = ["meta-eval", "--human", str(EXCERPT / "mqm_newstest2020_ende.tsv"), "--human",
                   str(EXCERPT / "mqm_newstest2020_zhen.tsv"), "--index", str(EXCERPT / "details.txt"),
                   str(EXCERPT / "chrF.seg.score"), str(EXCERPT / "chrF.sys.score"), str(EXCERPT / "YiSi-2.seg.score"),
                   "--permutations", "30"]


def _judgments(seed=5, segments=40) -> str:
    """One judgment per group (as convert --from appraise writes them), two domains, two lps."""
    rng = np.random.default_rng(seed)
    lines = ["group\titem\tgold\tpred\tjudge\tsegment\tdomain\tlp"]
    for lp in ("en-cs", "en-de"):
        for g in range(segments):
            for s in range(4):
                lines.append(f"{lp}:{g}:{s}\tS{s}\t{-rng.integers(40 + 10 * s, 101)}\t\tj{rng.integers(3)}\t"
                             f"seg{g}\t{'AB'[g % 2]}\t{lp}")
    return "\n".join(lines) + "\n"


#: the z-score method's wmt24 protocol: its domain-stratified bootstrap units
WMT24 = ["aggregate", "--method", "z-score", "--protocol", "wmt24", "--by", "lp", *CI]


def _with_jobs():
    for path, command in COMMANDS:
        if any("--jobs" in getattr(p, "opts", ()) for p in command.params):
            yield path


PARALLEL = list(_with_jobs())


def _run(args, env=None, input_text=STREAM):
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], input=input_text, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, RANKEVAL_PROGRESS="0", **(env or {})))


def test_every_command_with_jobs_has_a_case():
    assert PARALLEL, "no command takes --jobs"
    aliases = {("trec-eval",): ("trec_eval",)}  # one command, two spellings
    missing = [" ".join(p) for p in PARALLEL if aliases.get(tuple(p), tuple(p)) not in {**CASES, **RUN_CASES}]
    assert not missing, f"add a case to tests/test_parallel.py for: {missing}"


@pytest.mark.parametrize("path", sorted(CASES), ids=[" ".join(p) for p in sorted(CASES)])
def test_jobs_give_identical_output(path):
    args = [*path, *CASES[path]]
    one = _run([*args, "--jobs", "1"])
    assert one.returncode == 0, one.stderr
    assert one.stdout
    two = _run([*args, "--jobs", "2"])
    assert (two.returncode, two.stdout, two.stderr) == (0, one.stdout, one.stderr)


def test_jobs_default_from_the_environment():
    args = ["tau", *CI]
    assert _run(args, env={"RANKEVAL_JOBS": "2"}).stdout == _run([*args, "--jobs", "1"]).stdout


def test_progress_counts_units_across_workers_on_a_terminal():
    import pty

    controller, terminal = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "rankeval_cli", *TRUESKILL, "--jobs", "2"], input=STREAM,
                              stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=600,
                              env=dict(os.environ, RANKEVAL_PROGRESS="auto"))
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
    assert proc.returncode == 0
    assert b"rankeval: TrueSkill runs" in shown and b"2/2" in shown


def test_wmt24_intervals_identical_across_jobs():
    text = _judgments()
    one = _run([*WMT24, "--jobs", "1"], input_text=text)
    assert one.returncode == 0 and one.stdout.count("\n") == 9, one.stderr
    assert _run([*WMT24, "--jobs", "2"], input_text=text).stdout == one.stdout


@pytest.mark.parametrize("path", sorted(RUN_CASES), ids=[" ".join(p) for p in sorted(RUN_CASES)])
def test_runs_in_parallel_give_identical_output(path):
    args = [*path, *RUN_CASES[path]]
    one = _run([*args, "--jobs", "1"], input_text="")
    assert one.returncode == 0 and one.stdout, one.stderr
    assert _run([*args, "--jobs", "2"], input_text="").stdout == one.stdout


def test_meta_eval_score_files_read_in_parallel_give_identical_output_and_notes():
    one = _run([*META_EVAL_FILES, "--jobs", "1"], input_text="")
    assert one.returncode == 0 and one.stdout, one.stderr
    two = _run([*META_EVAL_FILES, "--jobs", "2"], input_text="")
    assert (two.stdout, two.stderr) == (one.stdout, one.stderr)


def test_trueskill_runs_identical_across_jobs():
    one = _run([*TRUESKILL, "--jobs", "1"])
    assert one.returncode == 0, one.stderr
    assert _run([*TRUESKILL, "--jobs", "2"]).stdout == one.stdout


@pytest.fixture(scope="module")
def scheduler():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.mark.parametrize("args", [[*p, *CASES[p]] for p in (("tau",), ("aggregate",), ("learn", "cv"))] + [TRUESKILL],
                         ids=["tau", "aggregate kemeny", "learn cv", "trueskill"])
def test_dask_cluster_gives_identical_output(args, scheduler):
    one = _run([*args, "--jobs", "1"])
    on_cluster = _run([*args, "--scheduler", scheduler])
    assert on_cluster.returncode == 0, on_cluster.stderr
    assert on_cluster.stdout == one.stdout
    assert _run(args, env={"RANKEVAL_SCHEDULER": scheduler}).stdout == one.stdout


#: a feature constant except on group q2: the fold training without q2 cannot scale it
CONSTANT_BUT_ONE = ("group\titem\tgold\tpred\tf\n" + "".join(
    f"q{g}\t{i}\t{i + 1}\t\t{(i + 1) * (g == 2)}\n" for g in range(6) for i in range(3)))


def test_worker_error_is_the_in_process_error(scheduler):
    args = ["learn", "cv", "--model", "ranksvm", "--folds", "3", "--features", "f", "--seed", "1"]
    one = _run([*args, "--jobs", "1"], input_text=CONSTANT_BUT_ONE)
    assert one.returncode == 1 and one.stderr.startswith("rankeval: ") and one.stderr.count("\n") == 1, one.stderr
    assert "constant on the training data" in one.stderr
    for extra in (["--jobs", "2"], ["--scheduler", scheduler]):
        other = _run([*args, *extra], input_text=CONSTANT_BUT_ONE)
        assert (other.returncode, other.stdout, other.stderr) == (1, one.stdout, one.stderr)


def test_unreachable_scheduler_is_one_line():
    pytest.importorskip("distributed")
    result = _run(["tau", *CI, "--scheduler", "tcp://127.0.0.1:9"], env={"RANKEVAL_DASK_TIMEOUT": "1"})
    assert result.returncode == 1 and "cannot reach the dask scheduler" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
