"""TREC run and qrels files, read as trec_eval 10.0 reads them, and their join.

A *run* has one line per retrieved document, ``qid Q0 docno rank score tag``; a *qrels*
file one line per judgment, ``qid iter docno rel``, rel an integer. The reading rules
are trec_eval's (``get_trec_results.c``, ``get_qrels.c``):

- fields are separated by any run of C's white space (space, tab, CR, vertical tab,
  form feed); a file may lack its last newline; gzip, bzip2 and xz are undone;
- a run line may have fields after the tag: they are ignored; a qrels line has exactly
  four fields; the iter field (``Q0``, ``0``) and the rank field are ignored, any token;
- blank lines are skipped; so are comment lines: in a run a line whose first non-blank
  byte is ``#``, in qrels a line whose first byte is ``#`` (trec_eval reads an indented
  ``#`` in qrels as data, and so does this reader);
- the run's first tag names it (:attr:`.run.Run.tag`); the tag of its last line is
  trec_eval's ``runid`` (:attr:`.run.Run.last_tag`).

Stricter than trec_eval, each a one-line error at its line: a score that is not a finite
decimal number (trec_eval's ``atof`` reads ``abc`` as 0), a grade that is not an integer
(``atol``), a qid, docno or tag that is not UTF-8 or holds a NUL byte (trec_eval keeps
opaque C strings; every output here is UTF-8 text), a docno twice in one query, a
(qid, docno) judged twice (trec_eval stops at these two as well). A qrels file without a
judgment is an error too (trec_eval: "Cannot read qrels file").

The modules, in the order the data flows:

- :mod:`.fields`: lines split into fields straight from a block's bytes, ids checked,
  scores and grades parsed;
- :mod:`.run`: the run reader (:func:`~.run.read_run`), block by block;
- :mod:`.qrels`: the qrels reader (:func:`~.qrels.read_qrels`);
- :mod:`.join`: trec_eval's order of a ranking and the hash join of a run with qrels
  (:func:`~.join.join`);
- :mod:`.streaming`: the join of a run a part (of whole queries) at a time, spooling a
  run read from stdin or a pipe (:func:`~.streaming.stream_join`);
- :mod:`.convert`: the canonical stream of a joined run (``convert --from trec``);
- :mod:`.lines`, :mod:`.qrels_jg`, :mod:`.prefs`, :mod:`.zscores`: trec_eval's small
  judgment formats (judgment groups, preferences, z-scores), read line by line;
- :mod:`.write`: writing a run.
"""
