"""SQLite backend: one database file per bank (WAL, named migrations)."""

from __future__ import annotations

from typing import Any


def open_stores(db: str, bank_id: str, root: str, busy_timeout_ms: int | None = None
                ) -> tuple[Any, Any, Any, Any]:
    """``(code, history, memory, connection)`` stores over the database file ``db`` (made
    and migrated as needed; writes wait ``busy_timeout_ms`` for another writer, None: the
    setting). A new file records ``bank_id`` and ``root``; a file holding
    another bank id is refused. Raises StorageError."""
    import sqlite3

    from hindsight.errors import StorageError
    from hindsight.store.sqlite.code import SqliteCodeStore
    from hindsight.store.sqlite.db import connect
    from hindsight.store.sqlite.history import SqliteHistoryStore
    from hindsight.store.sqlite.memory import SqliteMemoryStore

    conn = connect(db, busy_timeout_ms)
    try:
        stored = conn.execute("SELECT value FROM meta WHERE key='bank_id'").fetchone()
        if stored is None:
            conn.execute("INSERT OR IGNORE INTO meta VALUES('bank_id', ?)", (bank_id,))
            conn.execute("INSERT OR IGNORE INTO meta VALUES('repo_root', ?)", (root,))
    except sqlite3.Error as e:
        conn.close()
        raise StorageError(f"{db}: {e}", path=db) from e
    if stored is not None and stored[0] != bank_id:
        conn.close()
        raise StorageError(f"{db} holds bank {stored[0]!r}, not {bank_id!r}; refusing to mix "
                           "two banks in one file", path=db)
    return SqliteCodeStore(conn), SqliteHistoryStore(conn), SqliteMemoryStore(conn), conn


def page_store(conn: Any) -> Any:
    """The :class:`~hindsight.store.base.PageStore` over an open bank connection (from
    :func:`open_stores`)."""
    from hindsight.store.sqlite.pages import SqlitePageStore

    return SqlitePageStore(conn)
