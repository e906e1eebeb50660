"""IR evaluation: TREC runs joined with qrels (or a ``convert --from trec`` stream), evaluated
query by query, summarized per run and printed as trec_eval prints.

The data flow is one way: :mod:`.evaluate` (runs → per-query values, :class:`.evaluate.RunValues`)
→ :mod:`.run_records` (summary records, per-query records, trec_eval's lines) and
:mod:`.compare` (per-query values of two runs aligned on their common queries). The commands
(``report``, ``mrr``, ``ndcg``, ``err``, ``rankdcg``, ``compare``) parse options and call these.
"""
