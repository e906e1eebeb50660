"""aggregate --method z-score: WMT17-24 system rankings from direct assessments.

Checked against: a case worked by hand; a slow, obvious implementation (dicts and
scipy's mannwhitneyu) on random judgments; Appraise's ComputeWMT21Results and
ComputeWMT23Results run on synthetic Appraise exports (their output committed under
tests/data/appraise, named with the Appraise commit); the official WMT20 system scores
and significance outcomes (WMT-Metrics-task/wmt20-metrics, typed below) on the WMT20 DA
scores of ../shared/data. Where release checkouts are given (WMT20_METRICS_SRC,
WMT22_NEWS_SYSTEMS_SRC), every official WMT20 p-value and WMT22's published into-English
scores, p-values and clusters too.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import peer_checkout
from rankeval_cli.aggregate import judgments, zscore
from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.formats import read
from test_wmt_rr import cli, ok

DATA = Path(__file__).resolve().parent / "data"
APPRAISE = DATA / "appraise"
SEGMENT_EXPORT = "synthetic-segment-da.en-de"
DOCUMENT_EXPORT = "synthetic-document-esa.en-zh"
#: the WMT organisers' segment-score layout (SYS SID RAW.SCR Z.SCR N), synthetic
ORGANISERS = DATA / "synthetic-ad-seg-scores-de-en.csv"
COMMIT = "appraise-612e4b09fc28"


def judgments_batch(rows) -> Batch:
    """One group per judgment (judge, system, segment, score), as the appraise reader writes them."""
    n = len(rows)
    judge, system, segment, score = zip(*rows) if rows else ((), (), (), ())
    return Batch(group=np.array([f"g{i}" for i in range(n)], dtype=object),
                 offsets=offsets_from_sizes(np.ones(n, dtype=np.int64)),
                 item=np.array(system, dtype=object), gold=-np.array(score, dtype=np.float64),
                 pred=np.full(n, np.nan), extra={"judge": np.array(judge, dtype=object),
                                                 "segment": np.array(segment, dtype=object)})


def as_tsv(rows) -> str:
    lines = ["group\titem\tgold\tpred\tjudge\tsegment"]
    lines += [f"g{i}\t{s}\t{-x}\t\t{j}\t{g}" for i, (j, s, g, x) in enumerate(rows)]
    return "\n".join(lines) + "\n"


# ---- by hand --------------------------------------------------------------------------------------

HAND = [("J1", "A", "s1", 80), ("J1", "B", "s1", 60), ("J1", "A", "s2", 70), ("J1", "B", "s2", 50),
        ("J1", "C", "s1", 40), ("J2", "A", "s1", 90), ("J2", "C", "s2", 30), ("J2", "B", "s2", 60)]


def test_hand_case():
    # J1: scores 80 60 70 50 40, mean 60, sample sd sqrt(1000/4) = 5*sqrt(10): z = 4/r, 0, 2/r, -2/r, -4/r
    # (r = sqrt 10); J2: 90 30 60, mean 60, sd sqrt(1800/2) = 30: z = 1, -1, 0.
    # Segment means: A@s1 (85, (4/r + 1)/2), A@s2 (70, 2/r); B@s1 (60, 0), B@s2 (55, -1/r);
    # C@s1 (40, -4/r), C@s2 (30, -1). System means over the two segments of each:
    r = math.sqrt(10)
    ranking = zscore.rank_stream([judgments_batch(HAND)], alpha=0.2)[0]
    assert ranking.systems == ["A", "B", "C"]
    assert ranking.raw.tolist() == [77.5, 57.5, 35.0]
    assert ranking.z == pytest.approx([2 / r + 0.25, -1 / (2 * r), -2 / r - 0.5], rel=1e-15)
    assert ranking.segments.tolist() == [2, 2, 2] and ranking.judgments.tolist() == [3, 3, 2]
    # each pair: both segment means of the upper system above both of the lower: U = 4 of 2*2,
    # exact p = 1/C(4, 2) = 1/6 < 0.2: every pair is a win
    assert ranking.p[0, 1] == ranking.p[0, 2] == ranking.p[1, 2] == pytest.approx(1 / 6)
    assert ranking.wins.tolist() == [2, 1, 0] and ranking.losses.tolist() == [0, 1, 2]
    assert ranking.lo.tolist() == [1, 2, 3] and ranking.hi.tolist() == [1, 2, 3]
    assert ranking.cluster.tolist() == [1, 2, 3]
    strict = zscore.rank_stream([judgments_batch(HAND)])[0]  # at 0.05 nothing is significant
    assert strict.wins.tolist() == [0, 0, 0] and strict.cluster.tolist() == [1, 1, 1]
    assert strict.lo.tolist() == [1, 1, 1] and strict.hi.tolist() == [3, 3, 3]


def test_hand_case_through_the_command():
    result = ok(cli_input(["aggregate", "--method", "z-score", "--alpha", "0.2"], as_tsv(HAND)))
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == ["system", "value", "raw", "z", "groups", "judgments", "wins", "losses",
                                    "rank", "rank_ci_low", "rank_ci_high", "cluster", "signature"]
    a = lines[1].split("\t")
    assert a[0] == "A" and float(a[1]) == pytest.approx(2 / math.sqrt(10) + 0.25, rel=1e-15) and a[2] == "77.5"
    assert a[4:12] == ["2", "3", "2", "0", "1", "1", "1", "1"]
    assert a[12].startswith("aggregate|method:z-score|z:judge|rank-by:z|test:ranksum|segments:all|alpha:0.2|")


def cli_input(args, text):
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    return CliRunner().invoke(main, args, input=text)


def test_clusters_rule():
    assert zscore.wmt_clusters(np.array([4, 2, 2, 1, 0])).tolist() == [1, 2, 2, 3, 4]
    # position 3 beats the one below it, but position 2 beats nobody: the fewest wins so far counts
    assert zscore.wmt_clusters(np.array([2, 0, 1, 0])).tolist() == [1, 1, 1, 1]
    assert zscore.wmt_clusters(np.array([3, 0, 2, 0])).tolist() == [1, 2, 2, 2]
    assert zscore.wmt_clusters(np.array([1, 1, 0])).tolist() == [1, 1, 2]
    assert zscore.wmt_clusters(np.array([], dtype=np.int64)).tolist() == []


def test_single_judgments_and_constant_judges_get_z_zero():
    # Appraise: divisor (n - 1) or 1, and a zero standard deviation taken as 1
    z = judgments.standardize(np.array([50.0, 70.0, 70.0, 20.0]), np.array([0, 1, 1, 2]))
    assert z.tolist() == [0.0, 0.0, 0.0, 0.0]


# ---- a slow, obvious implementation ----------------------------------------------------------------

def slow_ranking(rows, shared: bool, alpha: float, rank_by: str):
    """Appraise's procedure written out with dicts, statistics and scipy's mannwhitneyu."""
    from scipy.stats import mannwhitneyu

    by_judge = defaultdict(list)
    for j, _, _, x in rows:
        by_judge[j].append(x)
    z_of = {}
    for j, xs in by_judge.items():
        mean = statistics.fmean(xs)
        sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
        z_of[j] = (mean, sd or 1.0)
    cells = defaultdict(list)
    for j, s, g, x in rows:
        mean, sd = z_of[j]
        cells[s, g].append((x, (x - mean) / sd))
    per_system = defaultdict(dict)
    for (s, g), values in cells.items():
        per_system[s][g] = (statistics.fmean(v[0] for v in values), statistics.fmean(v[1] for v in values))
    means = {s: (statistics.fmean(v[0] for v in segs.values()), statistics.fmean(v[1] for v in segs.values()))
             for s, segs in per_system.items()}
    column = 1 if rank_by == "z" else 0
    order = sorted(means, key=lambda s: (-means[s][column], s))
    wins = dict.fromkeys(order, 0)
    for a, b in itertools.combinations(order, 2):
        segs = set(per_system[a]) & set(per_system[b]) if shared else None
        xa = [v[column] for g, v in per_system[a].items() if segs is None or g in segs]
        xb = [v[column] for g, v in per_system[b].items() if segs is None or g in segs]
        if xa and xb and mannwhitneyu(xa, xb, alternative="greater").pvalue < alpha:
            wins[a] += 1
    clusters, cluster, fewest = [], 1, len(order)
    for position, s in enumerate(order, 1):  # Appraise's loop
        clusters.append(cluster)
        fewest = min(fewest, wins[s])
        if fewest == len(order) - position:
            cluster += 1
    return order, means, wins, clusters


judgment_rows = st.lists(st.tuples(st.sampled_from(["j1", "j2", "j3"]), st.sampled_from(["A", "B", "C", "D"]),
                                   st.sampled_from([f"s{i}" for i in range(7)]),
                                   st.integers(0, 10).map(lambda v: v * 10)),
                         min_size=1, max_size=70)


@settings(max_examples=120, deadline=None)
@given(rows=judgment_rows, shared=st.booleans(), rank_by=st.sampled_from(["z", "raw"]),
       alpha=st.sampled_from([0.05, 0.3]))
def test_equals_the_slow_implementation(rows, shared, rank_by, alpha):
    order, means, wins, clusters = slow_ranking(rows, shared, alpha, rank_by)
    ranking = zscore.rank_stream([judgments_batch(rows)], rank_by=rank_by, shared_segments=shared, alpha=alpha)[0]
    values = {"raw": 0, "z": 1}
    if len({round(means[s][values[rank_by]], 9) for s in means}) == len(means):  # no near-ties in the order
        assert ranking.systems == order
        assert [wins[s] for s in order] == ranking.wins.tolist()
        assert ranking.cluster.tolist() == clusters
    for i, s in enumerate(ranking.systems):
        assert ranking.raw[i] == pytest.approx(means[s][0], rel=1e-12, abs=1e-12)
        assert ranking.z[i] == pytest.approx(means[s][1], rel=1e-12, abs=1e-12)
    assert (ranking.lo == ranking.losses + 1).all() and (ranking.hi == len(order) - ranking.wins).all()


# ---- Appraise, run on the same files --------------------------------------------------------------

def appraise_output(path: Path) -> dict:
    """Systems in order, wins, printed z and raw, rank ranges, clusters and p-values of one lp."""
    text = path.read_text(encoding="utf-8")
    wmt23 = "↓ Ave Score" in text
    p = {}
    for a, b, value in re.findall(r"^\s*(\S+)>\s*(\S+) (\d\.\d+)\s+\S+ (?:True|False)$", text, re.M):
        p[a, b] = float(value)
    table = text.split("System ID", 1)[1].split("\n", 1)[1].split("\n\n", 1)[0].splitlines()
    systems, wins, printed, clusters, cluster = [], [], [], [], 1
    for line in table:
        if line.startswith("---"):
            cluster += 1 if systems else 0
            continue
        fields = line.split()
        wins.append(int(fields[0]))
        systems.append(fields[1])
        printed.append(fields[2:])
        clusters.append(cluster)
    tsv = text.split("pair\tsystem\trank\tave", 1)[1].splitlines()[1:len(systems) + 1]
    ranges = [tuple(int(v) for v in row.split("\t")[2].split("-")) for row in tsv]
    return {"systems": systems, "wins": wins, "printed": printed, "clusters": clusters, "ranges": ranges,
            "p": p, "wmt23": wmt23}


@pytest.mark.parametrize("export, output, options", [
    (f"{SEGMENT_EXPORT}.csv", f"{SEGMENT_EXPORT}.ComputeWMT21Results.{COMMIT}.txt", ()),
    (f"{DOCUMENT_EXPORT}.csv", f"{DOCUMENT_EXPORT}.ComputeWMT21Results-Document.{COMMIT}.txt", ()),
    (f"{DOCUMENT_EXPORT}.csv", f"{DOCUMENT_EXPORT}.ComputeWMT23Results-Document.{COMMIT}.txt", ("raw",)),
])
def test_equals_appraise(export, output, options):
    check_appraise(APPRAISE / export, APPRAISE / output, options)


def check_appraise(export: Path, output: Path, options=()):
    expected = appraise_output(output)
    rank_by = "raw" if "raw" in options else "z"
    batches = read(str(export), "appraise", report=lambda m: None)
    ranking = zscore.rank_stream(batches, by=("lp",), rank_by=rank_by, shared_segments=True)[0]
    assert ranking.systems == expected["systems"]
    assert ranking.wins.tolist() == expected["wins"]
    assert ranking.cluster.tolist() == expected["clusters"]
    assert list(zip(ranking.lo.tolist(), ranking.hi.tolist())) == [r if len(r) == 2 else r * 2
                                                                  for r in expected["ranges"]]
    for i, printed in enumerate(expected["printed"]):
        if expected["wmt23"]:  # wins, system, raw to one decimal
            assert f"{ranking.raw[i]:.1f}" == printed[0]
        else:  # wins, system, z, H score, raw, five decimals
            assert f"{ranking.z[i]:.5f}" == printed[0] and f"{ranking.raw[i]:.5f}" == printed[2]
    position = {s: i for i, s in enumerate(ranking.systems)}
    compared = 0
    for (a, b), value in expected["p"].items():
        if a != b:
            ours = ranking.p[position[a], position[b]]
            if math.isnan(ours):  # no segment both were scored on: no test (Appraise prints p = 1)
                assert value == 1.0
                compared += 1
                continue
            assert abs(ours - value) <= 1e-24 + 1e-12 * value, (a, b, ours, value)
            compared += 1
    k = len(ranking.systems)
    assert compared == k * (k - 1) // 2


def test_equals_appraise_through_the_command():
    text = ok(cli("convert", "--from", "appraise", APPRAISE / f"{SEGMENT_EXPORT}.csv")).stdout
    out = ok(cli_input(["aggregate", "--method", "z-score", "--shared-segments", "--by", "lp"], text)).stdout
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    expected = appraise_output(APPRAISE / f"{SEGMENT_EXPORT}.ComputeWMT21Results.{COMMIT}.txt")
    assert [r[1] for r in rows] == expected["systems"] and [int(r[7]) for r in rows] == expected["wins"]
    assert [int(r[12]) for r in rows] == expected["clusters"]


#: Appraise's output on excerpts of the released exports (kept: a peer's output; the excerpts are
#: rebuilt from a release checkout): (variable, release, export in it, judges, target language,
#: output, options)
RELEASED_EXPORTS = {
    "wmt22-en-liv": ("WMT22_NEWS_SYSTEMS_SRC", "wmt-conference/wmt22-news-systems (20240a2e96a5)",
                     "humaneval/DA+SQM/scores/WMT22.Appraise.SegLvlLivRef.20221031.filtered.csv",
                     {"engliv0d02", "engliv0d09"}, None,
                     [(f"wmt22-en-liv-refda-excerpt.ComputeWMT21Results.{COMMIT}.txt", ())]),
    "wmt24-en-zh": ("WMT24_NEWS_SYSTEMS_SRC", "wmt-conference/wmt24-news-systems (bfa937ee5358)",
                    "humeval/esa_generalMT2024_wave3.csv",
                    {"engzho7c16", "engzho7c1a", "engzho7c21", "engzho7c27", "engzho7c28", "engzho7c38"}, "zho",
                    [(f"wmt24-esa-en-zh-excerpt.ComputeWMT21Results-Document.{COMMIT}.txt", ()),
                     (f"wmt24-esa-en-zh-excerpt.ComputeWMT23Results-Document.{COMMIT}.txt", ("raw",))]),
}


@pytest.mark.parametrize("release", sorted(RELEASED_EXPORTS))
def test_equals_appraise_on_released_exports(release, tmp_path):
    """Appraise's commands run on excerpts of WMT22's en-liv and WMT24's en-zh exports (every line
    of the judges below, in file order; WMT24's without its tutorial systems), their output
    committed under tests/data/appraise; the excerpts are rebuilt from release checkouts."""
    import csv

    variable, what, name, judges, language, outputs = RELEASED_EXPORTS[release]
    source = peer_checkout(variable, f"a checkout of {what}", name) / name
    kept = []
    for line in source.read_bytes().splitlines(keepends=True):
        row = next(csv.reader([line.decode("utf-8")]))
        if row[0] in judges and (language is None or row[5] == language) and "tutorial" not in row[1]:
            kept.append(line)
    export = tmp_path / "excerpt.csv"
    export.write_bytes(b"".join(kept))
    for output, options in outputs:
        check_appraise(export, APPRAISE / output, options)


def test_the_appraise_cases_exercise_the_rules():
    """What the synthetic exports must contain for the comparisons above to cover WMT's rules
    (the situations WMT22's lv-en and WMT24's en-zh data held)."""
    cases = {name: appraise_output(APPRAISE / name) for name in (
        f"{SEGMENT_EXPORT}.ComputeWMT21Results.{COMMIT}.txt",
        f"{DOCUMENT_EXPORT}.ComputeWMT21Results-Document.{COMMIT}.txt",
        f"{DOCUMENT_EXPORT}.ComputeWMT23Results-Document.{COMMIT}.txt")}
    for case in cases.values():
        k = len(case["systems"])
        clusters = case["clusters"]
        assert 2 < max(clusters) < k  # several clusters, at least one of several systems
        assert any(lo != hi for lo, hi in (r if len(r) == 2 else r * 2 for r in case["ranges"]))
        # the cluster rule reads the fewest wins so far: a system with wins over systems below it
        # can share a cluster with them
        assert any(case["wins"][i] > 0 and clusters[i] == clusters[i + 1] for i in range(k - 1))
        p = [value for (a, b), value in case["p"].items() if a != b]
        assert any(v < 0.05 for v in p) and any(0.05 <= v < 1 for v in p)
    z, raw = (cases[f"{DOCUMENT_EXPORT}.ComputeWMT2{v}Results-Document.{COMMIT}.txt"] for v in (1, 3))
    assert z["systems"] != raw["systems"]  # ranking by z and by raw score differ
    assert any(p == 1.0 for (a, b), p in z["p"].items() if a != b)  # pairs without a shared segment
    segment = cases[f"{SEGMENT_EXPORT}.ComputeWMT21Results.{COMMIT}.txt"]
    raw_order = sorted(segment["systems"], key=lambda s: -float(segment["printed"][segment["systems"].index(s)][2]))
    assert raw_order != segment["systems"]  # the judges' z-scores reorder the raw means


# ---- the official WMT20 numbers ----------------------------------------------------------------

WMT20_NAMES = {"Human-A.0": "HUMAN-A", "Human-B.0": "HUMAN-B", "Human-P.0": "HUMAN-C"}
WMT20_COMMIT = "3e434fc32fd0"  # WMT-Metrics-task/wmt20-metrics, manual-evaluation/DA/

#: ``ad-sys-scores-LP.csv`` of wmt20-metrics (commit above), the official WMT20 system scores
#: (Barrault et al. 2020, human evaluation tables): SYS, RAW.SCR, Z.SCR, N, N.ALL, in the order
#: of the rows of ``adwilcox-LPLP.csv`` (WMT's ranking)
WMT20_SYSTEMS = {
    "en-de": [
        ("HUMAN-B", 90.5060780550224, 0.569198370284334, 521, 850),
        ("OPPO.1535", 87.398679154659, 0.495151735582397, 694, 1190),
        ("Tohoku-AIP-NTT.890", 88.6200726612171, 0.468208656575967, 734, 1361),
        ("HUMAN-A", 85.6581632653061, 0.445785004150892, 588, 957),
        ("Online-B.1590", 84.5061500615006, 0.416468423465359, 813, 1365),
        ("Tencent_Translation.1520", 84.3134523809524, 0.384524299843968, 700, 1056),
        ("Huoshan_Translate.832", 84.6034986225895, 0.326442602111907, 605, 1091),
        ("Online-A.1574", 85.279324009324, 0.322221407355888, 715, 1308),
        ("eTranslation.737", 82.4510563380282, 0.311776552584311, 710, 1173),
        ("HUMAN-C", 84.1500319897633, 0.298640272530644, 521, 803),
        ("AFRL.1069", 82.2212494595763, 0.26013891998072, 771, 1356),
        ("UEDIN.1136", 81.0026707755521, 0.251231842420799, 649, 1192),
        ("PROMT_NMT.73", 79.3259803921569, 0.247014407933923, 782, 1241),
        ("Online-Z.1631", 77.655458399576, 0.125798127745, 629, 1043),
        ("Online-G.1556", 73.9161324786325, -0.119678490034494, 624, 1018),
        ("zlabs-nlp.179", 68.1258397932817, -0.278390194312612, 645, 1056),
        ("WMTBiomedBaseline.388", 65.4550834597876, -0.338168585367229, 659, 1042),
    ],
    "cs-en": [
        ("CUNI-DocTransformer.1457", 78.3060390295359, 0.117873378925305, 632, 949),
        ("OPPO.1481", 77.504674796748, 0.071083778060103, 615, 845),
        ("Online-B.1586", 74.785353130016, 0.0414329096603885, 623, 937),
        ("CUNI-Transformer.1081", 75.2549916805324, 0.0343854882879749, 601, 846),
        ("Online-A.1570", 73.7943912812334, 0.0181781259060487, 627, 877),
        ("SRPOL.1365", 73.74625, -0.0367162383383919, 640, 1016),
        ("UEDIN-CUNI.1359", 74.1065664556962, -0.0491061326068965, 632, 862),
        ("CUNI-T2T-2018.1072", 74.1323577235772, -0.0653420144402421, 615, 837),
        ("Online-G.1552", 72.548157051282, -0.0691237512737649, 624, 940),
        ("Online-Z.1628", 71.8412572636027, -0.0804246536392026, 631, 842),
        ("PROMT_NMT.76", 71.9327229299363, -0.094493057942707, 628, 840),
        ("zlabs-nlp.1149", 71.9637299196787, -0.141199041660665, 664, 912),
    ],
}
#: the significance outcomes of ``adwilcox-LPLP.csv`` (same commit): row i, column j is "+" where
#: the file gives the one-sided Wilcoxon rank-sum p-value of "system i better than system j"
#: (every such value is below 0.05) and "." where it writes 0.12 (not significant)
WMT20_SIGNIFICANT = {
    "en-de": [
        ".++++++++++++++++",  # HUMAN-B
        "....+++++++++++++",  # OPPO.1535
        ".....++++++++++++",  # Tohoku-AIP-NTT.890
        "....+++++++++++++",  # HUMAN-A
        "......+++++++++++",  # Online-B.1590
        "......+++++++++++",  # Tencent_Translation.1520
        "...........++++++",  # Huoshan_Translate.832
        "...........++++++",  # Online-A.1574
        "...........++++++",  # eTranslation.737
        "...........++++++",  # HUMAN-C
        "............+++++",  # AFRL.1069
        ".............++++",  # UEDIN.1136
        ".............++++",  # PROMT_NMT.73
        "..............+++",  # Online-Z.1631
        "................+",  # Online-G.1556
        ".................",  # zlabs-nlp.179
        ".................",  # WMTBiomedBaseline.388
    ],
    "cs-en": [
        "...+.+++++++",  # CUNI-DocTransformer.1457
        ".....+++++++",  # OPPO.1481
        "......++++++",  # Online-B.1586
        "......++++++",  # CUNI-Transformer.1081
        "......++++++",  # Online-A.1570
        "...........+",  # SRPOL.1365
        "...........+",  # UEDIN-CUNI.1359
        "............",  # CUNI-T2T-2018.1072
        "............",  # Online-G.1552
        "............",  # Online-Z.1628
        "............",  # PROMT_NMT.76
        "............",  # zlabs-nlp.1149
    ],
}
#: a few of those p-values (same files): the smallest and the three largest of each language pair
WMT20_PVALUES = {
    "en-de": {("HUMAN-B", "WMTBiomedBaseline.388"): 3.69954721104205e-85,
              ("HUMAN-C", "UEDIN.1136"): 0.0257451369430242,
              ("Tohoku-AIP-NTT.890", "Tencent_Translation.1520"): 0.0307098048926921,
              ("AFRL.1069", "PROMT_NMT.73"): 0.0400811220718331},
    "cs-en": {("CUNI-DocTransformer.1457", "zlabs-nlp.1149"): 6.43050618559168e-09,
              ("Online-A.1570", "UEDIN-CUNI.1359"): 0.0261355160888155,
              ("CUNI-DocTransformer.1457", "CUNI-Transformer.1081"): 0.0357979350183517,
              ("UEDIN-CUNI.1359", "zlabs-nlp.1149"): 0.0363724046761948},
}


def official_systems(path: Path) -> dict:
    """``RAW.SCR Z.SCR N SYS N.ALL`` rows: system -> (raw, z, N, N.ALL)."""
    rows = [line.split() for line in path.read_text().splitlines()[1:] if line.strip()]
    return {r[3]: (float(r[0]), float(r[1]), int(r[2]), int(r[4])) for r in rows}


def official_pvalues(path: Path, lp: str) -> tuple[list, dict]:
    """The adwilcox matrix: systems (row order) and {(row, column): p}; 0.12 marks 'not significant'."""
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    names = [re.sub(rf"^newstest\d+\.{lp}\.|\.sgm$", "", n) for n in lines[0]]
    p = {}
    for row in lines[1:]:
        a = re.sub(rf"^newstest\d+\.{lp}\.|\.sgm$", "", row[0])
        for b, value in zip(names, row[1:]):
            p[a, b] = float(value)
    return names, p


def check_official(ranking, systems: dict, names: list, pvalues: dict, rename=lambda s: s):
    """Our ranking against official system scores and an adwilcox matrix (every p-value)."""
    ours = [rename(s) for s in ranking.systems]
    assert ours == names  # the matrix lists the systems in WMT's order
    for i, s in enumerate(ours):
        raw, z, n, n_all = systems[s]
        assert ranking.raw[i] == pytest.approx(raw, rel=1e-12) and ranking.z[i] == pytest.approx(z, rel=1e-12)
        assert (ranking.segments[i], ranking.judgments[i]) == (n, n_all)
    official_wins = np.zeros((len(ours), len(ours)), dtype=bool)
    for i, a in enumerate(ours):
        for j, b in enumerate(ours):
            value = pvalues[a, b]
            if value != 0.12:
                assert i < j and ranking.p[i, j] == pytest.approx(value, rel=1e-12)
                official_wins[i, j] = value < 0.05
            elif i < j:
                assert ranking.p[i, j] >= 0.05
    assert (official_wins.sum(axis=1) == ranking.wins).all()
    return official_wins


def wmt20_ranking(shared, lp):
    return zscore.rank_stream(read(str(shared / "wmt20-da" / f"metrics-ad-seg-scores-{lp}.csv"), "wmt-da-scores"))[0]


@pytest.mark.parametrize("lp", ["en-de", "cs-en"])
def test_wmt20_official_scores_significance_and_clusters(shared, lp):
    ranking = wmt20_ranking(shared, lp)
    names = [row[0] for row in WMT20_SYSTEMS[lp]]
    assert [WMT20_NAMES.get(s, s) for s in ranking.systems] == names  # the official order
    for i, (_, raw, z, n, n_all) in enumerate(WMT20_SYSTEMS[lp]):
        assert ranking.raw[i] == pytest.approx(raw, rel=1e-12) and ranking.z[i] == pytest.approx(z, rel=1e-12)
        assert (ranking.segments[i], ranking.judgments[i]) == (n, n_all)
    wins = np.array([[c == "+" for c in row] for row in WMT20_SIGNIFICANT[lp]])
    k = len(names)
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    assert not (wins & ~upper).any()  # the official file marks only a system above beating one below
    ours = np.where(upper, ranking.p < 0.05, False)
    assert (ours == wins).all()
    assert (wins.sum(axis=1) == ranking.wins).all()
    for (a, b), value in WMT20_PVALUES[lp].items():
        assert ranking.p[names.index(a), names.index(b)] == pytest.approx(value, rel=1e-12)
    # the clusters follow from the official outcomes alone (rule of zscore.wmt_clusters) ...
    assert zscore.wmt_clusters(wins.sum(axis=1)).tolist() == ranking.cluster.tolist()
    # ... and here equal the stricter reading "every system of a cluster beats every system below it"
    strict = [all(wins[a, b] for a in range(i + 1) for b in range(i + 1, k)) for i in range(k - 1)]
    assert (1 + np.concatenate([[0], np.cumsum(strict)])).tolist() == ranking.cluster.tolist()
    groups = defaultdict(list)
    for s, c in zip(names, ranking.cluster.tolist()):
        groups[c].append(s)
    if lp == "en-de":
        assert list(groups.values()) == [
            ["HUMAN-B"], ["OPPO.1535", "Tohoku-AIP-NTT.890", "HUMAN-A", "Online-B.1590", "Tencent_Translation.1520"],
            ["Huoshan_Translate.832", "Online-A.1574", "eTranslation.737", "HUMAN-C", "AFRL.1069", "UEDIN.1136",
             "PROMT_NMT.73"], ["Online-Z.1631"], ["Online-G.1556", "zlabs-nlp.179", "WMTBiomedBaseline.388"]]
    else:
        assert len(groups) == 1 and ranking.systems[0] == "CUNI-DocTransformer.1457"


@pytest.mark.parametrize("lp, short", [("en-de", "ende"), ("cs-en", "csen")])
def test_wmt20_every_official_pvalue(shared, lp, short):
    """Every p-value of the official files, read from a wmt20-metrics checkout (commit above)."""
    official = peer_checkout("WMT20_METRICS_SRC", f"a checkout of WMT-Metrics-task/wmt20-metrics ({WMT20_COMMIT})",
                             f"manual-evaluation/DA/adwilcox-{short}.csv") / "manual-evaluation" / "DA"
    ranking = wmt20_ranking(shared, lp)
    names, pvalues = official_pvalues(official / f"adwilcox-{short}.csv", lp)
    check_official(ranking, official_systems(official / f"ad-sys-scores-{lp}.csv"), names, pvalues,
                   lambda s: WMT20_NAMES.get(s, s))


# ---- WMT22's published into-English rankings ---------------------------------------------------

WMT22_TOEN = ["cs-en", "de-en", "ja-en", "lv-en", "ru-en", "uk-en", "zh-en"]


@pytest.mark.parametrize("lp", WMT22_TOEN)
def test_wmt22_official_scores_pvalues_and_clusters(lp):
    """WMT22's released segment scores, system scores, p-values and clusters
    (wmt-conference/wmt22-news-systems ``humaneval/DA/newstest2022-toen/``, commit 20240a2e96a5),
    read from a checkout; in CI the same code paths meet Appraise's clusters on the synthetic
    exports above and the official WMT20 outcomes."""
    short = lp.replace("-", "")
    folder = peer_checkout("WMT22_NEWS_SYSTEMS_SRC",
                           "a checkout of wmt-conference/wmt22-news-systems (20240a2e96a5)",
                           f"humaneval/DA/newstest2022-toen/ad-seg-scores-{lp}.csv") / "humaneval/DA/newstest2022-toen"
    ranking = zscore.rank_stream(read(str(folder / f"ad-seg-scores-{lp}.csv"), "wmt-da-scores"))[0]
    names, pvalues = official_pvalues(folder / f"adwilcox-{short}.csv", lp)
    check_official(ranking, official_systems(folder / f"ad-sys-scores-{lp}.csv"), names, pvalues)
    source, target = lp.split("-")
    published = [line.split() for line in (folder / "clusters.csv").read_text().splitlines()[1:]]
    published = [r for r in published if r[:2] == [source, target]]
    assert [r[7] for r in published] == ranking.systems
    assert [int(r[2]) for r in published] == ranking.wins.tolist()
    starts = [int(r[4]) for r in published]  # CLUSTER_START: the first position of the system's cluster
    assert [starts.index(s) for s in starts] == [ranking.cluster.tolist().index(c) for c in ranking.cluster]


#: WMT22's published lv-en ranking, typed from wmt-conference/wmt22-news-systems (commit
#: 20240a2e96a5) ``humaneval/DA/newstest2022-toen/``: ``ad-sys-scores-lv-en.csv`` (system, RAW.SCR,
#: Z.SCR, N, N.ALL), in the order of ``clusters.csv`` (lv en lines: WINS, CLUSTER_START)
WMT22_LV_EN = [("TartuNLP.1", 67.7289932963477, 0.0238346710543844, 412, 1031, 3, 1),
               ("TAL-SJTU.3", 66.0460298427924, -0.0138079789193609, 417, 960, 1, 1),
               ("HuaweiTSC.0", 64.0292634767273, -0.034970348798572, 414, 798, 1, 1),
               ("Liv4ever.4", 63.4970406241593, -0.0792882038961307, 413, 962, 1, 1),
               ("NiuTrans.2", 60.3943428418066, -0.346013999342893, 414, 887, 0, 5)]
#: the significant p-values of ``adwilcox-lven.csv`` (the others are written 0.12)
WMT22_LV_EN_P = {("TartuNLP.1", "HuaweiTSC.0"): 0.0296222712829756, ("TartuNLP.1", "Liv4ever.4"): 0.00905081795293708,
                 ("TartuNLP.1", "NiuTrans.2"): 1.97568864110944e-12, ("TAL-SJTU.3", "NiuTrans.2"): 5.90278198525668e-10,
                 ("HuaweiTSC.0", "NiuTrans.2"): 2.08923166169306e-08, ("Liv4ever.4", "NiuTrans.2"): 8.70420293303457e-07}


def test_wmt22_lv_en_published_numbers():
    """WMT22's lv-en scores, p-values, wins and clusters as published (typed above), from the
    released segment scores of a checkout (the same ones test_wmt22_official_... reads)."""
    folder = peer_checkout("WMT22_NEWS_SYSTEMS_SRC",
                           "a checkout of wmt-conference/wmt22-news-systems (20240a2e96a5)",
                           "humaneval/DA/newstest2022-toen/ad-seg-scores-lv-en.csv") / "humaneval/DA/newstest2022-toen"
    ranking = zscore.rank_stream(read(str(folder / "ad-seg-scores-lv-en.csv"), "wmt-da-scores"))[0]
    assert ranking.systems == [row[0] for row in WMT22_LV_EN]
    for i, (_, raw, z, n, n_all, wins, start) in enumerate(WMT22_LV_EN):
        assert ranking.raw[i] == pytest.approx(raw, rel=1e-12) and ranking.z[i] == pytest.approx(z, rel=1e-12)
        assert (ranking.segments[i], ranking.judgments[i], ranking.wins[i]) == (n, n_all, wins)
        assert ranking.cluster.tolist().index(ranking.cluster[i]) + 1 == start
    names = ranking.systems
    for i, j in itertools.combinations(range(len(names)), 2):
        published = WMT22_LV_EN_P.get((names[i], names[j]))
        if published is None:
            assert ranking.p[i, j] >= 0.05
        else:
            assert ranking.p[i, j] == pytest.approx(published, rel=1e-12)


# ---- other inputs, intervals, errors --------------------------------------------------------------

def test_mqm_ranked_by_raw_score():
    path = DATA / "wmt20-mqm-excerpt" / "mqm_newstest2020_ende.tsv"
    out = ok(cli_input(["aggregate", "--method", "z-score", "--rank-by", "raw"],
                       ok(cli("convert", "--from", "mqm", path)).stdout)).stdout
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    scores = defaultdict(list)
    for line in path.read_text().splitlines()[1:]:
        system, score, _ = line.split()
        if score != "None":
            scores[system].append(float(score))
    means = {s: statistics.fmean(v) for s, v in scores.items()}
    assert [r[0] for r in rows] == sorted(means, key=lambda s: (-means[s], s))
    assert all(float(r[2]) == pytest.approx(means[r[0]], rel=1e-12) and r[3] == "" for r in rows)
    result = cli_input(["aggregate", "--method", "z-score"], ok(cli("convert", "--from", "mqm", path)).stdout)
    assert result.exit_code == 1 and "--rank-by raw" in result.stderr


def test_bootstrap_intervals_do_not_depend_on_jobs_and_follow_the_seed():
    text = ok(cli("convert", "--from", "wmt-da-scores", ORGANISERS)).stdout
    args = ["aggregate", "--method", "z-score", "--ci", "0.95", "--bootstrap", "300"]
    one = ok(cli_input(args, text)).stdout
    assert ok(cli_input(args + ["--jobs", "2"], text)).stdout == one
    assert ok(cli_input(args + ["--seed", "7"], text)).stdout != one
    rows = [line.split("\t") for line in one.splitlines()]
    assert rows[0][12:] == ["ci_low", "ci_high", "signature"]
    for row in rows[1:]:
        low, value, high = float(row[12]), float(row[1]), float(row[13])
        assert low < value < high and high - low < 0.3
    assert "|ci:0.95|bootstrap:300|seed:12345|" in rows[1][14]


def test_bootstrap_replicates_are_segment_resamples():
    batches = read(str(ORGANISERS), "wmt-da-scores")
    cells = judgments.collect(batches)[()].cells()
    ranking = zscore.rank_cells(cells)
    position = {s: i for i, s in enumerate(ranking.systems)}
    cell_system = np.array([position[cells.systems[c]] for c in cells.system.tolist()])
    shared = {0: zscore.Resampled(cell_system, cells.segment, cells.z, cells.n_segments, len(ranking.systems), 5)}
    replicates = zscore.bootstrap_unit(shared, (0, 3, 5))
    from rankeval_cli.executor import unit_seed

    rng = np.random.default_rng(unit_seed(5, (0, 4)))  # replicate 4: its own draws, whatever the unit
    counts = np.bincount(rng.integers(0, cells.n_segments, cells.n_segments), minlength=cells.n_segments)
    for s, i in position.items():
        mine = cell_system == i
        expected = np.sum(counts[cells.segment[mine]] * cells.z[mine]) / np.sum(counts[cells.segment[mine]])
        assert replicates[1, i] == pytest.approx(expected, rel=1e-12)


def test_judge_column_wins_over_z_column_and_lp_warning():
    rows = as_tsv(HAND).splitlines()
    text = "\n".join([rows[0] + "\tz\tlp"] + [r + f"\t9\t{'en-de' if i % 2 else 'cs-en'}"
                                              for i, r in enumerate(rows[1:])]) + "\n"
    result = ok(cli_input(["aggregate", "--method", "z-score"], text))
    assert "z:judge" in result.stdout and "mixes 2 language pairs" in result.stderr and "--by lp" in result.stderr
    by_lp = ok(cli_input(["aggregate", "--method", "z-score", "--by", "lp"], text))
    assert "mixes" not in by_lp.stderr and by_lp.stdout.splitlines()[0].startswith("lp\tsystem\t")


def test_errors():
    result = cli_input(["aggregate", "--method", "z-score", "--column", "pred"], as_tsv(HAND))
    assert result.exit_code == 2
    bad = as_tsv(HAND).replace("\tJ2\t", "\t\t", 1)
    result = cli_input(["aggregate", "--method", "z-score"], bad)
    assert result.exit_code == 1 and re.match(r"rankeval: <stdin>:\d+: empty judge id", result.stderr)
    result = cli_input(["aggregate", "--method", "z-score", "--alpha", "nan"], as_tsv(HAND))
    assert result.exit_code == 2
    result = cli_input(["correlate", "--method", "z-score"], as_tsv(HAND))
    assert result.exit_code == 2


def test_blank_gold_is_reported_not_ranked():
    text = as_tsv(HAND) + "g99\tD\t\t\tJ1\ts1\n"
    result = ok(cli_input(["aggregate", "--method", "z-score"], text))
    assert "1 blank values not ranked" in result.stderr and "\nD\t" not in result.stdout


def test_a_partition_of_blanks_only_is_reported():
    text = "group\titem\tgold\tpred\tjudge\tsegment\tlp\ng1\tA\t\t\tJ\ts1\tcs-en\n"
    result = ok(cli_input(["aggregate", "--method", "z-score", "--by", "lp"], text))
    assert result.stdout == "" and "(lp=cs-en): 1 blank values not ranked" in result.stderr


def test_empty_input():
    result = ok(cli_input(["aggregate", "--method", "z-score"], "group\titem\tgold\tpred\n"))
    assert result.stdout == "" and "no judgments" in result.stderr
