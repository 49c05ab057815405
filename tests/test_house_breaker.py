"""Regressions from the break-it round after the restructuring: a dead embedding server
loses nothing, files the CLI writes or reads fail in one line, a repository's git config
runs nothing, a busy bank still answers recall, and the same rules hold on every path."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from histutil import Repo, fn

from hindsight.app import open_bank


def run(cwd: Path, *args: str, stdin: bytes | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", *args], cwd=cwd,
                       input=stdin, capture_output=True, timeout=120,
                       env={**os.environ, **(env or {})})
    return subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode(),
                                       p.stderr.decode())


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    r = Repo(tmp_path / "repo")
    r.write("a.py", fn("f", "return 1") + fn("g", "return f()"))
    r.write("b.py", fn("f", "return 2"))
    r.commit("two files")
    with open_bank(repo_root_path=str(r.path)) as b:
        b.code.index(workers=1)
        b.history.ingest()
    return r.path


DEAD = {"HINDSIGHT_EMBEDDER": "openai", "HINDSIGHT_EMBED_URL": "http://127.0.0.1:9/v1",
        "HINDSIGHT_EMBED_MODEL": "m"}


def test_a_dead_embedding_server_loses_no_memory(repo: Path) -> None:
    r = run(repo, "retain", "We decided to keep WAL mode", "--json", env=DEAD)
    assert r.returncode == 0, r.stderr
    assert "stored without a vector" in r.stderr and "hindsight reembed" in r.stderr
    assert json.loads(r.stdout)["warning"].startswith("stored without a vector")
    items = b'{"text": "Lesson: retries deadlocked"}\n{"text": "Convention: use pathlib"}\n'
    r = run(repo, "retain", "-", "--json", stdin=items, env=DEAD)
    assert r.returncode == 0 and json.loads(r.stdout)["count"] == 2, r.stderr
    r = run(repo, "memories", "--json")
    assert json.loads(r.stdout)["count"] == 3
    r = run(repo, "recall", "WAL mode", "--json", env=DEAD)
    assert r.returncode == 0 and json.loads(r.stdout)["hits"][0]["id"] == 1
    r = run(repo, "reembed", "--json")  # the hashing embedder fills the vectors in
    assert r.returncode == 0 and json.loads(r.stdout)["embedded"] == 3


def test_export_to_a_bad_place_is_one_line_and_keeps_the_old_file(repo: Path,
                                                                   tmp_path: Path) -> None:
    assert run(repo, "retain", "one memory").returncode == 0
    good = tmp_path / "out.jsonl"
    assert run(repo, "export", "--out", str(good)).returncode == 0
    before = good.read_bytes()
    full = Path("/dev/full")
    for where in (tmp_path / "no" / "such" / "dir.jsonl", tmp_path,
                  *([full] if full.is_char_device() else [])):
        r = run(repo, "export", "--out", str(where))
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"hindsight: {where}: cannot write")
    assert good.read_bytes() == before
    assert not full.exists() or full.is_char_device()  # a device is written, never replaced
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".export-")]


def test_import_of_a_file_that_is_not_utf8_names_the_line(repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'\n{"text": "caf\xe9"}\n')
    r = run(repo, "import", str(bad))
    assert r.returncode == 2 and r.stderr == f"hindsight: {bad} line 2: not UTF-8 (byte 14)\n"
    r = run(repo, "retain", "-", stdin=b'{"text": "caf\xe9"}\n')
    assert r.returncode == 2 and r.stderr == "hindsight: stdin line 1: not UTF-8 (byte 14)\n"
    assert json.loads(run(repo, "memories", "--json").stdout)["count"] == 0


@pytest.mark.parametrize(("occurred", "tz"), [("0001-01-01T00:30:00Z", "UTC"),
                                              ("9999-12-31T23:00:00Z", "Asia/Kolkata")])
def test_dates_at_the_edge_of_time_are_one_line(repo: Path, occurred: str, tz: str) -> None:
    r = run(repo, "retain", "-", stdin=json.dumps({"text": "x", "occurred": occurred}).encode(),
            env={"TZ": tz})
    assert r.returncode == 2 and "years 1 to 9999" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    r = run(repo, "retain", "y", env={"TZ": "Asia/Kolkata",
                                      "HINDSIGHT_NOW": "9999-12-31T23:59:59+00:00"})
    assert r.returncode == 2 and "HINDSIGHT_NOW" in r.stderr and "Traceback" not in r.stderr


def test_recall_answers_while_another_process_holds_the_write_lock(repo: Path) -> None:
    assert run(repo, "retain", "We decided to keep WAL mode").returncode == 0
    with open_bank(repo_root_path=str(repo)) as b:
        db = b.path
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # a writer in the middle of a long transaction
    try:
        r = run(repo, "recall", "WAL mode", "--json", env={"HINDSIGHT_BUSY_TIMEOUT_MS": "200"})
        assert r.returncode == 0, r.stderr
        assert [h["id"] for h in json.loads(r.stdout)["hits"]] == [1]
        r = run(repo, "retain", "another", env={"HINDSIGHT_BUSY_TIMEOUT_MS": "200"})
        assert r.returncode == 4 and r.stderr.startswith(f"hindsight: {db}: ")  # says where
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_empty_time_options_and_reversed_ranges_are_refused(repo: Path) -> None:
    for args in (["recall", "x", "--since", ""], ["recall", "x", "--until", ""],
                 ["trace-log", "--since", ""],
                 ["recall", "x", "--since", "2026-12-02", "--until", "2026-11-01"]):
        r = run(repo, *args)
        assert r.returncode == 2 and r.stderr.startswith("hindsight: --"), (args, r.stderr)


def test_why_only_reads_files_of_the_repository(repo: Path) -> None:
    for where in ("/etc/passwd:1", "../../etc/passwd:1"):
        r = run(repo, "why", where)
        assert r.returncode == 6 and "not a file under" in r.stderr or \
            "no such file" in r.stderr, r.stderr


def test_an_ambiguous_anchor_does_not_point_at_file(repo: Path) -> None:
    r = run(repo, "retain", "x", "--symbol", "f", "--file", "a.py")
    assert r.returncode == 7 and "(or --file)" not in r.stderr
    assert "a.py::f" in r.stderr and "b.py::f" in r.stderr


def test_a_repositorys_git_config_runs_nothing(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 0\n")
    evil.chmod(evil.stat().st_mode | stat.S_IEXEC)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(evil)], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "diff.evil.textconv", str(evil)],
                   check=True)
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    (repo / "a.py").write_text("# a comment line\n" + (repo / "a.py").read_text())
    for args in (["index"], ["ingest"], ["why", "a.py:1"], ["why", "a.py:2"],
                 ["status"], ["hotspots"]):
        assert run(repo, *args).returncode in (0, 6), args
    payload = json.dumps({"session_id": "s", "cwd": str(repo), "source": "startup"})
    assert run(repo, "hook", "session-start", stdin=payload.encode()).returncode == 0
    assert not marker.exists(), marker.read_text()


def test_recall_kinds_are_checked_on_every_interface(repo: Path) -> None:
    import anyio
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    server = build_mcp_server(lambda: open_bank(repo_root_path=str(repo)))
    got: list[Any] = []

    async def main() -> None:
        async with Client(server) as c:
            res = await c.call_tool("recall", {"text": "x", "kinds": ["bogus"]})
            got.append((res.is_error, res.content[0].text))

    anyio.run(main)
    assert got[0][0] is True and "kind 'bogus': one of experience" in got[0][1]


def test_recall_may_name_a_file_that_is_gone(repo: Path) -> None:
    """A filter or anchor of a query, unlike one of a new memory, need not exist: the
    memories of a deleted file stay findable by it."""
    assert run(repo, "retain", "b.py is slow", "--file", "b.py").returncode == 0
    (repo / "b.py").unlink()
    r = run(repo, "recall", "slow", "--file", "b.py", "--json")
    assert r.returncode == 0, r.stderr
    assert [h["id"] for h in json.loads(r.stdout)["hits"]] == [1]
    r = run(repo, "retain", "about a ghost", "--file", "ghost.py")
    assert r.returncode == 6 and "ghost.py: no such file" in r.stderr
