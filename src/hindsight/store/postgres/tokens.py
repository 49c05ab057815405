"""The team server's tokens, audit log, idempotency keys and banks in PostgreSQL.

psycopg 3 with a connection pool (``psycopg_pool``): every statement parameterised, each
call one short transaction. A dead or restarting database fails fast: a connection is
waited for at most ``timeout`` seconds (default 2) and checked before use, and every
psycopg error becomes :class:`hindsight.errors.StorageError` (the server answers 503), so
the pool reconnects by itself once the database is back. Migrations are named and recorded
in ``server_migrations``, applied under an advisory lock so that two servers starting on
one database apply each once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hindsight.errors import StorageError
from hindsight.store.server_base import AuditRow, TokenRow

T = TypeVar("T")
MIGRATION_LOCK = 0x68696E64  # advisory lock key of this module's migrations ("hind")

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_server", """
CREATE TABLE IF NOT EXISTS server_tokens(
  id TEXT PRIMARY KEY, hash TEXT NOT NULL, agent TEXT NOT NULL, team TEXT NOT NULL,
  role TEXT NOT NULL, bank TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION);
CREATE TABLE IF NOT EXISTS server_audit(
  id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, token TEXT NOT NULL,
  agent TEXT NOT NULL, action TEXT NOT NULL, bank TEXT NOT NULL, memory BIGINT,
  detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS server_idempotency(
  key TEXT NOT NULL, agent TEXT NOT NULL, request_hash TEXT NOT NULL, response TEXT NOT NULL,
  at DOUBLE PRECISION NOT NULL, PRIMARY KEY(key, agent));
CREATE TABLE IF NOT EXISTS server_banks(id TEXT PRIMARY KEY)
"""),
]


class PostgresTokenStore:
    """:class:`hindsight.store.server_base.TokenStore` on the database at ``dsn``
    (migrated on open). ``timeout``: seconds a call waits for a connection before it
    raises StorageError. Raises StorageError when the database cannot be reached."""

    def __init__(self, dsn: str, *, timeout: float = 2.0, max_size: int = 8) -> None:
        from psycopg_pool import ConnectionPool

        from hindsight.store.postgres.pool import guarded_pool

        self.dsn = dsn
        self._pool = guarded_pool(dsn, min_size=1, max_size=max_size, timeout=timeout,
                                    open=False, check=ConnectionPool.check_connection,
                                    kwargs={"connect_timeout": max(1, int(timeout))})
        try:
            self._pool.open(wait=True, timeout=max(timeout, 5.0))
        except Exception as e:  # psycopg_pool.PoolTimeout, psycopg.OperationalError
            self._pool.close()
            raise StorageError(f"PostgreSQL at {_shown(dsn)}: {e}") from e
        self._migrate()

    def _migrate(self) -> None:
        def run(conn: Any) -> None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS server_migrations("
                         "name TEXT PRIMARY KEY, at TIMESTAMPTZ NOT NULL DEFAULT now())")
            done = {r[0] for r in conn.execute("SELECT name FROM server_migrations")}
            for name, sql in MIGRATIONS:
                if name not in done:
                    for stmt in sql.split(";"):
                        if stmt.strip():
                            conn.execute(stmt)
                    conn.execute("INSERT INTO server_migrations(name) VALUES(%s)", (name,))

        self._do(run)

    def _do(self, fn: Callable[[Any], T]) -> T:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn, conn.transaction():
                return fn(conn)
        except (psycopg.Error, PoolTimeout) as e:
            raise StorageError(f"PostgreSQL at {_shown(self.dsn)}: "
                               f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
                               ) from e

    def ping(self) -> None:
        self._do(lambda c: c.execute("SELECT 1").fetchone())

    def add_token(self, row: TokenRow) -> None:
        self._do(lambda c: c.execute(
            "INSERT INTO server_tokens VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s)", tuple(row)))

    def token(self, token_id: str) -> TokenRow | None:
        r = self._do(lambda c: c.execute("SELECT * FROM server_tokens WHERE id=%s",
                                          (token_id,)).fetchone())
        return TokenRow(*r) if r else None

    def tokens(self) -> list[TokenRow]:
        rows = self._do(lambda c: c.execute(
            "SELECT * FROM server_tokens ORDER BY created_at, id").fetchall())
        return [TokenRow(*r) for r in rows]

    def revoke(self, token_id: str, at: float) -> bool:
        n = self._do(lambda c: c.execute(
            "UPDATE server_tokens SET revoked_at=%s WHERE id=%s AND revoked_at IS NULL",
            (at, token_id)).rowcount)
        return bool(n)

    def add_audit(self, at: float, token_id: str, agent: str, action: str, bank: str,
                  memory_id: int | None, detail: str) -> None:
        self.add_audits([(at, token_id, agent, action, bank, memory_id, detail)])

    def add_audits(self, rows: list[AuditRow]) -> None:
        if rows:
            self._do(lambda c: c.cursor().executemany(
                "INSERT INTO server_audit(at, token, agent, action, bank, memory, detail) "
                "VALUES(%s,%s,%s,%s,%s,%s,%s)", rows))

    def audit(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._do(lambda c: c.execute(
            "SELECT at, token, agent, action, bank, memory, detail FROM server_audit "
            "ORDER BY id DESC LIMIT %s", (limit,)).fetchall())
        keys = ("at", "token", "agent", "action", "bank", "memory", "detail")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def idem_get(self, key: str, agent: str) -> tuple[str, str] | None:
        r = self._do(lambda c: c.execute(
            "SELECT request_hash, response FROM server_idempotency WHERE key=%s AND agent=%s",
            (key, agent)).fetchone())
        return (r[0], r[1]) if r else None

    def idem_put(self, key: str, agent: str, request_hash: str, response: str,
                 at: float) -> None:
        self._do(lambda c: c.execute(
            "INSERT INTO server_idempotency VALUES(%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
            (key, agent, request_hash, response, at)))

    def note_bank(self, bank_id: str) -> None:
        self._do(lambda c: c.execute(
            "INSERT INTO server_banks VALUES(%s) ON CONFLICT DO NOTHING", (bank_id,)))

    def banks(self) -> list[str]:
        rows = self._do(lambda c: c.execute(
            "SELECT id FROM server_banks ORDER BY id").fetchall())
        return [r[0] for r in rows]

    def size_bytes(self) -> int:
        r = self._do(lambda c: c.execute(
            "SELECT pg_database_size(current_database())").fetchone())
        return int(r[0]) if r else 0

    def close(self) -> None:
        self._pool.close()


def _shown(dsn: str) -> str:
    """The DSN without its password (``user:***@``)."""
    import re

    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", dsn)
