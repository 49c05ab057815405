"""Bank upgrades (break24): a bank whose migrations ran under names they had before a merge
opens, and an extractor upgrade re-points anchors, also when interrupted after its
commit. Real SQLite files and banks in tmp dirs."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import make_repo

from hindsight.app import open_bank

# --- banks made by older code ---------------------------------------------------------------

def _old_bank(path: Path, applied: list[tuple[str, str]]) -> None:
    """A bank as a commit whose migration list was ``applied`` (name, body) left it."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("CREATE TABLE migrations(name TEXT PRIMARY KEY, applied_at TEXT)")
    for name, body in applied:
        for stmt in body.split(";"):
            if stmt.strip():
                c.execute(stmt)
        c.execute("INSERT INTO migrations VALUES(?, '2026-12-01T03:30:00+00:00')", (name,))
    c.execute("INSERT OR REPLACE INTO meta VALUES('schema_version', ?)", (str(len(applied)),))
    if any("huge" in n for n, _ in applied):
        c.execute("INSERT INTO huge_files_done VALUES('abc', 'a.py')")
    c.close()


# (old name, the name it has today): migrations renamed when branches merged. The first
# was on main's first-parent line (commits 0ffa126 and 26649fe, 2026-12-01 03:19-03:51);
# the others were on branches (214b789, 7cb8ff4, cdd84fe) before their merge.
RENAMED = [
    ("0004_huge_commit_files", "0006_huge_commit_files"),
    ("0004_memory_agent", "0005_memory_agent"),
    ("0004_lexical", "0007_lexical"),
    ("0004_receiver_facts", "0009_receiver_facts"),
]


@pytest.mark.parametrize("old,new", RENAMED)
def test_a_bank_migrated_under_an_earlier_migration_name_opens(
        tmp_path: Path, old: str, new: str) -> None:
    """A bank built by main at 26649fe recorded ``0004_huge_commit_files``; today the same
    migration is ``0006_huge_commit_files``, so :func:`migrate` runs its body again and the
    ``CREATE TABLE`` fails: every command on that bank (index, recall, status) answers
    "cannot open bank database: table huge_files_done already exists" (seen with the real
    CLI of 26649fe on a copy of the stdlib). The bank should open, keep its rows, and
    record the migration under today's name."""
    from hindsight.store.sqlite.db import MIGRATIONS, connect

    bodies = dict(MIGRATIONS)
    db = tmp_path / "old.db"
    _old_bank(db, [(n, bodies[n]) for n in ("0001_code_index", "0002_history",
                                              "0003_memory")] + [(old, bodies[new])])
    conn = connect(str(db), busy_timeout_ms=1000)
    names = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    assert names >= {n for n, _ in MIGRATIONS}
    if "huge" in old:
        assert conn.execute("SELECT * FROM huge_files_done").fetchall() == [("abc", "a.py")]


# --- extractor version upgrades -------------------------------------------------------------

def _upgrade_bank(repo: Path) -> Any:
    """Index ``repo`` (a property with a setter in a.py), anchor a memory to the setter,
    then make the bank look indexed by extractor version 3 (getter and setter both
    ``C.x``; the anchor on ``C.x`` with the setter's ast hash, as version 3 made it)."""
    bank = open_bank(repo_root_path=str(repo))
    bank.code.index(workers=1)
    mid = bank.memory.retain("Lesson: the setter of C.x must validate v",
                             symbols=["a.py::C.x:setter"]).id
    raw = bank.stores.raw
    raw.execute("UPDATE symbols SET local='C.x' WHERE local='C.x:setter'")
    raw.execute("UPDATE memory_anchors SET symbol='C.x' WHERE symbol='C.x:setter'")
    bank.stores.code.set_meta({"extractor_version": "3"})
    return bank, mid


SETTER = {"a.py": ("class C:\n    @property\n    def x(self):\n        return 1\n\n"
                   "    @x.setter\n    def x(self, v):\n        pass\n")}


def test_an_extractor_upgrade_repoints_an_anchor_to_a_renamed_setter(tmp_path: Path) -> None:
    """Held up (the control of the next test): version 3 -> 4 re-points the anchor."""
    bank, mid = _upgrade_bank(make_repo(tmp_path / "r", SETTER))
    with bank:
        bank.code.index(workers=1)
        a = bank.memory.get(mid).anchors
    assert [(x.symbol, x.stale) for x in a] == [("C.x:setter", False)]


def test_an_upgrade_interrupted_after_its_commit_keeps_anchors_fresh(
        tmp_path: Path, monkeypatch: Any) -> None:
    """An extractor upgrade (version 3 named a property setter ``C.x`` like its getter, 4
    names it ``C.x:setter``) snapshots the old index's repeated names so anchors can be
    re-pointed (meta ``identity_migration``). The snapshot is written with
    ``extractor_version`` only after the rebuild committed, after its ``PRAGMA optimize``
    and ``wal_checkpoint(TRUNCATE)`` (which waits up to the busy timeout on any reader): a
    kill or Ctrl-C there leaves the new index under the old version, the next run rebuilds
    again and snapshots the *new* index, where the setter is not repeated. The anchor stays
    on ``C.x`` (now the getter, another hash) and the memory is flagged stale, though the
    setter never changed. Here the interrupt comes at that ``set_meta``."""
    bank, mid = _upgrade_bank(make_repo(tmp_path / "r", SETTER))
    with bank:
        store_cls = type(bank.stores.code)
        real = store_cls.set_meta

        def killed_after_commit(self: Any, values: dict[str, str]) -> None:
            if "extractor_version" in values:
                raise KeyboardInterrupt
            real(self, values)

        monkeypatch.setattr(store_cls, "set_meta", killed_after_commit)
        with pytest.raises(KeyboardInterrupt):
            bank.code.index(workers=1)
        monkeypatch.setattr(store_cls, "set_meta", real)
        assert [r[0] for r in bank.stores.raw.execute(
            "SELECT local FROM symbols ORDER BY start_line")] == ["C", "C.x", "C.x:setter"]
        bank.code.index(workers=1)  # the run after the kill
        a = bank.memory.get(mid).anchors
    assert [(x.symbol, x.stale) for x in a] == [("C.x:setter", False)]
