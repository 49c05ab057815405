"""Recall features: what a query says about who, when and what kind of memory it wants.

Each feature is a boost in z units (:mod:`hindsight.memory.fusion`) for a candidate memory:

- ``speaker``: the query names an agent (a person or coding agent, the memory's ``agent``
  field: who wrote or said it) → that agent's memories. The name is also taken out of the
  text that is embedded for the query (whatever the feature's weight), because memory
  texts do not carry their author.
  A name counts when the query writes it as a proper noun — a capital first letter — in
  full, optionally possessive (``Caroline's``); an agent id such as ``claude-code`` matches
  ``Claude code`` and ``Claude-Code``.
- ``date``: the query names a date (``2023-05-07``, ``7 May 2023``, ``May 7, 2023``,
  ``May 2023``, ``in May``, ``August``, ``in 2023``) → memories that occurred on that day
  (month, year), in the user's time zone (:func:`hindsight.memory.clock.user_zone`).
- ``when``: the query asks when (``When …``, ``what date/day/year/month/time/week``,
  ``how long ago``) → memories whose text holds a time expression (``yesterday``,
  ``last week``, ``two days ago``, a weekday, a month or a year), which is what dates an
  event told about in a turn.
- ``question``: the memory is itself a question (its text ends with ``?``): it rarely holds
  the answer, so it goes down.

All are computed on the candidates of one recall only (no pass over the bank).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, tzinfo
from functools import lru_cache

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH_NO = {m: n for n, m in enumerate(MONTHS, 1)}
_MONTH_NO.update({m[:3]: n for n, m in enumerate(MONTHS, 1)})
_MONTH_NO["sept"] = 9
_FULL = "|".join(m.capitalize() for m in MONTHS)
_ANY = _FULL + "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
_ORD = r"(?:st|nd|rd|th)?"
_PREP = "in|on|during|of|early|late|mid"
_DATE = re.compile(
    r"(?<![\w-])(?:"
    r"(?P<iy>\d{4})-(?P<im>\d\d)-(?P<id>\d\d)"  # 2023-05-07
    rf"|(?P<ad>\d{{1,2}}){_ORD}(?:\s+of)?\s+(?P<am>{_ANY})\.?(?:,?\s+(?P<ay>\d{{4}}))?"
    rf"|(?P<bm>{_ANY})\.?\s+(?P<bd>\d{{1,2}}){_ORD}(?![\d:])(?:,?\s+(?P<by>\d{{4}}))?"
    rf"|(?P<cm>{_ANY})\.?,?\s+(?P<cy>\d{{4}})"
    rf"|(?:(?P<prep>{_PREP})[\s-]+)?(?P<dm>{_FULL})(?!\.?,?\s+\d)"
    rf"|(?:{_PREP})\s+(?P<ey>19[7-9]\d|20\d\d)"
    r")(?![\w-]|\.\d)")
_WHEN = re.compile(r"^\W*when\b|\b(?:what|which)\s+(?:date|day|year|month|time|week)\b|"
                   r"\bhow\s+long\s+ago\b", re.I)
_WEEKDAY = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|recently|ago|weekend|"
    rf"(?:last|next|this|past)\s+(?:week|weekend|month|year|night|morning|evening|{_WEEKDAY})|"
    rf"{_WEEKDAY}|\d+\s+(?:days?|weeks?|months?|years?)|"
    r"(?:a|one|two|three|four|five|six|few|couple\s+of)\s+(?:days?|weeks?|months?|years?)|"
    r"(?:19|20)\d\d)\b", re.I)
_TIME_MONTH = re.compile(rf"\b(?:{_FULL})\b")
# a piece of a word every time expression holds: texts with none skip the expressions
_TIME_HINTS = ("day", "week", "month", "year", "night", "morrow", "ago", "recent", "morning",
               "evening", *MONTHS)
_YEARISH = re.compile(r"(?:19|20)\d\d")
Period = tuple[int | None, int | None, int | None]  # (year, month, day); None: any


@lru_cache(maxsize=512)
def _name_pattern(agent: str) -> re.Pattern[str] | None:
    words = [w for w in re.split(r"[\W_]+", agent) if w]
    if not words or sum(len(w) for w in words) < 2 or not any(c.isalpha() for c in agent):
        return None
    body = r"[\s_-]+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![\w-])({body})(?:['’]s|s['’]|['’])?(?![\w-])", re.I)


def named_agents(text: str, agents: Iterable[str]) -> tuple[set[str], str]:
    """``(agents named in text, text with those names removed)``; see the module doc. When
    removing the names would leave no word, the text is returned unchanged."""
    found: set[str] = set()
    spans: list[tuple[int, int]] = []
    words = set(re.findall(r"[^\W_]+", text.lower()))
    for agent in agents:
        first = re.search(r"[^\W_]+", agent)
        if first is None or words.isdisjoint((first.group(0).lower(),
                                              first.group(0).lower() + "s")):
            continue  # cheap test first: a bank may know many agents
        pat = _name_pattern(agent)
        if pat is None:
            continue
        for m in pat.finditer(text):
            if m.group(1)[0].isupper():
                found.add(agent)
                spans.append(m.span())
    if not spans:
        return found, text
    out, last = [], 0
    for a, b in sorted(spans):
        if a >= last:
            out.append(text[last:a])
            last = b
    out.append(text[last:])
    rest = " ".join(" ".join(out).split())
    return found, rest if re.search(r"\w", rest) else text


def query_periods(text: str) -> list[Period]:
    """The dates named in ``text`` as (year, month, day) with None for any; a lone
    ``May`` counts only after a preposition (``in May``), as "may" is also a verb, and a
    lone year only after one (``in 2023``; ``port 2023``, ``v2023.1`` are no dates)."""
    out: list[Period] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["iy"]:
            p: Period = (int(g["iy"]), int(g["im"]), int(g["id"]))
        elif g["ad"]:
            p = (_int(g["ay"]), _MONTH_NO[g["am"].lower()], int(g["ad"]))
        elif g["bm"]:
            p = (_int(g["by"]), _MONTH_NO[g["bm"].lower()], int(g["bd"]))
        elif g["cm"]:
            p = (int(g["cy"]), _MONTH_NO[g["cm"].lower()], None)
        elif g["dm"]:
            if g["dm"] == "May" and not g["prep"]:
                continue
            p = (None, _MONTH_NO[g["dm"].lower()], None)
        else:
            p = (int(g["ey"]), None, None)
        if p[1] is not None and not 1 <= p[1] <= 12 or p[2] is not None and not 1 <= p[2] <= 31:
            continue
        out.append(p)
    return list(dict.fromkeys(out))


def _int(s: str | None) -> int | None:
    return int(s) if s else None


def in_periods(ts: float, periods: list[Period], zone: tzinfo) -> bool:
    """Whether Unix time ``ts``, read in ``zone``, falls in one of ``periods``."""
    try:
        d = datetime.fromtimestamp(ts, zone)
    except (OverflowError, OSError, ValueError):
        return False
    return any((y is None or y == d.year) and (mo is None or mo == d.month) and
               (dd is None or dd == d.day) for y, mo, dd in periods)


def asks_when(text: str) -> bool:
    """Whether the query asks for a time (see the module doc)."""
    return bool(_WHEN.search(text))


def has_time(text: str) -> bool:
    """Whether ``text`` holds a time expression (see the module doc)."""
    low = text.lower()
    if not any(h in low for h in _TIME_HINTS) and not _YEARISH.search(text):
        return False
    return bool(_TIME.search(text) or _TIME_MONTH.search(text))


def is_question(text: str) -> bool:
    """Whether ``text`` ends with a question mark (ignoring trailing space and quotes)."""
    return text.rstrip().rstrip("\"'”’)").endswith(("?", "？"))
