"""PostgreSQL implementation of :class:`hindsight.store.base.PageStore` (table ``pages`` of
migration ``0004_pages`` in :mod:`.schema`), the same rows as
:class:`hindsight.store.sqlite.pages.SqlitePageStore`."""

from __future__ import annotations

import json
from typing import Any

from hindsight.store.postgres.db import PgStore, no_nul

_COLS = "name, version, title, updated_at, updated_ts, reason, head, commits, sections, changed"
_NAMES = [c.strip() for c in _COLS.split(",")]


def _page(r: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(_NAMES, r, strict=True))
    out["sections"] = json.loads(out["sections"])
    out["changed"] = json.loads(out["changed"])
    return out


class PgPageStore(PgStore):
    """The versioned knowledge pages of one bank's schema. Two writers of one page take
    turns (a table lock in the writing transaction), so versions stay 1, 2, … per name."""

    def add_page(self, page: dict[str, Any]) -> int:
        with self.tx() as c:
            c.execute(self.q("LOCK TABLE {s}.pages IN SHARE ROW EXCLUSIVE MODE"))
            row = c.execute(self.q("SELECT coalesce(max(version), 0) FROM {s}.pages "
                                   "WHERE name = %s"), (no_nul(page["name"]),)).fetchone()
            version = int(row[0]) + 1
            c.execute(self.q(f"INSERT INTO {{s}}.pages({_COLS}) VALUES("
                             f"{', '.join(['%s'] * len(_NAMES))})"),
                      no_nul([page["name"], version, page["title"], page["updated_at"],
                              float(page["updated_ts"]), page.get("reason", ""),
                              page.get("head", ""), int(page.get("commits", 0)),
                              json.dumps(page["sections"], ensure_ascii=False),
                              json.dumps(page.get("changed", []), ensure_ascii=False)]))
        return version

    def latest_pages(self) -> list[dict[str, Any]]:
        return [_page(r) for r in self.all(
            f"SELECT DISTINCT ON (name) {_COLS} FROM {{s}}.pages "
            "ORDER BY name, version DESC")]

    def page_versions(self, name: str, limit: int) -> list[dict[str, Any]]:
        return [_page(r) for r in self.all(
            f"SELECT {_COLS} FROM {{s}}.pages WHERE name = %s ORDER BY version DESC "
            "LIMIT %s", (name, int(limit)))]

    def all_page_rows(self) -> list[dict[str, Any]]:
        """Every stored version of every page, by name then version (what a purge
        scrubs)."""
        return [_page(r) for r in self.all(
            f"SELECT {_COLS} FROM {{s}}.pages ORDER BY name, version")]

    def replace_sections(self, items: list[tuple[str, int, list[dict[str, Any]]]]) -> None:
        """Store new ``sections`` for stored versions ``(name, version, sections)`` (a
        purge removing a cited excerpt); one transaction."""
        if not items:
            return
        with self.tx() as c:
            for name, version, sections in items:
                c.execute(self.q("UPDATE {s}.pages SET sections = %s WHERE name = %s AND "
                                 "version = %s"),
                          no_nul([json.dumps(sections, ensure_ascii=False), name, version]))
