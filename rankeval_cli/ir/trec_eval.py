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

from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import DataError
from ..formats.trec.fields import c_readings
from ..formats.trec.repeats import allowing_repeats
from ..measures.trec import registry
from ..measures.trec.engine import compute, cut, query_batch
from ..measures.trec.params import ParamError, parse_params
from .judgments import judgment_group_batch, preference_batch, query_list, read_rel_info, stand_in
from .rankings import BATCH_ROWS, concatenated, float32_order, with_float_blocks
from .run_records import trec_eval_lines
from .trec_eval_edges import TrecEvalStop, refuse_comments, stop_at  # noqa: F401  (the first two: API)

#: what ``-v`` reports per emulated version
VERSION_STRINGS = {10: "10.0-rc3", 9: "9.0.8"}
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
        from ..measures.trec.names import UnknownMeasure, parse as parse_name  # (other spellings only)

        try:
            values = parse_name(arg, version=version)
        except (UnknownMeasure, ParamError) as exc:
            raise TrecEvalError(f"illegal measure '{arg}': {exc}") from None
        for m in values:
            d = m.definition
            if d is None or not d.in_trec_eval or m.rel_level is not None or m.judged_only or \
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
            params = None
        out.append((d, params))
    return _shared_gains(out)


#: measures of one file sharing one parameter list (m_ndcg.c's default_ndcg_gains)
SHARED_PARAMS = ("dcg", "ideal_dcg", "ndcg")


def _shared_gains(requests):
    """Parameters as trec_eval ends up with them (None = not given). dcg, ideal_dcg and ndcg share
    one parameter structure in trec_eval 10: each takes, at its initialization in trec_eval's order,
    the last parameters given to one of them so far (its printed name shows them), and all three
    compute with the last ones. (When two of them print named parameters, trec_eval frees that
    structure twice at exit and may abort.)"""
    shared, names = None, {}
    for d, params in requests:
        if d.name in SHARED_PARAMS:
            shared = params if params is not None else shared
            names[d.name] = shared
    out = []
    for d, params in requests:
        if d.name in SHARED_PARAMS:
            final = shared if shared is not None else d.defaults()
            named = names[d.name]
            params = registry.Params(final.values, named.text if named is not None else None)
        out.append((d, params if params is not None else d.defaults()))
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
    stop: tuple | None = None  # (index of the query where trec_eval stops, the TrecEvalStop)

    def head(self, n: int) -> "Evaluation":
        """The first ``n`` queries only."""
        values = {k: v[:n] for k, v in self.values.items()}
        return Evaluation(self.requests, self.qids[:n], values, self.runid, self.qrels_queries, self.positive)


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
        rel_info = read_judgments(options.rel_format, rel_path)
    return _Evaluator(options, requests, rel_info, reads).run(run_path)


def read_judgments(rel_format: str, path: str):
    """The judgments of ``path`` in trec_eval's ``-R`` format, grades read as trec_eval reads them."""
    with c_readings():
        return read_rel_info(rel_format, path)


class _Evaluator:
    def __init__(self, options: Options, requests, rel_info, reads):
        self.options, self.requests, self.rel_info, self.reads = options, requests, rel_info, reads
        self.rows: list = []  # (qids, {name: values}) per evaluated batch
        self.repeats: dict = {}  # qid -> a docno twice in its ranking (Joined.repeats)
        self.expected = options.tie_policy == "expected"

    # -- the run, batch by batch
    def run(self, run_path) -> Evaluation:
        o = self.options
        if not self.rel_info.qids:  # trec_eval: "Cannot read qrels file" (exit 2)
            raise DataError("the judgments hold no query", self.rel_info.source)
        join_qrels = self.rel_info if self.reads == "qrels" else query_list(self.rel_info)
        simple = self.reads == "qrels" and o.version >= 10 and o.tie_policy in ("trec", "expected")
        need_documents = self.reads != "qrels" or o.version < 10
        with allowing_repeats(), c_readings():  # trec_eval decides per query, after -M (stop_at); atof/atol
            return self._read(run_path, join_qrels, simple, need_documents)

    def _read(self, run_path, join_qrels, simple, need_documents) -> Evaluation:
        from ..formats.trec.streaming import stream_join
        from ..measures.ir import ranking_from_joined

        o = self.options
        runid = None
        pending, rows = [], 0
        for joined, part in stream_join(run_path, join_qrels, depth=o.max_docs if simple else None,
                                             all_queries=o.complete):
            if joined is None:  # the run is read again whole
                self.rows, self.repeats, pending, rows = [], {}, [], 0
                continue
            runid = part.last_tag or runid
            self.repeats.update(joined.repeats)
            bogus = part.n_rows == 0  # the qrels' queries the run lacks (-c)
            if joined.n_queries == 0 or (bogus and o.version < 10):
                continue
            if bogus:  # (cut by -M too: the join did not see it)
                self._batch(joined.qids, *stand_in(joined, self.rel_info, self.reads), True, False)
                continue
            if need_documents:
                docno, score = part.docno[joined.row], part.score[joined.row]
            else:  # trec_eval 10 on qrels reads only the ranking's relevance values
                docno, score = np.zeros(len(joined.row), "S1"), np.zeros(len(joined.row))
            pending.append((joined.qids, ranking_from_joined(joined), docno, score))
            rows += len(joined.row)
            if rows >= BATCH_ROWS:
                self._batch(*concatenated(pending), False, simple)
                pending, rows = [], 0
        if pending:
            self._batch(*concatenated(pending), False, simple)
        if runid is None:
            raise DataError("the run holds no line", run_path)
        return self._result(runid, part.source)

    def _batch(self, qids, ranking, docno, score, bogus, simple):
        from ..measures.trec.engine import kept, policy_order, reorder, subset

        o = self.options
        if self.reads == "prefs":
            batch = preference_batch(self.rel_info, qids, ranking, docno, score, o)
        else:
            if o.version < 10:
                order = float32_order(ranking, score, docno)
                if order is not None:
                    ranking = with_float_blocks(reorder(ranking, order), score[order])
                    docno, score = docno[order], score[order]
            order = policy_order(ranking, o.tie_policy)
            if order is not None:
                ranking, docno = reorder(ranking, order), docno[order]
            keep = kept(ranking, None if simple else o.max_docs)
            ranking, docno = subset(ranking, keep), (docno if keep is None else docno[keep])
            if self.reads == "qrels_jg":
                batch = judgment_group_batch(self.rel_info, qids, ranking, docno, o)
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

    # -- the whole run
    def _result(self, runid: str, run_name: str) -> Evaluation:
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
            stop = stop_at(self.requests, self.rel_info, [qids[i] for i in order], values,
                         (self.repeats, run_name, self.options.max_docs))
            positive = int((self.rel_info.grade > 0).sum())
        elif self.reads == "qrels_jg":
            positive = self.rel_info.positive_judgments()
        else:
            positive = 0
        return Evaluation(self.requests, [qids[i] for i in order], values, runid, len(self.rel_info.qids), positive,
                          stop if self.reads == "qrels" else None)


def _clean_bogus(columns: dict) -> None:
    """What trec_eval 10.0 resets after evaluating its stand-in ranking (by exact value name)."""
    for name, col in columns.items():
        if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            columns[name] = np.zeros(len(col))
        elif name == "relstring":
            columns[name] = [""] * len(col)


# ---- printing ------------------------------------------------------------------------------

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


def reports(options: Options, rel_path: str, run_paths, rel_info=None):
    """The output of ``trec_eval OPTIONS REL_PATH RUN`` for each run, in order: the runs are
    executor work units (``--jobs``; the judgments read once and sent to each worker), each
    run's text yielded as soon as it and the runs before it are done. A run on stdin or
    another stream is read in this process, and then every run is."""
    from ..executor import imap_units
    from ..inputs import is_regular_file

    in_line = not all(is_regular_file(path) for path in run_paths)
    yield from imap_units(_report_unit, list(run_paths), shared=(options, rel_path, rel_info),
                          label="runs", serial=in_line)


def _report_unit(shared, run_path: str) -> str:
    options, rel_path, rel_info = shared
    return report(options, rel_path, run_path, rel_info=rel_info)


def report(options: Options, rel_path: str, run_path: str, rel_info=None) -> str:
    """The whole output of ``trec_eval OPTIONS REL_PATH RUN_PATH``."""
    if options.version < 10:
        refuse_comments(run_path, "run")
    evaluation = evaluate(options, rel_path, run_path, rel_info=rel_info)
    if not evaluation.qids:
        raise DataError("no queries with both results and relevance info", run_path)
    if options.zscores is not None:
        from ..formats.trec.zscores import read_zscores

        zscores(evaluation, read_zscores(options.zscores))
    if evaluation.stop is not None:  # trec_eval's -q lines of the queries before, then exit 4
        at, error = evaluation.stop
        error.output = trec_eval_lines(evaluation.head(at), replace(options, summary=False)) \
            if options.per_query else ""
        raise error
    return trec_eval_lines(evaluation, options)
