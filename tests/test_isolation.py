"""Opening a repository never runs its code: every command ``install`` writes (Claude Code
hooks and MCP entry, Codex hooks and MCP entry, git hooks) and every detached worker runs
hindsight with the working directory off ``sys.path``, and with the ``HINDSIGHT_HOME`` /
``HINDSIGHT_CONFIG`` of the install.

The repository here is hostile: its top-level ``hindsight/`` package and ``types.py``,
``json.py``, ``enum.py`` leave a marker file when imported (the modules then raise). The
written commands are read back from the agents' config files and run as the agents run
them: hook commands through a shell with a payload on stdin, MCP servers spawned with
their ``env`` and spoken to by the official client, git hooks by git's own rules; each with
``cwd`` = the repository and another ``HINDSIGHT_HOME``/``HINDSIGHT_CONFIG`` in the
environment than the install had."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from ccfixture import Transcript
from conftest import FIXTURES, git, make_repo

PY = sys.executable
SHADOWS = ("types", "json", "enum")  # standard modules the hostile repository shadows


def hostile_files(markers: Path) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "hindsight/__init__.py": f"open({str(markers / 'hindsight')!r}, 'w').close()\n",
        "app.py": "def handler():\n    return 1\n",
    }
    for name in SHADOWS:
        files[f"{name}.py"] = (f"open({str(markers / name)!r}, 'w').close()\n"
                               f"raise RuntimeError('the repository\\'s {name}.py ran')\n")
    return files


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Any]:
    """Install everything into throwaway config dirs with a pinned home and config file;
    return the paths and the environment the agents run the commands with."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = make_repo(tmp_path / "evil", hostile_files(markers))
    home, config = tmp_path / "installed-home", tmp_path / "installed.json"
    # bankId makes the use of this config visible; hookSync and seed off keep it in the
    # foreground (the detached worker is tested on its own below)
    config.write_text(json.dumps({"bankId": "pinned-bank", "embedder": "hashing",
                                  "seed": False, "hookSync": True}))
    claude, codex = tmp_path / "claude", tmp_path / "codex"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("HINDSIGHT_", "CLAUDE_"))}
    install_env = {**base, "HINDSIGHT_HOME": str(home), "HINDSIGHT_CONFIG": str(config),
                   "CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex),
                   "HOME": str(tmp_path)}
    for args in (["install", "claude-code"], ["install", "codex"],
                 ["hooks", "install-git", "--repo-root", str(repo)]):
        r = subprocess.run([PY, "-P", "-m", "hindsight", *args], env=install_env,
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (args, r.stderr)
    decoy = tmp_path / "decoy-home"
    decoy_config = tmp_path / "decoy.json"
    decoy_config.write_text(json.dumps({"bankId": "decoy-bank", "embedder": "hashing"}))
    run_env = {**base, "HINDSIGHT_HOME": str(decoy), "HINDSIGHT_CONFIG": str(decoy_config),
               "HOME": str(tmp_path)}
    return {"repo": repo, "markers": markers, "home": home, "decoy": decoy, "claude": claude,
            "codex": codex, "env": run_env, "tmp": tmp_path}


def no_markers(s: dict[str, Any]) -> None:
    assert sorted(p.name for p in s["markers"].iterdir()) == []


def hook_commands(settings: Path) -> dict[str, str]:
    """event -> the one command of ours in an agent's hooks file."""
    data = json.loads(settings.read_text())
    out = {}
    for event, groups in data["hooks"].items():
        [cmd] = [h["command"] for g in groups for h in g["hooks"]]
        out[event] = cmd
    return out


def run_hook(cmd: str, payload: dict[str, Any], s: dict[str, Any]
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", cmd], input=json.dumps(payload), env=s["env"],
                          cwd=s["repo"], capture_output=True, text=True, timeout=120)


def diag_lines(home: Path) -> list[dict[str, Any]]:
    p = home / "logs" / "hooks.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def test_the_repository_is_hostile_to_plain_dash_m(setup: dict[str, Any]) -> None:
    """What the previous release wrote (``<python> -m hindsight hook …``) fails here: the
    repository's code runs. Without this the other tests would prove nothing."""
    s = setup
    r = run_hook(f"{PY} -m hindsight hook stop", {"session_id": "x", "cwd": str(s["repo"])}, s)
    assert r.returncode != 0
    assert (s["markers"] / "types").exists()
    (s["repo"] / "types.py").unlink()
    for name in ("json", "enum"):
        (s["repo"] / f"{name}.py").unlink()
    run_hook(f"{PY} -m hindsight hook stop", {"session_id": "x", "cwd": str(s["repo"])}, s)
    assert (s["markers"] / "hindsight").exists()


def test_claude_code_and_codex_hooks_run_isolated_with_the_installed_home(
        setup: dict[str, Any]) -> None:
    s = setup
    repo, cwd = s["repo"], str(s["repo"])
    t = Transcript(s["tmp"] / "t" / "sess-1.jsonl", "sess-1", cwd)
    t.user("Always use pathlib, never os.path, in this repo.")
    t.say("Understood, I will use pathlib.")
    transcript = str(t.write())
    rollout = s["tmp"] / "rollout.jsonl"
    shutil.copy(next((FIXTURES / "transcripts" / "codex").rglob("rollout-*.jsonl")), rollout)

    claude = hook_commands(s["claude"] / "settings.json")
    assert sorted(claude) == ["PostToolUse", "PreCompact", "SessionEnd", "SessionStart",
                              "Stop", "UserPromptSubmit"]
    codex = hook_commands(s["codex"] / "hooks.json")
    assert sorted(codex) == ["PostToolUse", "SessionEnd", "Stop"]
    common = {"session_id": "sess-1", "transcript_path": transcript, "cwd": cwd}
    runs = [
        (claude["SessionStart"], {**common, "hook_event_name": "SessionStart",
                                  "source": "startup"}),
        (claude["UserPromptSubmit"], {**common, "hook_event_name": "UserPromptSubmit",
                                      "prompt": "should I use pathlib here?"}),
        (claude["Stop"], {**common, "hook_event_name": "Stop", "stop_hook_active": False}),
        (claude["PreCompact"], {**common, "hook_event_name": "PreCompact",
                                "trigger": "auto", "custom_instructions": ""}),
        (claude["SessionEnd"], {**common, "hook_event_name": "SessionEnd",
                                "reason": "exit"}),
        (claude["PostToolUse"], {**common, "hook_event_name": "PostToolUse",
                                 "tool_name": "Write", "tool_input": {
                                     "file_path": f"{cwd}/notes.md", "content": "x"}}),
        (codex["Stop"], {"session_id": "codex-1", "transcript_path": str(rollout),
                         "cwd": cwd, "hook_event_name": "Stop", "model": "gpt-5-codex",
                         "turn_id": "1", "stop_hook_active": False}),
        (codex["SessionEnd"], {"session_id": "codex-1", "transcript_path": str(rollout),
                               "cwd": cwd, "hook_event_name": "SessionEnd"}),
        (codex["PostToolUse"], {"session_id": "codex-1", "transcript_path": str(rollout),
                                "cwd": cwd, "hook_event_name": "PostToolUse",
                                "tool_name": "apply_patch", "tool_input": {
                                    "command": "*** Begin Patch\n*** Add File: notes.md\n"
                                               "+x\n*** End Patch\n"}}),
    ]
    for cmd, payload in runs:
        r = run_hook(cmd, payload, s)
        assert r.returncode == 0, (cmd, r.stderr)
        assert "Traceback" not in r.stderr, r.stderr
        no_markers(s)
    assert not s["decoy"].exists()  # nothing went to the home of the environment
    every = diag_lines(s["home"])
    assert [d for d in every if d["error"]] == []
    diag = [d for d in every if d["event"] != "drain"]  # the write-back's own lines
    assert [(d["event"], d["harness"]) for d in diag] == [
        ("session-start", "claude-code"), ("user-prompt-submit", "claude-code"),
        ("stop", "claude-code"), ("pre-compact", "claude-code"),
        ("session-end", "claude-code"), ("edit", "claude-code"), ("stop", "codex"),
        ("session-end", "codex"), ("edit", "codex")]
    assert {d["bank"] for d in diag} == {"pinned-bank"}  # the installed config file
    assert (s["home"] / "banks" / "pinned-bank.db").exists()
    assert repo.joinpath("types.py").exists()  # nothing was "fixed" by deleting it


def test_mcp_entries_answer_initialize_isolated(setup: dict[str, Any]) -> None:
    from mcp import Client, StdioServerParameters

    s = setup
    claude = json.loads((s["claude"] / ".claude.json").read_text())["mcpServers"]["hindsight"]
    codex = tomllib.loads((s["codex"] / "config.toml").read_text())["mcp_servers"]["hindsight"]
    pinned = {"HINDSIGHT_HOME": str(s["home"]),
              "HINDSIGHT_CONFIG": str(s["tmp"] / "installed.json")}
    for entry in (claude, codex):
        assert entry["env"] == pinned
        # the agent starts the server with its own environment plus the entry's env
        params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                       env={**s["env"], **entry["env"]}, cwd=str(s["repo"]))

        async def talk(p: StdioServerParameters = params) -> dict[str, Any]:
            async with Client(p) as c:  # the client sends initialize and waits for it
                tools = await c.list_tools()
                assert {"recall", "retain", "status"} <= {t.name for t in tools.tools}
                res = await c.call_tool("status", {})
                assert not res.is_error, res.content[0].text
                assert isinstance(res.structured_content, dict)
                return res.structured_content

        status = anyio.run(talk)
        assert "pinned-bank" in json.dumps(status)
        no_markers(s)
    assert not s["decoy"].exists()


def test_git_hooks_run_isolated_with_the_installed_home(setup: dict[str, Any]) -> None:
    s = setup
    repo = s["repo"]
    hooks = repo / ".git" / "hooks"
    head = git(repo, "rev-parse", "HEAD").strip()
    calls = [("post-commit", ""), ("post-checkout", f" {head} {head} 1"),
             ("post-merge", " 0"), ("post-rewrite", " amend")]
    for name, args in calls:
        text = (hooks / name).read_text()
        assert f"HINDSIGHT_HOME={s['home']}" in text and " -P -m hindsight " in text
        r = subprocess.run(["bash", "-c", f"{hooks / name}{args}"], input="", env=s["env"],
                           cwd=repo, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (name, r.stderr)
    # and by git itself, on a commit
    (repo / "app.py").write_text("def handler():\n    return 2\n")
    git(repo, "commit", "-qam", "change")
    log = s["home"] / "logs" / "git-hooks.log"
    end = time.time() + 60
    lines: list[dict[str, Any]] = []
    while time.time() < end and len(lines) < len(calls) + 1:
        time.sleep(0.1)
        lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    assert len(lines) == len(calls) + 1, lines
    assert {rec["bank"] for rec in lines} == {"pinned-bank"}
    assert {rec["outcome"] for rec in lines} <= {"ok", "another run is active; it will go "
                                                       "round again"}
    assert "ok" in {rec["outcome"] for rec in lines}
    no_markers(s)
    assert not s["decoy"].exists()


def test_spawned_worker_does_not_import_the_repository(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hindsight_home: Path) -> None:
    from hindsight.hooks.runtime import spawn

    markers = tmp_path / "markers"
    markers.mkdir()
    repo = make_repo(tmp_path / "evil", hostile_files(markers))
    monkeypatch.chdir(repo)
    pid = spawn(["--help"], "spawn-test.log")
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # already reaped by subprocess's own bookkeeping
        end = time.time() + 30
        while time.time() < end and "Usage" not in (
                hindsight_home / "logs" / "spawn-test.log").read_text():
            time.sleep(0.05)
    out = (hindsight_home / "logs" / "spawn-test.log").read_text()
    assert "Usage" in out, out
    assert list(markers.iterdir()) == []
