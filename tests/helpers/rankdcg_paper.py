"""The worked example of the rankDCG paper (Katerenchuk and Rosenberg, 2016): its gold scores and
Table 1's hypotheses with their rankDCG (test_rankdcg, test_rankdcg_cli)."""

L = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]  # the paper's §4 example, gold scores (higher = better)

# the paper's Table 1: hypothesis (predicted scores) -> rankDCG
TABLE_1 = [
    ([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], 1.0),
    ([9, 4, 4, 2, 2, 1, 2, 1, 1, 1], 0.975),
    ([4, 4, 2, 9, 2, 2, 1, 1, 1, 1], 0.65),
    ([1, 4, 4, 2, 2, 2, 9, 1, 1, 1], 0.325),
    ([1, 4, 4, 2, 2, 2, 1, 1, 1, 9], 0.325),
    ([1, 1, 1, 1, 2, 2, 2, 4, 4, 9], 0.0),
]
