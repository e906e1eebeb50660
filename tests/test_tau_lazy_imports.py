"""Start-up of ``rankeval tau``: no scipy import unless per-group p-values are written."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from rankeval_cli.measures.tau import TauAccumulator, group_p, set_p


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_tau_module_does_not_import_scipy():
    assert not any(m.startswith("scipy") for m in _modules_after("import rankeval_cli.measures.tau"))


def test_summary_without_per_group_rows_does_not_import_scipy():
    code = ("from rankeval_cli.measures.tau import TauAccumulator\n"
            "from rankeval_cli.batch import Batch\n"
            "import numpy as np\n"
            "acc = TauAccumulator('b')\n"
            "rows = acc.add_counts(np.array(['g']), __import__('rankeval_cli.measures.pairs', fromlist=['x'])"
            ".pair_counts([1., 2., 3.], [1., 3., 2.], [0, 3]))\n"
            "rows.tau; acc.summary()")
    assert not any(m.startswith("scipy") for m in _modules_after(code))


def test_per_group_p_is_computed_on_demand_and_matches_group_p():
    from rankeval_cli.measures.pairs import pair_counts

    acc = TauAccumulator("b")
    counts = pair_counts([1., 2., 2., 4., 5., 1., 2.], [2., 1., 1.5, 5., 3., 1., 1.], [0, 5, 7])
    rows = acc.add_counts(np.array(["a", "b"], dtype=object), counts)
    assert np.array_equal(rows.p, group_p("b", rows.tau, counts.n), equal_nan=True)
    assert [r["p_independence"] for r in rows.records()][0] == rows.p[0]


def test_set_p_math_erfc_close_to_scipy_erfc():
    """set_p uses math.erfc (C library): within 1e-13 relative of scipy's cephes erfc, 0 where scipy's is."""
    from scipy.special import erfc

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0, 10, 20000), rng.exponential(1, 20000), np.linspace(0, 40, 20001),
                        np.linspace(26.5, 27, 20001)])
    S = x * math.sqrt(2)
    ours = np.array([set_p(v, 1.0) for v in S.tolist()])
    theirs = erfc(S / math.sqrt(2))  # the argument set_p computes
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-300)
    assert np.array_equal(ours == 0, theirs == 0)
    assert set_p(0, 0.0) != set_p(0, 0.0)  # NaN without variance
    assert set_p(5, 4.0) == pytest.approx(math.erfc(2.5 / math.sqrt(2)), rel=0)
