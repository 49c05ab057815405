"""hindsight install/uninstall for Claude Code and Codex, through a real subprocess of
``python -m hindsight install|uninstall`` with temporary HOME / CLAUDE_CONFIG_DIR /
CODEX_HOME, plus a few direct calls for the edge cases."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hindsight.errors import ConfigError
from hindsight.hooks import install as inst

PY = sys.executable
EVENTS = {  # event -> (our event name, timeout, matcher)
    "SessionStart": ("session-start", 10, "startup|resume|clear|compact"),
    "UserPromptSubmit": ("user-prompt-submit", 5, None),
    "PostToolUse": ("edit", 5, "Edit|MultiEdit|Write|NotebookEdit"),
    "Stop": ("stop", 30, None),
    "PreCompact": ("pre-compact", 30, None),
    "SessionEnd": ("session-end", 30, None),
}


@pytest.fixture(autouse=True)
def _no_config_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_CONFIG", raising=False)  # HINDSIGHT_HOME: conftest's


def prefix() -> str:
    """How our hook commands start: the HINDSIGHT_HOME of the install (conftest sets one per
    test) pinned, then the interpreter, isolated from the working directory."""
    return (f"env {shlex.quote('HINDSIGHT_HOME=' + os.environ['HINDSIGHT_HOME'])} "
            f"{shlex.quote(PY)} -P -m hindsight hook")


def ours_expected() -> dict[str, tuple[str, int, str | None]]:
    """event -> (command, timeout, matcher) of a Claude Code install."""
    return {event: (f"{prefix()} {name}", timeout, matcher)
            for event, (name, timeout, matcher) in EVENTS.items()}


def mcp_expected(**extra: str) -> dict[str, Any]:
    return {**extra, "command": PY, "args": ["-P", "-m", "hindsight", "mcp"],
            "env": {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}}


USER_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": "~/bin/greet.sh", "timeout": 3}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "python3 ~/guard.py"}]}],
    },
    "statusLine": {"type": "command", "command": "echo hi"},
}
CODEX_TOML = """# my Codex settings
model = "gpt-5-codex"  # the default model
notify = ["python3", "/home/me/notify.py"]

[model_providers.local]
name = "Local"   # a local server
base_url = "http://127.0.0.1:8080/v1"

# documentation lookups
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]  # pinned elsewhere

[tui]
notifications = true"""


def run(*args: str, env: dict[str, str], cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    return subprocess.run([PY, "-m", "hindsight", *args], env=full,
                          cwd=cwd, capture_output=True, text=True, timeout=60)


def ours_in(settings: dict[str, Any], event: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(g, h) for g in settings["hooks"].get(event, []) for h in g["hooks"]
            if " -m hindsight hook " in h["command"]]


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".hindsight-backup-*"))


def assert_ours_once(settings: dict[str, Any], ours: dict[str, tuple[str, int, str | None]]
                     ) -> None:
    for event, (command, timeout, matcher) in ours.items():
        found = ours_in(settings, event)
        assert len(found) == 1, event
        group, handler = found[0]
        assert handler == {"type": "command", "command": command, "timeout": timeout}
        assert group.get("matcher") == matcher
        assert group["hooks"] == [handler]


def test_user_scope_install_twice_uninstall_restores_bytes(tmp_path: Path) -> None:
    home, cfg = tmp_path / "home", tmp_path / "cfg"
    home.mkdir()
    cfg.mkdir()
    settings = cfg / "settings.json"
    original = json.dumps(USER_SETTINGS, indent=4).encode()  # 4 spaces, no final newline
    settings.write_bytes(original)
    settings.chmod(0o600)
    state = cfg / ".claude.json"
    state_bytes = b'{"numStartups": 7, "mcpServers": {"git": {"command": "git-mcp"}}}\n'
    state.write_bytes(state_bytes)
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(cfg)}

    r = run("install", "claude-code", "--json", env=env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert sorted(report["changed"]) == sorted([str(settings), str(state)])
    assert report["pinned"] == {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}
    first = settings.read_bytes()
    data = json.loads(first)
    assert_ours_once(data, ours_expected())
    # the user's own hooks and keys are all still there, as they were
    for event, groups in USER_SETTINGS["hooks"].items():
        assert [g for g in data["hooks"][event] if g in groups] == groups
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in USER_SETTINGS.items() if k != "hooks"}
    assert list(data) == list(USER_SETTINGS)  # key order kept
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert json.loads(state.read_text()) == {"numStartups": 7, "mcpServers": {
        "git": {"command": "git-mcp"}, "hindsight": mcp_expected(type="stdio")}}
    assert not (home / ".claude.json").exists()  # CLAUDE_CONFIG_DIR moves it
    assert not (home / ".claude").exists()
    [b1] = backups(settings)
    assert b1.read_bytes() == original
    assert stat.S_IMODE(b1.stat().st_mode) == 0o600
    assert backups(state)[0].read_bytes() == state_bytes
    assert (cfg / "settings.json.hindsight-orig").read_bytes() == original

    r = run("install", "claude-code", "--json", env=env)
    assert r.returncode == 0, r.stderr
    again = json.loads(r.stdout)
    assert again["changed"] == [] and again["added"] == [] and again["backups"] == []
    assert len(again["already_present"]) == 7  # 6 hooks and the MCP server
    assert settings.read_bytes() == first
    assert len(backups(settings)) == 1

    r = run("uninstall", "claude-code", env=env)
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stdout
    assert settings.read_bytes() == original
    assert state.read_bytes() == state_bytes
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert not (cfg / "settings.json.hindsight-orig").exists()
    assert not (cfg / ".claude.json.hindsight-orig").exists()
    assert b1.read_bytes() == original  # never overwritten
    listing = sorted(p.name for p in cfg.iterdir())

    r = run("uninstall", "claude-code", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["changed"] == []
    assert "not installed" in run("uninstall", "claude-code", env=env).stdout
    assert settings.read_bytes() == original
    assert sorted(p.name for p in cfg.iterdir()) == listing


def test_user_scope_without_config_dir_uses_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": ""}
    r = run("install", "claude-code", env=env)
    assert r.returncode == 0, r.stderr
    assert "Restart Claude Code" in r.stdout
    assert f"the entries use HINDSIGHT_HOME={os.environ['HINDSIGHT_HOME']} " in r.stdout
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert list(settings) == ["hooks"] and list(settings["hooks"]) == list(EVENTS)
    assert_ours_once(settings, ours_expected())
    assert json.loads((home / ".claude.json").read_text()) == {
        "mcpServers": {"hindsight": mcp_expected(type="stdio")}}
    r = run("uninstall", "claude-code", env=env)
    assert r.returncode == 0, r.stderr
    # both files held nothing but our entries: deleted, and no backups of them left behind
    assert sorted(p.name for p in home.iterdir()) == [".claude"]
    assert list((home / ".claude").iterdir()) == []


def test_project_scope(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    mcp_file = project / ".mcp.json"
    mcp_file.write_text('{"mcpServers": {"db": {"type": "stdio", "command": "db-mcp"}}}')
    r = run("install", "claude-code", "--scope", "project", "--project", str(project),
            env=env)
    assert r.returncode == 0, r.stderr
    assert "approve" in r.stdout
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert_ours_once(settings, ours_expected())
    assert json.loads(mcp_file.read_text()) == {"mcpServers": {
        "db": {"type": "stdio", "command": "db-mcp"}, "hindsight": mcp_expected(type="stdio")}}
    assert not (tmp_path / "cfg").exists() and list(home.iterdir()) == []

    # the default project is the current directory
    r = run("install", "claude-code", "--scope", "project", "--json", env=env, cwd=project)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["changed"] == []
    r = run("uninstall", "claude-code", "--scope", "project", env=env, cwd=project)
    assert r.returncode == 0, r.stderr
    assert not (project / ".claude" / "settings.json").exists()
    assert mcp_file.read_text() == '{"mcpServers": {"db": {"type": "stdio", "command": "db-mcp"}}}'


def test_invalid_json_changes_nothing(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    bad = b'{\n  "model": "opus",\n}\n'
    (cfg / "settings.json").write_bytes(bad)
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(cfg)}
    r = run("install", "claude-code", env=env)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"hindsight: {cfg / 'settings.json'}: invalid JSON at line 3 "
                               "column 1")
    assert (cfg / "settings.json").read_bytes() == bad
    assert sorted(p.name for p in cfg.iterdir()) == ["settings.json"]

    # a valid settings file is not touched when the MCP file is the broken one
    (cfg / "settings.json").write_text('{"model": "opus"}')
    (cfg / ".claude.json").write_text('{"numStartups": 1')
    r = run("install", "claude-code", env=env)
    assert r.returncode == 2
    assert str(cfg / ".claude.json") in r.stderr and len(r.stderr.splitlines()) == 1
    assert (cfg / "settings.json").read_text() == '{"model": "opus"}'
    assert sorted(p.name for p in cfg.iterdir()) == [".claude.json", "settings.json"]
    (cfg / ".claude.json").write_text("{}")
    (cfg / "settings.json").write_text('{"hooks": []}')
    with pytest.raises(ConfigError, match="expected an object at 'hooks', found list"):
        inst.install_claude_code("user", config_dir=str(cfg))
    assert (cfg / "settings.json").read_text() == '{"hooks": []}'
    assert (cfg / ".claude.json").read_text() == "{}"


def test_uninstall_keeps_what_the_user_added_after_install(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    settings = cfg / "settings.json"
    settings.write_text('{"model": "opus", "env": {"A": "1"}}')
    inst.install_claude_code("user", config_dir=str(cfg))
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    start_group = ours_in(data, "SessionStart")[0][0]
    start_group["hooks"].append({"type": "command", "command": "echo mine"})
    settings.write_text(json.dumps(data))

    report = inst.uninstall_claude_code("user", config_dir=str(cfg))
    assert [f["status"] for f in report["files"]] == ["changed", "deleted"]
    text = settings.read_text()
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert json.loads(text) == {"model": "opus", "env": {"A": "1"}, "hooks": {
        "SessionStart": [{"matcher": "startup|resume|clear|compact",
                          "hooks": [{"type": "command", "command": "echo mine"}]}]},
        "theme": "dark"}
    assert not (cfg / "settings.json.hindsight-orig").exists()


def test_stale_entries_replaced_and_foreign_server_kept(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "settings.json").write_text(json.dumps({"hooks": {"Stop": [
        {"hooks": [{"type": "command", "command": "hindsight hook stop"},
                   {"type": "command", "command": "say done"}]},
        {"hooks": [{"type": "command", "command": "/old/venv/bin/python -m hindsight hook stop",
                    "timeout": 9}]}]}}))
    foreign = {"command": "node", "args": ["hindsight-server.js"]}
    (cfg / ".claude.json").write_text(json.dumps({"mcpServers": {"hindsight": foreign}}))
    report = inst.install_claude_code("user", config_dir=str(cfg))
    data = json.loads((cfg / "settings.json").read_text())
    assert_ours_once(data, ours_expected())
    assert data["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "say done"}]}
    assert f"{cfg / 'settings.json'}: hooks.Stop" in report["added"]
    assert json.loads((cfg / ".claude.json").read_text())["mcpServers"]["hindsight"] == foreign
    assert report["notes"] == [f"{cfg / '.claude.json'}: mcpServers.hindsight: a different "
                               "server of that name is configured; left untouched"]
    inst.uninstall_claude_code("user", config_dir=str(cfg))
    assert json.loads((cfg / ".claude.json").read_text()) == {"mcpServers": {"hindsight": foreign}}


def test_hook_command_quotes_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/my env/bin/python3")
    monkeypatch.delenv("HINDSIGHT_HOME")
    assert inst.hook_command("stop") == "'/opt/my env/bin/python3' -P -m hindsight hook stop"
    assert inst.hook_command("stop", "codex") == (
        "'/opt/my env/bin/python3' -P -m hindsight hook stop --harness codex")
    # the install's home and config file are pinned, as absolute paths, every word quoted
    monkeypatch.setenv("HINDSIGHT_HOME", "/srv/my home")
    monkeypatch.setenv("HINDSIGHT_CONFIG", "/etc/hs.json")
    assert inst.hook_command("stop", "codex") == (
        "env 'HINDSIGHT_HOME=/srv/my home' HINDSIGHT_CONFIG=/etc/hs.json "
        "'/opt/my env/bin/python3' -P -m hindsight hook stop --harness codex")
    assert inst.hook_command("stop", env={}) == (
        "'/opt/my env/bin/python3' -P -m hindsight hook stop")
    assert inst.is_our_command(inst.hook_command("session-start"))
    assert inst.is_our_command("'/old/venv/bin/python' -m hindsight hook stop")  # 0.1.0
    assert inst.is_our_command("hindsight hook stop")
    assert not inst.is_our_command("python -m hindsight hooks run-git post-commit")
    with pytest.raises(ConfigError, match="unknown scope 'global'"):
        inst.claude_code_paths("global")


def test_nothing_pinned_when_the_variables_are_unset(tmp_path: Path) -> None:
    cfg, codex = tmp_path / "cfg", tmp_path / "codex"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    for args in (["claude-code"], ["codex"]):
        r = subprocess.run([PY, "-m", "hindsight", "install", *args],
                           env={**env, "CLAUDE_CONFIG_DIR": str(cfg), "CODEX_HOME": str(codex),
                                "HOME": str(tmp_path)},
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "Installed hindsight" in r.stdout and "the entries use" not in r.stdout
    bare = f"{shlex.quote(PY)} -P -m hindsight hook"
    settings = json.loads((cfg / "settings.json").read_text())
    assert_ours_once(settings, {event: (f"{bare} {name}", timeout, matcher)
                                for event, (name, timeout, matcher) in EVENTS.items()})
    assert json.loads((cfg / ".claude.json").read_text()) == {"mcpServers": {"hindsight": {
        "type": "stdio", "command": PY, "args": ["-P", "-m", "hindsight", "mcp"]}}}
    assert tomllib.loads((codex / "config.toml").read_text()) == {"mcp_servers": {
        "hindsight": {"command": PY, "args": ["-P", "-m", "hindsight", "mcp"]}}}
    hooks = json.loads((codex / "hooks.json").read_text())
    assert [h["command"] for groups in hooks["hooks"].values() for g in groups
            for h in g["hooks"]] == [f"{bare} edit --harness codex",
                                     f"{bare} stop --harness codex",
                                     f"{bare} session-end --harness codex"]


def test_uninstall_removes_entries_of_the_previous_release(tmp_path: Path) -> None:
    """0.1.0 wrote ``<python> -m hindsight …`` without ``-P`` or a pinned home."""
    cfg, codex = tmp_path / "cfg", tmp_path / "codex"
    cfg.mkdir()
    codex.mkdir()
    old = shlex.quote(PY) + " -m hindsight hook"
    settings = {"model": "opus", "hooks": {
        event: [{**({"matcher": matcher} if matcher else {}), "hooks": [
            {"type": "command", "command": f"{old} {name}", "timeout": timeout}]}]
        for event, (name, timeout, matcher) in EVENTS.items()}}
    settings["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "say done"}]})
    (cfg / "settings.json").write_text(json.dumps(settings))
    (cfg / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {
        "hindsight": {"type": "stdio", "command": PY, "args": ["-m", "hindsight", "mcp"]}}}))
    (codex / "config.toml").write_text(
        f'model = "o3"\n\n[mcp_servers.hindsight]\ncommand = "{PY}"\n'
        'args = ["-m", "hindsight", "mcp"]\n')
    (codex / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": f"{old} stop --harness codex", "timeout": 30}]}]}}))

    inst.uninstall_claude_code("user", config_dir=str(cfg))
    inst.uninstall_codex(codex_home=str(codex))
    assert json.loads((cfg / "settings.json").read_text()) == {"model": "opus", "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    assert json.loads((cfg / ".claude.json").read_text()) == {"numStartups": 3}
    assert tomllib.loads((codex / "config.toml").read_text()) == {"model": "o3"}
    assert not (codex / "hooks.json").exists()


def test_codex_install_twice_uninstall_restores_bytes(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(CODEX_TOML)
    env = {"CODEX_HOME": str(home), "HOME": str(tmp_path)}
    r = run("install", "codex", "--json", env=env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["notes"] == [f"{config}: your 'notify' program was left as it is"]
    for _ in range(2):
        text = config.read_text()
        assert text.startswith(CODEX_TOML + "\n\n")  # everything of the user's, as it was
        assert text.count("[mcp_servers.hindsight]") == 1
        parsed = tomllib.loads(text)
        assert parsed["mcp_servers"] == {
            "docs": {"command": "npx", "args": ["-y", "docs-mcp"]},
            "hindsight": mcp_expected()}
        assert parsed["notify"] == ["python3", "/home/me/notify.py"]
        hooks = json.loads((home / "hooks.json").read_text())
        assert hooks == {"hooks": {event: [{**({"matcher": matcher} if matcher else {}),
                                            "hooks": [{
            "type": "command", "command": f"{prefix()} {name} --harness codex",
            "timeout": timeout}]}] for event, name, matcher, timeout in (
                ("PostToolUse", "edit", "apply_patch|Edit|Write", 5),
                ("Stop", "stop", None, 30), ("SessionEnd", "session-end", None, 30))}}
        assert list(hooks["hooks"]) == ["PostToolUse", "Stop", "SessionEnd"]
        r = run("install", "codex", env=env)
        assert r.returncode == 0, r.stderr
    assert "already installed" in r.stdout
    assert [b.read_text() for b in backups(config)] == [CODEX_TOML]

    r = run("uninstall", "codex", env=env)
    assert r.returncode == 0, r.stderr
    assert config.read_text() == CODEX_TOML
    assert not (home / "hooks.json").exists()
    assert sorted(p.name for p in home.iterdir()) == sorted(
        ["config.toml"] + [b.name for b in backups(config)])
    r = run("uninstall", "codex", "--json", env=env)
    assert json.loads(r.stdout)["changed"] == []
    assert config.read_text() == CODEX_TOML


def test_codex_edge_cases(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    config = home / "config.toml"
    config.write_text('model = "o3"\n[mcp_servers\n')
    r = run("install", "codex", env={"CODEX_HOME": str(home)})
    assert r.returncode == 2
    assert r.stderr.startswith(f"hindsight: {config}: invalid TOML at line 2")
    assert config.read_text() == 'model = "o3"\n[mcp_servers\n'
    assert sorted(p.name for p in home.iterdir()) == ["config.toml"]

    # an inline mcp_servers table cannot take a [header]: a clear error, nothing written
    config.write_text('mcp_servers = { docs = { command = "npx" } }\n')
    with pytest.raises(ConfigError, match="add it by hand"):
        inst.install_codex(codex_home=str(home))
    assert sorted(p.name for p in home.iterdir()) == ["config.toml"]

    # no config.toml yet; hooks switched off; an older entry of ours is updated in place
    config.unlink()
    report = inst.install_codex(codex_home=str(home))
    assert [f["status"] for f in report["files"]] == ["created", "created"]
    config.write_text(config.read_text().replace(PY, "/old/python")
                      + "\n[features]\nhooks = false\n")
    report = inst.install_codex(codex_home=str(home))
    assert report["added"] == [f"{config}: mcp_servers.hindsight"]
    assert report["notes"] == [f"{config}: hooks are off in [features]: our PostToolUse/Stop/"
                               "SessionEnd hooks will not run"]
    parsed = tomllib.loads(config.read_text())
    assert parsed == {"features": {"hooks": False},
                      "mcp_servers": {"hindsight": mcp_expected()}}
    inst.uninstall_codex(codex_home=str(home))
    assert tomllib.loads(config.read_text()) == {"features": {"hooks": False}}
    assert not (home / "hooks.json").exists()
