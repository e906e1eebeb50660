"""What a file is, from its first bytes: the canonical encodings, and the formats to convert first.

:func:`canonical_format` tells JSON lines, JCML and TSV apart from the first
non-blank byte. :func:`header_problem` looks at the first line of a file that
failed as a canonical TSV header and says why in words a user can act on: the
columns are separated by commas or spaces, or the file is a WMT, TREC, LETOR
file that ``rankeval convert --from NAME`` reads. Both look at one line or 4 KiB
at most, never the whole file.
"""

from __future__ import annotations

import re

#: detected kind -> (what it is called in messages, reader names that read it, first found wins)
FOREIGN = {
    "wmt-rr": ("a WMT relative-ranking CSV file", ("wmt-rr",)),
    "wmt-scores": ("a WMT metric score file", ("wmt-scores",)),
    "darr": ("a WMT DARR pairs file", ("darr",)),
    "wmt-da": ("a WMT direct-assessment score file", ("wmt-da",)),
    "wmt-da-scores": ("a WMT direct-assessment segment score file", ("wmt-da-scores",)),
    "appraise": ("an Appraise score export (direct assessments)", ("appraise",)),
    "mqm": ("an MQM segment score file", ("mqm",)),
    "trec-run": ("a TREC run file (QID Q0 DOCNO RANK SCORE TAG)", ("trec-run", "trec")),
    "trec-qrels": ("a TREC qrels file (QID ITER DOCNO REL)", ("trec-qrels", "qrels")),
    "letor": ("a LETOR/SVMlight file (REL qid:Q I:V ...)", ("letor", "svmlight")),
    "jcml": ("JCML (XML)", ("jcml",)),
}
REQUIRED = ("group", "item", "gold")
SEPARATORS = ((",", "commas"), (";", "semicolons"), (None, "spaces"))  # None: runs of white space
_LP = re.compile(r"[A-Za-z]{2,3}-[A-Za-z]{2,3}")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"[-+]?\d+")
_APPRAISE_TYPES = ("TGT", "BAD", "REF", "CHK")


def canonical_format(head: bytes) -> str:
    """``parquet`` or ``arrow`` by their magic bytes (:mod:`.arrow`); else ``jcml`` if the first
    non-blank byte is ``<``, ``jsonl`` if it is ``{``, else ``tsv``."""
    from .arrow import kind_of

    binary = kind_of(head)
    if binary:
        return binary
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return "jcml"
    return "jsonl" if head.startswith(b"{") else "tsv"


def foreign_format(line: str) -> str | None:
    """The kind of file (a key of :data:`FOREIGN`) whose first non-blank line this is, or None."""
    line = line.strip().lstrip("\ufeff")
    if line.startswith("<"):
        return "jcml"
    if line.startswith(("TASK,TYPE,ITEM_ID,", "srclang,trglang,")):
        return "wmt-rr"
    fields = line.split(",")
    if len(fields) >= 7 and fields[3] in _APPRAISE_TYPES and _NUMBER.fullmatch(fields[6]):
        return "appraise"
    tabs = line.split("\t")
    if 5 <= len(tabs) <= 8 and _LP.fullmatch(tabs[1]) and any(_NUMBER.fullmatch(f) for f in tabs[4:]):
        return "wmt-scores"
    words = line.split()
    if words[:3] == ["system", "mqm_avg_score", "seg_id"]:
        return "mqm"
    if words == ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]:
        return "wmt-da-scores"
    if words[:5] == ["LP", "DATA", "SID", "BETTER", "WORSE"] or (len(words) in (5, 6) and _LP.fullmatch(words[0])):
        return "darr"
    if words[:6] == ["SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID"] or (
            len(words) == 6 and all(_NUMBER.fullmatch(w) for w in words[2:4])
            and all(_INTEGER.fullmatch(w) for w in words[4:])):
        return "wmt-da"
    if len(words) >= 2 and _NUMBER.fullmatch(words[0]) and words[1].startswith("qid:"):
        return "letor"
    if len(words) == 6 and _INTEGER.fullmatch(words[3]) and _NUMBER.fullmatch(words[4]):
        return "trec-run"
    if len(words) == 4 and _INTEGER.fullmatch(words[1]) and _NUMBER.fullmatch(words[3]):
        return "trec-qrels"
    return None


def header_problem(line: str, source: str | None = None, readers=()) -> str | None:
    """Why ``line`` is not a canonical TSV header, when it is something recognisable; else None.

    ``readers`` are the reader names available (``convert --from``); ``source`` is the
    file to put in the suggested command (None or ``<stdin>``: read from stdin).
    """
    separated = _other_separator(line)
    if separated:
        return (f"not tab-separated: the header's columns are separated by {separated}; canonical TSV "
                "separates them with tabs")
    kind = foreign_format(line)
    return None if kind is None else foreign_message(kind, source, readers)


def foreign_message(kind: str, source: str | None, readers) -> str:
    """'this looks like X ...; convert it first: rankeval convert --from NAME FILE' (or why not)."""
    what, names = FOREIGN[kind]
    target = "" if source in (None, "-", "<stdin>") else " " + _shell_word(source)
    if kind == "trec-run":
        return (f"this looks like {what}, not a canonical TSV or JSON-lines stream; give the qrels and the "
                f"run to a measure (rankeval report --qrels QRELS{target or ' RUN'}) or convert them first: "
                f"rankeval convert --from trec --qrels QRELS{target or ' RUN'}")
    if kind == "trec-qrels":
        return (f"this looks like {what}, not a canonical TSV or JSON-lines stream; give it with --qrels"
                f"{target} and the runs as FILES (rankeval report --qrels{target or ' QRELS'} RUN)")
    name = next((n for n in names if n in readers), None)
    if name is None:
        return (f"this looks like {what}, not a canonical TSV or JSON-lines stream; "
                "see 'rankeval convert --help' for the formats it reads")
    return (f"this looks like {what}, not a canonical TSV or JSON-lines stream; "
            f"convert it first: rankeval convert --from {name}{target}")


def _other_separator(line: str) -> str | None:
    """``commas``/``spaces``/``semicolons`` when splitting on them (not tabs) gives the required columns."""
    if "\t" in line:
        return None
    for separator, words in SEPARATORS:
        fields = [f.strip().strip('"') for f in line.strip().split(separator)]
        if all(c in fields for c in REQUIRED):
            return words
    return None


def separator_hint(line: str, width: int) -> str:
    """``; not tab-separated: ...`` for a data line whose ``width`` fields are separated otherwise, else ``""``."""
    if "\t" in line:
        return ""
    for separator, words in SEPARATORS:
        if len(line.strip().split(separator)) == width:
            return f"; not tab-separated: the fields seem separated by {words}"
    return ""


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)
