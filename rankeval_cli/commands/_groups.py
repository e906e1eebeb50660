"""Option groups: the options a decorator adds reach the command as one frozen settings object.

A group decorator (``_common.input_options``, ``_position.position_options``, ``_ir.ir_options``,
``_ci.ci_options``, ...) adds its click options and records, with :func:`option_group`, which
of click's parameters make which object. The command body then takes one keyword per group
(``inputs``, ``output``, ``position``, ``ir``, ``resampling``) and reads ``ir.qrels``, never
the loose parameters. :func:`call` builds the objects and calls the body; ``handle_errors``
(every command's innermost decorator) calls it, and so does the Python API
(:func:`rankeval_cli.api.evaluate`), which passes click's parameters by name.

A group with no keyword is applied, not passed: ``--jobs`` and ``--scheduler`` configure the
executor before the body runs (the output does not depend on them).

Imports only the standard library, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: the attribute of a command callback that lists its groups (shared by every wrapper of it)
GROUPS = "__option_groups__"


@dataclass(frozen=True)
class Group:
    """Click parameters ``params`` make ``make(**values)``, passed as ``keyword`` (None: called
    for its effect, then dropped)."""

    keyword: str | None
    params: tuple
    make: Callable


def option_group(f, keyword: str | None, params, make: Callable):
    """Record on ``f`` (a command callback being decorated) that ``params`` make one object."""
    groups = f.__dict__.setdefault(GROUPS, [])
    groups.append(Group(keyword, tuple(params), make))
    return f


def shared_groups(wrapper) -> list:
    """A new list of groups for a wrapper of the body; the decorators applied after it extend it
    (functools.wraps and click copy it by reference to every outer wrapper)."""
    groups = []
    setattr(wrapper, GROUPS, groups)
    return groups


def packed(groups, kwargs: dict) -> dict:
    """The body's keywords: each group's click parameters replaced by its object, in the order
    the groups appear on the command line's help (top decorator first)."""
    kwargs = dict(kwargs)
    for group in reversed(groups):
        made = group.make(**{name: kwargs.pop(name) for name in group.params})
        if group.keyword is not None:
            kwargs[group.keyword] = made
    return kwargs


def call(callback, *args, **kwargs):
    """Call a command's body (``callback.__wrapped__``, without its error handling) with click's
    parameters, the groups built."""
    return callback.__wrapped__(*args, **packed(getattr(callback, GROUPS, ()), kwargs))
