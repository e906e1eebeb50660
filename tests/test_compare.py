"""Paired tests (rankeval_cli.stats.paired_resampling) and the ``rankeval compare`` command."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats as scipy_stats

from rankeval_cli._version import __version__
from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.cli import main
from rankeval_cli.measures.dcg import ndcg_values
from rankeval_cli.measures.pairs import pair_counts
from rankeval_cli.measures.ties import prepare
from rankeval_cli.stats.paired_resampling import (bootstrap_p, compare, paired_bootstrap, randomization_deltas,
                                       randomization_p)
from rankeval_cli.stats.resample import (BOOTSTRAP_STREAM, RANDOMIZATION_STREAM, MeanStat, TauMicroStat,
                                         replicate_rng, tau_raw)

# --- the p-value definitions, by hand ------------------------------------------------------------


def test_bootstrap_p_by_hand():
    # δ = 0.1; replicate differences shifted by -δ: [0, -0.15, 0.15, 0.1, -0.1]; |·| >= 0.1 for the
    # last four -> p = (1 + 4)/(1 + 5) = 5/6. NaN replicates are left out.
    assert bootstrap_p(0.1, np.array([0.1, -0.05, 0.25, 0.2, 0.0, np.nan])) == pytest.approx(5 / 6, rel=1e-15)
    # no difference at all: every replicate is "as extreme" -> p = 1
    assert bootstrap_p(0.0, np.array([0.0, 0.3, -0.2])) == 1.0


def test_randomization_p_by_hand():
    # δ = 0.1; trials [0.05, -0.1, 0.2, 0]: |Δ*| >= 0.1 for -0.1 and 0.2 -> p = (1 + 2)/(1 + 4) = 3/5.
    assert randomization_p(0.1, np.array([0.05, -0.1, 0.2, 0.0])) == pytest.approx(3 / 5, rel=1e-15)
    assert randomization_p(-0.1, np.array([0.05, -0.1, 0.2, 0.0])) == pytest.approx(3 / 5, rel=1e-15)


# --- the fast computations against the definitions ----------------------------------------------------


def _mean(values):
    ok = ~np.isnan(values)
    return values[ok].mean() if ok.any() else np.nan


def test_paired_bootstrap_is_the_naive_paired_resampling():
    rng = np.random.default_rng(1)
    a, b = rng.random(40), rng.random(40)
    b[::9] = np.nan
    boot = paired_bootstrap(MeanStat(), [a, b], 200, seed=4, method="indices")
    for r in range(200):
        idx = replicate_rng(4, BOOTSTRAP_STREAM, r).integers(0, 40, 40)  # the same groups for both
        assert boot[r] == pytest.approx([_mean(a[idx]), _mean(b[idx])], rel=1e-12)


def test_randomization_is_the_naive_per_group_swap():
    rng = np.random.default_rng(2)
    a, b, c = rng.random(30), rng.random(30), rng.random(30)
    a[3] = np.nan  # undefined groups swap too: the pseudo-systems average their own defined groups
    _, deltas = randomization_deltas(MeanStat(), [a, b, c], 100, seed=8, method="indices")
    for r in range(100):
        raw = replicate_rng(8, RANDOMIZATION_STREAM, r).bytes(4)
        swap = np.unpackbits(np.frombuffer(raw, np.uint8))[:30].astype(bool)
        for j, other in enumerate((b, c)):
            pseudo_base = np.where(swap, other, a)
            pseudo_sys = np.where(swap, a, other)
            # values sit on a grid of 2^-46 here (resample.grid_exponents): agreement to 1e-13
            assert deltas[r, j] == pytest.approx(_mean(pseudo_sys) - _mean(pseudo_base), abs=1e-13)


@pytest.mark.parametrize("method", ["indices", "multinomial"])
def test_randomization_p_approaches_the_exact_permutation_p(method):
    # 10 groups, micro tau from pair counts: enumerate all 2^10 swap patterns for the exact p, then
    # R = 4000 random trials must land within 4 binomial sd of it.
    rng = np.random.default_rng(3)
    sizes = np.full(10, 4)
    gold = np.tile([1.0, 2.0, 3.0, 4.0], 10)
    pa = gold + rng.normal(0, 1.0, 40)
    pb = gold + rng.normal(0, 2.5, 40)
    offsets = offsets_from_sizes(sizes)
    ra, rb = tau_raw(pair_counts(gold, pa, offsets)), tau_raw(pair_counts(gold, pb, offsets))
    stat = TauMicroStat("penalize")
    delta = stat.value(rb.sum(0)) - stat.value(ra.sum(0))
    extreme = 0
    for pattern in itertools.product([False, True], repeat=10):
        swap = np.array(pattern)[:, None]
        d = stat.value(np.where(swap, ra, rb).sum(0)) - stat.value(np.where(swap, rb, ra).sum(0))
        extreme += abs(d) >= abs(delta) - 1e-9
    exact = extreme / 1024
    observed, trials = randomization_deltas(stat, [ra, rb], 4000, seed=5, method=method)
    assert observed[0] == delta  # integer counts: exact
    p = randomization_p(delta, trials[:, 0])
    assert abs(p - exact) < 4 * math.sqrt(exact * (1 - exact) / 4000) + 1 / 4001, (p, exact)


def test_identical_predictions_differ_by_nothing():
    values = np.random.default_rng(4).random(50)
    base, same = compare(MeanStat(), [values, values.copy()], bootstrap=100, permutations=100)
    assert same.delta == 0 and same.delta_ci_low == same.delta_ci_high == 0
    assert same.p_bootstrap == same.p_randomization == 1
    assert (base.ci_low, base.ci_high) == (same.ci_low, same.ci_high)


# --- calibration: uniform p-values under a true null, power under a real difference --------------------

N_SETS, GROUPS, ITEMS = 300, 60, 5


def _systems(rng, n_groups, noise_a, noise_b):
    """Gold ranks 1..5 per group; each prediction ranks gold + N(0, noise²) (no ties)."""
    gold = np.tile(np.arange(1.0, ITEMS + 1), n_groups)
    return gold, gold + rng.normal(0, noise_a, len(gold)), gold + rng.normal(0, noise_b, len(gold))


def _per_group(measure, gold, pred, n_groups):
    offsets = offsets_from_sizes(np.full(n_groups, ITEMS))
    if measure == "tau":
        return tau_raw(pair_counts(gold, pred, offsets))
    return ndcg_values(prepare(gold, pred, offsets))


def _p_values(measure, noise_a, noise_b, n_sets, seed):
    rng = np.random.default_rng(seed)
    n_groups = n_sets * GROUPS
    gold, pa, pb = _systems(rng, n_groups, noise_a, noise_b)
    ra, rb = _per_group(measure, gold, pa, n_groups), _per_group(measure, gold, pb, n_groups)
    stat = TauMicroStat("penalize") if measure == "tau" else MeanStat()
    out = []
    for d in range(n_sets):
        part = slice(d * GROUPS, (d + 1) * GROUPS)
        _, result = compare(stat, [ra[part], rb[part]], bootstrap=200, permutations=200, seed=d)
        out.append((result.p_bootstrap, result.p_randomization, result.delta_ci_low, result.delta_ci_high))
    return np.array(out)


@pytest.mark.parametrize("measure", ["tau", "ndcg"])
def test_p_values_are_uniform_under_a_true_null(measure):
    # Both predictions come from the same process, independently per group. Randomization is exact
    # (p super-uniform); the shifted paired bootstrap is approximately uniform. With 300 data sets,
    # a Kolmogorov-Smirnov test against U(0, 1) must not reject at the 0.001 level (the p-values'
    # grid of 1/201 moves the CDF by at most 0.005, far below the KS critical distance 0.113), and
    # the share rejected at 0.05 must be within 3 binomial sd of 0.05 (sd = sqrt(.05·.95/300) = 0.0126).
    found = _p_values(measure, 1.5, 1.5, N_SETS, seed=11)
    for column in (0, 1):
        p = found[:, column]
        assert scipy_stats.kstest(p, "uniform").pvalue > 0.001, (column, np.sort(p)[:10])
        assert abs((p <= 0.05).mean() - 0.05) <= 3 * math.sqrt(0.05 * 0.95 / N_SETS), (column, (p <= 0.05).mean())


@pytest.mark.parametrize("measure", ["tau", "ndcg"])
def test_a_real_difference_is_detected(measure):
    # 200 groups; prediction B is much noisier than A (sd 3 against 0.5): B scores lower.
    rng = np.random.default_rng(12)
    gold, pa, pb = _systems(rng, 200, 0.5, 3.0)
    ra, rb = _per_group(measure, gold, pa, 200), _per_group(measure, gold, pb, 200)
    stat = TauMicroStat("penalize") if measure == "tau" else MeanStat()
    _, result = compare(stat, [ra, rb], bootstrap=1000, permutations=1000, seed=1)
    assert result.delta < 0 and result.delta_ci_high < 0
    assert result.p_bootstrap < 0.05 and result.p_randomization < 0.05


# --- the command ----------------------------------------------------------------------------------

def _write_systems(tmp_path, n_groups=25, noises=(0.8, 1.5, 3.0), seed=7, ties=True):
    """Files base.tsv, s1.tsv, ... with the same groups/items/gold, and one file with all columns."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, n_groups)
    rows = []
    preds = []
    for g, n in enumerate(sizes):
        gold = rng.permutation(np.arange(1, n + 1)).astype(float)
        if g == 3:
            gold[0] = np.nan  # a blank
        rows += [(f"seg{g}", f"sys{i}", gold[i]) for i in range(n)]
        preds.append([np.round(np.nan_to_num(gold, nan=3) + rng.normal(0, s, n), 0 if ties else 6)
                      for s in noises])
    columns = [np.concatenate([p[j] for p in preds]) for j in range(len(noises))]
    names = ["base"] + [f"s{j}" for j in range(1, len(noises))]

    def text(value):
        return "" if np.isnan(value) else repr(float(value))

    paths = []
    for name, col in zip(names, columns):
        lines = ["group\titem\tgold\tpred"] + [f"{g}\t{i}\t{text(gv)}\t{text(p)}" for (g, i, gv), p in zip(rows, col)]
        path = tmp_path / f"{name}.tsv"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    wide = ["group\titem\tgold\tpred\t" + "\t".join(f"p@{n}" for n in names)]
    wide += [f"{g}\t{i}\t{text(gv)}\t\t" + "\t".join(text(c[k]) for c in columns) for k, (g, i, gv) in enumerate(rows)]
    (tmp_path / "wide.tsv").write_text("\n".join(wide) + "\n")
    return paths, str(tmp_path / "wide.tsv"), names


def invoke(*args, input=None):
    return CliRunner().invoke(main, ["compare", *args], input=input)


def table(text):
    lines = text.splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


MEASURE_ARGS = [
    ("tau", [], "micro"),
    ("tau", ["--ties", "b", "--average", "macro"], "macro"),
    ("mrr", ["--k", "2"], "value"),
    ("ndcg", ["--k", "3", "--gain", "linear", "--tie-policy", "expected"], "value"),
    ("err", ["--rel-max", "list-max"], "value"),
    ("rankdcg", ["--missing-pred", "last"], "value"),
]


@pytest.mark.parametrize("measure, options, column", MEASURE_ARGS)
def test_each_score_is_what_the_measure_command_prints(tmp_path, measure, options, column):
    paths, _, _ = _write_systems(tmp_path)
    result = invoke("--measure", measure, *options, "--bootstrap", "50", "--permutations", "50", *paths)
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    own = [o for o in options if o not in ("--average", "macro")]
    for path, row in zip(paths, rows):
        alone = CliRunner().invoke(main, [measure, *own, *(["--average", "macro"] if column == "macro" else []),
                                          path])
        (summary,) = table(alone.stdout)
        assert row["value"] == summary[column], (path, row, summary)
        assert row["system"] == path


def test_files_and_columns_give_the_same_comparison(tmp_path):
    paths, wide, names = _write_systems(tmp_path)
    by_files = table(invoke("--measure", "mrr", *paths).stdout)
    result = invoke("--measure", "mrr", "--pred-columns", ",".join(names), wide)
    assert result.exit_code == 0, result.output
    by_columns = table(result.stdout)
    for a, b in zip(by_files, by_columns):
        assert b["system"] == "p@" + a["system"].rsplit("/", 1)[1][:-4]
        assert {k: v for k, v in a.items() if k not in ("system", "baseline")} == \
            {k: v for k, v in b.items() if k not in ("system", "baseline")}


def test_output_rows_and_columns(tmp_path):
    paths, _, _ = _write_systems(tmp_path)
    result = invoke("--measure", "ndcg", "--bootstrap", "200", "--permutations", "300", *paths)
    rows = table(result.stdout)
    assert list(rows[0]) == ["system", "baseline", "measure", "value", "ci_low", "ci_high", "groups", "delta",
                             "delta_ci_low", "delta_ci_high", "delta_t_ci_low", "delta_t_ci_high", "d_z", "g_z",
                             "es_e", "wins", "ties", "losses", "p_bootstrap", "p_randomization", "family",
                             "undefined", "signature"]
    assert [r["system"] for r in rows] == paths and {r["baseline"] for r in rows} == {paths[0]}
    assert rows[0]["delta"] == rows[0]["p_bootstrap"] == ""  # the baseline
    for row in rows[1:]:
        assert float(row["delta"]) == pytest.approx(float(row["value"]) - float(rows[0]["value"]), abs=1e-15)
        assert float(row["delta_ci_low"]) <= float(row["delta_ci_high"])
        assert 1 / 201 <= float(row["p_bootstrap"]) <= 1 and 1 / 301 <= float(row["p_randomization"]) <= 1
    assert rows[1]["signature"] == ("ndcg|gain:exp|ties:pessimistic|relevance:ranks|scores:no|missing_pred:drop|"
                                    "pred:lower|test:bootstrap,randomization|ci:0.95|bootstrap:200|permutations:300|"
                                    "seed:12345|family:baseline|systems:3|v:" + __version__)
    assert result.stderr == "rankeval: skipped 1 item without a gold value (blanks)\n"


def test_a_row_does_not_depend_on_the_other_predictions_compared(tmp_path):
    # group indices and swap bits do not depend on the statistics, and sums are exact (resample.py);
    # only what describes the whole family does: its size and ES_E (standardized by the ANOVA of all systems)
    paths, _, _ = _write_systems(tmp_path)
    two = table(invoke("--measure", "err", *paths[:2]).stdout)
    three = table(invoke("--measure", "err", *paths).stdout)
    family = ("es_e", "family", "signature")  # the signature counts the systems
    assert [{k: v for k, v in r.items() if k not in family} for r in three[:2]] == \
        [{k: v for k, v in r.items() if k not in family} for r in two]
    assert [r["family"] for r in three] == ["", "2", "2"] and [r["family"] for r in two] == ["", "1"]


def test_json_output_uses_null_for_the_baseline(tmp_path):
    paths, _, _ = _write_systems(tmp_path)
    lines = invoke("--output-format", "json", "--bootstrap", "50", "--permutations", "50", *paths).stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert records[0]["delta"] is None and records[0]["p_randomization"] is None
    assert isinstance(records[1]["p_bootstrap"], float) and records[1]["measure"] == "tau_micro"


def test_directions(tmp_path):
    paths, wide, names = _write_systems(tmp_path)
    text = open(wide).read().splitlines()
    # a negated copy of column s1, read as higher = better, must score the same as s1
    header = text[0] + "\tneg"
    body = [line + "\t" + (repr(-float(line.split("\t")[5])) if line.split("\t")[5] else "") for line in text[1:]]
    neg = tmp_path / "neg.tsv"
    neg.write_text("\n".join([header] + body) + "\n")
    rows = table(invoke("--measure", "err", "--pred-columns", "p@s1,neg:higher", str(neg)).stdout)
    assert rows[1]["delta"] == "0" and rows[1]["p_randomization"] == "1"
    assert rows[0]["signature"].count("pred:lower") == 1 and "pred:higher" in rows[1]["signature"]
    everything = table(invoke("--measure", "err", "--higher-better", "--pred-columns", "neg,p@s1:lower",
                              str(neg)).stdout)
    assert everything[0]["value"] == everything[1]["value"]


def test_tgt_columns_are_found_by_their_attribute_name(tmp_path):
    data = ("group\titem\tgold\tpred\tsrc@len\ttgt@len\ttgt@unk\n"
            "a\tx\t1\t\t5\t3\t0\na\ty\t2\t\t5\t4\t1\na\tz\t3\t\t5\t2\t2\n"
            "b\tx\t2\t\t4\t1\t1\nb\ty\t1\t\t4\t2\t0\n")
    result = invoke("--pred-columns", "unk,len", "--bootstrap", "20", "--permutations", "20", input=data)
    assert result.exit_code == 0, result.output
    assert [r["system"] for r in table(result.stdout)] == ["tgt@unk", "tgt@len"]
    bad = invoke("--pred-columns", "unk,nothing", input=data)
    assert bad.exit_code == 1 and "'nothing' is not a column" in bad.stderr
    assert bad.stderr.startswith("rankeval: <stdin>:")


@pytest.mark.parametrize("args, message", [
    (["ONE"], "give two or more files"),
    (["--pred-columns", "a,b", "ONE", "TWO"], "at most one file"),
    (["--k", "3", "ONE", "TWO"], "--k applies to --measure mrr or ndcg or err, not tau"),
    (["--measure", "mrr", "--tau-variant", "b", "ONE", "TWO"], "--tau-variant applies to --measure tau"),
        (["--measure", "mrr", "--ties", "b", "ONE", "TWO"], "--tau-variant applies to --measure tau"),
    (["--measure", "ndcg", "--rel-max", "n", "ONE", "TWO"], "--rel-max applies to --measure err"),
    (["--pred-columns", "onlyone"], "at least two columns"),
])
def test_usage_errors(tmp_path, args, message):
    paths, _, _ = _write_systems(tmp_path)
    args = [paths[0] if a == "ONE" else paths[1] if a == "TWO" else a for a in args]
    result = invoke(*args)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def _edit(path, tmp_path, name, edit):
    lines = open(path).read().splitlines()
    lines = edit(lines)
    out = tmp_path / name
    out.write_text("\n".join(lines) + "\n")
    return str(out)


def _swap(lines, i, j):
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def _replace_field(lines, i, field, value):
    parts = lines[i].split("\t")
    parts[field] = value
    lines[i] = "\t".join(parts)
    return lines


@pytest.mark.parametrize("edit, line, message", [
    # lines 2.. are rows; seg0 has the first rows (line 2 and 3 at least)
    (lambda ls: _swap(ls, 1, 2), 2, "group 'seg0': item 'sys1' where BASE has 'sys0' (same position)"),
    (lambda ls: _replace_field(ls, 2, 2, "9"), 3, "group 'seg0': item 'sys1' has gold 9 here and"),
    (lambda ls: [ls[0]] + [x for x in ls[1:] if not x.startswith("seg1\t")], None, "group 'seg2' where BASE has "
                                                                                  "group 'seg1'"),
    (lambda ls: ls[:-1], None, "has 4 items here and 5 in BASE"),
    (lambda ls: [x for x in ls if not x.startswith("seg24\t")], None, "group 'seg24' is missing from OTHER"),
])
def test_mismatched_inputs_are_data_errors_naming_file_line_and_group(tmp_path, edit, line, message):
    paths, _, _ = _write_systems(tmp_path, n_groups=25, seed=7)
    sizes = [sum(1 for x in open(paths[0]).read().splitlines() if x.startswith(f"seg{g}\t")) for g in (24,)]
    edited = _edit(paths[1], tmp_path, "edited.tsv", edit)
    message = message.replace("BASE", paths[0]).replace("OTHER", edited)
    if "has 4 items" in message and sizes[0] != 5:
        message = message.replace("4 items", f"{sizes[0] - 1} items").replace("5 in", f"{sizes[0]} in")
    result = invoke("--bootstrap", "10", "--permutations", "10", paths[0], edited)
    assert result.exit_code == 1, result.output
    (error,) = result.stderr.splitlines()
    where = paths[0] if "is missing from" in message else edited
    assert error.startswith(f"rankeval: {where}:"), error
    if line is not None:
        assert error.startswith(f"rankeval: {where}:{line}: "), error
    assert message in error, error


def test_groups_cut_into_batches_differently_still_align(tmp_path):
    # The readers cut batches by bytes; emulate different cuts: one stream in pieces of 7 groups,
    # the other in one batch.
    from rankeval_cli.batch import Batch, rebatch
    from rankeval_cli.formats import read
    from rankeval_cli.stats.systems import aligned

    paths, _, _ = _write_systems(tmp_path, n_groups=40)
    a = list(read(paths[0]))
    b = list(read(paths[1]))
    whole_b = rebatch(b, max_rows=10**9)
    pieces_a = []
    for batch in a:
        for start in range(0, batch.n_groups, 7):
            keep = (np.arange(batch.n_groups) >= start) & (np.arange(batch.n_groups) < start + 7)
            pieces_a.append(batch.select_groups(keep))
    pairs = list(aligned([pieces_a, whole_b], paths[:2]))
    assert sum(x.n_groups for x, _ in pairs) == 40
    assert all(isinstance(y, Batch) and list(x.group) == list(y.group) for x, y in pairs)


def test_seeded_output_is_byte_for_byte_reproducible(tmp_path):
    paths, _, _ = _write_systems(tmp_path)
    args = [sys.executable, "-m", "rankeval_cli", "compare", "--measure", "ndcg", "--seed", "99", *paths]
    env = {"RANKEVAL_PROGRESS": "0", "PATH": "/usr/bin:/bin"}
    first = subprocess.run(args, capture_output=True, check=True, env=env).stdout
    second = subprocess.run(args, capture_output=True, check=True, env=env).stdout
    assert first == second and b"seed:99|" in first
    other = invoke("--measure", "ndcg", "--seed", "100", *paths).stdout.encode()
    assert other != first


def test_real_jcml_features_unk_against_length(shared):
    # RankEval 2013's example data: WMT10 de-en, 184 5-way rankings, QE features per translation.
    jcml = shared / "jcml" / "wmt10-test.xf.jcml"
    if not jcml.exists():
        pytest.skip("wmt10-test.xf.jcml is not in the shared data")
    converted = CliRunner().invoke(main, ["convert", "--from", "jcml", str(jcml)])
    assert converted.exit_code == 0, converted.output
    result = invoke("--pred-columns", "unk,length", input=converted.stdout)
    assert result.exit_code == 0, result.output
    base, other = table(result.stdout)
    assert (base["system"], other["system"]) == ("tgt@unk", "tgt@length")
    # the unk score is what 'rankeval tau' gives with unk as the prediction (RankEval 2013's example)
    with_unk = CliRunner().invoke(main, ["convert", "--from", "jcml", "--pred-attr", "unk", str(jcml)])
    (tau,) = table(CliRunner().invoke(main, ["tau", "--average", "micro"], input=with_unk.stdout).stdout)
    assert base["value"] == tau["micro"]
    assert int(other["groups"]) + int(other["undefined"]) == 184
    for key in ("value", "ci_low", "ci_high", "delta", "delta_ci_low", "delta_ci_high", "p_bootstrap",
                "p_randomization"):
        assert math.isfinite(float(other[key])), key
    assert float(other["delta"]) == pytest.approx(float(other["value"]) - float(base["value"]), abs=1e-15)
    assert float(other["delta_ci_low"]) <= float(other["delta"]) <= float(other["delta_ci_high"])
    assert other["signature"].startswith("tau|ties:penalize|avg:micro|scores:no|pred:lower|"
                                         "test:bootstrap,randomization|ci:0.95|bootstrap:1000|"
                                         "permutations:1000|seed:12345|family:baseline|systems:2|v:")


def _segment_scores(missing=False):
    """MT systems A, B, C scored on 30 segments (one item per system in each group), as convert --from
    wmt-scores writes them (pred = -score, the raw score in an extra column)."""
    rng = np.random.default_rng(4)
    scores = {s: rng.random(30) * 0.4 + shift for s, shift in (("A", 0.3), ("B", 0.35), ("C", 0.3))}
    lines = ["group\titem\tgold\tpred\tlp\tscore"]
    for g in range(30):
        for s in "ABC":
            if missing and s == "C" and g == 3:
                continue
            v = float(scores[s][g])
            lines.append(f"seg{g}\t{s}\t\t{-v!r}\t{'de-en' if g % 2 else 'cs-en'}\t{v!r}")
    return "\n".join(lines) + "\n", scores


def test_items_are_systems_compares_mt_systems_over_segments():
    text, scores = _segment_scores()
    result = invoke("--items-are-systems", "--values", "score", "--higher-better", "--test", "t,wilcoxon,bootstrap",
                    "--output-format", "jsonl", input=text)
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(x) for x in result.stdout.splitlines()]
    assert [(r["system"], r["baseline"], r["measure"]) for r in rows] == [("A", "A", "score"), ("B", "A", "score"),
                                                                          ("C", "A", "score")]
    for row in rows:
        assert row["value"] == pytest.approx(scores[row["system"]].mean(), rel=1e-12) and row["groups"] == 30
    for row in rows[1:]:
        x, b = scores[row["system"]], scores["A"]
        assert row["p_t"] == pytest.approx(scipy_stats.ttest_rel(x, b).pvalue, rel=1e-9)
        assert row["p_wilcoxon"] == pytest.approx(scipy_stats.wilcoxon(x, b).pvalue, rel=1e-9)
        assert row["wins"] == int((x > b).sum()) and row["d_z"] == pytest.approx(
            (x - b).mean() / (x - b).std(ddof=1), rel=1e-9)
    by = invoke("--items-are-systems", "--values", "score", "--by", "lp", "--output-format", "jsonl", input=text)
    assert [json.loads(x)["lp"] for x in by.stdout.splitlines()] == ["cs-en"] * 3 + ["de-en"] * 3
    pred = [json.loads(x) for x in invoke("--items-are-systems", "--output-format", "jsonl",
                                          input=text).stdout.splitlines()]
    assert pred[0]["measure"] == "pred" and pred[0]["value"] == pytest.approx(-scores["A"].mean(), rel=1e-12)


def test_items_are_systems_missing_cells_and_duplicates():
    text, _ = _segment_scores(missing=True)
    result = invoke("--items-are-systems", "--values", "score", "--test", "t", input=text)
    assert result.exit_code == 0
    assert "1 of 30 groups lack a value of some system" in result.stderr
    rows = table(result.stdout)
    assert rows[2]["groups"] == "29"
    twice = text.replace("seg1\tB\t", "seg1\tA\t", 1)
    result = invoke("--items-are-systems", input=twice)
    assert result.exit_code == 1 and "item 'A' appears twice in group 'seg1'" in result.stderr
    for args, message in ((["--values", "score"], "--values applies to --items-are-systems"),
                          (["--items-are-systems", "--pred-columns", "a,b"], "does not apply")):
        bad = invoke(*args, input=text)
        assert bad.exit_code == 2 and message in bad.stderr


def test_one_group_gives_no_bootstrap_answer(tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("group\titem\tgold\tpred\ng\tx\t1\t1\ng\ty\t2\t2\ng\tz\t3\t3\n")
    b.write_text("group\titem\tgold\tpred\ng\tx\t1\t3\ng\ty\t2\t2\ng\tz\t3\t1\n")
    result = invoke(str(a), str(b))
    assert result.exit_code == 0
    row = table(result.stdout)[1]
    assert row["p_bootstrap"] == "nan" and row["delta_ci_low"] == "nan" and row["ci_low"] == "nan"
    assert row["p_randomization"] == "1"  # one swap can only give ±δ
    assert "fewer than two groups: no bootstrap interval or p_bootstrap" in result.stderr


def test_a_prediction_of_several_runs_is_compared_on_its_mean_per_group(tmp_path):
    paths, _, _ = _write_systems(tmp_path, noises=(0.8, 1.5, 3.0, 2.0))
    result = invoke("--measure", "mrr", "--test", "t", "--output-format", "jsonl", paths[0],
                    "--system", f"seeds={paths[1]},{paths[2]},{paths[3]}")
    assert result.exit_code == 0, result.stderr
    base, seeds = [json.loads(x) for x in result.stdout.splitlines()]
    alone = [json.loads(x) for x in invoke("--measure", "mrr", "--test", "t", "--output-format", "jsonl",
                                           *paths).stdout.splitlines()]
    run_values = [r["value"] for r in alone[1:]]
    assert seeds["system"] == "seeds" and seeds["runs"] == 3
    assert seeds["value"] == pytest.approx(np.mean(run_values), rel=1e-12)
    assert seeds["runs_sd"] == pytest.approx(np.std(run_values, ddof=1), rel=1e-9)
    per_group = []
    for path in paths:
        out = CliRunner().invoke(main, ["mrr", "--per-group", "--output-format", "jsonl", path]).stdout
        per_group.append([r["mrr"] for r in map(json.loads, out.splitlines()) if "group" in r])
    mean = np.mean(per_group[1:], axis=0)
    assert seeds["p_t"] == pytest.approx(scipy_stats.ttest_rel(mean, per_group[0]).pvalue, rel=1e-9)
