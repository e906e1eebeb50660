"""The registry of IR measures (the base every measure family imports; it imports none).

A measure is one declaration in its family's file (:func:`measure`): the function that
computes it from a batch of per-query intermediates (its docstring gives the equation and
its source), with

- its names: trec_eval's spelling where trec_eval has the measure (``name``), and the
  ir_measures spellings that reach it (:func:`spelling`: a name, its aliases, typed
  parameters with their defaults, and the ``@`` parameter);
- its parameters: for trec_eval's ``NAME.PARAMS`` grammar a ``kind`` (cut-offs, fractions,
  numbers, ``name=value`` pairs) and a default; for the measures trec_eval lacks, the
  named parameters of their spelling (``kind="named"``);
- its expected value over the orders of tied scores (``@compute.expected``), or an explicit
  statement (:data:`ORDER_FREE`, :func:`one_order`) that ``--tie-policy expected`` names;
- what it reads (qrels, judgment groups, preferences, diversity qrels, document groups),
  how a run's value is formed from its queries', and where trec_eval prints it
  (``position``: its place in trec_eval 10.0's ``measures.c``, None for the others).

The tables are filled by importing the families: :mod:`rankeval_cli.measures.trec` (the
package imports trec_eval's families) and :mod:`rankeval_cli.measures.families` (the rest).
Nothing here imports a family, so the registry and the families form no cycle; the name
parser, ``--help``, completion, the man pages and the docs' measure tables read these tables.
Programs outside the package read the public listing instead:
:func:`rankeval_cli.measures.trec.catalogue.listing` (every measure once, with its parameters and
spellings) and :func:`~rankeval_cli.measures.trec.catalogue.spellings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

#: parameter kinds, as trec_eval's ``meas_init.c`` reads a ``-m NAME.PARAMS`` string:
#: cut-offs (integers > 0, sorted, one value each), fractions (numbers, sorted, one value
#: each), numbers (in order, one value in all), pairs (``name=number``, one value in all);
#: ``named``: the typed parameters of a measure trec_eval lacks (one value in all)
PARAM_KINDS = ("none", "cutoffs", "fractions", "numbers", "pairs", "named")
#: how a run's value is formed from its queries' (``defined``: the mean over the queries where it is
#: defined, the per-query value NaN elsewhere)
SUMMARIES = ("mean", "sum", "gmean", "defined", "queries", "runid", "none")
#: what a measure reads besides the ranking
READS = ("qrels", "qrels_jg", "prefs", "any", "diversity", "groups")
#: which way is better (``table --best auto``, the docs)
BETTER = ("higher", "lower", "none")


@dataclass(frozen=True)
class Params:
    """A measure's parameters: ``values`` as read, ``text`` the string given (None = defaults).
    Named parameters are ``(name, value)`` pairs in the order of their declaration."""

    values: tuple = ()
    text: str | None = None

    def named(self) -> dict:
        return dict(self.values)


@dataclass(frozen=True)
class Ties:
    """What ``--tie-policy expected`` computes: the kernel attached with ``@f.expected``
    (``expected``), the measure itself (``order-free``: no order of tied documents changes
    it), or nothing (``one-order``: ``note`` says why; the policy names it in its error)."""

    kind: str
    note: str = ""


EXPECTED = Ties("expected")
ORDER_FREE = Ties("order-free")


def one_order(note: str) -> Ties:
    """The statement of a measure defined under one order of tied documents only."""
    return Ties("one-order", note)


@dataclass(frozen=True)
class Param:
    """A typed parameter of an ir_measures spelling (``NAME(param=value)``).

    ``type``: ``int``, ``float``, ``bool``, ``str`` or ``gains`` (a ``{grade: gain}`` dict);
    ``default`` None = not given; ``low``: the smallest value allowed; ``choices``: the
    values allowed."""

    name: str
    type: str
    default: object = None
    doc: str = ""
    required: bool = False
    low: float | None = None
    choices: tuple = ()

    def check(self, value):
        """``value`` as this parameter takes it, or a ValueError saying what it must be."""
        if value is None and not self.required:
            return None
        kind = {"int": int, "float": (int, float), "bool": bool, "str": str, "gains": dict}[self.type]
        if isinstance(value, bool) and self.type != "bool" or not isinstance(value, kind):
            raise ValueError(f"{self.name} must be {self.describe()}")
        if self.type == "gains" and not all(isinstance(k, int) and not isinstance(k, bool) and
                                            isinstance(v, (int, float)) and not isinstance(v, bool)
                                            for k, v in value.items()):
            raise ValueError(f"{self.name} must be {self.describe()}")
        if self.low is not None and value < self.low:
            raise ValueError(f"{self.name} must be {self.describe()}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(map(repr, self.choices))}")
        return float(value) if self.type == "float" else value

    def describe(self) -> str:
        what = {"int": "an integer", "float": "a number", "bool": "True or False", "str": "a string",
                "gains": "a {grade: gain} dict of numbers"}[self.type]
        return what + (f" >= {self.low:g}" if self.low is not None else "")


@dataclass(frozen=True)
class Spelling:
    """An ir_measures spelling, ``NAME``, ``NAME@AT``, ``NAME(param=value, ...)``: its names,
    its parameters, the one ``@`` sets, the ir_measures provider that computes it (``peer``),
    examples of it, and ``resolve(name, args, version)``, which gives the :class:`Measure` it
    names (``args``: every parameter, checked, defaults filled in)."""

    name: str
    resolve: Callable = field(repr=False, compare=False)
    params: tuple = ()
    at: str | None = None
    aliases: tuple = ()
    presets: tuple = ()  # (alias, {param: value}): an alias that sets parameters (SetRelP)
    peer: str = ""  # the ir_measures provider that computes it ("" = none: rankeval's own)
    examples: tuple = ()  # spellings shown in the docs and compared with the peer in the tests

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Definition:
    """One measure (see the module docstring)."""

    name: str
    source: str  # trec_eval's file, or the paper / peer that defines it
    compute: Callable = field(repr=False, compare=False)
    kind: str = "none"
    default: tuple = ()
    summary: str = "mean"
    value: str = "float"  # float, int (printed as an integer) or str
    per_query: bool = True
    reads: str = "qrels"
    expected: Callable | None = field(default=None, repr=False, compare=False)
    ties: Ties = EXPECTED
    since: int = 9  # first trec_eval version with the measure
    in_trec_eval: bool = True  # compiled into trec_eval 10.0's binary
    position: int | None = None  # its place in trec_eval 10.0's measures.c
    family: str = ""
    better: str = "higher"
    named: tuple = ()  # the Param of each named parameter (kind "named")

    def defaults(self) -> Params:
        if self.kind == "named":
            return Params(tuple((p.name, p.default) for p in self.named), None)
        return Params(self.default, None)

    def value_names(self, params: Params) -> list[str]:
        """The names trec_eval prints: ``P_5`` per cut-off, ``iprec_at_recall_0.10`` per
        fraction (``%3.2f``), ``utility_2,-1,0,0`` for a given parameter string."""
        if self.kind == "cutoffs":
            return [f"{self.name}_{k}" for k in params.values]
        if self.kind == "fractions":
            return [f"{self.name}_{x:3.2f}"[:len(self.name) + 9] for x in params.values]
        if params.text is not None and self.kind in ("numbers", "pairs", "named"):
            return [f"{self.name}_{params.text}"]
        return [self.name]

    @property
    def summed(self) -> bool:
        return self.summary == "sum"

    @property
    def doc(self) -> str:
        """The equation and its source: the docstring of the function that computes it."""
        return self.compute.__doc__ or ""


@dataclass(frozen=True)
class Measure:
    """One value of one measure: what ``-m`` names, and how it is computed.

    ``root``/``params``/``index``: the registry measure, its parameters and which of its
    values (``P.5,10`` has two). ``rel_level``, ``judged_only``, ``grade_map``, ``depth``: this
    measure's own settings (None = the command's)."""

    name: str
    root: str | None = None
    params: Params = field(default_factory=Params)
    index: int = 0
    rel_level: int | None = None
    judged_only: bool = False
    grade_map: tuple | None = None
    depth: int | None = None

    @property
    def definition(self) -> Definition | None:
        return REGISTRY.get(self.root) if self.root else None

    @property
    def summed(self) -> bool:
        d = self.definition
        return bool(d and d.summary in ("sum", "queries"))

    @property
    def kind(self) -> str:
        """The family, for signatures: ``ndcg`` (gains), ``err`` (its scale), or the root."""
        return {"ndcg_cut": "ndcg", "ndcg_exp": "ndcg", "rr_cut": "recip_rank"}.get(self.root, self.root)

    def variant(self, rel_level: int):
        """The per-query intermediates this measure reads: (ℓ, -J, grade map, depth)."""
        return (self.rel_level if self.rel_level is not None else rel_level, self.judged_only, self.grade_map,
                self.depth)


#: every measure by its registry name, in the order the families registered them
REGISTRY: dict[str, Definition] = {}
#: every ir_measures spelling by each of its names (the name and its aliases)
SPELLINGS: dict[str, Spelling] = {}


def register(definition: Definition) -> Definition:
    if definition.name in REGISTRY:
        raise ValueError(f"measure {definition.name} registered twice")
    if definition.kind not in PARAM_KINDS or definition.summary not in SUMMARIES or \
            definition.reads not in READS or definition.better not in BETTER:
        raise ValueError(f"measure {definition.name}: kind, summary, reads or better unknown")
    REGISTRY[definition.name] = definition
    return definition


def measure(name: str, source: str, **options):
    """Decorator: register the decorated function as the measure ``name`` of ``source``.

    The function gets an ``expected`` decorator: ``@f.expected`` registers the kernel of
    the expected tie policy (``ties`` then stays :data:`EXPECTED`)."""
    def wrap(compute):
        ties = options.get("ties", EXPECTED)
        expected = compute if ties.kind == "order-free" else None
        register(Definition(name, source, compute, **{**options, "expected": expected}))

        def attach(kernel):
            REGISTRY[name] = Definition(**{**REGISTRY[name].__dict__, "expected": kernel})
            return kernel

        compute.expected = attach
        compute.measure_name = name
        return compute
    return wrap


def spelling(name: str, **options) -> Callable:
    """Decorator: register the decorated function as ``resolve`` of the ir_measures spelling
    ``name`` (see :class:`Spelling`)."""
    def wrap(resolve):
        entry = Spelling(name, resolve, **{"examples": (name,), **options})
        for key in (name, *entry.aliases, *(alias for alias, _ in entry.presets)):
            if key in SPELLINGS:
                raise ValueError(f"ir_measures name {key} registered twice")
            SPELLINGS[key] = entry
        return resolve
    return wrap


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


def _order(d: Definition):
    """trec_eval's measures in measures.c's order, then every other in the order registered."""
    return (d.position is None, d.position if d.position is not None else 0)


def definitions(version: int = 10, trec_eval_only: bool = False, family: str | None = None) -> list[Definition]:
    """Every registered measure of a trec_eval version: trec_eval's in its order, then the rest."""
    return sorted((d for d in REGISTRY.values()
                   if d.since <= version and (d.in_trec_eval or not trec_eval_only)
                   and (family is None or d.family == family)), key=_order)


def get(name: str, version: int = 10, trec_eval_only: bool = False) -> Definition | None:
    d = REGISTRY.get(name)
    if d is None or d.since > version or (trec_eval_only and not d.in_trec_eval):
        return None
    return d
