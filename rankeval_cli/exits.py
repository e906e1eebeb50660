"""Failures mapped to exit statuses, without click (the fast path of ``rankeval trec_eval``
uses this as every command does through ``commands._common.handle_errors``).

A :class:`DataError`, a failed write or running out of memory: one line on stderr, exit 1;
a closed pipe: exit 0 quietly; Ctrl-C: exit 130.
"""

from __future__ import annotations

import contextlib
import os
import sys

from .errors import DataError


def run_mapped(f, *args, **kwargs):
    """``f(*args, **kwargs)``, its failures mapped to exit statuses."""
    try:
        return f(*args, **kwargs)
    except DataError as exc:  # (a subclass may carry its own status: trec_eval's 4)
        fail(f"rankeval: {exc}", getattr(exc, "exit_status", 1))
    except BrokenPipeError:
        _silence_broken_pipe()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
    except MemoryError:  # a last resort: the readers bound their memory, a measure or option may not
        fail("rankeval: out of memory (the input or the options ask for more than this machine "
             "or its limits allow)")
    except OSError as exc:  # inputs and -o files map their own; this is stdout (disk full, EIO)
        _silence_broken_pipe()
        fail(f"rankeval: {exc.filename or '<stdout>'}: cannot write: {exc.strerror or exc}")


def fail(line: str, status: int = 1):
    """Print ``line`` on stderr after what stdout holds so far, and exit with ``status``."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    sys.exit(status)


def _silence_broken_pipe():
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush is silent."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
