"""Judging the judges: relevance labels of candidate assessors (an LLM, a crowd) measured
against reference qrels, with bootstrap intervals over topics and paired tests between
candidates (``rankeval judges``).

The data flow is one way:

* :mod:`.labels`     — the qrels read and aligned: one row per (topic, document) any of them
  labels, one column of grades per qrels; the reference's grade scale;
* :mod:`.agreement`  — label agreement from confusion counts (Cohen's kappa, Krippendorff's
  alpha, Fleiss' kappa, raw and binary agreement, per-grade precision and recall);
* :mod:`.evaluation` — the runs evaluated under every qrels at once (each run read once);
* :mod:`.ranking`    — agreement of two system rankings (Kendall's tau-b, tau_AP, Spearman,
  Pearson, pairwise accuracy, soft pairwise accuracy, significance decisions, top-k overlap,
  the best system's rank change), vectorized over bootstrap replicates;
* :mod:`.study`      — the topic-level sufficient statistics, the bootstrap replicates as
  executor work units, intervals, paired tests between candidates and clusters;
* :mod:`.records`    — the one table the command writes; :mod:`.paper` its Markdown and LaTeX
  layout; :mod:`.figures` what ``rankeval plot`` draws from it.

docs/judges.md holds the definitions with their sources.
"""
