"""Plain word tokens of a text, without stemming or a stop list, for comparisons that need
every word as written (the near-duplicate check keeps ``not``/``never``); search terms come
from :mod:`hindsight.memory.segment`.

- Words are lower-cased; identifiers are also split into their parts: ``parseConfigFile``
  gives ``parseconfigfile parse config file``, ``MAX_RETRY_COUNT`` gives ``max_retry_count``'s
  parts, ``os.path.join`` gives ``os path join``.
- CJK (Han, kana, Hangul) has no spaces: each run becomes its overlapping character
  bigrams (a one-character run stays itself).
"""

from __future__ import annotations

import re

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+(?:[_'][^\W_]+)*", re.U)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _cjk(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def tokens(text: str) -> list[str]:
    """Word tokens of ``text`` in order (see the module doc)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        w = m.group(0)
        if _CJK_RUN.match(w):
            out += _cjk(w)
            continue
        w = w.replace("'", "")
        low = w.lower()
        out.append(low)
        parts = [p.lower() for seg in w.split("_") for p in _HUMP.findall(seg)]
        if len(parts) > 1:
            out += parts
    return out


def forms(term: str) -> tuple[str, ...]:
    """``term`` and its plain English singular/plural (``makefile`` ↔ ``makefiles``,
    ``index`` → ``indexes``): the full-text index does not stem, and a prompt seldom uses
    the number a memory used. Words of 3 characters or fewer are left alone."""
    if len(term) <= 3 or not term.isalpha():
        return (term,)
    if term.endswith(("ses", "xes", "zes", "ches", "shes")):
        return term, term[:-2], term[:-1]
    if term.endswith("s") and not term.endswith("ss"):
        return term, term[:-1]
    if term.endswith(("s", "x", "z", "ch", "sh")):
        return term, term + "es"
    return term, term + "s"
