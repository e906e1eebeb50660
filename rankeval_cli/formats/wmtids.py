"""WMT naming: language names and codes, language pairs, system ids.

Languages appear as English names (``Czech``, WMT10-13), ISO 639-2 codes
(``cze``/``ces``, WMT14-16) or ISO 639-1 codes (``cs``, metric files); all map
to the two-letter code. ``All`` (the WMT08 all-into-English task) maps to ``xx``,
the code WMT08 itself uses for its multi-source combination. Anything unknown is
kept, lowercased.

System ids are matched across files by :func:`system_key`, which strips what the
WMT14/15 scripts strip: a leading test-set component (``newstest2015.``,
``it-test2016.``) and, only after such a prefix, a language-pair component
right after it (WMT13 ``newstest2013.fr-en.KIT_primary.2658``) and/or at the end
(WMT15-16 ``newstest2015.online-B.0.de-en``). Ids without a test-set prefix
(``Online-A.1570``, ``uedin-wmt12``) are left as they are.
"""

from __future__ import annotations

import functools
import re

import numpy as np

_NAMES = {
    "cs": ("czech", "cze", "ces"), "en": ("english", "eng"), "de": ("german", "deu", "ger"),
    "fr": ("french", "fra", "fre"), "es": ("spanish", "spa"), "fi": ("finnish", "fin"),
    "ro": ("romanian", "ron", "rum"), "ru": ("russian", "rus"), "tr": ("turkish", "tur"),
    "hi": ("hindi", "hin"), "lv": ("latvian", "lav"), "et": ("estonian", "est"),
    "zh": ("chinese", "zho", "chi"), "ja": ("japanese", "jpn"), "gu": ("gujarati", "guj"),
    "kk": ("kazakh", "kaz"), "lt": ("lithuanian", "lit"), "pl": ("polish", "pol"),
    "ta": ("tamil", "tam"), "km": ("khmer", "khm"), "ps": ("pashto", "pus"),
    "iu": ("inuktitut", "iku"), "eu": ("basque", "eus", "baq"), "bg": ("bulgarian", "bul"),
    "nl": ("dutch", "nld", "dut"), "pt": ("portuguese", "por"), "it": ("italian", "ita"),
    "hu": ("hungarian", "hun"), "ha": ("hausa", "hau"), "is": ("icelandic", "isl", "ice"),
    "uk": ("ukrainian", "ukr"), "hr": ("croatian", "hrv"), "he": ("hebrew", "heb"),
    "xx": ("all",),
}
LANGUAGE_CODES = {alias: code for code, aliases in _NAMES.items() for alias in (code, *aliases)}

_TESTSET = re.compile(r"[A-Za-z][A-Za-z-]*(?:19|20)\d\d")
_LP = re.compile(r"[a-z]{2,3}-[a-z]{2,3}")


def language_code(name: str) -> str:
    """Two-letter code of a language name or code (``Czech``, ``cze``, ``cs`` → ``cs``)."""
    key = name.strip().lower()
    return LANGUAGE_CODES.get(key, key)


@functools.lru_cache(maxsize=4096)
def normalize_lp(text: str) -> str:
    """``xx-yy`` from ``cs-en``, ``cze-eng``, ``Czech-English``; unknown parts lowercased."""
    parts = text.strip().split("-")
    if len(parts) != 2:
        return text.strip().lower()
    return f"{language_code(parts[0])}-{language_code(parts[1])}"


@functools.lru_cache(maxsize=4096)
def lp_of(source: str, target: str) -> str:
    """``xx-yy`` from separate source and target languages."""
    return f"{language_code(source)}-{language_code(target)}"


def normalize_lps(values: np.ndarray) -> np.ndarray:
    """:func:`normalize_lp` over an object array (computed once per distinct value)."""
    return _map_cached(values, normalize_lp)


@functools.lru_cache(maxsize=1 << 16)
def system_key(system: str) -> str:
    """The id used to match a system across files (module docstring states what is stripped)."""
    parts = system.split(".")
    if len(parts) < 2 or not _TESTSET.fullmatch(parts[0]):
        return system
    parts = parts[1:]
    if len(parts) > 1 and _LP.fullmatch(parts[0]):
        parts = parts[1:]
    if len(parts) > 1 and _LP.fullmatch(parts[-1]):
        parts = parts[:-1]
    return ".".join(parts)


def system_keys(values: np.ndarray) -> np.ndarray:
    """:func:`system_key` over an object array."""
    return _map_cached(values, system_key)


@functools.lru_cache(maxsize=1 << 16)
def testset_of_system(system: str) -> str:
    """The test-set prefix of a system id (``newstest2016.online-B.0.ro-en`` → ``newstest2016``), or ``""``."""
    head, dot, _ = system.partition(".")
    return head if dot and _TESTSET.fullmatch(head) else ""


def _map_cached(values: np.ndarray, fn) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = [fn(v) for v in values.tolist()]
    return out
