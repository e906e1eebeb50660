"""``--scheduler`` / ``$RANKEVAL_SCHEDULER`` and ``$RANKEVAL_DASK_TIMEOUT`` checked before Dask sees them.

An address is ``[PROTOCOL://]HOST[:PORT]`` as ``dask.distributed`` writes it: PROTOCOL one of
``tcp`` (the default), ``tls``, ``ucx``, ``ws``, ``wss``; HOST a host name, an IPv4 address or
an IPv6 address in brackets; PORT 1-65535 (default 8786, Dask's). ``inproc://`` addresses
name a scheduler inside another process's memory and cannot be reached from here. Anything
else is refused with one line (a usage error, exit 2) instead of whatever Dask would raise.
"""

from __future__ import annotations

import math
import os
import re

#: the environment variable giving the default of --scheduler
SCHEDULER_ENV = "RANKEVAL_SCHEDULER"
PROTOCOLS = ("tcp", "tls", "ucx", "ws", "wss")
TIMEOUT_ENV = "RANKEVAL_DASK_TIMEOUT"
#: seconds to wait for the scheduler before giving up (``$RANKEVAL_DASK_TIMEOUT``)
CONNECT_TIMEOUT = 30.0
#: the longest wait ``$RANKEVAL_DASK_TIMEOUT`` may ask for (a day)
MAX_TIMEOUT = 86400.0

_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
                   r"[A-Za-z0-9])?)*\.?")
_ADDRESS = re.compile(r"(?:(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[^\]]*\]|[^:/\[\]]*)(?::(?P<port>[^/]*))?")


def check_address(value: str | None) -> str | None:
    """``value`` (else ``$RANKEVAL_SCHEDULER``) when it is a scheduler address, None when neither is set.

    >>> check_address("tcp://127.0.0.1:8786"), check_address("[::1]:8786")
    ('tcp://127.0.0.1:8786', '[::1]:8786')
    """
    from_env = not value
    text = value if value else os.environ.get(SCHEDULER_ENV, "").strip()
    if not text:
        return None
    where = f"{SCHEDULER_ENV}={text!r}" if from_env else repr(text)
    problem = _problem(text)
    if problem:
        raise ValueError(f"{where} is not a scheduler address ({problem}); "
                         "expected [tcp|tls|ucx|ws|wss://]HOST[:PORT], e.g. tcp://127.0.0.1:8786")
    connect_timeout()  # a bad timeout is refused before anything is read, too
    return text


def _problem(text: str) -> str | None:
    if len(text) > 1000 or not text.isprintable() or any(c.isspace() for c in text):
        return "spaces, control characters or too long"
    match = _ADDRESS.fullmatch(text)
    if not match:
        return "not PROTOCOL://HOST:PORT"
    protocol, host, port = match.group("protocol"), match.group("host"), match.group("port")
    if protocol is not None and protocol.lower() == "inproc":
        return "an inproc:// scheduler lives inside another process and cannot be reached"
    if protocol is not None and protocol.lower() not in PROTOCOLS:
        return f"unknown protocol {protocol!r}"
    return _host_problem(host) or _port_problem(port)


def _host_problem(host: str) -> str | None:
    if not host:
        return "no host"
    if host.startswith("["):
        import ipaddress

        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"{host} is not an IPv6 address"
        return None
    if not _HOST.fullmatch(host) or len(host) > 253:
        return f"{host!r} is not a host name or IP address"
    return None


def _port_problem(port: str | None) -> str | None:
    if port is None:
        return None
    if not re.fullmatch(r"[0-9]{1,5}", port) or not 1 <= int(port) <= 65535:
        return f"port {port!r} is not a number from 1 to 65535"
    return None


def connect_timeout() -> float:
    """``$RANKEVAL_DASK_TIMEOUT`` in seconds (default 30): a finite number in (0, a day], else a usage error."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return CONNECT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT):
        import click

        raise click.UsageError(f"{TIMEOUT_ENV}={text!r} is not a number of seconds in (0, {MAX_TIMEOUT:g}]")
    return seconds
