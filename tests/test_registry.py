"""The measure registry walked: every measure has every part (a name, typed parameters, a kernel with
its equation and source, an expected value or a statement, a docs entry, a peer comparison), and the
lists read from the registry agree (trec_eval's order and sets, --help, completion, the docs pages)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.measures.trec import catalogue, registry
from rankeval_cli.measures.trec.names import load_families, parse, vocabulary
from rankeval_cli.measures.trec.registry import PARAM_KINDS, Param
from test_ir_measures_names import EXAMPLE_PEER, EXTENSIONS, PEER_ORDER

TESTS = Path(__file__).parent
#: measures whose peer is no ir_measures provider: where they are compared
OTHER_PEERS = {
    "ndcg_p": "a transcription of m_ndcg_p.c, which trec_eval does not compile (tests/test_trec_measures.py)",
    "rankdcg": "Katerenchuk & Rosenberg 2016, Table 1 (tests/test_rankdcg.py)",
    "rnd": "ir_measures pull request 43 (tests/test_fairness.py)",
    "rkl": "ir_measures pull request 43 (tests/test_fairness.py)",
    "rrd": "ir_measures pull request 43 (tests/test_fairness.py)",
}


def _trec_eval_compared() -> set:
    """trec_eval's measures the outputs of the trec_eval binary in tests/data/trec_eval hold."""
    cases = json.loads((TESTS / "data" / "trec_eval" / "cases.json").read_text())
    names = set()
    for case in cases:
        args = case["args"]
        asked = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-m"] or ["official"]
        for a in asked:
            root = a.split(".")[0]
            names.update(registry.SETS[10].get(root, (root,)))
    return names


def _ir_measures_compared() -> set:
    """The registry measures an example compared with its ir_measures provider reaches."""
    load_families()
    out = set()
    for name, sp in registry.SPELLINGS.items():
        if name != sp.name:
            continue
        for example in sp.examples:
            if example not in EXTENSIONS and EXAMPLE_PEER.get(example, sp.peer) in PEER_ORDER:
                out.update(m.root for m in parse(example))
    return out


def test_every_measure_has_every_part():
    load_families()
    pages = catalogue.pages()
    compared = _trec_eval_compared() | _ir_measures_compared() | set(OTHER_PEERS)
    for d in registry.definitions(10):
        assert d.name and (d.family == "trec_eval" or catalogue.spellings_of(d)), f"{d.name}: no name reaches it"
        assert d.kind in PARAM_KINDS and (d.kind != "named" or all(isinstance(p, Param) for p in d.named)), d.name
        assert callable(d.compute) and d.doc.strip() and d.source, f"{d.name}: no kernel, equation or source"
        assert d.expected is not None or (d.ties.kind == "one-order" and d.ties.note), \
            f"{d.name}: neither an expected value nor a statement why not"
        assert f"\n## {d.name}\n" in pages[f"measures/{d.family}.md"], f"{d.name}: no docs entry"
        assert d.name in compared, f"{d.name}: compared with no peer"


def test_the_lists_agree():
    load_families()
    trec = [d for d in registry.definitions(10) if d.position is not None]
    assert [d.position for d in trec] == list(range(len(trec)))  # trec_eval's measures.c, in order
    assert all(d.family == "trec_eval" for d in trec) and len(trec) == 58
    assert {m for members in registry.SETS[10].values() for m in members} <= {d.name for d in trec}
    names = set(catalogue.help_names().split())
    assert names == {sp.name for sp in registry.SPELLINGS.values()}
    assert set(registry.SPELLINGS) <= set(vocabulary())
    help_text = CliRunner().invoke(main, ["report", "--help"]).stdout
    assert all(n in help_text for n in names)
    index = catalogue.index_page()
    assert all(f"({f}.md)" in index for f in catalogue.families())


@pytest.mark.parametrize("name, fragment", [("alpha_nDCG@10", "alpha_nDCG@20"), ("INST(max_rel=3)", "INST")])
def test_completion_offers_the_registry(name, fragment):
    from rankeval_cli.commands._ir import complete_measure

    assert fragment in complete_measure(None, None, name[:4])


def test_the_public_listing():
    """catalogue.listing() holds every measure once with its parameters and the spellings that reach
    it; catalogue.spellings() every ir_measures spelling once."""
    listed = catalogue.listing()
    assert [m.name for m in listed] == [d.name for d in registry.definitions(10)]
    by_name = {m.name: m for m in listed}
    assert by_name["ndcg_cut"].trec_eval and by_name["ndcg_cut"].grammar == "cutoffs"
    assert by_name["ndcg_cut"].default == (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    inst = by_name["inst"]
    assert not inst.trec_eval and inst.grammar == "named" and [s.name for s in inst.spellings] == ["INST"]
    assert {p.name: p.default for p in inst.params}["T"] == 1.0 and inst.ties in ("expected", "one-order")
    assert all(m.doc and m.source and (m.family == "trec_eval" or m.spellings) for m in listed)
    spelled = catalogue.spellings()
    assert len({s.name for s in spelled}) == len(spelled)
    assert {s.name for s in spelled} == {sp.name for sp in registry.SPELLINGS.values()}
    assert {s.name for m in listed for s in m.spellings} == {s.name for s in spelled}
