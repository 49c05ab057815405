"""The one grammar of time options (memory/clock.py), with exact Unix timestamps under three
time zones: UTC, Asia/Kolkata (+05:30, no DST) and America/New_York with windows across the
2026 DST changes (spring forward 2026-03-08 02:00, fall back 2026-11-01 02:00). ``now`` is
frozen by the ``now=`` argument, by ``HINDSIGHT_NOW``, and in real CLI subprocesses.
Expected values are written in UTC and converted with calendar.timegm (no time zone code)."""

from __future__ import annotations

import calendar
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from conftest import make_repo
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hindsight.app import open_bank
from hindsight.errors import ConfigError
from hindsight.memory.clock import parse_bound, parse_iso_strict, parse_range, user_zone

CLI = [sys.executable, "-m", "hindsight"]
H = 3600.0


def utc(s: str) -> float:
    """``2026-03-10T16:00`` (or a date) read as UTC → Unix seconds."""
    fmt = "%Y-%m-%dT%H:%M" if "T" in s else "%Y-%m-%d"
    return float(calendar.timegm(datetime.strptime(s, fmt).timetuple()))


# zone, now (UTC), phrase, expected start (UTC), expected end (UTC; None: same as start)
CASES: dict[str, tuple[str, list[tuple[str, str, str | None]]]] = {
    "UTC": ("2026-03-10T12:00", [  # Tuesday 12:00 local
        ("today", "2026-03-10T00:00", "2026-03-11T00:00"),
        ("yesterday", "2026-03-09T00:00", "2026-03-10T00:00"),
        ("1 day ago", "2026-03-09T00:00", "2026-03-10T00:00"),
        ("2 days ago", "2026-03-08T00:00", "2026-03-09T00:00"),
        ("last week", "2026-03-02T00:00", "2026-03-09T00:00"),
        ("this week", "2026-03-09T00:00", "2026-03-16T00:00"),
        ("this month", "2026-03-01T00:00", "2026-04-01T00:00"),
        ("last month", "2026-02-01T00:00", "2026-03-01T00:00"),
        ("2026-03-08", "2026-03-08T00:00", "2026-03-09T00:00"),
        ("2026-03-07T12:00", "2026-03-07T12:00", None),
        ("2026-03-07T12:00+01:00", "2026-03-07T11:00", None),
        ("2026-03-07T12:00Z", "2026-03-07T12:00", None),
        ("3d", "2026-03-07T12:00", None),
        ("2w", "2026-02-24T12:00", None),
        ("2h", "2026-03-10T10:00", None),
        ("90m", "2026-03-10T10:30", None),
        ("3 hours ago", "2026-03-10T09:00", None),
        ("last 7 days", "2026-03-03T12:00", "2026-03-10T12:00"),
    ]),
    "Asia/Kolkata": ("2026-03-10T06:30", [  # Tuesday 12:00 local (+05:30)
        ("today", "2026-03-09T18:30", "2026-03-10T18:30"),
        ("yesterday", "2026-03-08T18:30", "2026-03-09T18:30"),
        ("1 day ago", "2026-03-08T18:30", "2026-03-09T18:30"),
        ("2 days ago", "2026-03-07T18:30", "2026-03-08T18:30"),
        ("last week", "2026-03-01T18:30", "2026-03-08T18:30"),
        ("this week", "2026-03-08T18:30", "2026-03-15T18:30"),
        ("this month", "2026-02-28T18:30", "2026-03-31T18:30"),
        ("last month", "2026-01-31T18:30", "2026-02-28T18:30"),
        ("2026-03-08", "2026-03-07T18:30", "2026-03-08T18:30"),
        ("2026-03-07T12:00", "2026-03-07T06:30", None),
        ("2026-03-07T12:00+01:00", "2026-03-07T11:00", None),
        ("2026-03-07T12:00Z", "2026-03-07T12:00", None),
        ("3d", "2026-03-07T06:30", None),
        ("2w", "2026-02-24T06:30", None),
        ("2h", "2026-03-10T04:30", None),
        ("90m", "2026-03-10T05:00", None),
        ("3 hours ago", "2026-03-10T03:30", None),
        ("last 7 days", "2026-03-03T06:30", "2026-03-10T06:30"),
    ]),
    "America/New_York": ("2026-03-10T16:00", [  # Tuesday 12:00 EDT, two days after DST
        ("today", "2026-03-10T04:00", "2026-03-11T04:00"),
        ("yesterday", "2026-03-09T04:00", "2026-03-10T04:00"),
        ("1 day ago", "2026-03-09T04:00", "2026-03-10T04:00"),
        ("2 days ago", "2026-03-08T05:00", "2026-03-09T04:00"),  # 23 hours
        ("last week", "2026-03-02T05:00", "2026-03-09T04:00"),  # 167 hours
        ("this week", "2026-03-09T04:00", "2026-03-16T04:00"),
        ("this month", "2026-03-01T05:00", "2026-04-01T04:00"),
        ("last month", "2026-02-01T05:00", "2026-03-01T05:00"),
        ("2026-03-08", "2026-03-08T05:00", "2026-03-09T04:00"),  # 23 hours
        ("2026-03-07T12:00", "2026-03-07T17:00", None),  # EST
        ("2026-03-07T12:00+01:00", "2026-03-07T11:00", None),
        ("2026-03-07T12:00Z", "2026-03-07T12:00", None),
        ("3d", "2026-03-07T17:00", None),  # 71 hours before now
        ("2w", "2026-02-24T17:00", None),
        ("2h", "2026-03-10T14:00", None),
        ("90m", "2026-03-10T14:30", None),
        ("3 hours ago", "2026-03-10T13:00", None),
        ("last 7 days", "2026-03-03T17:00", "2026-03-10T16:00"),
    ]),
}
FALL_NOW = "2026-11-03T17:00"  # Tuesday 12:00 EST, two days after the fall-back change
FALL = [
    ("3d", "2026-10-31T16:00", None),  # 12:00 EDT: 73 hours before now
    ("1w", "2026-10-27T16:00", None),  # 169 hours
    ("2 days ago", "2026-11-01T04:00", "2026-11-02T05:00"),  # 25 hours
    ("2026-11-01", "2026-11-01T04:00", "2026-11-02T05:00"),
    ("yesterday", "2026-11-02T05:00", "2026-11-03T05:00"),
    ("last week", "2026-10-26T04:00", "2026-11-02T05:00"),  # 169 hours
    ("this month", "2026-11-01T04:00", "2026-12-01T05:00"),
    ("last month", "2026-10-01T04:00", "2026-11-01T04:00"),
]
ROWS = [(z, now, *case) for z, (now, cases) in CASES.items() for case in cases] + \
    [("America/New_York", FALL_NOW, *case) for case in FALL]


@pytest.mark.parametrize(("zone", "now", "phrase", "start", "end"), ROWS,
                         ids=[f"{r[0]}-{r[1][:10]}-{r[2]}" for r in ROWS])
def test_pinned_meanings_exact_timestamps(monkeypatch: pytest.MonkeyPatch, zone: str,
                                          now: str, phrase: str, start: str,
                                          end: str | None) -> None:
    monkeypatch.setenv("TZ", zone)
    monkeypatch.delenv("HINDSIGHT_NOW", raising=False)
    s, e = utc(start), utc(end or start)
    assert parse_bound(phrase, now=utc(now)) == s
    assert parse_bound(phrase, end=True, now=utc(now)) == e
    assert parse_range(phrase, utc(now)) == (s, e)


def test_dst_windows_in_new_york_have_their_real_length(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    spring, fall = utc("2026-03-10T16:00"), utc(FALL_NOW)
    assert spring - parse_bound("3d", now=spring) == 71 * H
    assert fall - parse_bound("3d", now=fall) == 73 * H
    assert spring - parse_bound("72h", now=spring) == 72 * H  # hours are elapsed time
    skipped = utc("2026-03-10T06:30")  # 02:30 EDT; 2026-03-08 02:30 does not exist
    assert parse_bound("2d", now=skipped) == utc("2026-03-08T07:30")  # read as EST: 03:30 EDT
    twice = utc("2026-11-03T06:30")  # 01:30 EST; 2026-11-01 01:30 happens twice
    assert parse_bound("2d", now=twice) == utc("2026-11-01T05:30")  # the first one, EDT
    day = parse_range("2 days ago", spring)  # 2026-03-08
    assert day[1] - day[0] == 23 * H
    assert parse_range("2026-03-08", spring) == day
    day = parse_range("2 days ago", fall)  # 2026-11-01
    assert day[1] - day[0] == 25 * H
    week = parse_range("last week", fall)
    assert week[1] - week[0] == 169 * H
    week = parse_range("last week", spring)
    assert week[1] - week[0] == 167 * H


def test_time_zone_is_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    now = utc("2026-03-10T16:00")
    got = {}
    for zone in ("UTC", "Asia/Kolkata", "America/New_York", "UTC"):
        monkeypatch.setenv("TZ", zone)
        got[zone] = parse_bound("today", now=now)
    assert got == {"UTC": utc("2026-03-10"), "Asia/Kolkata": utc("2026-03-09T18:30"),
                   "America/New_York": utc("2026-03-10T04:00")}
    monkeypatch.setenv("TZ", ":Asia/Kolkata")  # POSIX's "zone file" prefix
    assert user_zone() == ZoneInfo("Asia/Kolkata")


def test_hindsight_now_freezes_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    monkeypatch.setenv("HINDSIGHT_NOW", "2026-03-10T12:00")  # no offset: New York time
    assert parse_bound("3d") == utc("2026-03-07T17:00")
    assert parse_range("yesterday") == (utc("2026-03-09T04:00"), utc("2026-03-10T04:00"))
    monkeypatch.setenv("HINDSIGHT_NOW", "2026-03-10T16:00:00Z")
    assert parse_bound("2h") == utc("2026-03-10T14:00")
    monkeypatch.setenv("HINDSIGHT_NOW", "soon")
    with pytest.raises(ConfigError) as ei:
        parse_bound("2h")
    assert (ei.value.option, ei.value.value) == ("HINDSIGHT_NOW", "soon")


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "America/New_York"])
def test_other_phrases(monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    z = ZoneInfo(zone)

    def at(*args: int) -> float:
        return datetime(*args, tzinfo=z).timestamp()  # type: ignore[misc]

    now = at(2026, 3, 31, 9, 15)  # Tuesday
    assert parse_range("  Last   WEEK ", now) == parse_range("last week", now)
    assert parse_range("0 days ago", now) == parse_range("today", now)
    assert parse_range("1 week ago", now) == parse_range("last week", now)
    assert parse_range("2 weeks ago", now) == (at(2026, 3, 16), at(2026, 3, 23))
    assert parse_range("1 month ago", now) == parse_range("last month", now)
    assert parse_range("3 months ago", now) == (at(2025, 12, 1), at(2026, 1, 1))
    assert parse_range("this year", now) == (at(2026, 1, 1), at(2027, 1, 1))
    assert parse_range("last year", now) == parse_range("1 year ago", now) \
        == (at(2025, 1, 1), at(2026, 1, 1))
    assert parse_range("last 1 month", now) == (at(2026, 2, 28, 9, 15), now)  # clamped
    assert parse_range("past 2 weeks", now) == (at(2026, 3, 17, 9, 15), now)
    assert parse_range("last 3 hours", now) == (now - 3 * H, now)
    assert parse_bound("45 minutes ago", now=now) == parse_bound("45m", now=now) == now - 2700
    assert parse_bound("30s", now=now) == parse_bound("30 seconds ago", now=now) == now - 30
    assert parse_bound("3 D", now=now) == parse_bound("3d", now=now)
    assert parse_bound("2026-03-10 08:00", now=now) == at(2026, 3, 10, 8)
    assert parse_bound("9999-12-31", end=True, now=now) == at(9999, 12, 31) + 86400
    assert parse_bound("0001-01-01", now=now) == at(1, 1, 1)


BAD_SHAPE = ["3x", "", "   ", "last fortnight", "last tuesday", "3d ago", "2026-02-30",
             "2026-03-10T25:00", "tomorrow-ish", "2026-03-10T12:00+25:00"]
BAD_RANGE = ["99999999d", "9" * 30 + "d", "9" * 5000 + "d", "99999999999999999999h",
             "10000-01-01", "10000-01-01T00:00", "5000 years ago", "last 9999999 years",
             "1000000d"]


@pytest.mark.parametrize("end", [False, True])
@pytest.mark.parametrize("text", BAD_SHAPE + BAD_RANGE, ids=lambda t: t[:20])
def test_bad_input_is_a_config_error_with_fields(monkeypatch: pytest.MonkeyPatch, text: str,
                                                 end: bool) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    now = utc("2026-03-10T16:00")
    with pytest.raises(ConfigError) as ei:
        parse_bound(text, end=end, now=now)
    e = ei.value
    assert (e.option, e.value) == ("until" if end else "since", text)
    msg = str(e)
    assert "\n" not in msg and "--" not in msg and len(msg) < 400
    if text in BAD_RANGE:
        assert "out of the supported range" in msg
    else:
        assert "not a time; accepted:" in msg and "N days ago" in msg
    with pytest.raises(ConfigError) as ei:
        parse_range(text, now)
    assert (ei.value.option, ei.value.value) == ("time", text)


def test_non_string_input_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as ei:
        parse_bound(3, now=0.0)  # type: ignore[arg-type]
    assert (ei.value.option, ei.value.value) == ("since", 3)


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "America/New_York"])
def test_parse_iso_strict(monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)  # an explicit offset makes the zone irrelevant
    assert parse_iso_strict("2026-03-10T14:00:00Z", option="since") == utc("2026-03-10T14:00")
    assert parse_iso_strict("2026-03-10T14:00+02:00", option="since") == \
        utc("2026-03-10T12:00")
    assert parse_iso_strict(" 2026-03-10T14:00:00.5-05:00 ", option="until") == \
        utc("2026-03-10T19:00") + 0.5
    for bad in ("2026-03-10T14:00", "2026-03-10", "3d", "yesterday", "", "2026-03-10 14:00Z",
                "2026-02-30T00:00Z", "10000-01-01T00:00Z", "2026-03-10T14:00+25:00", None):
        with pytest.raises(ConfigError) as ei:
            parse_iso_strict(bad, option="until")  # type: ignore[arg-type]
        assert (ei.value.option, ei.value.value) == ("until", bad)
        assert "with an offset" in str(ei.value) and "--" not in str(ei.value)


ZONES = ["UTC", "Asia/Kolkata", "America/New_York"]
INSTANTS = st.integers(int(utc("1990-01-01")), int(utc("2090-01-01")))


@settings(max_examples=300, deadline=None)
@given(ts=INSTANTS, n=st.integers(1, 60), zone=st.sampled_from(ZONES))
@example(ts=int(utc("2026-03-10T06:30")), n=2, zone="America/New_York")  # 02:30 skipped
@example(ts=int(utc("2026-11-03T06:30")), n=2, zone="America/New_York")  # 01:30 twice
def test_nd_is_the_same_wall_clock_n_calendar_days_earlier(ts: int, n: int, zone: str
                                                           ) -> None:
    z = ZoneInfo(zone)
    with mock.patch.dict(os.environ, {"TZ": zone}):
        got = parse_bound(f"{n}d", now=float(ts))
    want = datetime.fromtimestamp(ts, z).replace(tzinfo=None) - timedelta(days=n)
    seen = datetime.fromtimestamp(got, z)
    exists = datetime.fromtimestamp(want.replace(tzinfo=z).timestamp(), z) \
        .replace(tzinfo=None) == want
    if exists:
        assert seen.replace(tzinfo=None) == want
    else:  # skipped by DST: read with the offset before the change (PEP 495 fold=0)
        shift = want.replace(fold=1, tzinfo=z).utcoffset() - want.replace(tzinfo=z).utcoffset()
        assert seen.replace(tzinfo=None) == want + shift
    assert abs((ts - got) - n * 86400) in ((0, H) if zone == "America/New_York" else (0,))


@settings(max_examples=300, deadline=None)
@given(ts=INSTANTS, n=st.integers(0, 60), zone=st.sampled_from(ZONES))
@example(ts=int(utc("2026-03-10T16:00")), n=2, zone="America/New_York")  # 23 hours
@example(ts=int(utc("2026-11-03T17:00")), n=2, zone="America/New_York")  # 25 hours
def test_n_days_ago_is_one_whole_local_day(ts: int, n: int, zone: str) -> None:
    z = ZoneInfo(zone)
    with mock.patch.dict(os.environ, {"TZ": zone}):
        start, end = parse_range(f"{n} days ago", float(ts))
    assert start < end
    a, b = datetime.fromtimestamp(start, z), datetime.fromtimestamp(end, z)
    assert (a.hour, a.minute, a.second, b.hour, b.minute, b.second) == (0,) * 6
    assert a.date() == datetime.fromtimestamp(ts, z).date() - timedelta(days=n)
    assert b.date() == a.date() + timedelta(days=1)
    assert end - start in ((23 * H, 24 * H, 25 * H) if zone == "America/New_York"
                           else (24 * H,))


# -------------------------------------------------------------------- the real CLI

def test_cli_recall_since_yesterday_over_spring_forward(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    env = {**os.environ, "TZ": "America/New_York", "HINDSIGHT_EMBEDDER": "hashing",
           "HINDSIGHT_NOW": "2026-03-09T12:00"}  # Monday: yesterday is the 23-hour day
    items = [("alpha note", "2026-03-08T04:30:00Z"),  # Saturday 23:30 EST: before
             ("beta note", "2026-03-08T05:30:00Z"),  # Sunday 00:30 EST: in
             ("gamma note", "2026-03-09T03:30:00Z"),  # Sunday 23:30 EDT: in
             ("delta note", "2026-03-09T04:30:00Z")]  # Monday 00:30 EDT: a 24 h day has it
    lines = "\n".join(json.dumps({"text": t, "occurred": o, "kind": "fact"}) for t, o in items)
    subprocess.run([*CLI, "retain", "-"], input=lines, cwd=repo, env=env, text=True,
                   check=True, capture_output=True)

    def texts(*args: str) -> list[str]:
        p = subprocess.run([*CLI, "recall", "note", "--json", *args], cwd=repo, env=env,
                           text=True, capture_output=True)
        assert p.returncode == 0, p.stderr
        return sorted(h["text"].split()[0] for h in json.loads(p.stdout)["hits"])

    assert texts("--since", "yesterday", "--until", "yesterday") == ["beta", "gamma"]
    assert texts("--since", "1 day ago", "--until", "2026-03-08") == ["beta", "gamma"]
    assert texts("--since", "yesterday") == ["beta", "delta", "gamma"]
    assert texts("--until", "2026-03-08T00:30") == ["alpha"]  # an instant, EST
    assert texts("--since", "1d") == ["delta", "gamma"]  # Sunday 12:00 EDT
    bad = subprocess.run([*CLI, "recall", "note", "--until", "last fortnight"], cwd=repo,
                         env=env, text=True, capture_output=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "until 'last fortnight': not a time" in bad.stderr


def test_cli_trace_log_since_3d_with_a_frozen_clock(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "t", {"a.py": "def f():\n    return 1\n"})
    (repo / "a.py").write_text("def f():\n    return 2\n")
    with open_bank(str(repo)) as b:
        ev = b.history.record_edit("a.py", "def f():\n    return 1\n",
                                   "def f():\n    return 2\n", refresh_index=False)
    assert ev is not None
    when = datetime.fromtimestamp(ev["ts_unix"], ZoneInfo("UTC"))

    def log(now: datetime) -> list[str]:
        env = {**os.environ, "TZ": "America/New_York", "HINDSIGHT_NOW": now.isoformat()}
        p = subprocess.run([*CLI, "trace-log", "--since", "3d", "--json"], cwd=repo,
                           env=env, text=True, capture_output=True)
        assert p.returncode == 0, p.stderr
        return [r["file"] for r in json.loads(p.stdout)["events"]]

    assert log(when + timedelta(days=2, hours=22)) == ["a.py"]
    assert log(when + timedelta(days=3, hours=2)) == []
    env = {**os.environ, "TZ": "America/New_York"}
    bad = subprocess.run([*CLI, "trace-log", "--since", "3x"], cwd=repo, env=env, text=True,
                         capture_output=True)
    # the CLI names the flag of an option's error (hindsight.cli.errors)
    assert bad.returncode == 2 and "--since '3x': not a time" in bad.stderr
    assert "Traceback" not in bad.stderr
