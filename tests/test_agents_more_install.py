"""`hindsight install|uninstall windsurf|cline|opencode|kilo` through real subprocesses with a
temporary HOME (issue 16): every touched file restored byte for byte (also with the user's own
entries present, and edited in between), idempotence, both scopes, files of ours never
overwriting someone else's, and `install --detect` finding the agents."""

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


@pytest.fixture(autouse=True)
def _no_config_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_CONFIG", raising=False)  # HINDSIGHT_HOME: conftest's
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLINE_DATA_DIR", "OPENCODE_DB"):
        monkeypatch.delenv(var, raising=False)


def run(*args: str, env: dict[str, str], cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "hindsight", *args], env={**os.environ, **env}, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def command(event: str, agent: str) -> str:
    return (f"env {shlex.quote('HINDSIGHT_HOME=' + os.environ['HINDSIGHT_HOME'])} "
            f"{shlex.quote(PY)} -P -m hindsight hook {event} --harness {agent}")


def mcp(**extra: Any) -> dict[str, Any]:
    return {"command": PY, "args": ["-P", "-m", "hindsight", "mcp"],
            "env": {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}, **extra}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".hindsight-backup-" not in p.name}


def ok(r: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout) if r.stdout.startswith("{") else {}


USER_WS_HOOKS = {"hooks": {"post_write_code": [{"command": "./fmt.sh", "show_output": True}],
                           "pre_run_command": [{"command": "./guard.sh"}]}}
USER_MCP = {"mcpServers": {"docs": {"serverUrl": "https://docs.example.com/mcp"}}}


def test_windsurf_user_scope_restores_bytes_and_keeps_edits_made_in_between(tmp_path: Path
                                                                            ) -> None:
    home = tmp_path / "home"
    ws = home / ".codeium" / "windsurf"
    (ws / "memories").mkdir(parents=True)
    (ws / "hooks.json").write_bytes(json.dumps(USER_WS_HOOKS, indent=4).encode())
    (ws / "mcp_config.json").write_bytes(json.dumps(USER_MCP).encode() + b"\r\n")
    rules = ws / "memories" / "global_rules.md"
    rules.write_bytes(b"Prefer small functions.")  # no final newline
    before = snapshot(home)
    env = {"HOME": str(home)}

    report = ok(run("install", "windsurf", "--json", env=env))
    assert len(report["backups"]) == 3
    hooks = json.loads((ws / "hooks.json").read_text())["hooks"]
    assert hooks["post_write_code"] == [USER_WS_HOOKS["hooks"]["post_write_code"][0],
                                        {"show_output": False,
                                         "command": command("edit", "windsurf")}]
    assert hooks["post_cascade_response_with_transcript"] == [
        {"show_output": False, "command": command("stop", "windsurf")}]
    assert hooks["pre_run_command"] == USER_WS_HOOKS["hooks"]["pre_run_command"]
    assert json.loads((ws / "mcp_config.json").read_text())["mcpServers"] == {
        **USER_MCP["mcpServers"], "hindsight": mcp()}
    text = rules.read_text()
    assert text.startswith("Prefer small functions.\n<!-- hindsight:begin")
    assert "call\n  its `recall` tool" in text and text.endswith("<!-- hindsight:end -->\n")
    installed = snapshot(home)
    assert run("install", "windsurf", env=env).stdout.startswith("hindsight is already")
    assert snapshot(home) == installed

    report = ok(run("uninstall", "windsurf", "--json", env=env))
    assert [f["status"] for f in report["files"]] == ["restored"] * 3
    assert snapshot(home) == before

    ok(run("install", "windsurf", env=env))  # again, and the user edits all three files
    rules.write_text("# Mine\n" + rules.read_text())
    data = json.loads((ws / "hooks.json").read_text())
    data["hooks"]["pre_run_command"][0]["command"] = "./guard-v2.sh"
    (ws / "hooks.json").write_text(json.dumps(data))
    servers = json.loads((ws / "mcp_config.json").read_text())
    servers["mcpServers"]["git"] = {"command": "git-mcp"}
    (ws / "mcp_config.json").write_text(json.dumps(servers))
    report = ok(run("uninstall", "windsurf", "--json", env=env))
    assert [f["status"] for f in report["files"]] == ["changed"] * 3
    assert rules.read_text() == "# Mine\nPrefer small functions."
    assert json.loads((ws / "hooks.json").read_text()) == {"hooks": {
        "post_write_code": USER_WS_HOOKS["hooks"]["post_write_code"],
        "pre_run_command": [{"command": "./guard-v2.sh"}]}}
    assert json.loads((ws / "mcp_config.json").read_text())["mcpServers"] == {
        **USER_MCP["mcpServers"], "git": {"command": "git-mcp"}}


def test_windsurf_project_scope_and_a_rules_file_that_is_not_ours(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".windsurf" / "rules").mkdir(parents=True)
    before = snapshot(repo)
    env = {"HOME": str(tmp_path / "home")}
    report = ok(run("install", "windsurf", "--scope", "project", "--project", str(repo),
                    "--json", env=env))
    assert sorted(p for p in snapshot(repo) if p not in before) == [
        ".windsurf/hooks.json", ".windsurf/rules/hindsight.md"]
    rule = (repo / ".windsurf" / "rules" / "hindsight.md").read_text()
    assert rule.startswith("---\ntrigger: always_on\n---\n<!-- written by `hindsight "
                           "install windsurf`")
    assert report["notes"][-1] == ("the MCP server goes in ~/.codeium/windsurf/"
                                   "mcp_config.json: hindsight install windsurf (user scope)")
    assert not (tmp_path / "home").exists()
    ok(run("uninstall", "windsurf", "--scope", "project", "--project", str(repo), env=env))
    assert snapshot(repo) == before

    mine = repo / ".windsurf" / "rules" / "hindsight.md"
    mine.write_text("my own notes about hindsight\n")
    report = ok(run("install", "windsurf", "--scope", "project", "--project", str(repo),
                    "--json", env=env))
    assert mine.read_text() == "my own notes about hindsight\n"
    assert f"{mine}: a file hindsight did not write is there; left untouched (move it away " \
           "and install again)" in report["notes"]
    ok(run("uninstall", "windsurf", "--scope", "project", "--project", str(repo), env=env))
    assert mine.read_text() == "my own notes about hindsight\n"
    assert not (repo / ".windsurf" / "hooks.json").exists()


def test_detect_finds_the_new_agents(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin",
           "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "CODEX_HOME": str(tmp_path / "nx")}
    found = {d["agent"]: d for d in json.loads(run("install", "--detect", "--json",
                                                   env=env).stdout)}
    assert (found["windsurf"]["found"], found["windsurf"]["installed"]) == (True, False)
    ok(run("install", "windsurf", env=env))
    found = {d["agent"]: d for d in json.loads(run("install", "--detect", "--json",
                                                   env=env).stdout)}
    assert found["windsurf"]["installed"] is True


CLINE_HOOKS = {"TaskStart": "session-start", "TaskResume": "session-start",
               "UserPromptSubmit": "user-prompt-submit", "PostToolUse": "edit",
               "TaskComplete": "stop", "TaskCancel": "stop", "PreCompact": "pre-compact"}


def test_cline_user_scope_scripts_rules_and_mcp_then_bytes_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hooks = home / "Documents" / "Cline" / "Hooks"
    hooks.mkdir(parents=True)
    mine = hooks / "PreToolUse"  # the user's own hook, of an event we do not use
    mine.write_text("#!/bin/sh\necho '{\"cancel\": false}'\n")
    mine.chmod(0o755)
    theirs = hooks / "TaskCancel"  # and one of an event we use: left alone
    theirs.write_text("#!/bin/sh\n./notify.sh\n")
    vscode = home / ".config" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    (vscode / "settings").mkdir(parents=True)
    settings = vscode / "settings" / "cline_mcp_settings.json"
    settings.write_text(json.dumps({"mcpServers": {"fs": {"command": "npx", "args": ["fs"],
                                                          "disabled": True}}}, indent=2))
    before = snapshot(home)
    env = {"HOME": str(home)}

    report = ok(run("install", "cline", "--json", env=env))
    for name, event in CLINE_HOOKS.items():
        if name == "TaskCancel":
            continue
        script = (hooks / name).read_text()
        assert script == ("#!/bin/sh\n# written by `hindsight install cline`; `hindsight "
                          f"uninstall cline` removes it\nexec {command(event, 'cline')}\n")
        assert os.access(hooks / name, os.X_OK)
    assert theirs.read_text() == "#!/bin/sh\n./notify.sh\n"
    assert f"{theirs}: a file hindsight did not write is there; left untouched (move it " \
           "away and install again)" in report["notes"]
    rules = (home / "Documents" / "Cline" / "Rules" / "hindsight.md").read_text()
    assert rules.startswith("<!-- written by `hindsight install cline`") and "`recall`" in rules
    assert json.loads(settings.read_text())["mcpServers"]["hindsight"] == mcp(disabled=False)
    assert not (home / ".cline").exists()  # the editor's folder is there: not the CLI's
    installed = snapshot(home)
    assert run("install", "cline", env=env).stdout.startswith("hindsight is already")
    assert snapshot(home) == installed

    # the installed script runs as Cline runs it: an executable, in the workspace
    repo = tmp_path / "repo"
    (repo / "hindsight").mkdir(parents=True)  # a cloned repository's own package
    (repo / "hindsight" / "__init__.py").write_text("raise SystemExit(3)\n")
    data = {"taskId": "t1", "hookName": "UserPromptSubmit", "workspaceRoots": [str(repo)],
            "userPromptSubmit": {"prompt": "hi"}}
    r = subprocess.run([str(hooks / "UserPromptSubmit")], input=json.dumps(data),
                       capture_output=True, text=True, cwd=repo, timeout=60,
                       env={**os.environ, "HOME": str(home), "HINDSIGHT_SEED": "0"})
    assert (r.returncode, r.stdout) == (0, '{"cancel": false}\n')

    ok(run("uninstall", "cline", env=env))
    assert snapshot(home) == before


def test_cline_project_scope_and_single_file_rules(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"HOME": str(tmp_path / "home")}
    ok(run("install", "cline", "--scope", "project", "--project", str(repo), env=env))
    assert sorted(snapshot(repo)) == sorted([".clinerules/hindsight.md",
                                             *[f".clinerules/hooks/{n}" for n in CLINE_HOOKS]])
    assert not (tmp_path / "home").exists()
    ok(run("uninstall", "cline", "--scope", "project", "--project", str(repo), env=env))
    assert snapshot(repo) == {}

    repo = tmp_path / "repo2"
    repo.mkdir()
    (repo / ".clinerules").write_text("Use tabs.\n")
    r = run("install", "cline", "--scope", "project", "--project", str(repo), env=env)
    assert r.returncode == 2
    assert r.stderr.strip() == (f"hindsight: {repo / '.clinerules'} is a file (single-file "
                                "rules); Cline reads hooks only from a .clinerules/ folder: "
                                "make it a folder first")
    assert snapshot(repo) == {".clinerules": b"Use tabs.\n"}
