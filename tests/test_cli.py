"""The CLI as a user runs it: real subprocesses, real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import git, make_repo

REPO = {
    "svc/__init__.py": "",
    "svc/auth.py": ("def check(user):\n    return bool(user)\n\n\n"
                    "def login(user):\n    \"\"\"Log a user in.\"\"\"\n    if check(user):\n"
                    "        return session(user)\n\n\ndef session(user):\n    return token()\n\n\n"
                    "def token():\n    return 'x'\n"),
    "svc/api.py": "from svc.auth import login\n\n\ndef handle(req):\n    return login(req)\n",
}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=cwd,
                          capture_output=True, text=True, env=os.environ.copy(), timeout=120)


def test_index_and_queries(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", REPO)
    r = run("symbols", "login", cwd=repo)
    assert r.returncode == 5 and "hindsight index" in r.stderr  # never indexed
    r = run("index", "--json", cwd=repo)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["files_parsed"] == 3 and data["symbols"] == 5 and data["full"] is True
    assert "\x1b" not in r.stdout  # no progress bar when not a terminal
    r = run("symbols", "login", "--json", cwd=repo)
    hits = json.loads(r.stdout)
    assert hits["match"] == "exact"
    assert [(s["qname"], s["start_line"], s["end_line"], s["doc"]) for s in hits["symbols"]] == [
        ("svc/auth.py::login", 5, 8, "Log a user in.")]
    r = run("symbols", "ses", "--json", cwd=repo)
    assert json.loads(r.stdout)["match"] == "prefix"
    r = run("symbols", "ogi", "--json", cwd=repo)
    assert [s["name"] for s in json.loads(r.stdout)["symbols"]] == ["login"]
    r = run("symbols", "nothing_like_this", cwd=repo)
    assert r.returncode == 6 and "no symbol" in r.stderr
    r = run("callers", "token", "--depth", "3", "--json", cwd=repo)
    got = [(h["depth"], h["qname"], h["line"]) for h in json.loads(r.stdout)["callers"]]
    assert got == [(1, "svc/auth.py::session", 12), (2, "svc/auth.py::login", 8),
                   (3, "svc/api.py::handle", 5)]
    r = run("callees", "handle", "--depth", "2", "--json", cwd=repo)
    got = [(h["depth"], h["qname"]) for h in json.loads(r.stdout)["callees"]]
    assert got == [(1, "svc/auth.py::login"), (2, "svc/auth.py::check"),
                   (2, "svc/auth.py::session")]
    r = run("trace", "--start", "handle", "--depth", "3", cwd=repo)
    assert r.returncode == 0
    assert "`svc/auth.py::token` (function) — svc/auth.py:15-16" in r.stdout
    assert "def session(user):" in r.stdout
    r = run("trace", "--start", "handle", "--format", "json", cwd=repo)
    out = json.loads(r.stdout)
    assert (out["start"], out["depth"]) == ("svc/api.py::handle", 3)
    assert out["tree"]["children"][0]["name"] == "svc/auth.py::login"
    r = run("callers", "missing_fn", cwd=repo)
    assert r.returncode == 6
    r = run("status", "--json", cwd=repo)
    st = json.loads(r.stdout)
    assert st["files"] == 3 and st["changed_since"] == 0 and len(st["indexed_commit"]) == 40
    r = run("debug", "--file", "svc/api.py", "--json", cwd=repo)
    dbg = json.loads(r.stdout)
    assert [i["module"] for i in dbg["imports"]] == ["svc.auth"]
    assert r.returncode == 0


def test_ambiguous_and_bad_args(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {"a.py": "def f():\n    pass\n", "b.py": "def f():\n    f()\n"})
    assert run("index", cwd=repo).returncode == 0
    r = run("callers", "f", cwd=repo)
    assert r.returncode == 7 and "a.py::f" in r.stderr and "b.py::f" in r.stderr
    r = run("callers", "f", "--file", "b.py", "--json", cwd=repo)
    assert [h["qname"] for h in json.loads(r.stdout)["callers"]] == ["b.py::f"]
    r = run("index", "--repo-root", str(tmp_path / "nope"))
    assert r.returncode == 2 and "not a directory" in r.stderr
    r = run("trace", "--start", "f", "--format", "xml", "--file", "a.py", cwd=repo)
    assert r.returncode == 2


def test_locked_database_is_a_clear_error(tmp_path: Path) -> None:
    import sqlite3

    repo = make_repo(tmp_path / "p", {"a.py": "def f():\n    pass\n"})
    assert run("index", cwd=repo).returncode == 0
    db = json.loads(run("init", "--json", cwd=repo).stdout)["database"]
    conn = sqlite3.connect(db)
    conn.execute("BEGIN EXCLUSIVE")
    env = {**os.environ, "HINDSIGHT_BUSY_TIMEOUT_MS": "200"}
    r = subprocess.run([sys.executable, "-m", "hindsight", "index", "--full"], cwd=repo,
                       capture_output=True, text=True, env=env, timeout=120)
    conn.rollback()
    conn.close()
    assert r.returncode == 4, r.stderr
    assert "locked" in r.stderr and r.stderr.count("\n") == 1
    r = run("symbols", "f", "--json", cwd=repo)  # nothing lost
    assert json.loads(r.stdout)["symbols"][0]["qname"] == "a.py::f"


def test_paths_flags_and_unresolved_callers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {
        "lib/b.py": "def f():\n    return 1\n",  # namespace package: no __init__.py
        "app/main.py": "import lib.b\n\n\ndef run():\n    return lib.b.f()\n\n\n"
                       "def other(x):\n    return x.f()\n",
    })
    assert run("index", cwd=repo).returncode == 0
    r = run("callers", "f", "--json", cwd=repo)
    assert [(h["qname"], h["resolved"]) for h in json.loads(r.stdout)["callers"]] == [
        ("app/main.py::run", True)]
    r = run("callers", "f", "--include-unresolved", "--json", cwd=repo)
    got = [(h["qname"], h["resolved"], h["edge_dst"]) for h in json.loads(r.stdout)["callers"]]
    assert got == [("app/main.py::other", False, "?f"), ("app/main.py::run", True, "lib/b.py::f")]
    r = run("symbols", "f", "--file", "./lib/b.py", "--json", cwd=repo)
    assert json.loads(r.stdout)["symbols"][0]["qname"] == "lib/b.py::f"
    r = run("symbols", "f", "--file", "b.py", "--json", cwd=repo / "lib")
    assert r.returncode == 0 and json.loads(r.stdout)["symbols"][0]["qname"] == "lib/b.py::f"
    r = run("debug", "--file", "nope.py", cwd=repo)
    assert r.returncode == 6 and "no such file" in r.stderr
    r = run("trace", "--start", "run", "--json", cwd=repo)
    assert json.loads(r.stdout)["tree"]["children"][0]["name"] == "lib/b.py::f"


def test_status_lists_problem_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {"ok.py": "def f():\n    pass\n",
                                      "bad.py": "def g(:\n    pass\n",
                                      "blob.py": b"\x00\x01binary"})
    assert run("index", cwd=repo).returncode == 0
    r = run("status", "--files", "--json", cwd=repo)
    got = json.loads(r.stdout)["problem_files"]
    assert [g["path"] for g in got] == ["bad.py", "blob.py"]
    assert got[0]["reason"].endswith("line 1") and got[1]["reason"] == "binary"
    r = run("status", "--files", cwd=repo)
    assert "blob.py" in r.stdout and r.returncode == 0


def test_case_insensitive_search_beyond_ascii(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {"e.py": "def getÉtat():\n    pass\n"})
    assert run("index", cwd=repo).returncode == 0
    for q, how in (("getÉtat", "exact"), ("getét", "prefix"), ("éta", "substring")):
        r = run("symbols", q, "--json", cwd=repo)
        d = json.loads(r.stdout)
        assert (d["match"], [s["name"] for s in d["symbols"]]) == (how, ["getÉtat"]), q


def test_status_counts_files_committed_but_not_indexed(tmp_path: Path) -> None:
    """A file committed after the last ``index`` makes the index stale: ``status`` counts
    it (it used to say fresh, comparing only the indexed files)."""
    repo = make_repo(tmp_path / "p", {"a.py": "def f():\n    pass\n"})
    assert run("index", cwd=repo).returncode == 0
    st = json.loads(run("status", "--json", cwd=repo).stdout)
    assert (st["fresh"], st["changed_since"]) == (True, 0)
    (repo / "b.py").write_text("def g():\n    pass\n")
    (repo / "notes.txt").write_text("not source\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "b")
    st = json.loads(run("status", "--json", cwd=repo).stdout)
    assert (st["fresh"], st["changed_since"]) == (False, 1)
    assert run("index", cwd=repo).returncode == 0
    st = json.loads(run("status", "--json", cwd=repo).stdout)
    assert (st["fresh"], st["changed_since"]) == (True, 0)
