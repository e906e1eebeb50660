"""Model files read back by ``learn predict`` (rankeval_cli/learn/model_file.py), and the numbers
that once blanked the predictions without a word.

Every case ends in the predictions or in one line ``rankeval: FILE:LINE: message``: never a
traceback, a numpy warning or a blank score.
"""

from __future__ import annotations

import gzip
import json

import pytest

from robust import check_exit, invoke

STREAM = ("group\titem\tgold\tpred\tf1\tf2\n"
          "g1\ta\t1\t\t0.5\t1\ng1\tb\t2\t\t0.1\t3\ng2\ta\t1\t\t0.9\t2\ng2\tb\t2\t\t0.2\t0\n")


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("model") / "model.json"
    result = invoke(["learn", "train", "--model", "ranksvm", "--features", "f1,f2", "-o", str(path)], STREAM)
    assert result.exit_code == 0, result.stderr
    return json.loads(path.read_text())


def written(obj: dict) -> str:
    """A model as the writer lays it out: one top-level key per line (line 2 is "format")."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items()) + "\n}\n"


def line_of(key: str, obj: dict) -> int:
    return 2 + list(obj).index(key)


def predict(tmp_path, text: str | bytes, stream: str = STREAM):
    path = tmp_path / "model.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return invoke(["learn", "predict", "--model", str(path)], stream), str(path)


def changed(model: dict, key: str, value) -> dict:
    obj = json.loads(json.dumps(model))
    if "." in key:
        outer, inner = key.split(".")
        obj[outer][inner] = value
    else:
        obj[key] = value
    return obj


def test_a_model_predicts(tmp_path, model):
    result, _ = predict(tmp_path, written(model))
    assert result.exit_code == 0 and result.stderr == ""
    scores = [row.split("\t")[-1] for row in result.stdout.splitlines()[1:]]
    assert len(scores) == 4 and all(scores)


def test_a_compressed_model_file(tmp_path, model):
    result, _ = predict(tmp_path, gzip.compress(written(model).encode()))
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("key, value, fragment", [
    ("weights.w", ["NaN", 1.0], "NaN is not a number JSON allows"),
    ("weights.w", ["Infinity", 1.0], "Infinity is not a number JSON allows"),
    ("scaling.mean", ["-Infinity", 1.0], "-Infinity is not a number JSON allows"),
    ("scaling.std", [0.0, 1.0], "the standard deviation of feature 'f1' is 0.0: it must be positive"),
    ("scaling.std", [-1.0, 1.0], "the standard deviation of feature 'f1' is -1.0"),
    ("weights.b", "HUGE400", "b is not a finite number"),  # an integer no float holds
    ("weights.b", "HUGE5000", "an integer of 5000 digits is no float a model can hold"),
    ("weights.w", [True, False], "w[0] must be a number, found true"),
    ("weights.w", ["a", "b"], "w[0] must be a number, found \"a\""),
    ("weights.w", [1.0], "w has 1 numbers, expected 2"),
    ("scaling.mean", [[1], [2]], "scaling mean[0] must be a number, found list"),
    ("features", [1, 2], "a feature name must be a non-empty string, found 1"),
    ("features", [["f1"], {"a": 1}], "a feature name must be a non-empty string, found list"),
    ("features", ["f1", "f1"], "feature 'f1' is named twice"),
    ("features", [], "no features"),
    ("features", ["f1", ""], "a feature name must be a non-empty string"),
    ("scaling", None, "'scaling' must be an object, found null"),
    ("weights", [1, 2], "'weights' must be an object, found list"),
    ("objective", "ranknet", "unknown objective 'ranknet'"),
    ("scorer", "forest", "unknown scorer 'forest'"),
    ("relevance", 3, "'relevance' must be a string, found 3"),
    ("training", [], "'training' must be an object"),
])
def test_a_malformed_model_is_an_error_at_its_key(tmp_path, model, key, value, fragment):
    obj = changed(model, key, value)
    text = written(obj)
    for quoted in ('"NaN"', '"Infinity"', '"-Infinity"'):
        text = text.replace(quoted, quoted.strip('"'))
    text = text.replace('"HUGE400"', "9" * 400).replace('"HUGE5000"', "9" * 5000)
    result, path = predict(tmp_path, text)
    message = check_exit(result, source=path, line=line_of(key.split(".")[0], obj))
    assert fragment in message


@pytest.mark.parametrize("hidden", ["x", 0, -3, True, 10**12])
def test_an_mlp_needs_a_sensible_hidden_size(tmp_path, model, hidden):
    obj = changed(changed(model, "scorer", "mlp"), "hyperparameters.hidden", hidden)
    result, path = predict(tmp_path, written(obj))
    message = check_exit(result, source=path)
    assert "hidden" in message or "W must be a list" in message


@pytest.mark.parametrize("text, fragment", [
    ('{"a":' * 100000 + "1" + "}" * 100000, "nested too deeply"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ("", "not a JSON model file"),
    ("{\n \"format\": \"rankeval-learn-model\",\n", "not a JSON model file"),
    ("[1, 2]", "not a rankeval model file"),
    ('{"format": "something else"}', "not a rankeval model file"),
    ('{"format": "rankeval-learn-model", "version": 99}', "model file version 99 is not supported"),
    (b"\xff\xfe{}", "invalid UTF-8"),
])
def test_what_is_not_a_model_file(tmp_path, text, fragment):
    result, path = predict(tmp_path, text)
    assert fragment in check_exit(result, source=path)


# --- numbers that once blanked predictions --------------------------------------------------------------

@pytest.mark.parametrize("value, fragment", [
    ("1e301", "'1e301' is outside the supported range (|value| <= 1e300)"),
    ("-1e308", "is outside the supported range"),
    ("inf", "'inf' is not a finite number"),
    ("nan", "'nan' is not a finite number"),
])
def test_feature_values_beyond_the_limit_are_errors(tmp_path, model, value, fragment):
    stream = STREAM.replace("g1\tb\t2\t\t0.1\t3", f"g1\tb\t2\t\t{value}\t3")
    result, _ = predict(tmp_path, written(model), stream)
    assert fragment in check_exit(result, line=3)
    train = invoke(["learn", "train", "--model", "ranksvm", "--features", "f1,f2"], stream)
    assert fragment in check_exit(train, line=3)


def test_the_limit_itself_is_a_value(tmp_path, model):
    stream = STREAM.replace("g1\tb\t2\t\t0.1\t3", "g1\tb\t2\t\t1e300\t3")
    result, _ = predict(tmp_path, written(model), stream)
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr


@pytest.mark.parametrize("std, weights, stream_value", [
    ([1e-300, 1.0], None, "1e300"),  # (x - mean) / std overflows
    (None, [1e308, 1e308], "0.5"),  # x . w overflows
    (None, [1e300, 1e300], "0.9"),  # beyond ±1e300 without overflowing
])
def test_a_score_that_overflows_is_an_error_at_its_item(tmp_path, model, std, weights, stream_value):
    obj = model
    if std is not None:
        obj = changed(obj, "scaling.std", std)
    if weights is not None:
        obj = changed(obj, "weights.w", weights)
    stream = STREAM.replace("g1\ta\t1\t\t0.5\t1", f"g1\ta\t1\t\t{stream_value}\t1")
    result, _ = predict(tmp_path, written(obj), stream)
    message = check_exit(result, line=2)  # every stderr line is rankeval's: no numpy warning
    assert "the model's score for item 'a' is" in message
