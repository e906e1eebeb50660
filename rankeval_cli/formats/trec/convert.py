"""A run joined with its qrels as the canonical stream (``convert --from trec --qrels FILE RUN``)."""

from __future__ import annotations

import numpy as np

from ...batch import Batch, offsets_from_sizes
from ...errors import DataError
from ...inputs import source_name
from .fields import shown
from .join import NONPOOL, UNJUDGED, Joined
from .qrels import Qrels, read_qrels
from .run import Run
from .streaming import stream_join


def joined_batches(joined: Joined, run: Run, qrels: Qrels, run_column: str | None = None,
                   group_prefix: str = "") -> Batch:
    """The canonical rows of a joined run, one group per evaluated query:

    - a retrieved row: ``item`` = docno, ``pred`` = −score (lower = better, as every
      converted score; rows in trec_eval's order), ``gold`` = its grade, empty when the
      qrels do not hold it (unjudged), a negative grade as given;
    - a judged document the run did not retrieve: ``pred`` empty, ``gold`` = its grade.

    The ``run`` column names the run; ``group_prefix`` (``RUN:`` when several runs share
    one stream) keeps group ids unique.
    """
    n_q = joined.n_queries
    r_sizes = joined.sizes
    unret = ~joined.judged_retrieved
    j_slot = np.repeat(np.arange(n_q), np.diff(joined.judged_offsets))
    u_rows = joined.judged_row[unret]
    u_slot = j_slot[unret]
    u_sizes = np.bincount(u_slot, minlength=n_q) if len(u_slot) else np.zeros(n_q, np.int64)
    sizes = r_sizes + u_sizes
    offsets = offsets_from_sizes(sizes)
    total = int(offsets[-1])
    r_pos = np.arange(len(joined.row)) - joined.offsets[:-1][np.repeat(np.arange(n_q), r_sizes)]
    r_dest = offsets[:-1][np.repeat(np.arange(n_q), r_sizes)] + r_pos
    u_pos = np.arange(len(u_rows)) - offsets_from_sizes(u_sizes)[:-1][u_slot] if len(u_rows) else np.zeros(0, np.int64)
    u_dest = offsets[:-1][u_slot] + r_sizes[u_slot] + u_pos
    items = np.empty(total, dtype=object)
    items[r_dest] = run.docno.take(joined.row).decode()
    items[u_dest] = qrels.docno.take(u_rows).decode()
    gold = np.full(total, np.nan)
    rel = joined.rel.astype(np.float64)
    # negative grades: the qrels value, not the internal code
    gold[r_dest] = np.where(joined.rel == NONPOOL, np.nan, rel)
    neg = joined.rel == UNJUDGED
    if neg.any():
        gold[r_dest[neg]] = qrels.grade[joined.qrels_row[neg]]
    gold[u_dest] = qrels.grade[u_rows]
    pred = np.full(total, np.nan)
    pred[r_dest] = -run.score[joined.row]
    group = np.array([group_prefix + q for q in joined.qids], dtype=object)
    extra = {}
    if run_column is not None:
        extra["run"] = np.full(total, run_column, dtype=object)
    return Batch(group=group, offsets=offsets, item=items, gold=gold, pred=pred, extra=extra, source=run.source)


def read_trec(source, qrels=None, depth: int | None = None, all_queries: bool = False,
              prefix_groups: bool = False, report=None, **_options):
    """Reader for ``convert --from trec --qrels FILE RUN``: the canonical stream of a run
    joined with its qrels (see :func:`joined_batches`), one batch per part of the run;
    ``prefix_groups`` writes group ids ``TAG:QID``. The run's queries without qrels are
    left out, as trec_eval leaves them, and counted on stderr (``report``)."""
    if qrels is None:
        raise DataError("--from trec needs --qrels FILE (the judgments to join the run with)",
                        source_name(source))
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels)
    tag, skipped = None, 0
    for joined, run in stream_join(source, q, depth=depth, all_queries=all_queries):
        if joined is None:
            raise DataError(f"the lines of query {shown(run.qid.encode())} come back after another query's; sort "
                            "the run by query first (sort -s -k1,1)", source_name(source), run.line)
        tag = tag or run.tag
        skipped += joined.skipped_queries
        yield joined_batches(joined, run, q, run_column=tag, group_prefix=f"{tag}:" if prefix_groups else "")
    if skipped:
        (report or _warn)(f"{source_name(source)}: {skipped} queries without qrels skipped (as trec_eval)")


def _warn(message: str) -> None:
    from ...messages import warn

    warn(message)
