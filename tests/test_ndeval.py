"""The diversity measures (rankeval_cli.measures.families.diversity) and ``rankeval ndeval``: ndeval's
output byte for byte on generated collections (tests/data/ndeval, made by scripts/gen-ndeval-golden
with ndeval 4.5 from pyndeval 0.0.8's source distribution), a slow transcription of ndeval's loops
at any cut-off, a hand-computed case (Clarke et al. 2008), the expected tie policy against every
tied order, and ``report`` against ir_measures' own provider (pyndeval)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import slow_diversity as slow
from rankeval_cli.cli import main
from rankeval_cli.formats.diversity_qrels import read_diversity_qrels
from rankeval_cli.measures.families import diversity as div
from rankeval_cli.measures.families.diversity_batch import DiversityBatch
from rankeval_cli.measures.ir import Ranking

DATA = Path(__file__).parent / "data" / "ndeval"
OUTPUTS = DATA / "outputs-ndeval-4.5-pyndeval-0.0.8"
CASES = json.loads((DATA / "cases.json").read_text())
FILES = ("qrels", "run1", "run2")


def invoke(args, **kw):
    return CliRunner().invoke(main, args, **kw)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ndeval_output_byte_for_byte(case):
    args = [str(DATA / a) if a in FILES else a for a in case["args"]]
    out = invoke(["ndeval", *args])
    assert out.exit_code == 0, out.stderr
    want = (OUTPUTS / f"{case['name']}.csv").read_text()
    got = out.stdout.replace(str(DATA) + "/", "")
    assert got == want


@pytest.mark.parametrize("args, fragment", [
    (["-x", "q", "r"], "usage"), (["-alpha", "2", "q", "r"], "usage"), (["-M", "0", "q", "r"], "usage"),
    (["q"], "usage"), (["-c", "-M", "q", "r"], "usage"),
    (["-alpha", "abc", "q", "r"], "'abc' is not a finite number"),  # ndeval would keep 0.5
    (["-M", "x", "q", "r"], "'x' is not a finite number"),
])
def test_ndeval_usage_errors(args, fragment):
    out = invoke(["ndeval", *args])
    assert out.exit_code == 2 and fragment in out.stderr


def test_ndeval_data_errors(tmp_path):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 1 d1 1\n1 1 d1 0\n")
    r.write_text("1 Q0 d1 1 2.0 t\n")
    out = invoke(["ndeval", str(q), str(r)])
    assert out.exit_code == 1 and "judged twice" in out.stderr and ":2:" in out.stderr
    q.write_text("1 1 d1 1\n")
    r.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 1 1.0 t\n")
    out = invoke(["ndeval", str(q), str(r)])
    assert out.exit_code == 1 and "duplicate rank (1) for topic 1" in out.stderr
    assert invoke(["ndeval", "-traditional", str(q), str(r)]).exit_code == 0  # ranks are not read then
    r.write_text("topic1 Q0 d1 1 2.0 t\n")
    out = invoke(["ndeval", str(q), str(r)])
    assert out.exit_code == 1 and "not a topic number" in out.stderr
    assert invoke(["ndeval", "-version"]).stdout.startswith("ndeval: version 4.5")


# ---- the kernels against a transcription of ndeval's loops, at any cut-off ----------------------

def _collection(rng, n_topics=8):
    """{topic: {docno: set of relevant subtopics}} (every judged docno, some with none) and rankings."""
    judgments, rankings = {}, {}
    for t in range(n_topics):
        docs = [f"d{i}" for i in rng.choice(60, int(rng.integers(1, 25)), replace=False)]
        subs = int(rng.integers(1, 5))
        judgments[t] = {d: {int(s) for s in rng.choice(subs, int(rng.integers(0, subs + 1)), replace=False)}
                        for d in docs}
        pool = docs + [f"x{i}" for i in range(10)]
        rankings[t] = [pool[i] for i in rng.choice(len(pool), int(rng.integers(0, len(pool))), replace=False)]
    return judgments, rankings


def _batch(tmp_path, judgments, rankings, blocks=None, expected=False):
    lines = [f"{t} {s} {d} {1 if s in rel else 0}" for t, docs in judgments.items() for d, rel in docs.items()
             for s in range(5) if s in rel or s == 4]
    path = tmp_path / "dq"
    path.write_text("\n".join(lines) + "\n")
    dq = read_diversity_qrels(str(path))
    offsets, doc, tie, j_off, j_doc = [0], [], [], [0], []
    for q, qid in enumerate(dq.qids):
        names = dq.qrels.docno.tolist()[dq.qrels.offsets[q]:dq.qrels.offsets[q + 1]]
        index = {n.decode(): int(dq.qrels.offsets[q]) + i for i, n in enumerate(names)}
        ranking = rankings[int(qid)]
        doc += [index.get(d, -1) for d in ranking]
        tie += list(blocks[int(qid)]) if blocks else list(range(len(tie), len(tie) + len(ranking)))
        offsets.append(len(doc))
        j_doc += sorted(index.values())
        j_off.append(len(j_doc))
    ranking = Ranking(np.array(offsets), np.zeros(len(doc), dtype=np.int64), np.array(tie, dtype=np.int64),
                      np.array(j_off), np.zeros(len(j_doc), dtype=np.int64), np.array(doc, dtype=np.int64),
                      np.array(j_doc, dtype=np.int64))
    return DiversityBatch(ranking, dq, rel_level=1, expected=expected), [int(q) for q in dq.qids]


def _values(batch, alpha, beta, k):
    run_n, ideal_n, run = div.normalized(batch, alpha, k, "dcg")
    e_run, e_ideal, e_raw = div.normalized(batch, alpha, k, "err")
    return dict(dcg=run_n, ndcg=div.ratio(run_n, ideal_n, run), err=e_run, nerr=div.ratio(e_run, e_ideal, e_raw),
                nrbp=div.nrbp(batch, alpha, beta), nnrbp=div.nnrbp(batch, alpha, beta), ap=div.ap_ia(batch),
                p=div.p_ia(batch, k), strec=div.subtopic_recall(batch, k))


@pytest.mark.parametrize("seed", range(4))
def test_kernels_equal_ndeval_loops(tmp_path, seed):
    rng = np.random.default_rng(seed)
    judgments, rankings = _collection(rng)
    batch, topics = _batch(tmp_path, judgments, rankings)
    for alpha, beta, k in ((0.5, 0.5, 20), (0.8, 0.3, 1), (1.0, 0.9, 3), (0.2, 0.5, 37)):
        got = _values(batch, alpha, beta, k)
        for i, t in enumerate(topics):
            want = slow.topic(rankings[t], judgments[t], alpha, beta, k)
            for name, value in want.items():
                assert got[name][i] == pytest.approx(value, rel=1e-12, abs=1e-15, nan_ok=True), (name, t, k)


def test_hand_computed():
    """Clarke et al. (2008)'s gains with α = 0.5: subtopics {1, 2} then {1} then {2}: G = 2, 0.5, 0.5; the
    ideal puts the two-subtopic document first and then both singles, the same gains; S = 2."""
    judgments = {"a": {1, 2}, "b": {1}, "c": {2}}
    got = slow.topic(["b", "a", "c"], judgments, k=3)
    d = [math.log(2) / math.log(p + 1) for p in (1, 2, 3)]
    run, best = 1 * d[0] + 1.5 * d[1] + 0.5 * d[2], 2 * d[0] + 0.5 * d[1] + 0.5 * d[2]
    ideal_ideal = 2 * d[0] + 1 * d[1] + 0.5 * d[2]
    assert got["dcg"] == pytest.approx(run / ideal_ideal) and got["ndcg"] == pytest.approx(run / best)
    assert got["p"] == pytest.approx(4 / 6) and got["strec"] == 1.0
    assert got["ap"] == pytest.approx(((1 / 1 + 2 / 2) / 2 + (1 / 2 + 2 / 3) / 2) / 2)


# ---- the expected tie policy --------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_expected_is_the_mean_over_every_tied_order(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    judgments, rankings = _collection(rng, n_topics=2)
    rankings = {t: r[:6] for t, r in rankings.items()}
    blocks = {t: np.sort(rng.integers(0, 3, size=len(r))) for t, r in rankings.items()}
    expected, topics = _batch(tmp_path, judgments, rankings, blocks, expected=True)
    for alpha, beta, k in ((0.5, 0.5, 3), (0.7, 0.8, None)):
        got = _values(expected, alpha, beta, k)
        for i, t in enumerate(topics):
            groups = [list(np.flatnonzero(blocks[t] == b)) for b in np.unique(blocks[t])]
            every = []
            for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
                order = {t: [rankings[t][j] for p in perm for j in p], **{u: rankings[u] for u in topics if u != t}}
                batch, _ = _batch(tmp_path, judgments, order)
                every.append({n: v[i] for n, v in _values(batch, alpha, beta, k).items()})
            for name in got:
                want = np.mean([e[name] for e in every])
                assert got[name][i] == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), (name, t)


# ---- report against ir_measures' provider (pyndeval) --------------------------------------------

NAMES = ["alpha_nDCG@20", "alpha_nDCG@5", "alpha_DCG@10", "α_nDCG(alpha=0.8)@10", "ERR_IA@20", "ERR_IA@1",
         "nERR_IA@10", "NRBP", "nNRBP(alpha=0.3,beta=0.8)", "AP_IA", "MAP_IA", "P_IA@5", "P_IA@20",
         "StRecall@10", "alpha_nDCG(rel=2)@20", "StRecall(rel=2)@5"]
JUDGED = ["alpha_nDCG(judged_only=True)@10", "ERR_IA(judged_only=True)@20", "P_IA(judged_only=True)@10"]


def test_report_equals_ir_measures(tmp_path):
    """On a collection with graded subtopic judgments, unjudged documents, a topic whose judgments are all
    0, qrels topics missing from the run (ir_measures gives them 0: --all-queries) and tied scores, compared
    in the order ir_measures' pyndeval provider ranks them: score descending, then docno ascending. Its
    judged_only fails in ir_measures 0.4.3 (its provider subscripts a generator), so those are compared with
    ir_measures on the run without the unjudged documents. Where a topic has no relevant subtopic ndeval's
    nNRBP is 0/0 (NaN) and rankeval's 0: that topic is compared for every other measure."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    rng = np.random.default_rng(7)
    qrels, run, judged = [], [], set()
    for q in range(12):
        docs = [f"d{i}" for i in rng.choice(400, 40, replace=False)]
        for d in docs[:28]:
            judged.add((f"t{q}", d))
            for s in rng.choice(5, int(rng.integers(1, 5)), replace=False):
                qrels.append((f"t{q}", str(s), d, 0 if q == 3 else int(rng.choice([0, 0, 1, 1, 2]))))
        if q in (5, 9):
            continue  # only in the qrels
        scored = [(d, float(np.round(rng.uniform(0, 3), 1))) for d in rng.choice(docs, int(rng.integers(1, 40)),
                                                                                 replace=False)]
        run += [(f"t{q}", d, s) for d, s in sorted(scored, key=lambda x: (-x[1], x[0]))]
    (tmp_path / "q").write_text("".join(f"{q} {s} {d} {j}\n" for q, s, d, j in qrels))
    ranked = [(q, d, -i) for i, (q, d, _) in enumerate(run)]  # the provider's order, as distinct scores
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in ranked))
    (tmp_path / "rj").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in ranked if (q, d) in judged))
    qrels_in = [ir_measures.Qrel(q, d, j, s) for q, s, d, j in qrels]

    def ours(names, path):
        out = invoke(["report", "--qrels", str(tmp_path / "q"), "--all-queries", "--per-group", "--output-format",
                      "jsonl", *[x for n in names for x in ("-m", n)], str(tmp_path / path)])
        assert out.exit_code == 0, out.stderr
        return [json.loads(line) for line in out.stdout.splitlines()]

    for names, path, strip in ((NAMES, "r", False), (JUDGED, "rj", True)):
        rows = ours(names, path)
        run_in = [ir_measures.ScoredDoc(q, d, s) for q, d, s in ranked if not strip or (q, d) in judged]
        for name in names:
            peer = name.replace("(judged_only=True)", "") if strip else name
            measure = ir_measures.parse_measure(peer)
            want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels_in, run_in)}
            got = {r["group"]: r[name] for r in rows}
            assert set(got) == set(want), name
            for qid, value in want.items():
                if math.isnan(value):
                    assert qid == "t3" and name.startswith("nNRBP") and got[qid] == 0.0
                    continue
                assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, qid)


def test_mixed_judgments_are_a_usage_error(tmp_path):
    (tmp_path / "q").write_text("1 1 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.0 t\n")
    out = invoke(["report", "--qrels", str(tmp_path / "q"), "-m", "alpha_nDCG@10,map", str(tmp_path / "r")])
    assert out.exit_code == 2 and "reads diversity qrels" in out.stderr


def test_ordinary_qrels_are_announced(tmp_path):
    """Ordinary qrels (iteration 0 everywhere) read as diversity qrels: one intent per query, said on stderr."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    (tmp_path / "d").write_text("1 1 d1 1\n1 2 d2 1\n2 1 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n2 Q0 d1 1 2.0 t\n")
    args = ["-m", "alpha_nDCG@10", str(tmp_path / "r")]
    out = invoke(["report", "--qrels", str(tmp_path / "q"), *args])
    assert out.exit_code == 0 and "every judgment is of subtopic 0: each query counts as one intent" in out.stderr
    assert invoke(["-q", "report", "--qrels", str(tmp_path / "q"), *args]).stderr == ""
    assert "subtopic" not in invoke(["report", "--qrels", str(tmp_path / "d"), *args]).stderr
