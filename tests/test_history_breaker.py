"""Regressions from a break-it session on history and the edit trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from histutil import BASE, Repo, fn, git

from hindsight.app import open_bank
from hindsight.errors import ConfigError

CLI = [sys.executable, "-m", "hindsight"]


def ingested_repo(path: Path, file: str) -> Repo:
    """A one-commit repository with ``file`` defining ``a()``, indexed and ingested through
    the CLI as a user would."""
    r = Repo(path)
    r.write(file, fn("a"))
    r.commit("c1")
    for cmd in ("index", "ingest"):
        subprocess.run([*CLI, cmd], cwd=r.path, check=True, capture_output=True)
    return r


def test_odd_commit_encodings_are_read(tmp_path: Path) -> None:
    r = Repo(tmp_path / "enc")
    r.write("a.py", fn("a"))
    r.commit("c1")
    for i, enc in enumerate(("utf-7", "undefined", "idna"), 2):
        git(r.path, "-c", f"i18n.commitEncoding={enc}", "commit", "-q", "--allow-empty",
            "-m", "hello +2D0- world", n=i)
    with open_bank(str(r.path)) as b:
        st = b.history.ingest()
        assert st.ingested == 4
        subjects = [s for (s,) in b.stores.raw.execute("SELECT subject FROM commits")]
        assert len(subjects) == 4 and all(isinstance(s, str) for s in subjects)


def test_file_name_ending_in_tab_does_not_shift_other_commits(tmp_path: Path) -> None:
    r = Repo(tmp_path / "tab")
    r.write("a.py", fn("a"))
    r.commit("c1")
    (r.path / "notes\t").write_text("x")
    r.write("a.py", fn("a", "return 2"))
    r.commit("c2")
    r.commit("c3")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        assert [(e.subject, e.change) for e in b.history.history("a")["entries"]] == [
            ("c2", "modified"), ("c1", "added")]
        rows = b.stores.raw.execute("SELECT path, added FROM commit_files WHERE sha=? ORDER BY path",
                              (r.shas[2],)).fetchall()
        assert rows == [("a.py", 1), ("notes\t", 1)]


def test_same_second_commits_read_in_two_runs_keep_their_order(tmp_path: Path) -> None:
    r = Repo(tmp_path / "same")
    for i in range(1, 7):
        r.write("a.py", fn("a", f"return {i}"))
        git(r.path, "add", "-A")
        git(r.path, "commit", "-q", "-m", f"c{i}", n=0)  # all in the same second
        r.shas[i] = git(r.path, "rev-parse", "HEAD").strip()
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(limit=2)
        b.history.ingest(all_=True)
        assert [e.subject for e in b.history.history("a")["entries"]] == [f"c{i}" for i in
                                                                 range(6, 0, -1)]
        assert b.history.why("a.py", 2)["last"]["subject"] == "c6"


def test_unshallow_then_all_fills_the_boundary(tmp_path: Path) -> None:
    r = Repo(tmp_path / "src")
    for i in range(1, 6):
        r.write("a.py", fn("a", f"return {i}"))
        r.commit(f"c{i}")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{r.path}", str(clone))
    with open_bank(str(clone)) as b:
        b.code.index()
        assert b.history.ingest().partial == "shallow"
        git(clone, "fetch", "-q", "--unshallow")
        st = b.history.ingest(all_=True)
        assert st.partial == ""
        assert [e.subject for e in b.history.history("a")["entries"]] == [
            "c5", "c4", "c3", "c2", "c1"]
        assert b.status()["history"]["boundary_commits"] == 0


def test_raising_the_huge_limit_expands_old_huge_commits(tmp_path: Path) -> None:
    r = Repo(tmp_path / "h")
    for i in range(4):
        r.write(f"m{i}.py", fn(f"m{i}"))
    r.commit("four files")
    with open_bank(str(r.path)) as b:
        b.code.index()
        assert b.history.ingest(huge=2).huge == 1
        st = b.history.ingest(huge=10)
        assert (st.ingested, st.expanded, st.huge) == (1, 1, 0)
        assert [e.change for e in b.history.history("m0")["entries"]] == ["added"]


def test_hooks_find_their_repository_when_run(tmp_path: Path) -> None:
    shared = tmp_path / "shared-hooks"
    repos = []
    for name in ("hpA", "hpB"):
        r = Repo(tmp_path / name)
        git(r.path, "config", "core.hooksPath", str(shared))
        r.write("a.py", fn("a"))
        r.commit("c1")
        repos.append(r)
    for r in repos:
        subprocess.run([*CLI, "hooks", "install-git"], cwd=r.path, check=True,
                       capture_output=True)
    a = repos[0]
    (a.path / "a.py").write_text(fn("a", "return 2"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "commit", "-qam", "c2"], cwd=a.path, env=env, check=True)
    log = Path(os.environ["HINDSIGHT_HOME"]) / "logs" / "git-hooks.log"
    end = time.time() + 20
    while time.time() < end and not (log.exists() and '"outcome": "ok"' in log.read_text()):
        time.sleep(0.05)
    rec = json.loads(log.read_text().splitlines()[-1])
    assert (rec["root"], rec["outcome"]) == (str(a.path), "ok")


def test_numbers_and_dates_out_of_range_are_one_line(tmp_path: Path) -> None:
    r = ingested_repo(tmp_path / "n", "a.py")
    ok = subprocess.run([*CLI, "hotspots", "--days", "999999", "--json"], cwd=r.path,
                        capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["files"][0]["path"] == "a.py"
    ok = subprocess.run([*CLI, "trace-log", "--since", "0001-01-01", "--json"], cwd=r.path,
                        capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout) == {"events": [], "count": 0}
    for args in (["hotspots", "--days", "9" * 20], ["trace-log", "--since", "9" * 30 + "d"],
                 ["trace-log", "--limit", "9" * 20], ["why", "a.py:" + "9" * 5000],
                 ["ingest", "--all", "--limit", "5"]):
        p = subprocess.run([*CLI, *args], cwd=r.path, capture_output=True, text=True)
        assert p.returncode == 2 and "Traceback" not in p.stderr, (args[:2], p.stderr)


def test_why_file_name_with_newline(tmp_path: Path) -> None:
    r = ingested_repo(tmp_path / "nl", "new\nline.py")
    p = subprocess.run([*CLI, "why", "new\nline.py:2", "--json"], cwd=r.path,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["symbol"]["qname"] == "new\nline.py::a"


def test_record_edit_refuses_non_files_and_bad_types(tmp_path: Path) -> None:
    r = Repo(tmp_path / "re")
    r.write("a.py", fn("a"))
    r.commit("c1")
    with open_bank(str(r.path)) as b:
        for path in (".", "", b.root, ".git/config", "a\0b.py"):
            with pytest.raises(ConfigError):
                b.history.record_edit(path, "a", "b", refresh_index=False)
        with pytest.raises(ConfigError):
            b.history.record_edit(None, "a", "b")  # type: ignore[arg-type]
        with pytest.raises(ConfigError):
            b.history.record_edit("a.py", 1, "b")  # type: ignore[arg-type]
        assert b.history.record_edit("a.py", "same", "same", refresh_index=False) is None
        ev = b.history.record_edit("a.py", "x = '\ud800'\n", "x = 1\n", session=None,  # type: ignore[arg-type]
                           refresh_index=False)
        assert ev is not None and ev["session"] == ""
        assert len(b.history.trace_log()) == 1


def test_rename_there_and_back_counts_under_the_current_name(tmp_path: Path) -> None:
    r = Repo(tmp_path / "cyc")
    r.write("x.py", fn("a"))
    r.commit("c1")
    r.mv("x.py", "y.py")
    r.commit("to y")
    r.write("y.py", fn("a", "return 2"))
    r.commit("edit in y")
    r.mv("y.py", "x.py")
    r.commit("back to x")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.hotspots()
        assert [(f["path"], f["commits"]) for f in res["files"]] == [("x.py", 4)]
        assert [(s["qname"], s["commits"]) for s in res["symbols"]] == [("x.py::a", 4)]


def test_impact_on_a_long_history_is_fast(tmp_path: Path) -> None:
    # one file changed in each of 1,500 commits: impact used to re-query per commit
    r = Repo(tmp_path / "long")
    out = [b"commit refs/heads/main\n"]
    out.clear()
    for i in range(1500):
        data = fn("hot", f"return {i}").encode()
        msg = f"c{i}".encode()
        out.append(b"commit refs/heads/main\n")
        out.append(f"committer t <t@e> {BASE + i} +0000\n".encode())
        out.append(f"data {len(msg)}\n".encode() + msg + b"\n")
        out.append(f"M 100644 inline a.py\ndata {len(data)}\n".encode() + data + b"\n")
    subprocess.run(["git", "-C", str(r.path), "fast-import", "--quiet"], input=b"".join(out),
                   check=True)
    git(r.path, "checkout", "-q", "-f", "main")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(mode="message", all_=True)
        t = time.perf_counter()
        res = b.history.impact("hot")
        assert res["commits"] == 1500
        assert time.perf_counter() - t < 5  # was minutes; typically ~0.05 s
