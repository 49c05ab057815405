"""Cursor, GitHub Copilot CLI and Gemini CLI hooks as real subprocesses (issue 16): each event's payload →
the exact output the agent accepts (tests/golden/agents/outputs.json), the edit trace, bad
payloads, Cursor running Claude Code's hooks too (one briefing, one injection, one
write-back), and a memory written back from a Cursor session briefing a Copilot session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentutil import (
    AgyTranscript,
    CopilotEvents,
    CursorTranscript,
    GeminiChat,
    agent_env,
    payload,
    run_hook,
)
from histutil import Repo, fn
from hookutil import AWS, FRAME, cli, diag, make_env, make_repo, memories

GOLDEN = json.loads((Path(__file__).parent / "golden" / "agents" / "outputs.json")
                    .read_text(encoding="utf-8"))
CONVENTION = "Always use pathlib, never os.path, in this repo."
AGENTS = ("cursor", "copilot", "gemini")
SESSION_KEY = {"cursor": "conversation_id", "copilot": "sessionId", "gemini": "session_id"}


@pytest.fixture()
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path)


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return {**agent_env(make_env(tmp_path), tmp_path / "home"),
            "HINDSIGHT_NOW": "2026-11-29T12:00:00+00:00"}


def golden(agent: str, event: str, case: str, injected: str = "",
           transformed: str = "") -> str:
    """The exact stdout the golden file prescribes, placeholders filled in."""
    def fill(v: Any) -> Any:
        if isinstance(v, str):
            return v.replace("@INJECTED@", injected).replace("@TRANSFORMED@", transformed)
        return {k: fill(x) for k, x in v.items()} if isinstance(v, dict) else v

    return json.dumps(fill(GOLDEN[agent][event][case]), ensure_ascii=False) + "\n"


def last(env: dict[str, str], event: str) -> dict[str, Any]:
    return [d for d in diag(env) if d["event"] == event][-1]


@pytest.mark.parametrize("agent", AGENTS)
def test_each_event_prints_exactly_the_agents_contract(agent: str, env: dict[str, str],
                                                       repo: Repo, tmp_path: Path) -> None:
    cwd = tmp_path  # hooks run outside the repository: the payload says where
    first = {SESSION_KEY[agent]: "s-empty"}
    r = run_hook("session-start", agent, payload(agent, "session-start", repo.path, **first),
                 env, cwd)
    assert (r.returncode, r.stdout) == (0, golden(agent, "session-start", "without"))
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)

    r = run_hook("session-start", agent, payload(agent, "session-start", repo.path), env, cwd)
    injected = last(env, "session-start")["injected"]
    assert r.stdout == golden(agent, "session-start", "with", injected)
    assert injected.startswith('<hindsight-memory kind="session-briefing">\n' + FRAME)
    assert f"convention 2026-11-29 12:00 +00:00: {CONVENTION}" in injected
    # the same bank briefs Claude Code with the same text, in Claude Code's envelope
    claude = run_hook("session-start", None, {"session_id": "cc", "cwd": str(repo.path)},
                      env, cwd)
    assert json.loads(claude.stdout)["hookSpecificOutput"]["additionalContext"] == injected

    # a prompt in the briefed session: the briefing's memory is not injected twice
    up = payload(agent, "user-prompt-submit", repo.path, prompt="pathlib in this repo?")
    r = run_hook("user-prompt-submit", agent, up, env, cwd)
    assert r.stdout == golden(agent, "user-prompt-submit", "without")
    # another session gets it on a relevant prompt
    other = {SESSION_KEY[agent]: "s-other"}
    r = run_hook("user-prompt-submit", agent, {**up, **other}, env, cwd)
    injected = last(env, "user-prompt-submit")["injected"]
    assert injected.startswith('<hindsight-memory kind="recalled">\n' + FRAME) and \
        f"{CONVENTION} (relevance 1.08)" in injected
    assert r.stdout == golden(agent, "user-prompt-submit", "with", injected,
                              up.get("transformedPrompt", ""))

    (repo.path / "pay.py").write_text(fn("charge", body="return 2") + fn("refund"))
    r = run_hook("edit", agent, payload(agent, "edit", repo.path), env, cwd)
    assert r.stdout == golden(agent, "edit", "without")
    trace = json.loads(cli(["trace-log", "--json"], env, repo.path))["events"]
    session = {"cursor": "c0a1-cursor", "copilot": "3f2c9d7e-copilot",
               "gemini": "7d1e0c52-gemini"}[agent]
    assert [(t["file"], t["actor"], t["session"]) for t in trace] == [("pay.py", agent,
                                                                       session)]
    assert [s["qname"] for s in trace[0]["symbols"]] == ["pay.py::charge"]

    for event in ("stop", "session-end"):
        r = run_hook(event, agent, payload(agent, event, repo.path), env, cwd)
        assert (r.returncode, r.stdout) == (0, golden(agent, event, "without"))
        assert last(env, event)["error"] == ""


def test_cursor_prompt_context_setting_off_injects_nothing(env: dict[str, str], repo: Repo,
                                                           tmp_path: Path) -> None:
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)
    up = payload("cursor", "user-prompt-submit", repo.path, prompt="pathlib in this repo?")
    off = {**env, "HINDSIGHT_CURSOR_PROMPT_CONTEXT": "0"}
    r = run_hook("user-prompt-submit", "cursor", up, off, tmp_path)
    assert r.stdout == '{"continue": true}\n'
    assert last(env, "user-prompt-submit")["skipped"] == "cursorPromptContext is off"
    r = run_hook("user-prompt-submit", "cursor", up, env, tmp_path)
    assert "additional_context" in json.loads(r.stdout)


def test_copilot_without_transformed_prompt_never_rewrites(env: dict[str, str], repo: Repo,
                                                           tmp_path: Path) -> None:
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)
    up = payload("copilot", "user-prompt-submit", repo.path, prompt="pathlib in this repo?")
    del up["transformedPrompt"]  # our output would replace a prompt we do not have
    r = run_hook("user-prompt-submit", "copilot", up, env, tmp_path)
    assert (r.returncode, r.stdout) == (0, "{}\n")
    assert last(env, "user-prompt-submit")["injected"] == ""


@pytest.mark.parametrize("agent", (*AGENTS, "antigravity", "windsurf", "cline", "opencode", "kilo"))
@pytest.mark.parametrize("body", ["", "{not json", "[1, 2]", '{"workspace_roots": 7, '
                                  '"sessionId": [], "cwd": 3, "toolArgs": "{bad"}',
                                  "x" * (3 << 20)])
@pytest.mark.parametrize("event", ["session-start", "user-prompt-submit", "edit", "stop"])
def test_bad_payloads_exit_0_with_a_diagnostic_line(agent: str, body: str, event: str,
                                                    env: dict[str, str],
                                                    tmp_path: Path) -> None:
    before = len(diag(env))
    r = run_hook(event, agent, body, env, tmp_path)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout in ("", "{}\n", '{"continue": true}\n', '{"cancel": false}\n')  # no text
    d = diag(env)
    assert len(d) == before + 1 and d[-1]["event"] == event and d[-1]["harness"] == agent
    if body.strip() and not body.startswith("{\"workspace"):
        assert d[-1]["warning"].startswith("stdin is not")


def _both(event: str, data: dict[str, Any], env: dict[str, str], cwd: Path) -> list[str]:
    """Cursor runs its own hook and Claude Code's for one event, at the same time."""
    procs = [subprocess.Popen([sys.executable, "-m", "hindsight", "hook", event, *extra],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
             for extra in ([], ["--harness", "cursor"])]
    outs = [p.communicate(json.dumps(data), timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    return [o for o, _ in outs]


def test_cursor_with_claude_code_hooks_too_does_everything_once(
        env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cursor_env = {**env, "CURSOR_VERSION": "3.20.17"}  # Cursor sets it for hooks
    for agent in ("claude-code", "cursor"):  # both installed, user scope
        r = subprocess.run([sys.executable, "-m", "hindsight", "install", agent],
                           capture_output=True, text=True, env=env, cwd=repo.path)
        assert r.returncode == 0, r.stderr
    assert (home / ".cursor" / "hooks.json").exists()
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)

    outs = _both("session-start", payload("cursor", "session-start", repo.path),
                 cursor_env, tmp_path)
    briefed = [o for o in outs if o != "{}\n"]
    assert len(briefed) == 1 and CONVENTION in json.loads(briefed[0])["additional_context"]
    starts = [d for d in diag(env) if d["event"] == "session-start"]
    assert sorted(d.get("via", "") for d in starts) == ["", "claude-code"]
    assert sum("duplicate" in d.get("skipped", "") for d in starts) == 1

    up = payload("cursor", "user-prompt-submit", repo.path, conversation_id="c-2",
                 prompt="pathlib in this repo?")
    outs = _both("user-prompt-submit", up, cursor_env, tmp_path)
    injected = [json.loads(o)["additional_context"] for o in outs if "additional" in o]
    assert len(injected) == 1 and f"{CONVENTION} (relevance 1.08)" in injected[0]
    assert '{"continue": true}\n' in outs

    t = CursorTranscript(home, repo.path, "c-2")
    t.user("We decided to keep refunds idempotent; never retry a refund blindly.")
    t.say("Understood.")
    t.write()
    outs = _both("stop", payload("cursor", "stop", repo.path, conversation_id="c-2"),
                 cursor_env, tmp_path)
    assert outs == ["{}\n", "{}\n"]
    stops = [d for d in diag(env) if d["event"] == "stop"]
    assert sum("spooled" in d["ms"] for d in stops) == 1
    assert sum("duplicate" in d.get("skipped", "") for d in stops) == 1
    drains = [d for d in diag(env) if d["event"] == "drain"]
    assert len(drains) == 1 and drains[0]["result"]["retained"] >= 1
    texts = [t for _, t in memories(env)]
    assert sum(t.startswith("User: We decided to keep refunds") for t in texts) == 1


def test_memory_from_a_cursor_session_briefs_the_next_copilot_session(
        env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = tmp_path
    r = run_hook("session-start", "cursor", payload("cursor", "session-start", repo.path),
                 env, cwd)
    assert r.stdout == "{}\n"  # nothing known yet
    t = CursorTranscript(home, repo.path, "c0a1-cursor")
    t.user(CONVENTION)
    t.say("Understood, pathlib it is.", ("Shell", {"command": "pytest -q"}))
    t.tool_output(f"1 passed; TOOL-OUTPUT-BODY {AWS}")
    t.say("Done.", ("StrReplace", {"path": "pay.py", "old_string": "return 1",
                                   "new_string": "return 2"}))
    t.write()
    r = run_hook("stop", "cursor", payload("cursor", "stop", repo.path), env, cwd)
    assert r.stdout == "{}\n"
    rows = memories(env)
    assert ("convention", CONVENTION) in rows
    conv = [t for k, t in rows if k == "conversation"]
    assert conv == [f"User: {CONVENTION}\nAssistant: Understood, pathlib it is.\nDone.\n"
                    "Actions: Shell: pytest -q; StrReplace: pay.py"]
    assert not any("TOOL-OUTPUT-BODY" in t or AWS in t for _, t in rows)

    CopilotEvents(Path(env["COPILOT_HOME"]), "3f2c9d7e-copilot", repo.path).write()
    r = run_hook("session-start", "copilot", payload("copilot", "session-start", repo.path),
                 env, cwd)
    brief = json.loads(r.stdout)["additionalContext"]
    assert f"convention 2026-11-29 12:00 +00:00: {CONVENTION}" in brief
    assert last(env, "session-start")["harness"] == "copilot"


def test_gemini_stop_writes_back_its_recording_and_the_next_session_is_briefed(
        env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    chat = GeminiChat(tmp_path / "home" / ".gemini", repo.path, "7d1e0c52-gemini")
    chat.user(CONVENTION)
    chat.say("Will do.", ("write_file", {"file_path": str(repo.path / "cfg.py"),
                                         "content": "from pathlib import Path"}, "ok",
                          "success"))
    path = chat.write()
    r = run_hook("stop", "gemini", payload("gemini", "stop", repo.path, str(path)), env,
                 tmp_path)
    assert (r.returncode, r.stdout) == (0, "{}\n")
    assert ("convention", CONVENTION) in memories(env)
    r = run_hook("session-start", "gemini", payload("gemini", "session-start", repo.path,
                                                    session_id="next"), env, tmp_path)
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart" and CONVENTION in out["additionalContext"]


def test_antigravity_briefs_at_the_first_invocation_once_and_writes_back_when_idle(
        env: dict[str, str], repo: Repo, tmp_path: Path) -> None:
    cli(["retain", CONVENTION, "--kind", "convention"], env, repo.path)
    first = payload("antigravity", "session-start", repo.path)
    r = run_hook("session-start", "antigravity", first, env, tmp_path)
    injected = last(env, "session-start")["injected"]
    assert CONVENTION in injected
    assert r.stdout == json.dumps({"injectSteps": [{"ephemeralMessage": injected}]},
                                  ensure_ascii=False) + "\n"
    for n in (1, 0):  # a later model call of the turn, then the next turn's first call
        r = run_hook("session-start", "antigravity", {**first, "invocationNum": n}, env,
                     tmp_path)
        assert r.stdout == "{}\n"
    skips = [d.get("skipped", "") for d in diag(env) if d["event"] == "session-start"][-2:]
    assert skips[0].startswith("model invocation 1 of a turn") and "duplicate" in skips[1]

    t = AgyTranscript(tmp_path / "home", "ec33ebf9-agy")
    t.user("We decided to keep refunds idempotent.")
    t.say("Understood.")
    path = str(t.write())
    stop = payload("antigravity", "stop", repo.path, path)
    r = run_hook("stop", "antigravity", {**stop, "fullyIdle": False}, env, tmp_path)
    assert (r.stdout, last(env, "stop")["skipped"]) == (
        "{}\n", "not fully idle: background tasks still run")
    assert not any(t.startswith("User: We decided") for _, t in memories(env))
    r = run_hook("stop", "antigravity", stop, env, tmp_path)
    assert r.stdout == "{}\n"
    assert ("decision", "We decided to keep refunds idempotent.") in memories(env)


def test_claims_are_taken_once_and_renewed_once_when_stale(tmp_path: Path) -> None:
    import os

    from hindsight.hooks.agents import CURSOR
    from hindsight.hooks.handlers import claim

    ev = CURSOR.event("user-prompt-submit", {"conversation_id": "c1",
                                             "workspace_roots": [str(tmp_path)]})
    assert claim("b::x", ev, "prompt", "k", 10.0) is True
    assert claim("b::x", ev, "prompt", "k", 10.0) is False  # the other hook of this turn
    assert claim("b::x", ev, "prompt", "other", 10.0) is True
    assert claim("b::x", ev, "brief", "", None) is True
    files = [p for p in Path(os.environ["HINDSIGHT_HOME"]).rglob("claims/*")]
    assert len(files) == 3
    old = os.stat(files[0]).st_mtime - 60
    for f in files:
        os.utime(f, (old, old))
    assert claim("b::x", ev, "prompt", "k", 10.0) is True  # a later turn, same prompt
    assert claim("b::x", ev, "prompt", "k", 10.0) is False
    assert claim("b::x", ev, "brief", "", None) is False  # a briefing never expires
    assert len(list(Path(os.environ["HINDSIGHT_HOME"]).rglob("claims/*"))) == 3
