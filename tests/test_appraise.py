"""The appraise reader: Appraise's CSV score exports (DA, DA+SQM, ESA), one judgment per group.

The exports under tests/data/appraise and tests/data/wmt24 are synthetic (written by
scripts/human-rankings-fixtures/make-exports, checked here to reproduce them)."""

from __future__ import annotations

import csv
import gzip
import importlib.machinery
import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.errors import DataError
from helpers.cli import cli, ok
from helpers.conversion import fails_at, read_all, round_trip

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "appraise"
SEGMENT = DATA / "synthetic-segment-da.en-de.csv"
DOCUMENT = DATA / "synthetic-document-esa.en-zh.csv"


def read_appraise(path, **options):
    return read_all(path, "appraise", report=options.pop("report", lambda m: None), **options)


def csv_rows(path):
    return list(csv.reader(path.read_text(encoding="utf-8").splitlines()))


def test_segment_layout_by_hand():
    reports = []
    b = read_appraise(SEGMENT, report=reports.append)
    rows = csv_rows(SEGMENT)
    types = Counter(r[3] for r in rows)
    # 3 judges; TGT items, CHK repeats (kept, as Appraise keeps them), BAD and REF items (left out)
    assert set(types) == {"TGT", "CHK", "BAD", "REF"} and len({r[0] for r in rows}) == 3
    assert reports == [f"{SEGMENT}: left out {types['BAD']} BAD, {types['REF']} REF rows "
                       "(item types not in --item-types CHK,TGT)"]
    assert b.n_groups == b.n_rows == types["TGT"] + types["CHK"] and (b.sizes == 1).all()
    number = next(i for i, r in enumerate(rows, 1) if r[3] in ("TGT", "CHK"))
    first = rows[number - 1]
    assert b.item[0] == first[1] and b.extra["judge"][0] == first[0] == "engdeu0a01"
    assert b.gold[0] == -float(first[6]) and b.extra["score"][0] == first[6]
    assert b.extra["segment"][0] == first[2] and b.extra["lp"][0] == "en-de" and b.extra["type"][0] == first[3]
    assert b.extra["start_time"][0] == first[7] and b.extra["end_time"][0] == first[8]
    assert b.group[0] == f"en-de:{first[2]}:{number}" and b.line[0] == number
    assert "docid" not in b.extra and np.isnan(b.pred).all()
    # a CHK row repeats a TGT item of the same judge and system: both are judgments
    chk = next(r for r in rows if r[3] == "CHK")
    assert any(r[3] == "TGT" and r[:3] == chk[:3] for r in rows)
    assert sum(1 for j, s, g in zip(b.extra["judge"], b.item, b.extra["segment"]) if (j, s, g) == tuple(chk[:3])) >= 2


def test_document_layout_with_error_spans():
    b = read_appraise(DOCUMENT)
    rows = csv_rows(DOCUMENT)
    # the first kept line: user, system, item, TGT, eng, zho, score, doc, False, [spans], start, end
    number = int(b.line[0])
    row = rows[number - 1]
    assert len(row) == 12 and row[8] == "False"
    assert b.extra["segment"][0] == f"{row[7]}::{row[2]}" and b.extra["docid"][0] == row[7]
    assert b.extra["document"][0] == "False" and b.extra["lp"][0] == "en-zh"
    assert b.extra["end_time"][0] == row[11] and "spans" not in b.extra
    assert set(b.extra["type"].tolist()) <= {"TGT", "CHK"}
    # error spans are JSON with commas and quotes (a quoted CSV field); the filler documents of
    # Appraise are read as documents of their own
    assert any(r[9].startswith('[{"start_i"') for r in rows)
    suffixes = {r[7].partition("#")[2] for r in rows}
    assert suffixes == {"", "bad", "dup", "dup#dup", "incomplete", "incomplete#bad"}
    assert set(b.extra["docid"].tolist()) == {r[7] for r in rows if r[3] != "BAD"}


def test_item_types_option(tmp_path):
    rows = csv_rows(SEGMENT)
    types = Counter(r[3] for r in rows)
    everything = read_appraise(SEGMENT, item_types="TGT,BAD,CHK,REF")
    assert everything.n_rows == len(rows) and set(everything.extra["type"].tolist()) == {"TGT", "BAD", "CHK", "REF"}
    bad_only = read_appraise(SEGMENT, item_types=["bad"])
    assert bad_only.n_rows == types["BAD"]
    result = ok(cli("convert", "--from", "appraise", "--item-types", "TGT", SEGMENT))
    assert f"left out {types['BAD']} BAD, {types['CHK']} CHK, {types['REF']} REF rows" in result.stderr
    assert cli("convert", "--from", "appraise", "--item-types", ",", SEGMENT).exit_code != 0


def test_round_trip(tmp_path):
    round_trip(tmp_path, SEGMENT, "--from", "appraise")
    round_trip(tmp_path, DOCUMENT, "--from", "appraise")


def test_the_generator_reproduces_the_synthetic_exports():
    """The synthetic files of tests/data are the output of their committed generator, byte for
    byte (the gzipped one compared uncompressed)."""
    path = ROOT / "scripts" / "human-rankings-fixtures" / "make-exports"
    loader = importlib.machinery.SourceFileLoader("make_exports", str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("make_exports", loader))
    loader.exec_module(module)
    for name, data in module.files().items():
        committed = (ROOT / "tests" / "data" / name).read_bytes()
        if name.endswith(".gz"):
            committed, data = gzip.decompress(committed), gzip.decompress(data)
        assert committed == data, name


LAYOUTS = {
    7: "u1,sysA,12,TGT,eng,deu,70",
    9: "u1,sysA,12,TGT,eng,deu,70,1665744151.351,1665744158.765",
    11: "u1,sysA,12,TGT,eng,deu,70,1665744151.351,1665744158.765,3,1234",
    "9d": "u1,sysA,12,TGT,eng,deu,70,doc1,False",
    "10d": 'u1,sysA,12,TGT,eng,deu,70,doc1,False,"[{""start_i"": 0, ""end_i"": 3}]"',
    "11d": "u1,sysA,12,TGT,eng,deu,70,doc1,False,1665744151.351,1665744158.765",
    "12d": "u1,sysA,12,TGT,eng,deu,70,doc1,True,[],1665744151.351,1665744158.765",
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_layout(tmp_path, layout):
    path = tmp_path / "scores.csv"
    path.write_text(LAYOUTS[layout] + "\n" + LAYOUTS[layout].replace("u1,sysA", "u2,sysB") + "\n")
    b = read_appraise(path)
    assert b.item.tolist() == ["sysA", "sysB"] and b.gold.tolist() == [-70.0, -70.0]
    document = str(layout).endswith("d")
    assert b.extra["segment"].tolist() == (["doc1::12"] * 2 if document else ["12"] * 2)
    assert ("start_time" in b.extra) == (str(layout) not in ("7", "9d", "10d"))


def test_header_line_is_skipped(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("username,system,itemId,itemType,srcLang,trgLang,score,timeStart,timeEnd\n"
                    + LAYOUTS[9] + "\n")
    assert read_appraise(path).n_rows == 1


@pytest.mark.parametrize("text, line, contains", [
    ("u1,sysA,12,TGT,eng,deu\n", 1, "at least 7"),
    ("u1,sysA,12,TGT,eng,deu,70\nu1,sysB,12,TGT,eng,deu,seventy\n", 2, "not a finite number"),
    ("u1,sysA,12,TGT,eng,deu,70\nu1,sysB,12,TGT,eng,deu,70,5,6\n", 2, "expected 7 fields"),
    ("u1,sysA,12,TGT,eng,deu,70,doc,False\nu1,sysA,12,TGT,eng,deu,70,doc,maybe\n", 2, "True or False"),
    ("u1,sysA,12,TGT,eng,deu,70,x,y,z\n", 1, "not an Appraise score export"),
    (",sysA,12,TGT,eng,deu,70\n", 1, "empty user"),
    ("u1,sysA,12,TGT,eng,deu,nan\n", 1, "finite"),
    ('u1,"sysA,12,TGT,eng,deu,70\n', 1, ""),
])
def test_errors_name_file_and_line(tmp_path, text, line, contains):
    fails_at(tmp_path, text, line, fmt="appraise", contains=contains)


def test_repeats_stay_separate_judgments(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(LAYOUTS[7] + "\n" + LAYOUTS[7].replace("TGT", "CHK").replace(",70", ",60") + "\n")
    b = read_appraise(path)
    assert b.n_groups == 2 and b.group.tolist() == ["en-de:12:1", "en-de:12:2"]
    assert b.extra["type"].tolist() == ["TGT", "CHK"]


def test_unknown_reader_option_is_refused():
    result = cli("convert", "--from", "appraise", "--min-diff", "3", SEGMENT)
    assert result.exit_code == 2


def test_data_error_is_raised_not_printed(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("u1,sysA\n")
    with pytest.raises(DataError):
        read_appraise(path)


# ---- document options: --exclude-documents and --documents (domains) -------------------------------

WMT24 = ROOT / "tests" / "data" / "wmt24"
DOCS = "news\tdoc1\nnews\tdoc1\nspeech\tdoc2\n"


def document_rows(tmp_path):
    path = tmp_path / "scores.csv"
    rows = [LAYOUTS["12d"].replace("doc1", d).replace(",12,", f",{i},") for i, d in
            enumerate(["doc1", "doc2", "doc1#dup", "doc2#incomplete", "doc1#bad", "doc3"])]
    path.write_text("\n".join(rows) + "\n")
    docs = tmp_path / "en-de.docs"
    docs.write_text(DOCS)
    return path, docs


def test_exclude_documents_and_domains(tmp_path):
    path, docs = document_rows(tmp_path)
    reports = []
    b = read_appraise(path, documents=[str(docs)], exclude_documents=["*#dup*", "*#incomplete*"],
                      report=reports.append)
    assert b.extra["docid"].tolist() == ["doc1", "doc2", "doc1#bad", "doc3"]
    # DOC#bad is looked up as DOC; doc3 is in no file: an empty domain, counted
    assert b.extra["domain"].tolist() == ["news", "speech", "news", ""]
    assert reports == [f"{path}: left out 2 rows of documents matching --exclude-documents *#dup* *#incomplete*",
                       f"{path}: 1 rows of documents not in the --documents files (e.g. 'doc3') have an empty domain"]
    result = ok(cli("convert", "--from", "appraise", "--documents", docs, "--exclude-documents", "doc3", path))
    header = result.stdout.splitlines()[0].split("\t")
    assert "domain" in header and result.stdout.count("\n") == 6
    assert "left out 1 rows of documents matching --exclude-documents doc3" in result.stderr


def test_excluded_types_are_not_counted_again(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(LAYOUTS["12d"].replace("TGT", "BAD").replace("doc1", "doc1#bad") + "\n" + LAYOUTS["12d"] + "\n")
    reports = []
    b = read_appraise(path, exclude_documents=["*#bad"], report=reports.append)
    assert b.n_rows == 1 and reports == [f"{path}: left out 1 BAD rows (item types not in --item-types CHK,TGT)"]


def test_wmt24_documents_file(tmp_path):
    docs = WMT24 / "synthetic.en-cs.docs"
    b = read_appraise(WMT24 / "synthetic-esa.en-cs.csv.gz", item_types="TGT", documents=[str(docs)],
                      exclude_documents=["*#incomplete*", "*#dup*"])
    domain = dict(line.split("\t")[::-1] for line in docs.read_text().splitlines())
    for doc, dom in zip(b.extra["docid"].tolist(), b.extra["domain"].tolist()):
        assert dom == domain.get(doc, "")
    assert set(b.extra["domain"].tolist()) == {"literary", "news", "social", "speech", ""}  # "": tutorials


@pytest.mark.parametrize("text, line, contains", [
    ("news\tdoc1\nspeech\tdoc1\n", 2, "in domain 'speech' here and 'news' before"),
    ("news doc1\n", 1, "DOMAIN<TAB>DOCUMENT-ID"),
    ("news\t\n", 1, "DOMAIN<TAB>DOCUMENT-ID"),
])
def test_documents_file_errors(tmp_path, text, line, contains):
    path, _ = document_rows(tmp_path)
    docs = tmp_path / "bad.docs"
    docs.write_text(text)
    result = cli("convert", "--from", "appraise", "--documents", docs, path)
    assert result.exit_code == 1 and result.stderr.startswith(f"rankeval: {docs}:{line}: ") and contains in \
        result.stderr, result.stderr


def test_document_options_need_a_document_task(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(LAYOUTS[9] + "\n")
    fails_at(tmp_path, LAYOUTS[9] + "\n", 1, "--exclude-documents", "x*", fmt="appraise",
             contains="document-task export")
    assert cli("convert", "--from", "mqm", "--documents", path, path).exit_code == 2
