"""The clock memory uses, and the one grammar of time options, resolved in the user's zone.

``HINDSIGHT_NOW`` (an ISO 8601 date-time) freezes the clock for tests and replays. The
user's time zone is :func:`user_zone` (``TZ``, else the system zone), read on every call.

The grammar (:func:`parse_bound`, :func:`parse_range`) is used by every CLI time option
(``recall --since/--until``, ``trace-log --since``). Each phrase names either a **period**
[start, end) or an **instant** t (treated as the empty period [t, t)):

=============================================  ======================================
form                                           meaning
=============================================  ======================================
``2026-03-10``                                 period: that local calendar day
``2026-03-10T14:00`` / ``…T14:00+01:00``       instant (no offset: the user's zone)
``today``, ``yesterday``                       period: that local calendar day
``N days ago`` (``1 day ago``)                 period: the local calendar day N back
``this week``, ``last week``                   period: ISO week (Monday 00:00 to Monday)
``N weeks ago``                                period: the ISO week N back
``this month``, ``last month``, ``N months     period: that calendar month
ago``
``this year``, ``last year``, ``N years ago``  period: that calendar year
``Nd``, ``Nw``                                 instant: same wall-clock time N days /
                                               weeks ago (71 or 73 h for 3d over DST)
``Nh``, ``Nm``, ``Ns``                         instant: exactly N hours / minutes /
                                               seconds ago (elapsed time)
``N hours ago``, ``N minutes ago``, ``N        instant: as ``Nh``, ``Nm``, ``Ns``
seconds ago``
``last N days`` / ``past N days`` (also        period: from that instant (days, weeks:
hours, minutes, seconds, weeks, months,        wall clock; months, years: same day of
years)                                         month, clamped) up to now
=============================================  ======================================

Calendar periods are computed on local dates, then each bound is localised (the first
instant of that local date), so a 23- or 25-hour DST day, or a 167- or 169-hour week, is
exact. A wall-clock time that does not exist (skipped by a DST change) is read with the
offset before the change, one that exists twice as its first occurrence (PEP 495
``fold=0``). Phrases are case-insensitive; runs of spaces count as one.

Machine interfaces (MCP) use :func:`parse_iso_strict`: an ISO 8601 date-time with an
explicit offset, nothing else.
"""

from __future__ import annotations

import calendar
import os
import re
import time
import zoneinfo
from datetime import UTC, date, datetime, timedelta, tzinfo
from datetime import time as dtime

from hindsight.errors import ConfigError

# 0001-01-01T00:00Z and 10000-01-01T00:00Z: the instants datetime can represent.
MIN_TS = -62135596800.0
MAX_TS = 253402300800.0

FORMS = ("accepted: an ISO date or date-time (2026-03-10, 2026-03-10T14:00, "
         "2026-03-10T14:00+01:00), today, yesterday, N days ago, this/last week, "
         "this/last month, this/last year, N weeks/months/years ago, Nd or Nw (same clock "
         "time N days/weeks ago), Nh, Nm, Ns, N hours/minutes ago, last N days/hours")


def now_ts() -> float:
    """Unix seconds: ``HINDSIGHT_NOW`` when set (without an offset it is in
    :func:`user_zone`), else the wall clock. Raises ConfigError (``option`` is
    ``"HINDSIGHT_NOW"``) for a value that is not an ISO 8601 date-time."""
    frozen = os.environ.get("HINDSIGHT_NOW")
    if frozen:
        try:
            dt = datetime.fromisoformat(frozen.strip())
            ts = (dt if dt.tzinfo else dt.replace(tzinfo=user_zone())).timestamp()
            iso(ts)  # shown in the local zone: must stay inside years 1 to 9999 there too
            return ts
        except (ValueError, OverflowError, OSError):
            raise ConfigError(f"HINDSIGHT_NOW={frozen!r}: not an ISO 8601 date-time "
                              "in years 1 to 9999", option="HINDSIGHT_NOW",
                              value=frozen) from None
    return time.time()


def iso(ts: float) -> str:
    """``ts`` as ISO 8601 in the local time zone, with its UTC offset."""
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


def shown(when: float | str) -> str:
    """An instant as text for people and agents (tables, the session briefing, prompt
    injection, reflect): in the reader's zone, :func:`user_zone` — the zone the time
    options resolve in, so the day shown is the day ``--since today`` means — with its UTC
    offset, to the minute: ``2026-03-10 08:30 -07:00``.

    ``when`` is Unix seconds or ISO 8601 text (a stored ``occurred_at``, a commit date;
    without an offset it is read in the reader's zone). ``""`` stays ``""``; other text
    that is not ISO 8601 is returned as given."""
    zone = user_zone()
    try:
        if isinstance(when, str):
            if not when:
                return ""
            dt = datetime.fromisoformat(when.strip().upper().replace("Z", "+00:00"))
            dt = dt.astimezone(zone) if dt.tzinfo else dt.replace(tzinfo=zone)
        else:
            dt = datetime.fromtimestamp(when, zone)
    except (ValueError, OverflowError, OSError):
        return str(when)
    off = dt.strftime("%z")  # +HHMM (+HHMMSS for an offset with seconds)
    return dt.strftime("%Y-%m-%d %H:%M ") + off[:3] + ":" + off[3:5] + (
        ":" + off[5:] if off[5:] else "")


# ---------------------------------------------------------------------------- the zone

def user_zone() -> tzinfo:
    """The user's time zone, looked up afresh on every call (nothing is cached here):

    - ``TZ`` when set and a zoneinfo key (``America/New_York``, ``Asia/Kolkata``, ``UTC``;
      a leading ``:`` is ignored);
    - ``TZ`` unset: the system zone, ``/etc/localtime`` (by its zoneinfo name when it links
      into the zoneinfo database, else read as a TZif file);
    - otherwise (a POSIX rule string in ``TZ``, no zone database, no ``/etc/localtime``)
      the process's current UTC offset as a fixed offset (without DST changes)."""
    tz = os.environ.get("TZ")
    if tz is not None:
        return _named_zone(tz.removeprefix(":")) or _process_zone()
    return _system_zone() or _process_zone()


def _named_zone(key: str) -> tzinfo | None:
    if not key:
        return None
    try:
        return zoneinfo.ZoneInfo(key)
    except (KeyError, ValueError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return UTC if key.upper() in ("UTC", "UTC0", "GMT", "GMT0", "Z") else None


def _system_zone() -> tzinfo | None:
    path = "/etc/localtime"
    try:
        real = os.path.realpath(path)
        for base in zoneinfo.TZPATH:
            rel = os.path.relpath(real, base)
            if not rel.startswith(".."):
                named = _named_zone(rel)
                if named is not None:
                    return named
        with open(path, "rb") as f:
            return zoneinfo.ZoneInfo.from_file(f, key="localtime")
    except (OSError, ValueError):
        return None


def _process_zone() -> tzinfo:
    return datetime.now().astimezone().tzinfo or UTC


# ------------------------------------------------------------------------- the grammar

_SHORT = re.compile(r"(\d+) ?([dwhms])")
_AGO = re.compile(r"(\d+) (second|minute|hour|day|week|month|year)s? ago")
_LAST_N = re.compile(r"(?:last|past) (\d+) (second|minute|hour|day|week|month|year)s?")
_CAL = re.compile(r"(this|last) (week|month|year)")
_DATE = re.compile(r"(\d{4,})-\d{2}-\d{2}")
_DATETIME = re.compile(r"(\d{4,})-\d{2}-\d{2}[T ]\d{2}(?::\d{2}(?::\d{2}(?:[.,]\d{1,6})?)?)?"
                       r"(Z|[+-]\d{2}(?::?\d{2})?)?", re.IGNORECASE)  # offset: group 2
_ELAPSED = {"s": 1, "m": 60, "h": 3600, "second": 1, "minute": 60, "hour": 3600}


def parse_bound(text: str, *, end: bool = False, now: float | None = None,
                option: str | None = None) -> float:
    """One bound of a time option, in Unix seconds (float).

    ``text`` is a phrase of the grammar in the module docstring; ``now`` (Unix seconds)
    defaults to :func:`now_ts`. ``end=False`` gives the start of the phrase's period (what
    ``--since`` uses: the filter keeps times ≥ it); ``end=True`` its exclusive end (what
    ``--until`` uses: the filter keeps times < it). For a date, ``today``, ``yesterday``,
    ``N days ago``, ``last week`` … the end is the end of that period (``--until
    2026-03-10`` includes all of that day); for an instant (``3d``, ``2h``, an ISO
    date-time) both are that instant.

    Raises ConfigError with ``option`` (``option`` or, by default, ``"until"`` when
    ``end`` else ``"since"``) and ``value`` (``text``) set, and a one-line message listing
    the accepted forms, for an unknown phrase or a result outside years 1 to 9999."""
    start, stop = _span(text, now, option or ("until" if end else "since"))
    return stop if end else start


def parse_range(text: str, now: float | None = None, *, option: str = "time"
                ) -> tuple[float, float]:
    """The period a phrase names, ``(start, exclusive end)`` in Unix seconds: the same as
    ``(parse_bound(text), parse_bound(text, end=True))``, so an instant t gives ``(t, t)``.
    Raises ConfigError as :func:`parse_bound` does (``option`` names the argument)."""
    return _span(text, now, option)


def parse_iso_strict(text: str, *, option: str) -> float:
    """For machine interfaces (MCP, HTTP): ``text`` must be an ISO 8601 date-time with an
    explicit offset (``2026-03-10T14:00:00Z``, ``2026-03-10T14:00+02:00``); returns Unix
    seconds. Anything else (a date alone, no offset, a phrase, not a string) raises
    ConfigError with ``option`` and ``value`` set."""
    s = text.strip() if isinstance(text, str) else ""
    m = _DATETIME.fullmatch(s)
    if m and m.group(2) and "T" in s.upper():
        try:
            return datetime.fromisoformat(s.upper()).timestamp()
        except (ValueError, OverflowError, OSError):
            pass
    raise ConfigError(f"{option} {_shown(text)}: not an ISO 8601 date-time with an offset "
                      "(2026-03-10T14:00:00Z, 2026-03-10T14:00+02:00)", option=option,
                      value=text)


def _shown(text: object) -> str:
    """``text`` quoted for a one-line message (repr escapes newlines), cut at 60."""
    if not isinstance(text, str):
        return repr(text)[:60]
    return repr(text if len(text) <= 60 else text[:59] + "…")


def _span(text: str, now: float | None, option: str) -> tuple[float, float]:
    if not isinstance(text, str):
        raise ConfigError(f"{option} {_shown(text)}: not a time; {FORMS}", option=option,
                          value=text)
    try:
        span = _resolve(text, now_ts() if now is None else now, user_zone())
        if span and not all(MIN_TS - 86400 <= t <= MAX_TS + 86400 for t in span):
            raise OverflowError(span)
    except (ValueError, OverflowError, OSError):
        raise ConfigError(f"{option} {_shown(text)}: out of the supported range (years 1 "
                          "to 9999)", option=option, value=text) from None
    if span is None:
        raise ConfigError(f"{option} {_shown(text)}: not a time; {FORMS}", option=option,
                          value=text)
    return span


def _resolve(text: str, now: float, zone: tzinfo) -> tuple[float, float] | None:
    """``(start, end)``, or None for text outside the grammar. Raises ValueError,
    OverflowError for results outside what datetime represents."""
    raw = text.strip()
    t = " ".join(raw.lower().split())
    local = datetime.fromtimestamp(now, zone)
    today = local.date()
    if m := _DATE.fullmatch(raw) or _DATETIME.fullmatch(raw):
        if len(m.group(1)) > 4:
            raise OverflowError(raw)  # a year past 9999
        try:
            dt = datetime.fromisoformat(raw.upper())
        except ValueError:  # 2026-02-30, 2026-03-10T25:00
            return None
        if m.re is _DATE:
            return _dates(dt.date(), "day", zone)
        return _point((dt if dt.tzinfo else dt.replace(tzinfo=zone)).timestamp())
    if t in ("today", "yesterday"):
        return _period("day", int(t == "yesterday"), today, zone)
    if m := _CAL.fullmatch(t):
        return _period(m.group(2), int(m.group(1) == "last"), today, zone)
    if m := _AGO.fullmatch(t):
        n, unit = int(m.group(1)), m.group(2)
        if unit in _ELAPSED:
            return _point(now - n * _ELAPSED[unit])
        return _period(unit, n, today, zone)
    if m := _SHORT.fullmatch(t):
        n, unit = int(m.group(1)), m.group(2)
        if unit in _ELAPSED:
            return _point(now - n * _ELAPSED[unit])
        return _point(_wall_back(local, n, "day" if unit == "d" else "week", zone))
    if m := _LAST_N.fullmatch(t):
        n, unit = int(m.group(1)), m.group(2)
        start = now - n * _ELAPSED[unit] if unit in _ELAPSED else _wall_back(local, n, unit,
                                                                             zone)
        return start, now
    return None


def _point(ts: float) -> tuple[float, float]:
    return ts, ts


def _midnight(d: date, zone: tzinfo) -> float:
    """The first instant of local date ``d`` (``fold=0``: a midnight skipped by DST is read
    with the earlier offset, which is the instant of the change)."""
    return datetime.combine(d, dtime(0), tzinfo=zone).timestamp()


def _dates(first: date, unit: str, zone: tzinfo) -> tuple[float, float]:
    """The calendar ``unit`` (day, week, month, year) that starts on ``first``, as [its
    local midnight, the next one's)."""
    start = _midnight(first, zone)
    try:
        if unit == "day":
            after = first + timedelta(days=1)
        elif unit == "week":
            after = first + timedelta(days=7)
        elif unit == "month":
            after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        else:
            after = date(first.year + 1, 1, 1)
    except (ValueError, OverflowError):
        if unit != "day":
            raise
        return start, start + 86400  # 9999-12-31: no DST change in its last hours
    return start, _midnight(after, zone)


def _period(unit: str, n: int, today: date, zone: tzinfo) -> tuple[float, float]:
    """The calendar ``unit`` (day, week, month, year) ``n`` back from the one holding
    ``today``, as [local midnight, local midnight)."""
    if unit == "day":
        first = today - timedelta(days=n)
    elif unit == "week":
        first = today - timedelta(days=today.weekday() + 7 * n)
    elif unit == "month":
        y, m0 = divmod(today.year * 12 + today.month - 1 - n, 12)
        first = date(y, m0 + 1, 1)
    else:
        first = date(today.year - n, 1, 1)
    return _dates(first, unit, zone)


def _wall_back(local: datetime, n: int, unit: str, zone: tzinfo) -> float:
    """The instant whose wall-clock reading in ``zone`` is ``local``'s, ``n`` days, weeks,
    months or years earlier (months and years keep the day of month, clamped to the
    month's length)."""
    wall = local.replace(tzinfo=None, fold=0)
    if unit in ("day", "week"):
        wall -= timedelta(days=n * (7 if unit == "week" else 1))
    else:
        y, m0 = divmod(wall.year * 12 + wall.month - 1 - n * (12 if unit == "year" else 1),
                       12)
        wall = wall.replace(year=y, month=m0 + 1,
                            day=min(wall.day, calendar.monthrange(y, m0 + 1)[1]))
    return wall.replace(tzinfo=zone).timestamp()
