"""RankEval 2013's report (``rankeval report``): every segment-level measure of MT rankings in
one pass over the stream (Avramidis 2013 §3): Kendall's tau (micro, macro, its S test and pair
counts), the share of tied predictions, MRR, NDCG, ERR, rankDCG, P@k and MAP@k, BPH shares and the
average predicted rank, keeping only sums and counts (and, for bootstrap intervals, a few numbers
per group).
"""

from __future__ import annotations

import numpy as np

from ..measures import dcg, err, rankdcg, rr, simple
from ..measures.err import format_rel_max
from ..measures.simple import BPHSummary
from ..measures.tau import TauAccumulator
from ..measures.ties import MeanSummary, Scores, prepare_batch
from ..pipeline import phase
from ..settings import Positions
from ..signature import signature
from ..vocabulary import DEFAULT_GAIN, DEFAULT_TAU_VARIANT, POSITION_MEASURES
from .group_means import group_records
from .intervals import with_interval
from .resample import GroupColumns, MeanStat, TauMicroStat, bootstrap_intervals, tau_raw


class Report:
    """Streaming accumulator of every measure of the report (sums and counts only)."""

    def __init__(self, positions: Positions = Positions(), *, tau_variant=DEFAULT_TAU_VARIANT, k=None,
                 gain=DEFAULT_GAIN, rel_max=("n", None), resampling=None, exclude=None):
        """``positions``: how the rank-position measures read a group; ``rel_max``: ERR's parsed
        --rel-max; ``resampling``: the bootstrap of --ci; ``exclude``: the signature's --exclude-systems."""
        self.settings = positions.signature()
        self.prepare_options = positions.preparation()
        self.k, self.gain, self.rel_max = k, gain, rel_max
        self.tau = TauAccumulator(tau_variant)
        self.means = {name: MeanSummary(name) for name in POSITION_MEASURES}
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
        return group_records(batch, prep, {"tau": np.asarray(tau_rows.tau), **values, "best_predicted": best})

    def _keep(self, tau_rows, values, prep, best) -> None:
        """Per-group statistics of every row that gets an interval."""
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
        names = ["tau_micro", "tau_macro", *self.means, "avg_predicted"]
        stats = [TauMicroStat(self.tau.variant)] + [MeanStat()] * (len(names) - 1)
        r = self.resampling
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
        intervals = self.intervals() if self.resampling else {}
        resampled = self.resampling.signature() if self.resampling else {}

        def row(measure, value, groups, undefined, name, **settings):
            extra = resampled if measure in intervals else {}
            record = _row(measure, value, groups, undefined,
                          signature(name, **settings, exclude=self.exclude, **extra))
            if self.resampling:
                record = with_interval(record, "value", intervals.get(measure, (None, None)))
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
