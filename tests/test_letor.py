"""LETOR / SVMlight ranking reader: groups, features, the absent-index rule, comments, errors."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

from rankeval_cli import formats
from rankeval_cli.errors import DataError
from rankeval_cli.formats import letor
from robust import invoke


def read(text: str, **kw):
    return list(formats.read(io.BytesIO(text.encode()), "letor", **kw))


def rows(batches):
    b = batches[0] if len(batches) == 1 else __import__("rankeval_cli.batch", fromlist=["concat"]).concat(batches)
    return b


def test_groups_items_gold_and_sparse_features():
    text = ("2 qid:10 1:0.5 3:7 # docid = GX01 inc = 1\n"
            "0 qid:10 2:1.25\n"
            "\n"
            "# a comment line\n"
            "1 qid:11 1:3 2:4 3:5 #docid=GX03\n")
    b = rows(read(text))
    assert b.group.tolist() == ["10", "11"]
    assert b.offsets.tolist() == [0, 2, 3]
    assert b.item.tolist() == ["GX01", "d2", "GX03"]  # docid from the comment, else d<line>
    assert b.gold.tolist() == [2, 0, 1]
    assert np.isnan(b.pred).all()
    assert list(b.extra) == ["f1", "f2", "f3", "comment"]
    # absent index = 0 (SVMlight sparse lines)
    assert b.extra["f1"].tolist() == ["0.5", "0", "3"]
    assert b.extra["f2"].tolist() == ["0", "1.25", "4"]
    assert b.extra["f3"].tolist() == ["7", "0", "5"]
    assert b.extra["comment"].tolist() == ["docid = GX01 inc = 1", "", "docid=GX03"]
    assert b.line.tolist() == [1, 2, 5]


def test_no_comment_column_without_comments():
    b = rows(read("1 qid:1 1:1\n0 qid:1 1:2\n"))
    assert list(b.extra) == ["f1"]


@pytest.mark.parametrize("text,line,fragment", [
    ("1 qid:1 1:1\n0 1:2\n", 2, "qid"),
    ("1 qid:1 1:1\nx qid:1 1:2\n", 2, "relevance"),
    ("1 qid:1 1:1\n0 qid:1 1:abc\n", 2, "abc"),
    ("1 qid:1 1:1\n0 qid:1 1:nan\n", 2, "nan"),
    ("1 qid:1 1:1\n0 qid:1 0:2\n", 2, "below 1"),
    ("1 qid:1 1:1\n0 qid:1 2:1 2:3\n", 2, "twice"),
    ("1 qid:1 1:1\n0 qid:1 x:3\n", 2, "INDEX:VALUE"),
    ("1 qid:1 1:1\n0 qid:1 3\n", 2, "INDEX:VALUE"),
    ("1 qid:1 1:1\n0 qid:1 2:\n", 2, "INDEX:VALUE"),
    ("1 qid:1 1:1\n0 qid:1 2:1:3\n", 2, "INDEX:VALUE"),
    ("1 qid:1 1:1\n0 qid:1 \u0663:1\n", 2, "INDEX:VALUE"),
    ("1 qid:1 1:1\n0 qid:2 1:1\n1 qid:1 1:2\n", 3, "1"),  # a query that reappears
])
def test_errors_name_file_and_line(text, line, fragment):
    with pytest.raises(DataError) as err:
        read(text)
    assert err.value.line == line
    assert fragment in str(err.value)


def test_queries_cut_by_blocks_stay_whole(monkeypatch):
    lines = [f"{q % 3} qid:{q} 1:{q}.5 2:{i}" for q in range(1, 40) for i in range(7)]
    text = "\n".join(lines) + "\n"
    whole = rows(read(text))
    monkeypatch.setattr(letor, "BLOCK_BYTES", 97)
    monkeypatch.setattr(letor, "BATCH_ROWS", 10)
    parts = read(text)
    assert len(parts) > 3
    cut = rows(parts)
    assert cut.group.tolist() == whole.group.tolist() == [str(q) for q in range(1, 40)]
    assert cut.offsets.tolist() == whole.offsets.tolist()
    assert cut.extra["f2"].tolist() == whole.extra["f2"].tolist()


def test_gzip_file_and_convert_command(tmp_path):
    path = tmp_path / "t.txt.gz"
    path.write_bytes(gzip.compress(b"2 qid:7 1:1 2:0.5\n0 qid:7 2:3\n"))
    result = invoke(["convert", "--from", "letor", str(path)])
    assert result.exit_code == 0
    assert result.output == "group\titem\tgold\tpred\tf1\tf2\n7\td1\t2\t\t1\t0.5\n7\td2\t0\t\t0\t3\n"


def test_stdin(tmp_path):
    result = invoke(["convert", "--from", "letor", "-"], b"1 qid:1 3:2\n")
    assert result.exit_code == 0
    assert result.output.splitlines()[1] == "1\td1\t1\t\t0\t0\t2"


def test_msl_sample(shared):
    batches = list(formats.read(str(shared / "letor" / "msn1.fold1.train.5k.txt.gz"), "letor"))
    b = rows(batches)
    assert b.n_rows == 5000 and b.n_groups == 43
    assert len([k for k in b.extra if k.startswith("f")]) == 136
    assert set(b.gold.tolist()) <= {0, 1, 2, 3, 4}


# --- the feature-index bound and batches sized by rows x features ---------------------------------------

@pytest.mark.parametrize("index, shown", [(10001, "10001"), (10**7, "10000000"), (10**60, "100000000000...000000"),
                                          ("0" * 5000 + "10001", "10001")])
def test_an_index_above_the_bound_names_its_line(index, shown):
    """A 44-byte file with index 10^7 once took 3.9 GB (every index is a column)."""
    with pytest.raises(DataError) as err:
        read(f"1 qid:1 1:1\n\n0 qid:1 2:1 {index}:0.5 # x 99999:1\n")
    assert err.value.line == 3 and f"feature index {shown} is above the limit of 10000" in str(err.value)


def test_the_bound_is_an_option():
    text = "1 qid:1 1:1\n0 qid:1 12000:0.5\n"
    assert read(text, max_feature_index=12000)[0].extra["f12000"].tolist() == ["0", "0.5"]
    with pytest.raises(DataError):
        read(text, max_feature_index=11999)
    result = invoke(["convert", "--from", "letor", "--max-feature-index", "12000", "-"], text.encode())
    assert result.exit_code == 0 and result.output.splitlines()[0].endswith("\tf12000")
    assert "--max-feature-index" in invoke(["convert", "--from", "letor", "-"], text.encode()).stderr


def test_zeros_in_front_of_an_index_within_the_bound():
    b = rows(read("1 qid:1 " + "0" * 5000 + "3:1\n"))
    assert b.extra["f3"].tolist() == ["1"]


def test_batches_hold_about_cells_values(monkeypatch):
    """Rows per batch x features stays within twice CELLS (whole queries; a longer query is one batch)."""
    lines = [f"{i % 3} qid:{q} 1:{q}.5 {2 + (q * 7 + i) % 48}:{i}" for q in range(1, 30) for i in range(q % 5 + 1)]
    text = "\n".join(lines) + "\n50 qid:99 50:1\n" + "".join(f"0 qid:100 1:{i}\n" for i in range(12))
    whole = rows(read(text))
    monkeypatch.setattr(letor, "CELLS", 50 * 4)  # 4 rows of 50 features
    parts = read(text)
    assert all(b.n_rows <= 2 * 4 or b.n_groups == 1 for b in parts) and len(parts) > 5
    assert max(b.n_rows for b in parts) == 12  # the 12-item query, whole
    cut = rows(parts)
    assert cut.offsets.tolist() == whole.offsets.tolist() and cut.line.tolist() == whole.line.tolist()
    assert all(cut.extra[c].tolist() == whole.extra[c].tolist() for c in whole.extra)
