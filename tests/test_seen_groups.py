"""The bounded memory of groups seen (formats/seen.py), against a Python set.

A small ``MEMORY_GROUPS`` makes the spill and the end-of-stream merge run on
inputs of a few hundred groups.
"""

import numpy as np
import pytest

from rankeval_cli import formats
from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.errors import DataError
from rankeval_cli.formats import seen


@pytest.fixture
def tiny_memory(monkeypatch):
    monkeypatch.setattr(seen, "MEMORY_GROUPS", 16)


def batches_of(groups, per_batch):
    """One-item groups, numbered lines from 2 (after a header), cut into batches."""
    for start in range(0, len(groups), per_batch):
        ids = groups[start:start + per_batch]
        n = len(ids)
        yield Batch(group=np.array(ids, dtype=object), offsets=offsets_from_sizes(np.ones(n, dtype=np.int64)),
                    item=np.array(["a"] * n, dtype=object), gold=np.ones(n), pred=np.ones(n), extra={},
                    line=np.arange(start + 2, start + 2 + n, dtype=np.int64), source="f.tsv")


def first_repeat(groups):
    """(line, first line) of the earliest group id seen before: the slow obvious check."""
    where = {}
    for k, g in enumerate(groups):
        if g in where:
            return k + 2, where[g]
        where[g] = k + 2
    return None


def outcome(groups, per_batch):
    try:
        for _ in formats.checked(batches_of(groups, per_batch), "f.tsv"):
            pass
    except DataError as error:
        return error.line
    return None


def test_the_splitmix_mixer_is_a_bijection_on_a_sample():
    values = np.array([str(i) for i in range(100_000)], dtype=object)
    assert len(np.unique(seen.group_hashes(values))) == 100_000


@pytest.mark.usefixtures("tiny_memory")
@pytest.mark.parametrize("seed", range(300))
def test_repeats_far_back_are_found_at_the_end_and_near_ones_at_once(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    groups = [f"g{i}" for i in range(n)]
    if rng.random() < 0.7 and n > 1:
        for _ in range(int(rng.integers(1, 3))):
            at = int(rng.integers(1, len(groups) + 1))
            groups.insert(at, groups[int(rng.integers(0, at))])
    groups = [g for k, g in enumerate(groups) if k == 0 or g != groups[k - 1]]  # contiguous = one group
    expected = first_repeat(groups)
    assert outcome(groups, int(rng.integers(1, 40))) == (None if expected is None else expected[0])


@pytest.mark.usefixtures("tiny_memory")
def test_the_end_of_stream_message_names_both_lines():
    groups = [f"g{i}" for i in range(100)] + ["g3"]
    with pytest.raises(DataError) as caught:
        for _ in formats.checked(batches_of(groups, 10), "f.tsv"):
            pass
    assert caught.value.line == 102
    assert "it first appeared at line 5" in str(caught.value)


@pytest.mark.usefixtures("tiny_memory")
def test_a_recent_repeat_still_names_the_group_at_once():
    groups = [f"g{i}" for i in range(100)] + ["g97"]  # g97 is in the previous batch
    consumed = 0
    with pytest.raises(DataError, match="group 'g97' appears again"):
        for _ in formats.checked(batches_of(groups, 10), "f.tsv"):
            consumed += 1
    assert consumed == 10


@pytest.mark.usefixtures("tiny_memory")
def test_memory_stays_bounded_and_the_spill_holds_the_rest():
    tracker = seen.SeenGroups()
    rng = np.random.default_rng(5)
    for start in range(0, 1000, 7):
        hashes = np.sort(rng.integers(-2**62, 2**62, 7))
        tracker.add(hashes, np.arange(start, start + 7))
        assert tracker.in_memory <= seen.MEMORY_GROUPS
    assert sum(n for _, n in tracker.spilled) + tracker.in_memory == 143 * 7  # 143 batches
    assert tracker.finish() is None


def test_integer_like_ids_spread_over_slices():
    """Mixed hashes of 0..n-1 (hash(int) is the int itself) fill the slices evenly."""
    hashes = seen.group_hashes(np.arange(1 << 16).astype(object))
    counts = np.histogram(hashes, bins=16, range=(-2.0**63, 2.0**63))[0]
    assert counts.min() > 0.8 * (1 << 12) and counts.max() < 1.2 * (1 << 12)
