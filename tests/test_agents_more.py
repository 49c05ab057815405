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
from agentutil import ClineHistory, WindsurfTranscript, agent_env, payload, run_hook
from histutil import Repo, fn
from hookutil import AWS, cli, diag, make_env, make_repo, memories

from hindsight.sessions.cline import read_cline
from hindsight.sessions.windsurf import read_windsurf

GOLDEN = json.loads((Path(__file__).parent / "golden" / "agents" / "outputs.json")
                    .read_text(encoding="utf-8"))

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


def golden(agent: str, event: str, case: str, injected: str = "") -> str:
    def fill(v: Any) -> Any:
        if isinstance(v, str):
            return v.replace("@INJECTED@", injected)
        return {k: fill(x) for k, x in v.items()} if isinstance(v, dict) else v

    return json.dumps(fill(GOLDEN[agent][event][case]), ensure_ascii=False) + "\n"


def cline_session(data: Path, repo: Path, task: str = "1764417600000") -> ClineHistory:
    h = ClineHistory(data, task, repo)
    h.task(f"{FENCE}\n{CONVENTION}")
    h.say("<thinking>THINKING-TEXT</thinking>\nUnderstood, pathlib it is.\n"
          "<execute_command>\n<command>pytest -q</command>\n"
          "<requires_approval>false</requires_approval>\n</execute_command>")
    h.result("execute_command for 'pytest -q'", f"1 passed TOOL-OUTPUT-BODY {AWS}")
    h.say("<replace_in_file>\n<path>pay.py</path>\n<diff>\n------- SEARCH\nreturn 1\n"
          "=======\nFILE-CONTENT-BODY\n+++++++ REPLACE\n</diff>\n</replace_in_file>")
    h.result("replace_in_file for 'pay.py'", "The tool execution failed with the following "
             "error:\n<error>\nSEARCH block not found in pay.py\n</error>")
    h.say("<attempt_completion>\n<result>Done, pathlib everywhere.</result>\n"
          "</attempt_completion>")
    return h


def test_cline_each_event_prints_exactly_clines_contract(env: dict[str, str], repo: Repo,
                                                          tmp_path: Path) -> None:
    cwd = tmp_path  # Cline runs hooks in the workspace; the payload says it too
    r = run_hook("session-start", "cline", payload("cline", "session-start", repo.path), env,
                 cwd)
    assert (r.returncode, r.stdout) == (0, golden("cline", "session-start", "without"))
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)
    start = payload("cline", "session-start", repo.path, taskId="t-2")
    r = run_hook("session-start", "cline", start, env, cwd)
    injected = last(env, "session-start")["injected"]
    assert CONVENTION in injected
    assert r.stdout == golden("cline", "session-start", "with", injected)
    resume = {**start, "hookName": "TaskResume", "taskResume": {}}
    del resume["taskStart"]
    r = run_hook("session-start", "cline", resume, env, cwd)  # the briefing again, on resume
    assert json.loads(r.stdout)["contextModification"] == injected

    up = payload("cline", "user-prompt-submit", repo.path, prompt="x")
    up["userPromptSubmit"]["prompt"] = "pathlib in this repo?"
    r = run_hook("user-prompt-submit", "cline", {**up, "taskId": "t-2"}, env, cwd)
    assert r.stdout == golden("cline", "user-prompt-submit", "without")  # shown in the brief
    r = run_hook("user-prompt-submit", "cline", up, env, cwd)
    injected = last(env, "user-prompt-submit")["injected"]
    assert f"{CONVENTION} (relevance" in injected
    assert r.stdout == golden("cline", "user-prompt-submit", "with", injected)

    (repo.path / "pay.py").write_text(fn("charge", body="return 2") + fn("refund"))
    r = run_hook("edit", "cline", payload("cline", "edit", repo.path), env, cwd)
    assert r.stdout == golden("cline", "edit", "without")
    trace = json.loads(cli(["trace-log", "--json"], env, repo.path))["events"]
    assert [(t["file"], t["actor"], t["session"]) for t in trace] == [
        ("pay.py", "cline", "1764417600000")]

    cline_session(tmp_path / "home" / ".cline" / "data", repo.path).write()
    r = run_hook("stop", "cline", payload("cline", "stop", repo.path), env, cwd)
    assert r.stdout == golden("cline", "stop", "without")
    assert last(env, "stop")["error"] == ""
    rows = memories(env)
    conv = [x for k, x in rows if k == "conversation"]
    assert conv == [f"User: {CONVENTION}\nAssistant: Understood, pathlib it is.\n"
                    "Done, pathlib everywhere.\nActions: execute_command: pytest -q; "
                    "replace_in_file: pay.py (failed)"]
    stored = " ".join(x for _, x in rows)
    for secret in ("TOOL-OUTPUT-BODY", AWS, "FILE-CONTENT-BODY", "THINKING-TEXT",
                   "environment_details", "hindsight-memory"):
        assert secret not in stored


def test_cline_reader_corrupt_message_unfinished_end_and_appends(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    h = cline_session(tmp_path / "data", root)
    full = h.text()
    cut = full.index('{"role":"assistant","content":[{"type":"text","text":"<replace_in_file>')
    corrupt = full[:cut] + '{"role":"assistant","content":[{"type":"text","text":"broken"' \
        + "," + full[cut:]
    path = h.write(corrupt)
    r = read_cline(str(path))
    assert r.session_id == "1764417600000" and r.cwd == str(root)
    assert roles(r.turns) == [
        ("user", CONVENTION), ("assistant", "Understood, pathlib it is."),
        ("action", "execute_command: pytest -q"), ("action", "replace_in_file: pay.py"),
        ("assistant", "Done, pathlib everywhere.")]
    assert r.turns[3].files == (str(root / "pay.py"),)
    assert r.turns[3].error == "SEARCH block not found in pay.py"
    assert len(r.warnings) == 1 and "not valid JSON; skipped" in r.warnings[0]
    assert r.offset == len(corrupt.encode()) - 1  # up to the closing ]

    h = cline_session(tmp_path / "data", root)  # Cline rewrites the array as it grows
    path = h.write()
    first = read_cline(str(path))
    h.user("Now add a test for refunds.")
    h.say("<write_to_file>\n<path>tests/test_pay.py</path>\n<content>SECRET</content>\n"
          "</write_to_file>")
    unfinished = h.text()[:-30]  # the write is not finished yet
    h.write(unfinished)
    mid = read_cline(str(path), first.offset)
    assert roles(mid.turns) == [("user", "Now add a test for refunds.")]
    h.write()
    rest = read_cline(str(path), mid.offset)
    assert roles(rest.turns) == [("action", "write_to_file: tests/test_pay.py")]
    assert rest.turns[0].files == (str(root / "tests" / "test_pay.py"),)
    assert read_cline(str(path), rest.offset).turns == []


def test_import_cline_takes_tasks_run_in_this_repository(env: dict[str, str],
                                                         tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    data = tmp_path / "home" / ".config" / "Code" / "User" / "globalStorage" / \
        "saoudrizwan.claude-dev"
    mine = ClineHistory(data, "t-mine", repo.path)
    mine.task("Never commit generated files.")
    mine.say("Noted.")
    mine.write()
    other = ClineHistory(data, "t-other", tmp_path / "elsewhere")
    other.task("OTHER-PROJECT prompt")
    other.say("ok")
    other.write()
    (tmp_path / "elsewhere").mkdir()
    out = json.loads(cli(["import", "cline", "--json"], env, repo.path))
    assert (out["files"], out["retained"], out["errors"]) == (1, 2, [])
    assert out["looked_in"] == [str(data / "tasks")]
    rows = memories(env)
    assert ("convention", "Never commit generated files.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
    assert json.loads(cli(["import", "cline", "--json"], env, repo.path))["retained"] == 0


def oc_messages(repo: Path, session: str = "ses_4b1c0e7f-opencode") -> list[dict[str, Any]]:
    """Messages as opencode's SDK returns them (``client.session.messages``)."""
    def msg(mid: str, role: str, t: int, *parts: dict[str, Any]) -> dict[str, Any]:
        return {"info": {"id": mid, "sessionID": session, "role": role,
                         "time": {"created": 1764417600000 + t, "completed":
                                  1764417600000 + t + 1}}, "parts": list(parts)}

    return [
        msg("msg_1", "user", 0, {"type": "text", "text": f"{FENCE}\n{CONVENTION}"},
            {"type": "text", "text": "FILE-CONTENT-BODY", "synthetic": True}),
        msg("msg_2", "assistant", 1000, {"type": "reasoning", "text": "THINKING-TEXT"},
            {"type": "text", "text": "Understood, pathlib it is."},
            {"type": "tool", "tool": "bash", "callID": "c1", "state": {
                "status": "completed", "input": {"command": "pytest -q"},
                "output": f"1 passed TOOL-OUTPUT-BODY {AWS}"}},
            {"type": "tool", "tool": "edit", "callID": "c2", "state": {
                "status": "error", "input": {"filePath": str(repo / "pay.py"),
                                             "oldString": "a", "newString": "SECRET-NEW"},
                "error": "oldString not found in content"}}),
        msg("msg_3", "assistant", 2000, {"type": "text", "text": "Done."})]


@pytest.mark.parametrize("agent", ["opencode", "kilo"])
def test_opencode_plugin_payloads_get_exactly_what_the_plugin_reads(
        agent: str, env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    cwd = tmp_path
    r = run_hook("session-start", agent, payload("opencode", "session-start", repo.path), env,
                 cwd)
    assert (r.returncode, r.stdout) == (0, golden(agent, "session-start", "without"))
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)
    start = payload("opencode", "session-start", repo.path, session_id="ses_2")
    r = run_hook("session-start", agent, start, env, cwd)
    injected = last(env, "session-start")["injected"]
    assert CONVENTION in injected and last(env, "session-start")["harness"] == agent
    assert r.stdout == golden(agent, "session-start", "with", injected)
    up = payload("opencode", "user-prompt-submit", repo.path, prompt="pathlib in this repo?")
    r = run_hook("user-prompt-submit", agent, up, env, cwd)
    injected = last(env, "user-prompt-submit")["injected"]
    assert f"{CONVENTION} (relevance" in injected
    assert r.stdout == golden(agent, "user-prompt-submit", "with", injected)

    (repo.path / "pay.py").write_text(fn("charge", body="return 2") + fn("refund"))
    r = run_hook("edit", agent, payload("opencode", "edit", repo.path), env, cwd)
    assert r.stdout == golden(agent, "edit", "without")
    trace = json.loads(cli(["trace-log", "--json"], env, repo.path))["events"]
    assert [(t["file"], t["actor"]) for t in trace] == [("pay.py", agent)]

    stop = payload("opencode", "stop", repo.path, messages=oc_messages(repo.path))
    r = run_hook("stop", agent, stop, env, cwd)
    assert (r.stdout, last(env, "stop")["error"]) == (golden(agent, "stop", "without"), "")
    kept = Path(env["HINDSIGHT_HOME"]) / "transcripts" / agent / "ses_4b1c0e7f-opencode.jsonl"
    assert [json.loads(x)["info"]["id"] for x in kept.read_text().splitlines()] == [
        "msg_1", "msg_2", "msg_3"]
    turn = [{"info": {"id": "msg_4", "role": "user", "time": {"created": 1764417700000}},
             "parts": [{"type": "text", "text": "and the invoices?"}]},
            {"info": {"id": "msg_5", "role": "assistant", "time": {"created": 1764417701000,
                                                                   "completed": 1}},
             "parts": [{"type": "text", "text": "Also pathlib."}]}]
    stop["messages"] = oc_messages(repo.path) + turn  # the plugin restarted: all again
    run_hook("stop", agent, stop, env, cwd)
    assert [json.loads(x)["info"]["id"] for x in kept.read_text().splitlines()] == [
        "msg_1", "msg_2", "msg_3", "msg_4", "msg_5"]
    rows = memories(env)
    assert [x for k, x in rows if k == "conversation"] == [
        f"User: {CONVENTION}\nAssistant: Understood, pathlib it is.\nDone.\n"
        "Actions: bash: pytest -q; edit: pay.py (failed)",
        "User: and the invoices?\nAssistant: Also pathlib."]
    stored = " ".join(x for _, x in rows)
    for secret in ("TOOL-OUTPUT-BODY", AWS, "FILE-CONTENT-BODY", "THINKING-TEXT",
                   "SECRET-NEW", "hindsight-memory"):
        assert secret not in stored


def test_opencode_transcript_corrupt_and_truncated_lines(tmp_path: Path) -> None:
    from hindsight.sessions.opencode import append_messages, read_opencode

    root = tmp_path / "ws"
    path = tmp_path / "t" / "ses_x.jsonl"
    assert append_messages(str(path), oc_messages(root)[:2]) == 2
    assert append_messages(str(path), [*oc_messages(root)[:2], {"info": {}}, 7]) == 0
    with path.open("a") as f:
        f.write("{this line is corrupt\n")
    assert append_messages(str(path), oc_messages(root)) == 1
    with path.open("a") as f:
        f.write('{"info": {"id": "msg_9", "role": "us')
    r = read_opencode(str(path), cwd=str(root))
    assert r.session_id == "ses_4b1c0e7f-opencode"
    assert roles(r.turns) == [("user", CONVENTION), ("assistant", "Understood, pathlib it is."),
                              ("action", "bash: pytest -q"), ("action", "edit: pay.py"),
                              ("assistant", "Done.")]
    assert r.turns[0].timestamp == "2025-11-29T12:00:00Z"  # 1764417600000 ms
    assert r.turns[3].files == (str(root / "pay.py"),)
    assert r.turns[3].error == "oldString not found in content"
    assert len(r.warnings) == 1 and r.warnings[0].endswith(":line 3: invalid JSON")
    assert r.offset == path.stat().st_size - len('{"info": {"id": "msg_9", "role": "us')


def test_import_opencode_reads_this_repositorys_sessions_from_its_database(
        env: dict[str, str], tmp_path: Path) -> None:
    import sqlite3

    repo = make_repo(tmp_path)
    db = tmp_path / "home" / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)  # the tables as tuiboard #17 describes them (opencode 1.18)
    con.executescript("""
        CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT,
          directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER,
          time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT,
          time_created INTEGER, time_updated INTEGER, data TEXT);""")
    for sid, directory, text in (("ses_mine", str(repo.path / "src"), "Never commit "
                                  "generated files."),
                                 ("ses_other", str(tmp_path / "elsewhere"), "OTHER-PROJECT")):
        con.execute("INSERT INTO session VALUES (?, 'p', NULL, ?, 't', 1, 1)", (sid, directory))
        for n, (role, part) in enumerate(((("user"), {"type": "text", "text": text}),
                                          ("assistant", {"type": "text", "text": "ok"}))):
            mid = f"msg_{sid}_{n}"
            con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, n, n, json.dumps(
                {"role": role, "time": {"created": 1764417600000 + n}})))
            con.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_{mid}", mid, sid,
                                                                      n, n, json.dumps(part)))
    con.commit()
    con.close()
    out = json.loads(cli(["import", "opencode", "--json"], env, repo.path))
    assert (out["files"], out["retained"], out["errors"]) == (1, 2, [])
    assert out["looked_in"] == [str(db)]
    rows = memories(env)
    assert ("convention", "Never commit generated files.") in rows
    assert not any("OTHER-PROJECT" in t for _, t in rows)
    assert json.loads(cli(["import", "opencode", "--json"], env, repo.path))["retained"] == 0
