"""trec_eval's command line read as trec_eval reads it, without click: glibc ``getopt_long``
(bundled short options ``-qc``, attached values ``-mP.10`` ``-M100``, long options by a unique
prefix, options after the file names) and the settings the options make.

``rankeval trec_eval`` parses with this both on its fast path (:mod:`rankeval_cli.entry`, no
click imported) and through click (``commands/trec_eval.py``, which turns :class:`ArgError`
into click's usage errors, exit 2).
"""

from __future__ import annotations

from ..vocabulary import TIE_POLICIES as _POLICIES
from ..vocabulary import TREC_EVAL_VERSIONS, TREC_TIE_POLICY

#: trec_eval's option string and long options, and rankeval's own
SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
LONG = {  # name -> (takes a value, the short option it stands for)
    "help": (False, "h"), "version": (False, "v"), "query_eval_wanted": (False, "q"), "measure": (True, "m"),
    "complete_rel_info_wanted": (False, "c"), "level_for_rel": (True, "l"), "nosummary": (False, "n"),
    "Debug_level": (True, "D"), "Judged_docs_only": (False, "J"), "Number_docs_in_coll": (True, "N"),
    "Max_retrieved_per_topic": (True, "M"), "Rel_info_format": (True, "R"), "Results_format": (True, "T"),
    "Output_old_results_format": (True, "o"), "Zscore": (True, "Z"),
    "trec-eval-version": (True, "trec-eval-version"), "tie-policy": (True, "tie-policy"),
    "jobs": (True, "jobs"), "scheduler": (True, "scheduler"),
}
#: trec_eval's own first
TIE_POLICIES = (TREC_TIE_POLICY, *(p for p in _POLICIES if p != TREC_TIE_POLICY))

#: trec_eval's options that set a value: flags, numbers (read as C's atol reads them), texts
_FLAGS = {"v": "show_version", "q": "query", "c": "complete", "n": "nosummary", "J": "judged"}
_NUMBERS = {"l": "level", "N": "num_docs", "M": "depth"}
_TEXTS = {"R": "rel_format", "T": "results_format", "Z": "zscores"}


class ArgError(ValueError):
    """A bad command line: ``hint`` names the option for a bad value (None: a usage error)."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


def getopt(args):
    """(options as [(letter or long name, value)], operands) as glibc's getopt_long reads ``args``."""
    opts, operands = [], []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--"):
            i = _long(arg, args, i, opts)
        elif arg.startswith("-") and arg != "-":
            i = _short(arg, args, i, opts)
        else:
            operands.append(arg)
    return opts, operands


def _long(arg, args, i, opts) -> int:
    name, eq, value = arg[2:].partition("=")
    matches = [n for n in LONG if n == name] or [n for n in LONG if n.startswith(name)]
    if not matches:
        raise ArgError(f"unrecognized option '{arg}'")
    if len(matches) > 1:
        raise ArgError(f"option '--{name}' is ambiguous; possibilities: " + " ".join("'--" + m + "'" for m in matches))
    needs, key = LONG[matches[0]]
    if needs and not eq:
        if i >= len(args):
            raise ArgError(f"option '--{matches[0]}' requires an argument")
        value, i = args[i], i + 1
    elif eq and not needs:
        raise ArgError(f"option '--{matches[0]}' doesn't allow an argument")
    opts.append((key, value if needs else None))
    return i


def _short(arg, args, i, opts) -> int:
    takes = {c: SHORT[k + 1:k + 2] == ":" for k, c in enumerate(SHORT) if c != ":"}
    j = 1
    while j < len(arg):
        c = arg[j]
        j += 1
        if c not in takes:
            raise ArgError(f"invalid option -- '{c}'")
        if takes[c]:
            if j < len(arg):
                value = arg[j:]
            elif i < len(args):
                value, i = args[i], i + 1
            else:
                raise ArgError(f"option requires an argument -- '{c}'")
            opts.append((c, value))
            return i
        opts.append((c, None))
    return i


def settings(opts) -> dict:
    """The command's parameters (named as the click command names them) from ``opts``; ``jobs`` and
    ``scheduler`` are None unless given (the executor is configured by the caller)."""
    from ..measures.trec.params import c_atol

    values = dict(query=False, complete=False, nosummary=False, level=1, measures=[], judged=False,
                  num_docs=0, depth=None, rel_format="qrels", results_format="trec_results", zscores=None,
                  version=10, tie_policy="trec", show_version=False, jobs=None, scheduler=None)
    for key, value in opts:
        if key in _FLAGS:
            values[_FLAGS[key]] = True
        elif key in _NUMBERS:
            values[_NUMBERS[key]] = c_atol(value)
        elif key in _TEXTS:
            values[_TEXTS[key]] = value
        elif key == "m":
            values["measures"].append(value)
        elif key == "trec-eval-version":
            if value not in TREC_EVAL_VERSIONS:
                raise ArgError(f"{value!r} is not 9 or 10", "'--trec-eval-version'")
            values["version"] = int(value)
        elif key == "tie-policy":
            if value not in TIE_POLICIES:
                raise ArgError(f"{value!r} is not one of {', '.join(TIE_POLICIES)}", "'--tie-policy'")
            values["tie_policy"] = value
        elif key == "jobs":
            if not value.isdigit():
                raise ArgError(f"{value!r} is not a whole number", "'--jobs'")
            values["jobs"] = int(value)
        elif key == "scheduler":
            values["scheduler"] = value
        # -D (debug level) and -o (obsolete in trec_eval) are accepted and change nothing
    return values


def run(params: dict, files, out) -> None:
    """Evaluate as ``trec_eval`` with the command's ``params`` (see :func:`settings`) and its operands
    ``files`` (QRELS RUN...), writing each run's lines to ``out``; a bad command line or a measure
    trec_eval refuses raises :class:`ArgError`."""
    import sys

    from . import trec_eval as te

    if params["show_version"]:
        sys.stderr.write(f"trec_eval version {te.VERSION_STRINGS[int(params['version'])]} (rankeval)\n")
        return
    if len(files) < 2:
        raise ArgError("give the qrels and one or more runs: QRELS RUN...")
    if params["results_format"] != "trec_results":
        raise ArgError(f"Illegal retrieval results format '{params['results_format']}'")
    depth, rel_format = params["depth"], params["rel_format"]
    if depth is not None and depth < 0:
        raise ArgError("must be 0 or more", "'-M'")
    options = te.Options(per_query=params["query"], complete=params["complete"], summary=not params["nosummary"],
                         rel_level=params["level"], num_docs=params["num_docs"] or 0, max_docs=depth,
                         judged_only=params["judged"], rel_format=rel_format, zscores=params["zscores"],
                         measures=list(params["measures"]), version=int(params["version"]),
                         tie_policy=params["tie_policy"])
    try:
        te.validate(options)
        if options.version < 10:
            te.refuse_comments(files[0], "judgments")
        rel_info = te.read_judgments(rel_format, files[0]) if rel_format in te.REL_FORMATS else None
        for text in te.reports(options, files[0], files[1:], rel_info=rel_info):
            out.write(text)
    except te.TrecEvalError as exc:
        raise ArgError(f"trec_eval: {exc}") from None
    except te.TrecEvalStop as exc:  # what trec_eval prints before it stops, then the error
        out.write(getattr(exc, "output", ""))
        raise
