"""`hindsight import claude-code|codex` and the Codex stop hook, as real subprocesses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from ccfixture import Transcript
from histutil import Repo, fn

from hindsight.sessions.locations import project_dir_name

FIX = Path(__file__).parent / "fixtures" / "transcripts"
ROLLOUT = next((FIX / "codex").rglob("rollout-*.jsonl"))


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("HINDSIGHT_", "CLAUDE_",
                                                                   "CODEX_"))}
    e.update(HINDSIGHT_HOME=str(tmp_path / "hs"), HINDSIGHT_EMBEDDER="hashing",
             HINDSIGHT_DIAG_FILE=str(tmp_path / "diag.jsonl"), HINDSIGHT_SEED="0",
             HINDSIGHT_HOOK_SYNC="1", CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
             CODEX_HOME=str(tmp_path / "codex"))
    return e


@pytest.fixture()
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "proj")
    r.write("src/auth.py", fn("check_login"))
    r.commit("init")
    return r


def run(args: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], input=stdin, env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def rows(env: dict[str, str]) -> list[tuple[str, str, str]]:
    con = sqlite3.connect(next((Path(env["HINDSIGHT_HOME"]) / "banks").glob(
        "coding-agent_proj-*.db")))
    try:
        return list(con.execute("SELECT kind, agent, text FROM memories ORDER BY id"))
    finally:
        con.close()


def rollout_for(repo: Repo, dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(ROLLOUT.read_text().replace("/home/dev/proj", str(repo.path)))
    return dest


def test_import_codex_only_this_repository_and_idempotent(env: dict[str, str], repo: Repo,
                                                          tmp_path: Path) -> None:
    sessions = tmp_path / "codex" / "sessions" / "2025" / "10" / "03"
    rollout_for(repo, sessions / "rollout-2025-10-03T10-00-00-aaaa.jsonl")
    other = sessions / "rollout-2025-10-03T11-00-00-bbbb.jsonl"
    other.write_text(ROLLOUT.read_text())  # cwd /home/dev/proj: another repository
    r = run(["import", "codex", "--json"], env, repo.path)
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)
    assert first["files"] == 1 and first["retained"] >= 2
    got = rows(env)
    assert {a for _, a, _ in got} == {"codex"}
    texts = "\n".join(t for _, _, t in got)
    assert "Make the login test pass. We decided to keep bcrypt for hashing." in texts
    for planted in ("DEVELOPER-SHOULD-NOT-APPEAR", "AGENTS-SHOULD-NOT-APPEAR",
                    "REASONING-SHOULD-NOT-APPEAR", "TOOL-OUTPUT-SHOULD-NOT-APPEAR",
                    "UNKNOWN-TYPE-SHOULD-NOT-APPEAR"):
        assert planted not in texts
    assert ("decision", "codex", "We decided to keep bcrypt for hashing.") in got
    again = json.loads(run(["import", "codex", "--json"], env, repo.path).stdout)
    assert (again["retained"], len(rows(env))) == (0, len(got))


def test_import_claude_code_project_transcripts(env: dict[str, str], repo: Repo,
                                                tmp_path: Path) -> None:
    d = tmp_path / "claude" / "projects" / project_dir_name(str(repo.path))
    t = Transcript(d / "11111111-aaaa.jsonl", "11111111-aaaa", str(repo.path))
    t.user("We decided to log every failed login attempt.")
    t.say("OK.")
    t.write()
    side = d / "11111111-aaaa" / "subagents" / "agent-1.jsonl"
    side.parent.mkdir(parents=True)
    side.write_text(json.dumps({"type": "user", "isSidechain": True, "message": {
        "role": "user", "content": "SUBAGENT-SHOULD-NOT-APPEAR"}}) + "\n")
    r = run(["import", "claude-code"], env, repo.path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1 transcripts read, 2 memories retained, 0 already there"
    assert [k for k, _, _ in rows(env)] == ["conversation", "decision"]
    r = run(["import", "claude-code"], env, repo.path)
    assert r.stdout.strip() == "1 transcripts read, 0 memories retained, 0 already there"
    assert "SUBAGENT" not in "".join(t for _, _, t in rows(env))


def test_codex_stop_hook_reads_the_rollout(env: dict[str, str], repo: Repo,
                                           tmp_path: Path) -> None:
    path = rollout_for(repo, tmp_path / "r.jsonl")
    payload = json.dumps({"session_id": "0199a1b2", "transcript_path": str(path),
                          "cwd": str(repo.path), "hook_event_name": "Stop"})
    for _ in range(2):
        r = run(["hook", "stop", "--harness", "codex"], env, repo.path, payload)
        assert (r.returncode, r.stdout) == (0, "")
    got = rows(env)
    assert got[0] == ("conversation", "codex",
                      "User: Make the login test pass. We decided to keep bcrypt for hashing.\n"
                      "Assistant: The password check compares the wrong field; I'll fix "
                      "src/auth.py.\nFixed: the login test passes now.\n"
                      "Actions: Shell: pytest -q tests/test_login.py (failed); apply_patch: "
                      "src/auth.py; Shell: pytest -q tests/test_login.py; Shell: git status "
                      "--short")
    assert len([g for g in got if g[0] == "conversation"]) == 1


def test_import_outside_a_bank_is_a_clear_error(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "hs").mkdir()
    (tmp_path / "hs" / "config.json").write_text('{"disabled": true}')
    r = run(["import", "codex"], env, tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() == f"hindsight: {tmp_path}: no bank (disabled in config)"


def test_import_skips_another_projects_sessions_in_a_shared_folder(
        env: dict[str, str], tmp_path: Path) -> None:
    mine = Repo(tmp_path / "foo-bar")
    mine.write("a.py", fn("a"))
    mine.commit("init")
    d = tmp_path / "claude" / "projects" / project_dir_name(str(mine.path))
    other = Transcript(d / "o.jsonl", "o", str(tmp_path / "foo bar"))  # same folder name
    other.user("SECRET-PLAN of the other project")
    other.write()
    ours = Transcript(d / "m.jsonl", "m", str(mine.path))
    ours.user("our own prompt")
    ours.write()
    r = run(["import", "claude-code", "--json"], env, mine.path)
    out = json.loads(r.stdout)
    assert (out["files"], out["retained"]) == (1, 1)
    assert out["errors"][0].endswith(f"ran in {tmp_path / 'foo bar'}, not in this project; "
                                     "skipped")
    con = sqlite3.connect(next((Path(env["HINDSIGHT_HOME"]) / "banks").glob(
        "coding-agent_foo-bar*.db")))
    try:
        assert [r[0] for r in con.execute("SELECT text FROM memories")] == [
            "User: our own prompt"]
    finally:
        con.close()
