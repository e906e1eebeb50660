"""What the comparisons with ir_measures' providers need to know about them (test_ir_measures_names,
test_registry): how each orders tied documents, the examples it does not compute, and the
examples another provider computes."""

#: how each ir_measures provider orders a query's documents of equal score
PEER_ORDER = {
    "pytrec_eval": "score descending, then docno descending (trec_eval's comp_sim_docno)",
    "gdeval": "score descending, then docno descending (gdeval's runOrder)",
    "judged": "score descending, then docno ascending",
    "compat": "score descending, then docno ascending",
    "pyndeval": "score descending, then docno ascending (pyndeval's sort)",
    "cwl_eval": "score descending, tied documents in the run's order",
    "accuracy": "score descending, tied documents in the run's order",
}
#: examples ir_measures does not compute (rankeval goes further), with why
EXTENSIONS = {
    "RBP": "graded RBP (no rel): ir_measures' cwl_eval provider needs rel",
    "RBP(p=0.9)@20": "graded RBP", "RBP(rel=1,quantity='ResEU')": "cwl_eval's residual, which ir_measures drops",
    "NumRel(rel=2)": "pytrec_eval computes NumRel at rel=1 only", "ERR": "gdeval needs a cut-off",
    "alpha_nDCG(judged_only=True)@10": "ir_measures 0.4.3's pyndeval provider fails on judged_only "
                                       "(tests/test_ndeval.py compares it on the judged run)",
}
#: examples another provider computes than their spelling's (the spelling's cannot)
EXAMPLE_PEER = {"nDCG(dcg='exp-log2')@10": "gdeval"}
