"""Break-it pass on the process caches of the code index (stop 25).

The caches under attack: ``files._TRACKED`` (the ``git ls-files`` listing, keyed by the
``.git/index`` file's mtime, size and inode), ``files._NAMED`` (what that listing says by
name, keyed by the listing object and the ignore patterns), ``indexer._LOADED`` (the
FileSyms of earlier re-indexes, keyed by path, content hash, language, module and package)
and the ``lru_cache`` of ``modules.provided_keys``.

Each test drives ONE long-lived process (this one, through ``open_bank(...).code.index()``)
through a sequence of git and work-tree changes and compares its incremental result after
each step with a FULL rebuild of the same tree made by a fresh ``python -m hindsight index
--full`` subprocess in a bank of its own (files, symbols, edges, skips, skip counts). One
finding (xfail, strict): a rewritten index file that keeps the old one's mtime, size and
inode. The other tests are attacks that held up.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import git, make_repo, write

from hindsight.app import open_bank
from hindsight.codeindex import files as F

QUERIES = {
    "files": "SELECT path, language, module, package, content_hash, error FROM files",
    "symbols": "SELECT f.path, s.name, s.local, s.kind, s.parent, s.start_line, s.end_line, "
               "s.signature FROM symbols s JOIN files f ON f.id = s.file_id",
    "edges": "SELECT f.path, e.src, e.kind, e.name, e.receiver, e.alias, e.line, e.dst "
             "FROM edges e JOIN files f ON f.id = e.file_id",
    "skipped": "SELECT path, reason FROM skipped",
    "skip_counts": "SELECT reason, n FROM skip_counts WHERE n > 0",
}


def snapshot(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {k: sorted(tuple(r) for r in conn.execute(q)) for k, q in QUERIES.items()}


def full_rebuild(repo: Path, tmp: Path, *args: str) -> dict[str, list[tuple[Any, ...]]]:
    """The index a fresh process builds from scratch (its own HINDSIGHT_HOME)."""
    home = tmp / f"fresh-{len(list(tmp.glob('fresh-*')))}"
    env = {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_EMBEDDER": "hashing",
           "HINDSIGHT_IMPORT_TRANSCRIPTS": "0"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "index", "--full", "--workers",
                          "1", *args], cwd=repo, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    (db,) = (home / "banks").glob("*.db")
    conn = sqlite3.connect(db)
    try:
        return snapshot(conn)
    finally:
        conn.close()


def incremental(bank: Any, first: bool = False, **kw: Any) -> dict[str, list[tuple[Any, ...]]]:
    """The bank of the process under test after its next (incremental) index."""
    st = bank.code.index(workers=1, **kw)
    assert st.full == first  # after the first, the process re-indexes incrementally
    return snapshot(bank.stores.code.conn)


def assert_same(got: dict[str, Any], want: dict[str, Any], step: str) -> None:
    for k in QUERIES:
        assert got[k] == want[k], f"{step}: {k} differ"


# ---- the finding -----------------------------------------------------------------------


def test_index_rewritten_in_the_same_tick_with_same_size_and_inode(tmp_path: Path,
                                                                   monkeypatch: object
                                                                   ) -> None:
    """git writes ``.git/index`` through ``index.lock`` and a rename, so on ext4 the index
    alternates between two inode numbers (the old file's is freed, the next lock file gets
    it); renaming a path to another of the same length keeps the file's size. When the
    index is read, then rewritten twice within one timestamp tick (ext4's kernel tick is
    a few ms; ext3, HFS+, FAT and many network file systems keep 1-2 s), its mtime, size
    and inode are those of the state that was read, and ``_TRACKED`` hands back the old
    listing. Here: ``a.py`` staged as ``b.py`` (read), then ``git mv b.py c.py`` and
    ``git mv c.py d.py``, the tick simulated by giving the index back the mtime it had.
    The process counted ``b.py`` as missing and did not index ``d.py`` (a full rebuild
    indexes ``d.py`` with ``def a``). Fixed: the key has ``st_ctime_ns`` too (``utime``
    cannot set it back; checked here with the racy-index window off), and an index
    modified less than ``files.RACY_S`` before git is asked is never cached."""
    monkeypatch.setattr(F, "RACY_S", 0.0)  # type: ignore[attr-defined]
    repo = make_repo(tmp_path / "r", {"a.py": "def a():\n    return 1\n",
                                      "m.py": "from d import a\n\n\ndef m():\n    return a()\n"})
    git(repo, "mv", "a.py", "b.py")
    bank = open_bank(repo_root_path=str(repo))
    index = repo / ".git" / "index"
    was = os.stat(index)
    assert [p for p, *_ in incremental(bank, first=True)["files"]] == ["b.py", "m.py"]
    names = iter(["c.py", "d.py", "e.py", "f.py", "g.py", "h.py"])
    cur = "b.py"
    for _ in range(3):  # pairs of rewrites until git's lock file reuses the read inode
        for _ in range(2):
            nxt = next(names)
            git(repo, "mv", cur, nxt)
            cur = nxt
        now = os.stat(index)
        if now.st_ino == was.st_ino:
            break
    else:
        pytest.skip("this file system does not reuse the index file's inode")
    assert now.st_size == was.st_size
    os.utime(index, ns=(now.st_atime_ns, was.st_mtime_ns))  # the same timestamp tick
    want = full_rebuild(repo, tmp_path)
    assert [p for p, _l, _m, _k, _h, _e in want["files"]] == [cur, "m.py"]
    got = incremental(bank)
    assert [p for p, *_ in got["files"]] == [cur, "m.py"]
    assert ("missing", 1) not in got["skip_counts"]
    assert_same(got, want, "after the rewrites")


# ---- attacks that held up --------------------------------------------------------------

PKG = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from .b import helper\n\n\ndef run():\n    return helper()\n",
    "pkg/b.py": "def helper():\n    return 1\n",
    "app.py": "import pkg.a\nfrom pkg import b\n\n\ndef main():\n    pkg.a.run()\n"
              "    b.helper()\n",
    "web/x.js": "import {y} from './y';\nexport function x() { return y(); }\n",
    "web/y.js": "export function y() { return 1; }\n",
    "README.md": "hi\n",
}


def modules(snap: dict[str, Any]) -> dict[str, str]:
    return {p: m for p, _lang, m, *_ in snap["files"]}


def test_branches_stash_reset_and_renames_in_one_process(tmp_path: Path) -> None:
    """Checkouts that move Python modules (``pkg/__init__.py`` only on ``main``) and bring
    files back to earlier contents (the same content hash under another module: the
    module is part of ``_LOADED``'s key), a stash and its pop, ``reset --hard``, a staged
    ``.js`` -> ``.ts`` rename and back: after each, the process's incremental index equals
    a fresh full rebuild."""
    repo = make_repo(tmp_path / "r", PKG)
    bank = open_bank(repo_root_path=str(repo))
    assert_same(incremental(bank, first=True), full_rebuild(repo, tmp_path), "first")
    git(repo, "checkout", "-q", "-b", "flat")
    git(repo, "rm", "-q", "pkg/__init__.py")
    write(repo, {"pkg/b.py": "def helper():\n    return 2\n\n\ndef other():\n    pass\n"})
    git(repo, "commit", "-qam", "flat")
    steps = [("flat", lambda: None), ("main", lambda: git(repo, "checkout", "-q", "main")),
             ("flat again", lambda: git(repo, "checkout", "-q", "flat")),
             ("main again", lambda: git(repo, "checkout", "-q", "main")),
             ("edit", lambda: write(repo, {"pkg/b.py": "def helper():\n    return 3\n"})),
             ("stash", lambda: git(repo, "stash", "-q")),
             ("stash pop", lambda: git(repo, "stash", "pop", "-q")),
             ("reset --hard", lambda: git(repo, "reset", "-q", "--hard")),
             ("y.js -> y.ts", lambda: git(repo, "mv", "web/y.js", "web/y.ts")),
             ("y.ts -> y.js", lambda: git(repo, "mv", "web/y.ts", "web/y.js"))]
    seen = {}
    for name, act in steps:
        act()
        want = full_rebuild(repo, tmp_path)
        assert_same(incremental(bank), want, name)
        seen[name] = want
    assert modules(seen["flat"])["pkg/b.py"] == "b"
    assert modules(seen["main again"])["pkg/b.py"] == "pkg.b"
    assert "web/y.ts" in modules(seen["y.js -> y.ts"])


def test_sparse_skip_worktree_submodule_and_patterns_in_one_process(tmp_path: Path) -> None:
    """The skip-worktree bit set and cleared by hand (file present, then deleted), an
    assumed-unchanged file edited, sparse-checkout set twice and disabled, a submodule
    added, ``.hindsightignore`` written (with a bad line) and removed, ``--exclude`` given
    and cleared, a staged case-only rename: each step's skips and edges equal a fresh
    full rebuild's."""
    files = {"a/x.py": "from b.y import f\n\n\ndef g():\n    return f()\n",
             "b/y.py": "def f():\n    return 1\n",
             "c/z.py": "import b.y\n\n\ndef h():\n    return b.y.f()\n",
             "top.py": "def t():\n    pass\n"}
    repo = make_repo(tmp_path / "r", files)
    sub = make_repo(tmp_path / "sub", {"s.py": "def s():\n    pass\n"})
    bank = open_bank(repo_root_path=str(repo))
    assert_same(incremental(bank, first=True), full_rebuild(repo, tmp_path), "first")

    def ignore(text: str | None) -> None:
        if text is None:
            os.remove(repo / ".hindsightignore")
        else:
            write(repo, {".hindsightignore": text})

    steps: list[tuple[str, Any, list[str]]] = [
        ("skip-worktree", lambda: git(repo, "update-index", "--skip-worktree", "b/y.py"), []),
        ("outside", lambda: os.remove(repo / "b/y.py"), []),
        ("no-skip-worktree", lambda: git(repo, "update-index", "--no-skip-worktree",
                                         "b/y.py"), []),
        ("restored", lambda: git(repo, "checkout", "--", "b/y.py"), []),
        ("assume-unchanged", lambda: (
            git(repo, "update-index", "--assume-unchanged", "a/x.py"),
            write(repo, {"a/x.py": "def g2():\n    pass\n"})), []),
        ("no-assume-unchanged", lambda: (
            git(repo, "update-index", "--no-assume-unchanged", "a/x.py"),
            git(repo, "checkout", "--", "a/x.py")), []),
        ("sparse a c", lambda: git(repo, "sparse-checkout", "set", "a", "c"), []),
        ("sparse a b", lambda: git(repo, "sparse-checkout", "set", "a", "b"), []),
        ("sparse off", lambda: git(repo, "sparse-checkout", "disable"), []),
        ("submodule", lambda: git(repo, "submodule", "add", "-q", str(sub), "subm"), []),
        ("ignore c/", lambda: ignore("c/\n"), []),
        ("ignore bad line", lambda: ignore("c/\n[\n"), []),
        ("ignore gone", lambda: ignore(None), []),
        ("exclude b/", lambda: None, ["--exclude", "b/"]),
        ("exclude cleared", lambda: None, ["--exclude", ""]),
        ("case rename", lambda: git(repo, "mv", "top.py", "Top.py"), []),
    ]
    seen = {}
    for name, act, args in steps:
        act()
        want = full_rebuild(repo, tmp_path, *args)
        kw = {"exclude": [a for a in args[1:] if a]} if args else {}
        assert_same(incremental(bank, **kw), want, name)
        seen[name] = want
    assert ("outside_sparse_checkout", 1) in seen["outside"]["skip_counts"]
    assert ("missing", 1) in seen["no-skip-worktree"]["skip_counts"]
    assert ("subm", "submodule") in seen["submodule"]["skipped"]
    assert "c/z.py" not in modules(seen["ignore bad line"])
    assert "b/y.py" not in modules(seen["exclude b/"])
    assert "Top.py" in modules(seen["case rename"])


def test_two_repositories_with_the_same_files_in_one_process(tmp_path: Path) -> None:
    """Two repositories holding the same paths and contents, one without
    ``pkg/__init__.py`` for a while, indexed in turn by one process: ``_LOADED`` is shared
    (its key has no root), and each bank still equals its own full rebuild."""
    files = {"pkg/__init__.py": "",
             "pkg/base.py": "class Base:\n    def run(self):\n        return self.step()\n\n"
                            "    def step(self):\n        return 0\n",
             "pkg/impl.py": "from .base import Base\n\n\nclass Impl(Base):\n"
                            "    def step(self):\n        return 1\n",
             "main.py": "from pkg.impl import Impl\n\n\ndef go():\n    return Impl().run()\n"}
    r1 = make_repo(tmp_path / "r1", files)
    r2 = make_repo(tmp_path / "r2", {**files, "pkg/extra.py": "from pkg.base import Base\n\n\n"
                                     "class E(Base):\n    def step(self):\n        return 2\n"})
    b1, b2 = open_bank(repo_root_path=str(r1)), open_bank(repo_root_path=str(r2))
    incremental(b1, first=True)
    incremental(b2, first=True)
    steps = [(r1, b1, lambda: write(r1, {"main.py": files["main.py"] + "\n"})),
             (r2, b2, lambda: write(r2, {"main.py": files["main.py"] + "\n"})),
             (r2, b2, lambda: os.remove(r2 / "pkg/__init__.py")),
             (r1, b1, lambda: write(r1, {"pkg/impl.py": files["pkg/impl.py"] + "x = 1\n"})),
             (r2, b2, lambda: write(r2, {"pkg/impl.py": files["pkg/impl.py"] + "x = 1\n"})),
             (r2, b2, lambda: write(r2, {"pkg/__init__.py": ""})),
             (r1, b1, lambda: write(r1, {"pkg/impl.py": files["pkg/impl.py"]}))]
    for i, (repo, bank, act) in enumerate(steps):
        act()
        want = full_rebuild(repo, tmp_path)
        assert_same(incremental(bank), want, f"step {i}")
    calls = {(p, src, dst) for p, src, kind, _n, _r, _a, _l, dst in want["edges"]
             if kind == "call"}
    assert ("main.py", "go", "pkg/base.py::Base.run") in calls
