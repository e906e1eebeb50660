"""``rankeval rankdcg`` through click's CliRunner: Katerenchuk & Rosenberg 2016 Table 1 as a stream of groups."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from helpers.rankdcg_paper import L, TABLE_1


def test_table_1_per_group_with_scores():
    lines = ["group\titem\tgold\tpred"]
    for row, (hypothesis, _) in enumerate(TABLE_1, 1):
        lines += [f"h{row}\tx{i}\t{g}\t{p}" for i, (g, p) in enumerate(zip(L, hypothesis))]
    result = CliRunner().invoke(main, ["rankdcg", "--scores", "--relevance", "grades", "--per-group"],
                                input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    assert [r[0] for r in rows] == [f"h{i}" for i in range(1, 7)]
    for (hypothesis, expected), row in zip(TABLE_1, rows):
        assert float(row[3]) == pytest.approx(expected, abs=1e-12)
    summary = result.stderr.splitlines()[1].split("\t")
    assert float(summary[1]) == pytest.approx((1 + 0.975 + 0.65 + 0.325 + 0.325 + 0) / 6, rel=1e-12)
