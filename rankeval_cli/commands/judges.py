"""``rankeval judges``: candidate qrels (an LLM, a crowd) measured against reference qrels."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED, SUMMARY_FORMATS, TABLE_FORMATS
from . import _common


def _candidate(ctx, param, value):
    """``[NAME=]FILE`` → (name, path); the name defaults to the file name without extensions."""
    import os

    out = []
    for spec in value:
        name, sep, path = spec.partition("=")
        if not sep or os.path.exists(spec):  # a file name holding '=' is a file name
            name, path = _stem(spec), spec
        if not name.strip() or not path:
            raise click.BadParameter(f"{spec!r}: expected FILE or NAME=FILE")
        out.append((name.strip(), path))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise click.BadParameter(f"two candidates named {dup!r}: name them NAME=FILE")
    return tuple(out)


def _complete_measure(ctx, param, incomplete):
    from ..measures.trec.names import vocabulary

    return [n for n in vocabulary() if n.startswith(incomplete)]


def _measures(names):
    """The IR measures of ``-m`` (trec_eval and ir_measures names, sets, parameter lists)."""
    from ..ir.evaluate import measures_of
    from ..measures.trec.names import UnknownMeasure, split_names

    try:
        measures = measures_of(split_names(names) or ["ndcg_cut_10"])
    except UnknownMeasure as exc:
        raise click.BadParameter(str(exc), param_hint="'-m'") from None
    summed = [m.name for m in measures if m.summed]
    if summed:
        raise click.BadParameter(f"{summed[0]} is a count summed over topics, not a mean", param_hint="'-m'")
    return tuple(measures)


@click.command(name="judges")
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=False, allow_dash=False))
@click.option("--qrels", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="The reference qrels [required]\f"
                   "The reference qrels (TREC: qid iter docno grade): the labels the candidates are measured "
                   "against; its grades (>= 0) are the scale.")
@click.option("--candidate", "candidates", multiple=True, required=True, callback=_candidate,
              metavar="[NAME=]FILE", help="A candidate's qrels (repeatable) [required]\f"
                                          "A candidate's qrels, named NAME (default: the file name without "
                                          "extensions); repeatable. It may label some of the reference's "
                                          "pairs and pairs the reference lacks.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME", shell_complete=_complete_measure,
              help="IR measures to rank systems by [default: ndcg_cut_10]\f"
                   "IR measures the runs are ranked by, any name 'rankeval report' knows (repeatable, comma "
                   "lists) [default: ndcg_cut_10].")
@click.option("--rel-level", "rel_level", type=click.IntRange(min=0), default=1, show_default=True, metavar="N",
              help="Grade >= N is relevant (-l) [default: 1]\f"
                   "Grade >= N is relevant: binary agreement and the binary IR measures (trec_eval -l).")
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="N",
              help="Only the first N documents count (-M)\f"
                   "Only the first N documents of each ranking count (trec_eval -M).")
@click.option("--alpha", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Level of the tests and clusters [default: 0.05]\f"
                                      "Significance level of the paired t-tests between systems (significance "
                                      "agreement) and of the clusters of candidates.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, metavar="N",
              help="Top-N systems overlap [default: 10]\f" "The N best systems compared by top-k overlap.")
@click.option("--k", "k", type=click.IntRange(min=1), default=10, show_default=True, metavar="K",
              help="Depth of the unjudged share [default: 10]\f"
                   "Depth of the unjudged share: documents not in a qrels among each ranking's first K.")
@click.option("--fill", is_flag=True,
              help="Rank by the reference filled by each candidate\f"
                   "Evaluate the runs with the reference's label where it has one and the candidate's "
                   "elsewhere (LLM labels filling pool holes); count the filled pairs per topic.")
@click.option("--per-group", "per_group", is_flag=True,
              help="Also per-topic rows\f" "Also write the label statistics and unjudged shares of every topic.")
@click.option("--ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=DEFAULT_LEVEL,
              show_default=True, metavar="LEVEL", help="Level of the intervals [default: 0.95]\f"
                                                       "Level of the percentile bootstrap intervals over topics.")
@click.option("--bootstrap", type=click.IntRange(min=0), default=DEFAULT_REPLICATES, show_default=True, metavar="N",
              help="Bootstrap replicates over topics [default: 1000]\f"
                   "Bootstrap replicates over topics (intervals, tests between candidates); 0 = none.")
@click.option("--seed", type=click.IntRange(min=0), default=DEFAULT_SEED, show_default=True, metavar="S",
              help="Seed of the replicates [default: 12345]\f" "Seed of the bootstrap draws (in the signature).")
@_common.jobs_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.handle_errors
def command(runs, qrels, candidates, measures, rel_level, depth, alpha, top, k, fill, per_group, ci, bootstrap,
            seed, output):
    """Measure candidate relevance labels (an LLM, a crowd) against
    reference qrels: label agreement, agreement of the system rankings the
    labels give, and which candidate is significantly better.

    RUNS are TREC runs, evaluated under the reference and every candidate
    (-m). One table: Cohen's kappa (unweighted, linear, quadratic),
    Krippendorff's alpha (nominal, ordinal, interval), raw and binary
    agreement, confusion counts, per-grade precision and recall, Fleiss'
    kappa of the candidates; Kendall's tau-b, tau_AP, Spearman, Pearson,
    pairwise and soft pairwise accuracy, agreement of t-test decisions,
    top-N overlap, the best system's rank change; each with a bootstrap
    interval over topics, paired bootstrap tests between candidates and
    their significance clusters. Definitions: docs/judges.md.

    \b
    Examples:
      rankeval judges --qrels ref.qrels --candidate llm=llm.qrels \\
        --candidate crowd=crowd.qrels runs/*.run
      rankeval judges --qrels ref.qrels --candidate llm.qrels --fill runs/*.run
    """
    from ..errors import DataError
    from ..judging.analysis import Request, run_study
    from ..judging.records import study_records
    from ..judging.study import Settings

    from ..ir.evaluate import Settings as IRSettings

    names = _measures(measures) if runs else ()
    ir = IRSettings(rel_level=rel_level, depth=depth)
    settings = Settings(rel_level=rel_level, alpha=alpha, top=top, level=ci, bootstrap=bootstrap, seed=seed)
    reference_name = _stem(qrels)
    if reference_name in {n for n, _ in candidates}:
        reference_name = qrels
    request = Request(qrels, reference_name, candidates, tuple(runs), tuple(names), ir, settings, fill, k, per_group)
    try:
        outcome = run_study(request, _common.warn)
    except ValueError as exc:  # the measures' own refusals
        raise DataError(str(exc)) from None
    records = study_records(outcome)
    with output.stream() as out:
        if output.format in TABLE_FORMATS:
            from ..judging.paper import write_paper

            write_paper(out, records, output.format, _digits())
            return
        with _common.record_writer(out, output.format) as writer:
            writer.write_many(records)


def _stem(path: str) -> str:
    import os

    return os.path.basename(path).split(".")[0] or path


def _digits():
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get("rankeval.digits") if ctx is not None else None
