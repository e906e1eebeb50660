"""The measure registry (rankeval_cli.measures.trec): every trec_eval measure defined once, the
vectorized kernels against plain loops transcribed from trec_eval's m_*.c on random queries,
hand-computed values, the expected tie policy against enumeration of every tied order, the
name grammar, the parameter reader, and the judgment-group and preference readers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import slow_trec_eval as slow
from rankeval_cli.errors import DataError
from rankeval_cli.measures.ir import Ranking
from rankeval_cli.measures.trec import registry
from rankeval_cli.measures.trec.engine import compute, query_batch
from rankeval_cli.measures.trec.gain import gain_table, glibc_msort
from rankeval_cli.measures.trec.names import UnknownMeasure, parse, split_names, suggest
from rankeval_cli.measures.trec.params import ParamError, c_atof, c_atol, parse_params

#: trec_eval 10.0's measure files (ls m_*.c)
FILES = """m_11pt_avg m_G m_P m_P_avgjg m_Rndcg m_Rprec m_Rprec_mult m_Rprec_mult_avgjg m_binG m_bpref m_gm_bpref
m_gm_map m_infap m_iprec_at_recall m_map m_map_avgjg m_map_cut m_ndcg m_ndcg_cut m_ndcg_p m_ndcg_rel
m_num_nonrel_judged_ret m_num_q m_num_rel m_num_rel_ret m_num_ret m_prefs_avgjg m_prefs_avgjg_Rnonrel
m_prefs_avgjg_Rnonrel_ret m_prefs_avgjg_imp m_prefs_avgjg_ret m_prefs_num_prefs_ful m_prefs_num_prefs_ful_ret
m_prefs_num_prefs_poss m_prefs_pair m_prefs_pair_imp m_prefs_pair_ret m_prefs_simp m_prefs_simp_imp
m_prefs_simp_ret m_rbp m_rbp_resid m_recall m_recip_rank m_rel_P m_relstring m_runid m_set_F m_set_P m_set_map
m_set_recall m_set_rel_P m_success m_unjudged m_utility m_yaap""".split()


def test_every_measure_file_has_its_definitions():
    trec = [d for d in registry.definitions(10) if d.family == "trec_eval"]
    defined = {d.source[:-2] for d in trec}
    assert len(FILES) == 56 and defined == set(FILES)
    for d in trec:
        assert d.compute.__doc__, d.name  # the equation lives in the docstring


def test_order_and_sets_are_measures_c():
    names = [d.name for d in registry.definitions(10, trec_eval_only=True)]
    assert names[:5] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]
    assert names[-3:] == ["rbp", "rbp_resid", "unj"] and "ndcg_p" not in names
    assert len(registry.SETS[10]["all_trec"]) == 37 and len(registry.SETS[10]["official"]) == 12
    assert [d.name for d in registry.definitions(9, trec_eval_only=True) if d.since > 9] == []


# ---- the kernels against trec_eval's loops ------------------------------------------------

CASES = [  # (name, params text, slow function of (query, values))
    ("P", "1,2,5,10", lambda q, v: slow.P(q, v)),
    ("recall", "1,3,100", lambda q, v: slow.recall(q, v)),
    ("relative_P", "2,5,30", lambda q, v: slow.relative_P(q, v)),
    ("success", "1,2,5", lambda q, v: slow.success(q, v)),
    ("unj", "1,4,8", lambda q, v: slow.unj(q, v)),
    ("map", None, lambda q, v: [slow.map_(q)]),
    ("gm_map", None, lambda q, v: [slow.gm_map(q)]),
    ("map_cut", "1,3,7", lambda q, v: slow.map_cut(q, v)),
    ("Rprec", None, lambda q, v: [slow.Rprec(q)]),
    ("recip_rank", None, lambda q, v: [slow.recip_rank(q)]),
    ("bpref", None, lambda q, v: [slow.bpref(q)]),
    ("infAP", None, lambda q, v: [slow.infAP(q)]),
    ("yaap", None, lambda q, v: [slow.yaap(q)]),
    ("binG", None, lambda q, v: [slow.binG(q)]),
    ("iprec_at_recall", None, lambda q, v: slow.iprec_at_recall(q, v)),
    ("iprec_at_recall", "0.05,0.25,0.33,0.5", lambda q, v: slow.iprec_at_recall(q, v)),
    ("11pt_avg", None, lambda q, v: [slow.eleven_pt(q, v)]),
    ("Rprec_mult", "0.1,0.5,1,2.5", lambda q, v: slow.Rprec_mult(q, v)),
    ("set_P", None, lambda q, v: [slow.set_P(q)]),
    ("set_relative_P", None, lambda q, v: [slow.set_relative_P(q)]),
    ("set_recall", None, lambda q, v: [slow.set_recall(q)]),
    ("set_map", None, lambda q, v: [slow.set_map(q)]),
    ("set_F", "0.25", lambda q, v: [slow.set_F(q, *v)]),
    ("utility", "2,-1,0.5,0.01", lambda q, v: [slow.utility(q, *v)]),
    ("num_nonrel_judged_ret", None, lambda q, v: [slow.num_nonrel_judged_ret(q)]),
    ("ndcg", None, lambda q, v: [slow.ndcg(q)]),
    ("ndcg_cut", "1,3,10", lambda q, v: slow.ndcg_cut(q, v)),
    ("ndcg_rel", None, lambda q, v: [slow.ndcg_rel(q)]),
    ("ndcg_p", None, lambda q, v: [slow.ndcg_p(q)]),
    ("Rndcg", None, lambda q, v: [slow.Rndcg(q)]),
    ("G", None, lambda q, v: [slow.G(q)]),
    ("rbp", None, lambda q, v: [slow.rbp(q)]),
    ("rbp", "p=0.5", lambda q, v: [slow.rbp(q, 0.5)]),
    ("rbp_resid", "p=0.7", lambda q, v: [slow.rbp_resid(q, 0.7)]),
]

queries = st.lists(st.tuples(
    st.lists(st.sampled_from([-2, -1, -1, -1, 0, 0, 1, 2, 3, 12]), max_size=25),  # ranked relevance values
    st.lists(st.sampled_from([-1, 0, 0, 1, 1, 2, 3, 12]), max_size=12),  # unretrieved judgments
), min_size=1, max_size=6)


def batch_of(qs, level=1, version=10):
    """A QueryBatch of [(rels, unretrieved grades)] and the queries' slow twins."""
    offsets, rel, j_offsets, j_grade, twins = [0], [], [0], [], []
    for rels, extra in qs:
        grades = [r for r in rels if r >= 0] + list(extra)
        if not any(g >= 0 for g in grades):
            grades.append(0)  # trec_eval reads garbage for a query with no judgment >= 0
        rel += rels
        offsets.append(len(rel))
        judged = sorted((g for g in grades if g >= 0), reverse=True)
        j_grade += judged
        j_offsets.append(len(j_grade))
        twins.append(slow.Q(rels, grades, level, version, num_docs=500))
    ranking = Ranking(np.array(offsets), np.array(rel, dtype=np.int64), np.arange(len(rel)),
                      np.array(j_offsets), np.array(j_grade, dtype=np.int64))
    return query_batch(ranking, rel_level=level, num_docs_in_coll=500, version=version), twins


@settings(max_examples=150, deadline=None)
@given(queries, st.sampled_from([1, 1, 2, 0, -1]), st.sampled_from([10, 9]))
def test_kernels_equal_trec_eval_loops(qs, level, version):
    qb, twins = batch_of(qs, level, version)
    for name, text, fn in CASES:
        d = registry.get(name, version)
        if d is None:  # rbp, rbp_resid and unj came with trec_eval 10
            continue
        params = d.defaults() if text is None else parse_params(d, text)
        got = compute(qb, d, params)
        for i, q in enumerate(twins):
            with np.errstate(all="ignore"):
                want = fn(q, params.values)
            assert np.allclose(got[i], want, rtol=1e-12, atol=1e-12, equal_nan=True), (name, text, qs[i], got[i], want)


@given(queries)
@settings(max_examples=40, deadline=None)
def test_relstring(qs):
    qb, twins = batch_of(qs)
    for text, length in ((None, 10), ("3", 3), ("20", 20)):
        d = registry.get("relstring")
        got = compute(qb, d, d.defaults() if text is None else parse_params(d, text))
        assert got == [slow.relstring(q, length) for q in twins]


def test_hand_computed():
    """One query: ranked grades 0, 2, −1 (not in the qrels), 1, −2 (unjudged); unretrieved
    judgments 3 and 0. R = 3 (grades 1, 2, 3), judged non-relevant N = 2."""
    qb, _ = batch_of([([0, 2, -1, 1, -2], [3, 0])])

    def value(name, text=None):
        d = registry.get(name)
        return compute(qb, d, d.defaults() if text is None else parse_params(d, text))[0]

    assert value("map")[0] == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert value("P", "2,5")[1] == pytest.approx(2 / 5)
    assert value("Rprec")[0] == pytest.approx(1 / 3)  # one relevant among the first R = 3
    assert value("bpref")[0] == pytest.approx(((1 - 1 / 2) + (1 - 1 / 2)) / 3)  # each relevant below 1 of N
    # infAP: relevant at j = 1 (0-based): 1/2 + (1/2)(1/1)((0 + 1e-5)/(0 + 1 + 2e-5)); at j = 3 the pool above
    # holds 1 relevant and 1 non-relevant (the −1 is skipped): 1/4 + (3/4)((1 + 1)/3)((1 + 1e-5)/(2 + 2e-5))
    first = 1 / 2 + 0.5 * 1.0 * (1e-5 / (1 + 2e-5))
    second = 1 / 4 + 0.75 * (2 / 3) * ((1 + 1e-5) / (2 + 2e-5))
    assert value("infAP")[0] == pytest.approx((first + second) / 3)
    assert value("binG")[0] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / 3)
    assert value("num_nonrel_judged_ret")[0] == 1
    assert value("yaap")[0] == pytest.approx(math.log(2 / 3))  # S = 1: log((1 + 1)/(1 + 3 − 1))
    idcg = 3 + 2 / math.log2(3) + 1 / 2
    assert value("ndcg")[0] == pytest.approx((2 / math.log2(3) + 1 / math.log2(5)) / idcg)
    assert value("rbp")[0] == pytest.approx(0.1 * (2 / 3 * 0.9 + 1 / 3 * 0.9 ** 3))  # gains / 3 (max > 1)
    assert value("rbp_resid")[0] == pytest.approx(0.9 ** 5 + 0.1 * (0.9 ** 2 + 0.9 ** 4))
    assert value("iprec_at_recall", "0,0.34,0.67,1").tolist() == pytest.approx([0.5, 0.5, 0.5, 0.0])
    assert value("Rprec_mult", "0.2,1,3").tolist() == pytest.approx([0.0, 1 / 3, 2 / 9])  # c = 1, 3, 9
    assert value("unj", "5")[0] == pytest.approx(2 / 5)
    assert value("set_F")[0] == pytest.approx(2 * (2 / 5) * (2 / 3) / (2 / 5 + 2 / 3))
    assert compute(qb, registry.get("relstring"), registry.get("relstring").defaults()) == ["02-1."]


def test_recall_cutoffs_round_in_10_and_truncate_in_9():
    """R = 3: x = 0.5 → lround(1.5) = 2 in trec_eval 10, (long)(1.5 + 0.9) = 2 in 9; x = 0.1 → 0 vs 1."""
    from rankeval_cli.measures.trec.precision import recall_cutoffs

    for version, want in ((10, [0, 2, 1]), (9, [1, 2, 1])):
        qb, _ = batch_of([([1, 1, 0, 1], [])], version=version)
        assert recall_cutoffs(qb, [0.1, 0.5, 0.3]).tolist() == [want]


# ---- gains and glibc's sort -------------------------------------------------------------

def test_glibc_msort_keeps_equal_items_in_order():
    items = [(1, 3.5), (2, 9.0), (4, 7.0), (0, 0.0), (3, 3.0)]  # trec_eval's ndcg.1=3.5,2=9,4=7 with levels 0..4
    ordered = glibc_msort(items, lambda a, b: int(a[1] - b[1]))
    assert ordered == [(0, 0.0), (1, 3.5), (3, 3.0), (4, 7.0), (2, 9.0)]  # 3.5 and 3.0 compare equal


def test_gain_table():
    grades, gains, counted = gain_table([("1", 3.5), ("2", 9.0), ("x", 2.0), ("4", 7.0)], 5)
    assert grades.tolist() == [0, 1, 3, 4, 2] and gains.tolist() == [0.0, 3.5, 3.0, 7.0, 9.0]
    assert counted.all()
    grades9, _, _ = gain_table([("x", 2.0)], 2, version=9)  # 9.0.8 reads the name "x" as grade 0
    assert grades9.tolist() == [1, 0]


# ---- the expected tie policy against every tied order --------------------------------------

EXPECTED = ["P.1,3", "recall.2", "relative_P.2,4", "unj.2,3", "rbp", "rbp.p=0.6", "rbp_resid", "dcg",
            "dcg.1=4,2=1.5", "ndcg.2=5", "ndcg", "ideal_dcg", "set_P", "utility", "num_rel_ret", "map", "map_cut.3",
            "recip_rank", "ndcg_cut.2", "Rprec", "success.2"]


@pytest.mark.parametrize("seed", range(25))
def test_expected_is_the_mean_over_every_tied_order(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    rels = rng.choice([-2, -1, 0, 0, 1, 2, 3], size=n).tolist()
    blocks = np.sort(rng.integers(0, 3, size=n))
    extra = rng.choice([0, 1, 2], size=int(rng.integers(0, 3))).tolist()
    grades = [r for r in rels if r >= 0] + extra + [0]
    judged = sorted(grades, reverse=True)

    def ranking(order):
        return Ranking(np.array([0, n]), np.array(rels)[order], blocks, np.array([0, len(judged)]),
                       np.array(judged, dtype=np.int64))

    groups = [list(np.flatnonzero(blocks == b)) for b in np.unique(blocks)]
    orders = [np.array([i for p in perms for i in p]) for perms in
              itertools.product(*(itertools.permutations(g) for g in groups))]
    expected_qb = query_batch(ranking(np.arange(n)), rel_level=1, tie_policy="expected")
    for name in EXPECTED:
        root, _, text = name.partition(".")
        d = registry.get(root)
        params = d.defaults() if not text else parse_params(d, text)
        every = [compute(query_batch(ranking(o), rel_level=1), d, params)[0] for o in orders]
        got = compute(expected_qb, d, params, expected=True)[0]
        assert np.allclose(got, np.mean(every, axis=0), atol=1e-12), (name, rels, blocks.tolist())


def test_expected_refused_where_undefined():
    qb, _ = batch_of([([1, 0], [])])
    qb.expected = True
    for name in ("infAP", "bpref", "gm_map", "iprec_at_recall", "11pt_avg", "G", "Rndcg", "ndcg_rel", "binG",
                 "yaap", "Rprec_mult"):
        with pytest.raises(ValueError, match="no expected value"):
            compute(qb, registry.get(name), registry.get(name).defaults(), expected=True)


def test_expected_refusals_on_the_command_line(tmp_path):
    """A measure defined under one order is a usage error before any file is read; a measure's own
    cut-off inside a block of tied scores (RBP@1 over three tied documents: 2/3 × 0.5 expected, where
    the first document alone gives 0 or 0.5) is an error naming the run."""
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    (tmp_path / "q").write_text("1 0 d1 0\n1 0 d2 2\n1 0 d3 2\n")
    (tmp_path / "r").write_text("".join(f"1 Q0 d{i} {i} 1 r\n" for i in (1, 2, 3)))
    base = ["report", "--qrels", str(tmp_path / "q"), "--tie-policy", "expected"]
    out = CliRunner().invoke(main, [*base, "-m", "INST(max_rel=2),P@1", str(tmp_path / "missing")])
    assert out.exit_code == 2 and "--tie-policy" in out.stderr and "INST(max_rel=2)" in out.stderr
    out = CliRunner().invoke(main, [*base, "-m", "RBP(p=0.5)@1", str(tmp_path / "r")])
    assert out.exit_code == 1 and f"{tmp_path / 'r'}: RBP(p=0.5)@1: no expected value" in out.stderr
    out = CliRunner().invoke(main, [*base, "-m", "RBP(p=0.5)@3,P@1", str(tmp_path / "r")])
    assert out.exit_code == 0 and "\tP@1\t0.6666666666666666\t" in out.stdout


# ---- names and parameters -----------------------------------------------------------------

@pytest.mark.parametrize("name, values", [
    ("P_10", [("P_10", "P", 0)]),
    ("P.5,10", [("P_5", "P", 0), ("P_10", "P", 1)]),
    ("P_5,10", [("P_5", "P", 0), ("P_10", "P", 1)]),
    ("ndcg_cut.10", [("ndcg_cut_10", "ndcg_cut", 0)]),
    ("iprec_at_recall.0.25", [("iprec_at_recall_0.25", "iprec_at_recall", 0)]),
    ("iprec_at_recall_0.25", [("iprec_at_recall_0.25", "iprec_at_recall", 0)]),
    ("utility.2,-1,0,0", [("utility_2,-1,0,0", "utility", 0)]),
    ("ndcg.1=3,2=9", [("ndcg_1=3,2=9", "ndcg", 0)]),
    ("relstring.20", [("relstring_20", "relstring", 0)]),
    ("MAP", [("MAP", "map", 0)]),
    ("MRR@10", [("MRR@10", "rr_cut", 0)]),
    ("nDCG@10", [("nDCG@10", "ndcg_cut", 0)]),
    ("BPref", [("BPref", "bpref", 0)]),
    ("R@1000", [("R@1000", "recall", 0)]),
    ("P(rel=2)@10", [("P(rel=2)@10", "P", 0)]),
    ("AP(rel=2)", [("AP(rel=2)", "map", 0)]),
    ("SetRelP", [("SetRelP", "set_relative_P", 0)]),
    ("NumRelRet", [("NumRelRet", "num_rel_ret", 0)]),
    ("IPrec@0.5", [("IPrec@0.5", "iprec_at_recall", 0)]),
])
def test_names(name, values):
    got = parse(name)
    assert [(m.name, m.root, m.index) for m in got] == values


def test_ir_measures_parameters_become_settings():
    (p,) = parse("P(rel=2,judged_only=True)@10")
    assert p.rel_level == 2 and p.judged_only and p.params.values == (10,)
    (n,) = parse("nDCG(gains={0:0,1:1,2:3})@10")
    assert n.grade_map == ((0, 0), (1, 1), (2, 3))
    (e,) = parse("nDCG(dcg='exp-log2')@10")
    assert e.root == "ndcg_exp" and e.params.named() == {"cutoff": 10}
    (j,) = parse("Judged@10")
    assert j.root == "judged" and j.params.named() == {"cutoff": 10}
    (r,) = parse("RBP(p=0.5,rel=2)@20")
    assert r.root == "rbp_cwl" and r.params.named() == {"p": 0.5, "depth": 20, "quantity": "EU"} and r.rel_level == 2
    (g,) = parse("RBP(p=0.5)@20")
    assert g.root == "rbp" and g.params.values == (("p", 0.5),) and g.depth == 20
    assert [m.name for m in parse("official")][:3] == ["runid", "num_q", "num_ret"]


@pytest.mark.parametrize("name, fragment", [
    ("ndcg10", "did you mean"), ("P()", "needs a cut-off"), ("AP(foo=1)", "has no parameter foo"),
    ("Nope(p=0.9)", "did you mean"), ("NumQ@5", "takes no @"), ("P.0", "Negative cutoff"),
    ("P(rel=1.5)@5", "rel must be an integer"), ("nDCG(dcg='exp')", "dcg must be one of"),
])
def test_unknown_names(name, fragment):
    with pytest.raises(UnknownMeasure, match=fragment):
        parse(name)


def test_suggestions_and_split():
    assert "ndcg_cut_10" in suggest("ndcg_cut10")
    assert "map" in suggest("mpa") or "MAP" in suggest("mpa")
    # the nearest measure keeps the name's own parameters and cut-off
    assert suggest("alpha_nDGC@10")[0] == "alpha_nDCG@10" and suggest("nDCH@10")[0] == "nDCG@10"
    assert suggest("INTS(max_rel=2)")[0] == "INST(max_rel=2)" and suggest("ndcg_ct.10")[0] == "ndcg_cut.10"
    assert split_names(["map,P.5,10,nDCG@10", "ndcg.1=3,2=9", "P(rel=2,judged_only=True)@5,RR"]) == \
        ["map", "P.5,10", "nDCG@10", "ndcg.1=3,2=9", "P(rel=2,judged_only=True)@5", "RR"]


def test_c_number_readers():
    assert c_atol("  12abc") == 12 and c_atol("x") == 0 and c_atol("-3") == -3 and c_atol("23.4") == 23
    assert c_atof(".25") == 0.25 and c_atof("1e-2x") == 0.01 and c_atof("abc") == 0.0
    assert math.isinf(c_atof("inf")) and c_atof("0x10") == 16.0


def test_parameter_kinds():
    assert parse_params(registry.get("P"), "10,5").values == (5, 10)
    assert parse_params(registry.get("iprec_at_recall"), ".5,.1").values == (0.1, 0.5)
    assert parse_params(registry.get("utility"), "2,-1,0,0").values == (2.0, -1.0, 0.0, 0.0)
    assert parse_params(registry.get("ndcg"), "1=3,2=9").values == (("1", 3.0), ("2", 9.0))
    for name, text in (("P", "0"), ("P", "3,3"), ("iprec_at_recall", "0.5,0.5"), ("ndcg", "1=2,3"),
                       ("ndcg", "=1=2")):
        with pytest.raises(ParamError):
            parse_params(registry.get(name), text)


# ---- the judgment-group, preference and z-score readers -----------------------------------------

def test_readers(tmp_path):
    from rankeval_cli.formats.trec.prefs import read_prefs
    from rankeval_cli.formats.trec.qrels_jg import read_qrels_jg
    from rankeval_cli.formats.trec.zscores import read_zscores

    path = tmp_path / "jg"
    path.write_text("# comment\n2 b d1 1\n1 a d2 0\n\n1 a d1 2\n1 b d1 -1\n")
    jg = read_qrels_jg(str(path))
    assert jg.qids == ["1", "2"] and [g[0] for g in jg.groups[0]] == [b"a", b"b"]
    assert jg.groups[0][0][1].tolist() == [b"d1", b"d2"] and jg.positive_judgments() == 2
    path.write_text("1 a d1 1\n1 a d1 2\n")
    with pytest.raises(DataError, match="judged twice") as err:
        read_qrels_jg(str(path))
    assert err.value.line == 2
    path.write_text("1 a d1\n")
    with pytest.raises(DataError, match="expected 4 fields") as err:
        read_qrels_jg(str(path))
    prefs = tmp_path / "prefs"
    prefs.write_text("q1 u s d1 3\nq1 u s d2 0.5\n# x\nq0 u s d1 1\n")
    p = read_prefs(str(prefs))
    assert p.qids == ["q0", "q1"] and p.lines[1] == [(b"u", b"s", 3.0, b"d1"), (b"u", b"s", 0.5, b"d2")]
    prefs.write_text("q1 u s d1 high\n")
    with pytest.raises(DataError, match="not a finite number"):
        read_prefs(str(prefs))
    qp = read_prefs(str(path.with_name("qp")) if False else _write(tmp_path / "qp", "q 0 d 2\n"), qrels_layout=True)
    assert qp.lines == [[(b"0", b"0", 2.0, b"d")]]
    z = read_zscores(_write(tmp_path / "z", "q map 0.5 nan\n"))
    assert math.isnan(z[("q", "map")][1])


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("seed", range(5))
def test_sums_are_formed_term_after_term(seed):
    """sequential_prefix equals a Python loop to the last bit, short and long groups alike."""
    from rankeval_cli.measures.trec.queries import sequential_prefix

    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 1, 3, 47, 48, 49, 300], size=30)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    values = rng.random(int(offsets[-1])) / rng.integers(1, 1000, size=int(offsets[-1]))
    got = sequential_prefix(values, offsets)
    want = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        total = 0.0
        for v in values[a:b].tolist():
            total += v
            want.append(total)
    assert got.tolist() == want
