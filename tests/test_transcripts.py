"""Transcript readers (Claude Code, Codex) and deterministic experience extraction.

Fixtures under tests/fixtures/transcripts/ are written by hand in each agent's real format
(see docs/agent-formats.md); expected values below are exact.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from ccjsonl import asst_line, user_line, write_lines

from hindsight.sessions.codex import codex_rollouts, read_codex, rollout_cwd
from hindsight.sessions.locations import claude_transcripts, project_dir_name
from hindsight.sessions.transcripts import (
    FENCE_TAG,
    ReadResult,
    Turn,
    read_claude,
)

FIX = Path(__file__).resolve().parent / "fixtures" / "transcripts"
SESSION = FIX / "claude_session.jsonl"
SPECIAL = FIX / "claude_special.jsonl"
TRUNCATED = FIX / "claude_truncated.jsonl"
CORRUPT = FIX / "claude_corrupt.jsonl"
ROLLOUT = (FIX / "codex" / "sessions" / "2025" / "10" / "03"
           / "rollout-2025-10-03T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
CWD = "/home/dev/proj"
FORBIDDEN = ("SHOULD-NOT-APPEAR", "AKIAIOSFODNN7EXAMPLE", "ghp_", "iVBORw0KGgo", "signature",
             "gAAAA", "c2lnbmF0dXJl")


def pairs(res: ReadResult) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in res.turns]


def actions(res: ReadResult) -> list[tuple[str, str, str, str, tuple[str, ...]]]:
    return [(t.text, t.tool, t.target, t.error, t.files) for t in res.turns if t.role == "action"]


def assert_clean(res: ReadResult) -> None:
    dumped = repr(res.turns)
    for marker in FORBIDDEN:
        assert marker not in dumped, marker


# ------------------------------------------------------------------------- Claude golden

SESSION_TURNS = [
    ("user", "Fix the failing test in tests/test_app.py"),
    ("assistant", "I'll run the tests first."),
    ("action", "Bash: .venv/bin/pytest -q tests/test_app.py"),
    ("assistant", "The function `parse` is missing from src/app.py; I'll add it."),
    ("action", "Edit: src/app.py"),
    ("action", "Bash: .venv/bin/pytest -q tests/test_app.py"),
    ("assistant", "All tests pass now."),
    ("user", "Always use pathlib, never os.path, in this repo. Now add a CLI entry point."),
    ("action", "Write: src/cli.py"),
    ("assistant", "I created src/cli.py using os.path."),
    ("user", "No, don't use os.path there; use pathlib instead."),
    ("action", "Edit: src/cli.py"),
    ("assistant", "Switched src/cli.py to pathlib."),
    ("action", "Bash: cd /home/dev/proj && ruff check src"),
    ("action", "Bash: ruff check src --fix"),
    ("assistant", "I could not fix the lint errors automatically."),
]
IMPORT_ERROR = "ImportError: cannot import name 'parse' from 'app' (/home/dev/proj/src/app.py)"
SESSION_ACTIONS = [
    ("Bash: .venv/bin/pytest -q tests/test_app.py", "Bash",
     ".venv/bin/pytest -q tests/test_app.py", IMPORT_ERROR, ()),
    ("Edit: src/app.py", "Edit", "src/app.py", "", ("/home/dev/proj/src/app.py",)),
    ("Bash: .venv/bin/pytest -q tests/test_app.py", "Bash",
     ".venv/bin/pytest -q tests/test_app.py", "", ()),
    ("Write: src/cli.py", "Write", "src/cli.py", "", ("/home/dev/proj/src/cli.py",)),
    ("Edit: src/cli.py", "Edit", "src/cli.py", "", ("/home/dev/proj/src/cli.py",)),
    ("Bash: cd /home/dev/proj && ruff check src", "Bash", "cd /home/dev/proj && ruff check src",
     "src/cli.py:3:1: F401 [*] `os` imported but unused", ()),
    ("Bash: ruff check src --fix", "Bash", "ruff check src --fix",
     "error: Failed to parse src/cli.py:5:1: Expected an expression", ()),
]
SPECIAL_TURNS = [
    ("user", "Deploy the app to staging. The API key is "
             "sk-ant-api03-PLANTEDuserSECRETdoNOTleak0123456789."),
    ("assistant", "Which environment file should I read the key from?"),
    ("user", "[image]\n\nWhat is wrong in this screenshot of the login page"),
    ("assistant", "Here is the encoded logo: [binary] for reference."),
    ("action", "Task: Explore auth module"),
    ("assistant", "The auth module reads credentials from the environment."),
    ("action", 'Bash: grep -rn "error:" logs/'),
    ("summary", "This session is being continued from a previous conversation that ran out of "
                "context. The conversation is summarized below:\nSummary: the user asked to "
                "deploy to staging and to check the login page screenshot."),
    ("summary", "Auth module exploration and login screenshot"),
    ("user", "Thanks. From now on, we use ruff for linting."),
    ("assistant", "Noted."),
]


def test_claude_session_turns() -> None:
    res = read_claude(str(SESSION))
    assert pairs(res) == SESSION_TURNS
    assert actions(res) == SESSION_ACTIONS
    assert (res.session_id, res.cwd, res.git_branch) == (
        "5f1c2b7e-8a41-4c1e-9a0b-3d2e1f0a9b8c", CWD, "main")
    assert res.offset == SESSION.stat().st_size
    assert res.lines == 26 and res.warnings == []
    assert res.turns[0].uuid == "5f1c2b7e-0000-4000-8000-000000000001"
    assert res.turns[0].timestamp == "2025-10-02T09:00:01.000Z"
    assert_clean(res)
    assert "THINKING" not in repr(res.turns)


def test_claude_special_cases() -> None:
    res = read_claude(str(SPECIAL))
    assert pairs(res) == SPECIAL_TURNS
    assert [t.error for t in res.turns if t.role == "action"] == ["", ""]  # grep quotes errors
    assert (res.session_id, res.cwd, res.git_branch) == (
        "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a", CWD, "main")
    assert res.offset == SPECIAL.stat().st_size and res.warnings == []
    assert_clean(res)
    dumped = repr(res.turns)
    for marker in ("SIDECHAIN", "REMINDER", "FENCED", "UNCLOSED", "/clear", "Caveat",
                   "Request interrupted", "No response requested", FENCE_TAG):
        assert marker not in dumped


def test_fence_and_wrappers_are_dropped(tmp_path: Path) -> None:
    lines = [user_line(1, f'Keep <{FENCE_TAG} id="m1">\nold note\n</{FENCE_TAG}>this part'),
             asst_line(2, "m2", [{"type": "text", "text": "ok"}]),
             user_line(3, f"<{FENCE_TAG}>an unclosed fence hides the rest"),
             user_line(4, "<command-name>/model</command-name><command-args>opus</command-args>"),
             user_line(5, "<local-command-stdout>Set model to opus</local-command-stdout>"),
             user_line(6, "<system-reminder>x</system-reminder>   ")]
    p = write_lines(tmp_path / "t.jsonl", lines)
    assert pairs(read_claude(str(p))) == [("user", "Keep this part"), ("assistant", "ok")]


def test_truncated_last_line_is_left_then_consumed(tmp_path: Path) -> None:
    data = TRUNCATED.read_bytes()
    res = read_claude(str(TRUNCATED))
    assert pairs(res) == [("user", "List the files in src"),
                          ("assistant", "Here they are: app.py, cli.py.")]
    assert res.offset == data.rindex(b"\n") + 1 < len(data)
    assert res.lines == 2
    assert read_claude(str(TRUNCATED), res.offset).turns == []
    copy = tmp_path / "t.jsonl"
    copy.write_bytes(data + (FIX / "claude_truncated_rest.txt").read_bytes())
    more = read_claude(str(copy), res.offset)
    assert pairs(more) == [("assistant", "Anything else you need?")]
    assert more.offset == copy.stat().st_size and more.lines == 1


def test_corrupt_middle_line_is_skipped_with_warning() -> None:
    res = read_claude(str(CORRUPT))
    assert pairs(res) == [("user", "Rename the helper to load_config"),
                          ("assistant", "Renamed it."), ("user", "Thanks, that is all")]
    assert res.warnings == [f"{CORRUPT}:line 2: invalid JSON"]
    assert res.offset == CORRUPT.stat().st_size and res.lines == 4


def test_corrupt_last_line_waits_for_the_next_read(tmp_path: Path) -> None:
    first = user_line(1, "hello")
    p = tmp_path / "t.jsonl"
    p.write_text(first + '{"type":"user","message":\n')
    res = read_claude(str(p))
    assert pairs(res) == [("user", "hello")] and res.warnings == []
    assert res.offset == len(first.encode())
    with p.open("a") as f:
        f.write(user_line(2, "again"))
    more = read_claude(str(p), res.offset)
    assert pairs(more) == [("user", "again")]
    assert more.warnings == [f"{p}:line 1: invalid JSON"]


@pytest.mark.parametrize("path", [SESSION, SPECIAL, CORRUPT, TRUNCATED])
def test_reading_from_the_returned_offset_gives_nothing_new(path: Path) -> None:
    res = read_claude(str(path))
    again = read_claude(str(path), res.offset)
    assert again.turns == [] and again.offset == res.offset and again.lines == 0


def test_appended_line_yields_exactly_its_turns(tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    shutil.copy(SESSION, p)
    res = read_claude(str(p))
    with p.open("a") as f:
        f.write(asst_line(90, "msg_new", [{"type": "text", "text": "Done."},
                                          {"type": "thinking", "thinking": "hidden"},
                                          {"type": "tool_use", "id": "toolu_9", "name": "Read",
                                           "input": {"file_path": CWD + "/README.md"}}]))
        f.write(user_line(91, [{"type": "tool_result", "tool_use_id": "toolu_9",
                                "content": "# proj"}]))
    more = read_claude(str(p), res.offset)
    assert pairs(more) == [("assistant", "Done."), ("action", "Read: README.md")]
    assert more.offset == p.stat().st_size and more.lines == 2


def test_pending_tool_call_waits_for_its_result(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    first = user_line(1, "run it")
    call = asst_line(2, "m1", [{"type": "text", "text": "Running."},
                               {"type": "tool_use", "id": "t1", "name": "Bash",
                                "input": {"command": "make test"}}])
    p.write_text(first + call)
    res = read_claude(str(p))
    assert pairs(res) == [("user", "run it")] and res.offset == len(first.encode())
    final = read_claude(str(p), final=True)
    assert pairs(final) == [("user", "run it"), ("assistant", "Running."),
                            ("action", "Bash: make test")]
    assert final.offset == p.stat().st_size
    with p.open("a") as f:
        f.write(user_line(3, [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                               "content": "Exit code 2\nmake: *** [test] Error 2"}]))
    more = read_claude(str(p), res.offset)
    assert [(t.role, t.text, t.error) for t in more.turns] == [
        ("assistant", "Running.", ""), ("action", "Bash: make test", "make: *** [test] Error 2")]


def test_unanswered_call_is_closed_by_the_next_prompt(tmp_path: Path) -> None:
    p = write_lines(tmp_path / "t.jsonl", [
        asst_line(1, "m1", [{"type": "tool_use", "id": "t1", "name": "Bash",
                             "input": {"command": "sleep 100"}}]),
        user_line(2, "never mind")])
    res = read_claude(str(p))
    assert pairs(res) == [("action", "Bash: sleep 100"), ("user", "never mind")]
    assert res.offset == p.stat().st_size


@pytest.mark.parametrize(("output", "is_error", "command", "error"), [
    ("Exit code 1\nboom", True, "make", "boom"),
    ("Exit code 0\nFAILED x", False, "pytest", ""),
    ("1 failed\nFAILED tests/a.py::t - assert 0", False, "pytest -q | tail -2",
     "FAILED tests/a.py::t - assert 0"),
    ("x.c:3:5: error: expected ';'", False, "gcc x.c", "x.c:3:5: error: expected ';'"),
    ("fatal: not a git repository", False, "git push", "fatal: not a git repository"),
    ("src/a.py:1: error: found", False, "grep -rn error: src", ""),
    ("Traceback (most recent call last):\n  File \"a\"\nKeyError: 'k'", False,
     "python a.py", "KeyError: 'k'"),
    ("all good", False, "ls", ""),
    ("<tool_use_error>String to replace not found in file.</tool_use_error>", True, "",
     "String to replace not found in file."),
])
def test_error_signals(tmp_path: Path, output: str, is_error: bool, command: str,
                       error: str) -> None:
    tool, inp = ("Bash", {"command": command}) if command else (
        "Edit", {"file_path": CWD + "/a.py", "old_string": "a", "new_string": "b"})
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t1", "content": output}
    if is_error:
        result["is_error"] = True
    p = write_lines(tmp_path / "t.jsonl", [
        asst_line(1, "m1", [{"type": "tool_use", "id": "t1", "name": tool, "input": inp}]),
        user_line(2, [result])])
    (turn,) = read_claude(str(p)).turns
    assert turn.error == error


def test_text_caps_and_binary_placeholders(tmp_path: Path) -> None:
    b64 = "QUJD" * 100
    p = write_lines(tmp_path / "t.jsonl", [
        user_line(1, "x" * 50),
        asst_line(2, "m", [{"type": "text", "text": f"blob {b64} end"}]),
        user_line(3, [{"type": "document", "source": {"type": "base64", "data": b64}},
                      {"type": "text", "text": "see data:application/pdf;base64,JVBERi0x"}])])
    res = read_claude(str(p), max_text=10)
    assert pairs(res) == [("user", "xxxxxxxxxx… [truncated 40 chars]"),
                          ("assistant", "blob [bina… [truncated 7 chars]"),
                          ("user", "[binary]\n\n… [truncated 12 chars]")]
    res = read_claude(str(p))
    assert pairs(res)[1:] == [("assistant", "blob [binary] end"),
                              ("user", "[binary]\n\nsee [binary]")]


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_claude(str(tmp_path / "missing.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert read_claude(str(empty)) == ReadResult([], 0, "", "", "", [], 0)
    odd = tmp_path / "odd.jsonl"
    odd.write_bytes(b"\xef\xbb\xbf" + user_line(1, "bom ok").encode().replace(b"\n", b"\r\n")
                    + b"[1, 2]\n42\n\n" + b'{"type":"mystery","message":{}}\n'
                    + b'{"type":"user","message":{"role":"user","content":"caf\xe9"}}\n')
    res = read_claude(str(odd))
    assert pairs(res) == [("user", "bom ok"), ("user", "caf\ufffd")]
    assert res.warnings == [] and res.lines == 6
    beyond = read_claude(str(odd), 10**9)
    assert beyond.turns == [] and beyond.offset == odd.stat().st_size
    assert read_claude(str(odd), -5).turns == res.turns


def test_turn_is_frozen() -> None:
    turn = Turn("user", "x")
    with pytest.raises(AttributeError):
        turn.text = "y"  # type: ignore[misc]


# ------------------------------------------------------------------------- locations


def _hash36_by_polynomial(s: str) -> str:
    """Independent check of the JS hash: sum(c_i * 31^(n-1-i)) mod 2^32, signed, |.|."""
    units = [int.from_bytes(s.encode("utf-16-le")[i:i + 2], "little")
             for i in range(0, len(s.encode("utf-16-le")), 2)]
    h = sum(u * pow(31, len(units) - 1 - i, 2**32) for i, u in enumerate(units)) % 2**32
    h = abs(h - 2**32 if h >= 2**31 else h)
    digits = ""
    while h:
        h, r = divmod(h, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
    return digits or "0"


def test_project_dir_name() -> None:
    assert project_dir_name("/Users/alice/projects/x") == "-Users-alice-projects-x"
    assert project_dir_name("/home/dev/proj") == "-home-dev-proj"
    # JS replaces per UTF-16 code unit: é → "-", the astral 🚀 (two units) → "--".
    assert project_dir_name("/home/dév/my_proj.v2 🚀") == "-home-d-v-my-proj-v2---"
    exact = "/" + "a" * 199
    assert project_dir_name(exact) == "-" + "a" * 199
    long = "/home/dev/" + "very_long_directory_name/" * 9 + "project"  # 242 chars
    # Expected suffix "uqgtd0": computed with Node.js, `h = (h << 5) - h + s.charCodeAt(i);
    # h |= 0` then Math.abs(h).toString(36), and again by the polynomial formula below.
    assert _hash36_by_polynomial(long) == "uqgtd0"
    name = project_dir_name(long)
    assert name == ("-home-dev" + "-very-long-directory-name" * 8)[:200] + "-uqgtd0"
    assert len(name) == 207
    odd = "/ü/" + "日本語/" * 70
    assert project_dir_name(odd).endswith("-" + _hash36_by_polynomial(odd))


def test_claude_transcripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cfg" / "projects" / "-home-dev-proj"
    (folder / "s1" / "subagents").mkdir(parents=True)
    for name, mtime in [("b.jsonl", 100), ("a.jsonl", 200), ("agent-x.jsonl", 50),
                        ("notes.txt", 10), ("s1/subagents/agent-1.jsonl", 5)]:
        (folder / name).write_text("{}\n")
        os.utime(folder / name, (mtime, mtime))
    want = [str(folder / "b.jsonl"), str(folder / "a.jsonl")]
    assert claude_transcripts(CWD, str(tmp_path / "cfg")) == want
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert claude_transcripts(CWD) == want
    assert claude_transcripts("/elsewhere") == []
    long = "/home/dev/" + "very_long_directory_name/" * 9 + "project"
    other = tmp_path / "cfg" / "projects" / (project_dir_name(long)[:200] + "-bunhash")
    other.mkdir()
    (other / "c.jsonl").write_text("{}\n")
    assert claude_transcripts(long) == [str(other / "c.jsonl")]


# ------------------------------------------------------------------------- Codex

CODEX_TURNS = [
    ("user", "Make the login test pass. We decided to keep bcrypt for hashing."),
    ("action", "Shell: pytest -q tests/test_login.py"),
    ("assistant", "The password check compares the wrong field; I'll fix src/auth.py."),
    ("action", "apply_patch: src/auth.py"),
    ("action", "Shell: pytest -q tests/test_login.py"),
    ("assistant", "Fixed: the login test passes now."),
    ("summary", "Summary: fixed the login check in src/auth.py."),
    ("action", "Shell: git status --short"),
]
LOGIN_FAILED = "FAILED tests/test_login.py::test_login - AssertionError: assert 401 == 200"


def test_codex_rollout() -> None:
    res = read_codex(str(ROLLOUT))
    assert pairs(res) == CODEX_TURNS
    assert actions(res) == [
        ("Shell: pytest -q tests/test_login.py", "Shell", "pytest -q tests/test_login.py",
         LOGIN_FAILED, ()),
        ("apply_patch: src/auth.py", "apply_patch", "src/auth.py", "",
         ("/home/dev/proj/src/auth.py",)),
        ("Shell: pytest -q tests/test_login.py", "Shell", "pytest -q tests/test_login.py", "",
         ()),
        ("Shell: git status --short", "Shell", "git status --short", "", ()),
    ]
    assert (res.session_id, res.cwd, res.git_branch) == (
        "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", CWD, "feature/login")
    assert res.offset == ROLLOUT.stat().st_size and res.lines == 24 and res.warnings == []
    assert res.turns[0].timestamp == "2025-10-03T10:00:05.000Z"
    assert_clean(res)
    dumped = repr(res.turns)
    for marker in ("REASONING", "DEVELOPER", "AGENTS", "environment_context", "UNKNOWN-TYPE",
                   "REPLACEMENT-HISTORY", "TOOL-OUTPUT"):
        assert marker not in dumped
    assert read_codex(str(ROLLOUT), res.offset).turns == []


def test_rollout_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert rollout_cwd(str(ROLLOUT)) == CWD
    assert codex_rollouts(str(FIX / "codex")) == [str(ROLLOUT)]
    home = tmp_path / "codex"
    day = home / "sessions" / "2025" / "01" / "02"
    day.mkdir(parents=True)
    (home / "archived_sessions").mkdir()
    for name, mtime in [("rollout-b.jsonl", 20), ("rollout-a.jsonl", 30), ("other.jsonl", 1)]:
        (day / name).write_text("{}\n")
        os.utime(day / name, (mtime, mtime))
    (home / "archived_sessions" / "rollout-z.jsonl").write_text("{}\n")
    want = [str(day / "rollout-b.jsonl"), str(day / "rollout-a.jsonl")]
    assert codex_rollouts(str(home)) == want
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert codex_rollouts() == want
    assert rollout_cwd(str(day / "rollout-a.jsonl")) == ""
    with pytest.raises(FileNotFoundError):
        rollout_cwd(str(day / "missing.jsonl"))


def codex_line(kind: str, payload: dict[str, Any], second: int = 0) -> str:
    return json.dumps({"timestamp": f"2025-10-03T10:00:{second:02d}.000Z", "type": kind,
                       "payload": payload}) + "\n"


def test_codex_events_without_response_items(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    p.write_text(codex_line("session_meta", {"id": "s", "cwd": CWD})
                 + codex_line("event_msg", {"type": "user_message", "message": "List files"})
                 + codex_line("event_msg", {"type": "agent_message", "message": "a.py b.py"}))
    res = read_codex(str(p))
    assert pairs(res) == [("user", "List files")]  # the last event waits for a follow-up
    assert pairs(read_codex(str(p), final=True)) == [("user", "List files"),
                                                      ("assistant", "a.py b.py")]
    with p.open("a") as f:
        f.write(codex_line("turn_context", {"cwd": CWD}))
    more = read_codex(str(p), res.offset)
    assert pairs(more) == [("assistant", "a.py b.py")] and more.cwd == CWD


@pytest.mark.parametrize(("name", "args", "output", "text", "error"), [
    ("exec_command", {"cmd": "make"}, "Process exited with code 2\nOutput:\nmake: oops",
     "Shell: make", "make: oops"),
    ("shell_command", {"command": "ls"}, {"content": "denied", "success": False},
     "Shell: ls", "denied"),
    ("shell", {"command": ["pytest", "-k", "a b"]},
     json.dumps({"output": "FAILED x", "metadata": {"exit_code": 0}}),
     "Shell: pytest -k 'a b'", ""),
    ("shell", {"command": ["apply_patch", "*** Begin Patch\n*** Add File: n.py\n+x\n"
                                          "*** End Patch"]},
     json.dumps({"output": "error: patch failed", "metadata": {"exit_code": 1}}),
     "apply_patch: n.py", "error: patch failed"),
    ("mcp__docs__search", {"query": "hooks"}, "error: nothing", "mcp__docs__search: hooks", ""),
    ("update_plan", {"plan": [{"step": "a", "status": "done"}]}, "ok",
     'update_plan: {"plan": [{"status": "done", "step": "a"}]}', ""),
])
def test_codex_calls(tmp_path: Path, name: str, args: dict[str, Any], output: Any, text: str,
                     error: str) -> None:
    p = tmp_path / "r.jsonl"
    p.write_text(codex_line("response_item", {"type": "function_call", "name": name,
                                              "arguments": json.dumps(args), "call_id": "c1"})
                 + codex_line("response_item", {"type": "function_call_output",
                                                "call_id": "c1", "output": output}))
    (turn,) = read_codex(str(p)).turns
    assert (turn.text, turn.error) == (text, error)


# ------------------------------------------------------------------------- experience

# ------------------------------------------------------------------------- properties
