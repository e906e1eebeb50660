"""ExactSum and its vectorized reduction against exact rational arithmetic (fractions)."""

from fractions import Fraction

import numpy as np
import pytest

from rankeval_cli.exactsum import ExactSum, exact_terms


def exact(values) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def samples(rng):
    yield rng.random(1000)                                       # [0, 1)
    yield 1.0 / rng.integers(1, 50, 1000)                        # reciprocal ranks
    yield rng.normal(0, 1, 1000) * 10.0 ** rng.integers(-20, 20, 1000)  # mixed signs and scales
    yield np.array([1e300, 1.0, -1e300, 1e-300, 2.0**-1000, -0.0, 0.0])
    yield np.array([2.0**53, 1.0, 1.0, -2.0**53])                # cancellation
    yield np.array([1e-310, 3e-320, 1.0])                        # subnormals: the list path
    yield np.array([2.0**950, -2.0**950, 1.5])                   # beyond 2^900: the list path


@pytest.mark.parametrize("seed", range(20))
def test_the_terms_sum_exactly_to_the_values(seed):
    rng = np.random.default_rng(seed)
    for values in samples(rng):
        assert exact(exact_terms(values)) == exact(values)


@pytest.mark.parametrize("seed", range(20))
def test_the_sum_is_the_correctly_rounded_exact_sum_however_it_is_cut(seed):
    rng = np.random.default_rng(100 + seed)
    values = np.concatenate(list(samples(rng)))
    rng.shuffle(values)
    cuts = np.sort(rng.integers(0, len(values), 5))
    total = ExactSum()
    for part in np.split(values, cuts):
        total.add(part)
    assert total.value == float(exact(values))
    listed = ExactSum()
    listed.add(values.tolist())
    assert listed.value == total.value


def test_a_large_batch_is_reduced_in_chunks(monkeypatch):
    import rankeval_cli.exactsum as module

    monkeypatch.setattr(module, "CHUNK", 7)
    values = np.random.default_rng(3).random(100) * 2.0**52
    assert exact(exact_terms(values)) == exact(values)


def test_terms_are_few():
    values = 1.0 / np.arange(1, 200_001)
    assert len(exact_terms(values)) <= 2 * 20   # two per exponent, exponents of 1/1 .. 1/200000
