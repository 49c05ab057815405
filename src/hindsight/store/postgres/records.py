"""PostgreSQL implementation of :class:`hindsight.store.base.RecordStore` (tables of
migration ``0005_execution_records`` in :mod:`.schema`), row for row what
:class:`hindsight.store.sqlite.records.SqliteRecordStore` keeps: a linked symbol once
(``exec_symbols``), a record's links as small rows of ids (roles as one letter).

:meth:`PgRecordStore.batch` holds one pooled connection and one transaction; inside it every
read and write of this store (in this thread) goes through that connection, so a batch
reads its own uncommitted writes as SQLite's does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hindsight.models import ExecutionRecord
from hindsight.store.base import RecordLink
from hindsight.store.postgres.db import PgStore, no_nul
from hindsight.store.recordsql import ORDER, record_where
from hindsight.store.sqlite.records import _COLUMNS, _NAME, _ROLE, _UPDATABLE, _record

_LINKS = ("SELECT l.record_id, s.path, s.local, l.role, l.change, l.old_hash, l.new_hash "
          "FROM {s}.exec_links l JOIN {s}.exec_symbols s ON s.id = l.symbol_id")
_COLS = ("id", *_COLUMNS, "retrievals", "last_retrieved_ts", "runs", "runs_passed")


class PgRecordStore(PgStore):
    """The execution records of one bank's schema."""

    def __init__(self, pool: Any, schema: str, place: str, local_meta: Any = None) -> None:
        super().__init__(pool, schema, place, local_meta)
        self._local = threading.local()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Inside, every call of this store in this thread is part of one transaction
        (committed at the end, rolled back on an error); nested batches join the outer
        one."""
        import psycopg

        from hindsight.store.postgres.pool import error

        if getattr(self._local, "conn", None) is not None:
            yield
            return
        try:
            with self.tx() as c:
                self._local.conn = c
                try:
                    yield
                finally:
                    self._local.conn = None
        except psycopg.Error as e:  # opening or committing the transaction
            raise error(self.place, e) from e

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        """The batch's connection inside :meth:`batch`, else a pooled one."""
        c = getattr(self._local, "conn", None)
        if c is not None:
            yield c
            return
        with self.pool.connection() as c:
            yield c

    @contextmanager
    def _write(self) -> Iterator[Any]:
        c = getattr(self._local, "conn", None)
        if c is not None:
            yield c
            return
        with self.tx() as c:
            yield c

    def all(self, sql: str, args: Any = ()) -> list[Any]:
        with self._conn() as c:
            return list(c.execute(self.q(sql), no_nul(list(args))).fetchall())

    def one(self, sql: str, args: Any = ()) -> Any:
        with self._conn() as c:
            return c.execute(self.q(sql), no_nul(list(args))).fetchone()

    def _symbol_ids(self, c: Any, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """Ids of (path, local) pairs, adding the missing ones (inside a transaction)."""
        from hindsight.models import simple_name

        out: dict[tuple[str, str], int] = {}
        for pair in dict.fromkeys(no_nul(p) for p in pairs):
            got = c.execute(self.q(
                "INSERT INTO {s}.exec_symbols(path, local, name) VALUES(%s, %s, %s) "
                "ON CONFLICT (path, local) DO NOTHING RETURNING id"),
                (*pair, simple_name(pair[1]))).fetchone()
            out[pair] = int(got[0]) if got else int(c.execute(self.q(
                "SELECT id FROM {s}.exec_symbols WHERE path = %s AND local = %s"),
                pair).fetchone()[0])
        return out

    def insert_record(self, row: dict[str, Any], links: list[RecordLink],
                      files: list[tuple[str, int, int]]) -> tuple[int, bool]:
        row = {"feedback": "", "verified": 0, "verified_ts": 0.0, **row}
        values = [row.get(c) for c in _COLUMNS]  # a missing field: NOT NULL fails below
        values[_COLUMNS.index("verified")] = int(bool(row["verified"]))
        with self._write() as c:
            got = c.execute(self.q(
                f"INSERT INTO {{s}}.exec_records({', '.join(_COLUMNS)}) VALUES("
                f"{', '.join(['%s'] * len(_COLUMNS))}) ON CONFLICT (fingerprint) DO NOTHING "
                "RETURNING id"), no_nul(values)).fetchone()
            if got is None:
                old = c.execute(self.q("SELECT id FROM {s}.exec_records WHERE "
                                       "fingerprint = %s"), (row["fingerprint"],)).fetchone()
                return int(old[0]), False
            rid = int(got[0])
            ids = self._symbol_ids(c, [(p, loc) for p, loc, *_ in links])
            if links:
                c.cursor().executemany(self.q(
                    "INSERT INTO {s}.exec_links(record_id, seq, symbol_id, role, change, "
                    "old_hash, new_hash) VALUES(%s, %s, %s, %s, %s, %s, %s)"),
                    [(rid, n, ids[no_nul((p, loc))], _ROLE[role], *no_nul([ch, old, new]))
                     for n, (p, loc, role, ch, old, new) in enumerate(links)])
            if files:
                c.cursor().executemany(self.q(
                    "INSERT INTO {s}.exec_record_files(record_id, path, added, deleted) "
                    "VALUES(%s, %s, %s, %s)"), [(rid, no_nul(p), a, d) for p, a, d in files])
        return rid, True

    def get_records(self, ids: list[int], links: bool = True) -> dict[int, ExecutionRecord]:
        want = [int(i) for i in dict.fromkeys(ids)]
        rows = {int(r[0]): dict(zip(_COLS, r, strict=True)) for r in self.all(
            f"SELECT {', '.join(_COLS)} FROM {{s}}.exec_records WHERE id = ANY(%s)", (want,))}
        linked: dict[int, list[tuple[str, str, str, str, str, str]]] = {}
        files: dict[int, list[str]] = {}
        if links and rows:
            for rid, path, local, role, change, old, new in self.all(
                    _LINKS + " WHERE l.record_id = ANY(%s) ORDER BY l.record_id, l.seq",
                    (want,)):
                linked.setdefault(rid, []).append((path, local, _NAME[role], change, old, new))
            for rid, path in self.all("SELECT record_id, path FROM {s}.exec_record_files "
                                      "WHERE record_id = ANY(%s) ORDER BY id", (want,)):
                files.setdefault(rid, []).append(path)
        return {i: _record(r, linked.get(i, []), files.get(i, [])) for i, r in rows.items()}

    def record_ids(self, *, symbols: list[tuple[str, str]] | None = None,
                   names: list[str] | None = None, paths: list[str] | None = None,
                   roles: tuple[str, ...] | None = None, outcome: str | None = None,
                   session: str | None = None, branch: str | None = None,
                   since: float | None = None, until: float | None = None,
                   scope: str | None = None, limit: int = 1000) -> list[int]:
        where, args = record_where(symbols=symbols, names=names, paths=paths, roles=roles,
                                   outcome=outcome, session=session, branch=branch,
                                   since=since, until=until, scope=scope, ph="%s",
                                   prefix="{s}.")
        sql = f"SELECT r.id FROM {{s}}.exec_records r{where} ORDER BY {ORDER} LIMIT %s"
        return [int(r[0]) for r in self.all(sql, [*args, int(limit)])]

    def changed_between(self, after: int, upto: int) -> list[tuple[int, str, str, str]]:
        return [(int(r[0]), r[1], r[2], r[4]) for r in self.all(
            _LINKS + " WHERE l.record_id > %s AND l.record_id <= %s AND l.role = 'c' "
            "ORDER BY l.record_id, l.seq", (after, upto))]

    def update_records(self, items: list[tuple[int, dict[str, Any]]]) -> None:
        if not items:
            return
        for _rid, values in items:
            bad = set(values) - _UPDATABLE
            if bad:
                raise ValueError(f"not updatable: {sorted(bad)}")
        with self._write() as c:
            for rid, values in items:
                cols = sorted(values)
                vals = [int(bool(values[k])) if k == "verified" else values[k] for k in cols]
                c.execute(self.q(f"UPDATE {{s}}.exec_records SET "
                                 f"{', '.join(f'{k} = %s' for k in cols)} WHERE id = %s"),
                          no_nul([*vals, rid]))

    def touch_records(self, ids: list[int], ts: float) -> None:
        if not ids:
            return
        with self._write() as c:
            c.cursor().executemany(self.q(
                "UPDATE {s}.exec_records SET retrievals = retrievals + 1, "
                "last_retrieved_ts = %s WHERE id = %s"), [(ts, int(i)) for i in ids])

    def linked_symbols(self, ids: list[int]) -> list[tuple[int, str, str, str]]:
        return [(int(r[0]), r[1], r[2], _NAME[r[3]]) for r in self.all(
            _LINKS + " WHERE l.record_id = ANY(%s) ORDER BY l.record_id, l.seq",
            ([int(i) for i in ids],))]

    def linked_files(self, ids: list[int]) -> list[tuple[int, str]]:
        return [(int(r[0]), r[1]) for r in self.all(
            "SELECT record_id, path FROM {s}.exec_record_files WHERE record_id = ANY(%s) "
            "ORDER BY record_id, id", ([int(i) for i in ids],))]

    def resolved_by(self, ids: list[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        for f in dict.fromkeys(int(i) for i in ids):
            got = self.all(
                "SELECT min(r.id) FROM {s}.exec_records r WHERE r.id > %s AND "
                "r.outcome = 'success' AND r.scope != '' AND (r.scope = 'suite' OR r.id IN ("
                "SELECT l2.record_id FROM {s}.exec_links l2 WHERE l2.record_id > %s AND "
                "l2.symbol_id IN (SELECT l.symbol_id FROM {s}.exec_links l WHERE "
                "l.record_id = %s AND l.role IN ('t', 'c'))))", (f, f, f))
            if got and got[0][0] is not None:
                out[f] = int(got[0][0])
        return out

    def delete_records(self, ids: list[int]) -> int:
        want = [int(i) for i in ids]
        with self._write() as c:
            n = c.execute(self.q("DELETE FROM {s}.exec_records WHERE id = ANY(%s)"),
                          (want,)).rowcount
            c.execute(self.q("DELETE FROM {s}.exec_links WHERE record_id = ANY(%s)"), (want,))
            c.execute(self.q("DELETE FROM {s}.exec_record_files WHERE record_id = ANY(%s)"),
                      (want,))
            c.execute(self.q("DELETE FROM {s}.exec_symbols s WHERE NOT EXISTS (SELECT 1 FROM "
                             "{s}.exec_links l WHERE l.symbol_id = s.id)"))
        return int(n)

    def record_counts(self) -> dict[str, int]:
        out = {o: 0 for o in ("success", "failure", "interrupted", "unknown")}
        for outcome, n in self.all("SELECT outcome, count(*) FROM {s}.exec_records "
                                   "GROUP BY outcome"):
            out[outcome] = int(n)
        out["verified"] = int(self.all("SELECT count(*) FROM {s}.exec_records WHERE "
                                       "verified = 1")[0][0])
        return out
