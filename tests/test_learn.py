"""learn: objectives (hand cases, slow implementations, finite-difference gradients), scorers,
feature selection and its refusals, model files, determinism, cross-validation folds."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import slow_learn
from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.learn import cv, data, train
from rankeval_cli.learn.model import Model, settings, train_model
from rankeval_cli.learn.objectives import objective
from robust import invoke

OBJECTIVES = ("ranksvm", "listnet", "listmle", "regression")


def random_groups(seed, n_groups=30, max_size=7, levels=3):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, n_groups)
    offsets = offsets_from_sizes(sizes)
    n = int(offsets[-1])
    return offsets, rng.integers(0, levels, n).astype(float), rng.normal(size=n) * 2


def numeric_gradient(f, x, eps=1e-6):
    grad = np.empty_like(x)
    for i in range(len(x)):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


# --- hand-computed cases ---------------------------------------------------------------------------

def test_hand_cases():
    off = np.array([0, 2])
    u, s = np.array([1.0, 0.0]), np.array([0.3, 0.5])
    # ranksvm: one pair, margin 1 - (0.3 - 0.5) = 1.2
    m = objective("ranksvm")
    assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(1.2 ** 2)
    assert m.loss(s, m.prepare(u, off, loss="hinge"))[0] == pytest.approx(1.2)
    # listnet: -Σ P_y log P_s with P_y = (e/(e+1), 1/(e+1))
    py = [math.e / (math.e + 1), 1 / (math.e + 1)]
    ps = [math.exp(0.3) / (math.exp(0.3) + math.exp(0.5)), math.exp(0.5) / (math.exp(0.3) + math.exp(0.5))]
    m = objective("listnet")
    assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(-(py[0] * math.log(ps[0]) + py[1] * math.log(ps[1])))
    # listmle: log(e^0.3 + e^0.5) - 0.3 + (log e^0.5 - 0.5)
    m = objective("listmle")
    assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(math.log(math.exp(0.3) + math.exp(0.5)) - 0.3)
    # listmle with a tie (Breslow): both items chosen among both
    assert m.loss(s, m.prepare(np.array([1.0, 1.0]), off))[0] == pytest.approx(
        2 * math.log(math.exp(0.3) + math.exp(0.5)) - 0.8)
    m = objective("regression")
    assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(((0.3 - 1) ** 2 + 0.5 ** 2) / 4)


# --- slow implementations on random inputs ----------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_against_slow_implementations(seed):
    off, u, s = random_groups(seed)
    for name, slow in (("ranksvm", lambda: slow_learn.ranksvm(s, u, off)),
                       ("listnet", lambda: slow_learn.listnet(s, u, off)),
                       ("listmle", lambda: slow_learn.listmle(s, u, off)),
                       ("regression", lambda: slow_learn.regression(s, u))):
        m = objective(name)
        assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(slow(), rel=1e-12), name
    m = objective("ranksvm")
    assert m.loss(s, m.prepare(u, off, loss="hinge"))[0] == pytest.approx(
        slow_learn.ranksvm(s, u, off, "hinge"), rel=1e-12)


def test_listmle_without_ties_is_xia_eq5():
    rng = np.random.default_rng(3)
    sizes = [4, 1, 6, 3]
    off = offsets_from_sizes(np.array(sizes))
    u = np.concatenate([rng.permutation(k).astype(float) for k in sizes])
    s = rng.normal(size=int(off[-1]))
    m = objective("listmle")
    expected = 0.0
    for g in range(len(sizes)):
        uu, ss = u[off[g]:off[g + 1]], s[off[g]:off[g + 1]]
        expected += slow_learn.listmle_permutation(list(ss), list(np.argsort(-uu)))
    assert m.loss(s, m.prepare(u, off))[0] == pytest.approx(expected / len(sizes), rel=1e-12)


def test_listmle_is_stable_for_extreme_scores():
    off = np.array([0, 3])
    u = np.array([2.0, 1.0, 0.0])
    s = np.array([800.0, -900.0, 1000.0])
    m = objective("listmle")
    value, grad = m.loss(s, m.prepare(u, off))
    assert math.isfinite(value) and np.isfinite(grad).all()
    assert value == pytest.approx((1000 - 800) + (1000 + 900))  # log-sum-exp ≈ max


# --- gradients by finite differences ----------------------------------------------------------------

@pytest.mark.parametrize("name", OBJECTIVES)
@pytest.mark.parametrize("seed", range(3))
def test_loss_gradients(name, seed):
    off, u, s = random_groups(seed)
    m = objective(name)
    ctx = m.prepare(u, off)
    _, grad = m.loss(s, ctx)
    assert np.allclose(grad, numeric_gradient(lambda x: m.loss(x, ctx)[0], s), atol=1e-7)


@pytest.mark.parametrize("name,hidden", [("ranksvm", 0), ("listnet", 0), ("listmle", 0), ("regression", 0),
                                         ("listnet", 4), ("listmle", 4)])
def test_full_objective_gradients(name, hidden):
    off, u, _ = random_groups(7, n_groups=12)
    X = np.random.default_rng(8).normal(size=(int(off[-1]), 3))
    f, net, _ = train.objective_function(name, X, u, off, l2=0.3, hidden=hidden)
    theta = np.random.default_rng(9).normal(size=net.size) * 0.5
    value, grad = f(theta)
    assert np.allclose(grad, numeric_gradient(lambda t: f(t)[0], theta), atol=1e-6)


def test_pairs_are_every_within_group_pair_with_differing_gold():
    from rankeval_cli.learn.groups import within_group_pairs

    off, u, _ = random_groups(11)
    better, worse = within_group_pairs(u, off)
    expected = {(i, j) for g in range(len(off) - 1) for i in range(off[g], off[g + 1])
                for j in range(off[g], off[g + 1]) if u[i] > u[j]}
    assert set(zip(better.tolist(), worse.tolist())) == expected and len(better) == len(expected)


# --- training ----------------------------------------------------------------------------------------

def synthetic(seed=0, n_groups=200, size=5, d=4, noise=0.3):
    rng = np.random.default_rng(seed)
    n = n_groups * size
    X = rng.normal(size=(n, d)) * [1, 10, 0.1, 3][:d] + [0, 5, 1, -2][:d]
    w = np.array([1.0, -0.2, 5.0, 0.5])[:d]
    utility = X @ w + rng.normal(size=n) * noise
    gold = np.zeros(n)
    off = offsets_from_sizes(np.full(n_groups, size))
    for g in range(n_groups):  # ranks 1..size, best = highest utility (test helper only)
        seg = utility[off[g]:off[g + 1]]
        gold[off[g]:off[g + 1]] = np.argsort(np.argsort(-seg)) + 1
    return X, gold, off


def table_of(X, gold, off, relevance="ranks"):
    names = [f"x{i}" for i in range(X.shape[1])]
    return data.Table(X=X, utility=data.utility_of(gold, relevance), offsets=off,
                      group=np.array([f"g{i}" for i in range(len(off) - 1)], dtype=object),
                      names=names, batches=[], sources=["synthetic"])


@pytest.mark.parametrize("name", OBJECTIVES)
def test_models_learn_the_order(name):
    from rankeval_cli.measures.tau import tau

    X, gold, off = synthetic()
    model = train_model(table_of(X, gold, off), name, settings(name), "ranks")
    assert model.training["converged"]
    scores = model.scores(X)
    taus = [tau(gold[off[g]:off[g + 1]], -scores[off[g]:off[g + 1]], "b") for g in range(len(off) - 1)]
    assert np.mean(taus) > 0.8


def test_relevance_ranks_equals_negated_grades():
    X, gold, off = synthetic(1)
    a = train_model(table_of(X, gold, off, "ranks"), "ranksvm", settings("ranksvm"), "ranks")
    b = train_model(table_of(X, 10 - gold, off, "grades"), "ranksvm", settings("ranksvm"), "grades")
    assert np.allclose(a.theta, b.theta, rtol=1e-9, atol=1e-12)


def test_scaling_is_learned_on_training_rows_only():
    X, gold, off = synthetic(2)
    model = train_model(table_of(X, gold, off), "listnet", settings("listnet"), "ranks")
    assert np.allclose(model.scaler.mean, X.mean(axis=0)) and np.allclose(model.scaler.std, X.std(axis=0))


def test_model_round_trip_is_exact():
    X, gold, off = synthetic(3)
    for name, hidden in (("ranksvm", 0), ("listmle", 3)):
        model = train_model(table_of(X, gold, off), name, settings(name, hidden=hidden), "ranks")
        back = Model.from_dict(json.loads(model.to_json()))
        assert back.theta.tobytes() == model.theta.tobytes()
        assert back.scores(X).tobytes() == model.scores(X).tobytes()
        assert back.to_json() == model.to_json()


# --- folds -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,k,seed", [(43, 5, 1), (10, 10, 2), (7, 3, 12345)])
def test_folds_partition_groups(n, k, seed):
    fold = cv.assign_folds(n, k, seed)
    counts = np.bincount(fold, minlength=k)
    assert counts.sum() == n and counts.max() - counts.min() <= 1
    assert (cv.assign_folds(n, k, seed) == fold).all()


def test_each_fold_model_never_sees_its_groups():
    X, gold, off = synthetic(4, n_groups=23)
    table = table_of(X, gold, off)
    scores, fold_of_row, models = cv.cross_validate(table, "ranksvm", settings("ranksvm"), "ranks", 4, 5)
    fold_of_group = cv.assign_folds(23, 4, 5)
    assert (np.repeat(fold_of_group, 5) == fold_of_row).all()
    for k, model in enumerate(models):
        train_part = data.groups_of(table, fold_of_group != k)
        rows, o, _, _ = data.training_rows(train_part.utility, train_part.offsets, True)
        assert model.training["sha256"] == data.data_signature(train_part.X[rows], train_part.utility[rows], o)
        assert model.training["groups"] == int((fold_of_group != k).sum())
        held = fold_of_row == k
        assert scores[held].tobytes() == model.scores(X[held]).tobytes()
    assert not np.isnan(scores).any()


# --- commands: refusals, determinism -------------------------------------------------------------------

TSV = ("group\titem\tgold\tpred\tf1\tf2\tname\tconst\n"
       "q1\ta\t1\t\t0.5\t3\tx\t7\n"
       "q1\tb\t2\t\t0.1\t1\ty\t7\n"
       "q1\tc\t3\t\t-0.4\t2\tz\t7\n"
       "q2\ta\t2\t\t0.2\t5\tx\t7\n"
       "q2\tb\t1\t\t0.9\t4\ty\t7\n"
       "q3\ta\t1\t\t1.5\t0\tx\t7\n"
       "q3\tb\t\t\t0.0\t2\ty\t7\n"
       "q3\tc\t2\t\t0.3\t1\tz\t7\n")


def train_cli(args, data=TSV):
    return invoke(["learn", "train", *args], data)


def test_train_predict_pipeline(tmp_path):
    model = tmp_path / "m.json"
    result = train_cli(["--model", "ranksvm", "--features", "f*", "-o", str(model)])
    assert result.exit_code == 0, result.output
    assert "1 item without a gold value" in result.stderr
    obj = json.loads(model.read_text())
    assert obj["format"] == "rankeval-learn-model" and obj["version"] == 1
    assert obj["features"] == ["f1", "f2"] and obj["hyperparameters"]["lambda"] == 0.1
    assert obj["training"]["groups"] == 3 and obj["training"]["items"] == 7 and len(obj["training"]["sha256"]) == 64
    out = invoke(["learn", "predict", "--model", str(model)], TSV)
    assert out.exit_code == 0
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    assert lines[0] == ["group", "item", "gold", "pred", "f1", "f2", "name", "const", "score"]
    for row in lines[1:]:
        assert float(row[3]) == -float(row[8])
    w = np.array(obj["weights"]["w"])
    x = (np.array([[0.5, 3.0]]) - obj["scaling"]["mean"]) / obj["scaling"]["std"]
    assert float(lines[1][8]) == pytest.approx(float((x @ w)[0]) + obj["weights"]["b"], rel=1e-12)


def test_pattern_skips_text_and_constant_columns_and_names_them(tmp_path):
    result = train_cli(["--model", "listnet", "--features", "f*,n*,c*", "-o", str(tmp_path / "m.json")])
    assert result.exit_code == 0
    assert "features left out: name holds text" in result.stderr
    assert "left out feature constant on the training data: const" in result.stderr
    assert json.loads((tmp_path / "m.json").read_text())["features"] == ["f1", "f2"]


@pytest.mark.parametrize("args,fragment", [
    (["--features", "name"], "'name': 'x' is not a number"),
    (["--features", "f1,const"], "constant on the training data"),
    (["--features", "f9"], "not in the input: f9"),
    (["--features", "z*"], "matching no column: z*"),
])
def test_refusals_exit_1_with_one_line(args, fragment):
    result = train_cli(["--model", "ranksvm", *args])
    assert result.exit_code == 1
    assert fragment in result.stderr.splitlines()[-1] and result.stderr.splitlines()[-1].startswith("rankeval: <stdin>")


def test_missing_feature_value_is_an_error_at_its_line():
    bad = TSV.replace("q2\tb\t1\t\t0.9", "q2\tb\t1\t\t")
    result = train_cli(["--model", "ranksvm", "--features", "f1"], bad)
    assert result.exit_code == 1
    assert "<stdin>:6:" in result.stderr and "missing (empty)" in result.stderr


def test_model_features_missing_from_input_are_named(tmp_path):
    model = tmp_path / "m.json"
    assert train_cli(["--model", "ranksvm", "--features", "f1,f2", "-o", str(model)]).exit_code == 0
    result = invoke(["learn", "predict", "--model", str(model)], TSV.replace("\tf2\t", "\tg2\t"))
    assert result.exit_code == 1 and "missing from the input: f2" in result.stderr


def test_bad_model_files(tmp_path):
    for text, fragment in (("{", "not a JSON model"), ('{"format": "x"}', "not a rankeval model"),
                           ('{"format": "rankeval-learn-model", "version": 9}', "version 9")):
        path = tmp_path / "m.json"
        path.write_text(text)
        result = invoke(["learn", "predict", "--model", str(path)], TSV)
        assert result.exit_code == 1 and fragment in result.stderr


@pytest.mark.parametrize("args", [["--model", "ranksvm", "--hidden", "3"], ["--model", "listnet", "--loss", "hinge"],
                                  ["--model", "svm"], ["--model", "ranksvm"]])
def test_usage_errors_exit_2(args):
    result = train_cli([*args, *(["--features", "f*"] if args != ["--model", "ranksvm"] else [])])
    assert result.exit_code == 2


def test_seeded_runs_are_byte_identical(tmp_path):
    outputs = []
    for _ in range(2):
        a = train_cli(["--model", "listmle", "--hidden", "3", "--seed", "7", "--features", "f*"]).stdout
        b = invoke(["learn", "cv", "--model", "listnet", "--folds", "3", "--seed", "3", "--features", "f*"], TSV).stdout
        outputs.append((a, b))
    assert outputs[0] == outputs[1]
    other = train_cli(["--model", "listmle", "--hidden", "3", "--seed", "8", "--features", "f*"]).stdout
    assert other != outputs[0][0]


def test_cv_output_streams_to_a_measure():
    out = invoke(["learn", "cv", "--model", "regression", "--folds", "3", "--features", "f*"], TSV)
    assert out.exit_code == 0
    header = out.stdout.splitlines()[0].split("\t")
    assert header[-2:] == ["score", "fold"]
    folds = {}
    for line in out.stdout.splitlines()[1:]:
        row = line.split("\t")
        folds.setdefault(row[0], set()).add(row[-1])
    assert all(len(v) == 1 for v in folds.values()) and set().union(*folds.values()) == {"1", "2", "3"}
    tau = invoke(["tau"], out.stdout)
    assert tau.exit_code == 0 and tau.stdout.startswith("measure")


def test_too_few_groups_for_folds():
    result = invoke(["learn", "cv", "--model", "ranksvm", "--folds", "5", "--features", "f*"], TSV)
    assert result.exit_code == 1 and "5 folds need at least 5 groups" in result.stderr


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\n\n", b"group\titem\tgold\tpred\tf1\n"])
def test_empty_inputs(data, tmp_path):
    model = tmp_path / "m.json"
    assert train_cli(["--model", "ranksvm", "--features", "f1", "-o", str(model)]).exit_code == 0
    for args in (["learn", "predict", "--model", str(model)],
                 ["learn", "cv", "--model", "ranksvm", "--features", "f1"]):
        result = invoke(args, data)
        assert result.exit_code == 0 and len(result.stdout.splitlines()) <= 1, (args, result.stdout)  # no rows
    result = invoke(["learn", "train", "--model", "ranksvm", "--features", "f1"], data)
    assert result.exit_code == 1 and result.stderr.startswith("rankeval: <input>: no groups")


def test_learn_help_lists_subcommands_and_each_has_help():
    result = invoke(["learn", "--help"])
    assert result.exit_code == 0 and all(name in result.stdout for name in ("train", "predict", "cv"))
    for name in ("train", "predict", "cv"):
        assert invoke(["learn", name, "--help"]).exit_code == 0


def test_tsv_and_jsonl_inputs_give_the_same_model():
    tsv = train_cli(["--model", "listnet", "--features", "f1,f2"]).stdout
    jsonl = invoke(["convert", "--output-format", "jsonl"], TSV).stdout
    assert train_cli(["--model", "listnet", "--features", "f1,f2"], jsonl).stdout == tsv


def test_cv_models_dir_holds_each_fold_model(tmp_path):
    out = invoke(["learn", "cv", "--model", "listmle", "--hidden", "2", "--folds", "3", "--seed", "4",
                  "--features", "f*", "--models-dir", str(tmp_path / "m")], TSV)
    assert out.exit_code == 0
    models = [json.loads((tmp_path / "m" / f"fold{k}.json").read_text()) for k in (1, 2, 3)]
    assert [m["training"]["fold"] for m in models] == [1, 2, 3]
    assert all(m["training"]["folds"] == {"k": 3, "seed": 4} and m["scorer"] == "mlp" for m in models)
    # each fold's model reproduces that fold's scores
    rows = [line.split("\t") for line in out.stdout.splitlines()[1:]]
    for k, m in enumerate(models, start=1):
        path = tmp_path / f"fold{k}.json"
        path.write_text(json.dumps(m))
        pred = invoke(["learn", "predict", "--model", str(path)], TSV).stdout.splitlines()[1:]
        for row, line in zip(rows, pred):
            if row[-1] == str(k):
                assert line.split("\t")[-1] == row[-2]
