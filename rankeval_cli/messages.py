"""Notes for the user on stderr, shared by every stage (no stage imports the commands).

A note is printed once: the same note again (a per-batch or per-fold count, say) is
counted, and when the command ends one line says how many times it came. ``rankeval
--quiet`` prints no notes at all (errors still print: they are not notes).
"""

from __future__ import annotations

import sys


def _context():
    """click's current context, if click runs this command (a command on the fast path,
    ``rankeval trec_eval``, never imports click: it has no context, hence no ``--quiet``)."""
    click = sys.modules.get("click")
    return click.get_current_context(silent=True) if click is not None else None


def _echo(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def warn(message: str) -> None:
    """A note for the user on stderr (counts of skipped or excluded rows)."""
    ctx = _context()
    if ctx is None:
        _echo(f"rankeval: {message}")
        return
    root = ctx.find_root()
    if root.meta.get("rankeval.quiet"):
        return
    seen = root.meta.get("rankeval.notes")
    if seen is None:
        seen = root.meta["rankeval.notes"] = {}
        root.call_on_close(lambda: _repeats(seen))
    if message in seen:
        seen[message] += 1
        return
    seen[message] = 1
    _echo(f"rankeval: {message}")


def quiet() -> bool:
    """True under ``rankeval --quiet`` (no notes, no progress display)."""
    ctx = _context()
    return bool(ctx is not None and ctx.find_root().meta.get("rankeval.quiet"))


def _repeats(seen: dict) -> None:
    for message, count in seen.items():
        if count > 1:
            _echo(f"rankeval: the note {message!r} came {count} times")
