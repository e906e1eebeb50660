"""XML safety of the JCML reader: hostile documents are refused quickly, in
bounded memory, with a one-line error; nothing is read from disk or the network; and a
very large document still streams in flat memory.

Two layers are tested: the reader refuses any DOCTYPE before libxml2 sees the document,
and the parser options (no DTD loading, no network, no entity resolution, libxml2's
default size limits) would hold even if a DOCTYPE got through.

Peak memory is measured in a child process (``VmHWM``): libxml2 allocates outside
Python, where tracemalloc cannot see.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from robust import invoke, run_process

jcml = pytest.importorskip("rankeval_cli.formats.jcml", reason="the JCML reader is not there yet")

from rankeval_cli.errors import DataError  # noqa: E402
from rankeval_cli.formats import read  # noqa: E402

GROUP = '<judgedsentence id="1"><src>s</src><tgt system="a" rank="1">x</tgt><tgt system="b" rank="2">y</tgt>' \
        '</judgedsentence>'
SECRET = "TOPSECRET-7f3a9c"

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE jcml [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<jcml><judgedsentence id="&lol9;"><src>&lol9;</src><tgt system="a" rank="1">&lol9;</tgt></judgedsentence></jcml>
"""

QUADRATIC = ('<?xml version="1.0"?>\n<!DOCTYPE jcml [<!ENTITY a "' + "x" * 100_000 + '">]>\n<jcml>'
             '<judgedsentence id="1"><tgt system="a" rank="1">' + "&a;" * 100_000 + "</tgt></judgedsentence></jcml>\n")


def external_file(path) -> str:
    return (f'<?xml version="1.0"?>\n<!DOCTYPE jcml [<!ENTITY xxe SYSTEM "file://{path}">]>\n'
            f'<jcml><judgedsentence id="&xxe;"><tgt system="&xxe;" rank="1">&xxe;</tgt></judgedsentence></jcml>\n')


def network_dtds(port: int) -> dict[str, str]:
    url = f"http://127.0.0.1:{port}/evil"
    return {
        "external DTD": f'<?xml version="1.0"?>\n<!DOCTYPE jcml SYSTEM "{url}.dtd">\n<jcml>{GROUP}</jcml>\n',
        "public DTD": f'<?xml version="1.0"?>\n<!DOCTYPE jcml PUBLIC "-//EVIL//DTD" "{url}.dtd">\n<jcml>{GROUP}</jcml>\n',
        "parameter entity": (f'<?xml version="1.0"?>\n<!DOCTYPE jcml [<!ENTITY % p SYSTEM "{url}.ent"> %p;]>\n'
                             f'<jcml>{GROUP}</jcml>\n'),
        "external entity": (f'<?xml version="1.0"?>\n<!DOCTYPE jcml [<!ENTITY e SYSTEM "{url}.txt">]>\n'
                            f'<jcml><judgedsentence id="&e;"><tgt system="a" rank="1"/></judgedsentence></jcml>\n'),
        "XInclude": (f'<?xml version="1.0"?>\n<jcml xmlns:xi="http://www.w3.org/2001/XInclude">'
                     f'<xi:include href="{url}.xml" parse="text"/>{GROUP}</jcml>\n'),
        "stylesheet PI": f'<?xml version="1.0"?>\n<?xml-stylesheet href="{url}.xsl"?>\n<jcml>{GROUP}</jcml>\n',
    }


def refused(raw: bytes, **options) -> DataError:
    """The DataError the reader raises for ``raw`` (fails if it reads it)."""
    with pytest.raises(DataError) as error:
        list(read(io.BytesIO(raw), fmt="jcml", **options))
    assert "\n" not in str(error.value)
    return error.value


class Listener:
    """A TCP listener on 127.0.0.1 that counts connection attempts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop = True
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


# --- layer 1: the reader refuses DTDs -----------------------------------------------------------

@pytest.mark.parametrize("doc", [BILLION_LAUGHS, QUADRATIC], ids=["billion laughs", "quadratic blowup"])
def test_entity_expansion_bombs_are_refused_at_once(doc):
    start = time.monotonic()
    error = refused(doc.encode())
    assert time.monotonic() - start < 2
    assert "DTD/entity declarations are not allowed" in error.message and error.line is not None


def test_external_entity_does_not_read_a_local_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    error = refused(external_file(secret).encode())
    assert SECRET not in str(error)
    path = tmp_path / "xxe.jcml"
    path.write_text(external_file(secret))
    result = invoke(["convert", "--from", "jcml", str(path)])
    assert result.exit_code == 1 and SECRET not in result.output
    assert result.stderr.startswith(f"rankeval: {path}:2: ") and result.stderr.count("\n") == 1


def test_no_dtd_or_include_is_fetched_over_the_network(listener):
    for name, doc in network_dtds(listener.port).items():
        try:
            list(read(io.BytesIO(doc.encode()), fmt="jcml"))
        except DataError as error:
            assert "\n" not in str(error), name
    time.sleep(0.3)
    assert listener.connections == 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"])
def test_doctype_in_other_encodings_is_refused(encoding):
    doc = BILLION_LAUGHS.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{encoding}"?>')
    codec = {"utf-16": "utf-16", "utf-32": "utf-32"}.get(encoding, encoding)
    refused(doc.encode(codec))


@pytest.mark.parametrize("doc", [
    "<!DOCTYPE jcml>\n<jcml></jcml>\n",
    "<!-- a comment first -->\n<?pi x?>\n<!DOCTYPE jcml [<!ENTITY e 'x'>]>\n<jcml></jcml>\n",
    '<?xml version="1.0"?><!DOCTYPE jcml [<!ELEMENT jcml ANY>]><jcml/>',
    "\ufeff<!DOCTYPE jcml SYSTEM 'x.dtd'><jcml/>",
    "<!doctype jcml><jcml/>",
    "<jcml><!DOCTYPE jcml [<!ENTITY e 'x'>]></jcml>",
    "<jcml>&undeclared;</jcml>",
    '<jcml><judgedsentence id="&undeclared;"><tgt system="a" rank="1"/></judgedsentence></jcml>',
], ids=["bare", "after comment and PI", "element decl", "after BOM", "lowercase", "inside root", "undeclared",
        "undeclared in attribute"])
def test_every_doctype_or_entity_trick_is_an_error(doc):
    refused(doc.encode("utf-8"))


def test_doctype_behind_a_long_prolog_is_still_refused():
    doc = "<!--" + "x" * (jcml.PROLOG_LIMIT + 10) + "-->\n" + BILLION_LAUGHS.split("\n", 1)[1]
    start = time.monotonic()
    refused(doc.encode())
    assert time.monotonic() - start < 5


def test_deep_nesting_and_huge_text_are_refused():
    deep = "<jcml><judgedsentence id='1'><tgt system='a' rank='1'>" + "<b>" * 100_000 + "</b>" * 100_000 + \
        "</tgt></judgedsentence></jcml>"
    refused(deep.encode())
    huge = "<jcml><judgedsentence id='1'><tgt system='a' rank='1'>" + "x" * 12_000_000 + \
        "</tgt></judgedsentence></jcml>"
    refused(huge.encode(), keep_text=True)


@pytest.mark.parametrize("cmd", ["convert", "tau"])
def test_the_cli_refuses_a_bomb_in_one_line(cmd, tmp_path):
    path = tmp_path / "bomb.jcml"
    path.write_text(BILLION_LAUGHS)
    args = [cmd, "--from", "jcml", str(path)] if cmd == "convert" else [cmd, str(path)]
    start = time.monotonic()
    result = run_process(args)
    assert time.monotonic() - start < 30
    assert result.returncode == 1 and result.stdout in (b"", b"group\titem\tgold\tpred\n")
    assert result.stderr.decode().startswith(f"rankeval: {path}:") and result.stderr.count(b"\n") == 1


# --- layer 2: the parser options hold on their own ------------------------------------------------

def _parse_with_reader_options(doc: bytes):
    from lxml import etree

    parser = etree.XMLPullParser(events=("end",), **jcml.PARSER_OPTIONS)
    parser.feed(doc)
    events = [(e.tag, dict(e.attrib), e.text) for _, e in parser.read_events()]
    parser.close()
    return events


def test_parser_options_do_not_load_external_entities(tmp_path, listener):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    docs = [external_file(secret), *network_dtds(listener.port).values()]
    for doc in docs:
        try:
            events = _parse_with_reader_options(doc.encode())
        except Exception:  # an XMLSyntaxError is as good as not resolving
            continue
        assert SECRET not in repr(events)
    time.sleep(0.3)
    assert listener.connections == 0


PEAK = """
import resource
try:  # VmHWM: this process's own peak; ru_maxrss also counts the parent's RSS at fork (Linux)
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("PEAK", peak)
"""


def _peak_kb(code: str, timeout: int = 300) -> tuple[int, str]:
    """Run ``code`` in a fresh interpreter; (its peak RSS in kB, its stdout)."""
    wrapped = code + PEAK
    proc = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, RANKEVAL_PROGRESS="0"))
    assert proc.returncode == 0, proc.stderr
    peak = int(proc.stdout.rsplit("PEAK", 1)[1])
    return peak, proc.stdout


def test_parser_options_bound_a_billion_laughs(tmp_path):
    """Even past the DOCTYPE refusal, libxml2's amplification limit stops the bomb fast and small."""
    path = tmp_path / "bomb.xml"
    path.write_text(BILLION_LAUGHS)
    code = textwrap.dedent(f"""
        import time
        from lxml import etree
        from rankeval_cli.formats.jcml import PARSER_OPTIONS
        start = time.monotonic()
        parser = etree.XMLPullParser(events=("end",), **PARSER_OPTIONS)
        try:
            parser.feed(open({str(path)!r}, "rb").read())
            size = sum(len(e.text or "") + sum(map(len, e.attrib.values())) for _, e in parser.read_events())
            parser.close()
        except etree.XMLSyntaxError:
            size = -1
        print("SIZE", size, "SECONDS", time.monotonic() - start)
        """)
    peak, out = _peak_kb(code)
    size, seconds = int(out.split("SIZE")[1].split()[0]), float(out.split("SECONDS")[1].split()[0])
    assert size < 10_000_000 and seconds < 5 and peak < 300_000, out


# --- very large documents still stream ------------------------------------------------------------

def _write_jcml(path, groups: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<jcml>\n')
        for start in range(0, groups, 10_000):
            f.write("".join(
                f'<judgedsentence id="{i}"><src>source {i}</src>'
                + "".join(f'<tgt system="sys{k}" rank="{(i + k) % 5 + 1}">target {k}</tgt>' for k in range(5))
                + "</judgedsentence>\n" for i in range(start, min(groups, start + 10_000))))
        f.write("</jcml>\n")


STREAM = """
from rankeval_cli.formats import read
rows = groups = 0
for batch in read({path!r}, fmt="jcml"):
    rows += batch.n_rows
    groups += batch.n_groups
print("ROWS", rows, "GROUPS", groups)
"""


@pytest.fixture(scope="module")
def stream_peaks(tmp_path_factory):
    """Peak RSS (kB) reading a 40k- and a 200k-group document, and the size difference of the two (kB)."""
    folder = tmp_path_factory.mktemp("large")
    small, large = folder / "small.jcml", folder / "large.jcml"
    _write_jcml(small, 40_000)
    _write_jcml(large, 200_000)
    peak_small, out_small = _peak_kb(STREAM.format(path=str(small)))
    peak_large, out_large = _peak_kb(STREAM.format(path=str(large)))
    assert "ROWS 200000 GROUPS 40000" in out_small and "ROWS 1000000 GROUPS 200000" in out_large
    return peak_small, peak_large, (large.stat().st_size - small.stat().st_size) // 1024


def test_a_200k_group_document_streams(stream_peaks):
    """Five times the groups: memory grows far less than the document (~54 MB), let alone a tree of it."""
    peak_small, peak_large, more_kb = stream_peaks
    assert peak_large - peak_small < 0.8 * more_kb, stream_peaks
    assert peak_large < 250_000, stream_peaks


def test_a_200k_group_document_streams_in_flat_memory(stream_peaks):
    """160k more groups cost about 10 MB (group ids kept as 8-byte digests, not strings: 24 MB before f9b6ce2)."""
    peak_small, peak_large, _ = stream_peaks
    assert peak_large - peak_small < 16_000, stream_peaks
