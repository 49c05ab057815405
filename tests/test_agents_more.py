"""Windsurf, Cline, opencode and Kilo hooks and transcripts as real subprocesses (issue 16):
each event's payload → exactly what the agent reads, the edit trace, the write-back keeping
prompts, replies and one line per tool call (no tool output, no thinking, no secrets),
corrupt and truncated lines, steps read twice, and `hindsight import <agent>` taking this
repository's sessions only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentutil import WindsurfTranscript, agent_env, payload, run_hook
from histutil import Repo, fn
from hookutil import AWS, cli, diag, make_env, make_repo, memories

from hindsight.sessions.windsurf import read_windsurf

CONVENTION = "Always use pathlib, never os.path, in this repo."
FENCE = ('<hindsight-memory kind="recalled">\nNotes recalled by hindsight…\n- #3 use pathlib'
         '\n</hindsight-memory>')


@pytest.fixture()
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path)


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return {**agent_env(make_env(tmp_path), tmp_path / "home"),
            "HINDSIGHT_NOW": "2026-11-29T12:00:00+00:00"}


def last(env: dict[str, str], event: str) -> dict[str, Any]:
    return [d for d in diag(env) if d["event"] == event][-1]


def roles(turns: list[Any]) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in turns]


def windsurf_session(home: Path, repo: Path, trajectory: str = "9b7e2f10-windsurf"
                     ) -> WindsurfTranscript:
    t = WindsurfTranscript(home, trajectory)
    t.user(f"{FENCE}\n{CONVENTION}")
    t.say("Understood, pathlib it is.")
    t.step("run_command", command_line="pytest -q", cwd=str(repo),
           output=f"1 passed TOOL-OUTPUT-BODY {AWS}")
    t.raw("{this line is corrupt")
    t.step("code_action", path=f"file://{repo}/pay.py", new_content="FILE-CONTENT-BODY")
    t.step("view_file", absolute_path_uri=f"file://{repo}/cfg.py", content="VIEWED-BODY")
    t.step("run_command", status="error", command_line="ruff check .",
           output="E501 line too long")
    t.say("Done.")
    return t


def test_windsurf_hooks_print_nothing_record_edits_and_write_back(
        env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    cli(["retain", "We decided to keep refunds idempotent.", "--kind", "decision"], env,
        repo.path)
    for event in ("session-start", "user-prompt-submit"):  # nothing reaches Cascade's model
        r = run_hook(event, "windsurf", payload("windsurf", "user-prompt-submit", repo.path),
                     env, repo.path)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
        assert last(env, event)["skipped"].startswith("Windsurf hooks cannot inject")

    (repo.path / "pay.py").write_text(fn("charge", body="return 2") + fn("refund"))
    r = run_hook("edit", "windsurf", payload("windsurf", "edit", repo.path), env, tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    trace = json.loads(cli(["trace-log", "--json"], env, repo.path))["events"]
    assert [(t["file"], t["actor"], t["session"]) for t in trace] == [
        ("pay.py", "windsurf", "9b7e2f10-windsurf")]
    assert [s["qname"] for s in trace[0]["symbols"]] == ["pay.py::charge"]

    t = windsurf_session(tmp_path / "home", repo.path)
    path = t.write(tail='{"step_index": 99, "type": "user_in')
    stop = payload("windsurf", "stop", repo.path, str(path))
    r = run_hook("stop", "windsurf", stop, env, repo.path)
    assert (r.returncode, r.stdout) == (0, "")
    assert last(env, "stop")["error"] == ""
    rows = memories(env)
    assert ("convention", CONVENTION) in rows
    conv = [x for k, x in rows if k == "conversation"]
    assert conv == [f"User: {CONVENTION}\nAssistant: Understood, pathlib it is.\nDone.\n"
                    "Actions: run_command: pytest -q; code_action: pay.py; view_file: cfg.py; "
                    "run_command: ruff check . (failed)"]
    stored = " ".join(x for _, x in rows)
    for secret in ("TOOL-OUTPUT-BODY", AWS, "FILE-CONTENT-BODY", "VIEWED-BODY",
                   "THINKING-TEXT", "hindsight-memory"):
        assert secret not in stored
    r = run_hook("stop", "windsurf", stop, env, repo.path)  # again: nothing new
    drains = [d for d in diag(env) if d["event"] == "drain"]
    assert drains[-1]["result"]["retained"] == 0 and drains[-1]["result"]["turns"] == 0


def test_windsurf_reader_corrupt_truncated_repeated_and_agy_style_steps(tmp_path: Path
                                                                        ) -> None:
    root = tmp_path / "ws"
    t = windsurf_session(tmp_path, root)
    path = t.write(tail='{"step_index": 99, "type": "user_in')
    r = read_windsurf(str(path), cwd=str(root))
    assert r.session_id == "9b7e2f10-windsurf"
    assert roles(r.turns) == [
        ("user", CONVENTION), ("assistant", "Understood, pathlib it is."),
        ("action", "run_command: pytest -q"), ("action", "code_action: pay.py"),
        ("action", "view_file: cfg.py"), ("action", "run_command: ruff check ."),
        ("assistant", "Done.")]
    assert r.turns[3].files == (str(root / "pay.py"),)
    assert r.turns[5].error == "E501 line too long"
    assert len(r.warnings) == 1 and r.warnings[0].endswith(":line 4: invalid JSON")
    assert r.offset == path.stat().st_size - len('{"step_index": 99, "type": "user_in')
    # Windsurf writes the transcript again after the next response: the steps read before
    # come back (same step_index) and are skipped; the completed line and a new step count
    t.user("and add a test")
    t.step("planner_response", response="Added.", tool_calls=[
        {"name": "write_to_file", "args": {"TargetFile": str(root / "t.py"),
                                           "CodeContent": "SECRET"}}])
    path.write_text("".join(x + "\n" for x in t.lines), encoding="utf-8")
    r2 = read_windsurf(str(path), r.offset, cwd=str(root))
    assert roles(r2.turns) == [("user", "and add a test"), ("assistant", "Added."),
                               ("action", "write_to_file: t.py")]
    assert r2.turns[2].files == (str(root / "t.py"),)
    # Antigravity's spelling of the same kinds
    agy = tmp_path / "agy.jsonl"
    agy.write_text(json.dumps({"step_index": 0, "type": "USER_INPUT", "content": "Fix it"})
                   + "\n" + json.dumps({"step_index": 1, "type": "PLANNER_RESPONSE",
                                        "content": "Fixing.", "thinking": "THINKING-TEXT"})
                   + "\n", encoding="utf-8")
    assert roles(read_windsurf(str(agy)).turns) == [("user", "Fix it"),
                                                     ("assistant", "Fixing.")]


def test_import_windsurf_takes_transcripts_about_this_repository(
        env: dict[str, str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    mine = WindsurfTranscript(home, "t-mine")
    mine.user("Always run the linter before tests.")
    mine.step("run_command", command_line="ruff check .", cwd=str(repo.path))
    mine.write()
    other = WindsurfTranscript(home, "t-other")
    other.user("OTHER-PROJECT prompt")
    other.step("run_command", command_line="ls", cwd=str(tmp_path / "shop2"))
    other.write()
    out = json.loads(cli(["import", "windsurf", "--json"], env, repo.path))
    assert (out["files"], out["errors"]) == (1, [])
    assert out["looked_in"] == [str(home / ".windsurf" / "transcripts")]
    rows = memories(env)
    assert ("convention", "Always run the linter before tests.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
    assert json.loads(cli(["import", "windsurf", "--json"], env, repo.path))["retained"] == 0
