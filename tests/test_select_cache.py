"""The per-listing cache of :func:`hindsight.codeindex.files.select` (what the tracked
listing says by name): a repeated selection with the same ``.git/index`` answers exactly
as a first one, and what changed on disk or in the patterns is seen."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import git, make_repo, write

from hindsight.codeindex import files as F


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
    assert F.select(str(root)).files == first.files == {
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
