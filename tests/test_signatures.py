"""Every summary row carries a signature of every setting that produced it; seeded runs repeat exactly.

The signature test is driven by each command's own click parameters: an option added later without
an entry here fails ``test_every_option_is_covered``, so new settings cannot slip out of signatures.
"""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from pathlib import Path

from rankeval_cli._version import __version__
from rankeval_cli.cli import main

ROOT = Path(__file__).resolve().parents[1]

# Groups with ties in gold and pred, a blank gold and a missing prediction, and two extra
# prediction columns for compare.
DATA = ("group\titem\tgold\tpred\tp1\tp2\n"
        "s1\ta\t1\t2\t2\t1\ns1\tb\t2\t1\t1\t2\ns1\tc\t2\t1.5\t3\t3\ns1\td\t3\t5\t4\t5\ns1\te\t4\t3\t5\t4\n"
        "s2\ta\t1\t1\t1\t2\ns2\tb\t2\t\t2\t1\ns2\tc\t\t2\t3\t3\n"
        "s3\ta\t1\t1\t2\t1\ns3\tb\t2\t1\t1\t2\ns3\tc\t3\t2\t3\t3\n"
        "s4\ta\t3\t1\t1\t3\ns4\tb\t2\t2\t2\t2\ns4\tc\t1\t3\t3\t1\n")

#: Parameters that say where data comes from or goes, not how a number is computed.
NOT_SETTINGS = {"files", "input_format", "output", "output_format", "per_group", "by",  # --by keys the rows
                "digits",  # presentation: rounding of what was computed
                "qrels",  # TREC input: the judgments the runs (FILES) are joined with
                "doc_groups",  # TREC input: the documents' groups (the fairness measure's name says which)
                "jobs", "scheduler"}  # where the work units run: the output is the same (tests/test_parallel.py)
CI = ["--ci", "0.9", "--bootstrap", "30"]

#: TREC input (bundled examples): the IR options act on it.
TREC = [str(ROOT / "examples" / "trec" / name) for name in ("qrels.txt", "bm25.run", "dense.run")]
IR_ARGS = ["--qrels", TREC[0], TREC[1]]
IR_COMPARE = ["--qrels", TREC[0], "-m", "map,ndcg_cut_10", "--permutations", "30", TREC[1], TREC[2]]
IR = {
    "rel_level": (IR_ARGS, IR_ARGS + ["--rel-level", "2"]),
    "depth": (IR_ARGS, IR_ARGS + ["--depth", "5"]),
    "all_queries": (IR_ARGS, IR_ARGS + ["--all-queries"]),
}

#: command -> parameter -> (arguments of the reference run, arguments changing only that setting).
VARIATIONS = {
    "tau": {
        "variant": ([], ["--tau-variant", "b"]),
        "average": ([], ["--average", "macro"]),
        "higher_better": ([], ["--higher-better"]),
        "epsilon": ([], ["--epsilon", "0.6"]),
        "min_diff": ([], ["--min-diff", "1.5"]),
        "calibrate_ties": (["--tau-variant", "eq", "--average", "micro"], ["--tau-variant", "eq", "--average", "micro",
                                                                     "--calibrate-ties"]),
        "ci": ([], ["--ci", "0.9"]),
        "bootstrap": (CI, ["--ci", "0.9", "--bootstrap", "31"]),
        "seed": (CI, CI + ["--seed", "5"]),
        "exclude_systems": ([], ["--exclude-systems", "e"]),
    },
    "compare": {
        "measure": ([], ["--measure", "mrr"]),
        "pred_columns": ([], ["--pred-columns", "p1,p2:higher"]),
        "variant": ([], ["--tau-variant", "b"]),
        "average": ([], ["--average", "macro"]),
        "tie_policy": (["--measure", "mrr"], ["--measure", "mrr", "--tie-policy", "optimistic"]),
        "relevance": (["--measure", "mrr"], ["--measure", "mrr", "--relevance", "grades"]),
        "higher_better": ([], ["--higher-better"]),
        "missing_pred": (["--measure", "mrr"], ["--measure", "mrr", "--missing-pred", "last"]),
        "k": (["--measure", "ndcg"], ["--measure", "ndcg", "--k", "2"]),
        "gain": (["--measure", "ndcg"], ["--measure", "ndcg", "--gain", "linear"]),
        "rel_max": (["--measure", "err"], ["--measure", "err", "--rel-max", "list-max"]),
        "ci": ([], ["--ci", "0.8"]),
        "bootstrap": ([], ["--bootstrap", "31"]),
        "permutations": ([], ["--permutations", "31"]),
        "seed": ([], ["--seed", "5"]),
        "exclude_systems": ([], ["--exclude-systems", "e"]),
        "rel_level": (IR_COMPARE, IR_COMPARE + ["--rel-level", "2"]),
        "depth": (IR_COMPARE, IR_COMPARE + ["--depth", "5"]),
        "all_queries": (IR_COMPARE, IR_COMPARE + ["--all-queries"]),
        "correction": (IR_COMPARE, IR_COMPARE + ["--correction", "holm"]),
        "tests": ([], ["--test", "randomization"]),
        "baselines": ([], ["--baseline", "p2"]),
        "all_pairs": (["--pred-columns", "pred,p1,p2"], ["--pred-columns", "pred,p1,p2", "--all-pairs"]),
        "system_specs": (IR_COMPARE, IR_COMPARE + ["--system", f"both={TREC[1]},{TREC[2]}"]),
        "items_are_systems": ([], ["--items-are-systems"]),
        "value_column": (["--items-are-systems"], ["--items-are-systems", "--values", "p1"]),
    },
}
POSITION = {
    "tie_policy": ([], ["--tie-policy", "optimistic"]),
    "relevance": ([], ["--relevance", "grades"]),
    "higher_better": ([], ["--higher-better"]),
    "missing_pred": ([], ["--missing-pred", "last"]),
    "ci": ([], ["--ci", "0.9"]),
    "bootstrap": (CI, ["--ci", "0.9", "--bootstrap", "31"]),
    "seed": (CI, CI + ["--seed", "5"]),
    "exclude_systems": ([], ["--exclude-systems", "e"]),
    **IR,
}
VARIATIONS["mrr"] = {**POSITION, "k": ([], ["--k", "1"])}
VARIATIONS["ndcg"] = {**POSITION, "k": ([], ["--k", "2"]), "gain": ([], ["--gain", "linear"])}
VARIATIONS["err"] = {**POSITION, "k": ([], ["--k", "2"]), "rel_max": ([], ["--rel-max", "list-max"])}
VARIATIONS["rankdcg"] = dict(POSITION)
VARIATIONS["report"] = {**POSITION, "k": ([], ["--k", "2"]), "variant": ([], ["--tau-variant", "b"]),
                        "gain": ([], ["--gain", "linear"]), "rel_max": ([], ["--rel-max", "list-max"]),
                        "measures": ([], ["-m", "mrr"])}
#: What compare needs to run on DATA at all.
BASE_ARGS = {"compare": ["--pred-columns", "p1,p2", "--bootstrap", "30", "--permutations", "30"]}


def _command(name: str) -> click.Command:
    return main.get_command(click.Context(main), name)


def _rows(name: str, args: list[str]) -> dict[str, dict]:
    """Summary rows by measure (and system, for compare), from TSV output."""
    own_input = "--qrels" in args or "--items-are-systems" in args  # compare's other inputs need no columns
    args = (BASE_ARGS.get(name, []) if not own_input else []) + args
    # compare's options override its base ones: later values win in click
    result = CliRunner().invoke(main, [name, *args], input=DATA)
    assert result.exit_code == 0, (name, args, result.output)
    lines = result.stdout.splitlines()
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:]]
    return {row.get("system", "") + "/" + row["measure"]: row for row in rows}


@pytest.mark.parametrize("name", sorted(VARIATIONS))
def test_every_option_is_covered(name):
    settings = {p.name for p in _command(name).params} - NOT_SETTINGS
    assert settings == set(VARIATIONS[name]), "add the new option to VARIATIONS (and to the signature)"


CASES = [(name, param) for name in sorted(VARIATIONS) for param in VARIATIONS[name]]


@pytest.mark.parametrize("name, param", CASES)
def test_changing_a_setting_changes_the_signature(name, param):
    reference_args, changed_args = VARIATIONS[name][param]
    reference, changed = _rows(name, reference_args), _rows(name, changed_args)
    signatures = {row["signature"] for row in reference.values()}
    assert signatures != {row["signature"] for row in changed.values()}, (name, param)
    # a row whose number changed must say why: equal signatures on the same input mean equal values
    # (in the columns both runs print; a report row without an interval has empty ci columns)
    for key in reference.keys() & changed.keys():
        if reference[key]["signature"] == changed[key]["signature"]:
            columns = (reference[key].keys() & changed[key].keys()) - {"system"}
            assert {c: reference[key][c] for c in columns} == {c: changed[key][c] for c in columns}, \
                (name, param, key)


@pytest.mark.parametrize("name", sorted(VARIATIONS))
def test_signature_starts_with_the_measure_and_ends_with_the_version(name):
    for key, row in _rows(name, []).items():
        sig = row["signature"]
        assert sig.endswith(f"|v:{__version__}"), sig
        measure = row["measure"]
        assert sig.split("|")[0] in (measure, measure.split("_")[0], measure.split("@")[0], "bph"), (measure, sig)


def test_json_summaries_carry_the_same_signature():
    import json

    for name in sorted(VARIATIONS):
        tsv = _rows(name, [])
        result = CliRunner().invoke(main, [name, *BASE_ARGS.get(name, []), "--output-format", "json"], input=DATA)
        records = [json.loads(line) for line in result.stdout.splitlines()]
        assert [r["signature"] for r in records] == [row["signature"] for row in tsv.values()], name


@pytest.mark.parametrize("name", sorted(VARIATIONS))
def test_seeded_runs_are_byte_for_byte_reproducible(name):
    args = [name, *BASE_ARGS.get(name, []), *(["--ci", "0.95", "--bootstrap", "200"] if name != "compare" else []),
            "--seed", "31"]
    first = CliRunner().invoke(main, args, input=DATA)
    second = CliRunner().invoke(main, args, input=DATA)
    assert first.exit_code == 0, first.output
    assert first.stdout_bytes == second.stdout_bytes


def test_seeded_report_repeats_across_processes():
    args = [sys.executable, "-m", "rankeval_cli", "report", "--k", "2", "--ci", "0.95", "--seed", "8",
            "--output-format", "json"]
    env = {"RANKEVAL_PROGRESS": "0", "PATH": "/usr/bin:/bin"}
    runs = [subprocess.run(args, input=DATA.encode(), capture_output=True, check=True, env=env).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] and b'"ci_low": ' in runs[0]
