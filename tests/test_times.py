"""Times shown to people and agents (issue 15, item 5; README: Times).

The field report: a memory written in Tokyo shortly after midnight showed the writer's
calendar day, with no offset, to a reader in Los Angeles, where that instant is the
morning of the day before, the day the reader's own ``--since today`` selects. Here every
place a time is shown (CLI tables and JSON, reflect, the session briefing and prompt
injection, MCP answers, history tables) is checked against that reader.

The instant: 2026-03-11 00:30 in Tokyo (+09:00) = 2026-03-10 15:30 UTC = 2026-03-10 08:30
in Los Angeles (-07:00: daylight saving time began there on 2026-03-08).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import make_repo
from hookutil import hook, make_env, start

CLI = [sys.executable, "-m", "hindsight"]
TOKYO = {"TZ": "Asia/Tokyo", "HINDSIGHT_NOW": "2026-03-11T00:30:00"}
LA = {"TZ": "America/Los_Angeles", "HINDSIGHT_NOW": "2026-03-10T12:00:00"}
TEXT = "Decided: cache the parsed settings once per process"
STORED = "2026-03-11T00:30:00+09:00"
LA_ISO, LA_SHOWN = "2026-03-10T08:30:00-07:00", "2026-03-10 08:30 -07:00"
TOKYO_SHOWN = "2026-03-11 00:30 +09:00"


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    p = subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture()
def written(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repository whose bank holds one decision retained in Tokyo at 00:30; the base
    environment (no zone, no frozen clock)."""
    repo = make_repo(tmp_path / "shop", {"settings.py": "def load():\n    return {}\n"})
    base = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing", "COLUMNS": "200"}
    out = run(["retain", TEXT, "--kind", "decision", "--json"], repo, {**base, **TOKYO})
    assert json.loads(out)["action"] == "created"
    return repo, base


def test_shown_is_the_readers_zone_with_its_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.memory.clock import shown

    monkeypatch.setenv("TZ", "America/Los_Angeles")
    assert shown(STORED) == LA_SHOWN
    assert shown(1773156600.0) == LA_SHOWN  # 2026-03-10T15:30:00Z
    assert shown("2026-03-10T15:30:00Z") == LA_SHOWN
    assert shown("2026-03-10T08:30") == LA_SHOWN  # no offset: read in the reader's zone
    assert shown("2026-01-10T15:30:00Z") == "2026-01-10 07:30 -08:00"  # standard time
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    assert shown(STORED) == "2026-03-10 21:00 +05:30"
    assert (shown(""), shown("not a time")) == ("", "not a time")


def test_cli_shows_the_day_that_since_today_selects(written: tuple[Path, dict[str, str]]
                                                   ) -> None:
    repo, base = written
    la = {**base, **LA}
    data = json.loads(run(["recall", "parsed settings", "--since", "today", "--json"], repo, la))
    assert [h["text"] for h in data["hits"]] == [TEXT]
    hit = data["hits"][0]
    assert (hit["occurred_at"], hit["created_at"]) == (LA_ISO, LA_ISO)
    # the reader's day holds it; the writer's day (for the reader: tomorrow) does not
    for since, until, want in (("today", "today", [TEXT]), ("2026-03-10", "2026-03-10", [TEXT]),
                               ("2026-03-11", "2026-03-11", []), ("yesterday", "yesterday", [])):
        got = json.loads(run(["recall", "parsed settings", "--since", since, "--until", until,
                              "--json"], repo, la))["hits"]
        assert [h["text"] for h in got] == want, (since, until)
    table = run(["recall", "parsed settings", "--since", "today"], repo, la)
    assert LA_SHOWN in table and "2026-03-11" not in table, table
    listing = run(["memories"], repo, la)
    assert LA_SHOWN in listing and "2026-03-11" not in listing, listing
    shown_json = json.loads(run(["memories", "--json"], repo, la))["memories"][0]
    assert shown_json["occurred_at"] == LA_ISO
    digest = run(["reflect", "parsed settings"], repo, la)
    assert f"[#1 {LA_SHOWN}] {TEXT}" in digest, digest
    # the writer sees its own day, and export keeps the stored text unchanged
    tokyo = {**base, **TOKYO}
    assert TOKYO_SHOWN in run(["recall", "parsed settings", "--since", "today"], repo, tokyo)
    exported = json.loads(run(["export"], repo, la).splitlines()[0])
    assert (exported["occurred_at"], exported["created_at"]) == (STORED, STORED)


def test_briefing_and_prompt_injection_show_the_readers_day(tmp_path: Path,
                                                            written: tuple[Path, dict[str, str]]
                                                            ) -> None:
    repo, _ = written
    env = {**make_env(tmp_path), **LA, "HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}
    r = hook("session-start", start("s1", repo), env)
    text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"- #1 decision {LA_SHOWN}: {TEXT}" in text, text
    r = hook("user-prompt-submit", {"session_id": "s2", "cwd": str(repo),
                                    "prompt": "cache the parsed settings per process?"}, env)
    injected = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"- #1 decision {LA_SHOWN}: {TEXT}" in injected, injected


def test_mcp_answers_give_the_readers_zone(written: tuple[Path, dict[str, str]]) -> None:
    from mcp import Client, StdioServerParameters

    repo, base = written
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "hindsight.mcp.command", "--repo-root", str(repo)],
                                   env={**base, **LA}, cwd=str(repo.parent))

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(params) as c:
            rec = await c.call_tool("recall", {"text": "parsed settings"})
            ref = await c.call_tool("reflect", {"question": "parsed settings"})
            assert isinstance(rec.structured_content, dict)
            assert isinstance(ref.structured_content, dict)
            return rec.structured_content, ref.structured_content

    rec, ref = anyio.run(main)
    assert [(h["text"], h["occurred_at"]) for h in rec["hits"]] == [(TEXT, LA_ISO)]
    assert ref["by_kind"] == {"decision": [f"[#1 {LA_SHOWN}] {TEXT}"]}


def test_history_tables_show_commit_dates_in_the_readers_zone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "h", {})
    (repo / "settings.py").write_text("def load():\n    return {}\n")
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing", "COLUMNS": "200",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_AUTHOR_DATE": STORED, "GIT_COMMITTER_DATE": STORED}
    for args in (["add", "-A"], ["-c", "core.hooksPath=", "commit", "-qm", "settings loader"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    run(["index"], repo, env)
    run(["ingest"], repo, env)
    la = {**env, **LA}
    table = run(["history", "load"], repo, la)
    assert LA_SHOWN in table and "2026-03-11" not in table, table
    # JSON keeps the commit's date as git records it: the author's own offset
    entry = json.loads(run(["history", "load", "--json"], repo, la))["entries"][0]
    assert entry["date"] == STORED
