"""aggregate --method z-score --protocol wmt24: WMT24's ranking of systems from ESA scores.

Checked against: a case worked by hand; a slow, obvious implementation (dicts,
scipy.stats.wilcoxon and the combination written as WMT24's tools.py writes it) on
random judgments; and WMT24's own steps (wmt-conference/wmt24-news-systems commit
bfa937ee5358: calculate_clusters.py and the functions of tools.py it calls, run outside
this repository with scipy 1.13.1 and 1.17.1 by scripts/human-rankings-fixtures/run-peers)
on a synthetic WMT24-style ESA export (scripts/human-rankings-fixtures/make-exports); their
output is committed beside the export in tests/data/wmt24, named with the commit and scipy's
version. Where a checkout of that repository is given (WMT24_NEWS_SYSTEMS_SRC), also on
every language pair of its released waves 2 and 3, against the steps' output on them
(committed in tests/data/wmt24 too).
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections import defaultdict
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import peer_checkout
from rankeval_cli.aggregate import wmt24, zscore
from rankeval_cli.aggregate.judgments import collect, last_scores
from rankeval_cli.formats import read
from test_wmt_rr import cli, ok
from test_zscore import cli_input

DATA = Path(__file__).resolve().parent / "data" / "wmt24"
#: synthetic (scripts/human-rankings-fixtures/make-exports)
EXPORT = DATA / "synthetic-esa.en-cs.csv.gz"
DOCS = DATA / "synthetic.en-cs.docs"
#: WMT24's steps on the export, by scripts/human-rankings-fixtures/run-peers
PEER = "wmt24-bfa937ee5358"
STEPS = {scipy: f"synthetic-esa.en-cs.steps.{PEER}.scipy-{scipy}.tsv" for scipy in ("1.13.1", "1.17.1")}
TABLES = {scipy: f"synthetic-esa.en-cs.calculate_clusters.{PEER}.scipy-{scipy}.tex" for scipy in ("1.13.1", "1.17.1")}
CONVERT = ("convert", "--from", "appraise", "--item-types", "TGT", "--exclude-systems", "*tutorial*",
           "--exclude-documents", "*#incomplete*", "--exclude-documents", "*#dup*", "--documents",
           DOCS, EXPORT)
WMT24 = ["aggregate", "--method", "z-score", "--protocol", "wmt24"]


def as_tsv(rows) -> str:
    """rows: (judge, system, segment, domain, score, end_time)."""
    lines = ["group\titem\tgold\tpred\tjudge\tsegment\tdomain\tend_time"]
    lines += [f"g{i}\t{s}\t{-x}\t\t{j}\t{g}\t{d}\t{t}" for i, (j, s, g, d, x, t) in enumerate(rows)]
    return "\n".join(lines) + "\n"


def rank_tsv(text: str, **options):
    return zscore.rank_stream(read(text_source(text), "tsv"), protocol="wmt24", **options)


def text_source(text: str):
    import io

    return io.StringIO(text)


# ---- by hand --------------------------------------------------------------------------------------

# domain A: segments a1-a3; domain B: b1, b2. X's first score of a1 (10) is replaced by its judge's
# later one (90).
HAND = [("J1", "X", "a1", "A", 10, 1.0), ("J1", "X", "a1", "A", 90, 2.0), ("J1", "X", "a2", "A", 80, 3.0),
        ("J2", "X", "a3", "A", 70, 1.0), ("J2", "X", "b1", "B", 50, 2.0), ("J2", "X", "b2", "B", 40, 3.0),
        ("J3", "Y", "a1", "A", 60, 1.0), ("J3", "Y", "a2", "A", 50, 2.0), ("J3", "Y", "a3", "A", 40, 3.0),
        ("J1", "Y", "b1", "B", 100, 4.0), ("J1", "Y", "b2", "B", 90, 5.0),
        ("J2", "W", "a1", "A", 85, 4.0), ("J2", "W", "a2", "A", 75, 5.0), ("J3", "W", "a3", "A", 72, 4.0),
        ("J3", "W", "b1", "B", 60, 5.0), ("J3", "W", "b2", "B", 55, 6.0)]


def test_hand_case():
    # domain means: X 80 | 45, Y 50 | 95, W 77 1/3 | 57.5 -> macro X 62.5, Y 72.5, W 67 5/12
    # (the mean over all five segments would put W first: 69.4 > 68 > 66)
    ranking = rank_tsv(as_tsv(HAND), alpha=0.4)[0]
    assert ranking.systems == ["Y", "W", "X"]
    assert ranking.value.tolist() == pytest.approx([72.5, (77 + 1 / 3 + 57.5) / 2, 62.5], rel=1e-15)
    assert ranking.segments.tolist() == [5, 5, 5] and ranking.judgments.tolist() == [5, 5, 5]
    # Y - W: A: d = -25 -25 -32 (ranks 1.5 1.5 3, T+ = 0): scipy <= 1.14's table of ranks 1..3 gives
    # P(T <= 0) = 1/8, p = 1/4; B: d = 40 35, T+ = 3 of at most 3: p = 2 * 1/4.
    # Y - X: A: d = -30 -30 -30, T+ = 0, p = 1/4; B: d = 50 50, T+ = 3, p = 1/2.
    # W - X: A: d = -5 -5 2, T+ = 1: P(T <= 1) = 2/8, p = 1/2; B: d = 10 15, p = 1/2.
    normal = NormalDist()
    combined = 1 - normal.cdf((normal.inv_cdf(0.75) + normal.inv_cdf(0.5)) / math.sqrt(2))  # 0.3167
    expected = np.array([[np.nan, combined, combined], [combined, np.nan, 0.5], [combined, 0.5, np.nan]])
    np.testing.assert_allclose(ranking.p, expected, rtol=1e-12)
    # at alpha 0.4: Y wins twice; W and X lose once; W and X are not different (0.5 > 0.4)
    assert ranking.wins.tolist() == [2, 0, 0] and ranking.losses.tolist() == [0, 1, 1]
    assert ranking.lo.tolist() == [1, 2, 2] and ranking.hi.tolist() == [1, 3, 3]
    assert ranking.cluster.tolist() == [1, 2, 2]


def test_hand_case_through_the_command():
    out = ok(cli_input([*WMT24, "--alpha", "0.4"], as_tsv(HAND))).stdout.splitlines()
    assert out[0].split("\t")[:13] == ["system", "value", "raw", "z", "groups", "judgments", "wins", "losses",
                                       "rank", "rank_ci_low", "rank_ci_high", "cluster", "signature"]
    rows = [line.split("\t") for line in out[1:]]
    assert [r[0] for r in rows] == ["Y", "W", "X"] and [r[1] for r in rows][::2] == ["72.5", "62.5"]
    assert [r[6:12] for r in rows] == [["2", "0", "1", "1", "1", "1"], ["0", "1", "2", "2", "3", "2"],
                                       ["0", "1", "3", "2", "3", "2"]]
    assert rows[0][12].startswith("aggregate|method:z-score|protocol:wmt24|z:judge|rank-by:raw|"
                                  "test:signed-rank-scipy-1.14+stouffer|segments:shared|domains:domain|alpha:0.4|")


def test_last_score_of_an_item():
    # without its end times the later row wins too; with them the latest end time does
    assert last_scores(np.array([0, 0, 0]), np.array([1, 1, 1]), np.array([2, 2, 3]), None).tolist() == \
        [False, True, True]
    assert last_scores(np.array([0, 0, 1]), np.array([1, 1, 1]), np.array([2, 2, 2]),
                       np.array([5.0, 4.0, 1.0])).tolist() == [True, False, True]
    swapped = [r if r[4] != 10 else (*r[:4], 10, 9.0) for r in HAND]  # the 10 is now the later score
    ranking = rank_tsv(as_tsv(swapped), alpha=0.4)[0]
    x = ranking.systems.index("X")
    assert ranking.value[x] == pytest.approx(((10 + 80 + 70) / 3 + 45) / 2, rel=1e-15)


def test_rank_by_z_and_the_micro_reading():
    ranking = rank_tsv(as_tsv(HAND), rank_by="z")[0]
    assert ranking.rank_by == "z" and ranking.value.tolist() == ranking.z.tolist()
    one_domain = as_tsv([(j, s, g, "all", x, t) for j, s, g, _, x, t in HAND])
    micro = rank_tsv(one_domain)[0]  # one domain: the mean over segments (WMT24's --micro ordering)
    assert micro.systems == ["W", "Y", "X"] and micro.value.tolist() == pytest.approx([69.4, 68.0, 66.0])


def test_clusters_rule():
    p = np.array([[np.nan, 0.01, 0.01], [0.01, np.nan, 0.3], [0.01, 0.3, np.nan]])
    assert wmt24.wmt24_clusters(p, 0.05).tolist() == [1, 2, 2]
    # 1 and 3 are not different: one cluster even though 2 differs from both
    p = np.array([[np.nan, 0.01, 0.2], [0.01, np.nan, 0.01], [0.2, 0.01, np.nan]])
    assert wmt24.wmt24_clusters(p, 0.05).tolist() == [1, 1, 1]
    # only the upper triangle (p of the system above) counts; NaN is not "not different"; p = alpha is
    p = np.array([[np.nan, np.nan, 0.01], [0.9, np.nan, 0.05], [0.01, 0.01, np.nan]])
    assert wmt24.wmt24_clusters(p, 0.05).tolist() == [1, 2, 3]
    assert wmt24.wmt24_clusters(np.zeros((0, 0)), 0.05).tolist() == []
    assert wmt24.wmt24_clusters(np.array([[np.nan]]), 0.05).tolist() == [1]


def test_wins_and_losses_read_each_direction():
    # p[0, 1] significant but p[1, 0] not (the scipy-1.14 rule can do this): 0 wins, 1 has no loss;
    # equal values: a significant p is a loss for both
    p = np.array([[np.nan, 0.01, 0.01], [0.2, np.nan, 0.01], [0.01, 0.01, np.nan]])
    wins, losses = wmt24.wins_losses(p, np.array([3.0, 2.0, 2.0]), 0.05)
    assert wins.tolist() == [2, 0, 0] and losses.tolist() == [0, 1, 2]


# ---- a slow, obvious implementation ----------------------------------------------------------------

def slow_wmt24(rows, alpha: float):
    """calculate_clusters.py's steps with dicts, scipy.stats.wilcoxon (the installed scipy) and
    scipy.stats.norm, on (judge, system, segment, domain, score, end_time) rows."""
    import warnings

    from scipy import stats
    from scipy.stats import wilcoxon

    last = {}
    for index, (j, s, g, d, x, t) in enumerate(rows):
        if (j, s, g) not in last or (t, index) >= last[j, s, g][0]:
            last[j, s, g] = ((t, index), x, d)
    cells = defaultdict(list)
    domain_of = {}
    for (j, s, g), (_, x, d) in last.items():
        cells[s, g].append(x)
        domain_of[g] = d
    score = {key: statistics.fmean(v) for key, v in cells.items()}
    systems = sorted({s for s, _ in score})
    per_domain = defaultdict(list)
    for (s, g), x in score.items():
        per_domain[s, domain_of[g]].append(x)
    value = {s: statistics.fmean(statistics.fmean(v) for (t, _), v in per_domain.items() if t == s) for s in systems}
    order = sorted(systems, key=lambda s: (-value[s], s))

    def p_value(a, b):
        shared = sorted(g for (s, g) in score if s == a and (b, g) in score)
        domains = list(dict.fromkeys(domain_of[g] for g in shared))
        z = []
        for d in domains:
            diff = [score[a, g] - score[b, g] for g in shared if domain_of[g] == d]
            if diff == [0.0]:  # scipy >= 1.15 refuses one zero difference; the enumeration gives p = 1
                pd = 1.0
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pd = float(wilcoxon(diff, alternative="two-sided").pvalue)
            z.append(stats.norm.ppf(1 - pd))
        if not z:
            return math.nan
        with np.errstate(invalid="ignore"):
            return 1 - stats.norm.cdf(np.sum(z) / np.sqrt(len(z)))

    p = {(a, b): p_value(a, b) for a in order for b in order if a != b}
    wins = {s: sum(p[s, t] < alpha and value[s] > value[t] for t in order if t != s) for s in order}
    losses = {s: sum(p[s, t] < alpha and not value[s] > value[t] for t in order if t != s) for s in order}
    clusters, cluster, until = [], 1, -1  # get_clusters of tools.py
    for i, a in enumerate(order):
        if until <= i:
            until = -1
        for k in range(i + 1, len(order)):
            if p[a, order[k]] > alpha:
                until = max(k, until)
        clusters.append(cluster)
        if until == -1:
            cluster += 1
    return order, value, p, wins, losses, clusters


SEGMENTS = {f"s{i}": "AB"[i % 2] if i < 10 else "C" for i in range(14)}
#: systems of different quality, so that some pairs differ significantly
OFFSET = {"A": 60, "B": 30, "C": 0, "D": 0}
GRID = [(s, g) for s in sorted(OFFSET) for g in sorted(SEGMENTS)]


@st.composite
def judgments(draw):
    """Most of the systems x segments grid (some cells missing), a judge per cell, and re-scores."""
    keep = draw(st.lists(st.booleans(), min_size=len(GRID), max_size=len(GRID)))
    noise = draw(st.lists(st.integers(0, 4), min_size=len(GRID), max_size=len(GRID)))
    judges = draw(st.lists(st.sampled_from(["j1", "j2", "j3"]), min_size=len(GRID), max_size=len(GRID)))
    rows = [(j, s, g, 10 * x + OFFSET[s], 1.0) for (s, g), k, x, j in zip(GRID, keep, noise, judges) if k or x]
    again = draw(st.lists(st.tuples(st.integers(0, max(len(rows) - 1, 0)), st.integers(0, 4),
                                    st.sampled_from([0.0, 1.0, 2.0])), max_size=8))
    rows += [(*rows[i][:3], 10 * x + OFFSET[rows[i][1]], t) for i, x, t in again if rows]
    return [(j, s, g, SEGMENTS[g], x, t) for j, s, g, x, t in draw(st.permutations(rows))]


@settings(max_examples=100, deadline=None)
@given(rows=judgments(), alpha=st.sampled_from([0.05, 0.4]))
def test_equals_the_slow_implementation(rows, alpha):
    if not rows:
        return
    order, value, p, wins, losses, clusters = slow_wmt24(rows, alpha)
    ranking = rank_tsv(as_tsv(rows), alpha=alpha, test_method="auto")[0]
    for i, s in enumerate(ranking.systems):
        assert ranking.value[i] == pytest.approx(value[s], rel=1e-12, abs=1e-12)
    if len({round(v, 9) for v in value.values()}) == len(value):  # no near-ties in the order
        assert ranking.systems == order
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                if i != j:
                    ours, theirs = ranking.p[i, j], p[a, b]
                    assert (math.isnan(ours) and math.isnan(theirs)) or abs(ours - theirs) <= 1e-12, (a, b)
        assert ranking.wins.tolist() == [wins[s] for s in order]
        assert ranking.losses.tolist() == [losses[s] for s in order]
        assert ranking.cluster.tolist() == clusters
    assert (ranking.lo == ranking.losses + 1).all() and (ranking.hi == len(ranking.systems) - ranking.wins).all()


# ---- WMT24's scripts, run on the same file ---------------------------------------------------------

def wmt24_steps(name: str) -> tuple[list, dict]:
    """The ranking rows and {(a, b): p} of the committed output of WMT24's steps (one lp)."""
    rows, p = wmt24_steps_by_lp(name)
    assert len(rows) == 1
    return next(iter(rows.values())), next(iter(p.values()))


def wmt24_steps_by_lp(name: str) -> tuple[dict, dict]:
    """{lp: ranking rows} and {lp: {(a, b): p}} of the committed output of WMT24's steps."""
    rows, p = defaultdict(list), defaultdict(dict)
    for line in (DATA / name).read_text().splitlines():
        fields = line.split("\t")
        if line.startswith("#") or fields[0] == "lp":
            continue
        if len(fields) == 11:
            rows[fields[0]].append(fields)
        else:
            p[fields[0]][fields[1], fields[2]] = float(fields[3])
            p[fields[0]][fields[2], fields[1]] = float(fields[4])
    return rows, p


def check_against_wmt24(ranking, name: str, steps=None):
    rows, p = steps or wmt24_steps(name)
    assert ranking.systems == [r[1] for r in rows]
    for i, r in enumerate(rows):
        assert ranking.value[i] == pytest.approx(float(r[3]), rel=1e-12)
        assert [ranking.segments[i], ranking.wins[i], ranking.losses[i], ranking.lo[i], ranking.hi[i],
                ranking.cluster[i]] == [int(v) for v in r[4:10]]
    compared = 0
    for i, a in enumerate(ranking.systems):
        for j, b in enumerate(ranking.systems):
            if i != j:
                assert abs(ranking.p[i, j] - p[a, b]) <= max(1e-15, 1e-12 * p[a, b]), (a, b)
                compared += 1
    assert compared == len(rows) * (len(rows) - 1)
    return rows


@pytest.fixture(scope="module")
def excerpt_stream():
    return ok(cli(*CONVERT)).stdout


def test_equals_wmt24s_steps_through_the_command(excerpt_stream):
    out = ok(cli_input([*WMT24, "--by", "lp"], excerpt_stream)).stdout
    ours = [line.split("\t") for line in out.splitlines()[1:]]
    rows, _ = wmt24_steps(STEPS["1.13.1"])
    assert [r[1] for r in ours] == [r[1] for r in rows]
    assert [[r[7], r[8], r[10], r[11], r[12]] for r in ours] == [[r[5], r[6], r[7], r[8], r[9]] for r in rows]
    assert all(float(a[2]) == pytest.approx(float(b[3]), rel=1e-12) for a, b in zip(ours, rows))


def test_equals_wmt24s_steps_pvalues_and_domain_means():
    stream = list(_without_tutorials(read_export(EXPORT, [DOCS])))
    ranking = zscore.rank_stream(iter(stream), by=("lp",), protocol="wmt24")[0]
    rows = check_against_wmt24(ranking, STEPS["1.13.1"])
    cells = collect(iter(stream), ("lp",), domain_column="domain", last_score=True)[("en-cs",)].cells()
    means = wmt24.domain_means(cells, cells.raw)
    for r in rows:
        s = cells.systems.index(r[1])
        for item in r[10].split(";"):
            domain, value = item.split("=")
            assert means[s, cells.domains.index(domain)] == pytest.approx(float(value), rel=1e-12)
    # with the rule of scipy >= 1.15, WMT24's steps run with scipy 1.17.1
    current = zscore.rank_stream(iter(stream), by=("lp",), protocol="wmt24", test_method="auto")[0]
    check_against_wmt24(current, STEPS["1.17.1"])


def read_export(path, documents):
    """An ESA export read as WMT24's load_data and attach_resources read it."""
    return read(str(path), "appraise", item_types="TGT", documents=[str(d) for d in documents],
                exclude_documents=["*#incomplete*", "*#dup*"], report=lambda m: None)


def _without_tutorials(batches):
    for b in batches:
        keep = np.array(["tutorial" not in s for s in b.item.tolist()])
        if keep.any():
            yield b if keep.all() else b.select_groups(keep)


def calculate_clusters_table(name: str) -> list:
    """calculate_clusters.py's LaTeX table: rank ranges, system, Human score to 1 decimal, cluster lines."""
    text = (DATA / name).read_text()
    body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    table, cluster = [], 1
    for line in body.splitlines():
        if line.startswith("\\cmidrule"):
            cluster += 1
            continue
        rank, system, human = re.sub(r"\\(closedtrack|opentrack|nonsupporting)\{", "", line).split(" & ")[:3]
        table.append((rank, system.replace("HUMAN-A", "refA").rstrip("}"), human, cluster))
    return table


def test_equals_calculate_clusters_table(excerpt_stream):
    out = ok(cli_input([*WMT24, "--by", "lp"], excerpt_stream)).stdout
    ours = [(f"{r[10]}-{r[11]}", r[1], f"{float(r[2]):.1f}", int(r[12]))
            for r in (line.split("\t") for line in out.splitlines()[1:])]
    assert ours == calculate_clusters_table(TABLES["1.13.1"])
    # under scipy 1.17.1 (the rule of scipy >= 1.15) WMT24's script writes another table
    current = zscore.rank_stream(_without_tutorials(read_export(EXPORT, [DOCS])), by=("lp",), protocol="wmt24",
                                 test_method="auto")[0]
    ours = [(f"{lo}-{hi}", s, f"{v:.1f}", c) for s, v, lo, hi, c in
            zip(current.systems, current.value.tolist(), current.lo.tolist(), current.hi.tolist(),
                current.cluster.tolist())]
    assert ours == calculate_clusters_table(TABLES["1.17.1"])
    assert calculate_clusters_table(TABLES["1.13.1"]) != calculate_clusters_table(TABLES["1.17.1"])


def test_the_export_exercises_the_rules(excerpt_stream):
    """What the synthetic export must contain for the comparisons above to cover WMT24's rules
    (the situations the excerpt of WMT24's wave 2 held that these checks used before)."""
    import csv
    import gzip

    raw = list(csv.reader(gzip.open(EXPORT, "rt", encoding="utf-8", newline="")))
    assert {len(r) for r in raw} == {12}  # Appraise's document-task ESA layout
    assert any("tutorial" in r[1] for r in raw)  # tutorial lines, left out
    assert {"BAD", "TGT"} <= {r[3] for r in raw}
    for suffix in ("#bad", "#dup", "#incomplete"):  # filler documents, left out
        assert any(suffix in r[7] for r in raw)
    rows = [line.split("\t") for line in excerpt_stream.splitlines()]
    column = {name: i for i, name in enumerate(rows[0])}
    assert {r[column["domain"]] for r in rows[1:]} == {"literary", "news", "social", "speech"}
    # a judge re-scored an item: one judgment is kept, the one with the latest end time, also where
    # that one is written first
    seen = defaultdict(list)
    for index, r in enumerate(rows[1:]):
        seen[r[column["judge"]], r[1], r[column["segment"]]].append((float(r[column["end_time"]]), index, r))
    again = {key: v for key, v in seen.items() if len(v) > 1}
    assert len(again) >= 2 and any(max(v)[1] < min(v)[1] for v in again.values())
    ranking = zscore.rank_stream(read(text_source(excerpt_stream), "tsv"), by=("lp",), protocol="wmt24")[0]
    assert (ranking.judgments == ranking.segments).all()
    # ... and the scores differ, so that keeping another one would move the numbers compared above
    assert all(len({r[column["score"]] for _, _, r in versions}) > 1 for versions in again.values())
    # not every pair shares every segment
    assert len(set(ranking.segments.tolist())) > 1
    # the domain macro-average orders the systems differently from the mean over segments
    micro = zscore.rank_stream(read(text_source(excerpt_stream.replace("\tliterary\t", "\tnews\t")
                                                 .replace("\tsocial\t", "\tnews\t")
                                                 .replace("\tspeech\t", "\tnews\t")), "tsv"),
                               by=("lp",), protocol="wmt24")[0]
    assert micro.systems != ranking.systems
    # WMT24's steps: a cluster of several systems, a rank range wider than one position, a pair
    # whose p-value differs by direction (scipy 1.13.1's exact table), significant and not
    for name in STEPS.values():
        steps, p = wmt24_steps(name)
        clusters = [int(r[9]) for r in steps]
        assert max(clusters) > 1 and len(set(clusters)) < len(clusters)
        assert any(r[7] != r[8] for r in steps)
        assert any(value < 0.05 for value in p.values()) and any(value > 0.05 for value in p.values())
    _, p = wmt24_steps(STEPS["1.13.1"])
    assert any(p[a, b] != p[b, a] for a, b in p)


# ---- WMT24's released ESA scores (a checkout) ------------------------------------------------------

WAVES = ("esa_generalMT2024_wave2.csv", "esa_generalMT2024_wave3.csv")


@pytest.mark.parametrize("scipy", ["1.13.1", "1.17.1"])
def test_equals_wmt24s_steps_on_the_released_waves(scipy):
    """Every language pair of WMT24's released waves 2 and 3, read from a checkout of
    wmt-conference/wmt24-news-systems (commit bfa937ee5358), against WMT24's steps run on them
    (their output committed as tests/data/wmt24/waves2-3.steps.wmt24-bfa937ee5358.scipy-*.tsv)."""
    root = peer_checkout("WMT24_NEWS_SYSTEMS_SRC", "a checkout of wmt-conference/wmt24-news-systems (bfa937ee5358)",
                         *(f"humeval/{wave}" for wave in WAVES), "txt/documents")
    rows, p = wmt24_steps_by_lp(f"waves2-3.steps.{PEER}.scipy-{scipy}.tsv")
    documents = sorted((root / "txt" / "documents").glob("*.docs"))
    batches = itertools.chain.from_iterable(read_export(root / "humeval" / wave, documents) for wave in WAVES)
    method = "auto" if scipy == "1.17.1" else "scipy-1.14"
    rankings = zscore.rank_stream(_without_tutorials(batches), by=("lp",), protocol="wmt24", test_method=method)
    ranked = {r.key[0]: r for r in rankings}
    assert set(rows) <= set(ranked) and len(rows) >= 4
    for lp in rows:
        check_against_wmt24(ranked[lp], lp, (rows[lp], p[lp]))


# ---- intervals, options, errors --------------------------------------------------------------------

def test_intervals_resample_within_domains(excerpt_stream):
    args = [*WMT24, "--by", "lp", "--ci", "0.95", "--bootstrap", "300", "--seed", "3"]
    one = ok(cli_input(args, excerpt_stream)).stdout
    assert ok(cli_input([*args, "--jobs", "2"], excerpt_stream)).stdout == one
    for row in (line.split("\t") for line in one.splitlines()[1:]):
        low, value, high = float(row[13]), float(row[2]), float(row[14])
        assert low < value < high
    cells = collect(read(text_source(excerpt_stream), "tsv"), ("lp",), domain_column="domain",
                    last_score=True)[("en-cs",)].cells()
    ranking = wmt24.rank_cells_wmt24(cells, ("en-cs",))
    position = {s: i for i, s in enumerate(ranking.systems)}
    cell_system = np.array([position[cells.systems[c]] for c in cells.system.tolist()])
    segment_domain = np.full(cells.n_segments, -1)
    segment_domain[cells.segment] = cells.domain
    strata = tuple(np.flatnonzero(segment_domain == d) for d in range(len(cells.domains)))
    shared = {0: zscore.Resampled(cell_system, cells.segment, cells.raw, cells.n_segments, len(position), 5,
                                  cells.domain, strata)}
    replicate = zscore.bootstrap_unit(shared, (0, 7, 8))[0]
    from rankeval_cli.executor import unit_seed

    rng = np.random.default_rng(unit_seed(5, (0, 7)))
    drawn = [stratum[rng.integers(0, len(stratum), len(stratum))] for stratum in strata]  # domain by domain
    for s, i in position.items():
        mine = {g: x for c, g, x in zip(cell_system, cells.segment, cells.raw) if c == i}
        means = [statistics.fmean([mine[g] for g in segs if g in mine]) for segs in drawn
                 if any(g in mine for g in segs)]
        assert replicate[i] == pytest.approx(statistics.fmean(means), rel=1e-12)


def test_usage_errors():
    text = as_tsv(HAND)
    for args in ([*WMT24, "--shared-segments"], ["aggregate", "--method", "z-score", "--domain-column", "d"],
                 ["aggregate", "--method", "kemeny", "--protocol", "wmt24"],
                 ["aggregate", "--method", "borda", "--rank-by", "raw"]):
        result = cli_input(args, text)
        assert result.exit_code == 2, args
    with pytest.raises(ValueError):
        zscore.rank_stream(iter(()), protocol="wmt25")


def test_data_errors():
    text = as_tsv(HAND)
    result = cli_input([*WMT24, "--domain-column", "area"], text)
    assert result.exit_code == 1 and re.match(r"rankeval: <stdin>:\d+: no 'area' column", result.stderr)
    moved = text.replace("\tb2\tB\t", "\tb2\tA\t", 1)  # b2 in domain A on one row, B on the others
    result = cli_input(WMT24, moved)
    assert result.exit_code == 1 and "segment 'b2' is in domain" in result.stderr
    blank = text.replace("\ta1\tA\t", "\ta1\t\t", 1)
    result = cli_input(WMT24, blank)
    assert result.exit_code == 1 and re.match(r"rankeval: <stdin>:2: empty domain", result.stderr)
    no_judge = "group\titem\tgold\tpred\tsegment\tdomain\ng1\tA\t-5\t\ts\tD\n"
    result = cli_input(WMT24 + ["--rank-by", "z"], no_judge)
    assert result.exit_code == 1 and "--rank-by raw" in result.stderr
    assert ok(cli_input(WMT24, no_judge)).stdout.count("\n") == 2


def test_undefined_p_values():
    # P and Q share no segment; R and Q tie on all 14 segments of domain A (asymptotic: 0/0)
    rows = [("j", "P", f"p{i}", "A", 90, 0.0) for i in range(3)]
    rows += [("j", s, f"s{i}", "A", 50 + i, 0.0) for s in ("Q", "R") for i in range(14)]
    ranking = rank_tsv(as_tsv(rows))[0]
    assert ranking.systems == ["P", "Q", "R"]
    assert np.isnan(ranking.p[0, 1]) and np.isnan(ranking.p[1, 2]) and np.isnan(ranking.p[0, 2])
    # no wins or losses, and no pair "not different": every position ends a cluster
    assert ranking.wins.tolist() == [0, 0, 0] and ranking.losses.tolist() == [0, 0, 0]
    assert ranking.cluster.tolist() == [1, 2, 3]
