"""Cursor agent transcripts, Copilot CLI events.jsonl and Gemini CLI chat recordings (issue 16): what is kept and what is
not (tool output, thinking, injected context, side chains), corrupt and truncated lines,
rewinds, incremental and duplicate-safe reads, and `hindsight import cursor|copilot` taking
this repository's sessions only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentutil import AgyTranscript, CopilotEvents, CursorTranscript, GeminiChat, agent_env
from hookutil import AWS, GH, cli, make_env, make_repo, memories

from hindsight.sessions.antigravity import read_antigravity
from hindsight.sessions.copilot import read_copilot
from hindsight.sessions.cursor import project_name, read_cursor, transcript_path
from hindsight.sessions.gemini import read_gemini

FENCE = ('<hindsight-memory kind="recalled">\nNotes recalled by hindsight…\n- #3 use pathlib'
         '\n</hindsight-memory>')


def roles(turns: list) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in turns]


def test_cursor_project_folder_and_transcript_path(tmp_path: Path) -> None:
    assert project_name("/home/a/x.y") == "home-a-x-y"
    assert project_name("/srv/my repo_2") == "srv-my-repo-2"
    home = tmp_path / "c"
    flat = home / "projects" / "w-r" / "agent-transcripts" / "id1.jsonl"
    assert transcript_path("/w/r", "id1", str(home)) == str(flat)  # not there yet: flat
    nested = flat.parent / "id1" / "id1.jsonl"
    nested.parent.mkdir(parents=True)
    nested.write_text("")
    assert transcript_path("/w/r", "id1", str(home)) == str(nested)  # the IDE's layout


def test_cursor_reader_keeps_prompts_text_and_actions_only(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    t = CursorTranscript(tmp_path, root, "conv-1")
    t.user(f"Fix the refund bug {FENCE} please")
    t.say("Looking.", ("Read", {"path": "src/pay.py"}),
          ("Shell", {"command": "pytest -q tests/test_pay.py"}))
    t.tool_output(f"TOOL-OUTPUT-BODY {AWS}")
    t.raw('{"role": "assistant", "message": {"content": [{"type": "thinking", '
          '"thinking": "THINKING-TEXT"}, {"type": "tool_use", "name": "StrReplace", '
          '"input": {"path": "src/pay.py", "old_string": "a", "new_string": "b"}}]}}')
    t.raw('{"role": "user", "message": {"content": [{"type": "tool_result", '
          '"content": "TOOL-RESULT-BLOCK"}]}}')
    t.raw('{"role": "user", "message": {"content": "plain string prompt of an older build"}}')
    t.raw("{this line is corrupt")
    t.say("Fixed.", ("Write", {"path": str(root / "src" / "new.py"), "contents": "x = 1"}))
    path = t.write(tail='{"role": "user", "message": {"content": [{"type": "te')

    r = read_cursor(str(path), cwd=str(root))
    assert r.session_id == "conv-1" and r.cwd == str(root)
    assert roles(r.turns) == [
        ("user", "Fix the refund bug  please"), ("assistant", "Looking."),
        ("action", "Read: src/pay.py"), ("action", "Shell: pytest -q tests/test_pay.py"),
        ("action", "StrReplace: src/pay.py"), ("user", "plain string prompt of an older build"),
        ("assistant", "Fixed."), ("action", "Write: src/new.py")]
    assert [t.files for t in r.turns if t.files] == [(str(root / "src" / "pay.py"),),
                                                      (str(root / "src" / "new.py"),)]
    assert len(r.warnings) == 1 and r.warnings[0].endswith(":line 7: invalid JSON")
    # the truncated last line waits; completed, the next read gets it and nothing again
    assert r.offset == len(path.read_bytes()) - len('{"role": "user", "message": '
                                                     '{"content": [{"type": "te')
    with path.open("a", encoding="utf-8") as f:
        f.write('xt", "text": "<user_query>and add a test</user_query>"}]}}\n')
    r2 = read_cursor(str(path), r.offset, cwd=str(root))
    assert roles(r2.turns) == [("user", "and add a test")]
    assert read_cursor(str(path), r2.offset).turns == []


def test_copilot_reader_rewinds_repeats_side_chains_and_results(tmp_path: Path) -> None:
    e = CopilotEvents(tmp_path / "cp", "sess-9", tmp_path / "ws")
    e.user(f"{FENCE}\n\nAlways run ruff before committing.")
    e.event("assistant.reasoning", {"reasoningId": "r1", "content": "THINKING-TEXT"})
    e.say("Running the checks.", ("bash", {"command": "ruff check ."}, "E501 line too long\n"
                                  "Exit code 1", False),
          ("edit", {"path": "src/a.py", "old_str": "x", "new_str": "y"},
           f"TOOL-OUTPUT-BODY {GH}", True))
    e.event("assistant.message", {"messageId": "side", "content": "SIDECHAIN-TEXT",
                                  "parentToolCallId": "call_3_0"})
    e.lines.append(e.lines[-1])  # the same event appended twice
    e.lines.append("{corrupt")
    rewound = e.user("Try the other approach")
    e.say("OK, other approach.")
    e.event("session.snapshot_rewind", {"upToEventId": rewound, "eventsRemoved": 2})
    e.user("Keep the first approach then.")
    e.say("Kept.", ("create", {"path": str(tmp_path / "ws" / "b.py"), "file_text": "z"},
                    "created", True))
    path = e.write()

    r = read_copilot(str(path))
    assert (r.session_id, r.cwd, r.git_branch) == ("sess-9", str(tmp_path / "ws"), "main")
    assert roles(r.turns) == [
        ("user", "Always run ruff before committing."), ("assistant", "Running the checks."),
        ("action", "bash: ruff check ."), ("action", "edit: src/a.py"),
        ("user", "Keep the first approach then."), ("assistant", "Kept."),
        ("action", "create: b.py")]
    assert [t.error for t in r.turns if t.role == "action"] == ["E501 line too long", "", ""]
    assert [t.files for t in r.turns if t.files] == [(str(tmp_path / "ws" / "src" / "a.py"),),
                                                      (str(tmp_path / "ws" / "b.py"),)]
    assert len(r.warnings) == 1 and "invalid JSON" in r.warnings[0]
    assert r.offset == path.stat().st_size
    # a call still waiting for its result is left for the next read, unless final
    e.say("One more.", ("bash", {"command": "make"}, "", True))
    e.lines.pop()  # its tool.execution_complete has not been written yet
    e.write()
    r2 = read_copilot(str(path), r.offset)
    assert (r2.turns, r2.offset) == ([], r.offset)  # the call's line waits, text and all
    r3 = read_copilot(str(path), r.offset, final=True)
    assert roles(r3.turns) == [("assistant", "One more."), ("action", "bash: make")]
    assert r3.offset == path.stat().st_size


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return agent_env(make_env(tmp_path), tmp_path / "home")


def test_import_cursor_takes_this_repositorys_transcripts_once(env: dict[str, str],
                                                              tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    mine = CursorTranscript(home, repo.path, "c-mine")
    mine.user("We decided to keep all money amounts in cents.")
    mine.say("Noted.")
    mine.write()
    other = CursorTranscript(home, tmp_path / "elsewhere", "c-other")
    other.user("OTHER-PROJECT prompt")
    other.say("ok")
    other.write()
    out = json.loads(cli(["import", "cursor", "--json"], env, repo.path))
    assert (out["files"], out["retained"], out["errors"]) == (1, 2, [])
    assert out["looked_in"] == [str(home / ".cursor" / "projects" / project_name(
        str(repo.path)) / "agent-transcripts")]
    assert ("decision", "We decided to keep all money amounts in cents.") in memories(env)
    assert not any("OTHER-PROJECT" in t for _, t in memories(env))
    again = json.loads(cli(["import", "cursor", "--json"], env, repo.path))
    assert (again["files"], again["retained"]) == (1, 0)


def test_import_copilot_takes_sessions_run_in_this_repository(env: dict[str, str],
                                                              tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    chome = Path(env["COPILOT_HOME"])
    (tmp_path / "elsewhere").mkdir()
    for sid, cwd, text in (("s-mine", repo.path / "sub", "Never commit generated files."),
                           ("s-other", tmp_path / "elsewhere", "OTHER-PROJECT prompt")):
        e = CopilotEvents(chome, sid, cwd)
        e.user(text)
        e.say("ok")
        e.write()
    (repo.path / "sub").mkdir()
    out = json.loads(cli(["import", "copilot", "--json"], env, repo.path))
    assert (out["files"], out["retained"], out["errors"]) == (1, 2, [])
    assert out["looked_in"] == [str(chome / "session-state")]
    rows = memories(env)
    assert ("convention", "Never commit generated files.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
    assert json.loads(cli(["import", "copilot", "--json"], env, repo.path))["retained"] == 0


def test_writeback_twice_and_after_an_append_stores_each_exchange_once(
        env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.app import open_bank

    repo = make_repo(tmp_path)
    t = CursorTranscript(tmp_path / "home", repo.path, "c-1")
    t.user("first question about refunds")
    t.say("first answer")
    path = t.write()
    for k in ("HOME", "HINDSIGHT_HOME", "HINDSIGHT_EMBEDDER"):
        monkeypatch.setenv(k, env[k])
    with open_bank(str(repo.path), harness="cursor") as bank:
        first = bank.sessions.write_back("", "cursor", session="c-1", cwd=str(repo.path))
        assert (first["path"], first["retained"]) == (str(path), 1)
        assert bank.sessions.write_back(str(path), "cursor")["retained"] == 0
        t.user("second question about refunds")
        t.say("second answer")
        t.write()
        assert bank.sessions.write_back(str(path), "cursor")["retained"] == 1
        with pytest.raises(FileNotFoundError):
            bank.sessions.write_back("", "cursor", session="c-missing", cwd=str(repo.path))
    texts = [x for _, x in memories(env)]
    assert texts == ["User: first question about refunds\nAssistant: first answer",
                     "User: second question about refunds\nAssistant: second answer"]


def test_gemini_reader_control_lines_replacements_and_pending_calls(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    c = GeminiChat(tmp_path / "g", root, "7d1e0c52-gemini")
    c.user(f"<hook_context>{FENCE}</hook_context>\nAlways keep money in cents.")
    first = c.say("Checking.", ("run_shell_command", {"command": "pytest -q"},
                                f"TOOL-OUTPUT-BODY {AWS}", "error"),
                  record_id="g1")
    c.say("Checking the tests again.", ("run_shell_command", {"command": "pytest -q"},
                                        f"TOOL-OUTPUT-BODY {AWS}", "error"),
          ("write_file", {"file_path": str(root / "money.py"), "content": "CENTS = 100"},
           "ok", "success"), record_id=first)  # the same id again: replaces the first
    c.record("info", "INFO-RECORD")
    c.raw('{"$set": {"lastUpdated": "2026-11-29T12:01:00.000Z", "summary": "cents"}}')
    c.raw("{corrupt")
    gone = c.user("Actually use floats.")
    c.say("Switching to floats.")
    c.raw(json.dumps({"$rewindTo": gone}))
    c.user("Keep cents after all.")
    path = c.write(tail='{"id": "m9", "type": "gem')

    r = read_gemini(str(path), cwd=str(root))
    assert r.session_id == "7d1e0c52-gemini"
    assert roles(r.turns) == [
        ("user", "Always keep money in cents."), ("assistant", "Checking the tests again."),
        ("action", "run_shell_command: pytest -q"), ("action", "write_file: money.py"),
        ("user", "Keep cents after all.")]
    assert r.turns[2].error == "error"  # a failed call, its output not kept
    assert r.turns[3].files == (str(root / "money.py"),)
    assert len(r.warnings) == 1 and "invalid JSON" in r.warnings[0]
    assert r.offset == path.stat().st_size - len('{"id": "m9", "type": "gem')
    # a call still running is left for the next read (with all after it), unless final
    c.lines.append(json.dumps({"id": "g2", "type": "gemini", "content": "Running.",
                               "toolCalls": [{"id": "x", "name": "run_shell_command",
                                              "args": {"command": "make"},
                                              "status": "executing"}]}))
    c.write()
    r2 = read_gemini(str(path), r.offset, cwd=str(root))
    assert (r2.turns, r2.offset) == ([], r.offset)
    assert roles(read_gemini(str(path), r.offset, final=True).turns) == [
        ("assistant", "Running."), ("action", "run_shell_command: make")]
    # finished, the record is appended again; the next read keeps it once
    c.lines.append(c.lines[-1].replace('"executing"', '"success"'))
    c.write()
    r3 = read_gemini(str(path), r.offset, cwd=str(root))
    assert roles(r3.turns) == [("assistant", "Running."), ("action", "run_shell_command: make")]
    assert read_gemini(str(path), r3.offset).turns == []


def test_import_gemini_finds_the_project_folder_by_its_marker(env: dict[str, str],
                                                              tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    ghome = tmp_path / "home" / ".gemini"
    mine = GeminiChat(ghome, repo.path, "aaaa1111-mine", slug="shop-1")
    mine.user("Never log card numbers.")
    mine.say("Right.")
    mine.write()
    other = GeminiChat(ghome, tmp_path / "elsewhere", "bbbb2222-other", slug="shop")
    other.user("OTHER-PROJECT prompt")
    other.say("ok")
    other.write()
    out = json.loads(cli(["import", "gemini", "--json"], env, repo.path))
    assert (out["files"], out["retained"], out["errors"]) == (1, 2, [])
    rows = memories(env)
    assert ("convention", "Never log card numbers.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
    assert json.loads(cli(["import", "gemini", "--json"], env, repo.path))["retained"] == 0


def test_antigravity_reader_unwraps_requests_and_decodes_arguments(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    t = AgyTranscript(tmp_path, "ec33ebf9-agy")
    t.user(f"Rename the refund helper {FENCE}")
    t.step("CONVERSATION_HISTORY", "SYSTEM")
    t.say("", ("run_command", {"CommandLine": "pytest -q", "Cwd": str(root),
                               "toolAction": "Running tests"}))
    t.result("RUN_COMMAND", f"TOOL-OUTPUT-BODY {AWS}\nFAILED tests/test_pay.py::test_refund",
             status="ERROR")
    t.say("Renaming.", ("replace_file_content", {"TargetFile": str(root / "pay.py"),
                                                 "ReplacementContent": "def give_back(): ..."}))
    t.result("CODE_ACTION", "edited")
    t.lines.append(t.lines[-1])  # a step written twice
    t.lines.append("{corrupt")
    t.say("Done, renamed to give_back.")
    path = t.write(tail='{"step_index": 99, "source": "MO')

    r = read_antigravity(str(path), cwd=str(root))
    assert r.session_id == "ec33ebf9-agy"
    assert roles(r.turns) == [
        ("user", "Rename the refund helper"), ("action", "run_command: pytest -q"),
        ("assistant", "Renaming."), ("action", "replace_file_content: pay.py"),
        ("assistant", "Done, renamed to give_back.")]
    assert r.turns[1].error == "FAILED tests/test_pay.py::test_refund"
    assert r.turns[3].files == (str(root / "pay.py"),)
    assert len(r.warnings) == 1 and r.offset == path.stat().st_size - len(
        '{"step_index": 99, "source": "MO')
    assert read_antigravity(str(path), r.offset).turns == []


def test_import_antigravity_takes_conversations_about_this_repository(
        env: dict[str, str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    mine = AgyTranscript(home, "conv-mine")
    mine.user("Always run the linter before tests.")
    mine.say("OK.", ("run_command", {"CommandLine": "ruff check .", "Cwd": str(repo.path)}))
    mine.write()
    other = AgyTranscript(home, "conv-other")
    other.user("OTHER-PROJECT prompt")
    other.say("ok", ("run_command", {"CommandLine": "ls", "Cwd": str(tmp_path / "shop2")}))
    other.write()
    out = json.loads(cli(["import", "antigravity", "--json"], env, repo.path))
    assert (out["files"], out["errors"]) == (1, [])
    rows = memories(env)
    assert ("convention", "Always run the linter before tests.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
