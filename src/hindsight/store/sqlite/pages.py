"""SQLite implementation of :class:`hindsight.store.base.PageStore` (table ``pages`` of
migration ``0010_pages`` in ``store/sqlite/db.py``)."""

from __future__ import annotations

import json
from typing import Any

from hindsight.store.sqlite.db import SqliteStore

_COLS = "name, version, title, updated_at, updated_ts, reason, head, commits, sections, changed"


def _page(r: tuple[Any, ...]) -> dict[str, Any]:
    names = [c.strip() for c in _COLS.split(",")]
    out = dict(zip(names, r, strict=True))
    out["sections"] = json.loads(out["sections"])
    out["changed"] = json.loads(out["changed"])
    return out


class SqlitePageStore(SqliteStore):
    """The versioned knowledge pages of one bank database."""

    def add_page(self, page: dict[str, Any]) -> int:
        with self._tx() as c:
            row = c.execute("SELECT coalesce(max(version), 0) FROM pages WHERE name=?",
                            (page["name"],)).fetchone()
            version = int(row[0]) + 1
            c.execute(f"INSERT INTO pages({_COLS}) VALUES(?,?,?,?,?,?,?,?,?,?)",
                      (page["name"], version, page["title"], page["updated_at"],
                       float(page["updated_ts"]), page.get("reason", ""),
                       page.get("head", ""), int(page.get("commits", 0)),
                       json.dumps(page["sections"], ensure_ascii=False),
                       json.dumps(page.get("changed", []), ensure_ascii=False)))
        return version

    def latest_pages(self) -> list[dict[str, Any]]:
        return [_page(r) for r in self.conn.execute(
            f"SELECT {_COLS} FROM pages p WHERE version = (SELECT max(version) FROM pages "
            "WHERE name=p.name) ORDER BY name")]

    def page_versions(self, name: str, limit: int) -> list[dict[str, Any]]:
        return [_page(r) for r in self.conn.execute(
            f"SELECT {_COLS} FROM pages WHERE name=? ORDER BY version DESC LIMIT ?",
            (name, int(limit)))]

    def all_page_rows(self) -> list[dict[str, Any]]:
        return [_page(r) for r in self.conn.execute(
            f"SELECT {_COLS} FROM pages ORDER BY name, version")]

    def replace_sections(self, items: list[tuple[str, int, list[dict[str, Any]]]]) -> None:
        """New sections for stored versions, with ``secure_delete`` on (the old bytes are
        overwritten) and a WAL checkpoint after (a purge leaves no copy)."""
        if not items:
            return
        self.conn.execute("PRAGMA secure_delete=ON")
        try:
            with self._tx() as c:
                c.executemany("UPDATE pages SET sections=? WHERE name=? AND version=?",
                              [(json.dumps(sec, ensure_ascii=False), name, version)
                               for name, version, sec in items])
        finally:
            self.conn.execute("PRAGMA secure_delete=OFF")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
