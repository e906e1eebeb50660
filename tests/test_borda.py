"""Borda count (Borda 1781; docs/definitions.md#borda): points, ties, partial lists."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import slow_aggregate as slow
from rankeval_cli.aggregate.run import aggregate
from rankeval_cli.cli import main

# the textbook example: lists A,B,C / A,C,B / B,A,C; ranks aligned 1,2,3 / 1,3,2 / 2,1,3;
# N − r with N = 3: 2,1,0 / 2,0,1 / 1,2,0 → summed 5, 3, 1.
SEED = [[("A", 1), ("B", 2), ("C", 3)], [("A", 1), ("C", 2), ("B", 3)], [("B", 1), ("A", 2), ("C", 3)]]


def borda(profile, **options):
    [r] = aggregate([slow.batch_of(profile)], "borda", **options)
    return r.items, r.scores.tolist()


def test_seed_004_example():
    assert borda(SEED) == (["A", "B", "C"], [5.0, 3.0, 1.0])


def test_seed_004_code_convention():
    # the seed's code uses 0-based enumerate: N − r with r = 0,1,2 → 3,2,1 per list:
    # A 3+3+2 = 8, B 2+1+3 = 6, C 1+2+1 = 4
    assert borda(SEED, borda_points="n-r+1") == (["A", "B", "C"], [8.0, 6.0, 4.0])


def test_tied_items_share_the_mean_of_their_positions():
    # A and B tied at the top of a 3-list span positions 1-2: (2 + 1)/2 = 1.5 each; C at 3 → 0
    assert borda([[("A", 1), ("B", 1), ("C", 3)]]) == (["A", "B", "C"], [1.5, 1.5, 0.0])
    # rank encodings of the same tie pattern give the same points ([1,1,3], [1,1,2], [2,2,3])
    for values in ([1, 1, 2], [2, 2, 3], [1.5, 1.5, 3]):
        group = [("A", values[0]), ("B", values[1]), ("C", values[2])]
        assert borda([group])[1] == [1.5, 1.5, 0.0]


# Partial lists over A, B, C, D:  L1: A 1, B 2 (C, D absent)   L2: C 1, A 2, D 3 (B absent)
PARTIAL = [[("A", 1), ("B", 2)], [("C", 1), ("A", 2), ("D", 3)]]


@pytest.mark.parametrize("missing, points, expected", [
    # ignore, N − r: L1 (N=2) A 1, B 0; L2 (N=3) C 2, A 1, D 0 → A 2, B 0, C 2, D 0
    ("ignore", "n-r", {"A": 2, "B": 0, "C": 2, "D": 0}),
    # ignore, N − r + 1: L1 A 2, B 1; L2 C 3, A 2, D 1 → A 4, B 1, C 3, D 1
    ("ignore", "n-r+1", {"A": 4, "B": 1, "C": 3, "D": 1}),
    # bottom, N − r over K = 4: L1 A 3, B 2, C and D share positions 3-4: (1 + 0)/2 = 0.5;
    # L2 C 3, A 2, D 1, B alone at position 4: 0 → A 5, B 2, C 3.5, D 1.5
    ("bottom", "n-r", {"A": 5, "B": 2, "C": 3.5, "D": 1.5}),
    # bottom, N − r + 1: one more point per list for everyone → A 7, B 4, C 5.5, D 3.5
    ("bottom", "n-r+1", {"A": 7, "B": 4, "C": 5.5, "D": 3.5}),
])
def test_partial_lists_by_hand(missing, points, expected):
    items, scores = borda(PARTIAL, borda_missing=missing, borda_points=points)
    assert dict(zip(items, scores)) == expected
    assert items == sorted(expected, key=lambda i: (-expected[i], i))


def test_a_blank_is_no_position():
    # g1: B blank, so the list is A, C (N = 2); g2: B 1, A 2.
    # ignore: g1 A 1, C 0; g2 B 1, A 0 → A 1, B 1, C 0
    # bottom (K = 3): g1 A 2, C 1, B alone at the bottom 0; g2 B 2, A 1, C 0 → A 3, B 2, C 1
    profile = [[("A", 1), ("B", None), ("C", 2)], [("B", 1), ("A", 2)]]
    assert dict(zip(*borda(profile))) == {"A": 1, "B": 1, "C": 0}
    assert dict(zip(*borda(profile, borda_missing="bottom"))) == {"A": 3, "B": 2, "C": 1}
    # an item never ranked anywhere is not an item of the ranking
    assert borda([[("A", 1), ("B", None), ("C", 2)]], borda_missing="bottom")[0] == ["A", "C"]


@pytest.mark.parametrize("missing", ["ignore", "bottom"])
@pytest.mark.parametrize("points", ["n-r", "n-r+1"])
def test_equals_positions_written_out_on_random_profiles(missing, points):
    rng = np.random.default_rng(11 + len(missing) + len(points))
    for _ in range(60):
        profile = slow.random_profile(rng, int(rng.integers(1, 40)), int(rng.integers(2, 8)), blank=0.15)
        items, scores = borda(profile, borda_missing=missing, borda_points=points)
        expected = slow.borda(profile, missing, points)
        assert set(items) == set(expected)
        for item, score in zip(items, scores):
            assert score == pytest.approx(expected[item], rel=1e-12, abs=1e-12)
        assert items == sorted(expected, key=lambda i: (-expected[i], i))


def test_cli_output_columns():
    text = "group\titem\tgold\tpred\n" + "".join(
        f"{g}\t{item}\t{rank}\t\n" for g, group in enumerate(SEED) for item, rank in group)
    result = CliRunner().invoke(main, ["borda"], input=text)
    assert result.exit_code == 0, result.output
    lines = [l.split("\t") for l in result.stdout.splitlines()]
    assert lines[0] == ["system", "value", "rank", "signature"]
    assert [l[:3] for l in lines[1:]] == [["A", "5", "1"], ["B", "3", "2"], ["C", "1", "3"]]
    assert lines[1][3].startswith("borda|column:gold|missing:ignore|points:n-r|v:")
