"""The team server's tokens, audit log, idempotency keys and banks in one SQLite file
(``$HINDSIGHT_HOME/server.db``), for a server over local banks. Same connection rules as the
banks (:mod:`hindsight.store.sqlite.db`): ``busy_timeout`` first, then WAL; named migrations
recorded in ``migrations``. One connection shared by the server's threads, each call under
a lock (calls are one short statement).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from hindsight.errors import StorageError
from hindsight.store.server_base import AuditRow, TokenRow

T = TypeVar("T")

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_server", """
CREATE TABLE tokens(
  id TEXT PRIMARY KEY, hash TEXT NOT NULL, agent TEXT NOT NULL, team TEXT NOT NULL,
  role TEXT NOT NULL, bank TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL,
  revoked_at REAL);
CREATE TABLE audit(
  id INTEGER PRIMARY KEY, at REAL NOT NULL, token TEXT NOT NULL, agent TEXT NOT NULL,
  action TEXT NOT NULL, bank TEXT NOT NULL, memory INTEGER, detail TEXT NOT NULL);
CREATE TABLE idempotency(
  key TEXT NOT NULL, agent TEXT NOT NULL, request_hash TEXT NOT NULL,
  response TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY(key, agent));
CREATE TABLE banks(id TEXT PRIMARY KEY);
"""),
]


class SqliteTokenStore:
    """:class:`hindsight.store.server_base.TokenStore` over the SQLite file ``path``
    (created and migrated on open; writes wait ``busy_ms`` for another writer). Raises
    StorageError when the file cannot be opened."""

    def __init__(self, path: str, busy_ms: int = 30_000) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            self._conn: sqlite3.Connection | None = sqlite3.connect(
                path, check_same_thread=False, isolation_level=None, timeout=busy_ms / 1000)
            self._conn.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._migrate()
        except (sqlite3.Error, OSError) as e:
            raise StorageError(f"{path}: {e}", path=path) from e

    def _migrate(self) -> None:
        assert self._conn is not None
        c = self._conn
        c.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, at TEXT)")
        done = {r[0] for r in c.execute("SELECT name FROM migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            c.execute("BEGIN IMMEDIATE")
            try:
                if c.execute("SELECT 1 FROM migrations WHERE name=?", (name,)).fetchone():
                    c.execute("COMMIT")
                    continue
                for stmt in sql.split(";"):
                    if stmt.strip():
                        c.execute(stmt)
                c.execute("INSERT INTO migrations VALUES(?, ?)",
                          (name, datetime.now(UTC).isoformat()))
                c.execute("COMMIT")
            except sqlite3.Error:
                c.execute("ROLLBACK")
                raise

    def _do(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            if self._conn is None:
                raise StorageError(f"{self.path}: the token store is closed", path=self.path)
            try:
                return fn(self._conn)
            except sqlite3.Error as e:
                raise StorageError(f"{self.path}: {e}", path=self.path) from e

    def ping(self) -> None:
        self._do(lambda c: c.execute("SELECT 1").fetchone())

    def add_token(self, row: TokenRow) -> None:
        self._do(lambda c: c.execute("INSERT INTO tokens VALUES(?,?,?,?,?,?,?,?,?)", row))

    def token(self, token_id: str) -> TokenRow | None:
        r = self._do(lambda c: c.execute("SELECT * FROM tokens WHERE id=?",
                                          (token_id,)).fetchone())
        return TokenRow(*r) if r else None

    def tokens(self) -> list[TokenRow]:
        rows = self._do(lambda c: c.execute(
            "SELECT * FROM tokens ORDER BY created_at, id").fetchall())
        return [TokenRow(*r) for r in rows]

    def revoke(self, token_id: str, at: float) -> bool:
        n = self._do(lambda c: c.execute(
            "UPDATE tokens SET revoked_at=? WHERE id=? AND revoked_at IS NULL",
            (at, token_id)).rowcount)
        return bool(n)

    def add_audit(self, at: float, token_id: str, agent: str, action: str, bank: str,
                  memory_id: int | None, detail: str) -> None:
        self.add_audits([(at, token_id, agent, action, bank, memory_id, detail)])

    def add_audits(self, rows: list[AuditRow]) -> None:
        if rows:
            self._do(lambda c: c.executemany(
                "INSERT INTO audit(at, token, agent, action, bank, memory, detail) "
                "VALUES(?,?,?,?,?,?,?)", rows))

    def audit(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._do(lambda c: c.execute(
            "SELECT at, token, agent, action, bank, memory, detail FROM audit "
            "ORDER BY id DESC LIMIT ?", (limit,)).fetchall())
        keys = ("at", "token", "agent", "action", "bank", "memory", "detail")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def idem_get(self, key: str, agent: str) -> tuple[str, str] | None:
        r = self._do(lambda c: c.execute(
            "SELECT request_hash, response FROM idempotency WHERE key=? AND agent=?",
            (key, agent)).fetchone())
        return (r[0], r[1]) if r else None

    def idem_put(self, key: str, agent: str, request_hash: str, response: str,
                 at: float) -> None:
        self._do(lambda c: c.execute(
            "INSERT OR IGNORE INTO idempotency VALUES(?,?,?,?,?)",
            (key, agent, request_hash, response, at)))

    def note_bank(self, bank_id: str) -> None:
        self._do(lambda c: c.execute("INSERT OR IGNORE INTO banks VALUES(?)", (bank_id,)))

    def banks(self) -> list[str]:
        rows = self._do(lambda c: c.execute("SELECT id FROM banks ORDER BY id").fetchall())
        return [r[0] for r in rows]

    def size_bytes(self) -> int:
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal")
                   if os.path.exists(p))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
