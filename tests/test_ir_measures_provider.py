"""rankeval as an ir_measures provider: registered, chosen by ir_measures' default pipeline and
by name, per-query values equal to the providers that compute the same measure (pytrec_eval on
tied runs: the same tie rule, trec_eval's; ir_measures' judged and msmarco providers, which break
ties by docno ascending, on tie-free runs; gdeval to its printed precision), every input form
ir_measures accepts, and a real ``pt.Experiment`` (PyTerrier runs it without a JVM)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from ir_data import make

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

from rankeval_cli import ir_measures_provider as provider  # noqa: E402  (registers it)

PYTREC = ["AP", "nDCG@10", "nDCG", "RR", "P@5", "R@10", "Rprec", "Bpref", "infAP", "SetP", "SetR", "SetF",
          "NumRet", "NumRelRet", "NumRel", "NumQ", "Success@5", "IPrec@0.5", "AP(rel=2)", "P(rel=2)@10",
          "nDCG(judged_only=True)@5", "nDCG(gains={0:0,1:1,2:3,3:7,4:15})@10", "AP@10", "SetAP"]


def _inputs(seed, tie_share, numeric_qids=False):
    qrels, (run,) = make(seed, n_queries=25, tie_share=tie_share, numeric_qids=numeric_qids)
    q = [ir_measures.Qrel(qid, d, int(g)) for qid, _, d, g in qrels]
    r = [ir_measures.ScoredDoc(qid, d, float(s) if tie_share else 1000.0 - rank) for qid, d, rank, s, _ in run]
    return q, r  # tie_share 0: the scores of a query all differ


def _per_query(p, measure, qrels, run) -> dict:
    return {m.query_id: m.value for m in p.iter_calc([measure], qrels, run)}


@pytest.fixture(scope="module")
def tied():
    return _inputs(7, 0.3)


@pytest.fixture(scope="module")
def untied():
    return _inputs(8, 0.0, numeric_qids=True)


@pytest.mark.parametrize("name", PYTREC)
def test_equals_pytrec_eval_per_query(tied, name):
    qrels, run = tied
    measure = ir_measures.parse_measure(name)
    ours = _per_query(ir_measures.rankeval, measure, qrels, run)
    theirs = _per_query(ir_measures.pytrec_eval, measure, qrels, run)  # each measure alone (see test_ir_measures_names)
    assert ours.keys() == theirs.keys()
    for qid in theirs:  # the same double arithmetic up to summation order
        assert ours[qid] == pytest.approx(theirs[qid], rel=1e-12, abs=1e-15), (name, qid)


@pytest.mark.parametrize("name, peer", [("Judged@10", "judged"), ("Judged@3", "judged"), ("RR@10", "msmarco")])
def test_equals_docno_ascending_providers_without_ties(untied, name, peer):
    qrels, run = untied
    measure = ir_measures.parse_measure(name)
    ours = ir_measures.rankeval.calc_aggregate([measure], qrels, run)[measure]
    assert ours == pytest.approx(getattr(ir_measures, peer).calc_aggregate([measure], qrels, run)[measure],
                                 rel=1e-12)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval is a Perl script")
@pytest.mark.parametrize("name", ["ERR@20", "nDCG(dcg='exp-log2')@20"])
def test_equals_gdeval_to_its_printed_digits(untied, name):
    qrels, run = untied
    qrels = [q for q in qrels if q.relevance >= 0]  # gdeval reads no negative grade
    measure = ir_measures.parse_measure(name)
    ours = _per_query(ir_measures.rankeval, measure, qrels, run)
    theirs = _per_query(ir_measures.gdeval, measure, qrels, run)
    for qid, value in theirs.items():  # gdeval prints 5 decimals
        assert abs(ours[qid] - value) <= 5e-6, (name, qid)


def test_registered_and_first_in_the_default_pipeline(tied):
    qrels, run = tied
    assert ir_measures.providers.registry["rankeval"] is ir_measures.rankeval
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.index("rankeval") < names.index("pytrec_eval")
    measures = [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.RR @ 10]
    assert isinstance(ir_measures.evaluator(measures, qrels), provider.RankevalEvaluator)
    assert ir_measures.calc_aggregate(measures, qrels, run) == ir_measures.rankeval.calc_aggregate(measures, qrels, run)
    # RBP: no other installed provider computes it
    assert ir_measures.calc_aggregate([ir_measures.RBP(p=0.5)], qrels, run)
    provider.register(first=False)
    try:
        assert [p.NAME for p in ir_measures.DefaultPipeline.providers][-1] == "rankeval"
        assert not isinstance(ir_measures.evaluator(measures, qrels), provider.RankevalEvaluator)
    finally:
        provider.register()


def test_supports_every_registry_measure_with_an_ir_measures_name():
    """The provider reads the registry's public listing: every ir_measures spelling of a measure on
    qrels (with a cut-off where one is needed) is supported, without a list in the provider."""
    from rankeval_cli.measures.trec import catalogue

    example = {"P": "P@5", "R": "R@5", "Success": "Success@5", "IPrec": "IPrec@0.5"}
    checked = 0
    for spelling in catalogue.spellings():
        if spelling.name not in ir_measures.measures.registry:
            continue
        measure = ir_measures.parse_measure(example.get(spelling.name, spelling.name))
        parsed = provider._parsed(measure)
        if parsed is None or (parsed.definition is not None and parsed.definition.reads not in ("qrels", "any")):
            continue
        assert ir_measures.rankeval.supports(measure), spelling.name
        checked += 1
    assert checked > 15


def test_input_forms_agree(tied):
    qrels, run = tied
    measures = [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P @ 5]
    want = ir_measures.rankeval.calc_aggregate(measures, qrels, run)
    q_df = pd.DataFrame(qrels)
    r_df = pd.DataFrame(run)
    q_dict, r_dict = {}, {}
    for x in qrels:
        q_dict.setdefault(x.query_id, {})[x.doc_id] = x.relevance
    for x in run:
        r_dict.setdefault(x.query_id, {})[x.doc_id] = x.score
    pt_names = r_df.rename(columns={"query_id": "qid", "doc_id": "docno"})
    for q_in, r_in in ((q_df, r_df), (q_dict, r_dict), (q_df.rename(columns={"relevance": "label"}), pt_names)):
        assert ir_measures.rankeval.calc_aggregate(measures, q_in, r_in) == want


def test_pyterrier_experiment():
    pt = pytest.importorskip("pyterrier")
    qrels_l, run_l = _inputs(9, 0.3)
    topics = pd.DataFrame({"qid": sorted({r.query_id for r in run_l} | {q.query_id for q in qrels_l}),
                           "query": "x"})
    qrels = pd.DataFrame(qrels_l).rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    res = pd.DataFrame(run_l).rename(columns={"query_id": "qid", "doc_id": "docno"})
    system = pt.Transformer.from_df(res)
    metrics = [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.RR, ir_measures.P @ 5]  # pytrec_eval's without us
    ours = pt.Experiment([system], topics, qrels, eval_metrics=metrics + [ir_measures.RBP(p=0.5)], names=["bm25"])
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline.remove(ir_measures.rankeval)
    try:
        theirs = pt.Experiment([system], topics, qrels, eval_metrics=metrics, names=["bm25"])
    finally:
        provider.register()
    for m in metrics:
        assert ours[str(m)][0] == pytest.approx(theirs[str(m)][0], rel=1e-12)
    assert np.isfinite(ours["RBP(p=0.5)"][0])
    assert not pt.java.started()


def test_measures_on_more_than_qrels_stay_with_their_providers():
    """Diversity measures read subtopic qrels (ir_measures' iteration field), so a qrels with a
    document under several subtopics goes to pyndeval, not to this provider."""
    assert not ir_measures.rankeval.supports(ir_measures.parse_measure("alpha_nDCG@10"))
    assert ir_measures.rankeval.supports(ir_measures.parse_measure("nDCG@10"))
