"""``rankeval repro``: how well a reproduction matches the original runs (repro_eval's measures)."""

from __future__ import annotations

import click

from ..vocabulary import REPRO_MEASURES, SUMMARY_FORMATS
from . import _common, _ir


def _cutoffs(ctx, param, values):
    out = []
    for value in values:
        for item in value.split(","):
            try:
                k = int(item)
            except ValueError:
                raise click.BadParameter(f"a cutoff is a positive integer, not {item!r}") from None
            if k < 1:
                raise click.BadParameter(f"a cutoff is a positive integer, not {item!r}")
            out.append(k)
    return tuple(dict.fromkeys(out)) or (1000,)


@click.command(name="repro")
@click.argument("runs", nargs=4, type=click.Path(dir_okay=False), metavar="ORIG_BASE ORIG_ADV REPRO_BASE REPRO_ADV")
@_common.output_options(formats=SUMMARY_FORMATS)
@click.option("--qrels", required=True, type=click.Path(dir_okay=False), metavar="QRELS",
              help="The original runs' qrels")
@click.option("--qrels-repro", type=click.Path(dir_okay=False), default=None, metavar="QRELS",
              help="Reproducibility: the reproduced runs' qrels\f"
                   "Reproducibility: the qrels of the collection the reproduced runs retrieve from; then only the "
                   "effects are compared (ER, DeltaRI, unpaired t-tests) [default: replicability, the same qrels].")
@click.option("-m", "--measure", "measures", multiple=True, metavar="NAME", shell_complete=_ir.complete_measure,
              help="IR measures [default: map, P_10, ndcg]\f"
                   "IR measures (any name of rankeval report --qrels; repeatable or comma-separated) "
                   "[default: map, P_10, ndcg].")
@click.option("--k", "cutoffs", multiple=True, callback=_cutoffs, metavar="K",
              help="KTU and RBO at these depths [default: 1000]\f"
                   "KTU and RBO on the first K documents; repeatable or comma-separated [default: 1000, as "
                   "repro_eval].")
@click.option("--p", "p", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, metavar="P", help="RBO's persistence p")
@_common.handle_errors
def command(runs, output, qrels, qrels_repro, measures, cutoffs, p):
    """Reproducibility of an experiment (Breuer et al. 2020, as repro_eval
    computes it): an original baseline and advanced run against their
    reproductions.

    Replicability (the same topics and qrels): per reproduced run, Kendall's
    tau Union (ktu@K) and rank-biased overlap (rbo@K) of the document orders,
    mean over topics; per measure, RMSE and nRMSE of the topic values and the
    paired t-test's p (p_t); the Effect Ratio (er) and Delta Relative
    Improvement (dri) of the advanced over the baseline run. Reproducibility
    (--qrels-repro: another collection): er, dri and the unpaired t-test.
    Definitions: docs/agreement.md#reproducibility.

    \b
    Output columns: system measure statistic value groups signature
    (system: baseline, advanced, or both for er and dri; measure: the IR
    measure, or order@K for ktu and rbo at --k K).

    \b
    Examples:
      rankeval repro --qrels examples/trec/qrels.txt examples/trec/bm25.run \\
        examples/trec/dense.run examples/trec/bm25.run examples/trec/dense.run
    """
    from ..agreement.repro_runs import ReproSettings, repro_records
    from ..signature import signature

    names = tuple(n.strip() for value in measures for n in value.split(",") if n.strip()) or REPRO_MEASURES
    settings = ReproSettings(names, cutoffs, p, qrels, qrels_repro)
    sig = signature("repro", p=p, cutoff=",".join(map(str, cutoffs)), mode="reproducibility" if qrels_repro
                    else "replicability")
    records = repro_records(runs, settings, _common.warn)
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many({**r, "signature": sig} for r in records)
