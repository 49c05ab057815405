"""Deterministic experience extraction from transcripts (hooks/experience.py)."""

from __future__ import annotations

from pathlib import Path

from hindsight.sessions.codex import read_codex
from hindsight.sessions.experience import Experience, extract
from hindsight.sessions.transcripts import Turn, read_claude

FIX = Path(__file__).resolve().parent / "fixtures" / "transcripts"
SESSION = FIX / "claude_session.jsonl"
SPECIAL = FIX / "claude_special.jsonl"
CORRUPT = FIX / "claude_corrupt.jsonl"
ROLLOUT = next((FIX / "codex").rglob("rollout-*.jsonl"))
CWD = "/home/dev/proj"
IMPORT_ERROR = "ImportError: cannot import name 'parse' from 'app' (/home/dev/proj/src/app.py)"
LOGIN_FAILED = "FAILED tests/test_login.py::test_login - AssertionError: assert 401 == 200"


SESSION_EXPERIENCES = [
    Experience("experience",
               f"Problem: Bash .venv/bin/pytest -q tests/test_app.py failed: {IMPORT_ERROR}. "
               "Solution: edited src/app.py (The function `parse` is missing from src/app.py; "
               "I'll add it.). Outcome: success",
               ("/home/dev/proj/src/app.py",), "success"),
    Experience("convention", "Always use pathlib, never os.path, in this repo."),
    Experience("lesson", "User correction: No, don't use os.path there; use pathlib instead.",
               ("/home/dev/proj/src/cli.py",)),
    Experience("experience",
               "Problem: Bash cd /home/dev/proj && ruff check src failed 2 times: "
               "src/cli.py:3:1: F401 [*] `os` imported but unused. No fix found in the "
               "session. Outcome: failure", (), "failure"),
]
CODEX_EXPERIENCES = [
    Experience("decision", "We decided to keep bcrypt for hashing."),
    Experience("experience",
               f"Problem: Shell pytest -q tests/test_login.py failed: {LOGIN_FAILED}. "
               "Solution: edited src/auth.py (The password check compares the wrong field; "
               "I'll fix src/auth.py.). Outcome: success",
               ("/home/dev/proj/src/auth.py",), "success"),
]


def test_extract_from_fixtures() -> None:
    assert extract(read_claude(str(SESSION)).turns) == SESSION_EXPERIENCES
    assert extract(read_claude(str(SPECIAL)).turns) == [
        Experience("convention", "From now on, we use ruff for linting.")]
    assert extract(read_codex(str(ROLLOUT)).turns) == CODEX_EXPERIENCES
    assert extract(read_claude(str(CORRUPT)).turns) == []
    turns = read_claude(str(SESSION)).turns
    assert extract(list(turns)) == extract(turns) == SESSION_EXPERIENCES  # stable


def act(target: str, error: str = "", tool: str = "Bash",
        files: tuple[str, ...] = ()) -> Turn:
    return Turn("action", f"{tool}: {target}", tool=tool, target=target, error=error,
                files=files)


def test_extract_rules() -> None:
    user, said = Turn("user", "Please never commit to main."), Turn("assistant", "ok")
    edit = act("src/a.py", tool="Edit", files=("/r/src/a.py",))
    # a rerun without edits, a single failure, a fix beyond the window: nothing
    assert extract([act("pytest -q", "E1"), act("pytest -q")]) == []
    assert extract([act("pytest -q", "E1"), edit]) == []
    assert extract([act("pytest -q", "E1"), *[said] * 15, edit, act("pytest -q")]) == []
    got = extract([act("python -m pytest a", "E1."), said, edit, act("python -m pytest b")])
    assert got == [Experience("experience", "Problem: Bash python -m pytest a failed: E1. "
                              "Solution: edited src/a.py (ok). Outcome: success",
                              ("/r/src/a.py",), "success")]
    assert extract([act("python -m mypy", "E1"), edit, act("python -m pytest")]) == []
    failed_edit = act("src/a.py", "String not found", tool="Edit", files=("/r/src/a.py",))
    assert extract([failed_edit, act("b", tool="Write", files=("/r/b",)),
                    act("src/a.py", tool="Edit", files=("/r/src/a.py",))]) == []
    # statements: first prompt, repeats, questions and code blocks
    assert extract([user]) == [Experience("convention", "Please never commit to main.")]
    assert extract([user, said, user]) == extract([user])
    assert extract([Turn("user", "Should we always use tabs?\n```\n# always use x\n```")]) == []
    assert extract([Turn("user", "Let's go with SQLite.\nWe use pytest for tests")]) == [
        Experience("decision", "Let's go with SQLite."),
        Experience("convention", "We use pytest for tests")]
    # corrections need a preceding assistant/action turn
    assert extract([Turn("user", "Don't touch the tests.")]) == []
    assert extract([said, Turn("user", "Stop adding comments; I said keep it short")]) == [
        Experience("lesson", "User correction: Stop adding comments; I said keep it short")]
    assert extract([Turn("summary", "Always use X."), said, Turn("assistant", "never do Y")]) == []
    assert extract([said, Turn("user", "Never mind, go on with it.")]) == []
