"""A ``HINDSIGHT_HOME`` that cannot be written (a read-only mount; fresh-user run of
session 35): queries answer from the bank opened read-only and say so once on stderr;
commands that write exit 4 with the reason and the bank is left as it was.

The read-only mount is made in a private mount namespace (``unshare -m``, root only):
a bind mount of the home onto itself, remounted read-only, then the CLI runs inside it.
Outside, the home stays writable; nothing leaks to other tests."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo, fn


def _ro(home: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``hindsight args`` run with ``home`` mounted read-only (only for this process)."""
    h = shlex.quote(str(home))
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "hindsight", *args])
    script = f"mount --bind {h} {h} && mount -o remount,bind,ro {h} && exec {cmd}"
    env = {**os.environ, "HINDSIGHT_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


def _rw(home: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HINDSIGHT_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "hindsight", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


@pytest.fixture
def bank(tmp_path: Path) -> tuple[Path, Path]:
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {tmp_path} {tmp_path}"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here (root only): {probe.stderr.strip()}")
    r = Repo(tmp_path / "r")
    r.write("a.py", fn("helper") + fn("main", "return helper()"))
    r.commit("add a")
    home = tmp_path / "home"
    assert _rw(home, ["index"], r.path).returncode == 0
    assert _rw(home, ["retain", "we decided to keep the bank in sqlite"], r.path).returncode == 0
    return home, r.path


def test_queries_answer_from_a_read_only_home(bank: tuple[Path, Path]) -> None:
    home, repo = bank
    out = _ro(home, ["callers", "helper", "--json"], repo)
    assert out.returncode == 0, out.stderr
    assert [c["qname"] for c in json.loads(out.stdout)["callers"]] == ["a.py::main"]
    assert out.stderr.count("opened read-only (its directory cannot be written)") == 1
    out = _ro(home, ["recall", "sqlite", "--json"], repo)
    assert out.returncode == 0, out.stderr
    texts = [m["text"] for m in json.loads(out.stdout)["hits"]]
    assert texts == ["we decided to keep the bank in sqlite"]
    out = _ro(home, ["status", "--json"], repo)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["symbols"] == 2


def test_writes_to_a_read_only_home_fail_cleanly_and_lose_nothing(
        bank: tuple[Path, Path]) -> None:
    home, repo = bank
    out = _ro(home, ["retain", "another decision"], repo)
    assert out.returncode == 4, out.stderr
    assert "attempt to write a readonly database" in out.stderr
    assert "Traceback" not in out.stderr
    (repo / "a.py").write_text(fn("helper") + fn("main", "return helper() + 1"))
    out = _ro(home, ["index"], repo)
    assert out.returncode == 4, out.stderr
    assert "cannot take this bank's index lock: Read-only file system" in out.stderr
    assert "Traceback" not in out.stderr
    # writable again: the bank is the one from before, and takes writes
    out = _rw(home, ["recall", "sqlite", "--json"], repo)
    assert [m["text"] for m in json.loads(out.stdout)["hits"]] == [
        "we decided to keep the bank in sqlite"]
    assert _rw(home, ["retain", "another decision"], repo).returncode == 0
