"""SQLite implementation of :class:`hindsight.store.base.RecordStore` (tables of migration
``0011_execution_records`` in ``store/sqlite/db.py``). A linked symbol is stored once
(``exec_symbols``); a record's links are small rows of ids (``exec_links``, roles as one
letter), so that a record stays a few KB with its indexes (``bench/records.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from hindsight.models import ExecutionRecord, Observation, SymbolDelta
from hindsight.store.base import RecordLink
from hindsight.store.recordsql import ORDER, ROLE, record_where
from hindsight.store.sqlite.db import SqliteStore, chunks, rows_as_dicts, transaction

_COLUMNS = ("fingerprint", "tool", "command", "started_at", "started_ts", "duration_ms",
            "exit_code", "outcome", "observation", "diff_summary", "scope", "root", "branch",
            "head", "cwd", "session", "agent", "feedback", "verified", "verified_ts")
_UPDATABLE = frozenset({"feedback", "verified", "verified_ts", "runs", "runs_passed"})
_ROLE = ROLE
_NAME = {v: k for k, v in _ROLE.items()}
_LINKS = ("SELECT l.record_id, s.path, s.local, l.role, l.change, l.old_hash, l.new_hash "
          "FROM exec_links l JOIN exec_symbols s ON s.id = l.symbol_id")


def _simple(local: str) -> str:
    """The last part of a local qualified name (what a bare name looks up)."""
    from hindsight.models import simple_name

    return simple_name(local)


class SqliteRecordStore(SqliteStore):
    """The execution records of one bank database."""

    _batch = False

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Inside, every write of this store is part of one transaction (committed at the
        end, rolled back on an error); nested batches join the outer one."""
        if self._batch:
            yield
            return
        with transaction(self.conn):
            self._batch = True
            try:
                yield
            finally:
                self._batch = False

    def _tx(self) -> Any:
        return nullcontext(self.conn) if self._batch else transaction(self.conn)

    def _symbol_ids(self, c: Any, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """Ids of (path, local) pairs, adding the missing ones (inside a transaction)."""
        out: dict[tuple[str, str], int] = {}
        for pair in dict.fromkeys(pairs):
            got = c.execute("SELECT id FROM exec_symbols WHERE path=? AND local=?",
                            pair).fetchone()
            out[pair] = got[0] if got else int(c.execute(
                "INSERT INTO exec_symbols(path, local, name) VALUES(?,?,?)",
                (*pair, _simple(pair[1]))).lastrowid or 0)
        return out

    def insert_record(self, row: dict[str, Any], links: list[RecordLink],
                      files: list[tuple[str, int, int]]) -> tuple[int, bool]:
        row = {"feedback": "", "verified": 0, "verified_ts": 0.0, **row}
        values = [row.get(c) for c in _COLUMNS]  # a missing field: NOT NULL fails below
        values[_COLUMNS.index("verified")] = int(bool(row["verified"]))
        with self._tx() as c:
            got = c.execute("SELECT id FROM exec_records WHERE fingerprint=?",
                            (row["fingerprint"],)).fetchone()
            if got is not None:
                return int(got[0]), False
            cur = c.execute(f"INSERT INTO exec_records({', '.join(_COLUMNS)}) VALUES("
                            f"{', '.join('?' * len(_COLUMNS))})", values)
            rid = int(cur.lastrowid or 0)
            ids = self._symbol_ids(c, [(p, loc) for p, loc, *_ in links])
            c.executemany("INSERT INTO exec_links(record_id, seq, symbol_id, role, change, "
                          "old_hash, new_hash) VALUES(?,?,?,?,?,?,?)",
                          [(rid, n, ids[(p, loc)], _ROLE[role], ch, old, new)
                           for n, (p, loc, role, ch, old, new) in enumerate(links)])
            c.executemany("INSERT INTO exec_record_files(record_id, path, added, deleted) "
                          "VALUES(?,?,?,?)", [(rid, *f) for f in files])
        return rid, True

    def get_records(self, ids: list[int], links: bool = True) -> dict[int, ExecutionRecord]:
        rows: dict[int, dict[str, Any]] = {}
        linked: dict[int, list[tuple[str, str, str, str, str, str]]] = {}
        files: dict[int, list[str]] = {}
        for ch in chunks(list(dict.fromkeys(ids))):
            q = ",".join("?" * len(ch))
            for r in rows_as_dicts(self.conn.execute(
                    f"SELECT * FROM exec_records WHERE id IN ({q})", ch)):
                rows[r["id"]] = r
            if not links:
                continue
            for rid, path, local, role, change, old, new in self.conn.execute(
                    f"{_LINKS} WHERE l.record_id IN ({q}) ORDER BY l.record_id, l.seq", ch):
                linked.setdefault(rid, []).append((path, local, _NAME[role], change, old,
                                                   new))
            for rid, path in self.conn.execute(
                    f"SELECT record_id, path FROM exec_record_files WHERE record_id IN ({q}) "
                    "ORDER BY rowid", ch):
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
                                   since=since, until=until, scope=scope, ph="?",
                                   prefix="")
        sql = f"SELECT r.id FROM exec_records r{where} ORDER BY {ORDER} LIMIT ?"
        return [r[0] for r in self.conn.execute(sql, [*args, int(limit)])]

    def changed_between(self, after: int, upto: int) -> list[tuple[int, str, str, str]]:
        return [(r[0], r[1], r[2], r[4]) for r in self.conn.execute(
            f"{_LINKS} WHERE l.record_id > ? AND l.record_id <= ? AND l.role='c' "
            "ORDER BY l.record_id, l.seq", (after, upto))]

    def update_records(self, items: list[tuple[int, dict[str, Any]]]) -> None:
        if not items:
            return
        for _rid, values in items:
            bad = set(values) - _UPDATABLE
            if bad:
                raise ValueError(f"not updatable: {sorted(bad)}")
        with self._tx() as c:
            for rid, values in items:
                cols = sorted(values)
                c.execute(f"UPDATE exec_records SET {', '.join(f'{k}=?' for k in cols)} "
                          "WHERE id=?", [*(values[k] for k in cols), rid])

    def touch_records(self, ids: list[int], ts: float) -> None:
        if not ids:
            return
        with self._tx() as c:
            c.executemany("UPDATE exec_records SET retrievals=retrievals+1, "
                          "last_retrieved_ts=? WHERE id=?", [(ts, i) for i in ids])

    def linked_symbols(self, ids: list[int]) -> list[tuple[int, str, str, str]]:
        out: list[tuple[int, str, str, str]] = []
        for ch in chunks(list(ids)):
            q = ",".join("?" * len(ch))
            out += [(r[0], r[1], r[2], _NAME[r[3]]) for r in self.conn.execute(
                f"{_LINKS} WHERE l.record_id IN ({q}) ORDER BY l.record_id, l.seq", ch)]
        return out

    def linked_files(self, ids: list[int]) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        for ch in chunks(list(ids)):
            q = ",".join("?" * len(ch))
            out += [(r[0], r[1]) for r in self.conn.execute(
                f"SELECT record_id, path FROM exec_record_files WHERE record_id IN ({q}) "
                "ORDER BY record_id, rowid", ch)]
        return out

    def resolved_by(self, ids: list[int]) -> dict[int, int]:
        out: dict[int, int] = {}
        for f in dict.fromkeys(ids):
            got = self.conn.execute(
                "SELECT min(r.id) FROM exec_records r WHERE r.id > ?1 AND "
                "r.outcome='success' AND r.scope != '' AND (r.scope='suite' OR r.id IN ("
                "SELECT l2.record_id FROM exec_links l2 WHERE l2.record_id > ?1 AND "
                "l2.symbol_id IN (SELECT l.symbol_id FROM exec_links l WHERE l.record_id=?1 "
                "AND l.role IN ('t', 'c'))))", (f,)).fetchone()
            if got and got[0] is not None:
                out[f] = int(got[0])
        return out

    def delete_records(self, ids: list[int]) -> int:
        n = 0
        with self._tx() as c:
            for ch in chunks(list(ids)):
                q = ",".join("?" * len(ch))
                n += c.execute(f"DELETE FROM exec_records WHERE id IN ({q})", ch).rowcount
                c.execute(f"DELETE FROM exec_links WHERE record_id IN ({q})", ch)
                c.execute(f"DELETE FROM exec_record_files WHERE record_id IN ({q})", ch)
            c.execute("DELETE FROM exec_symbols WHERE id NOT IN (SELECT symbol_id FROM "
                      "exec_links)")
        return n

    def record_counts(self) -> dict[str, int]:
        out = {o: 0 for o in ("success", "failure", "interrupted", "unknown")}
        for outcome, n in self.conn.execute(
                "SELECT outcome, count(*) FROM exec_records GROUP BY outcome"):
            out[outcome] = n
        out["verified"] = self.conn.execute(
            "SELECT count(*) FROM exec_records WHERE verified=1").fetchone()[0]
        return out


def _record(r: dict[str, Any], links: list[tuple[str, str, str, str, str, str]],
            files: list[str]) -> ExecutionRecord:
    changes = tuple(SymbolDelta(p, loc, ch, old, new) for p, loc, role, ch, old, new in links
                    if role == "changed")
    exercised = tuple(dict.fromkeys(f"{p}::{loc}" for p, loc, role, *_ in links
                                    if role != "changed"))
    return ExecutionRecord(
        r["id"], r["tool"], r["command"], r["started_at"], r["started_ts"], r["duration_ms"],
        r["exit_code"], r["outcome"], Observation.from_dict(json.loads(r["observation"])),
        tuple(files), changes, r["diff_summary"], exercised, r["scope"], r["root"],
        r["branch"], r["head"], r["cwd"], r["session"], r["agent"], r["feedback"],
        bool(r["verified"]), float(r["verified_ts"]), int(r["retrievals"]), int(r["runs"]),
        int(r["runs_passed"]))
