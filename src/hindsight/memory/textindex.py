"""Text → full-text tokens, shared by indexing and querying so both sides agree.

- Words are lower-cased; identifiers are also split into their parts: ``parseConfigFile``
  gives ``parseconfigfile parse config file``, ``MAX_RETRY_COUNT`` gives ``max_retry_count``'s
  parts, ``os.path.join`` gives ``os path join``. SQLite's ``porter`` tokenizer then stems
  each word (``failing`` → ``fail``).
- CJK (Han, kana, Hangul) has no spaces: each run becomes its overlapping character
  bigrams (a one-character run stays itself), the usual n-gram approach for CJK search,
  so a two-character term is one token and a four-character term a phrase of three.
- Queries are built from these tokens only, each one quoted: any user text (``pre-edit``,
  ``don't``, ``a/b``, ``"unbalanced``, ``OR``, empty) is a safe FTS5 query.
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
    """Index tokens of ``text`` in order (see the module doc)."""
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


def index_text(text: str) -> str:
    """The string stored in the FTS table for ``text``."""
    return " ".join(tokens(text))


# English function words, left out of queries (not of the index) when a query has other
# words: under BM25 they weigh almost nothing, yet a query holding them must score nearly
# every row (measured: 13.5 ms → 1.2 ms for one query on 10,000 memories).
STOPWORDS = frozenset("""a an the and or but if then so of to in on at by for with from as is
are was were be been being am do does did has have had having it its this that these those
i me my we our you your he him his she her they them their what which who whom whose when
where why how not no nor too very can will just should would could there here than about
into over under again also any all each both some such only own same s t don dont""".split())  # noqa: SIM905


def match_query(text: str) -> str:
    """See :func:`match_terms`; the terms joined with ``OR``."""
    return " OR ".join(match_terms(text))


def match_terms(text: str) -> list[str]:
    """The quoted FTS5 terms of ``text``: its tokens (function words dropped when others
    remain), a CJK run as a phrase of its bigrams; ``[]`` when the text has no token."""
    terms: list[str] = []
    seen: set[str] = set()
    words = [t for m in _TOKEN.finditer(text) if not _CJK_RUN.match(m.group(0))
             for t in tokens(m.group(0))]
    drop = STOPWORDS if any(w not in STOPWORDS for w in words) else frozenset()
    for m in _TOKEN.finditer(text):
        w = m.group(0)
        if _CJK_RUN.match(w):
            t = '"' + " ".join(_cjk(w)) + '"'
            if t not in seen:
                seen.add(t)
                terms.append(t)
            continue
        for t in tokens(w):
            q = f'"{t}"'
            if t in drop:
                continue
            if q not in seen:
                seen.add(q)
                terms.append(q)
    return terms


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
