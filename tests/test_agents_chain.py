"""One bank, every agent (issue 16), end to end with real subprocesses: what one agent's
session wrote back briefs the next session of another agent on the same repository, along
Windsurf → Cline → opencode → Kilo → Gemini CLI → Antigravity, each through its own hooks,
payloads and transcript format; and a Cline task rewound (its history rewritten shorter)
stores nothing twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentutil import ClineHistory, WindsurfTranscript, agent_env, payload, run_hook
from hookutil import cli, diag, make_env, make_repo, memories

WINDSURF_SAYS = "We decided to keep refunds idempotent."
CLINE_SAYS = "Always log the invoice id with every payment error."
OPENCODE_SAYS = "Never retry a card charge without a new idempotency key."
KILO_SAYS = "We decided that currency amounts are integers of cents."


def brief(agent: str, data: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    """The text the agent gets at session start, out of its own envelope."""
    r = run_hook("session-start", agent, data, env, cwd)
    assert r.returncode == 0 and r.stderr == ""
    out = json.loads(r.stdout)
    if agent == "cline":
        return str(out["contextModification"])
    if agent == "gemini":
        return str(out["hookSpecificOutput"]["additionalContext"])
    if agent == "antigravity":
        return str(out["injectSteps"][0]["ephemeralMessage"])
    return str(out["additional_context"])


def opencode_turn(session: str, n: int, text: str) -> list[dict[str, Any]]:
    return [{"info": {"id": f"{session}-u{n}", "sessionID": session, "role": "user",
                      "time": {"created": 1764417600000 + n}},
             "parts": [{"type": "text", "text": text}]},
            {"info": {"id": f"{session}-a{n}", "sessionID": session, "role": "assistant",
                      "time": {"created": 1764417600001 + n, "completed": 1764417600002 + n}},
             "parts": [{"type": "text", "text": "Understood."}]}]


def test_each_agents_write_back_briefs_the_next_agent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    env = {**agent_env(make_env(tmp_path), home), "HINDSIGHT_NOW": "2026-11-29T12:00:00+00:00"}
    cwd = tmp_path  # hooks start outside the repository; payloads (or files) say where

    w = WindsurfTranscript(home, "traj-1")
    w.user(WINDSURF_SAYS)
    w.say("Understood.")
    path = w.write()
    r = run_hook("stop", "windsurf", payload("windsurf", "stop", repo.path, str(path)), env,
                 repo.path)
    assert (r.returncode, r.stdout) == (0, "")

    text = brief("cline", payload("cline", "session-start", repo.path, taskId="task-1"), env,
                 repo.path)
    assert WINDSURF_SAYS in text
    h = ClineHistory(home / ".cline" / "data", "task-1", repo.path)
    h.task(CLINE_SAYS)
    h.say("<attempt_completion>\n<result>Done.</result>\n</attempt_completion>")
    h.write()
    run_hook("stop", "cline", payload("cline", "stop", repo.path, taskId="task-1"), env, cwd)

    text = brief("opencode", payload("opencode", "session-start", repo.path,
                                     session_id="ses_oc"), env, cwd)
    assert WINDSURF_SAYS in text and CLINE_SAYS in text
    run_hook("stop", "opencode", payload("opencode", "stop", repo.path, session_id="ses_oc",
                                         messages=opencode_turn("ses_oc", 0, OPENCODE_SAYS)),
             env, cwd)

    text = brief("kilo", payload("opencode", "session-start", repo.path,
                                 session_id="ses_kilo"), env, cwd)
    assert OPENCODE_SAYS in text
    run_hook("stop", "kilo", payload("opencode", "stop", repo.path, session_id="ses_kilo",
                                     messages=opencode_turn("ses_kilo", 0, KILO_SAYS)),
             env, cwd)

    text = brief("gemini", payload("gemini", "session-start", repo.path, session_id="g-1"),
                 env, cwd)
    assert KILO_SAYS in text
    text = brief("antigravity", payload("antigravity", "session-start", repo.path,
                                        conversationId="agy-1"), env, cwd)
    assert all(said in text for said in (WINDSURF_SAYS, CLINE_SAYS, OPENCODE_SAYS, KILO_SAYS))

    rows = memories(env)
    by_agent = {d["result"]["path"]: d["harness"] for d in diag(env) if d["event"] == "drain"}
    assert len(by_agent) == 4
    for said in (WINDSURF_SAYS, CLINE_SAYS, OPENCODE_SAYS, KILO_SAYS):
        assert sum(t == said for _, t in rows) == 1  # each experience stored once
    agents = json.loads(cli(["memories", "--json", "--limit", "50"], env, repo.path))
    made = {m["text"]: m.get("agent", "") for m in agents.get("memories", agents)}
    assert made[WINDSURF_SAYS] == "windsurf" and made[CLINE_SAYS] == "cline"
    assert made[OPENCODE_SAYS] == "opencode" and made[KILO_SAYS] == "kilo"


def test_a_rewound_cline_task_stores_nothing_twice(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    home = tmp_path / "home"
    env = agent_env(make_env(tmp_path), home)
    h = ClineHistory(home / ".cline" / "data", "task-r", repo.path)
    h.task("first question about refunds")
    h.say("first answer")
    h.user("second question about invoices")
    h.say("second answer")
    h.write()
    stop = payload("cline", "stop", repo.path, taskId="task-r")
    run_hook("stop", "cline", stop, env, repo.path)
    assert len([t for k, t in memories(env) if k == "conversation"]) == 2
    # the user restores the first checkpoint: Cline rewrites the history shorter, then the
    # task goes on from there
    h.messages = h.messages[:2]
    h.user("a different second question about taxes")
    h.say("another answer")
    h.write()
    run_hook("stop", "cline", stop, env, repo.path)
    conv = [t for k, t in memories(env) if k == "conversation"]
    assert conv == ["User: first question about refunds\nAssistant: first answer",
                    "User: second question about invoices\nAssistant: second answer",
                    "User: a different second question about taxes\nAssistant: another answer"]


def test_cline_reader_restarts_when_the_offset_is_not_a_message_end(tmp_path: Path) -> None:
    from hindsight.sessions.cline import read_cline

    h = ClineHistory(tmp_path / "data", "task-x", tmp_path)
    long = ("the refund policy in detail " * 230).strip()
    h.task(long)  # past the 4 KiB the write-back compares to tell a rewrite
    h.say("first answer")
    path = h.write()
    first = read_cline(str(path))
    h.messages[1] = {"role": "assistant", "content": "a much longer answer " * 20}
    h.say("more")
    h.write()
    again = read_cline(str(path), first.offset)
    assert [t.text for t in again.turns] == [long, ("a much longer answer " * 20).strip(),
                                             "more"]
