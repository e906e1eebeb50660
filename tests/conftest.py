"""Shared test fixtures: locating the real data beside the repository."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TEST_DATA = HERE / "data"


def shared_data() -> Path | None:
    """../shared/data beside the checkout (as in CI), or /work/shared/data, if present."""
    for candidate in (HERE.parents[1] / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate
    return None


@pytest.fixture
def shared():
    path = shared_data()
    if path is None:
        pytest.skip("../shared/data is not present beside the checkout")
    return path


def peer_checkout(variable: str, what: str, *needed: str) -> Path:
    """The directory named by the environment variable ``variable``: ``what``, a peer's source
    tree or release checkout kept outside the repository; without it the test is skipped,
    saying how to run it.

    The files ``needed`` (paths inside that directory) must exist. The checks that compare with
    a peer's own files (which this repository does not hold) run only where such a checkout is
    given."""
    value = os.environ.get(variable)
    if not value:
        pytest.skip(f"compares with {what}, not in the repository: set {variable}=DIR to run it")
    path = Path(value)
    missing = [name for name in needed if not (path / name).exists()]
    if missing:
        pytest.fail(f"{variable}={value} is not {what}: no {', '.join(missing)}")
    return path


def tsv_bytes(rows, header=("group", "item", "gold", "pred")) -> io.BytesIO:
    """A canonical TSV stream from rows of values."""
    lines = ["\t".join(header)] + ["\t".join(str(v) for v in row) for row in rows]
    return io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))


@pytest.fixture(autouse=True)
def _no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    os.environ.pop("RANKEVAL_PROGRESS", None)
