"""History in odd git states: an empty repository, no repository, a detached HEAD, a
shallow clone, a linked worktree, a submodule, non-ASCII paths (split from
test_history.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo, fn, git
from test_history import story

from hindsight.app import open_bank
from hindsight.errors import GitError, NotIndexed


def test_empty_repository(tmp_path: Path) -> None:
    r = Repo(tmp_path / "empty")
    with open_bank(str(r.path)) as b:
        st = b.history.ingest()
        assert (st.ingested, st.head, st.notes) == (0, "", ["the repository has no commits yet"])
        b.code.index()
        with pytest.raises(NotIndexed, match="the repository has no commits yet") as e:
            b.history.history("f")  # (not "run hindsight ingest": it has nothing to read)
        assert e.value.action is None


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    d = tmp_path / "plain"
    d.mkdir()
    (d / "a.py").write_text(fn("f"))
    with open_bank(str(d)) as b, pytest.raises(GitError, match="not a git repository"):
        b.history.ingest()


def test_detached_head(tmp_path: Path) -> None:
    r = story(tmp_path)
    git(r.path, "checkout", "-q", "--detach", r.shas[5])
    with open_bank(str(r.path)) as b:
        b.code.index()
        st = b.history.ingest()
        assert (st.head, st.ingested) == (r.shas[5], 5)
        assert [e.sha for e in b.history.history("f")["entries"]] == [r.shas[5], r.shas[2], r.shas[1]]
        ev = b.history.record_edit("a.py", fn("f", "return 5") + fn("g", "return 3"),
                           fn("f", "return 9") + fn("g", "return 3"), refresh_index=False)
        assert (ev["branch"], ev["head"]) == ("", r.shas[5])


def test_shallow_clone_never_blames_the_boundary(tmp_path: Path) -> None:
    r = story(tmp_path)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{r.path}", str(clone))
    with open_bank(str(clone)) as b:
        b.code.index()
        st = b.history.ingest()
        assert (st.ingested, st.boundary, st.partial) == (3, 1, "shallow")
        # commits 5, 6, 7 are in the clone; 5 is the boundary: not expanded, no files
        c5 = b.stores.history.commit(r.shas[5])
        assert (c5["boundary"], c5["n_files"], c5["expanded"]) == (1, 0, 0)
        res = b.history.history("f")
        assert res["partial"] == "shallow"
        assert [(e.sha, e.change) for e in res["entries"]] == [(r.shas[7], "moved")]
        assert b.history.why("c.py", 2)["last"]["sha"] == r.shas[7]  # never the boundary commit


def test_shallow_clone_blame_of_an_older_line_names_no_commit(tmp_path: Path) -> None:
    """Break-it of session 40: in a ``--depth 1`` clone, ``why`` on a line of a file no
    commit of the clone touched answered from git blame with the boundary commit (an
    unrelated one, "unrelated 2") as the last change, and no note. Now no commit is
    named and the note says why and how to read more."""
    up = Repo(tmp_path / "up")
    up.write("m.py", fn("a"))
    up.commit("add a")
    up.write("other.py", "x = 1\n")
    up.commit("unrelated 1")
    up.write("other.py", "x = 2\n")
    up.commit("unrelated 2")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{up.path}", str(clone))
    with open_bank(str(clone)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.why("m.py", 2)
        assert (res["source"], res["last"]) == ("blame", None)
        assert res["notes"] == [
            f"git blame reaches {up.shas[3][:10]}, the first commit of this shallow clone: "
            "the line was last changed there or in an older commit the clone does not have; "
            "`git fetch --unshallow`, then `hindsight ingest --all`, tells"]
        assert b.history.history("a")["notes"] == [
            "no ingested commit changed this symbol; the ingested history is partial "
            "(shallow): `git fetch --unshallow`, then `hindsight ingest --all`, reads the "
            "older commits"]


def test_linked_worktree_shares_history(tmp_path: Path) -> None:
    r = story(tmp_path)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "extra.py").write_text(fn("x"))
    git(wt, "add", "-A")
    git(wt, "commit", "-q", "-m", "side commit", n=20)
    with open_bank(str(r.path)) as main_b:
        main_b.code.index()
        assert main_b.history.ingest().ingested == 7
        main_id = main_b.bank_id
    with open_bank(str(wt)) as b:
        assert b.bank_id == main_id
        b.code.index()
        st = b.history.ingest()
        assert st.ingested == 1 and b.stores.history.commit_count() == 8
        assert [e.change for e in b.history.history("x")["entries"]] == ["added"]


def test_submodule_is_not_descended_into(tmp_path: Path) -> None:
    sub = Repo(tmp_path / "sub")
    sub.write("s.py", fn("inner"))
    sub.commit("sub one")
    sub.write("s.py", fn("inner", "return 2"))
    sub.commit("sub two")
    r = Repo(tmp_path / "super")
    r.write("a.py", fn("f"))
    r.commit("one")
    git(r.path, "submodule", "add", "-q", f"file://{sub.path}", "vendor/sub", n=2)
    r.commit("add submodule")
    with open_bank(str(r.path)) as b:
        b.code.index()
        assert b.history.ingest().ingested == 2
        rows = b.stores.raw.execute(
            "SELECT path, status FROM commit_files WHERE sha=? ORDER BY path",
            (r.shas[2],)).fetchall()
        assert rows == [(".gitmodules", "A"), ("vendor/sub", "A")]
        assert b.stores.raw.execute(
            "SELECT count(*) FROM symbol_changes WHERE path LIKE 'vendor/%'").fetchone()[0] == 0


def test_non_ascii_paths_and_offsets(tmp_path: Path) -> None:
    r = Repo(tmp_path / "uni")
    r.write("ünï/naïve.py", fn("größe"))
    r.commit("añadir größe", tz="+0530")
    r.write("ünï/naïve.py", fn("größe", "return 2"))
    r.commit("ändern", tz="-0800")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
    out = subprocess.run([sys.executable, "-m", "hindsight", "history", "größe", "--json"],
                         cwd=r.path, capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert (data["symbol"]["qname"], data["qname"]) == ("ünï/naïve.py::größe",) * 2
    assert [(e["subject"], e["date"]) for e in data["entries"]] == [
        ("ändern", "2025-06-15T09:06:40-08:00"), ("añadir größe", "2025-06-15T21:36:40+05:30")]
