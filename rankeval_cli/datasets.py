"""Qrels by ir_datasets id: ``--qrels msmarco-passage/trec-dl-2019/judged``.

ir_datasets (MacAvaney et al. 2021) names the judgments of hundreds of benchmarks and keeps
what it has downloaded in its cache (``~/.ir_datasets``, or ``$IR_DATASETS_HOME``). Where a
qrels file is expected, a name that is no file but has the form of a dataset id (words
joined by ``/``, as ``antique/test`` or ``msmarco-passage/dev/small``; a single word does not
qualify, so that a mistyped file name stays a missing file) is looked up in ir_datasets and
its qrels are read **from the cache only**: rankeval never starts a download. A dataset
whose qrels are not downloaded yet is a one-line error giving the command that downloads
them; a missing ir_datasets package, one naming the package to install.
"""

from __future__ import annotations

import contextlib
import os
import re

from .errors import DataError

_ID = re.compile(r"[A-Za-z0-9][\w.-]*(?:/[\w.@-]+)+")
INSTALL = "pip install ir_datasets"


def is_dataset_id(source) -> bool:
    """A name that is no existing file but has the form of an ir_datasets id."""
    return isinstance(source, str) and bool(_ID.fullmatch(source)) and not os.path.exists(source)


class NotCached(Exception):
    """A file ir_datasets would have to download."""


@contextlib.contextmanager
def _cache_only():
    """ir_datasets' downloads, while inside, raise :class:`NotCached` instead of downloading."""
    from ir_datasets.util import download

    fetch, stream = download.Download.path, download.Download.stream

    def path(self, force=True):
        cached = self._cache_path is not None and os.path.exists(self._cache_path)
        if force and self._path is None and not cached:
            raise NotCached(self._cache_path)
        return fetch(self, force)

    @contextlib.contextmanager
    def streamed(self):
        if self._stream:  # read straight from the network
            raise NotCached(self._cache_path)
        with stream(self) as f:
            yield f

    download.Download.path, download.Download.stream = path, streamed
    try:
        yield
    finally:
        download.Download.path, download.Download.stream = fetch, stream


def load(dataset_id: str):
    """The ir_datasets dataset of this id, or a one-line error."""
    try:
        import ir_datasets
    except ImportError:
        raise DataError(f"no such file; reading it as an ir_datasets dataset id needs ir_datasets: {INSTALL}",
                        dataset_id) from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise DataError("no such file, and no ir_datasets dataset of that name (ir_datasets list shows them)",
                        dataset_id) from None


def judgments(dataset_id: str) -> tuple:
    """The dataset's qrels read from ir_datasets' cache: (query ids, docnos, integer grades)."""
    import numpy as np

    dataset = load(dataset_id)
    if not dataset.has_qrels():
        raise DataError("this ir_datasets dataset has no qrels", dataset_id)
    try:
        with _cache_only():
            rows = list(dataset.qrels_iter())
    except NotCached:
        raise DataError(f"ir_datasets has not downloaded these qrels yet; download them once with: "
                        f"ir_datasets export {dataset_id} qrels > /dev/null", dataset_id) from None
    if not rows:
        raise DataError("no judgments: the dataset's qrels are empty", dataset_id)
    qids, docnos, grades = zip(*((str(j.query_id), str(j.doc_id), j.relevance) for j in rows))
    return list(qids), list(docnos), np.asarray(grades, dtype=np.int64)
