"""trec_eval's measure parameters held: a float parameter whose use is undefined in trec_eval's C
(nan, inf, a value its integer conversions or gain-sorting overflow) is refused in one usage error;
every extreme but defined parameter prints trec_eval 10.0's bytes, with no numpy warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREC = ROOT / "examples" / "trec"
PEER = ROOT / "tests" / "data" / "extreme-params.trec_eval-10.0-f4253652.txt"


def _trec_eval(*args):
    return subprocess.run([sys.executable, "-W", "error", "-m", "rankeval_cli", "trec_eval", "-q", *args,
                           str(TREC / "qrels.txt"), str(TREC / "bm25.run")], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONWARNINGS="error"))


def _peer_cases():
    spec, lines = None, []
    for line in PEER.read_text().splitlines(keepends=True):
        if line.startswith("## -m "):
            if spec:
                yield spec, "".join(lines)
            spec, lines = line[6:].strip(), []
        else:
            lines.append(line)
    yield spec, "".join(lines)


@pytest.mark.parametrize("spec, expected", list(_peer_cases()), ids=lambda v: v if len(v) < 40 else "")
def test_extreme_defined_parameters_print_trec_evals_bytes(spec, expected):
    result = _trec_eval("-m", spec)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == expected


REFUSED = ["11pt_avg.0.5,nan", "Rprec_mult.nan", "Rprec_mult.1e300", "Rprec_mult.inf", "ndcg.0=1e308,1=1e308",
           "ndcg.1=nan", "ndcg.2=1e10", "iprec_at_recall.nan", "iprec_at_recall.1e300", "utility.1e308,1,1,1",
           "utility.nan,1,1,1", "set_F.nan", "set_F.-inf", "rbp.p=nan", "rbp.p=1e301", "relstring.1e300",
           "Rprec_mult_avgjg.nan"]


@pytest.mark.parametrize("spec", REFUSED)
def test_undefined_parameters_are_refused(spec):
    result = _trec_eval("-m", spec)
    assert result.returncode == 2 and result.stdout == ""
    assert "not a finite number within" in result.stderr and "Traceback" not in result.stderr
