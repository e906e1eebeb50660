"""rankeval trec_eval against trec_eval 10.0 and 9.0.8 themselves: byte for byte on the
generated collections (tests/data/trec_eval, outputs of the binaries built from NIST's
sources) and, where a trec_eval source tree is given (TREC_EVAL_SRC, TREC_EVAL_9_SRC), on
trec_eval's own regression files in its test/ directory; its command line read as glibc's
getopt_long reads it; trec_eval's rules for -m."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.commands.trec_eval import getopt
from rankeval_cli.ir import trec_eval as te
from conftest import peer_checkout

DATA = Path(__file__).parent / "data" / "trec_eval"
OUTPUTS = {"10": "outputs-trec_eval-10.0-f4253652c8ef", "9": "outputs-trec_eval-9.0.8-d95ca64e14a4"}
CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))


def run(args, cwd=DATA, input=None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["trec_eval", *args], input=input)
    finally:
        os.chdir(old)


def golden_params():
    for case in CASES:
        for version in case["versions"]:
            yield pytest.param(case, version, id=f"{case['name']}-v{version}")


@pytest.mark.parametrize("case, version", list(golden_params()))
def test_output_equals_trec_eval_byte_for_byte(case, version):
    want = gzip.decompress((DATA / OUTPUTS[version] / f"{case['name']}.out.gz").read_bytes()).decode("utf-8")
    args = (["--trec-eval-version", "9"] if version == "9" else []) + case["args"]
    result = run(args)
    assert result.exit_code == case.get("exit", {}).get(version, 0), result.stderr
    assert result.stdout == want


#: trec_eval's Makefile quicktest: expected output -> arguments, all files in the tree's test/
UPSTREAM_CASES = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    "out.test.prefs": ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
    "out.test.qrels_prefs": ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"],
    "out.test.qrels_jg": ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"],
    "out.test.meas_params": ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                             "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                             "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test",
                             "results.test"],
    "out.test.aqZ": ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"],
}
#: the files trec_eval 10 reads with its leniency (comments; text after the run tag), each read in
#: place of the case's file too
UPSTREAM_READER = {
    ("out.test", "qrels.test.with-comments"): "comment lines",
    ("out.test.aqc", "results.trunc"): "text after the run tag",
    ("out.test.aqcM", "results.trunc"): "text after the run tag",
    ("out.test.prefs", "prefs.comment.test"): None,
    ("out.test.qrels_jg", "qrels.comments.123"): None,
}


def upstream_params():
    for name, args in UPSTREAM_CASES.items():
        for version in ("10", "9"):
            yield pytest.param(name, args, version, id=f"{name}-v{version}")
    for name, path in UPSTREAM_READER:
        if path in UPSTREAM_CASES[name]:
            continue
        args = list(UPSTREAM_CASES[name])
        args[-2 if path.startswith(("qrels", "prefs")) else -1] = path
        yield pytest.param(name, args, "10", id=f"{name}-{path}")


#: the source trees of the two versions (their test/ directories), named by environment variables
UPSTREAM_TREES = {"10": ("TREC_EVAL_SRC", "trec_eval 10.0's source tree (usnistgov/trec_eval tag v10.0)"),
                  "9": ("TREC_EVAL_9_SRC", "trec_eval 9.0.8's source tree (usnistgov/trec_eval tag v9.0.8)")}


@pytest.mark.parametrize("name, args, version", list(upstream_params()))
def test_trec_eval_own_regression_outputs(name, args, version):
    """trec_eval's own regression files and its expected outputs (usnistgov/trec_eval ``test/``,
    what ``make quicktest`` compares against), read from a source tree outside the repository,
    e.g. TREC_EVAL_SRC=/path/to/trec_eval-10.0 TREC_EVAL_9_SRC=/path/to/trec_eval-9.0.8; each
    version's cases read that version's tree (9.0.8's test/ has the same inputs but its own
    zscores_file and outputs)."""
    test_dir = peer_checkout(*UPSTREAM_TREES[version], f"test/{name}") / "test"
    result = run((["--trec-eval-version", "9"] if version == "9" else []) + list(args), cwd=test_dir)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (test_dir / name).read_text(encoding="utf-8")


# ---- the command line ------------------------------------------------------------------------

@pytest.mark.parametrize("args, opts, operands", [
    (["-qc", "-mP.10", "q", "r"], [("q", None), ("c", None), ("m", "P.10")], ["q", "r"]),
    (["q", "-m", "map", "r", "-M100"], [("m", "map"), ("M", "100")], ["q", "r"]),
    (["-qmP.5", "q", "r"], [("q", None), ("m", "P.5")], ["q", "r"]),
    (["--meas=ndcg", "--query", "q", "r"], [("m", "ndcg"), ("q", None)], ["q", "r"]),
    (["--Max_retrieved_per_topic", "5", "--", "-q", "r"], [("M", "5")], ["-q", "r"]),
    (["-m", "-q", "q", "-"], [("m", "-q")], ["q", "-"]),
    (["--trec-eval-version", "9", "--tie", "expected", "q", "r"],
     [("trec-eval-version", "9"), ("tie-policy", "expected")], ["q", "r"]),
])
def test_getopt_reads_as_glibc(args, opts, operands):
    assert getopt(args) == (opts, operands)


@pytest.mark.parametrize("args, message", [
    (["-x", "q", "r"], "invalid option -- 'x'"),
    (["q", "r", "-m"], "option requires an argument -- 'm'"),
    (["--Re", "qrels", "q", "r"], "is ambiguous"),
    (["--nosummary=1", "q", "r"], "doesn't allow an argument"),
    (["--bogus", "q", "r"], "unrecognized option '--bogus'"),
    (["q"], "QRELS RUN"),
    (["-m", "ndcg_cut10", "q", "r"], "did you mean ndcg_cut_10"),
    (["-m", "P.", "q", "r"], "improper measure in parameter 'P'"),
    (["-m", "P.0", "q", "r"], "Negative cutoff detected"),
    (["-m", "P.5,5", "q", "r"], "duplicate cutoffs detected"),
    (["-m", "ndcg.1=2=3", "q", "r"], "malformed pair parameters"),
    (["-m", "ERR@20", "q", "r"], "trec_eval has no such measure"),
    (["-R", "qrels_jg", "-m", "map", "q", "r"], "needs -R qrels"),
    (["--trec-eval-version", "11", "q", "r"], "is not 9 or 10"),
    (["--trec-eval-version", "9", "-m", "rbp", "q", "r"], "'rbp'"),
])
def test_usage_errors_exit_2(args, message):
    result = run(args)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_help_and_version():
    result = run(["-h"])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) <= 40
    assert run(["--help"]).stdout == result.stdout
    version = run(["-v"])
    assert version.exit_code == 0 and "10.0-rc3" in version.stderr
    assert "9.0.8" in run(["--trec-eval-version", "9", "-v"]).stderr


def test_both_spellings_and_stdin():
    args = ["-q", "-m", "all_trec", "qrels", "run1"]
    want = run(args).stdout
    old = os.getcwd()
    os.chdir(DATA)
    try:
        dashed = CliRunner().invoke(main, ["trec-eval", *args]).stdout
        piped = CliRunner().invoke(main, ["trec_eval", *args[:-1], "-"],
                                   input=(DATA / "run1").read_bytes()).stdout
    finally:
        os.chdir(old)
    assert dashed == want and piped == want


def test_several_runs_print_one_after_the_other():
    both = run(["-m", "map", "-m", "P.5", "qrels", "run1", "run2"])
    assert both.exit_code == 0
    assert both.stdout == run(["-m", "map", "-m", "P.5", "qrels", "run1"]).stdout + \
        run(["-m", "map", "-m", "P.5", "qrels", "run2"]).stdout


# ---- -m: trec_eval's rules ---------------------------------------------------------------

def names(args, version=10):
    return [name for d, p in te.select(args, version) for name in d.value_names(p)]


def test_default_is_official_in_trec_eval_order():
    assert names([])[:5] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]
    assert names(["P.5", "map"]) == ["map", "P_5"]  # trec_eval's order, not -m's


def test_first_parameters_win_and_other_spellings_merge():
    assert names(["P.5", "P.10"]) == ["P_5"]
    assert names(["P_10", "P_5", "P@20"]) == ["P_5", "P_10", "P_20"]
    assert names(["ndcg_cut.10", "nDCG@5"]) == ["ndcg_cut_10"]
    assert names(["iprec_at_recall.0.5", "iprec_at_recall_0.25"]) == ["iprec_at_recall_0.50"]
    assert names(["utility.2,-1,0,0"]) == ["utility_2,-1,0,0"]
    assert names(["11pt_avg..25,.5"]) == ["11pt_avg_.25,.5"]
    assert names(["ndcg_cut.10,20,23.4"]) == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]


def test_sets_per_version():
    assert "rbp" in names(["all_trec"]) and "unj_5" in names(["all_trec"])
    assert "rbp" not in names(["all_trec"], 9) and "unj_5" not in names(["all_trec"], 9)
    assert names(["qrels_jg"]) == ["runid", "num_q", "map_avgjg"] + [f"P_avgjg_{k}" for k in
                                                                      (5, 10, 15, 20, 30, 100, 200, 500, 1000)] + \
        [f"Rprec_mult_avgjg_{x:.2f}" for x in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)]


def test_ndcg_p_is_not_in_trec_eval():
    """m_ndcg_p.c is in trec_eval's sources but neither its Makefile nor measures.c builds it."""
    assert run(["-m", "ndcg_p", "qrels", "run1"]).exit_code == 2


# ---- tie policies ----------------------------------------------------------------------------

def test_expected_refused_where_undefined_and_bounded_by_the_others():
    refused = run(["--tie-policy", "expected", "-m", "infAP", "qrels", "run3"])
    assert refused.exit_code == 2 and "no expected value" in refused.stderr

    def values(policy, measure):
        out = run(["--tie-policy", policy, "-q", "-m", measure, "qrels", "run3"]).stdout
        return {line.split("\t")[1]: float(line.split("\t")[2]) for line in out.splitlines()}

    for measure in ("P.5,10", "ndcg", "ndcg_cut.5", "map", "recip_rank", "rbp", "relative_P.5", "unj.5",
                    "dcg", "Rprec", "success.1", "recall.10"):
        low, mid, high = (values(p, measure) for p in ("pessimistic", "expected", "optimistic"))
        for q in low:
            if measure.startswith("unj"):  # unjudged first is the pessimistic order: unj is larger
                low[q], high[q] = high[q], low[q]
            assert low[q] - 1e-12 <= mid[q] <= high[q] + 1e-12, (measure, q)


def test_python_api():
    from rankeval_cli import api

    old = os.getcwd()
    os.chdir(DATA)
    try:
        text = api.trec_eval("qrels", "run1", ["all_trec"], per_query=True)
        with pytest.raises(ValueError, match="not an IR measure"):
            api.trec_eval("qrels", "run1", "nope")
    finally:
        os.chdir(old)
    assert text == gzip.decompress((DATA / OUTPUTS["10"] / "run1-q-all_trec.out.gz").read_bytes()).decode("utf-8")


def test_judgments_without_a_query_are_an_error(tmp_path):
    (tmp_path / "empty").write_text("")
    result = run([str(tmp_path / "empty"), str(DATA / "run1")])
    assert result.exit_code == 1 and "no judgments: the qrels file is empty" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
