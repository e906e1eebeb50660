"""One vocabulary: every command's options name a shared idea the same way, help cites no
internal document, and every option with a fixed set of values completes them in the shell.

The walk covers every command ``rankeval`` lists (and the subcommands of groups), so a
command added later is checked without being named here.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.shell_completion import ShellComplete

from rankeval_cli.cli import main

from helpers.commands import COMMANDS, IDS, ROOT_CONTEXT, context

ROOT = Path(__file__).resolve().parents[1]

#: a shared idea's canonical option -> the synonyms no command may show.
SYNONYMS = {
    "--higher-better": ("--pred-higher-better", "--score-direction", "--scores-higher", "--higher-is-better",
                        "--descending", "--reverse", "--maximize"),
    "--tau-variant": ("--ties", "--tau-ties", "--variant", "--tau"),
    "--tie-policy": ("--tie-breaking", "--ties-policy", "--break-ties"),
    "--tied-ranks": ("--tie-mode", "--rank-ties"),
    "--output-format": ("--format", "--out-format", "--json", "--tsv", "--markdown", "--latex"),
    "--output": ("--out", "--outfile", "--output-file"),
    "--ci": ("--ci-level", "--confidence", "--level"),
    "--bootstrap": ("--n-bootstrap", "--bootstraps", "--resamples", "--samples", "--replicates"),
    "--permutations": ("--n-permutations", "--trials", "--randomizations"),
    "--seed": ("--random-seed", "--rng-seed", "--rng"),
    "--by": ("--group-by", "--by-column", "--partition", "--split-by"),
    "--exclude-systems": ("--exclude", "--exclude-system", "--skip-systems"),
    "--k": ("--cutoff", "--cut-off", "--depth-k", "--at"),
    "--measure": ("--measures", "--metric-name"),
    "--correction": ("--multiple-testing", "--adjust"),
    "--epsilon": ("--eps", "--tie-epsilon", "--threshold"),
    "--objective": ("--loss-function", "--learner", "--algorithm"),
    "--statistic": ("--stat", "--stats", "--meta-measure"),
    "--column": ("--col", "--value-column", "--field"),
    "--rename": ("--names", "--relabel", "--name-map"),
    "--quiet": ("--silent", "--no-notes"),
}
FORBIDDEN = {syn: canonical for canonical, syns in SYNONYMS.items() for syn in syns}
#: shared values: an option of this name offers only these (json is the hidden alias of jsonl).
OUTPUT_FORMATS = {"tsv", "jsonl", "jcml", "trec", "markdown", "latex", "parquet", "arrow"}
#: shared defaults, stated in the help where the default is None.
DEFAULTS = {"--bootstrap": "1000", "--seed": "12345", "--permutations": "1000"}
INTERNAL = re.compile(r"seed 00[0-9]|REFERENCE(\.md| ?§)|[Ii]ssue [0-9]+|\bshared/(REFERENCE|DESIGN)")


def _shown_names(option: click.Option) -> list[str]:
    aliases = getattr(option, "aliases", ())
    return [name for name in option.opts + option.secondary_opts if name not in aliases]


#: drop-ins whose options are their peer's command line (cwl_eval's -m is its metrics file)
DROP_INS = {"cwl_eval"}


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_options_use_the_shared_names(path, command):
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        shown = _shown_names(param)
        assert "-m" not in shown or "--measure" in shown or path[0] in DROP_INS, \
            f"{' '.join(path)}: -m is --measure (a measure's name)"
        assert "--model" not in shown or param.type.name != "choice", f"{' '.join(path)}: --model is a model file"
        for name in shown:
            if name == "--scores" and not param.is_flag:
                continue  # convert --scores FILE: the metric scores to join, not a direction
            assert name not in FORBIDDEN, f"{' '.join(path)} {name}: the shared name is {FORBIDDEN.get(name)}"
            assert not (name == "--scores" and param.is_flag), f"{' '.join(path)} --scores: use --higher-better"
        if "--output-format" in param.opts:
            assert set(param.type.choices) <= OUTPUT_FORMATS and "json" not in param.type.choices
        for name, default in DEFAULTS.items():
            if name in param.opts and param.default is None:
                assert f"default: {default}" in (param.help or ""), (path, name)
            elif name in param.opts and not param.is_flag and param.default is not None \
                    and name != "--bootstrap" or (name in param.opts and param.default not in (None, 0)):
                assert str(param.default) == default, (path, name, param.default)
        if "--ci" in param.opts:
            assert not param.is_flag and param.metavar == "LEVEL", f"{' '.join(path)}: --ci takes a LEVEL"
            assert param.default in (None, 0.95), path


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_help_cites_no_internal_document(path, command):
    text = command.get_help(context(command, ROOT_CONTEXT, " ".join(path)))
    assert not INTERNAL.search(text), INTERNAL.search(text).group(0)


def test_docs_readme_and_man_pages_cite_no_internal_document():
    for folder in ("man", "docs", "rankeval_cli"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".1", ".md", ".py"):
                found = INTERNAL.search(path.read_text(encoding="utf-8"))
                assert not found, f"{path.relative_to(ROOT)}: {found.group(0)}"
    found = INTERNAL.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not found, f"README.md: {found.group(0)}"


def _completions(path, args, incomplete):
    complete = ShellComplete(main, {}, "rankeval", "_RANKEVAL_COMPLETE")
    return [item.value for item in complete.get_completions([*path, *args], incomplete)]


@pytest.mark.parametrize("path, command", COMMANDS, ids=IDS)
def test_every_option_with_fixed_values_completes_them(path, command):
    for param in command.params:
        if not isinstance(param, click.Option) or param.is_flag or param.hidden:
            continue
        fixed = isinstance(param.type, click.Choice) or "|" in (param.metavar or "") or \
            (param.metavar or "") in ("VARIANT", "METHOD", "MEASURE")
        if not fixed:
            continue
        offered = _completions(path, [param.opts[-1]], "")
        assert offered, f"{' '.join(path)} {param.opts[-1]} offers no values to complete"


def test_completion_offers_tau_variants_and_methods():
    assert {"penalize", "acc-eq", "wmt14"} <= set(_completions(("tau",), ["--tau-variant"], ""))
    assert {"expected-wins", "kemeny"} <= set(_completions(("aggregate",), ["--method"], ""))
    assert _completions(("ndcg",), ["--tie-policy"], "exp") == ["expected"]


def test_old_spellings_still_work_hidden():
    from click.testing import CliRunner

    data = "group\titem\tgold\tpred\ns\ta\t1\t2\ns\tb\t2\t1\ns\tc\t3\t3\n"
    runner = CliRunner()
    new = runner.invoke(main, ["tau", "--tau-variant", "b", "--higher-better"], input=data).stdout
    assert runner.invoke(main, ["tau", "--ties", "b", "--scores"], input=data).stdout == new
    assert runner.invoke(main, ["report", "--tau-ties", "b"], input=data).exit_code == 0
    assert runner.invoke(main, ["normalize", "--ties", "middle"], input=data).stdout == \
        runner.invoke(main, ["normalize", "--tied-ranks", "middle"], input=data).stdout
    assert runner.invoke(main, ["ndcg", "--output-format", "json"], input=data).stdout == \
        runner.invoke(main, ["ndcg", "--output-format", "jsonl"], input=data).stdout
    assert "--ties" not in runner.invoke(main, ["tau", "--help"]).stdout


# --- output columns -------------------------------------------------------------------------------

#: a shared idea's column name -> names no summary may write for it (docs/vocabulary.md).
COLUMN_SYNONYMS = {
    "system": ("run", "item", "items_name", "submission", "model", "runid", "run_id", "sys"),
    "value": ("score", "points", "mean", "val", "result"),
    "groups": ("queries", "count", "n", "defined", "num_groups", "n_groups", "num_queries", "num_q"),
    "group": ("query", "qid", "topic", "segment_id", "seg_id"),
    "measure": ("metric_name", "measure_name", "stat"),
    "ci_low": ("lo", "low", "lower", "ci_lo", "ci_lower", "lower_bound"),
    "ci_high": ("hi", "high", "upper", "ci_hi", "ci_upper", "upper_bound"),
    "p_<test>": ("p", "p_value", "pvalue", "pval", "p-value"),
    "lp": ("language_pair", "langpair", "lang_pair", "pair"),
    "signature": ("sig", "settings"),
}
FORBIDDEN_COLUMNS = {syn: canonical for canonical, syns in COLUMN_SYNONYMS.items() for syn in syns}
#: the canonical stream's first columns (commands that write a stream of groups).
STREAM_HEAD = ["group", "item", "gold", "pred"]

EXAMPLES = ROOT / "examples"
QRELS, RUN, RUN2 = (str(EXAMPLES / "trec" / name) for name in ("qrels.txt", "bm25.run", "dense.run"))
JCML = str(EXAMPLES / "wmt10-de-en.xf.jcml")
MTME = str(ROOT / "tests" / "data" / "mtme" / "wmt20")
TSV = ("group\titem\tgold\tpred\tlp\n"
       "s1\tA\t1\t2\tde-en\ns1\tB\t2\t1\tde-en\ns1\tC\t3\t3\tde-en\n"
       "s2\tA\t1\t1\tde-en\ns2\tB\t2\t3\tde-en\ns2\tC\t3\t2\tde-en\n"
       "s3\tA\t2\t1\tcs-en\ns3\tB\t1\t2\tcs-en\n")
FEW = ["--bootstrap", "20"]
POSITION = [[], ["--per-group"], ["--ci", "0.9", *FEW, "--by", "lp"], ["--qrels", QRELS, RUN],
            ["--qrels", QRELS, "--per-group", RUN]]

#: command -> invocations (arguments; the TSV above is stdin) whose every output header is checked.
#: A command missing here fails test_every_command_has_a_sample_run: add one.
OUTPUT_RUNS = {
    "convert": [["--from", "jcml", "--pred-attr", "unk", JCML]],
    "normalize": [[]],
    "tau": [[], ["--per-group"], ["--ci", "0.9", *FEW, "--by", "lp"]],
    "mrr": POSITION, "ndcg": POSITION, "err": POSITION, "rankdcg": POSITION,
    "report": [[], ["--per-group"], ["--ci", "0.9", *FEW], ["--qrels", QRELS, RUN], ["--qrels", QRELS, "--per-group", RUN]],
    "aggregate": [[], ["--ci", "0.9", *FEW, "--by", "lp"], ["--column", "both"],
                  ["--method", "rrf", "--output-format", "tsv", RUN, RUN2], ["--method", "z-score", "--ci", "0.9", *FEW]],
    "borda": [[], ["--column", "both", "--ci", "0.9", *FEW]],
    "correlate": [["--by", "lp"], ["--ci", "0.9", *FEW]],
    "compare": [["--pred-columns", "pred,pred", *FEW, "--permutations", "20"],
                ["--qrels", QRELS, "--permutations", "20", "--correction", "holm", RUN, RUN2]],
    "meta-eval": [["--mtme", MTME, "--permutations", "10"]],
    "power": [["--qrels", QRELS, "-m", "map", "--difference", "0.05", RUN, RUN2]],
    "agree": [[RUN, RUN2], ["--per-group", "-m", "rbo", RUN, RUN2]],
    "repro": [["--qrels", QRELS, RUN, RUN2, RUN2, RUN]],
    "learn cv": [["--objective", "ranksvm", "--features", "tgt@unk,tgt@length", "--folds", "2", JCML]],
    "learn features": [["--no-bleu", "--intra-set", "tgt@unk", JCML]],
    "learn predict": [["--model", "{model}", JCML]],
    "table": [["{summary}"]],
    "spans score": [[str(ROOT / "tests" / "data" / "spans" / "mqm_ted_ende.excerpt.tsv")]],
    "spans eval": [["--gold", str(ROOT / "tests" / "data" / "spans" / "synthetic-gold.wmt25.tsv"),
                    str(ROOT / "tests" / "data" / "spans" / "synthetic-pred-near.wmt25.tsv"), "--permutations", "20"]],
    "judges": [["--qrels", QRELS, "--candidate", QRELS, *FEW, "--per-group", RUN, RUN2]],
}
#: the input of a run when it is not TSV above
JUDGMENTS = ("group\titem\tgold\tpred\tjudge\tsegment\n" + "".join(
    f"g{i}\t{s}\t{-x}\t\t{j}\t{g}\n" for i, (j, s, g, x) in enumerate(
        [("J1", "A", "s1", 80), ("J1", "B", "s1", 60), ("J2", "A", "s2", 70), ("J2", "B", "s2", 50),
         ("J1", "C", "s1", 40), ("J2", "C", "s2", 30)])))
INPUTS = {("aggregate", "--method", "z-score"): JUDGMENTS}
#: commands that write no records: a model file, a figure, a shell script, a group's help, and
#: the drop-ins' own output formats (trec_eval's, ndeval's, cwl_eval's: byte for byte, their names).
NO_RECORDS = {"learn train", "plot", "completion", "learn", "spans", "trec_eval", "trec-eval", "ndeval", "cwl_eval"}
#: commands whose output is a stream of groups (checked for the canonical head only).
STREAMS = {"convert", "normalize", "learn cv", "learn features", "learn predict"}


def _headers(text: str) -> list[list[str]]:
    """The header of every table in ``text``: TSV header lines (the first line, and any after a
    blank line or a row of another width, as --per-group writes its summary after its rows)."""
    headers, width = [], None
    for line in text.splitlines():
        fields = line.split("\t")
        if width is None or len(fields) != width and not fields[0].replace(".", "").isdigit():
            if width is None or any(f in ("signature", "measure", "group", "system") for f in fields):
                headers.append(fields)
        width = len(fields)
    return headers


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A model file (learn predict) and a summary (table), written by rankeval itself."""
    from click.testing import CliRunner

    folder = tmp_path_factory.mktemp("vocabulary")
    model, summary = folder / "model.json", folder / "tau.tsv"
    runner = CliRunner()
    trained = runner.invoke(main, ["learn", "train", "--objective", "ranksvm", "--features", "tgt@unk",
                                   "-o", str(model), JCML])
    assert trained.exit_code == 0, trained.output
    summary.write_text(runner.invoke(main, ["ndcg", "--by", "lp", "--ci", "0.9", *FEW], input=TSV).stdout)
    return {"model": str(model), "summary": str(summary)}


def test_every_command_has_a_sample_run():
    names = {" ".join(path) for path, _ in COMMANDS}
    missing = names - set(OUTPUT_RUNS) - NO_RECORDS
    assert not missing, f"add a sample invocation to OUTPUT_RUNS (or NO_RECORDS) for: {', '.join(sorted(missing))}"


@pytest.mark.parametrize("name, args", [(name, args) for name, runs in OUTPUT_RUNS.items() for args in runs],
                         ids=[f"{name} {' '.join(a[:3])}" for name, runs in OUTPUT_RUNS.items() for a in runs])
def test_output_columns_use_the_shared_names(name, args, made):
    from click.testing import CliRunner

    args = [a.format(**made) for a in args]
    result = CliRunner().invoke(main, [*name.split(), *args, "--output-format", "tsv"]
                                if "--output-format" not in args and name not in ("learn cv", "learn predict",
                                                                                  "learn features") else
                                [*name.split(), *args], input=INPUTS.get((name, *args[:2]), TSV))
    assert result.exit_code == 0, result.output
    text = result.stdout + (result.stderr if "--per-group" in args else "")
    headers = _headers(text)
    assert headers, f"{name} {args}: no output"
    for header in headers:
        if name in STREAMS:
            assert header[:4] == STREAM_HEAD, (name, header)
        if header[:2] == STREAM_HEAD[:2]:
            continue  # rows of items (a stream, a fused run): their columns come with the input
        for column in header:
            assert column not in FORBIDDEN_COLUMNS, \
                f"{name} {' '.join(args)}: column {column!r}; the shared name is {FORBIDDEN_COLUMNS[column]}"
        if "signature" in header:
            assert header[-1] == "signature", (name, header)


# --- help that fits a screen ------------------------------------------------------------------------

#: the most lines a --help may print, at 80 columns (the rest lives in the man page)
HELP_LINES = 40
HELP_WIDTH = 80


@pytest.mark.parametrize("path", [()] + [path for path, _ in COMMANDS], ids=["rankeval"] + IDS)
def test_help_fits_a_screen(path):
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=HELP_WIDTH)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    where = " ".join(("rankeval", *path))
    assert len(lines) <= HELP_LINES, f"{where} --help: {len(lines)} lines (at most {HELP_LINES}; move text to " \
                                     "the man page: after \\f in the docstring or an option's help)"
    wide = [line for line in lines if len(line) > HELP_WIDTH]
    assert not wide, f"{where} --help: lines over {HELP_WIDTH} columns: {wide}"
