"""ndeval as a library: the TREC Web track's diversity evaluation (``ndeval.c`` 4.5, the program
pyndeval ships), its reading of qrels and runs, and the CSV it prints, byte for byte.

ndeval's rules (``processQrels``, ``processRun``, ``applyQrels``, ``outputMeasures``):

- qrels lines ``topic subtopic docno judgment``, topic and subtopic whole numbers, judgment a whole
  number (above 1 read as 1); a run's documents are ordered by their rank field (``-traditional``:
  score descending, then docno descending by strcmp), a rank twice in a topic is an error, ``-M N``
  keeps the first N; a run topic may carry a prefix (``wt09-1``);
- one row per run topic, in topic order (a topic without qrels: zeros), then ``amean``: the sums
  over those rows divided by the topics with qrels and results (``-c``: by the qrels' topics);
- ``-baseline RUN`` prints r − b per value (and (1 + a)(r − b) below the baseline, ``-riskAlpha
  a``), over the run's topics (``-c``: the baseline's too); every value ``%.6f``, NaN as C prints it.

Stricter than ndeval, each an error naming the file and line: a score that is not a number (ndeval
keeps whatever its ``sscanf`` left), a (topic, subtopic, docno) judged twice (ndeval keeps the last
judgment but counts both), a qrels line with more than four fields, a topic or subtopic number
written two ways (``07`` and ``7``). Lenient where rankeval's readers are: blank and ``#`` comment
lines are skipped, gzip is undone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError

#: ndeval's columns, in its order: (name, measure, cut-off)
COLUMNS = tuple((f"{label}@{k}", kind, k) for label, kind in (("ERR-IA", "err"), ("nERR-IA", "nerr"),
                                                               ("alpha-DCG", "dcg"), ("alpha-nDCG", "ndcg"))
                for k in (5, 10, 20)) + (("NRBP", "nrbp", None), ("nNRBP", "nnrbp", None), ("MAP-IA", "ap", None)) + \
    tuple((f"{label}@{k}", kind, k) for label, kind in (("P-IA", "p"), ("strec", "strec")) for k in (5, 10, 20))
VERSION = "version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"


@dataclass(frozen=True)
class Options:
    """ndeval's command line: -alpha, -beta, -traditional, -M, -baseline, -riskAlpha, -c."""

    alpha: float = 0.5
    beta: float = 0.5
    traditional: bool = False
    depth: int = 0
    baseline: str | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"
    complete: bool = False


@dataclass
class RunTopics:
    """A run's per-topic values (topics ascending), its runid and the topics with qrels."""

    runid: str
    topics: list
    values: np.ndarray  # (topics × columns)
    matched: int


def read_qrels(path: str):
    """The diversity qrels, checked as ndeval reads them (whole-number topics, subtopics, judgments)."""
    from ..formats.diversity_qrels import read_diversity_qrels
    from ..formats.ranked_run import natural

    dq = read_diversity_qrels(path)
    for q, qid in enumerate(dq.qids):
        if natural(qid) is None or str(natural(qid)) != qid:
            raise DataError(f"topic {qid!r} is not a whole number written without leading zeros", dq.source,
                            int(dq.qrels.line[dq.qrels.offsets[q]]))
        for sub in dq.subtopics[q]:
            if natural(sub) is None or str(natural(sub)) != sub:
                raise DataError(f"subtopic {sub!r} of topic {qid} is not a whole number written without leading "
                                "zeros", dq.source)
    bad = np.flatnonzero(dq.judgment < 0)
    if len(bad):
        raise DataError(f"judgment {dq.judgment[bad[0]]} is not a whole number ≥ 0", dq.source, int(dq.line[bad[0]]))
    return dq


def evaluate_run(options: Options, dq, path: str) -> RunTopics:
    """A run's per-topic values, as ndeval computes them."""
    from ..formats.ranked_run import read_ranked_run

    run = read_ranked_run(path)
    topics = np.unique(run.topic)
    code = np.searchsorted(topics, run.topic).astype(np.int32)
    if not options.traditional:
        _no_rank_twice(run, code)
    values = np.zeros((len(topics), len(COLUMNS)))
    matched = _joined_values(options, dq, run, topics, code, values)
    return RunTopics(run.runid, topics.tolist(), values, matched)


def _no_rank_twice(run, code) -> None:
    order = np.lexsort((run.line, run.rank, code))
    same = (code[order][1:] == code[order][:-1]) & (run.rank[order][1:] == run.rank[order][:-1])
    if same.any():
        row = order[int(np.flatnonzero(same)[0]) + 1]
        raise DataError(f"duplicate rank ({run.rank[row]}) for topic {run.topic[row]}", run.source, int(run.line[row]))


def _joined_values(options: Options, dq, run, topics, code, values) -> int:
    """Fill ``values`` for the run topics the qrels judge; returns their number."""
    from ..formats.trec.join import join
    from ..formats.trec.run import Run
    from ..formats.trec.fields import LineMap
    from ..measures.families.diversity_batch import DiversityBatch
    from ..measures.ir import ranking_from_joined

    score = run.score if options.traditional else -run.rank.astype(np.float64)
    part = Run(run.source, run.runid, [str(t) for t in topics.tolist()], code, run.docno, score,
               LineMap.of(run.line), run.runid)
    joined = join(part, dq.qrels, depth=options.depth or None)
    batch = DiversityBatch(ranking_from_joined(joined), dq, rel_level=1)
    where = np.searchsorted(topics, np.array([int(q) for q in joined.qids], dtype=np.int64))
    values[where] = columns(batch, options.alpha, options.beta)
    return joined.n_queries


def columns(batch, alpha: float, beta: float) -> np.ndarray:
    """(queries × ndeval's columns) of a :class:`~rankeval_cli.measures.families.diversity_batch.DiversityBatch`."""
    from ..measures.families import diversity as div

    out = []
    for _, kind, k in COLUMNS:
        if kind in ("err", "nerr", "dcg", "ndcg"):
            run_n, ideal_n, run = div.normalized(batch, alpha, k, "err" if "err" in kind else "dcg")
            out.append(run_n if kind in ("err", "dcg") else div.ratio(run_n, ideal_n, run))
        elif kind == "nrbp":
            out.append(div.nrbp(batch, alpha, beta))
        elif kind == "nnrbp":
            out.append(div.nnrbp(batch, alpha, beta))
        elif kind == "ap":
            out.append(div.ap_ia(batch))
        else:
            out.append(div.p_ia(batch, k) if kind == "p" else div.subtopic_recall(batch, k))
    return np.stack(out, axis=1)


# ---- what ndeval prints ----------------------------------------------------------------------

def c_fixed(value: float) -> str:
    """C's ``%.6f``: NaN as ``nan`` or ``-nan`` by its sign bit, infinities as ``inf``."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:.6f}"


def _risk(run: np.ndarray, base: np.ndarray, a: float) -> np.ndarray:
    """ndeval's RiskBased: r − b, or (a + 1)(r − b) below the baseline."""
    with np.errstate(invalid="ignore"):
        return np.where(run >= base, run - base, (a + 1) * (run - base))


def _rows(run: RunTopics, base: RunTopics | None, options: Options):
    """(topic, values) in ndeval's order: the run's topics, with -baseline -c the baseline's too."""
    zero = np.zeros(len(COLUMNS))
    b_topics = base.topics if base is not None else []
    i = j = 0
    while i < len(run.topics) or (j < len(b_topics) and options.complete):
        if i < len(run.topics) and j < len(b_topics):
            r, b = run.topics[i], b_topics[j]
            if r == b:
                yield r, _risk(run.values[i], base.values[j], options.risk_alpha)
                i, j = i + 1, j + 1
            elif r > b:
                if options.complete:
                    yield b, _risk(zero, base.values[j], options.risk_alpha)
                j += 1
            else:
                yield r, _risk(run.values[i], zero, options.risk_alpha)
                i += 1
        elif i >= len(run.topics):
            yield b_topics[j], _risk(zero, base.values[j], options.risk_alpha)
            j += 1
        else:
            yield run.topics[i], _risk(run.values[i], zero, options.risk_alpha)
            i += 1


def report(options: Options, qrels_path: str, run_path: str) -> str:
    """What ``ndeval OPTIONS QRELS RUN`` prints."""
    dq = read_qrels(qrels_path)
    run = evaluate_run(options, dq, run_path)
    base = evaluate_run(options, dq, options.baseline) if options.baseline is not None else None
    name = run.runid
    if base is not None and base.topics:
        name = f"{run.runid} (rel to. {base.runid}; rs=1+a; a={options.risk_alpha_text})"
    lines = ["runid,topic," + ",".join(label for label, _, _ in COLUMNS)]
    totals = np.zeros(len(COLUMNS))
    printed = 0
    for topic, values in _rows(run, base, options):
        lines.append(f"{name},{topic}," + ",".join(c_fixed(v) for v in values.tolist()))
        totals = totals + values  # added topic after topic, as ndeval adds them
        printed += 1
    topics = len(dq.qids) if options.complete else run.matched
    if base is not None and base.topics:
        topics = max(topics, printed)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = totals / np.float64(topics)
    lines.append(f"{name},amean," + ",".join(c_fixed(v) for v in mean.tolist()))
    return "\n".join(lines) + "\n"
