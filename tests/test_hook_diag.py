"""Where hook diagnostics go: ``$HINDSIGHT_HOME/logs/hooks.jsonl`` (``logs/`` private),
``HINDSIGHT_DIAG_FILE`` instead when set, and never through a symlink planted at the path."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.hooks.runtime import diag_file, write_diag


def env_without_diag(home: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    e.update(HINDSIGHT_HOME=str(home), HINDSIGHT_DISABLE_HOOKS="1")
    return e


def run_hook(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "hindsight", "hook", "session-start"],
                          input=json.dumps({"session_id": "s1", "cwd": str(cwd)}), env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=60)


def test_default_is_in_the_home_with_private_logs(
        tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_DIAG_FILE", raising=False)
    path = hindsight_home / "logs" / "hooks.jsonl"
    assert diag_file() == str(path)
    assert stat.S_IMODE((hindsight_home / "logs").stat().st_mode) == 0o700
    write_diag({"event": "x"})
    assert [json.loads(x) for x in path.read_text().splitlines()] == [{"event": "x"}]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    # a hook run as the agents run it: the line lands in its home, not in $TMPDIR
    home = tmp_path / "other-home"
    r = run_hook({**env_without_diag(home), "TMPDIR": str(tmp_path / "tmp")}, tmp_path)
    assert r.returncode == 0, r.stderr
    [rec] = [json.loads(x) for x in (home / "logs" / "hooks.jsonl").read_text().splitlines()]
    assert (rec["event"], rec["skipped"]) == ("session-start", "HINDSIGHT_DISABLE_HOOKS")
    assert stat.S_IMODE((home / "logs").stat().st_mode) == 0o700
    assert not (tmp_path / "tmp").exists()


def test_an_existing_logs_dir_keeps_its_mode(
        hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_DIAG_FILE", raising=False)
    logs = hindsight_home / "logs"
    logs.mkdir()
    logs.chmod(0o755)
    write_diag({"event": "x"})
    assert (logs / "hooks.jsonl").exists()
    assert stat.S_IMODE(logs.stat().st_mode) == 0o755


def test_override(tmp_path: Path, hindsight_home: Path) -> None:
    target = tmp_path / "elsewhere" / "diag.jsonl"
    env = {**env_without_diag(hindsight_home), "HINDSIGHT_DIAG_FILE": str(target)}
    r = run_hook(env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(target.read_text())["event"] == "session-start"
    assert not (hindsight_home / "logs" / "hooks.jsonl").exists()


def test_a_planted_symlink_is_not_written_through(
        tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HINDSIGHT_DIAG_FILE", raising=False)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    logs = hindsight_home / "logs"
    logs.mkdir(mode=0o700)
    (logs / "hooks.jsonl").symlink_to(victim)
    write_diag({"event": "x"})  # dropped, silently
    r = run_hook(env_without_diag(hindsight_home), tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""
    assert victim.read_text() == "precious\n"
    assert (logs / "hooks.jsonl").is_symlink()
    # nor one at an overriding path
    link = tmp_path / "diag-link.jsonl"
    link.symlink_to(victim)
    write_diag({"event": "y"}, str(link))
    monkeypatch.setenv("HINDSIGHT_DIAG_FILE", str(link))
    write_diag({"event": "z"})
    assert victim.read_text() == "precious\n"
