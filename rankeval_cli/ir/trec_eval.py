"""trec_eval as a library: which measures a ``-m`` list asks for (with trec_eval's rules),
their per-query values over a run joined with qrels (or judgment groups, or preferences),
and the lines trec_eval prints.

trec_eval 10.0's rules, from its ``trec_eval.c``, ``meas_*.c`` and ``measures.c``:

- measures are computed and printed in trec_eval's order (``measures.c``), whatever the
  order of ``-m``; a measure named twice with parameters takes the first parameters;
  without ``-m``, ``official``;
- queries are the qrels' queries, in the byte order of their ids; a run's query without
  qrels is ignored. A qrels query the run lacks is left out (``-c``: evaluated as a ranking
  holding one document that is in no qrels, the values then set to 0 for num_ret,
  utility, unj*, rbp_resid and relstring, as trec_eval 10.0 does; trec_eval 9 leaves it
  out and divides the sums by the number of qrels queries). trec_eval 10.0 instead stops
  with exit status 4 when such a query appears without ``-c``; 9.0.8 does as here;
- per query (``-q``) each measure's lines, then for ``all`` the means over the queries
  (sums for counts, the geometric mean for gm_*: exp of the mean of log(max(v, 0.00001))),
  each added one query after the other as trec_eval adds them;
- ``-Z FILE``: every per-query value v becomes (v − mean) / stddev of the file's line for
  (query, measure) before it is printed and averaged (−1000000 when the line is missing,
  0 when stddev = 0 and v = mean), and every line is printed with a ``Z`` before the name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError
from ..measures.trec import registry
from ..measures.trec.engine import compute, cut, query_batch
from ..measures.trec.names import UnknownMeasure, parse as parse_name
from ..measures.trec.params import ParamError, parse_params

#: what ``-v`` reports per emulated version
VERSION_STRINGS = {10: "10.0-rc3", 9: "9.0.8"}
#: the document of the ranking trec_eval 10.0 gives a query the run lacks, under -c
BOGUS_DOCNO = b"ceci_nest_pas_un_docno"
#: -R formats and what their measures read
REL_FORMATS = {"qrels": "qrels", "qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}
MISSING_ZSCORE = -1000000.0


class TrecEvalError(ValueError):
    """A usage error in trec_eval's terms (its message)."""


@dataclass
class Options:
    per_query: bool = False  # -q
    complete: bool = False  # -c
    summary: bool = True  # -n turns it off
    rel_level: int = 1  # -l
    num_docs: int = 0  # -N
    max_docs: int | None = None  # -M
    judged_only: bool = False  # -J
    rel_format: str = "qrels"  # -R
    zscores: str | None = None  # -Z
    measures: list = field(default_factory=list)  # -m, in order
    version: int = 10
    tie_policy: str = "trec"


# ---- which measures --------------------------------------------------------------------

def select(measure_args, version: int = 10) -> list[tuple[registry.Definition, registry.Params]]:
    """The measures and parameters a ``-m`` list asks for, in trec_eval's order.

    trec_eval's spellings follow its rules (``NAME.PARAMS``: the first parameters given for a
    measure win); rankeval's and ir_measures' spellings (``P_10``, ``nDCG@10``) add their
    parameters to the measure's (cut-offs merged) unless ``NAME.PARAMS`` gave some."""
    sets = registry.SETS[version]
    marked: set = set()
    given: dict = {}  # root -> the first NAME.PARAMS text
    extra: dict = {}  # root -> parameter values of other spellings
    for arg in measure_args:
        name, dot, text = arg.partition(".")
        if dot:
            if text == "":
                raise TrecEvalError(f"improper measure in parameter '{name}'")
            if name in sets or registry.get(name, version, trec_eval_only=True) is not None:
                given.setdefault(name, text)
        if name in sets:
            marked.update(sets[name])
            continue
        if registry.get(name, version, trec_eval_only=True) is not None:
            marked.add(name)
            continue
        try:
            values = parse_name(arg, version=version)
        except (UnknownMeasure, ParamError) as exc:
            raise TrecEvalError(f"illegal measure '{arg}': {exc}") from None
        for m in values:
            d = m.definition
            if m.own or d is None or not d.in_trec_eval or m.rel_level is not None or m.judged_only or \
                    m.grade_map is not None or m.depth is not None:
                raise TrecEvalError(f"illegal measure '{arg}': trec_eval has no such measure (rankeval report "
                                    "computes it)")
            marked.add(d.name)
            if m.params.text is not None:
                extra.setdefault(d.name, []).append(m.params)
    if not marked:
        marked.update(sets["official"])
    out = []
    for d in registry.definitions(version, trec_eval_only=True):
        if d.name not in marked:
            continue
        if d.name in given:
            try:
                params = parse_params(d, given[d.name])
            except ParamError as exc:
                raise TrecEvalError(f"{exc}; cannot initialize measure '{d.name}'") from None
        elif d.name in extra:
            params = _merged(d, extra[d.name])
        else:
            params = d.defaults()
        out.append((d, params))
    return out


def _merged(d: registry.Definition, given: list) -> registry.Params:
    """Parameters of several spellings of one measure: cut-offs and fractions united, else the first."""
    if d.kind in ("cutoffs", "fractions"):
        values = tuple(sorted(set(v for p in given for v in p.values)))
        text = ",".join(str(v) for v in values)
        return registry.Params(values, text)
    return given[0]


# ---- evaluation ------------------------------------------------------------------------

@dataclass
class Evaluation:
    """A run's per-query values (in the qrels' query order) and what the summary needs."""

    requests: list
    qids: list
    values: dict  # value name -> array over queries (floats) or list of strings
    runid: str
    qrels_queries: int  # queries of the qrels (-c averages over them)
    positive: int  # qrels judgments with grade > 0 (-c's num_rel)


def validate(options: Options) -> list:
    """The requested measures, checked against the judgments' format (-R)."""
    requests = select(options.measures, options.version)
    reads = REL_FORMATS.get(options.rel_format)
    if reads is None:
        raise TrecEvalError(f"Illegal rel_format '{options.rel_format}'")
    for d, _ in requests:
        if d.reads not in ("any", reads):
            raise TrecEvalError(f"measure '{d.name}' needs -R {d.reads} judgments, not {options.rel_format}")
    return requests


def evaluate(options: Options, rel_path: str, run_path: str, *, rel_info=None) -> Evaluation:
    """Read (unless ``rel_info`` is given), join, evaluate a run as trec_eval does."""
    requests = validate(options)
    reads = REL_FORMATS[options.rel_format]
    if rel_info is None:
        rel_info = read_rel_info(options.rel_format, rel_path)
    return _Evaluator(options, requests, rel_info, reads).run(run_path)


def read_rel_info(rel_format: str, path: str):
    from ..formats import trec

    if rel_format == "qrels":
        return trec.read_qrels(path)
    if rel_format == "qrels_jg":
        from ..formats.qrels_jg import read_qrels_jg

        return read_qrels_jg(path)
    from ..formats.prefs import read_prefs

    return read_prefs(path, qrels_layout=rel_format == "qrels_prefs")


class _Evaluator:
    def __init__(self, options: Options, requests, rel_info, reads):
        self.options, self.requests, self.rel_info, self.reads = options, requests, rel_info, reads
        self.rows: list = []  # (qids, {name: values}) per evaluated batch
        self.expected = options.tie_policy == "expected"

    # -- the run, batch by batch
    def run(self, run_path) -> Evaluation:
        from ..formats import trec
        from ..measures.ir import ranking_from_joined

        o = self.options
        if not self.rel_info.qids:  # trec_eval: "Cannot read qrels file" (exit 2)
            raise DataError("the judgments hold no query", self.rel_info.source)
        join_qrels = self.rel_info if self.reads == "qrels" else _query_list(self.rel_info)
        simple = self.reads == "qrels" and o.version >= 10 and o.tie_policy in ("trec", "expected")
        runid = None
        pending, rows = [], 0
        for joined, part in trec.stream_join(run_path, join_qrels, depth=o.max_docs if simple else None,
                                             all_queries=o.complete):
            if joined is None:  # the run is read again whole
                self.rows, pending, rows = [], [], 0
                continue
            runid = part.last_tag or runid
            bogus = part.n_rows == 0  # the qrels' queries the run lacks (-c)
            if joined.n_queries == 0 or (bogus and o.version < 10):
                continue
            if bogus:
                self._batch(joined.qids, *self._bogus(joined), True, simple)
                continue
            pending.append((joined.qids, ranking_from_joined(joined), part.docno[joined.row], part.score[joined.row]))
            rows += len(joined.row)
            if rows >= BATCH_ROWS:
                self._batch(*_concatenated(pending), False, simple)
                pending, rows = [], 0
        if pending:
            self._batch(*_concatenated(pending), False, simple)
        if runid is None:
            raise DataError("the run holds no line", run_path)
        return self._result(runid)

    def _bogus(self, joined):
        """trec_eval 10.0's ranking of a query the run lacks: one document with score 1."""
        from ..measures.ir import Ranking

        q = joined.n_queries
        rel = np.full(q, -1, dtype=np.int64)
        if self.reads == "qrels":
            qrels = self.rel_info
            index = {qid: i for i, qid in enumerate(qrels.qids)}
            for j, qid in enumerate(joined.qids):
                i = index[qid]
                hit = np.flatnonzero(qrels.docno[qrels.offsets[i]:qrels.offsets[i + 1]] == BOGUS_DOCNO)
                if len(hit):
                    grade = int(qrels.grade[qrels.offsets[i] + hit[0]])
                    rel[j] = grade if grade >= 0 else -2
        ranking = Ranking(np.arange(q + 1, dtype=np.int64), rel, np.arange(q, dtype=np.int64), joined.judged_offsets,
                          joined.judged_grade)
        return ranking, np.full(q, BOGUS_DOCNO, dtype="S24"), np.ones(q)

    def _batch(self, qids, ranking, docno, score, bogus, simple):
        from ..measures.trec.engine import kept, policy_order, reorder, subset

        o = self.options
        if self.reads == "prefs":
            batch = self._prefs_batch(qids, self._prefs_order(ranking, docno, score))
        else:
            if o.version < 10:
                order = _float32_order(ranking, score, docno)
                if order is not None:
                    ranking, docno, score = _blocks_of(reorder(ranking, order), score[order]), docno[order], \
                        score[order]
            order = policy_order(ranking, o.tie_policy)
            if order is not None:
                ranking, docno = reorder(ranking, order), docno[order]
            keep = kept(ranking, None if simple else o.max_docs)
            ranking, docno = subset(ranking, keep), (docno if keep is None else docno[keep])
            if self.reads == "qrels_jg":
                batch = self._jg_batch(qids, ranking, docno)
            else:
                ranking = cut(ranking, None, o.judged_only)
                batch = query_batch(ranking, rel_level=o.rel_level, tie_policy=o.tie_policy,
                                    num_docs_in_coll=o.num_docs, version=o.version)
        columns = {}
        for d, params in self.requests:
            if d.summary == "runid":
                continue
            try:
                values = compute(batch, d, params, expected=self.expected)
            except DataError:
                raise
            except ValueError as exc:
                raise TrecEvalError(str(exc)) from None
            names = d.value_names(params)
            if isinstance(values, list):
                columns[names[0]] = values
            else:
                for j, name in enumerate(names):
                    columns[name] = np.asarray(values, dtype=np.float64)[:, j]
        if bogus:
            _clean_bogus(columns)
        self.rows.append((list(qids), columns))

    # -- judgment groups and preferences
    def _jg_batch(self, qids, ranking, docno):
        """One pseudo-query per (query, judgment group), its documents judged by that group."""
        from ..measures.ir import Ranking
        from ..measures.trec.groups import JudgmentGroups

        o = self.options
        index = {q: i for i, q in enumerate(self.rel_info.qids)}
        offsets, rel, blocks, j_offsets, j_grade, owner = [0], [], [], [0], [], []
        for qi, qid in enumerate(qids):
            lo, hi = ranking.offsets[qi], ranking.offsets[qi + 1]
            docs, tb = docno[lo:hi], np.asarray(ranking.tie_block[lo:hi])
            for _, jdocs, jgrades in self.rel_info.groups[index[qid]]:
                r = np.full(len(docs), -1, dtype=np.int64)
                if len(jdocs) and len(docs):
                    width = max(jdocs.dtype.itemsize, docs.dtype.itemsize)
                    jd, dd = jdocs.astype(f"S{width}"), docs.astype(f"S{width}")
                    at = np.minimum(np.searchsorted(jd, dd), len(jd) - 1)
                    found = jd[at] == dd
                    g = jgrades[at[found]]
                    r[found] = np.where(g >= 0, g, -2)
                keep = r >= 0 if o.judged_only else np.ones(len(r), dtype=bool)
                rel.append(r[keep])
                blocks.append(tb[keep])
                offsets.append(offsets[-1] + int(keep.sum()))
                grades = np.sort(jgrades[jgrades >= 0])[::-1]
                j_grade.append(grades)
                j_offsets.append(j_offsets[-1] + len(grades))
                owner.append(qi)

        def joined(parts):
            return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

        pseudo = Ranking(np.array(offsets, dtype=np.int64), joined(rel), joined(blocks),
                         np.array(j_offsets, dtype=np.int64), joined(j_grade))
        qb = query_batch(pseudo, rel_level=o.rel_level, tie_policy=o.tie_policy, num_docs_in_coll=o.num_docs,
                         version=o.version)
        return JudgmentGroups(qb, np.array(owner, dtype=np.int64), len(qids))

    def _prefs_order(self, ranking, docno, score):
        """Per query the retrieved docnos in the order of trec_eval's preference code: score
        descending, ties by docno ascending (scores as C floats in trec_eval 9); the first -M kept."""
        o = self.options
        score = np.asarray(score).astype(np.float32 if o.version < 10 else np.float64)
        out = []
        for qi in range(ranking.n_queries):
            lo, hi = ranking.offsets[qi], ranking.offsets[qi + 1]
            docs, scores = docno[lo:hi].tolist(), score[lo:hi].tolist()
            order = sorted(range(len(docs)), key=lambda i: (-scores[i], docs[i]))
            if o.max_docs is not None:
                order = order[:max(o.max_docs, 0)]
            out.append([docs[i] for i in order])
        return out

    def _prefs_batch(self, qids, ranked):
        from ..measures.trec.preferences import PrefsBatch, query_prefs

        index = {q: i for i, q in enumerate(self.rel_info.qids)}
        return PrefsBatch([query_prefs(self.rel_info.lines[index[q]], ranked[i], q, self.rel_info.source)
                           for i, q in enumerate(qids)])

    # -- the whole run
    def _result(self, runid: str) -> Evaluation:
        qids = [q for batch_qids, _ in self.rows for q in batch_qids]
        order = sorted(range(len(qids)), key=lambda i: qids[i].encode("utf-8"))
        values = {}
        for d, params in self.requests:
            if d.summary == "runid":
                continue
            for name in d.value_names(params):
                if d.value == "str":
                    column = [v for _, columns in self.rows for v in columns[name]]
                    values[name] = [column[i] for i in order]
                else:
                    column = np.concatenate([columns[name] for _, columns in self.rows]) if self.rows else np.zeros(0)
                    values[name] = column[np.array(order, dtype=np.int64)] if len(order) else column
        if self.reads == "qrels":
            positive = int((self.rel_info.grade > 0).sum())
        elif self.reads == "qrels_jg":
            positive = self.rel_info.positive_judgments()
        else:
            positive = 0
        return Evaluation(self.requests, [qids[i] for i in order], values, runid, len(self.rel_info.qids), positive)


#: rows evaluated at once: joined parts are gathered up to this many (fewer, larger numpy steps)
BATCH_ROWS = 1 << 16


def _concatenated(parts):
    """One (qids, ranking, docno, score) of several consecutive joined parts."""
    from ..measures.ir import Ranking

    if len(parts) == 1:
        return parts[0]
    qids = [q for p in parts for q in p[0]]
    rankings = [p[1] for p in parts]

    def offsets(arrays):
        sizes = np.concatenate([np.diff(a) for a in arrays])
        return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)

    blocks, shift = [], 0
    for r in rankings:
        b = np.asarray(r.tie_block, dtype=np.int64)
        blocks.append(b - (b[0] if len(b) else 0) + shift)
        shift = int(blocks[-1][-1]) + 1 if len(b) else shift
    ranking = Ranking(offsets([r.offsets for r in rankings]), np.concatenate([r.rel for r in rankings]),
                      np.concatenate(blocks), offsets([r.judged_offsets for r in rankings]),
                      np.concatenate([r.judged_grade for r in rankings]))
    width = max(p[2].dtype.itemsize for p in parts)
    docno = np.concatenate([p[2].astype(f"S{width}") for p in parts])
    return qids, ranking, docno, np.concatenate([p[3] for p in parts])


def _query_list(rel_info):
    """A qrels with the queries of judgment groups or preferences and no judgment (the join
    then only orders and groups the run)."""
    from ..formats.trec import Qrels

    qids = list(rel_info.qids)
    return Qrels(rel_info.source, qids, np.zeros(len(qids) + 1, dtype=np.int64), np.zeros(0, "S8"),
                 np.zeros(0, np.int64), np.zeros(0, np.int64))


def _float32_order(ranking, score, docno) -> np.ndarray | None:
    """trec_eval 9 keeps scores as C floats: scores equal as floats are tied, and tied
    documents go by docno descending. The rows' new order (None = unchanged)."""
    from ..formats.trec import docno_words

    f = np.asarray(score).astype(np.float32)
    if len(f) < 2:
        return None
    sizes = np.diff(ranking.offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    block = np.cumsum(~np.r_[False, (f[1:] == f[:-1]) & (group[1:] == group[:-1])]) - 1
    old = np.asarray(ranking.tie_block)
    if np.array_equal(np.r_[True, block[1:] != block[:-1]], np.r_[True, old[1:] != old[:-1]]):
        return None
    words = docno_words(np.asarray(docno))
    return np.lexsort((*[~words[:, j] for j in range(words.shape[1] - 1, -1, -1)], block))


def _blocks_of(ranking, score):
    """The ranking with tie blocks of equal float scores."""
    from ..measures.ir import Ranking

    f = np.asarray(score).astype(np.float32)
    sizes = np.diff(ranking.offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    block = np.cumsum(~np.r_[False, (f[1:] == f[:-1]) & (group[1:] == group[:-1])]) - 1
    return Ranking(ranking.offsets, ranking.rel, block, ranking.judged_offsets, ranking.judged_grade)


def _clean_bogus(columns: dict) -> None:
    """What trec_eval 10.0 resets after evaluating its stand-in ranking (by exact value name)."""
    for name, col in columns.items():
        if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            columns[name] = np.zeros(len(col))
        elif name == "relstring":
            columns[name] = [""] * len(col)


# ---- printing ------------------------------------------------------------------------------

def c_float(value: float) -> str:
    """C's ``%6.4f``: NaN as ``nan`` or ``-nan`` by its sign bit, infinities as ``inf``."""
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        return f"{text:>6}"
    if math.isinf(value):
        return f"{'-inf' if value < 0 else 'inf':>6}"
    return f"{value:6.4f}"


def c_long(value: float) -> str:
    """C's ``(long) value`` printed with ``%ld``: truncated toward zero."""
    if not math.isfinite(value):
        return str(-2 ** 63)
    return str(int(value))


def zscores(evaluation: Evaluation, table: dict) -> None:
    """Every per-query value as its z-score against ``table`` (trec_eval's ``-Z``)."""
    for name, column in evaluation.values.items():
        if isinstance(column, list):
            continue
        out = np.empty(len(column))
        for i, (qid, v) in enumerate(zip(evaluation.qids, column.tolist())):
            entry = table.get((qid, name))
            if entry is None:
                out[i] = MISSING_ZSCORE
            else:
                mean, std = entry
                out[i] = (v - mean) / std if std else (0.0 if v == mean else MISSING_ZSCORE)
        evaluation.values[name] = out


def lines(evaluation: Evaluation, options: Options) -> str:
    """What trec_eval prints for the run."""
    z = options.zscores is not None
    mark = "Z" if z else ""
    out = []
    if options.per_query:
        for i, qid in enumerate(evaluation.qids):
            for d, params in evaluation.requests:
                if not d.per_query:
                    continue
                for name in d.value_names(params):
                    v = evaluation.values[name][i]
                    if d.value == "str":
                        out.append(f"{name:<22s}\t{qid}\t'{v}'")
                    elif d.value == "int" and not z:
                        out.append(f"{name:<22s}\t{qid}\t{c_long(v)}")
                    else:
                        out.append(f"{mark}{name:<22s}\t{qid}\t{c_float(v)}")
    if options.summary:
        for d, params in evaluation.requests:
            for name in d.value_names(params):
                if d.summary == "runid":
                    out.append(f"{'runid':<22s}\tall\t{evaluation.runid}")
                    continue
                if d.summary == "none":
                    continue
                v = summary(d, name, evaluation, options)
                if d.value == "int" and not z:
                    out.append(f"{name:<22s}\tall\t{c_long(v)}")
                else:
                    out.append(f"{mark}{name:<22s}\tall\t{c_float(v)}")
    return "".join(line + "\n" for line in out)


def summary(d: registry.Definition, name: str, evaluation: Evaluation, options: Options) -> float:
    """The ``all`` value, formed as trec_eval forms it."""
    n_eval = len(evaluation.qids)
    n = evaluation.qrels_queries if options.complete else n_eval
    if d.summary == "queries":
        return float(n)
    if name == "num_rel" and options.complete and options.zscores is None:
        return float(evaluation.positive)
    column = evaluation.values[name]
    total = float(np.cumsum(column)[-1]) if len(column) else 0.0
    if d.summary == "sum":
        return total
    if d.summary == "gmean":
        if n <= 0:
            return total
        total += (n - n_eval) * math.log(0.00001)
        return math.exp(total / n)
    return total / n if n else total


def report(options: Options, rel_path: str, run_path: str, rel_info=None) -> str:
    """The whole output of ``trec_eval OPTIONS REL_PATH RUN_PATH``."""
    evaluation = evaluate(options, rel_path, run_path, rel_info=rel_info)
    if not evaluation.qids:
        raise DataError("no queries with both results and relevance info", run_path)
    if options.zscores is not None:
        from ..formats.zscores import read_zscores

        zscores(evaluation, read_zscores(options.zscores))
    return lines(evaluation, options)
