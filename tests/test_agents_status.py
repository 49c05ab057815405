"""`hindsight status` lists the agents hindsight is installed for, at which scope, and which
surfaces are live for each (issue 16), as JSON and as text, from the agents' real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookutil import cli, make_env, make_repo

SURFACES = ["brief", "recall", "edits", "write-back", "mcp"]


def live(record: dict) -> dict[str, bool | None]:
    return {k: v["live"] for k, v in record["surfaces"].items()}


def test_status_says_which_surfaces_are_live_per_agent_and_scope(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    env = {**make_env(tmp_path), "HOME": str(tmp_path / "home"),
           "CODEX_HOME": str(tmp_path / "codex")}
    cli(["retain", "We decided to keep refunds idempotent.", "--kind", "decision"], env,
        repo.path)
    for args in (["cursor"], ["windsurf", "--scope", "project"], ["opencode"],
                 ["cline", "--scope", "project"], ["claude-code", "--scope", "project"]):
        cli(["install", *args], env, repo.path)
    agents = {a["agent"]: a for a in json.loads(cli(["status", "--json"], env,
                                                    repo.path))["agents"]}
    assert list(agents) == ["claude-code", "codex", "cursor", "copilot", "gemini",
                            "antigravity", "windsurf", "cline", "opencode", "kilo"]
    assert {a: r["installed"] for a, r in agents.items() if r["installed"]} == {
        "claude-code": ["project"], "cursor": ["user"], "windsurf": ["project"],
        "cline": ["project"], "opencode": ["user"]}
    assert [list(r["surfaces"]) for r in agents.values()] == [SURFACES] * 10
    assert live(agents["cursor"]) == dict.fromkeys(SURFACES, True)
    assert agents["cursor"]["scopes"]["user"] == [
        "hooks.sessionStart", "hooks.beforeSubmitPrompt", "hooks.afterFileEdit",
        "hooks.stop", "hooks.sessionEnd", "mcpServers.hindsight"]
    assert live(agents["claude-code"]) == dict.fromkeys(SURFACES, True)
    # Windsurf: no per-prompt injection at all; the rule needs the (user-scope) MCP server
    assert live(agents["windsurf"]) == {"brief": False, "recall": None, "edits": True,
                                        "write-back": True, "mcp": False}
    assert agents["windsurf"]["surfaces"]["recall"]["how"] == \
        "none: hooks cannot inject (rule + MCP tools)"
    assert live(agents["cline"]) == {"brief": True, "recall": True, "edits": True,
                                     "write-back": True, "mcp": False}
    assert live(agents["opencode"]) == dict.fromkeys(SURFACES, True)
    assert live(agents["codex"]) == {"brief": None, "recall": None, "edits": False,
                                     "write-back": False, "mcp": False}
    assert live(agents["kilo"]) == dict.fromkeys(SURFACES, False)

    off = {**env, "HINDSIGHT_CURSOR_PROMPT_CONTEXT": "0"}
    cursor = next(a for a in json.loads(cli(["status", "--json"], off, repo.path))["agents"]
                  if a["agent"] == "cursor")
    assert cursor["surfaces"]["recall"] == {
        "live": False, "how": "beforeSubmitPrompt hook → additional_context (undocumented) "
                              "(cursorPromptContext is off)"}
    cli(["install", "windsurf"], env, repo.path)  # user scope: the MCP server too
    none = {**env, "HINDSIGHT_DISABLE_HOOKS": "1"}
    agents = {a["agent"]: a for a in json.loads(cli(["status", "--json"], none,
                                                    repo.path))["agents"]}
    assert live(agents["windsurf"]) == {"brief": True, "recall": None, "edits": False,
                                        "write-back": False, "mcp": True}
    assert agents["opencode"]["surfaces"]["brief"]["how"].endswith("(disableHooks is on)")

    r = subprocess.run([sys.executable, "-m", "hindsight", "status"], capture_output=True,
                       text=True, env=env, cwd=repo.path, timeout=60)
    lines = r.stdout.splitlines()
    row = next(x for x in lines if x.startswith("│ windsurf"))
    assert [c.strip() for c in row.split("│")[1:-1]] == ["windsurf", "user+project", "yes",
                                                         "–", "yes", "yes", "yes"]
    assert lines[-1] == ("hindsight is not installed for: codex, copilot, gemini, "
                         "antigravity, kilo (hindsight install <agent>; hindsight status "
                         "--json says how each surface works)")
