"""`hindsight install|uninstall cursor|copilot|gemini` and `hindsight install --detect` through real
subprocesses with a temporary HOME / COPILOT_HOME (issue 16): byte-for-byte restore, the
user's own entries kept (also when edited in between), idempotence, the scopes, invalid files
left alone, the installed commands isolated from the repository they run in."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PY = sys.executable
CURSOR_EVENTS = {"sessionStart": "session-start", "beforeSubmitPrompt": "user-prompt-submit",
                 "afterFileEdit": "edit", "stop": "stop", "sessionEnd": "session-end"}
COPILOT_EVENTS = {"sessionStart": ("session-start", 10),
                  "userPromptTransformed": ("user-prompt-submit", 5),
                  "postToolUse": ("edit", 5), "agentStop": ("stop", 30),
                  "sessionEnd": ("session-end", 30)}
USER_HOOKS = {"version": 1, "hooks": {
    "afterFileEdit": [{"command": "./hooks/format.sh"}],
    "beforeShellExecution": [{"command": "./hooks/guard.sh", "matcher": "rm|curl"}]}}
USER_MCP = {"mcpServers": {"docs": {"url": "https://docs.example.com/mcp",
                                    "headers": {"X-Team": "core"}}}}


@pytest.fixture(autouse=True)
def _no_config_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_CONFIG", raising=False)  # HINDSIGHT_HOME: conftest's
    monkeypatch.delenv("COPILOT_HOME", raising=False)


def run(*args: str, env: dict[str, str], cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "hindsight", *args], env={**os.environ, **env}, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def command(event: str, agent: str) -> str:
    return (f"env {shlex.quote('HINDSIGHT_HOME=' + os.environ['HINDSIGHT_HOME'])} "
            f"{shlex.quote(PY)} -P -m hindsight hook {event} --harness {agent}")


def mcp(**extra: Any) -> dict[str, Any]:
    first = {k: v for k, v in extra.items() if k == "type"}
    last = {k: v for k, v in extra.items() if k != "type"}
    return {**first, "command": PY, "args": ["-P", "-m", "hindsight", "mcp"],
            "env": {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}, **last}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".hindsight-backup-" not in p.name}


def test_cursor_user_scope_install_twice_then_uninstall_restores_bytes(tmp_path: Path
                                                                       ) -> None:
    home = tmp_path / "home"
    cur = home / ".cursor"
    cur.mkdir(parents=True)
    hooks, servers = cur / "hooks.json", cur / "mcp.json"
    hooks.write_bytes(json.dumps(USER_HOOKS, indent=4).encode())  # no final newline
    servers.write_bytes(json.dumps(USER_MCP).encode() + b"\r\n")
    before = snapshot(home)
    env = {"HOME": str(home)}

    r = run("install", "cursor", "--json", env=env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert sorted(report["changed"]) == sorted([str(hooks), str(servers)])
    assert len(report["backups"]) == 2
    data = json.loads(hooks.read_text())
    assert data["version"] == 1 and list(data) == ["version", "hooks"]
    for event, ours in CURSOR_EVENTS.items():  # no timeout: its unit is not documented
        mine = [e for e in data["hooks"][event] if "-m hindsight hook" in e["command"]]
        assert mine == [{"command": command(ours, "cursor")}]
    assert data["hooks"]["afterFileEdit"][0] == USER_HOOKS["hooks"]["afterFileEdit"][0]
    assert data["hooks"]["beforeShellExecution"] == USER_HOOKS["hooks"][
        "beforeShellExecution"]
    assert json.loads(servers.read_text())["mcpServers"] == {**USER_MCP["mcpServers"],
                                                             "hindsight": mcp()}
    installed = snapshot(home)

    r = run("install", "cursor", env=env)  # again: nothing changes, no new backup
    assert r.returncode == 0 and "already installed" in r.stdout
    assert snapshot(home) == installed
    assert len(list(cur.glob("*.hindsight-backup-*"))) == 2

    r = run("uninstall", "cursor", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert [f["status"] for f in json.loads(r.stdout)["files"]] == ["restored", "restored"]
    assert snapshot(home) == before


def test_cursor_uninstall_keeps_what_the_user_edited_in_between(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cur = home / ".cursor"
    cur.mkdir(parents=True)
    (cur / "hooks.json").write_text(json.dumps(USER_HOOKS, indent=2) + "\n")
    env = {"HOME": str(home)}
    assert run("install", "cursor", env=env).returncode == 0
    data = json.loads((cur / "hooks.json").read_text())  # the user edits both files
    data["hooks"]["stop"].insert(0, {"command": "./hooks/notify.sh", "loop_limit": 2})
    data["hooks"]["afterFileEdit"][0]["command"] = "./hooks/format-v2.sh"
    (cur / "hooks.json").write_text(json.dumps(data, indent=2))
    servers = json.loads((cur / "mcp.json").read_text())
    servers["mcpServers"]["git"] = {"command": "git-mcp"}
    (cur / "mcp.json").write_text(json.dumps(servers))

    r = run("uninstall", "cursor", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert [f["status"] for f in json.loads(r.stdout)["files"]] == ["changed", "changed"]
    assert json.loads((cur / "hooks.json").read_text()) == {"version": 1, "hooks": {
        "afterFileEdit": [{"command": "./hooks/format-v2.sh"}],
        "beforeShellExecution": USER_HOOKS["hooks"]["beforeShellExecution"],
        "stop": [{"command": "./hooks/notify.sh", "loop_limit": 2}]}}
    assert json.loads((cur / "mcp.json").read_text()) == {"mcpServers": {
        "git": {"command": "git-mcp"}}}
    assert not (cur / "hooks.json.hindsight-orig").exists()


def test_copilot_user_scope_restores_bytes_and_leaves_other_hook_files(tmp_path: Path
                                                                       ) -> None:
    chome = tmp_path / "copilot-home"  # COPILOT_HOME moves ~/.copilot
    (chome / "hooks").mkdir(parents=True)
    mine = chome / "hooks" / "policy.json"
    mine.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", '
                    '"bash": "./deny-rm.sh"}]}}')
    (chome / "mcp-config.json").write_text(json.dumps(USER_MCP, indent=2))
    before = snapshot(chome)
    env = {"HOME": str(tmp_path / "home"), "COPILOT_HOME": str(chome)}

    r = run("install", "copilot", "--json", env=env)
    assert r.returncode == 0, r.stderr
    ours = chome / "hooks" / "hindsight.json"
    assert json.loads(ours.read_text()) == {"version": 1, "hooks": {
        e: [{"type": "command", "bash": command(name, "copilot"), "timeoutSec": t}]
        for e, (name, t) in COPILOT_EVENTS.items()}}
    assert json.loads((chome / "mcp-config.json").read_text())["mcpServers"]["hindsight"] \
        == mcp(type="local", tools=["*"])
    assert mine.read_bytes() == before["hooks/policy.json"]
    assert run("install", "copilot", env=env).stdout.startswith("hindsight is already")

    r = run("uninstall", "copilot", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert {Path(f["path"]).name: f["status"] for f in json.loads(r.stdout)["files"]} == {
        "hindsight.json": "deleted", "mcp-config.json": "restored"}
    assert snapshot(chome) == before


def test_project_scope_writes_the_repositorys_files_and_removes_them(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    before = snapshot(repo)
    env = {"HOME": str(tmp_path / "home")}
    for agent in ("cursor", "copilot"):
        r = run("install", agent, "--scope", "project", "--project", str(repo), env=env)
        assert r.returncode == 0, r.stderr
    assert sorted(p for p in snapshot(repo) if p not in before) == [
        ".cursor/hooks.json", ".cursor/mcp.json", ".github/hooks/hindsight.json",
        ".github/mcp.json"]
    assert json.loads((repo / ".github" / "mcp.json").read_text())["mcpServers"][
        "hindsight"]["type"] == "local"
    assert not (tmp_path / "home").exists()  # user scope untouched
    for agent in ("cursor", "copilot"):
        r = run("uninstall", agent, "--scope", "project", "--project", str(repo), env=env)
        assert r.returncode == 0, r.stderr
    assert snapshot(repo) == before


def test_invalid_json_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {"a": }')
    r = run("install", "cursor", env={"HOME": str(home)})
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"hindsight: {home / '.cursor' / 'mcp.json'}: invalid JSON at line 1 column 22: "
        "Expecting value"]
    assert sorted(p.name for p in (home / ".cursor").iterdir()) == ["mcp.json"]


def test_installed_cursor_command_runs_isolated_from_the_repository(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / "hindsight").mkdir(parents=True)  # a cloned repository's own package
    (repo / "hindsight" / "__init__.py").write_text("raise SystemExit(3)\n")
    (repo / "types.py").write_text("raise SystemExit(4)\n")
    assert run("install", "cursor", env={"HOME": str(home)}).returncode == 0
    hooks = json.loads((home / ".cursor" / "hooks.json").read_text())["hooks"]
    cmd = hooks["beforeSubmitPrompt"][0]["command"]
    data = {"conversation_id": "c1", "workspace_roots": [str(repo)], "prompt": "hi"}
    r = subprocess.run(["sh", "-c", cmd], input=json.dumps(data), capture_output=True,
                       text=True, cwd=repo, timeout=60,
                       env={**os.environ, "HOME": str(home), "HINDSIGHT_SEED": "0"})
    assert (r.returncode, r.stdout) == (0, '{"continue": true}\n')


def test_detect_lists_agents_by_directory_and_command(tmp_path: Path) -> None:
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    (home / ".cursor").mkdir(parents=True)
    bin_dir.mkdir()
    exe = bin_dir / "copilot"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin",
           "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "CODEX_HOME": str(tmp_path / "nx")}
    r = run("install", "--detect", "--json", env=env)
    assert r.returncode == 0, r.stderr
    found = {d["agent"]: d for d in json.loads(r.stdout)}
    assert list(found)[:6] == ["claude-code", "codex", "cursor", "copilot", "gemini",
                               "antigravity"]
    assert {a: (d["found"], d["evidence"], d["installed"]) for a, d in found.items()
            if a in list(found)[:6]} == {
        "claude-code": (False, [], False), "codex": (False, [], False),
        "cursor": (True, [f"{home / '.cursor'}/"], False),
        "copilot": (True, [str(exe)], False), "gemini": (False, [], False),
        "antigravity": (False, [], False)}
    assert run("install", "cursor", env=env).returncode == 0
    r = run("install", "--detect", env=env)
    lines = r.stdout.splitlines()
    assert lines[3] == f"  cursor       {home / '.cursor'}/  [hindsight installed]"
    assert lines[4] == f"  copilot      {exe}  [hindsight not installed]"
    assert lines[5] == "  gemini       not found  [hindsight not installed]"
    assert lines[-1] == "Install with: hindsight install copilot"


GEMINI_EVENTS = {"SessionStart": ("session-start", None, 10000),
                 "BeforeAgent": ("user-prompt-submit", None, 5000),
                 "AfterTool": ("edit", "write_file|replace", 5000),
                 "AfterAgent": ("stop", None, 30000), "PreCompress": ("pre-compact", None, 30000),
                 "SessionEnd": ("session-end", None, 30000)}


def test_gemini_settings_get_hooks_in_ms_and_the_server_then_bytes_back(tmp_path: Path
                                                                       ) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    settings = home / ".gemini" / "settings.json"
    mine = {"ui": {"theme": "GitHub"}, "hooksConfig": {"enabled": True},
            "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
                {"type": "command", "command": "./guard.sh", "timeout": 2000}]}]},
            "mcpServers": {"docs": {"httpUrl": "https://docs.example.com/mcp"}}}
    settings.write_bytes(json.dumps(mine, indent=2).encode())
    before = snapshot(home)
    env = {"HOME": str(home)}
    r = run("install", "gemini", "--json", env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(settings.read_text())
    for event, (name, matcher, ms) in GEMINI_EVENTS.items():
        group = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command(name, "gemini"),
                           "timeout": ms}]
        assert data["hooks"][event] == [group], event
    assert data["hooks"]["BeforeTool"] == mine["hooks"]["BeforeTool"]
    assert data["mcpServers"] == {**mine["mcpServers"], "hindsight": mcp()}
    assert data["ui"] == mine["ui"]
    assert run("install", "gemini", env=env).stdout.startswith("hindsight is already")
    r = run("uninstall", "gemini", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert snapshot(home) == before


def test_gemini_install_says_when_hooks_are_switched_off(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".gemini").mkdir(parents=True)
    (repo / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    r = run("install", "gemini", "--scope", "project", "--project", str(repo), "--json",
            env={"HOME": str(tmp_path / "home")})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["notes"] == [
        f"{repo / '.gemini' / 'settings.json'}: hooksConfig.enabled is false: our hooks will "
        "not run", "Gemini CLI asks you to trust new or changed project hooks"]


def test_antigravity_bundle_and_server_then_bytes_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cfg = home / ".gemini" / "config"
    cfg.mkdir(parents=True)
    (cfg / "hooks.json").write_text(json.dumps({"entire": {"Stop": [
        {"type": "command", "command": "entire hooks antigravity stop"}]}}, indent=2))
    before = snapshot(home)
    env = {"HOME": str(home)}
    r = run("install", "antigravity", "--json", env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads((cfg / "hooks.json").read_text())
    assert data["hindsight"] == {
        "PreInvocation": [{"type": "command", "command": command("session-start",
                                                                  "antigravity")}],
        "Stop": [{"type": "command", "command": command("stop", "antigravity")}]}
    assert data["entire"]["Stop"][0]["command"] == "entire hooks antigravity stop"
    assert json.loads((cfg / "mcp_config.json").read_text()) == {
        "mcpServers": {"hindsight": mcp()}}
    assert run("install", "antigravity", env=env).stdout.startswith("hindsight is already")
    assert run("uninstall", "antigravity", env=env).returncode == 0
    assert snapshot(home) == before
    repo = tmp_path / "repo"
    r = run("install", "antigravity", "--scope", "project", "--project", str(repo), "--json",
            env=env)
    report = json.loads(r.stdout)
    assert report["changed"] == [str(repo / ".agents" / "hooks.json")]
    assert report["notes"] == ["the MCP server goes in ~/.gemini/config/mcp_config.json: "
                               "hindsight install antigravity (user scope)"]
    assert run("uninstall", "antigravity", "--scope", "project", "--project", str(repo),
               env=env).returncode == 0
    assert not (repo / ".agents" / "hooks.json").exists()
