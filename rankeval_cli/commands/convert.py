"""``rankeval convert``: read any supported ranking file, write a canonical or JCML stream."""

from __future__ import annotations

import inspect

import click

from ..vocabulary import BINARY_FORMATS, CANONICAL_FORMATS, DIRECTIONS, READERS, STREAM_FORMATS
from . import _common


@click.command(name="convert")
@_common.input_options
@_common.output_options(formats=STREAM_FORMATS)
@click.option("--from", "from_format", type=click.Choice(READERS), default="auto", show_default=True,
              metavar="FORMAT",
              help="Input format: auto, tsv, jsonl, jcml, wmt-rr, wmt-scores, darr, wmt-da, mqm, letor, trec\f"
                   "Input format; auto tells canonical TSV, JSON lines and JCML (XML) apart.")
@click.option("--gold-attr", default=None, metavar="ATTR",
              help="jcml: <tgt> attribute holding the gold rank [default: rank].")
@click.option("--pred-attr", default=None, metavar="ATTR",
              help="jcml: <tgt> attribute of the prediction\f"
                   "jcml: <tgt> attribute to use as the prediction (e.g. predicted_rank, unk).")
@click.option("--keep-text", is_flag=True, default=None,
              help="jcml: keep the texts as columns\f"
                   "jcml: keep the text of <src>, <tgt> and <ref> as extra columns.")
@click.option("--min-diff", type=_common.FiniteFloat(), default=None, metavar="POINTS",
              help="wmt-da, darr: least DA difference of a pair [default: 25; darr: all]\f"
                   "wmt-da: least raw DA difference that makes a pair [default: 25]; darr: keep pairs whose "
                   "DIFF field is at least this [default: keep all].")
@click.option("--lp", default=None, metavar="XX-YY",
              help="wmt-da, mqm: the language pair\f"
                   "wmt-da, wmt-da-scores, mqm: the language pair, when the file name does not tell it "
                   "(-xx-yy.csv, mqm_TESTSET_xxyy).")
@click.option("--item-types", default=None, metavar="LIST",
              callback=_common.parsed_by("formats.appraise:parse_item_types", keep_text=True),
              help="appraise: the item types kept [default: TGT,CHK]\f"
                   "appraise: the item types kept, comma-separated [default: TGT,CHK, as Appraise ranks; "
                   "WMT22-24: TGT].")
@click.option("--exclude-documents", "exclude_documents", multiple=True, metavar="PATTERN",
              help="appraise: drop documents matching a pattern\f"
                   "appraise: drop the rows of documents whose id matches this shell-style pattern (WMT24: "
                   "'*#incomplete*', '*#dup*'); repeatable; counted on stderr.")
@click.option("--documents", "documents", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="appraise: WMT's documents file (domains)\f"
                   "appraise: WMT's documents file (LP.docs: DOMAIN<TAB>DOCID per segment), repeatable; adds "
                   "a domain column (for aggregate --protocol wmt24).")
@click.option("--index", "index", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="mqm: WMT test-set index (details.LP.txt)\f"
                   "mqm: WMT test-set index (details.LP.txt), repeatable; the segment column becomes "
                   "DOCID::DOCSEG, so --scores joins WMT20-21 score files on the right segments.")
@click.option("--scores", "scores", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Fill pred from a WMT metric score file\f"
                   "Fill pred from a WMT segment-level metric score file (gzip or plain), matched on "
                   "language pair, segment and system.")
@click.option("--higher-better/--lower-better", "higher_better", cls=_common.AliasOption,
              aliases=("--pred-higher-better",), default=None,
              help="Source scores: higher or lower is better [default: by format]\f"
                   "Direction of the source's scores (jcml --pred-attr, --scores FILE, --from wmt-scores); pred "
                   "is written so that lower is better, higher-better scores negated [default: lower for a JCML "
                   "attribute (a predicted rank), higher for metric scores].")
@click.option("--score-direction", type=click.Choice(DIRECTIONS), default=None, hidden=True)
@click.option("--refset", default=None, metavar="NAME",
              help="--scores: the reference set to use\f"
                   "--scores: the reference set to use where the score file has several [default: the one "
                   "named like the test set].")
@click.option("--metric", default=None, metavar="NAME",
              help="--scores: the metric to use\f"
                   "--scores: the metric to use where the score file holds several.")
@click.option("--strict", is_flag=True, help="--scores: a missing score is an error\f"
                                             "--scores: an item without a score is an error, not a count on stderr.")
@click.option("--max-feature-index", type=click.IntRange(min=1), default=None, metavar="N",
              help="letor: largest feature index [10000]\f"
                   "letor: the largest feature index accepted (each becomes a column fI) [default: 10000].")
@click.option("--qrels", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="trec: the qrels to join the runs with\f"
                   "trec: the qrels (qid iter docno rel) to join the runs (FILES) with.")
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="N",
              help="trec: keep the first N documents of each ranking (trec_eval -M).")
@click.option("--all-queries", is_flag=True, default=None,
              help="trec: also write the qrels' queries the run lacks (judged rows only; trec_eval -c).")
@_common.handle_errors
def command(inputs, output, from_format, gold_attr, pred_attr,
            keep_text, min_diff, lp, item_types, exclude_documents, documents, index, scores, higher_better, score_direction, refset, metric,
            strict, max_feature_index, qrels, depth, all_queries):
    """Convert ranking files to the canonical TSV or JSON lines (or JCML).

    \b
    Readers (--from):
      tsv, jsonl   the canonical encodings
      jcml         QE XML: <judgedsentence> groups of <tgt system= rank=> items
      wmt-rr       WMT human relative-ranking judgments (WMT08, WMT10-14, WMT15-16 layouts)
      wmt-scores   WMT metric score files, segment or system level
      darr         WMT17-21 DARR pairs: LP DATA SID BETTER WORSE [DIFF]
      wmt-da       WMT20 DA segment scores, paired as DARR is
      wmt-da-scores
                   WMT DA segment scores: one group per segment, gold = -raw,
                   z = -z-score (for aggregate --method z-score)
      appraise     Appraise DA/ESA score exports: one judgment per group,
                   gold = -score, judge column (for aggregate --method z-score)
      mqm          Google's MQM segment scores: one group per segment, gold = -score
      letor        LETOR/SVMlight ranking files: rel qid:Q 1:v 2:v ... # docid = X
      trec         TREC runs (qid Q0 docno rank score tag) joined with --qrels:
                   one group per query, pred = -score, gold = grade; empty
                   gold = retrieved but unjudged, empty pred = judged but not
                   retrieved; a run column (several runs: groups TAG:QID)

    \b
    Examples:
      rankeval convert --from jcml --pred-attr unk examples/wmt10-de-en.xf.jcml
      rankeval convert --from darr DArr.csv.gz --scores chrF.seg.score.gz
      rankeval convert --from trec --qrels examples/trec/qrels.txt \\
        examples/trec/bm25.run
    """
    from ..formats import reader, sniff, writer

    files = inputs.files
    if from_format == "auto" and files and files[0] != "-":
        from_format = sniff(files[0])  # so that reader options (e.g. --pred-attr) apply to JCML files
    if higher_better is None and score_direction is not None:  # the spelling of earlier releases
        higher_better = score_direction == "higher"
    options = {k: v for k, v in dict(gold_attr=gold_attr, pred_attr=pred_attr, keep_text=keep_text,
                                      min_diff=min_diff, lp=lp, item_types=item_types,
                                      exclude_documents=list(exclude_documents) or None,
                                      documents=list(documents) or None, index=list(index) or None, depth=depth,
                                      all_queries=all_queries, max_feature_index=max_feature_index).items()
               if v is not None}
    if from_format == "trec" and qrels is None and output.format in BINARY_FORMATS:
        from ..formats.arrow_stream import write_runs

        with output.stream() as out:  # the runs themselves, not joined with judgments
            write_runs(list(files) or ["-"], out, output.format)
        return
    if qrels is not None:
        if from_format != "trec":
            raise click.UsageError("--qrels goes with --from trec")
        from ..formats.trec.qrels import read_qrels

        options.update(qrels=read_qrels(qrels), prefix_groups=len(files) > 1)
    if higher_better is not None and not scores:
        if from_format == "wmt-scores":
            options["higher_better"] = higher_better
        elif pred_attr is not None:
            options["pred_higher_better"] = higher_better
        else:
            raise click.UsageError("--higher-better/--lower-better goes with --pred-attr, --scores or "
                                   "--from wmt-scores")
    if not scores:
        for flag, value in (("--refset", refset), ("--metric", metric), ("--strict", strict or None)):
            if value is not None:
                raise click.UsageError(f"{flag} goes with --scores")
    if from_format not in ("auto", *CANONICAL_FORMATS):
        _check_options(reader(from_format), from_format, options)
    elif options:
        raise click.UsageError(f"--{next(iter(options)).replace('_', '-')} does not apply to --from {from_format}")
    batches = inputs.read(fmt=None if from_format == "auto" else from_format, sniffable=STREAM_FORMATS, **options)
    if scores:
        from ..formats.join import join_scores

        batches = join_scores(batches, scores, higher_better=higher_better is not False, strict=strict,
                              report=_common.warn, refset=refset, metric=metric)
    with output.stream() as out:
        writer(output.format)(batches, out)


def _check_options(read_fn, name: str, options: dict) -> None:
    accepted = inspect.signature(read_fn).parameters
    for key in options:
        if key not in accepted:
            raise click.UsageError(f"--{key.replace('_', '-')} does not apply to --from {name}")
