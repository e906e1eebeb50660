"""Options and the run shared by the commands that rank systems from rankings (``aggregate``,
``borda``, ``correlate``, ``plot``): partitions, direction and Borda's rules, the methods' own
options, rank ranges; reading, aggregating and writing the table.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..vocabulary import (AGGREGATION_METHODS, BORDA_MISSING, BORDA_POINTS, BT_TIES, DEFAULT_LEVEL,
                          DEFAULT_REPLICATES, DEFAULT_SEED, FV_DENOMINATORS)
from . import _ci, _common
from ._groups import option_group

METHOD_NAMES = tuple(AGGREGATION_METHODS)


@dataclass(frozen=True)
class RankingOptions:
    """--by, --higher-better, and Borda's --missing and --points."""

    by: tuple = ()
    higher_better: bool = False
    borda_missing: str = "ignore"
    borda_points: str = "n-r"

    def rules(self) -> dict:
        """Borda's keywords (:func:`rankeval_cli.aggregate.methods.borda`)."""
        return dict(borda_missing=self.borda_missing, borda_points=self.borda_points)


@dataclass(frozen=True)
class MethodOptions:
    """--fv-denominator, --approximate (kemeny), --bt-alpha, --bt-ties (bradley-terry)."""

    fv_denominator: str = "pair"
    approximate: bool = False
    bt_alpha: float = 0.01
    bt_ties: str = "ignore"

    def keywords(self, ranking: RankingOptions) -> dict:
        """Every method's keywords, Borda's rules of ``ranking`` first (the order of the signature)."""
        return dict(ranking.rules(), fv_denominator=self.fv_denominator, approximate=self.approximate,
                    bt_alpha=self.bt_alpha, bt_ties=self.bt_ties)


def ranking_options(f):
    """Options shared by ``aggregate``, ``borda`` and ``correlate``: partitions, direction, Borda rules;
    the command's ``ranking`` (:class:`RankingOptions`)."""
    f = click.option("--points", "borda_points", type=click.Choice(BORDA_POINTS), default="n-r",
                     show_default=True,
                     help="Borda points: N-r or N-r+1\f"
                          "Borda points for position r of an N-list: N-r (2,1,0 for three items) "
                          "or N-r+1 (3,2,1).")(f)
    f = click.option("--missing", "borda_missing", type=click.Choice(BORDA_MISSING), default="ignore",
                     show_default=True,
                     help="Borda: absent items [default: ignore]\f"
                          "Borda: items absent from a list (or blank in it) earn nothing and the list counts "
                          "only its ranked items (ignore), or share the bottom positions of a list extended "
                          "to all items (bottom).")(f)
    f = _common.higher_better_option("Values are scores (higher = better), not ranks []\f"
                                     "The aggregated values are scores (higher = better), not ranks.",
                                     aliases=())(f)
    f = _common.by_option("One ranking per value of this column (e.g. lp)\f"
                          "One ranking per value of this extra column (e.g. lp); repeatable. "
                          "The value must be constant within a group.")(f)
    return option_group(f, "ranking", ("by", "higher_better", "borda_missing", "borda_points"), RankingOptions)


def method_options(f):
    """The options of single methods: the command's ``methods`` (:class:`MethodOptions`)."""
    f = click.option("--bt-ties", type=click.Choice(BT_TIES), default="ignore", show_default=True,
                     help="bradley-terry: ties [default: ignore]\f"
                          "bradley-terry: drop tied comparisons, or count each as half a win per side.")(f)
    f = click.option("--bt-alpha", type=_common.FiniteFloat(min=0, min_open=True), default=0.01, show_default=True,
                     metavar="ALPHA",
                     help="bradley-terry: L2 penalty alpha\f"
                          "bradley-terry: L2 penalty alpha*sum(theta^2) (choix's convention).")(f)
    f = click.option("--approximate", is_flag=True,
                     help="kemeny: local search (beyond 20 items)\f"
                          "kemeny: local search instead of the exact search (required beyond 20 items).")(f)
    f = click.option("--fv-denominator", type=click.Choice(FV_DENOMINATORS), default="pair",
                     show_default=True,
                     help="fv: P_ij over pairs or all groups\f"
                          "fv: P_ij over the comparisons of i and j (pair) or over all groups (all, "
                          "Duh 2008's wording).")(f)
    return option_group(f, "methods", ("fv_denominator", "approximate", "bt_alpha", "bt_ties"), MethodOptions)


#: --ci LEVEL, --bootstrap N, --seed S as every command has them: here for rank ranges and clusters.
bootstrap_options = _ci.resampling_options(
    ci_help="Rank ranges and clusters at this level\f"
            "Resample the groups and give each system its rank range at this level (rank_ci_low, rank_ci_high; "
            "e.g. 0.95) and WMT13-style clusters.",
    bootstrap_help="Bootstrap replicates [default: 1000]\f"
                   f"Bootstrap replicates [default: {DEFAULT_REPLICATES}]; given alone it implies --ci 0.95.",
    seed_help="Seed of the bootstrap\f"
              f"Seed of the bootstrap (replicate b uses a generator spawned from it) [default: {DEFAULT_SEED}].")


@dataclass(frozen=True)
class Aggregation:
    """What ``aggregate`` or ``borda`` ranks: the ``method`` and its ``keywords``, on which ``column``,
    per ``by`` key, in which direction; ``command`` names the signature."""

    method: str
    column: str
    by: tuple
    higher_better: bool
    keywords: dict
    command: str = "aggregate"


def run_and_write(inputs, output, aggregation: Aggregation, resampling, single_seed: int = 0) -> None:
    """Read, aggregate and write the table (or, ``--output-format trec``, the rankings as a run).

    ``resampling`` is the resolved --ci/--bootstrap/--seed (None: no rank ranges);
    ``single_seed`` seeds TrueSkill's one run when there is no resampling.
    """
    from ..aggregate.ranking_records import ranking_records

    bootstrap, seed, level = ((resampling.replicates, resampling.seed, resampling.level) if resampling
                              else (0, single_seed, None))
    rankings = compute(inputs.read(), aggregation, bootstrap, seed, level=level)
    if output.format == "trec":
        with output.stream() as out:
            write_rankings_as_run(out, rankings, aggregation.method)
        return
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(ranking_records(rankings, aggregation.by, aggregation.column, aggregation.method,
                                         aggregation.keywords, seed=seed, level=level, command=aggregation.command))


def write_rankings_as_run(out, rankings, method):
    """Each ranking as one query of a TREC run: qid = the --by values joined by '/' (or 'all'),
    docno = item, in ranking order; items without a score are left out. Such runs can be fused."""
    import numpy as np

    from ..errors import DataError
    from ..formats.trec.write import write_run

    for ranking in rankings:
        keep = ~np.isnan(ranking.scores)
        items = np.asarray([str(i) for i in ranking.items], dtype=str)[keep]
        if any(any(ch.isspace() for ch in i) for i in items.tolist()):
            raise DataError("an item id holds white space and cannot be a TREC docno")
        qid = "/".join(str(k) for k in ranking.key) or "all"
        write_run(out, np.full(len(items), qid.replace(" ", "_")), items, ranking.ranks[keep],
                  ranking.scores[keep], method)


def compute(batches, aggregation: Aggregation, bootstrap: int, seed: int, level=DEFAULT_LEVEL):
    """The rankings, with data errors mapped for the command line and counts reported."""
    from ..aggregate.kemeny import TooManyItems
    from ..aggregate.ranking_records import report_counts
    from ..aggregate.run import aggregate
    from ..errors import DataError
    from ..pipeline import phase

    method, by, higher_better = aggregation.method, aggregation.by, aggregation.higher_better
    try:
        with phase(f"{method}" + (f" x {bootstrap} replicates" if bootstrap else "")):
            rankings = aggregate(batches, method, column=aggregation.column, by=by, gold_higher_better=higher_better,
                                 pred_higher_better=higher_better, bootstrap=bootstrap, seed=seed,
                                 level=level or DEFAULT_LEVEL, **aggregation.keywords)
    except TooManyItems as exc:
        raise DataError(f"{exc} (--approximate)") from None
    report_counts(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no ranked groups in the input")
    return rankings
