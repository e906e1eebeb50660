"""The signature every summary carries: the settings that made it, and the version.

``tau|ties:penalize|avg:micro|v:1.0.0``: the measure, then ``key:value`` for every setting
given (None left out), then the toolkit's version, so a number in a paper can be reproduced.
"""

from __future__ import annotations

from ._version import __version__


def signature(measure: str, **settings) -> str:
    """Compact settings string, e.g. ``tau|ties:penalize|avg:micro|v:1.0.0``.

    Settings whose value is None are left out; the toolkit version always ends it.
    """
    parts = [measure] + [f"{k}:{_sig_value(v)}" for k, v in settings.items() if v is not None]
    return "|".join(parts + [f"v:{__version__}"])


def _sig_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def exclusion(patterns) -> str | None:
    """The --exclude-systems patterns as one signature field (None when there are none)."""
    return ",".join(patterns) if patterns else None
