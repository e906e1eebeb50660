"""``convert --scores``: filling pred from WMT segment-level metric scores (docs/formats.md)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.errors import DataError

from rankeval_cli.batch import concat
from rankeval_cli.formats import read
from rankeval_cli.formats.join import join_scores
from rankeval_cli.formats.wmtids import system_key
from helpers.cli import cli, ok
from helpers.conversion import read_all

DATA = Path(__file__).resolve().parent / "data"
CHRF = DATA / "wmt20-chrF-excerpt.seg.score"


@pytest.mark.parametrize("system, key", [
    ("newstest2015.online-B.0.de-en", "online-B.0"),          # docs/formats.md
    ("newstest2013.fr-en.KIT_primary.2658", "KIT_primary.2658"),
    ("newstest2013.fr-en.online-B", "online-B"),
    ("newstest2016.uedin-nmt.4361.cs-en", "uedin-nmt.4361"),
    ("newstest2014.uedin-wmt14.3023", "uedin-wmt14.3023"),
    ("it-test2016.qtl-Moses.4268.en-eu", "qtl-Moses.4268"),
    ("Online-A.1570", "Online-A.1570"),
    ("uedin-wmt12", "uedin-wmt12"),
    ("_ref", "_ref"),
    ("cu-zeman.cs-en", "cu-zeman.cs-en"),  # no test-set prefix: nothing is stripped
])
def test_system_key(system, key):
    assert system_key(system) == key


def pairs_with_scores(tsv_text: str, lp: str) -> dict:
    """(segment, better, worse) -> (pred better, pred worse) from converted TSV text."""
    lines = [line.split("\t") for line in tsv_text.splitlines()]
    col = {name: i for i, name in enumerate(lines[0])}
    rows = [r for r in lines[1:] if r[col["lp"]] == lp]
    out = {}
    for better, worse in zip(rows[0::2], rows[1::2]):
        assert better[col["group"]] == worse[col["group"]] and better[col["gold"]] == "1"
        key = (better[col["segment"]], better[col["item"]], worse[col["item"]])
        out[key] = (better[col["pred"]], worse[col["pred"]])
    return out


def chrf_scores(path: Path, lp: str, refset: str = "newstest2020") -> dict:
    """(DOCID::SEGID, system) -> score, read plainly from a WMT20 score file."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return {(f"{r[5]}::{r[6]}", r[4]): float(r[7]) for r in rows if r[1] == lp and r[3] == refset}


def check_da_equals_darr(da: Path, darr: Path, scores: Path):
    from_da = ok(cli("convert", "--from", "wmt-da", da, "--scores", scores))
    from_darr = ok(cli("convert", "--from", "darr", "--min-diff", "25", darr, "--scores", scores))
    for result in (from_da, from_darr):
        assert "have no score" not in result.stderr
        assert "en-de newstest2020 has reference sets newstest2020, newstestB2020, newstestP2020; " \
               "using newstest2020" in result.stderr
    a, b = pairs_with_scores(from_da.stdout, "en-de"), pairs_with_scores(from_darr.stdout, "en-de")
    assert a == b and len(a) > 0
    expected = chrf_scores(scores, "en-de")
    for (segment, better, worse), (p_better, p_worse) in a.items():
        assert not better.startswith("Human") and not worse.startswith("Human")
        assert float(p_better) == -expected[segment, better] and float(p_worse) == -expected[segment, worse]
    return a


def test_da_and_darr_excerpts_give_the_same_scored_pairs():
    pairs = check_da_equals_darr(DATA / "wmt20-da-excerpt-en-de.csv", DATA / "wmt20-darr-excerpt.csv", CHRF)
    assert len(pairs) == 20
    # Tencent over PROMT on huffingtonpost.com.19347::4: chrF 0.51866 and 0.3932 in the excerpt
    scores = chrf_scores(CHRF, "en-de")
    key = ("huffingtonpost.com.19347::4", "Tencent_Translation.1520", "PROMT_NMT.73")
    assert pairs[key] == (repr(-scores[key[0], key[1]]), repr(-scores[key[0], key[2]]))


def test_acceptance_on_the_real_files(shared):
    pairs = check_da_equals_darr(shared / "wmt20-da/metrics-ad-seg-scores-en-de.csv",
                                 shared / "wmt20-da/DArr-seglevel.en-de+cs-en.regenerated.csv.gz",
                                 shared / "wmt20-da/chrF.seg.score.gz")
    assert len(pairs) == 9339


def test_darr_cs_en_rows_scored_too():
    result = ok(cli("convert", "--from", "darr", "--min-diff", "25", DATA / "wmt20-darr-excerpt.csv",
                    "--scores", CHRF))
    pairs = pairs_with_scores(result.stdout, "cs-en")
    scores = chrf_scores(CHRF, "cs-en")
    assert len(pairs) == 3
    for (segment, better, worse), (p_better, p_worse) in pairs.items():
        assert float(p_better) == -scores[segment, better] and float(p_worse) == -scores[segment, worse]


def test_score_direction_lower_keeps_the_sign():
    higher = read_joined(DATA / "wmt20-darr-excerpt.csv", "darr", CHRF)
    lower = read_joined(DATA / "wmt20-darr-excerpt.csv", "darr", CHRF, higher_better=False)
    assert np.array_equal(higher.pred, -lower.pred) and (lower.pred > 0).all()


def test_refset_choice():
    chosen = read_joined(DATA / "wmt20-darr-excerpt.csv", "darr", CHRF, refset="newstestB2020")
    scores = chrf_scores(CHRF, "en-de", refset="newstestB2020")
    en_de = chosen.extra["lp"] == "en-de"
    expected = [-scores[s, i] for s, i in zip(chosen.extra["segment"][en_de].tolist(), chosen.item[en_de].tolist())]
    assert chosen.pred[en_de].tolist() == expected
    # cs-en has only newstest2020 references: its items get no score under refset newstestB2020
    assert np.isnan(chosen.pred[~en_de]).all()


def read_joined(path, fmt, scores, **options):
    messages = []
    batch = concat(list(join_scores(read(str(path), fmt), str(scores), report=messages.append, **options)))
    batch.messages = messages
    return batch


# ---- WMT13 / WMT16 system ids against older score layouts -------------------------------------

WMT16_IDS = {  # the excerpt's ids and the ids a WMT16 metric file would use, stripped by hand
    "newstest2016.LIMSI.4422.ro-en": "LIMSI.4422", "newstest2016.jhu-pbmt.4284.ro-en": "jhu-pbmt.4284",
    "newstest2016.online-A.0.ro-en": "online-A.0", "newstest2016.online-B.0.ro-en": "online-B.0",
    "newstest2016.uedin-nmt.4302.ro-en": "uedin-nmt.4302", "newstest2016.uedin-pbmt.4363.ro-en": "uedin-pbmt.4363",
    "newstest2016.uedin-syntax.4272.ro-en": "uedin-syntax.4272"}


def wmt16_score_file(tmp_path, leave_out=()) -> tuple[Path, dict]:
    """A seg-wmt10 layout file: score = segment / 1000 + (system number) / 10, half the ids unstripped."""
    lines, scores = [], {}
    for n, (full, short) in enumerate(sorted(WMT16_IDS.items())):
        for segment in (651, 652, 684):
            if (short, segment) in leave_out:
                continue
            scores[short, str(segment)] = segment / 1000 + n / 10
            name = full if n % 2 else short
            lines.append(f"SENTBLEU\tro-en\tnewstest2016\t{name}\t{segment}\t{scores[short, str(segment)]!r}")
    path = tmp_path / "sentBLEU.seg.score"
    path.write_text("\n".join(lines) + "\n")
    return path, scores


def test_wmt16_ids_and_segments(tmp_path):
    path, scores = wmt16_score_file(tmp_path)
    b = read_joined(DATA / "wmt16-excerpt.ron-eng.csv", "wmt-rr", path)
    expected = [-scores[WMT16_IDS[i], s] for i, s in zip(b.item.tolist(), b.extra["segment"].tolist())]
    assert b.pred.tolist() == expected and b.messages == []


def test_missing_scores_counted_or_strict(tmp_path):
    path, _ = wmt16_score_file(tmp_path, leave_out={("online-B.0", 651)})
    b = read_joined(DATA / "wmt16-excerpt.ron-eng.csv", "wmt-rr", path)
    # the rankings are of segments 651 (rankingID 1627), 652 (1628) and 684 (1630); online-B.0 is in each
    missing = np.isnan(b.pred)
    assert np.flatnonzero(missing).tolist() == [0] and b.item[0] == "newstest2016.online-B.0.ro-en"
    assert len(b.messages) == 1 and b.messages[0].startswith(f"1 of 17 items have no score in {path}")
    result = cli("convert", "--from", "wmt-rr", DATA / "wmt16-excerpt.ron-eng.csv", "--scores", path, "--strict")
    assert result.exit_code == 1
    first = int(b.line[np.flatnonzero(missing)[0]])
    assert result.stderr.startswith(f"rankeval: {DATA / 'wmt16-excerpt.ron-eng.csv'}:{first}: no score in {path} "
                                    "for system newstest2016.online-B.0.ro-en, segment 651, ro-en")
    lenient = ok(cli("convert", "--from", "wmt-rr", DATA / "wmt16-excerpt.ron-eng.csv", "--scores", path))
    assert "1 of 17 items have no score" in lenient.stderr


def test_wmt13_prefixed_ids(tmp_path):
    b = read_all(DATA / "wmt13-excerpt.csv")
    systems = sorted(set(b.item.tolist()))
    short = [s.split(".", 2)[2] for s in systems]  # drop "newstest2013.fr-en." by hand
    assert "KIT_primary.2658" in short and "online-B" in short
    rows = [f"METEOR\tfr-en\tnewstest2013\t{s}\t{seg}\t{k + int(seg) / 10000!r}"
            for k, s in enumerate(short) for seg in sorted(set(b.extra["segment"].tolist()))]
    (tmp_path / "m.seg.score").write_text("\n".join(rows) + "\n")
    joined = read_joined(DATA / "wmt13-excerpt.csv", "wmt-rr", tmp_path / "m.seg.score")
    expected = [-(systems.index(i) + int(s) / 10000) for i, s in zip(b.item.tolist(), b.extra["segment"].tolist())]
    assert joined.pred.tolist() == expected and joined.messages == []


def test_testset_decides_between_two_test_sets(tmp_path):
    (tmp_path / "m.seg.score").write_text("M\tro-en\tnewstest2016\tonline-B.0\t651\t0.5\n"
                                          "M\tro-en\tnewsdev2016\tonline-B.0\t651\t0.25\n")
    b = read_joined(DATA / "wmt16-excerpt.ron-eng.csv", "wmt-rr", tmp_path / "m.seg.score")
    found = ~np.isnan(b.pred)
    assert np.flatnonzero(found).tolist() == [0] and b.pred[0] == -0.5  # the item carries testset newstest2016
    tsv = tmp_path / "no-testset.tsv"
    tsv.write_text("group\titem\tgold\tlp\tsegment\ng\tonline-B.0\t1\tro-en\t651\n")
    with pytest.raises(DataError, match="no item matched a score") as error:  # nothing matched: an error
        read_joined(tsv, "tsv", tmp_path / "m.seg.score")
    assert "no score" in str(error.value) and "online-B.0" in str(error.value)


# ---- refusals ----------------------------------------------------------------------------------

def test_refusals(tmp_path):
    darr = DATA / "wmt20-darr-excerpt.csv"
    result = cli("convert", "--from", "darr", darr, "--scores", DATA / "wmt20-chrF-excerpt.sys.score")
    assert result.exit_code == 1 and "a system-level score file (sys-wmt20)" in result.stderr
    (tmp_path / "two.score").write_text("A\ten-de\tt\tx\t1\t0.5\nB\ten-de\tt\tx\t1\t0.5\n")
    result = cli("convert", "--from", "darr", darr, "--scores", tmp_path / "two.score")
    assert result.exit_code == 1 and "several metrics (A, B)" in result.stderr
    (tmp_path / "plain.tsv").write_text("group\titem\tgold\ng\ta\t1\n")
    result = cli("convert", tmp_path / "plain.tsv", "--scores", CHRF)
    assert result.exit_code == 1 and result.stderr.startswith(f"rankeval: {tmp_path / 'plain.tsv'}:2: the input "
                                                              "has no 'lp' column")
    (tmp_path / "refs.score").write_text("M\ten-de\tt\tr1\tx\td\t1\t0.5\nM\ten-de\tt\tr2\tx\td\t1\t0.5\n")
    result = cli("convert", "--from", "darr", darr, "--scores", tmp_path / "refs.score")
    assert result.exit_code == 1 and "reference sets r1, r2, none named like the test set" in result.stderr
    (tmp_path / "dup.score").write_text("M\ten-de\tt\tx\t1\t0.5\nM\ten-de\tt\tx\t1\t0.75\n")
    result = cli("convert", "--from", "darr", darr, "--scores", tmp_path / "dup.score")
    assert result.exit_code == 1 and result.stderr.startswith(f"rankeval: {tmp_path / 'dup.score'}:2: a second score")


def test_lp_absent_from_the_score_file(tmp_path):
    (tmp_path / "m.seg.score").write_text("M\tde-en\tnewstest2016\tonline-B.0\t651\t0.5\n")
    with pytest.raises(DataError, match="no item matched a score") as error:
        read_joined(DATA / "wmt16-excerpt.ron-eng.csv", "wmt-rr", tmp_path / "m.seg.score")
    assert "(the file has no ro-en scores at all)" in str(error.value)


@pytest.mark.parametrize("passes", [0, 1, 3])
def test_language_pairs_loaded_pass_by_pass(monkeypatch, passes):
    from rankeval_cli.formats.join import ScoreIndex

    monkeypatch.setattr(ScoreIndex, "PASSES", passes)
    whole = read_all(DATA / "wmt20-darr-excerpt.csv", "darr")
    by_lp = [whole.select_rows(whole.extra["lp"] == lp) for lp in ("en-de", "cs-en")]
    messages = []
    joined = concat(list(join_scores(by_lp, str(CHRF), report=messages.append)))
    scores = {lp: chrf_scores(CHRF, lp) for lp in ("en-de", "cs-en")}
    expected = [-scores[lp][s, i] for lp, s, i in
                zip(joined.extra["lp"].tolist(), joined.extra["segment"].tolist(), joined.item.tolist())]
    assert joined.pred.tolist() == expected
    assert not any("no score" in m for m in messages)
