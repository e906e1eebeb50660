"""Where trec_eval's own code decides what ``rankeval trec_eval`` prints, and how it stops.

Each rule here reproduces a behaviour of trec_eval 10.0 (and 9.0.8 where said) found by
running its binaries on generated collections; each has golden cases in
``tests/data/trec_eval`` (scripts/gen-trec-eval-golden) and is described in docs/ir.md
("Where trec_eval's own code decides"):

- a query whose judgments are all negative (``form_res_rels.c`` keeps the levels of the query
  before; the first query evaluated stops the run, exit status 4);
- a docno twice in a ranking within ``-M`` (trec_eval stops at that query, exit status 4);
- a comment line under ``--trec-eval-version 9`` (9.0.8 stops, "Malformed line", exit 2).
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import DataError


class TrecEvalStop(DataError):
    """Where trec_eval stops on its input with an exit status of its own (4: "Can't calculate
    measure"; 2: "Malformed line"): the same status."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None, status: int = 4):
        super().__init__(message, source, line)
        self.exit_status = status


#: comment lines as trec_eval 10.0 skips them: in judgments ``#`` in column 0, in runs the first
#: byte that is not white space
COMMENT = {"judgments": re.compile(rb"(?m)^#"), "run": re.compile(rb"(?m)^[ \t\v\f\r]*#")}


def refuse_comments(path: str, kind: str) -> None:
    """trec_eval 9.0.8 reads no comment line: it stops at the first ("Malformed line", exit 2).
    (It reads a comment line holding exactly a data line's fields as data; rankeval refuses that
    one too.) A run on stdin is not checked."""
    from ..inputs import is_regular_file, open_binary, read_blocks, source_name

    if not is_regular_file(path):
        return
    name = source_name(path)
    with open_binary(path) as stream:
        for block, first_line in read_blocks(stream, name):
            found = COMMENT[kind].search(block)
            if found:
                line = first_line + block.count(b"\n", 0, found.start())
                raise TrecEvalStop("Malformed line: trec_eval 9.0.8 reads no comment lines (10.0 skips them)",
                                   name, line, status=2)


#: measures that do not read the ranking (trec_eval computes them without te_form_res_rels)
NO_RANKING = ("runid", "num_q")


def stop_at(requests, qrels, qids: list, values: dict, run):
    """Where trec_eval stops evaluating the run (exit status 4), as (query index, TrecEvalStop), or
    None: the first query whose levels are stale (:func:`_stale_levels`) or whose ranking cut at
    ``-M`` holds a docno twice (``form_res_rels.c``); measures that read no ranking never stop.
    ``run``: the run's repeated docnos (``Joined.repeats``), its name and ``-M``."""
    repeats, run_name, max_docs = run
    first_stale = _stale_levels(qids, qrels, values)
    if not qids or not any(d.name not in NO_RANKING for d, _ in requests):
        return None
    name = next(d.name for d, _ in requests if d.name not in NO_RANKING)
    if first_stale:
        return 0, TrecEvalStop(f"query {qids[0]}, the first evaluated, holds no judgment of 0 or more: trec_eval "
                               f"stops here (\"Can't calculate measure '{name}'\", exit status 4)", qrels.source)
    for i, q in enumerate(qids):
        repeat = repeats.get(q)
        if repeat is not None and (max_docs is None or repeat[0] < max_docs):
            _, docno, line, first = repeat
            return i, TrecEvalStop(f"docno {docno.decode('utf-8', 'replace')} retrieved twice for query {q} (first at "
                                   f"line {first}): trec_eval stops here, after the queries before (\"duplicate "
                                   f"docs\", exit status 4)", run_name, line)
    return None


def _stale_levels(qids: list, qrels, values: dict) -> bool:
    """trec_eval's ``form_res_rels.c`` on a query whose judgments are all negative (none is 0 or
    more): it counts no relevance level, so it leaves its saved levels as the query before set
    them. The first query evaluated then has none (True is returned: trec_eval stops,
    "Can't calculate measure", before printing anything). A later query computes ideal_dcg from
    the previous query's levels (set here; the other measures read the levels only through gains
    of retrieved judged documents, of which it has none, or through counts below the relevance
    level, which it reads past its array where the level exceeds its grades: undefined, so
    rankeval keeps its own value there)."""
    if not qids:
        return False
    has_levels = np.add.reduceat((qrels.grade >= 0).astype(np.int64), qrels.offsets[:-1]) > 0 \
        if len(qrels.grade) else np.zeros(len(qrels.qids), bool)
    index = {q: i for i, q in enumerate(qrels.qids)}
    stale = [not has_levels[index[q]] for q in qids]
    column = values.get("ideal_dcg")
    if column is not None:
        for i in range(1, len(qids)):
            if stale[i]:
                column[i] = column[i - 1]
    return stale[0]
