"""What a process keeps between index runs: the per-listing cache of
:func:`hindsight.codeindex.files.select` (what the tracked listing says by name; a repeated
selection with the same ``.git/index`` answers exactly as a first one, and what changed on
disk or in the patterns is seen), and the FileSyms of incremental runs
(``indexer._LOADED``: bounded by dump bytes, least recently used dropped first)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import git, make_repo, write

from hindsight.app import open_bank
from hindsight.codeindex import files as F
from hindsight.codeindex import indexer


@pytest.fixture(autouse=True)
def _cache_recent_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repositories here are a moment old: without this, files.RACY_S keeps their
    listings out of the cache and the cached path would go untested."""
    monkeypatch.setattr(F, "RACY_S", 0.0)


def fresh(root: Path, **kw: object) -> F.Selection:
    """A selection with both caches emptied first (what a new process computes)."""
    F._TRACKED.clear()
    F._NAMED.clear()
    return F.select(str(root), **kw)  # type: ignore[arg-type]


def same(a: F.Selection, b: F.Selection) -> None:
    assert a.files == b.files
    assert a.skipped == b.skipped
    assert a.counts == b.counts
    assert a.sizes == b.sizes
    assert a.sparse == b.sparse


def test_repeated_selection_equals_a_fresh_one(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.py": "def a(): pass\n", "b.js": "function b(){}\n",
                                      "README.md": "x\n", "docs/c.py": "c = 1\n",
                                      "gen/d.py": "d = 1\n"})
    first = F.select(str(root))
    listing = F._TRACKED[str(root)][1]
    assert F._NAMED[str(root)][0] is listing  # both caches filled
    again = F.select(str(root))
    assert F._TRACKED[str(root)][1] is listing and F._NAMED[str(root)][0] is listing
    assert again.files == first.files == {
        "a.py": "python", "b.js": "javascript", "docs/c.py": "python", "gen/d.py": "python"}
    assert first.counts["unsupported"] == 1
    same(F.select(str(root)), fresh(root))
    # deleted in the work tree, the listing (.git/index) unchanged: `missing`, as fresh
    os.remove(root / "b.js")
    again = F.select(str(root))
    assert "b.js" not in again.files and again.counts["missing"] == 1
    same(again, fresh(root))
    # an edit changes the size and mtime seen, not the listing
    write(root, {"a.py": "def a():\n    return 2\n"})
    assert F.select(str(root)).sizes["a.py"][0] == len("def a():\n    return 2\n")


def test_new_patterns_are_applied_with_the_same_listing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.py": "a = 1\n", "gen/d.py": "d = 1\n"})
    assert set(F.select(str(root)).files) == {"a.py", "gen/d.py"}
    excluded = F.select(str(root), exclude=["gen/"])
    assert set(excluded.files) == {"a.py"} and excluded.counts["excluded"] == 1
    write(root, {".hindsightignore": "a.py\n"})
    assert set(F.select(str(root)).files) == {"gen/d.py"}
    os.remove(root / ".hindsightignore")
    assert set(F.select(str(root)).files) == {"a.py", "gen/d.py"}


def test_a_new_commit_changes_the_listing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"a.py": "a = 1\n"})
    assert set(F.select(str(root)).files) == {"a.py"}
    write(root, {"b.py": "b = 1\n"})
    assert set(F.select(str(root)).files) == {"a.py"}  # untracked: not selected
    git(root, "add", "b.py")
    after = F.select(str(root))
    assert set(after.files) == {"a.py", "b.py"}
    same(after, fresh(root))
    with_untracked = F.select(str(root), include_untracked=True)
    write(root, {"c.py": "c = 1\n"})
    assert set(F.select(str(root), include_untracked=True).files) == \
        set(with_untracked.files) | {"c.py"}


def edges_of(bank: object) -> list[tuple[str, ...]]:
    conn = bank.stores.code.conn  # type: ignore[attr-defined]
    return sorted(conn.execute(
        "SELECT f.path, e.src, e.dst, e.kind, e.line FROM edges e JOIN files f "
        "ON f.id = e.file_id"))


def test_loaded_file_states_stay_under_their_byte_budget(tmp_path: Path,
                                                         monkeypatch: object) -> None:
    """With a budget of about two dumps, re-indexes drop the least recently used states,
    never keep more bytes than the budget, and still give what a full rebuild gives."""
    files = {f"m{i}.py": f"from m{(i + 1) % 6} import f{(i + 1) % 6}\n\n\n"
             f"def f{i}():\n    return f{(i + 1) % 6}()\n" for i in range(6)}
    root = make_repo(tmp_path / "r", files)
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "home"))  # type: ignore[attr-defined]
    indexer._LOADED.clear()
    monkeypatch.setattr(indexer, "_loaded_bytes", 0)  # type: ignore[attr-defined]
    bank = open_bank(repo_root_path=str(root))
    bank.code.index()
    sizes = [n for _fs, n in indexer._LOADED.values()]
    budget = 2 * max(len(d) for (d,) in bank.stores.code.conn.execute(
        "SELECT data FROM filesyms"))
    monkeypatch.setattr(indexer, "_LOADED_BYTES", budget)  # type: ignore[attr-defined]
    for i in range(6):
        write(root, {f"m{i}.py": files[f"m{i}.py"] + f"\n\ndef extra{i}():\n    return f{i}()\n"})
        bank.code.index()
        kept = sum(n for _fs, n in indexer._LOADED.values())
        assert 0 < kept <= budget
        assert kept == indexer._loaded_bytes
    assert sizes == []  # a full build keeps nothing: only incremental runs fill it
    incremental = edges_of(bank)
    bank.code.index(full=True)
    assert edges_of(bank) == incremental
    assert ("m5.py", "extra5", "m5.py::f5", "call", 9) in incremental
