"""A damaged repository (a tree or a blob missing from .git/objects, as a broken partial
clone or a disk error leaves it): ingest goes on with every commit git can read, says how
many it could not, and history/why carry the note (break-it 40: one missing object
stopped the whole ingest, or a symbol's history was silently empty)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from histutil import Repo, fn, git

CLI = [sys.executable, "-m", "hindsight"]


def _run(r: Repo, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "HINDSIGHT_HOME": str(home)}
    return subprocess.run([*CLI, *args], cwd=r.path, env=env, capture_output=True, text=True,
                          timeout=120)


def _lose(r: Repo, rev: str) -> str:
    sha = git(r.path, "rev-parse", rev).strip()
    (r.path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    return sha


def _repo(tmp: Path) -> Repo:
    r = Repo(tmp / "r")
    for i in (1, 2, 3):
        r.write(f"m{i}.py", fn(f"f{i}", f"return {i}"))
        r.commit(f"c{i}")
    r.write("m1.py", fn("f1", "return 11"))
    r.commit("c4")
    return r


def test_missing_tree_skips_only_the_commits_git_cannot_diff(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    tree = _lose(r, "HEAD~1^{tree}")  # c3's tree: c3 (against c2) and c4 (against c3)
    home = tmp_path / "home"
    assert _run(r, home, "index").returncode == 0
    p = _run(r, home, "ingest", "--all", "--json")
    assert p.returncode == 0, p.stderr
    st = json.loads(p.stdout)
    assert (st["ingested"], st["expanded"], st["unreadable"]) == (4, 2, 2)
    assert st["unreadable_example"].endswith(f"fatal: unable to read tree {tree}")
    assert any(n.startswith("git could not diff 2 commit(s)") for n in st["notes"])
    h = json.loads(_run(r, home, "history", "f2", "--json").stdout)
    assert [e["subject"] for e in h["entries"]] == ["c2"]  # read commits keep their history
    assert "2 ingested commit(s) could not be diffed by git" in " ".join(h["notes"])
    w = json.loads(_run(r, home, "why", "m1.py:2", "--json").stdout)
    assert "2 ingested commit(s) could not be diffed by git" in " ".join(w["notes"])
    # the next ingest tries them again and still answers
    again = _run(r, home, "ingest", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["unreadable"] == 2


def test_missing_blob_is_counted_and_noted(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    _lose(r, "HEAD~2:m2.py")
    home = tmp_path / "home"
    assert _run(r, home, "index").returncode == 0
    p = _run(r, home, "ingest", "--all", "--json")
    assert p.returncode == 0, p.stderr
    st = json.loads(p.stdout)
    assert (st["ingested"], st["expanded"], st["missing_blobs"]) == (4, 4, 1)
    h = json.loads(_run(r, home, "history", "f2", "--json").stdout)
    assert h["entries"] == []
    assert "1 file version(s) could not be read by git" in " ".join(h["notes"])
    h3 = json.loads(_run(r, home, "history", "f3", "--json").stdout)
    assert [e["subject"] for e in h3["entries"]] == ["c3"]


def test_healthy_repository_has_no_such_note(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    home = tmp_path / "home"
    assert _run(r, home, "index").returncode == 0
    st = json.loads(_run(r, home, "ingest", "--all", "--json").stdout)
    assert (st["unreadable"], st["missing_blobs"]) == (0, 0)
    h = json.loads(_run(r, home, "history", "f1", "--json").stdout)
    assert [e["subject"] for e in h["entries"]] == ["c4", "c1"]
    assert not any("could not" in n for n in h["notes"])
