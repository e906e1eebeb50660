"""JCML (QE XML): reading, writing, exact round trips, safety against hostile XML."""

from __future__ import annotations

import gzip
import http.server
import io
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as StdET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from rankeval_cli.batch import Batch, concat, empty_batch, offsets_from_sizes
from rankeval_cli.errors import DataError
from rankeval_cli.formats import jcml
from rankeval_cli.formats import read as read_any
from rankeval_cli.formats import write as write_any
from rankeval_cli.formats.jcml import read_jcml, write_jcml

from conftest import TEST_DATA, tsv_bytes
from robust import check_exit, invoke

EXCERPTS = sorted(TEST_DATA.glob("jcml_*.jcml"))
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def read_doc(doc, **options) -> Batch:
    data = doc.encode("utf-8") if isinstance(doc, str) else doc
    batches = list(read_jcml(io.BytesIO(data), **options))
    return concat(batches) if batches else empty_batch()


def to_jcml(batches) -> str:
    out = io.StringIO()
    write_jcml(batches if isinstance(batches, list) else [batches], out)
    return out.getvalue()


def xml_content(data: bytes, text: bool = True) -> list:
    """Every <judgedsentence>: its attributes and its children's tags, attributes (and texts)."""
    root = etree.fromstring(data)
    return [(dict(js.attrib), [(c.tag, dict(c.attrib), (c.text or "") if text else None) for c in js])
            for js in root]


def cli(*args, input=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], input=input, capture_output=True,
                          timeout=timeout)


def bash(script: str, timeout=120):
    return subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, timeout=timeout,
                          cwd=Path(__file__).resolve().parents[1])


def rankeval_cmd() -> str:
    return f"{sys.executable} -m rankeval_cli"


# --- reading ------------------------------------------------------------------------------------------

SMALL = HEAD + """<jcml>
  <judgedsentence id="s1" langsrc="de" rank="0">
    <src length="3">Ein  Satz &amp; mehr</src>
    <tgt system="A" rank="2" unk="0" predicted_rank="2.50">  A text\t</tgt>
    <tgt system="B" rank="-1" unk="3">B</tgt>
    <tgt system="C" rank="" unk="1"/>
    <tgt system="D" unk="">D</tgt>
    <ref>R</ref>
  </judgedsentence>
  <judgedsentence id="s2" langsrc="de">
    <src>S2</src>
    <tgt system="A" rank="1" unk="2">x&#13;y</tgt>
  </judgedsentence>
</jcml>
"""


def test_groups_items_values_and_blanks():
    batch = read_doc(SMALL, pred_attr="unk")
    assert batch.group.tolist() == ["s1", "s2"]
    assert batch.offsets.tolist() == [0, 4, 5]
    assert batch.item.tolist() == ["A", "B", "C", "D", "A"]
    # rank: "2", "-1" (WMT blank), "" (empty), absent, "1"  -> 2, NaN, NaN, NaN, 1 (never rank 1)
    np.testing.assert_array_equal(batch.gold, [2, np.nan, np.nan, np.nan, 1])
    # unk: "0", "3", "1", "" -> NaN, "2"; pred keeps -1-free feature values as they are
    np.testing.assert_array_equal(batch.pred, [0, 3, 1, np.nan, 2])
    assert batch.line.tolist() == [5, 6, 7, 8, 13]


def test_extra_columns_are_named_by_element_and_collision_free():
    batch = read_doc(SMALL, pred_attr="unk", keep_text=True)
    assert list(batch.extra) == ["sentence@id", "sentence@langsrc", "sentence@rank", "src@length", "src.text",
                                 "gold@rank", "pred@unk", "tgt@predicted_rank", "tgt.text", "ref.text"]
    assert batch.extra["sentence@rank"].tolist() == ["0", "0", "0", "0", ""]  # not the <tgt> rank
    assert batch.extra["gold@rank"].tolist() == ["2", "-1", "", "", "1"]
    assert batch.extra["tgt@predicted_rank"].tolist() == ["2.50", "", "", "", ""]
    # text exactly as in the file: inner spaces, tab, entity, character reference for CR
    assert batch.extra["src.text"].tolist() == ["Ein  Satz & mehr"] * 4 + ["S2"]
    assert batch.extra["tgt.text"].tolist() == ["  A text\t", "B", "", "D", "x\ry"]
    assert batch.extra["ref.text"].tolist() == ["R"] * 4 + [""]


def test_pred_higher_better_is_negated_and_carried_as_score():
    batch = read_doc(SMALL, pred_attr="unk", pred_higher_better=True)
    np.testing.assert_array_equal(batch.pred, [0, -3, -1, np.nan, -2])
    assert "score@unk" in batch.extra and "pred@unk" not in batch.extra


def test_other_gold_attribute_and_gold_equal_to_pred():
    batch = read_doc(SMALL, gold_attr="unk", pred_attr="unk")
    np.testing.assert_array_equal(batch.gold, [0, 3, 1, np.nan, 2])
    np.testing.assert_array_equal(batch.pred, batch.gold)
    assert "gold@unk" in batch.extra and "tgt@rank" in batch.extra


def test_repeated_or_missing_ids_get_the_ordinal():
    groups = "".join(f'<judgedsentence{f" id={i!r}" if i is not None else ""}><tgt system="a" rank="1"/>'
                     "</judgedsentence>" for i in ["7", "7", None, "7#2", "x", ""])
    batch = read_doc(f"<jcml>{groups}</jcml>")
    # 2nd "7" is judgedsentence 2 -> 7#2; no id -> #3; an explicit "7#2" is taken -> 7#2#4; id="" -> #6
    assert batch.group.tolist() == ["7", "7#2", "#3", "7#2#4", "x", "#6"]
    assert batch.extra["sentence@id"].tolist() == ["7", "7", "", "7#2", "x", ""]


def test_missing_or_repeated_system_falls_back_to_position():
    doc = ('<jcml><judgedsentence id="g"><tgt rank="1"/><tgt system="s" rank="2"/><tgt system="s" rank="3"/>'
           '<tgt system="tgt1" rank="4"/></judgedsentence><judgedsentence id="h"><tgt system="s" rank="1"/>'
           "</judgedsentence></jcml>")
    batch = read_doc(doc)
    # tgt 1 has no system and "tgt1" is taken by tgt 4 -> "tgt1#1"; tgt 3 repeats "s" -> "tgt3"
    assert batch.item.tolist() == ["tgt1#1", "s", "tgt3", "tgt1", "s"]
    assert batch.extra["tgt@system"].tolist() == ["", "s", "s", "tgt1", "s"]
    back = to_jcml(batch).encode()
    assert xml_content(back) == xml_content(doc.encode())


def test_multiple_src_and_ref():
    doc = ('<jcml><judgedsentence id="g"><src a="1">s1</src><src>s2</src><tgt system="x" rank="1">t</tgt>'
           '<ref>r1</ref><ref b="2">r2</ref></judgedsentence>'
           '<judgedsentence id="h"><src>only</src><tgt system="x" rank="1"/></judgedsentence></jcml>')
    batch = read_doc(doc, keep_text=True)
    assert list(batch.extra) == ["sentence@id", "src@a", "src.text", "src2.text", "gold@rank", "tgt.text",
                                 "ref.text", "ref2@b", "ref2.text"]
    assert batch.extra["src2.text"].tolist() == ["s2", ""]
    assert xml_content(to_jcml(batch).encode()) == xml_content(doc.encode())


def test_batches_hold_whole_groups(monkeypatch):
    path = TEST_DATA / "jcml_wmt08.jcml"
    whole = read_doc(path.read_bytes())
    monkeypatch.setattr(jcml, "BATCH_ROWS", 7)
    batches = list(read_jcml(str(path)))
    assert len(batches) > 3
    assert all(b.n_rows >= 7 for b in batches[:-1])
    merged = concat(batches)
    assert merged.group.tolist() == whole.group.tolist()
    assert merged.offsets.tolist() == whole.offsets.tolist()
    assert all(merged.extra[k].tolist() == whole.extra[k].tolist() for k in whole.extra)


def test_batches_also_end_by_size(monkeypatch):
    monkeypatch.setattr(jcml, "CHUNK_BYTES", 512)
    monkeypatch.setattr(jcml, "BATCH_BYTES", 2048)
    batches = list(read_jcml(str(TEST_DATA / "jcml_wmt10_xf.jcml")))
    assert len(batches) == 4  # each judgedsentence of the excerpt is over 2 KB


def test_memory_stays_flat_while_parsing(monkeypatch):
    """Finished <judgedsentence> elements are freed: the tree holds at most one chunk's worth."""
    monkeypatch.setattr(jcml, "CHUNK_BYTES", 256)
    groups = "".join(f'<judgedsentence id="{i}"><src>s</src><tgt system="a" rank="1">t</tgt></judgedsentence>'
                     for i in range(3000))
    stream = io.BytesIO(f"<jcml>{groups}</jcml>".encode())
    widest = behind = 0
    for count, elem in enumerate(jcml._elements(stream, "x"), start=1):
        widest = max(widest, len(elem.getparent()))
        behind = max(behind, elem.getparent().index(elem))
    assert count == 3000 and behind <= 1 and widest <= 2 + 256 // 80


def test_sources_path_gzip_stdin_and_pipe(tmp_path, monkeypatch):
    data = (TEST_DATA / "jcml_wmt10.jcml").read_bytes()
    expected = read_doc(data)
    packed = tmp_path / "x.jcml.gz"
    packed.write_bytes(gzip.compress(data))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    for batch in (concat(list(read_jcml(str(packed)))), concat(list(read_jcml("-")))):
        assert batch.group.tolist() == expected.group.tolist()
        np.testing.assert_array_equal(batch.gold, expected.gold)
    assert concat(list(read_jcml(io.BytesIO(data)))).n_rows == 20
    # a path that cannot be read twice (process substitution) is spooled
    result = bash(f"{rankeval_cmd()} convert --from jcml <(cat tests/data/jcml_wmt10.jcml) | wc -l")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().strip() == "21"


def test_bom_and_utf16_documents():
    text = (TEST_DATA / "jcml_wmt08.jcml").read_text("utf-8")
    expected = read_doc(text.encode())
    assert read_doc(b"\xef\xbb\xbf" + text.encode()).item.tolist() == expected.item.tolist()
    utf16 = text.replace('<?xml version="1.0" ?>', '<?xml version="1.0" encoding="UTF-16"?>').encode("utf-16")
    batch = read_doc(utf16, keep_text=True)
    assert batch.item.tolist() == expected.item.tolist()
    assert "für" in batch.extra["src.text"][0]


# --- bad input ------------------------------------------------------------------------------------------

def error_of(doc, **options) -> DataError:
    with pytest.raises(DataError) as info:
        read_doc(doc, **options)
    return info.value


@pytest.mark.parametrize("attr, value", [("rank", "abc"), ("rank", "nan"), ("rank", "inf"), ("unk", "1,5")])
def test_non_numeric_values_name_the_line(attr, value):
    doc = f'<jcml>\n<judgedsentence id="g">\n<tgt system="a" rank="1" unk="0"/>\n<tgt system="b" {attr}="{value}"/>'
    doc += "\n</judgedsentence>\n</jcml>"
    err = error_of(doc.replace(f'system="b" rank="1"', 'system="b"'), pred_attr="unk")
    assert err.line == 4 and f"{attr}='{value}'" in err.message and "not a finite number" in err.message


@pytest.mark.parametrize("doc, line, words", [
    ('<jcml>\n<judgedsentence id="1">\n<tgt system="a">\n</judgedsentence>\n</jcml>', 4, "mismatch"),
    ('<jcml>\n<judgedsentence id="1">\n<tgt system="a" rank="1">x</tgt>', 3, "Premature end"),
    ('<jcml>\n<judgedsentence id="1">\n<tgt system="a">&foo;</tgt></judgedsentence></jcml>', 3, "'foo' not defined"),
    ('<jcml>\n<judgedsentence>\n<tgt system="a" rank=1/></judgedsentence></jcml>', 3, "AttValue"),
    ('<jcml></jcml>\n<jcml/>', 2, "Extra content"),
])
def test_broken_xml_names_file_and_line(doc, line, words):
    err = error_of(doc)
    assert err.line == line and words in err.message and err.message.startswith("invalid XML")


@pytest.mark.parametrize("doc, line, words", [
    ("", 1, "empty input"),
    ("  \n", 1, "empty input"),
    ("group\titem\tgold\n", 1, "not an XML document"),
    ('<?xml version="1.0"?>\n<root><judgedsentence/></root>', 2, "root element is <root>, expected <jcml>"),
    ("<jcml>\n<judgedsentence id='1'>\n</judgedsentence>\n</jcml>", 2, "no <tgt> items"),
    ("<jcml>\n<judgedsentence><tgt system='a'/>\n<note/></judgedsentence></jcml>", 3, "unexpected element <note>"),
    ("<jcml>\n<judgedsentence><tgt system='a'>x<b>y</b></tgt></judgedsentence></jcml>", 2, "only text"),
    ("<jcml>\n<judgedsentence>loose<tgt system='a'/></judgedsentence></jcml>", 2, "text directly inside"),
    ("<jcml>\n<judgedsentence><tgt system='a'/></judgedsentence>\n<meta/>\n"
     "<judgedsentence><tgt system='a'/></judgedsentence></jcml>", 3, "unexpected element <meta> in <jcml>"),
    ("<jcml>\n<judgedsentence><tgt system='a'/></judgedsentence>\n<meta/></jcml>", 3, "unexpected element <meta>"),
    ("<jcml>\n<x><judgedsentence><tgt system='a'/></judgedsentence></x></jcml>", 2, "child of <jcml>"),
    ("<jcml>\n<judgedsentence><tgt system='a'/></judgedsentence>\n<jcml/></jcml>", 3, "one <jcml> root"),
    ("<jcml xmlns:q='u'>\n<judgedsentence q:a='1'><tgt system='a'/></judgedsentence></jcml>", 2, "namespaced"),
])
def test_structure_errors(doc, line, words):
    err = error_of(doc)
    assert err.line == line and words in err.message


def test_system_cannot_be_the_gold_attribute():
    assert "system" in error_of(SMALL, gold_attr="system").message


def test_cli_error_is_one_line_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.jcml"
    bad.write_text('<jcml>\n<judgedsentence id="1">\n<tgt system="a" rank="x"/>\n</judgedsentence>\n</jcml>\n')
    result = cli("convert", "--from", "jcml", str(bad))
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode() == f"rankeval: {bad}:3: <tgt> attribute rank='x' is not a finite number\n"


# --- hostile XML ---------------------------------------------------------------------------

BILLION_LAUGHS = HEAD + "<!DOCTYPE jcml [\n <!ENTITY lol \"lol\">\n" + "".join(
    f' <!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">\n' for i in range(1, 10)
) + "]>\n<jcml><judgedsentence id=\"1\"><tgt system=\"a\" rank=\"1\">&lol9;</tgt></judgedsentence></jcml>\n"

XXE_FILE = HEAD + ('<!DOCTYPE jcml [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
                   '<jcml><judgedsentence id="1"><tgt system="a" rank="1">&xxe;</tgt></judgedsentence></jcml>\n')


@pytest.fixture
def http_server():
    """A local HTTP server recording every request it receives."""
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            body = b'<!ENTITY leak "fetched">'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", hits
    server.shutdown()


def network_documents(url: str) -> list[str]:
    return [
        HEAD + f'<!DOCTYPE jcml SYSTEM "{url}/evil.dtd">\n<jcml><judgedsentence><tgt system="a" rank="1">&leak;'
               "</tgt></judgedsentence></jcml>\n",
        HEAD + f'<!DOCTYPE jcml [\n<!ENTITY % ext SYSTEM "{url}/ext.dtd">\n%ext;\n]>\n<jcml/>\n',
        HEAD + f'<!DOCTYPE jcml [\n<!ENTITY web SYSTEM "{url}/x">\n]>\n<jcml><judgedsentence>'
               '<tgt system="a" rank="1">&web;</tgt></judgedsentence></jcml>\n',
    ]


def _limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("name, doc, line", [("laughs", BILLION_LAUGHS, 3), ("xxe", XXE_FILE, 3)],
                         ids=["billion-laughs", "external-file"])
def test_cli_refuses_entity_declarations_quickly(tmp_path, name, doc, line):
    path = tmp_path / f"{name}.jcml"
    path.write_text(doc)
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "rankeval_cli", "convert", "--from", "jcml", str(path)],
                            capture_output=True, timeout=60, preexec_fn=_limit_memory)
    assert time.monotonic() - start < 30
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode() == f"rankeval: {path}:{line}: DTD/entity declarations are not allowed\n"
    assert b"root:" not in result.stderr


def test_no_network_access(tmp_path, http_server):
    url, hits = http_server
    for k, doc in enumerate(network_documents(url)):
        path = tmp_path / f"net{k}.jcml"
        path.write_text(doc)
        result = cli("convert", "--from", "jcml", str(path))
        assert result.returncode == 1 and b"DTD/entity declarations are not allowed" in result.stderr
    assert hits == []


def test_parser_itself_is_safe_behind_the_prolog_check(monkeypatch, http_server):
    """Defence in depth: with the prolog check switched off, lxml's settings still expand,
    read and fetch nothing, and the DOCTYPE is still refused at the root element."""
    url, hits = http_server

    def no_check(chunks, name):
        return b"".join(chunks)

    monkeypatch.setattr(jcml, "_check_prolog", no_check)
    for doc in [BILLION_LAUGHS, XXE_FILE, *network_documents(url)]:
        start = time.monotonic()
        with pytest.raises(DataError) as info:
            read_doc(doc)
        assert time.monotonic() - start < 5
        assert "DTD/entity declarations are not allowed" in info.value.message or "invalid XML" in info.value.message
        assert "root:" not in info.value.message
    assert hits == []


def test_doctype_late_in_a_long_prolog(monkeypatch):
    comment = "<!--" + "x" * 5000 + "-->\n"
    err = error_of(HEAD + comment * 3 + BILLION_LAUGHS[len(HEAD):])
    assert err.message == "DTD/entity declarations are not allowed" and err.line == 6
    monkeypatch.setattr(jcml, "PROLOG_LIMIT", 4096)
    assert "no <jcml> root element" in error_of(HEAD + comment * 3 + "<jcml/>").message


def test_utf16_doctype_is_refused():
    err = error_of(XXE_FILE.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16"))
    assert err.message == "DTD/entity declarations are not allowed" and err.line == 3


# --- writing ------------------------------------------------------------------------------------------

CANONICAL = [("s1", "sysA", 1, 2, "de-en"), ("s1", "sysB", "", "", "de-en"),
             ("s2", "a&b", 3, 0.25, 'x<y"z\\tq')]


def test_canonical_tsv_written_as_jcml():
    batch = concat(list(read_any(tsv_bytes(CANONICAL, ("group", "item", "gold", "pred", "lp")))))
    assert to_jcml(batch) == (
        HEAD + "<jcml>\n"
        '\t<judgedsentence id="s1">\n'
        '\t\t<tgt system="sysA" lp="de-en" rank="1" predicted_rank="2"/>\n'
        '\t\t<tgt system="sysB" lp="de-en" rank="-1"/>\n'
        "\t</judgedsentence>\n"
        '\t<judgedsentence id="s2">\n'
        '\t\t<tgt system="a&amp;b" lp="x&lt;y&quot;z&#9;q" rank="3" predicted_rank="0.25"/>\n'
        "\t</judgedsentence>\n"
        "</jcml>\n")


def test_empty_stream_is_an_empty_document():
    assert to_jcml([]) == HEAD + "<jcml>\n</jcml>\n"
    assert list(read_jcml(io.BytesIO(to_jcml([]).encode()))) == []


def test_changed_values_are_written_unchanged_texts_kept():
    batch = read_doc((TEST_DATA / "jcml_wmt10_xf.jcml").read_bytes(), pred_attr="prob", pred_higher_better=True)
    gold, pred = batch.gold.copy(), batch.pred.copy()
    gold[0], pred[1] = 4.5, 1.0  # first row gets a new gold, second a new pred (prob = -pred)
    gold[2] = np.nan
    content = xml_content(to_jcml(batch.with_values(gold=gold, pred=pred)).encode(), text=False)
    original = xml_content((TEST_DATA / "jcml_wmt10_xf.jcml").read_bytes(), text=False)
    tgts = [c[1] for c in content[0][1] if c[0] == "tgt"]
    before = [c[1] for c in original[0][1] if c[0] == "tgt"]
    assert tgts[0]["rank"] == "4.5" and tgts[1]["prob"] == "-1" and tgts[2]["rank"] == "-1"
    assert tgts[3] == before[3] and tgts[0]["prob"] == before[0]["prob"] == "-73.2141113281"
    assert content[1:] == original[1:]


def test_carried_text_kept_when_it_still_holds_the_value():
    batch = read_doc(SMALL, pred_attr="predicted_rank")
    tgt = [c[1] for c in xml_content(to_jcml(batch).encode())[0][1] if c[0] == "tgt"]
    assert tgt[0]["predicted_rank"] == "2.50" and tgt[1]["rank"] == "-1" and "rank" not in tgt[3]


def test_prediction_without_its_attribute_name_goes_to_predicted_rank():
    doc = '<jcml><judgedsentence id="g"><tgt system="a" rank="1" predicted_rank="5"/></judgedsentence></jcml>'
    batch = read_doc(doc)
    batch = batch.with_values(pred=np.array([3.0]))
    tgt = xml_content(to_jcml(batch).encode())[0][1][0][1]
    assert tgt == {"system": "a", "rank": "1", "predicted_rank": "5", "pred": "3"}


@pytest.mark.parametrize("extra, words", [
    ({"a b": ["x"]}, "not an XML name"),
    ({"xmlns": ["u"]}, "not an XML name"),
    ({"lp": ["x"], "tgt@lp": ["y"]}, "would both write attribute lp of <tgt>"),
    ({"tgt@rank": ["1"]}, "would both write attribute rank"),
    ({"system": ["x"]}, "would both write attribute system"),
    ({"gold@rank": ["1"], "gold@score": ["1"]}, "two columns carry the gold attribute"),
    ({"note": ["bad\x01"]}, "U+0001"),
])
def test_writer_refuses_what_xml_cannot_hold(extra, words):
    batch = Batch(group=np.array(["g"], dtype=object), offsets=offsets_from_sizes(np.array([1])),
                  item=np.array(["a"], dtype=object), gold=np.array([1.0]), pred=np.array([np.nan]),
                  extra={k: np.array(v, dtype=object) for k, v in extra.items()}, line=np.array([7]), source="in")
    with pytest.raises(DataError) as info:
        to_jcml(batch)
    assert words in info.value.message


def test_sentence_column_must_be_constant_within_a_group():
    rows = [("g", "a", 1, "", "x"), ("g", "b", 2, "", "y")]
    batch = concat(list(read_any(tsv_bytes(rows, ("group", "item", "gold", "pred", "sentence@lp")))))
    with pytest.raises(DataError) as info:
        to_jcml(batch)
    assert info.value.line == 3 and "differs within group 'g'" in info.value.message


TEXT = st.text(alphabet="ab &<>\"'\t\n\r\u00e9\u4e2d]", max_size=6)
VALUE = st.one_of(st.just(np.nan), st.integers(-3, 9).map(float), st.floats(-1e6, 1e6, allow_nan=False))


@st.composite
def canonical_batches(draw):
    sizes = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    n = sum(sizes)
    items = [f"s{k}{draw(TEXT)}" for size in sizes for k in range(size)]
    gold = [v if v != -1 else 2.0 for v in draw(st.lists(VALUE, min_size=n, max_size=n))]
    return Batch(group=np.array([f"g{i}{draw(TEXT)}" for i in range(len(sizes))], dtype=object),
                 offsets=offsets_from_sizes(np.array(sizes)), item=np.array(items, dtype=object),
                 gold=np.array(gold), pred=np.array(draw(st.lists(VALUE, min_size=n, max_size=n))),
                 extra={"note": np.array(draw(st.lists(TEXT, min_size=n, max_size=n)), dtype=object)},
                 line=np.arange(n), source="h")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(canonical_batches())
def test_canonical_to_jcml_and_back(batch):
    """Any canonical stream survives JCML: ids, values (-1 gold excepted, it is the blank), texts.
    (Without any prediction the attribute is written nowhere, and naming it would be an error.)"""
    predicted = not np.isnan(batch.pred).all()
    back = read_doc(to_jcml(batch), pred_attr="predicted_rank" if predicted else None)
    nonempty = batch.sizes > 0
    assert back.group.tolist() == batch.group[nonempty].tolist()
    assert back.item.tolist() == batch.item.tolist()
    np.testing.assert_array_equal(back.gold, batch.gold)
    np.testing.assert_array_equal(back.pred, batch.pred)
    assert back.extra.get("tgt@note", np.array([""] * batch.n_rows, dtype=object)).tolist() == \
        batch.extra["note"].tolist()


# --- round trips on the real data -------------------------------------------------------------------

def convert_text(data: bytes, fmt: str, **options) -> bytes:
    out = io.StringIO()
    write_any(read_any(io.BytesIO(data), fmt="jcml", **options), out, fmt=fmt)
    return out.getvalue().encode()


def back_to_jcml(data: bytes, fmt: str) -> bytes:
    out = io.StringIO()
    write_any(read_any(io.BytesIO(data), fmt=fmt), out, fmt="jcml")
    return out.getvalue().encode()


@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_excerpt_round_trip_loses_nothing(path, fmt):
    original = path.read_bytes()
    back = back_to_jcml(convert_text(original, fmt, keep_text=True), fmt)
    assert xml_content(back) == xml_content(original)
    again = back_to_jcml(convert_text(back, fmt, keep_text=True), fmt)
    assert again == back


@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: p.name)
def test_round_trip_without_text_keeps_every_attribute(path):
    original = path.read_bytes()
    back = back_to_jcml(convert_text(original, "tsv", pred_attr="unk" if "xf" in path.name else None), "tsv")

    def attributes(data):
        return [(js, [(tag, attrs) for tag, attrs, _ in kids if attrs or tag == "tgt"])
                for js, kids in xml_content(data, text=False)]

    assert attributes(back) == attributes(original)


def test_round_trip_through_the_command_line():
    path = "tests/data/jcml_wmt10_xf.jcml"
    cmd = rankeval_cmd()
    result = bash(f"{cmd} convert --from jcml {path} --keep-text | {cmd} convert --output-format jcml")
    assert result.returncode == 0, result.stderr
    assert xml_content(result.stdout) == xml_content(Path(__file__).resolve().parent.joinpath(
        "data", "jcml_wmt10_xf.jcml").read_bytes())


def test_feature_as_prediction_through_normalize():
    cmd = rankeval_cmd()
    result = bash(f"{cmd} convert --from jcml --pred-attr unk tests/data/jcml_wmt10_xf.jcml | {cmd} normalize "
                  "| cut -f1-4 | head -3")
    assert result.returncode == 0, result.stderr
    # judgment 51: unk = 1, 0, 2, 0, 2 -> ceiling ranks 3, 2, 5, 2, 5
    assert result.stdout.decode() == "group\titem\tgold\tpred\n51\tlimsi\t3\t3\n51\trwth\t2\t2\n"


def independent_counts(path: Path) -> tuple[int, list[int], int]:
    """Groups, items per group and -1 blanks, counted with the standard library's parser."""
    root = StdET.parse(path).getroot()
    sizes = [len(js.findall("tgt")) for js in root.iter("judgedsentence")]
    blanks = sum(t.get("rank") == "-1" for t in root.iter("tgt"))
    return len(sizes), sizes, blanks


@pytest.mark.parametrize("name, groups, items, blanks", [
    ("wmt10-test.jcml", 184, 920, 5), ("wmt10-test.xf.jcml", 184, 920, 5), ("wmt08.jcml", 365, 1810, 0),
])
def test_whole_real_files(shared, name, groups, items, blanks):
    path = shared / "jcml" / name
    n_groups, sizes, n_blanks = independent_counts(path)
    assert (n_groups, sum(sizes), n_blanks) == (groups, items, blanks)
    batch = concat(list(read_jcml(str(path), pred_attr="unk" if ".xf." in name else None, keep_text=True)))
    assert batch.n_groups == groups and batch.sizes.tolist() == sizes
    assert int(np.isnan(batch.gold).sum()) == blanks
    assert len(set(batch.group.tolist())) == groups
    if name == "wmt08.jcml":
        assert sorted(set(sizes)) == [1, 4, 5] and sizes.count(4) == 11 and sizes.count(1) == 1
    tsv = convert_text(path.read_bytes(), "tsv", keep_text=True)
    assert xml_content(back_to_jcml(tsv, "tsv")) == xml_content(path.read_bytes())


def test_small_real_fixtures(shared):
    for name in ("analytic_1.jcml", "pairwiseparallelsentence_test.jcml"):
        data = (shared / "jcml" / name).read_bytes()
        n_groups, sizes, _ = independent_counts(shared / "jcml" / name)
        batch = read_doc(data)
        assert batch.sizes.tolist() == sizes and batch.n_groups == n_groups
        assert xml_content(back_to_jcml(convert_text(data, "tsv", keep_text=True), "tsv")) == xml_content(data)


# --- an attribute no <tgt> has --------------------------------------------------------------------

@pytest.mark.parametrize("option, value, near", [("--pred-attr", "unkk", "unk"), ("--pred-attr", "PROB", "prob"),
                                                  ("--gold-attr", "rnk", "rank"), ("--pred-attr", "zzzzzz", None)])
def test_an_attribute_no_tgt_has_is_an_error_naming_the_nearest(option, value, near):
    """Once all-NaN results and exit 0 for a typo in --pred-attr."""
    path = str(TEST_DATA.parent.parent / "examples" / "wmt10-de-en.xf.jcml")
    result = invoke(["convert", "--from", "jcml", option, value, path])
    message = check_exit(result, source=path)
    assert result.exit_code == 1 and f"no <tgt> has the attribute {value!r} ({option})" in message
    assert (f"did you mean {near!r}?" in message) == (near is not None) and "unk, prob" in message
