"""The registry of trec_eval's measures: one small declarative :class:`Definition` per
measure (its ``m_*.c`` file), in the order trec_eval computes and prints them
(``measures.c``), and trec_eval's named sets of measures.

A definition says what a measure reads (qrels, judgment groups or preferences), how its
parameters are written and what they default to, how its values are named, and how a
run's value is formed from the queries' (mean, sum, geometric mean, count, or none for
strings). The function that computes it takes a batch of per-query intermediates
(:class:`~rankeval_cli.measures.trec.queries.QueryBatch` and its kin) and the parameters,
and returns one column per value name; its docstring gives the equation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

#: parameter kinds, as trec_eval's ``meas_init.c`` reads a ``-m NAME.PARAMS`` string:
#: cut-offs (integers > 0, sorted, one value each), fractions (numbers, sorted, one value
#: each), numbers (in order, one value in all), pairs (``name=number``, one value in all)
PARAM_KINDS = ("none", "cutoffs", "fractions", "numbers", "pairs")
#: how a run's value is formed from its queries'
SUMMARIES = ("mean", "sum", "gmean", "queries", "runid", "none")


@dataclass(frozen=True)
class Params:
    """A measure's parameters: ``values`` as read, ``text`` the string given (None = defaults)."""

    values: tuple = ()
    text: str | None = None


@dataclass(frozen=True)
class Definition:
    """One trec_eval measure (see the module docstring)."""

    name: str
    source: str  # trec_eval's file
    compute: Callable = field(repr=False, compare=False)
    kind: str = "none"
    default: tuple = ()
    summary: str = "mean"
    value: str = "float"  # float, int (printed as an integer) or str
    per_query: bool = True
    reads: str = "qrels"  # qrels, qrels_jg or prefs
    expected: Callable | None = field(default=None, repr=False, compare=False)
    since: int = 9  # first trec_eval version with the measure
    in_trec_eval: bool = True  # compiled into trec_eval 10.0's binary

    def defaults(self) -> Params:
        return Params(self.default, None)

    def value_names(self, params: Params) -> list[str]:
        """The names trec_eval prints: ``P_5`` per cut-off, ``iprec_at_recall_0.10`` per
        fraction (``%3.2f``), ``utility_2,-1,0,0`` for a given parameter string."""
        if self.kind == "cutoffs":
            return [f"{self.name}_{k}" for k in params.values]
        if self.kind == "fractions":
            return [f"{self.name}_{x:3.2f}"[:len(self.name) + 9] for x in params.values]
        if params.text is not None and self.kind in ("numbers", "pairs"):
            return [f"{self.name}_{params.text}"]
        return [self.name]

    @property
    def summed(self) -> bool:
        return self.summary == "sum"


REGISTRY: dict[str, Definition] = {}


def register(definition: Definition) -> Definition:
    assert definition.name not in REGISTRY, definition.name
    assert definition.kind in PARAM_KINDS and definition.summary in SUMMARIES
    REGISTRY[definition.name] = definition
    return definition


def measure(name: str, source: str, **options):
    """Decorator: register the decorated function as the measure ``name`` of ``source``."""
    def wrap(compute):
        register(Definition(name, source, compute, **options))
        return compute
    return wrap


def expected_of(name: str):
    """Decorator: the decorated function is the ``expected`` tie policy's kernel of ``name``."""
    def wrap(kernel):
        definition = REGISTRY[name]
        REGISTRY[name] = Definition(**{**definition.__dict__, "expected": kernel})
        return kernel
    return wrap


#: trec_eval 10.0's order (``measures.c``: te_trec_measures), which is the order of its output
ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg",
    "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
    # in m_ndcg_p.c, which trec_eval 10.0's Makefile and measures.c leave out
    "ndcg_p",
)

#: trec_eval's named sets (``measures.c``: te_trec_measure_nicknames), per version
SETS = {
    10: {
        "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                     "recip_rank", "iprec_at_recall", "P"),
        "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                "set_relative_P", "set_map", "set_F"),
        "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                     "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                     "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                     "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                     "set_map", "set_F", "num_nonrel_judged_ret"),
        "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                      "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                      "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                      "prefs_pair_imp", "prefs_avgjg_imp"),
        "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg"),
        "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    },
}
SETS[9] = {**SETS[10], "all_trec": tuple(n for n in SETS[10]["all_trec"] if n not in ("unj", "rbp", "rbp_resid"))}


def definitions(version: int = 10, trec_eval_only: bool = False) -> list[Definition]:
    """Every measure of a trec_eval version, in its order."""
    _load()
    return [REGISTRY[n] for n in ORDER
            if REGISTRY[n].since <= version and (REGISTRY[n].in_trec_eval or not trec_eval_only)]


def get(name: str, version: int = 10, trec_eval_only: bool = False) -> Definition | None:
    _load()
    d = REGISTRY.get(name)
    if d is None or d.since > version or (trec_eval_only and not d.in_trec_eval):
        return None
    return d


def _load() -> None:
    """Import the measure families (each registers its measures on import)."""
    from . import average, counts, gain, groups, precision, preferences  # noqa: F401
