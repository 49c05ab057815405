"""The clock memory uses, and time phrases resolved against it in the user's time zone.

``HINDSIGHT_NOW`` (an ISO 8601 date-time) freezes the clock for tests and replays; the time
zone is the process's local one (``TZ``)."""

from __future__ import annotations

import os
import re
import time
from datetime import datetime, timedelta

from hindsight.errors import ConfigError


def now_ts() -> float:
    """Unix seconds: ``HINDSIGHT_NOW`` when set, else the wall clock."""
    frozen = os.environ.get("HINDSIGHT_NOW")
    if frozen:
        try:
            dt = datetime.fromisoformat(frozen)
            return (dt if dt.tzinfo else dt.astimezone()).timestamp()
        except (ValueError, OverflowError, OSError):
            raise ConfigError(f"HINDSIGHT_NOW={frozen!r}: not an ISO 8601 date-time "
                              "from 1970 to 9998") from None
    return time.time()


def iso(ts: float) -> str:
    """``ts`` as ISO 8601 in the local time zone, with its UTC offset."""
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


_AGO = re.compile(r"^(\d{1,6})\s*(minute|hour|day|week|month|year)s?\s+ago$")
_LAST = re.compile(r"^(?:last|past)\s+(\d{1,6})\s*(minute|hour|day|week|month|year)s?$")
_UNIT = {"minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400, "month": 30 * 86400,
         "year": 365 * 86400}


def _day_start(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def parse_range(text: str, now: float | None = None) -> tuple[float, float]:
    """A time phrase → [start, end) in Unix seconds, local time zone. Understands ISO dates
    and date-times (a date covers its whole day), ``today``, ``yesterday``, ``this week`` /
    ``last week`` (weeks start on Monday, ISO 8601), ``this month`` / ``last month``,
    ``N days ago`` (that whole day), ``last N days`` (from N×24 h ago to now). Raises
    ConfigError for anything else."""
    try:
        return _parse_range(text, now)
    except (OverflowError, OSError, ValueError) as e:
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"{text!r}: out of the supported range (1970 to 9998)") from None


def _parse_range(text: str, now: float | None) -> tuple[float, float]:
    t = text.strip().lower()
    n = now_ts() if now is None else now
    cur = datetime.fromtimestamp(n).astimezone()
    today = _day_start(cur)
    if t == "today":
        return today.timestamp(), (today + timedelta(days=1)).timestamp()
    if t == "yesterday":
        return (today - timedelta(days=1)).timestamp(), today.timestamp()
    if t in ("this week", "last week"):
        monday = today - timedelta(days=today.weekday())
        if t == "last week":
            return (monday - timedelta(days=7)).timestamp(), monday.timestamp()
        return monday.timestamp(), (monday + timedelta(days=7)).timestamp()
    if t in ("this month", "last month"):
        first = today.replace(day=1)
        if t == "last month":
            prev = (first - timedelta(days=1)).replace(day=1)
            return prev.timestamp(), first.timestamp()
        nxt = (first + timedelta(days=32)).replace(day=1)
        return first.timestamp(), nxt.timestamp()
    m = _AGO.match(t)
    if m and m.group(2) == "day":
        day = today - timedelta(days=int(m.group(1)))
        return day.timestamp(), (day + timedelta(days=1)).timestamp()
    if m:
        return n - int(m.group(1)) * _UNIT[m.group(2)], n
    m = _LAST.match(t)
    if m:
        return n - int(m.group(1)) * _UNIT[m.group(2)], n
    try:
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(f"{text!r}: not a date or time phrase (ISO date, today, yesterday, "
                          "this/last week, this/last month, 3 days ago, last 7 days)") from None
    if dt.tzinfo is None:
        dt = dt.astimezone()
    if dt.year < 1970:  # nothing is older than the epoch here: since it = everything
        return 0.0, 0.0
    if len(text.strip()) <= 10:  # a date: the whole day
        return dt.timestamp(), (dt + timedelta(days=1)).timestamp()
    return dt.timestamp(), dt.timestamp() + 1
