"""rankeval: evaluate machine-predicted rankings against human (gold) rankings.

The Python API mirrors the command line. Submodules load on first use, so
``import rankeval_cli`` (and ``rankeval --help``) imports neither numpy nor scipy::

    import rankeval_cli
    for batch in rankeval_cli.read("judgments.csv", fmt="wmt-rr"):
        ...
"""

from ._version import __version__
from .errors import DataError

__all__ = ["__version__", "Batch", "DataError", "read", "write", "evaluate", "ir_evaluate", "tau", "rr", "ndcg", "err",
           "rankdcg", "precision", "average_precision"]
_API = {"evaluate", "ir_evaluate", "tau", "rr", "ndcg", "err", "rankdcg", "precision", "average_precision"}


def __getattr__(name):
    if name == "Batch":
        from .batch import Batch

        return Batch
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'rankeval_cli' has no attribute {name!r}")


def read(source, fmt=None, **options):
    """Stream checked :class:`Batch` objects from a path, ``-`` or a file object.

    ``fmt`` names a reader (``tsv``, ``jsonl``, ``jcml``, ``wmt-rr``, ...); None sniffs
    the canonical encodings.
    """
    from .formats import read as _read

    return _read(source, fmt=fmt, **options)


def write(batches, dest, fmt="tsv", **options):
    """Write batches to a path (atomically), ``-`` or a text stream."""
    from .formats import write as _write

    return _write(batches, dest, fmt=fmt, **options)
