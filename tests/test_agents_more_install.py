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
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    (home / "Documents" / "Cline").mkdir(parents=True)
    (home / ".config" / "kilo").mkdir(parents=True)
    bin_dir.mkdir()
    (bin_dir / "opencode").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "opencode").chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin",
           "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "CODEX_HOME": str(tmp_path / "nx")}

    def found() -> dict[str, tuple[bool, list[str], bool | None]]:
        rows = json.loads(run("install", "--detect", "--json", env=env).stdout)
        return {d["agent"]: (d["found"], d["evidence"], d["installed"]) for d in rows[6:]}

    assert found() == {
        "windsurf": (True, [f"{home / '.codeium' / 'windsurf'}/"], False),
        "cline": (True, [f"{home / 'Documents' / 'Cline'}/"], False),
        "opencode": (True, [str(bin_dir / "opencode")], False),
        "kilo": (True, [f"{home / '.config' / 'kilo'}/"], False)}
    for agent in ("windsurf", "cline", "opencode", "kilo"):
        ok(run("install", agent, env=env))
    assert [v[2] for v in found().values()] == [True] * 4
    lines = run("install", "--detect", env=env).stdout.splitlines()
    rows = [x for x in lines if x.startswith(("  windsurf", "  cline", "  opencode", "  kilo"))]
    assert len(rows) == 4 and all(x.endswith("[hindsight installed]") for x in rows)


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


TEMPLATE = Path(__file__).resolve().parents[1] / "src" / "hindsight" / "hooks" / "plugins" / \
    "opencode.js"


def plugin_config(path: Path) -> dict[str, Any]:
    """The CONFIG line of an installed plugin; the rest must be the shipped file's."""
    lines = path.read_text().split("\n")
    shipped = TEMPLATE.read_text().split("\n")
    at = [i for i, x in enumerate(lines) if x.startswith("const CONFIG = ")]
    assert len(at) == 1 and len(lines) == len(shipped)
    assert [x for i, x in enumerate(lines) if i != at[0]] == [
        x for i, x in enumerate(shipped) if i != at[0]]
    return json.loads(lines[at[0]].removeprefix("const CONFIG = ").removesuffix(";"))


def local_mcp() -> dict[str, Any]:
    return {"type": "local", "command": [PY, "-P", "-m", "hindsight", "mcp"],
            "environment": {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}, "enabled": True}


def test_opencode_user_scope_plugin_and_mcp_then_bytes_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cfg = home / ".config" / "opencode"
    cfg.mkdir(parents=True)
    mine = {"$schema": "https://opencode.ai/config.json", "model": "anthropic/claude-x",
            "plugin": ["opencode-wakatime"],
            "mcp": {"docs": {"type": "remote", "url": "https://docs.example.com/mcp"}}}
    (cfg / "opencode.json").write_text(json.dumps(mine, indent=2))
    before = snapshot(home)
    env = {"HOME": str(home)}
    report = ok(run("install", "opencode", "--json", env=env))
    assert sorted(report["changed"]) == [str(cfg / "opencode.json"),
                                         str(cfg / "plugins" / "hindsight.js")]
    assert plugin_config(cfg / "plugins" / "hindsight.js") == {
        "argv": [PY, "-P", "-m", "hindsight"],
        "env": {"HINDSIGHT_HOME": os.environ["HINDSIGHT_HOME"]}, "harness": "opencode"}
    data = json.loads((cfg / "opencode.json").read_text())
    assert data == {**mine, "mcp": {**mine["mcp"], "hindsight": local_mcp()}}
    installed = snapshot(home)
    assert run("install", "opencode", env=env).stdout.startswith("hindsight is already")
    assert snapshot(home) == installed
    ok(run("uninstall", "opencode", env=env))
    assert snapshot(home) == before

    xdg = tmp_path / "xdg"  # XDG_CONFIG_HOME moves ~/.config
    ok(run("install", "opencode", env={**env, "XDG_CONFIG_HOME": str(xdg)}))
    assert (xdg / "opencode" / "plugins" / "hindsight.js").exists()
    ok(run("uninstall", "opencode", env={**env, "XDG_CONFIG_HOME": str(xdg)}))
    assert snapshot(xdg) == {}


def test_kilo_plugin_is_named_as_a_file_url_and_edits_in_between_stay(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "kilo.json").write_text('{"plugin": ["./my-plugin.ts"]}\n')
    before = snapshot(repo)
    env = {"HOME": str(tmp_path / "home")}
    ok(run("install", "kilo", "--scope", "project", "--project", str(repo), env=env))
    plugin = repo / ".kilo" / "plugins" / "hindsight.js"
    assert plugin_config(plugin)["harness"] == "kilo"
    data = json.loads((repo / "kilo.json").read_text())
    assert data == {"plugin": ["./my-plugin.ts", f"file://{plugin}"],
                    "mcp": {"hindsight": local_mcp()}}
    ok(run("uninstall", "kilo", "--scope", "project", "--project", str(repo), env=env))
    assert snapshot(repo) == before

    ok(run("install", "kilo", "--scope", "project", "--project", str(repo), env=env))
    data = json.loads((repo / "kilo.json").read_text())
    data["plugin"].append("./second.ts")
    data["theme"] = "dark"
    (repo / "kilo.json").write_text(json.dumps(data))
    ok(run("uninstall", "kilo", "--scope", "project", "--project", str(repo), env=env))
    assert json.loads((repo / "kilo.json").read_text()) == {
        "plugin": ["./my-plugin.ts", "./second.ts"], "theme": "dark"}
    assert not plugin.exists()


def test_jsonc_with_comments_and_a_foreign_plugin_file_are_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cfg = home / ".config" / "kilo"
    cfg.mkdir(parents=True)
    (cfg / "kilo.jsonc").write_text('{\n  // my theme\n  "theme": "dark"\n}\n')
    before = snapshot(home)
    r = run("install", "kilo", env={"HOME": str(home)})
    assert r.returncode == 2
    assert r.stderr.strip() == (f"hindsight: {cfg / 'kilo.jsonc'}: not plain JSON "
                                "(comments?): hindsight cannot edit it without losing them; "
                                "add the entries by hand (README, Agents)")
    assert snapshot(home) == before
    (cfg / "kilo.jsonc").write_text('{"theme": "dark"}\n')  # plain JSON in a .jsonc: edited
    ok(run("install", "kilo", env={"HOME": str(home)}))
    assert json.loads((cfg / "kilo.jsonc").read_text())["mcp"]["hindsight"] == local_mcp()
    ok(run("uninstall", "kilo", env={"HOME": str(home)}))
    assert (cfg / "kilo.jsonc").read_text() == '{"theme": "dark"}\n'

    proj = tmp_path / "proj"
    (proj / ".opencode" / "plugins").mkdir(parents=True)
    theirs = proj / ".opencode" / "plugins" / "hindsight.js"
    theirs.write_text("export const Mine = async () => ({})\n")
    report = ok(run("install", "opencode", "--scope", "project", "--project", str(proj),
                    "--json", env={"HOME": str(home)}))
    assert theirs.read_text() == "export const Mine = async () => ({})\n"
    assert any(n.startswith(f"{theirs}: a file hindsight did not write") for n in
               report["notes"])


# agent -> (a file of the user's that install edits, relative to HOME; its content)
USER_FILES: dict[str, tuple[str, dict[str, Any]]] = {
    "cursor": (".cursor/mcp.json", USER_MCP),
    "copilot": (".copilot/mcp-config.json", USER_MCP),
    "gemini": (".gemini/settings.json", {"ui": {"theme": "GitHub"}}),
    "antigravity": (".gemini/config/hooks.json", {"entire": {"Stop": [
        {"type": "command", "command": "entire hooks antigravity stop"}]}}),
    "windsurf": (".codeium/windsurf/mcp_config.json", USER_MCP),
    "cline": (".cline/data/settings/cline_mcp_settings.json", USER_MCP),
    "opencode": (".config/opencode/opencode.json", {"model": "anthropic/claude-x"}),
    "kilo": (".config/kilo/kilo.json", {"plugin": ["./mine.ts"]}),
}


@pytest.mark.parametrize("agent", list(USER_FILES))
def test_uninstall_keeps_what_the_user_changed_in_between(agent: str, tmp_path: Path
                                                          ) -> None:
    home = tmp_path / "home"
    rel, content = USER_FILES[agent]
    (home / rel).parent.mkdir(parents=True)
    (home / rel).write_text(json.dumps(content, indent=3) + "\n")
    before = snapshot(home)
    env = {"HOME": str(home)}
    ok(run("install", agent, env=env))
    assert (home / rel).read_bytes() != before[rel]
    data = json.loads((home / rel).read_text())
    data["addedByTheUser"] = {"while": "hindsight was installed"}
    (home / rel).write_text(json.dumps(data))
    ok(run("uninstall", agent, env=env))
    assert json.loads((home / rel).read_text()) == {
        **content, "addedByTheUser": {"while": "hindsight was installed"}}
    after = snapshot(home)
    assert {p for p in after if ".hindsight-orig" not in p} == set(before)
    assert {p: b for p, b in after.items() if p != rel} == {
        p: b for p, b in before.items() if p != rel}
    assert not any(b"-m hindsight" in b or b"hindsight.js" in b for b in after.values())
