"""``rankeval report``: every segment-level measure in one pass, as RankEval 2013's rankeval.py printed."""

from __future__ import annotations

import click

from . import _ci, _common, _ir, _position
from .tau import variant_option


@click.command(name="report", cls=_ir.MeasureHelp)
@_common.input_options
@_common.output_options(formats=_common.SUMMARY_FORMATS + ("trec",))
@_common.jobs_options
@_position.position_options("group, items, skipped, tau, rr, ndcg, err, rankdcg, best_predicted")
@_ir.ir_options
@_ir.doc_groups_option
@_ir.measure_option("Measures: trec_eval, ir_measures or MT names [default: MT rows; TREC: map, P_10, ...]\f"
                    "Measures to report (repeatable; comma lists): IR names of trec_eval (map, map_cut_K, "
                    "P_K, recall_K, ndcg, ndcg_cut_K, recip_rank, Rprec, bpref, success_K, num_ret, num_rel, "
                    "num_rel_ret) or ir_measures (AP, AP@K, P@K, R@K, nDCG, nDCG@K, RR, RR@K, Rprec, Bpref, "
                    "Success@K, ERR@K, Judged@K), or rows of the MT report (tau_micro, mrr, ndcg, ...) "
                    "[default: every MT row; with TREC input map, P_10, recall_1000, ndcg, ndcg_cut_10, "
                    "recip_rank, Rprec, bpref, num_ret, num_rel, num_rel_ret].")
@_position.k_option("Cut-off of NDCG and ERR [default: none]\f"
                    "Cut-off for NDCG and ERR; also adds p@K and map@K rows [default: whole lists].")
@variant_option(help_text="Tau variant [default: penalize]\f"
                          "Kendall tau variant, as for 'rankeval tau' (penalize = RankEval 2013 and WMT08-12).",
                aliases=("--tau-ties",))
@click.option("--gain", type=click.Choice(("exp", "linear")), default=None,
              help="NDCG gain [default: exp; TREC: linear]\f"
                   "NDCG gain: 2^rel - 1 or rel [default: exp; linear (trec_eval) with TREC input].")
@click.option("--rel-max", default=None, callback=_position.check_rel_max, metavar="MAX",
              shell_complete=_common.completion_of(("n", "list-max", "scale:4", "scale:3", "scale:2")),
              help="ERR denominator [default: n; grades: scale:4]\f"
                   "ERR denominator 2^rel_max (see 'rankeval err') [default: n with ranks, scale:4 with grades].")
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, tie_policy, relevance, higher_better,
            missing_pred, per_group, by, qrels, rel_level, depth, all_queries, doc_groups, measures, k, variant, gain,
            rel_max, ci, bootstrap, seed):
    """All measures at once: tau, MRR, NDCG, ERR, rankDCG, BPH shares and the
    average predicted rank of MT rankings; with --qrels, IR measures of runs.

    MT rows: tau (micro, macro, counts, p), MRR, NDCG, ERR, rankDCG, BPH shares
    per human rank and the average predicted rank.

    One row per measure: measure, value, groups (the groups it averages or
    pools), undefined (groups left out: no defined value), and the signature
    of its settings. The input is read once and never held in
    memory: the summary keeps only sums and counts. With --per-group, one row
    per group (group, items, skipped, tau, rr, ndcg, err, rankdcg, best_predicted)
    goes to the output and the summary to stderr.

    With --ci LEVEL, the rows that are means over groups (tau_micro from the
    groups' pair counts, tau_macro, mrr, ndcg, err, rankdcg, p@k, map@k,
    avg_predicted) get ci_low and ci_high: a percentile bootstrap over groups,
    all measures from the same resampled groups. Other rows leave them empty.

    With --qrels FILE the FILES are TREC runs, evaluated as trec_eval does
    (one summary per run: system, measure, value, groups, signature); a stream
    written by 'rankeval convert --from trec' gives the same numbers.
    --per-group --output-format trec writes trec_eval -q's lines.

    \b
    Examples (RankEval 2013's "rankeval.py file.jcml unk rank"; TREC runs):
      rankeval convert --from jcml --pred-attr unk examples/wmt10-de-en.xf.jcml \\
        | rankeval report --ci 0.95
      rankeval report --qrels examples/trec/qrels.txt -m map,P_10,nDCG@10 \\
        examples/trec/bm25.run examples/trec/dense.run
    """
    from ..measures.err import parse_rel_max
    from ..partition import keyed, partitioned

    mt_names = _mt_names(k)
    is_ir, opened = _ir.route(files, qrels, measures, input_format, exclude_systems, mt_names, output_format)
    if is_ir:
        _ir.no_by(by)
        ir_settings = _ir.Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries,
                                   gain=gain, rel_max=rel_max, higher_better=higher_better, doc_groups=doc_groups)
        _ir.run_ir(_ir.parse_measures(measures), files=files if opened is None else _ir.stream_files(opened),
                   qrels=qrels, output=output, output_format=output_format, per_group=per_group,
                   settings=ir_settings, input_format=input_format, exclude_systems=exclude_systems, ci=ci,
                   bootstrap=bootstrap, seed=seed)
        return
    wanted = _wanted_rows(measures, mt_names)
    tie_policy, gain = tie_policy or "pessimistic", gain or "exp"
    settings = dict(tau_variant=variant, tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred,
                    scores=higher_better, k=k, gain=gain, rel_max=parse_rel_max(rel_max, relevance),
                    resampling=_ci.resolve(ci, bootstrap, seed), exclude=_ci.exclusion(exclude_systems))
    reports: dict = {}  # --by key -> Report
    batches = _position.oriented(opened, higher_better, relevance)
    with _common.output_stream(output) as out:
        rows_out = _common.record_writer(out, output_format) if per_group else None
        for key, batch in partitioned(batches, by):
            report = reports.get(key) or reports.setdefault(key, Report(**settings))
            rows = report.add(batch, per_group=per_group)
            if rows_out:
                rows_out.write_many(rows)
        if not by and not reports:
            reports[()] = Report(**settings)
        records = [keyed(record, by, key) for key, report in reports.items() for record in report.records()
                   if wanted is None or record["measure"] in wanted
                   or (record["measure"].startswith("bph_") and "bph" in wanted)]
        _position.write_summary(out, records, output_format, per_group, rows_out)
    _position.warn_counts(sum(r.blanks for r in reports.values()), sum(r.missing_pred for r in reports.values()),
                          missing_pred)


#: rows of the MT report that -m can name (bph = every bph_<rank> row)
MT_ROWS = ("tau_micro", "tau_macro", "tau_p", "tau_concordant", "tau_discordant", "tau_gold_ties",
           "tau_pred_ties", "tau_both_ties", "pred_tied_pairs_pct", "groups_with_pred_ties_pct", "mrr", "ndcg",
           "err", "rankdcg", "bph", "avg_predicted", "blanks", "missing_pred")


def _mt_names(k) -> tuple:
    return MT_ROWS + ((f"p@{k}", f"map@{k}") if k is not None else ())


def _wanted_rows(measures, mt_names):
    """The MT rows -m names (None = all); an unknown name is a usage error."""
    from ..measures.trec.names import split_names

    names = split_names(measures)
    if not names:
        return None
    unknown = [n for n in names if n not in mt_names]
    if unknown:
        raise click.BadParameter(f"{unknown[0]!r}: not a row of the MT report ({', '.join(mt_names)}); IR "
                                 "measures need TREC input (--qrels or a 'convert --from trec' stream)",
                                 param_hint="'-m'")
    return set(names)


class Report:
    """Streaming accumulator of every measure of the report (sums and counts only)."""

    def __init__(self, *, tau_variant="penalize", tie_policy="pessimistic", relevance="ranks",
                 missing_pred="drop", scores=False, k=None, gain="exp", rel_max=("n", None), resampling=None,
                 exclude=None):
        from ..measures.simple import BPHSummary
        from ..measures.tau import TauAccumulator
        from ..measures.ties import MeanSummary
        from ..stats.resample import GroupColumns

        self.settings = dict(ties=tie_policy, relevance=relevance, scores=scores, missing_pred=missing_pred)
        self.prepare_options = _position.prepare_options(tie_policy, relevance, missing_pred)
        self.k, self.gain, self.rel_max = k, gain, rel_max
        self.tau = TauAccumulator(tau_variant)
        self.means = {name: MeanSummary(name) for name in ("mrr", "ndcg", "err", "rankdcg")}
        if k is not None:
            self.means.update({f"p@{k}": MeanSummary(f"p@{k}"), f"map@{k}": MeanSummary(f"map@{k}")})
        self.bph = BPHSummary()
        self.resampling, self.exclude = resampling, exclude
        self.kept = GroupColumns() if resampling else None  # per-group statistics for --ci
        self.pred_tied_pairs = self.pairs = self.groups_with_pred_ties = self.groups_with_pairs = 0

    @property
    def blanks(self) -> int:
        return self.bph.blanks

    @property
    def missing_pred(self) -> int:
        return self.bph.missing_pred

    def add(self, batch, per_group: bool = False) -> list[dict] | None:
        """Add one batch; returns its per-group rows with ``per_group`` (a dict per group
        costs more than every measure together, so they are built only when written)."""
        import numpy as np

        from ..measures import dcg, err, rankdcg, rr, simple
        from ..measures.ties import Scores, prepare_batch

        tau_batch = batch.with_values(gold=-batch.gold) if self.settings["relevance"] == "grades" else batch
        tau_rows = self.tau.add(tau_batch)
        self._tie_statistics(tau_rows.counts)
        prep = prepare_batch(batch, **self.prepare_options)
        values = {
            "rr": rr.rr_values(prep),
            "ndcg": dcg.ndcg_values(prep, self.k, self.gain),
            "err": err.err_values(prep, self.k, self.rel_max),
            "rankdcg": rankdcg.rankdcg_values(prep),
        }
        for name, key in (("mrr", "rr"), ("ndcg", "ndcg"), ("err", "err"), ("rankdcg", "rankdcg")):
            self.means[name].add(Scores(batch, values[key], prep))
        if self.k is not None:
            self.means[f"p@{self.k}"].add(Scores(batch, simple.precision_values(prep, self.k), prep))
            self.means[f"map@{self.k}"].add(Scores(batch, simple.ap_values(prep, self.k), prep))
        best = self.bph.add(prep)
        if self.kept is not None:
            self._keep(tau_rows, values, prep, best)
        if not per_group:
            return None
        return _position.group_records(batch, prep, {"tau": np.asarray(tau_rows.tau), **values,
                                                     "best_predicted": best})

    def _keep(self, tau_rows, values, prep, best) -> None:
        """Per-group statistics of every row that gets an interval."""
        from ..measures import simple
        from ..stats.resample import tau_raw

        self.kept.add("tau_micro", tau_raw(tau_rows.counts))
        self.kept.add("tau_macro", tau_rows.tau)
        for name, key in (("mrr", "rr"), ("ndcg", "ndcg"), ("err", "err"), ("rankdcg", "rankdcg")):
            self.kept.add(name, values[key])
        if self.k is not None:
            self.kept.add(f"p@{self.k}", simple.precision_values(prep, self.k))
            self.kept.add(f"map@{self.k}", simple.ap_values(prep, self.k))
        self.kept.add("avg_predicted", best)

    def intervals(self) -> dict:
        """measure name -> (ci_low, ci_high), all from one set of resampled groups."""
        from ..stats.resample import MeanStat, TauMicroStat, bootstrap_intervals

        names = ["tau_micro", "tau_macro", *self.means, "avg_predicted"]
        stats = [TauMicroStat(self.tau.variant)] + [MeanStat()] * (len(names) - 1)
        r = self.resampling
        from ..pipeline import phase

        with phase(f"bootstrap ({r.replicates} replicates)"):
            found = bootstrap_intervals(stats, [self.kept.get(n) for n in names], r.level, r.replicates, r.seed)
        return dict(zip(names, found))

    def _tie_statistics(self, counts) -> None:
        all_pairs = counts.C + counts.D + counts.T_h + counts.T_m + counts.T_hm
        tied = counts.T_m + counts.T_hm
        self.pairs += int(all_pairs.sum())
        self.pred_tied_pairs += int(tied.sum())
        self.groups_with_pairs += int((all_pairs > 0).sum())
        self.groups_with_pred_ties += int((tied > 0).sum())

    def records(self) -> list[dict]:
        """The summary: one record per measure (with ci_low, ci_high under --ci)."""
        from ..measures.err import format_rel_max
        from ..signature import signature

        intervals = self.intervals() if self.resampling else {}
        resampled = self.resampling.signature() if self.resampling else {}

        def row(measure, value, groups, undefined, name, **settings):
            extra = resampled if measure in intervals else {}
            record = _row(measure, value, groups, undefined,
                          signature(name, **settings, exclude=self.exclude, **extra))
            if self.resampling:
                record = _position.with_interval(record, "value", intervals.get(measure, (None, None)))
            return record

        t = self.tau.summary()
        defined = t.groups - t.undefined
        # gold grades (higher = better) and --higher-better decide how tau orients the pairs
        oriented = dict(relevance=self.settings["relevance"], scores=self.settings["scores"])
        rows = [
            row("tau_micro", t.micro, defined, t.undefined, "tau", ties=t.variant, avg="micro", **oriented),
            row("tau_macro", t.macro, defined, t.undefined, "tau", ties=t.variant, avg="macro", **oriented),
            row("tau_p", t.p, defined, t.undefined, "tau", ties=t.variant, test="S", **oriented),
        ]
        for name, value in (("concordant", t.C), ("discordant", t.D), ("gold_ties", t.T_h),
                            ("pred_ties", t.T_m), ("both_ties", t.T_hm)):
            rows.append(row(f"tau_{name}", value, t.groups, None, "tau", ties=t.variant, **oriented))
        rows.append(row("pred_tied_pairs_pct", _pct(self.pred_tied_pairs, self.pairs), t.groups, None,
                        "pred_tied_pairs_pct", of="all-pairs"))
        rows.append(row("groups_with_pred_ties_pct", _pct(self.groups_with_pred_ties, self.groups_with_pairs),
                        self.groups_with_pairs, t.groups - self.groups_with_pairs, "groups_with_pred_ties_pct",
                        of="groups-with-a-pair"))
        sig = dict(self.settings)
        per_measure = {"ndcg": dict(k=self.k, gain=self.gain),
                       "err": dict(k=self.k, rel_max=format_rel_max(*self.rel_max)),
                       f"p@{self.k}": dict(k=self.k), f"map@{self.k}": dict(k=self.k)}
        for name, summary in self.means.items():
            rows.append(row(name, summary.mean, summary.defined, summary.undefined,
                            name.split("@")[0], **per_measure.get(name, {}), **sig))
        for rank, count in self.bph.counts().items():
            rows.append(row(f"bph_{rank}", count / self.bph.groups, self.bph.groups, self.bph.empty, "bph", **sig))
        rows.append(row("avg_predicted", self.bph.average, self.bph.groups, self.bph.empty, "avg_predicted",
                        **sig))
        rows.append(row("blanks", self.blanks, None, None, "blanks"))
        rows.append(row("missing_pred", self.missing_pred, None, None, "missing_pred",
                        rule=sig["missing_pred"]))
        return rows


def _row(measure, value, groups, undefined, sig) -> dict:
    return {"measure": measure, "value": value, "groups": groups, "undefined": undefined, "signature": sig}


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else float("nan")
