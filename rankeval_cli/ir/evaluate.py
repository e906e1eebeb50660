"""Per-query values of IR measures for every run: TREC run files joined with a qrels file
(:func:`evaluate_trec`), or the runs of a canonical stream written by ``convert --from trec``
(:func:`evaluate_stream`), accumulated batch by batch in :class:`RunValues`."""

from __future__ import annotations

import numpy as np

from ..errors import DataError


class Settings:
    """What every IR evaluation needs besides its input; its signature fields.

    ``rel_max`` is the top of ERR's fixed grade scale (a number; the command parses
    ``--rel-max scale:G``)."""

    def __init__(self, *, tie_policy=None, rel_level=1, depth=None, all_queries=False, gain=None, rel_max=4.0,
                 higher_better=False, doc_groups=None):
        self.doc_groups = doc_groups  # the document-groups file of the fairness measures
        self.tie_policy = tie_policy or "trec"
        self.rel_level, self.depth, self.all_queries = rel_level, depth, all_queries
        self.gain = gain or "linear"
        self.rel_max = rel_max
        self.higher_better = higher_better

    def signature(self, measure, **extra) -> str:
        from ..signature import signature

        kind = measure.kind
        return signature(measure.name, ties=self.tie_policy, rel_level=self.rel_level,
                         gain=self.gain if kind == "ndcg" else None,
                         rel_max=f"scale:{self.rel_max:g}" if kind == "err" else None,
                         depth=self.depth, all_queries=self.all_queries or None, **extra)


class RunValues:
    """Per-query values of every measure for one run, accumulated over batches."""

    def __init__(self, label: str):
        self.label = label
        self.qids: list = []
        self.parts: dict = {}
        self.skipped = 0
        self.positive = 0  # judgments with grade > 0 of the evaluated queries (trec_eval -c's num_rel)

    def add(self, qids, values: dict) -> None:
        self.qids.extend(qids)
        for name, v in values.items():
            self.parts.setdefault(name, []).append(v)

    def values(self, name):
        import numpy as np

        parts = self.parts.get(name, [])
        return np.concatenate(parts) if parts else np.zeros(0)

    def sort(self) -> None:
        """Queries in trec_eval's order: query ids sorted by their bytes."""
        import numpy as np

        order = sorted(range(len(self.qids)), key=lambda i: self.qids[i].encode("utf-8"))
        if order != list(range(len(order))):
            index = np.array(order, dtype=np.int64)
            self.qids = [self.qids[i] for i in order]
            self.parts = {name: [self.values(name)[index]] for name in self.parts}


def measures_of(names) -> list:
    """The :class:`~rankeval_cli.measures.trec.names.Measure` values of ``-m`` names, each
    value once; strings (runid, relstring) are left out of sets and refused when named, as
    are measures of judgment groups and preferences (``rankeval trec_eval -R``)."""
    from ..measures.trec.names import UnknownMeasure, parse

    out, seen = [], set()
    for name in names:
        values = parse(name)
        for m in values:
            d = m.definition
            if d is not None and (d.value == "str" or d.summary == "runid"):
                if len(values) == 1:
                    raise UnknownMeasure(name, "a string per query; rankeval trec_eval prints it")
                continue
            if d is not None and d.reads in ("qrels_jg", "prefs"):
                raise UnknownMeasure(name, f"reads {d.reads} judgments (rankeval trec_eval -R {d.reads})")
            if m.name not in seen:
                seen.add(m.name)
                out.append(m)
    reads = {m.definition.reads for m in out} - {"any", "groups"}
    if "diversity" in reads and (len(reads) > 1 or any(m.definition.reads == "groups" for m in out)):
        diverse = next(m.name for m in out if m.definition.reads == "diversity")
        other = next(m.name for m in out if m.definition.reads not in ("diversity", "any"))
        raise UnknownMeasure(diverse, f"it reads diversity qrels (qid subtopic docno judgment) and {other} "
                                      "ordinary qrels: evaluate them in two commands")
    return out


def undefined_notes(runs, measures) -> list:
    """A note per run and measure defined for some queries only (Accuracy): how many were left out."""
    notes = []
    for run in runs:
        for m in measures:
            d = m.definition
            if d is not None and d.summary == "defined":
                left = int(np.isnan(run.values(m.name)).sum())
                if left:
                    notes.append(f"{run.label}: {m.name}: {left} queries where it is undefined left out of its mean "
                                 "(as ir_measures leaves them out)")
    return notes


def read_judgments(path: str, measures, doc_groups: str | None = None):
    """(the qrels the runs are joined with, what the measures that read more read): diversity qrels
    when a measure reads them (then every measure does), else ordinary qrels; the document groups of
    the fairness measures."""
    from functools import partial

    from ..formats.trec.qrels import read_qrels

    if any(m.definition.reads == "diversity" for m in measures):
        from ..formats.diversity_qrels import read_diversity_qrels
        from ..measures.families.diversity_batch import DiversityBatch

        dq = read_diversity_qrels(path)
        return dq.qrels, {"diversity": partial(DiversityBatch, dq=dq), "notes": _diversity_notes(dq)}
    qrels = read_qrels(path)
    if not any(m.definition.reads == "groups" for m in measures):
        return qrels, None
    from ..measures.families.fairness import GroupsBatch

    if doc_groups is None:
        name = next(m.name for m in measures if m.definition.reads == "groups")
        raise DataError(f"{name} needs the documents' groups: --doc-groups FILE")
    from ..formats.doc_groups import read_doc_groups

    groups = read_doc_groups(doc_groups)
    label = _labels(groups, qrels.docno, qrels.source)
    return qrels, {"groups": partial(GroupsBatch, groups=groups, qrels=qrels, qrels_label=label), "doc_groups": groups}


def _diversity_notes(dq) -> list:
    """A note when every query of the diversity qrels has one subtopic (ordinary qrels, most likely)."""
    if len({s for subs in dq.subtopics for s in subs}) != 1 or any(len(subs) != 1 for subs in dq.subtopics):
        return []
    return [f"{dq.source}: every judgment is of subtopic {dq.subtopics[0][0]}: each query counts as one intent "
            "(the second field of diversity qrels is the subtopic, as ndeval and ir_measures read it)"]


def _labels(groups, docnos, source: str):
    """Each docno's row of the document groups; a document without one is an error."""
    label = groups.find(docnos)
    missing = np.flatnonzero(label < 0)
    if len(missing):
        raise DataError(f"docno {docnos[int(missing[0])].decode('utf-8', 'replace')} of {source} has no group in "
                        f"{groups.source}")
    return label


def evaluate(ranking, measures, settings: Settings, extra=None) -> dict:
    """measure name -> per-query values (``extra``: what the measures read besides qrels)."""
    from ..errors import DataError
    from ..measures.trec.engine import evaluate as evaluate_batch

    try:
        return evaluate_batch(ranking, measures, tie_policy=settings.tie_policy, rel_level=settings.rel_level,
                              gain=settings.gain, rel_max=settings.rel_max, extra=extra)
    except ValueError as exc:
        raise DataError(str(exc)) from None


def evaluate_trec(files, qrels_path, measures, settings: Settings, *, warn=None) -> list:
    """[RunValues] of every TREC run file joined with the qrels; ``warn`` (a function of a
    message) hears of the run's queries that the qrels lack. The qrels are read once; the
    runs are executor work units (``--jobs``), unless one is read from stdin or a pipe."""
    import os

    from ..executor import map_units
    from ..inputs import is_regular_file

    qrels, extra = read_judgments(qrels_path, measures, settings.doc_groups)
    for note in (extra or {}).get("notes", ()) if warn is not None else ():
        warn(note)
    in_line = not all(is_regular_file(path) for path in files)
    out = map_units(_evaluate_run, list(files), shared=(qrels, extra, measures, settings), label="runs",
                    serial=in_line, sizes=None if in_line else [os.path.getsize(path) for path in files])
    for values in out:
        if values.skipped and warn is not None:
            warn(f"{values.source}: {values.skipped} queries without qrels skipped (as trec_eval)")
    tags = [values.label for values in out]
    if len(set(tags)) < len(tags):  # two files with one tag: name the runs by file
        for values in out:
            values.label = values.source
    return out


def evaluate_runs(runs, qrels, measures, settings: Settings) -> list:
    """[RunValues] of runs in memory (:class:`~rankeval_cli.formats.trec.run.Run`) joined with a
    :class:`~rankeval_cli.formats.trec.qrels.Qrels`, each labelled by its tag (the Python API)."""
    return [_evaluate_run((qrels, None, measures, settings), run) for run in runs]


def _evaluate_run(shared, path: str) -> RunValues:
    """One run file joined with the qrels: its per-query values, queries in trec_eval's order."""
    from ..formats.trec.streaming import stream_join
    from ..measures.ir import ranking_from_joined

    qrels, extra, measures, settings = shared
    values, tag = RunValues(path), None
    for joined, run in stream_join(path, qrels, depth=settings.depth, all_queries=settings.all_queries):
        if joined is None:  # the run's queries are scattered: it is read again whole
            values, tag = RunValues(path), None
            continue
        tag = tag or run.tag or None
        ranking = ranking_from_joined(joined)
        if extra and "doc_groups" in extra:
            ranking.label = _labels(extra["doc_groups"], run.docno.take(joined.row), path)
            index = {q: i for i, q in enumerate(qrels.qids)}
            ranking.query = np.array([index[q] for q in joined.qids], dtype=np.int64)
        values.positive += int((ranking.judged_grade > 0).sum())
        try:
            values.add(joined.qids, evaluate(ranking, measures, settings, extra))
        except DataError as error:  # a measure's refusal of this run's data (its ties)
            raise error.located(path) from None
        values.skipped += joined.skipped_queries
    values.source, values.label = path, tag or path
    values.sort()
    return values


def evaluate_stream(batches, measures, settings: Settings) -> list:
    """[RunValues] of every run of a canonical stream (its ``run`` column; one run named
    ``run`` without it), queries cut and kept as the settings say."""
    import numpy as np

    from ..measures.ir import ranking_from_rows

    runs: dict = {}
    for batch in batches:
        labels = batch.extra["run"][batch.offsets[:-1]] if "run" in batch.extra and batch.n_groups else \
            np.full(batch.n_groups, "run", dtype=object)
        for label in dict.fromkeys(labels.tolist()):
            sub = batch.select_groups(labels == label) if len(set(labels.tolist())) > 1 else batch
            pred = -sub.pred if settings.higher_better else sub.pred
            ranking, _ = ranking_from_rows(sub.offsets, sub.gold, pred, sub.item, settings.tie_policy)
            keep = np.ones(ranking.n_queries, dtype=bool)
            if not settings.all_queries:
                keep = np.diff(ranking.offsets) > 0
            if settings.depth is not None or not keep.all():
                ranking = _subset(ranking, keep, settings.depth)
            prefix = f"{label}:"
            qids = [g[len(prefix):] if g.startswith(prefix) else g for g in sub.group[keep].tolist()]
            values = runs.setdefault(label, RunValues(label))
            values.skipped += int((~keep).sum())
            values.positive += int((ranking.judged_grade > 0).sum())
            values.add(qids, evaluate(ranking, measures, settings))
    for values in runs.values():
        values.sort()
    return list(runs.values())


def _subset(ranking, keep, depth):
    """The queries of ``keep``, each ranking cut to its first ``depth`` rows."""
    import numpy as np

    from ..batch import offsets_from_sizes
    from ..measures.ir import Ranking

    sizes = np.diff(ranking.offsets)
    q = ranking.n_queries
    group = np.repeat(np.arange(q), sizes)
    pos = np.arange(len(group)) - ranking.offsets[group]
    rows = keep[group] & (pos < depth if depth is not None else True)
    j_sizes = np.diff(ranking.judged_offsets)
    j_rows = np.repeat(keep, j_sizes)
    return Ranking(offsets_from_sizes(np.bincount(group[rows], minlength=q)[keep]), ranking.rel[rows],
                   ranking.tie_block[rows], offsets_from_sizes(j_sizes[keep]), ranking.judged_grade[j_rows],
                   None if ranking.doc is None else ranking.doc[rows],
                   None if ranking.judged_doc is None else ranking.judged_doc[j_rows])
