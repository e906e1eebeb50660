"""The vocabulary of the command line: every option's values and defaults, and the help of the
options many commands share, each written once.

The commands build their click options from these names (so ``--help``, the man pages of
``scripts/gen-man`` and shell completion all show them), the library checks its arguments
against the same tuples, and docs/vocabulary.md's table of values is :func:`markdown_table`
(``scripts/gen-man`` rewrites it; a test keeps it equal). Like sacreBLEU's command line reading
``METRICS['BLEU'].SMOOTH_DEFAULTS``, nothing here is copied elsewhere:
tests/test_vocabulary_module.py fails on a second copy of a tuple below.

This module imports nothing heavy (any module may read it, and ``--help`` stays fast).
Fusion methods and their normalizations are the table of :mod:`rankeval_cli.aggregate`.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- streams and output ---------------------------------------------------------------------------

#: the two canonical encodings of a stream of groups
CANONICAL_FORMATS = ("tsv", "jsonl")
#: columnar binary encodings of streams, summaries and runs (pyarrow: the arrow extra)
BINARY_FORMATS = ("parquet", "arrow")
#: the encodings of a stream every command reads and writes
STREAM_ENCODINGS = (*CANONICAL_FORMATS, *BINARY_FORMATS)
#: what --input-format auto recognises: the canonical encodings, JCML, Parquet and Arrow
STREAM_FORMATS = (*CANONICAL_FORMATS, "jcml", *BINARY_FORMATS)
INPUT_FORMATS = ("auto", *STREAM_FORMATS)
#: formats written only when the input ends (one table)
TABLE_FORMATS = ("markdown", "latex")
#: formats of commands that write summary records
SUMMARY_FORMATS = (*CANONICAL_FORMATS, *TABLE_FORMATS, *BINARY_FORMATS)
#: summary formats that are text (``table`` adds its legend and notes below the records)
TEXT_SUMMARY_FORMATS = (*CANONICAL_FORMATS, *TABLE_FORMATS)
#: summary formats of the commands that also print trec_eval's lines
IR_SUMMARY_FORMATS = (*SUMMARY_FORMATS, "trec")
#: old spellings of output formats, accepted but not shown
FORMAT_ALIASES = {"json": "jsonl", "md": "markdown", "tex": "latex"}
#: ``convert --from`` readers
READERS = ("auto", "tsv", "jsonl", "jcml", "wmt-rr", "wmt-scores", "darr", "wmt-da", "wmt-da-scores", "appraise",
           "mqm", "letor", "trec")
#: which values ``normalize``, ``aggregate`` and ``borda`` work on
VALUE_COLUMNS = ("gold", "pred", "both")
#: the directions of a score (``compare --pred-columns C:higher``)
DIRECTIONS = ("higher", "lower")
SHELLS = ("bash", "zsh", "fish")

# --- rank positions (mrr, ndcg, err, rankdcg, report, compare) ------------------------------------

#: the order of items with tied predictions
TIE_POLICIES = ("pessimistic", "optimistic", "expected", "trec")
DEFAULT_TIE_POLICY = "pessimistic"
#: the tie policy of TREC input (trec_eval's: docno descending)
TREC_TIE_POLICY = "trec"
#: what gold holds: ranks (lower = better) or relevance grades (higher = better)
RELEVANCE = ("ranks", "grades")
DEFAULT_RELEVANCE = "ranks"
#: items with a gold value but no prediction
MISSING_PRED = ("drop", "last", "error")
DEFAULT_MISSING_PRED = "drop"
#: NDCG's gain: 2^rel - 1 or rel
GAINS = ("exp", "linear")
DEFAULT_GAIN = "exp"
TREC_GAIN = "linear"
#: ``--rel-max`` values offered by completion (any ``scale:G`` is accepted)
REL_MAX_VALUES = ("n", "list-max", "scale:4", "scale:3", "scale:2")
#: the rows of ``report``'s MT summary that -m can name (bph = every bph_<rank> row)
REPORT_ROWS = ("tau_micro", "tau_macro", "tau_p", "tau_concordant", "tau_discordant", "tau_gold_ties",
               "tau_pred_ties", "tau_both_ties", "pred_tied_pairs_pct", "groups_with_pred_ties_pct", "mrr", "ndcg",
               "err", "rankdcg", "bph", "avg_predicted", "blanks", "missing_pred")
#: the IR measures of ``report`` and of ``compare``/``power`` when -m is not given (TREC input)
IR_REPORT_MEASURES = ("map", "P_10", "recall_1000", "ndcg", "ndcg_cut_10", "recip_rank", "Rprec", "bpref",
                      "num_ret", "num_rel", "num_rel_ret")
IR_COMPARE_MEASURES = ("map", "ndcg_cut_10", "P_10", "recip_rank")
#: the measures of one rank position each, averaged over groups
POSITION_MEASURES = ("mrr", "ndcg", "err", "rankdcg")
#: what ``compare --measure`` compares without TREC input
COMPARED_MEASURES = ("tau", *POSITION_MEASURES)

# --- Kendall's tau ---------------------------------------------------------------------------------

TAU_VARIANTS = ("penalize", "ignore", "wmt14", "include", "a", "b", "c", "eq", "acc-eq")
DEFAULT_TAU_VARIANT = "penalize"
#: the WMT campaigns' names of their conventions (offered by completion)
TAU_CONVENTIONS = {
    **{f"wmt{y:02d}": "penalize" for y in range(8, 13)},
    "darr": "penalize",
    "wmt13": "ignore",
    "wmt15": "wmt14",
    "wmt16": "wmt14",
}
#: every other name of a variant (accepted, not offered)
TAU_ALIASES = {
    **TAU_CONVENTIONS,
    "tau-a": "a", "tau-b": "b", "tau-c": "c",
    "tau-eq": "eq", "tau23": "eq", "acc23": "acc-eq",
}
#: variants whose tie threshold epsilon can be calibrated
CALIBRATED_VARIANTS = ("eq", "acc-eq")
TAU_AVERAGES = ("micro", "macro")

# --- normalize -------------------------------------------------------------------------------------

#: the rank tied values get
TIED_RANKS = ("minimize", "floor", "ceiling", "middle")

# --- resampling and comparisons --------------------------------------------------------------------

#: seed of every resampling and randomization when none is given (recorded in the signature)
DEFAULT_SEED = 12345
#: bootstrap replicates and randomization trials when none are given
DEFAULT_REPLICATES = 1000
#: the most bootstrap replicates or permutations a run may ask for: p = (count + 1)/(N + 1) stays
#: exact in a float64 below 2^53, and far beyond any run that ends (1e8 takes hours)
MAX_REPLICATES = 10 ** 15
#: the interval level when --bootstrap is given without --ci
DEFAULT_LEVEL = 0.95
TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey", "randomized-tukey")
#: tests of ``compare`` when --test is not given: with TREC input, and otherwise
DEFAULT_IR_TESTS = ("t", "wilcoxon", "randomization")
DEFAULT_MT_TESTS = ("bootstrap", "randomization")
CORRECTIONS = ("none", "holm", "bonferroni", "bh", "by")
#: ``power --design`` and its variance estimates
POWER_DESIGNS = ("t", "anova", "ci")
POWER_VARIANCES = ("within", "residual", "paired")

# --- aggregation -----------------------------------------------------------------------------------

#: methods that rank systems from rankings: name -> one-line description
AGGREGATION_METHODS = {
    "borda": "Borda count, N - r points per list (de Borda 1781)",
    "fv": "Duh's FV heuristic, sum of pairwise preference shares (Duh 2008 §3.2)",
    "ge-others": "share of comparisons won or tied (WMT07-11; Li, Jiang & Wang 2013 §3)",
    "gt-others": "wins / (wins + losses), ties left out (WMT12)",
    "expected-wins": "mean over opponents of the decided-comparison win share (WMT13)",
    "copeland": "pairwise majority wins minus majority losses",
    "kemeny": "Kemeny-Young optimal consensus order (exact up to 20 items)",
    "bradley-terry": "Bradley-Terry log-strength, L2-regularized maximum likelihood",
    "trueskill": "TrueSkill mean skill, WMT14-16 procedure (active sampling, repeated runs)",
}
#: methods on absolute scores (direct assessments): name -> one-line description
SCORE_METHODS = {
    "z-score": "mean per-judge z-score with rank-sum clusters, WMT17-24 procedure",
}
DEFAULT_METHOD = "expected-wins"
BORDA_POINTS = ("n-r", "n-r+1")
BORDA_MISSING = ("ignore", "bottom")
FV_DENOMINATORS = ("pair", "all")
BT_TIES = ("ignore", "half")
#: z-score: what systems are ordered and tested by, and WMT's protocols
RANK_BY = ("z", "raw")
Z_PROTOCOLS = ("wmt20-23", "wmt24")

# --- agreement between runs and reproducibility ---------------------------------------------------

#: ``agree``'s measures (RBO's four values are rbo_ext, rbo_min, rbo_max, rbo_res)
AGREEMENT_MEASURES = ("rbo", "tau-b", "tau-ap", "overlap", "jaccard")
#: RBO's tie variants (Corsi & Urbano 2024)
RBO_TIES = ("w", "a", "b")
#: ``repro``'s IR measures when -m is not given
REPRO_MEASURES = ("map", "P_10", "ndcg")

# --- meta-evaluation -------------------------------------------------------------------------------

#: how segment statistics group the cells
GROUPINGS = ("none", "item", "system")
#: the task weights of the average over tasks (``meta-eval --task-weights``)
TASK_WEIGHTS = ("uniform", "wmt22", "wmt23", "wmt24", "wmt25")
#: the task weights whose average is their task set only (WMT24 and WMT25 define the same one)
TASK_SET_WEIGHTS = ("wmt24", "wmt25")
#: where the permutation trials draw from
PERMUTATION_STREAMS = ("per-pair", "mtme")
#: how soft pairwise accuracy's sign-flip sums are computed
SPA_SUMS = ("exact", "float32")

# --- learning to rank ------------------------------------------------------------------------------

OBJECTIVES = ("ranksvm", "listnet", "listmle", "regression")
RANKSVM_LOSSES = ("squared-hinge", "hinge")
#: sacreBLEU tokenizers that need no extra package
TOKENIZERS = ("13a", "intl", "zh", "char", "none")
#: sacreBLEU's smoothing methods and their default value (k for add-k, the floor for floor)
SMOOTH_DEFAULTS = {"add-k": 1.0, "exp": None, "floor": 0.1, "none": None}
SMOOTH_METHODS = tuple(SMOOTH_DEFAULTS)
#: an item whose reference is empty
MISSING_REF = ("error", "drop")
#: intra-set feature kinds (column suffixes) and the default ones
INTRA_KINDS = ("rank", "best", "worst", "dmean")
DEFAULT_INTRA_KINDS = ("rank", "best", "dmean")

# --- trec_eval, tables and figures -----------------------------------------------------------------

#: ``trec_eval -R``: the formats of the relevance information
TREC_REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
TREC_RESULTS_FORMATS = ("trec_results",)
TREC_EVAL_VERSIONS = ("9", "10")
PLOT_KINDS = ("ranking", "scatter", "distribution", "bars", "significance", "confusion")
FIGURE_FORMATS = ("png", "svg", "pdf")
PLOT_STYLES = ("box", "violin")

# rankeval spans: how span F1 is defined (docs/error-spans.md), and score's output layouts
SPAN_DEFINITIONS = ("wmt25", "wmt24")
SPAN_LAYOUTS = ("records", "mqm")
#: ``table --best``: which value of a column is bold
TABLE_BEST = ("auto", "high", "low", "none")
#: effect sizes of a compare summary
EFFECTS = ("delta", "d_z", "g_z", "es_e")


# --- the options many commands share ---------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One option: its name, help (the line ``--help`` shows, then after ``\\f`` the man page's
    paragraph), values and default (``trec_default``: with TREC input)."""

    name: str
    help: str = ""
    values: tuple = ()
    default: object = None
    trec_default: object = None


TIE_POLICY = Option(
    "--tie-policy",
    "Order of ties: pessimistic, optimistic, expected, trec [default: pessimistic; TREC: trec]\f"
    "Order of items with tied predictions: pessimistic = worst gold first (for RR: the ceiling "
    "rank, as RankEval 2013), optimistic = best first, expected = exact mean over random "
    "orders of each tied block, trec = item id descending (trec_eval's docno order) "
    "[default: trec with TREC input, else pessimistic].", TIE_POLICIES, DEFAULT_TIE_POLICY, TREC_TIE_POLICY)
RELEVANCE_OPTION = Option(
    "--relevance",
    "Gold: ranks or relevance grades [default: ranks]\f"
    "ranks: gold holds ranks, relevance = n - rank + 1 over ceiling ranks (Avramidis 2013); "
    "grades: gold holds graded relevance, higher = better (IR qrels).", RELEVANCE, DEFAULT_RELEVANCE)
MISSING_PRED_OPTION = Option(
    "--missing-pred",
    "No prediction: drop, last or error [default: drop]\f"
    "Items with a gold value but no prediction: drop them (as tau does), rank them last "
    "(tied), or stop with an error. Counted either way.", MISSING_PRED, DEFAULT_MISSING_PRED)
HIGHER_BETTER = Option(
    "--higher-better",
    "Values are scores (higher = better), not ranks []\f"
    "pred (and gold, unless --relevance grades) are scores, higher = better [default: ranks, "
    "lower = better].")
TAU_VARIANT = Option(
    "--tau-variant",
    "Tie convention (man rankeval-tau)\f"
    "Tau variant (tie convention): penalize (WMT08-12, DARR), "
    "ignore (WMT13), wmt14 (WMT14-16), include, a, b (scipy), c, eq, acc-eq (WMT23-25); aliases "
    "wmt08..wmt16, darr; case-insensitive. Definitions: docs/definitions.md#tau.",
    TAU_VARIANTS, DEFAULT_TAU_VARIANT)
BY = Option(
    "--by",
    "One summary per value of this column (e.g. lp)\f"
    "One summary per value of this extra column (e.g. lp), rows keyed by its "
    "value; repeatable. The value must be constant within a group.")
INPUT_FORMAT = Option(
    "--input-format", "Input encoding; auto sniffs JSON lines by a leading '{', JCML by '<', Parquet and "
    "Arrow by their magic bytes.", INPUT_FORMATS,
    "auto")
EXCLUDE_SYSTEMS = Option(
    "--exclude-systems",
    "Drop items whose id matches a shell pattern\f"
    "Drop items whose id matches this shell-style pattern (e.g. '_ref', 'Human-*'); "
    "repeatable. The number of rows dropped goes to stderr.")
OUTPUT = Option(
    "--output",
    "Write here instead of stdout\f"
    "Write here instead of stdout; a file is replaced only when the run succeeds; "
    "a .gz, .bz2 or .xz name is compressed.", default="-")
DIGITS = Option(
    "--digits",
    "Decimal places\f"
    "Round numbers to N decimal places [default: 4 in markdown and latex tables, "
    "every digit otherwise].")
JOBS = Option(
    "--jobs",
    "Processes at work (0 = one per CPU)\f"
    "Processes at work on the independent work units, this one included, where the work pays for "
    "them (a small input stays in one process); 0 = one per CPU [default: $RANKEVAL_JOBS, else 1]. "
    "The output does not depend on N.")
SCHEDULER = Option(
    "--scheduler",
    "A dask.distributed scheduler to run on\f"
    "Run the work units on this dask.distributed scheduler (e.g. tcp://host:8786) "
    "[default: $RANKEVAL_SCHEDULER; needs the dask extra].")
QRELS = Option(
    "--qrels",
    "TREC qrels: the FILES are then TREC runs\f"
    "TREC qrels (qid iter docno rel): the FILES are then TREC runs (qid Q0 docno rank score tag), "
    "joined and evaluated as trec_eval does; one summary per run.")
REL_LEVEL = Option(
    "--rel-level",
    "TREC: grade >= N is relevant (-l)\f"
    "With TREC input: grade >= N is relevant for the binary measures (trec_eval -l).", default=1)
DEPTH = Option(
    "--depth",
    "TREC: only the first N documents count (-M)\f"
    "With TREC input: only the first N documents of each ranking count (trec_eval -M).")
ALL_QUERIES = Option(
    "--all-queries",
    "TREC: also average the qrels' other queries (-c)\f"
    "With TREC input: also average over the qrels' queries the run lacks, each with the value of "
    "an empty ranking (trec_eval -c). Default: only queries in both files.")
DOC_GROUPS = Option(
    "--doc-groups",
    "TREC: documents' groups for rND, rKL, rRD\f"
    "With TREC input: the documents' groups for the fairness measures (rND, rKL, rRD): a tab-separated "
    "file with a header, a docno column and a column per grouping (group_col; default group).")
CI = Option(
    "--ci",
    "Bootstrap intervals at this level (e.g. 0.95)\f"
    "Add a percentile bootstrap confidence interval at this level (e.g. 0.95) to every summary "
    "value: groups are resampled with replacement, from per-group statistics kept in memory "
    "(a few numbers per group; the input is read once).")
BOOTSTRAP = Option(
    "--bootstrap",
    "Bootstrap replicates [default: 1000]\f"
    f"Bootstrap replicates for --ci [default: {DEFAULT_REPLICATES}]; given alone it implies --ci 0.95.",
    default=DEFAULT_REPLICATES)
SEED = Option(
    "--seed",
    "Seed of the bootstrap draws\f"
    f"Seed of the bootstrap draws (recorded in the signature) [default: {DEFAULT_SEED}].", default=DEFAULT_SEED)

#: the options docs/vocabulary.md lists with their values and defaults
LISTED = (
    INPUT_FORMAT, TIE_POLICY, RELEVANCE_OPTION, MISSING_PRED_OPTION,
    Option("--gain", "NDCG's gain: 2^rel - 1 or rel", GAINS, DEFAULT_GAIN, TREC_GAIN),
    TAU_VARIANT,
    Option("--average", "tau: pooled pair counts, the mean of the groups' taus, or both", (*TAU_AVERAGES, "both"),
           "both (compare: micro)"),
    Option("--tied-ranks", "normalize: the rank tied values get", TIED_RANKS, "ceiling"),
    Option("--column", "normalize, aggregate, borda: the values to work on", VALUE_COLUMNS,
           "gold (normalize: both)"),
    Option("--method", "aggregate, correlate: how systems are ranked", (*AGGREGATION_METHODS, *SCORE_METHODS),
           DEFAULT_METHOD),
    Option("--test", "compare: the tests", TESTS, ", ".join(DEFAULT_MT_TESTS), ", ".join(DEFAULT_IR_TESTS)),
    Option("--correction", "compare: the correction of the p-values", CORRECTIONS, "none"),
    Option("--objective", "learn: the ranker's objective", OBJECTIVES),
    Option("--ci", "the level of intervals", default=f"none; {DEFAULT_LEVEL} with --bootstrap alone (compare: "
                                                     f"{DEFAULT_LEVEL})"),
    BOOTSTRAP,
    Option("--permutations", "randomization and permutation trials", default=DEFAULT_REPLICATES),
    SEED,
)


#: the marks around the table in docs/vocabulary.md
TABLE_START, TABLE_END = "<!-- values: generated from rankeval_cli/vocabulary.py -->", "<!-- /values -->"


def markdown_table() -> str:
    """docs/vocabulary.md's table of the options' values and defaults."""
    rows = ["| option | meaning | values | default |", "|---|---|---|---|"]
    for option in LISTED:
        meaning = option.help.split("\f", 1)[0].removesuffix("[]").strip()
        meaning = meaning.split(" [default")[0]
        default = "" if option.default is None else f"{option.default}"
        if option.trec_default is not None:
            default += f"; TREC input: {option.trec_default}"
        values = ", ".join(f"`{v}`" for v in option.values)
        rows.append(f"| `{option.name}` | {meaning} | {values} | {default} |")
    return "\n".join(rows) + "\n"


def with_table(text: str) -> str:
    """``text`` (docs/vocabulary.md) with :func:`markdown_table` between the marks."""
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    return text[:start] + "\n" + markdown_table() + text[end:]
