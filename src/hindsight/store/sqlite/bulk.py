"""A full rebuild of the code index, fed while it runs (issue 14, item 5).

The rebuild of the bank's tables is one transaction: readers see the old index until it
commits, and a failure leaves the old index. Its write lock is taken only once parsing is
done (:meth:`SqliteBulkLoad.begin_write`): the files, symbols and notes that arrive while
parsing goes on are staged in a scratch *intake* file, so other writers (hooks retaining
memories) are not kept waiting through a long parse. Secondary indexes are dropped during
the load; those of files, symbols and notes are built as soon as those rows are in (while
the resolvers run), those of edges and deps at the end.

Edges are written by forked resolver processes, not by this one: each child writes its
rows into its own *part* file (a scratch SQLite database with the ``edges`` and ``deps``
tables and no index), and this process copies a finished part with one
``INSERT … SELECT`` (C speed, no Python object per row). SQLite refuses ``ATTACH`` inside a
transaction, so the intake and part files are made and attached first; and because
``BEGIN IMMEDIATE`` would take the write lock of every attached file (the children could
not write them), the transaction begins deferred and takes the bank's write lock with its
first statement, a write to the main database, retried until the busy timeout as
``BEGIN IMMEDIATE`` would wait. SQLite attaches at most 10 databases: the intake and at
most :data:`MAX_PARTS` parts.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import time
from typing import Any

from hindsight.config.paths import scratch_dir
from hindsight.errors import StorageError
from hindsight.store.sqlite.db import INDEXES, create_indexes, db_path, drop_indexes

MAX_PARTS = 8
# how long a resolver child waits for a part file's lock (s): nothing else writes a part, so
# a wait means a lock is held by mistake; the child then fails and its share is resolved by
# the main process (slower, never a hang)
PART_BUSY_S = 10.0
_PART_SCHEMA = (
    "CREATE TABLE edges(file_id INTEGER NOT NULL, src TEXT NOT NULL, kind TEXT NOT NULL, "
    "name TEXT NOT NULL, receiver TEXT NOT NULL, alias TEXT NOT NULL, line INTEGER NOT NULL, "
    "dst TEXT NOT NULL)",
    "CREATE TABLE deps(file_id INTEGER NOT NULL, key TEXT NOT NULL)",
    "CREATE TABLE counts(edges INTEGER, calls INTEGER, unresolved_calls INTEGER)",
)
# the files, symbols, notes and receiver facts of main, staged while parsing runs (same columns)
_INTAKE_SCHEMA = (
    "CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT, language TEXT, size INTEGER, "
    "mtime_ns INTEGER, content_hash TEXT, lines INTEGER, module TEXT, dir TEXT, "
    "package TEXT, error TEXT)",
    "CREATE TABLE symbols(id INTEGER PRIMARY KEY, file_id INTEGER, name TEXT, local TEXT, "
    "fold TEXT, kind TEXT, parent TEXT, start_line INTEGER, start_col INTEGER, "
    "end_line INTEGER, end_col INTEGER, signature TEXT, doc TEXT, language TEXT, "
    "ast_hash TEXT)",
    "CREATE TABLE notes(file_id INTEGER, src TEXT, line INTEGER, text TEXT)",
    "CREATE TABLE facts(file_id INTEGER, scope TEXT, target TEXT, value TEXT, line INTEGER)",
    "CREATE TABLE filesyms(file_id INTEGER PRIMARY KEY, data BLOB)",
)
_EDGE_INSERT = "INSERT INTO edges VALUES(?,?,?,?,?,?,?,?)"
_DEP_INSERT = "INSERT INTO deps VALUES(?,?)"
CODE_TABLES = ("files", "symbols", "edges", "deps", "notes", "facts", "filesyms")
_STAGED = ("files", "symbols", "notes", "facts", "filesyms")  # copied from the intake by begin_write


class PartWriter:
    """Writes edge and dependency rows into part files; made by :class:`SqliteBulkLoad`
    and used in forked child processes (it holds paths, never a connection)."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths

    def __call__(self, part: int, edges: list[tuple[Any, ...]],
                 deps: list[tuple[int, str]]) -> None:
        """Append ``edges`` ``(file_id, src, kind, name, receiver, alias, line, dst)`` and
        ``deps`` ``(file_id, key)`` to part ``part`` (0-based, below the number of parts) in
        one transaction (a child may call it several times; rows keep their order). Raises sqlite3.Error (the caller is a child process that reports
        failure by its exit status)."""
        c = sqlite3.connect(self.paths[part], timeout=PART_BUSY_S, isolation_level=None)
        try:
            c.execute("PRAGMA synchronous=OFF")
            c.execute("BEGIN IMMEDIATE")
            c.executemany(_EDGE_INSERT, edges)
            c.executemany(_DEP_INSERT, deps)
            calls = [e[7] for e in edges if e[2] == "call"]
            c.execute("INSERT INTO counts VALUES(?,?,?)",
                      (len(edges), len(calls), calls.count("")))
            c.execute("COMMIT")
        finally:
            c.close()


class SqliteBulkLoad:
    """One full rebuild of a bank's code index (use as a context manager: leaving it by an
    exception rolls everything back; :meth:`finish` commits). ``parts``: how many part files
    forked writers may fill (capped at :data:`MAX_PARTS`; 0 for none). Every row must be
    redacted by the caller already (``hindsight.redact.clean`` on signatures, docstrings
    and note texts): a full build does that in its worker processes.

    Files, symbols and notes added while parsing goes on are staged in a scratch *intake*
    file, so the bank's write lock is not held meanwhile (other writers, such as hooks
    retaining memories, go on); :meth:`begin_write` takes the lock and copies them in."""

    def __init__(self, conn: sqlite3.Connection, parts: int, busy_ms: int) -> None:
        self.c = conn
        self.where = db_path(conn)
        self.dir = ""
        self.paths: list[str] = []
        self.parts = 0
        self._symbols = 0
        self._edge_counts = dict.fromkeys(("edges", "calls", "unresolved_calls"), 0)
        self._attached: list[str] = []
        self._open = False
        self._busy_ms = busy_ms
        try:
            self.dir = scratch_dir("parts")
            self._attach(self._new_part("intake", _INTAKE_SCHEMA), "intake")
            conn.execute("PRAGMA intake.journal_mode=OFF")
            for i in range(max(0, min(parts, MAX_PARTS))):
                self.paths.append(self._new_part(f"part{i}", _PART_SCHEMA))
                self._attach(self.paths[i], f"part{i}")
            self.parts = len(self.paths)
        except sqlite3.Error as e:
            self._close(rollback=True)
            raise StorageError(f"{self.where}: cannot start a full rebuild: {e}",
                               path=self.where) from e
        except BaseException:
            self._close(rollback=True)
            raise

    def _new_part(self, name: str, schema: tuple[str, ...]) -> str:
        path = os.path.join(self.dir, f"{name}.db")
        p = sqlite3.connect(path, isolation_level=None)
        try:
            p.execute("PRAGMA synchronous=OFF")  # scratch: no fsync
            for stmt in schema:
                p.execute(stmt)
        finally:
            p.close()
        return path

    def _attach(self, path: str, name: str) -> None:
        self.c.execute(f"ATTACH DATABASE ? AS {name}", (path,))
        self._attached.append(name)

    def _begin(self, busy_ms: int) -> None:
        """Deferred BEGIN, then the first write takes the bank's write lock; a busy bank
        is retried until ``busy_ms`` ms have passed (as BEGIN IMMEDIATE would wait)."""
        deadline = time.monotonic() + busy_ms / 1000
        while True:
            self.c.execute("BEGIN")
            try:
                self.c.execute("DELETE FROM main.files")
                self._open = True
                return
            except sqlite3.OperationalError as e:
                self.c.execute("ROLLBACK")
                if ("locked" not in str(e) and "busy" not in str(e)) or \
                        time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    # --- feeding ---------------------------------------------------------------------------
    def add(self, files: list[tuple[Any, ...]], symbols: list[tuple[Any, ...]],
            notes: list[tuple[Any, ...]], facts: list[tuple[Any, ...]] | None = None,
            dumps: list[tuple[int, bytes]] | None = None) -> None:
        """Stage ``files`` ``(id, path, language, size, mtime_ns, content_hash, lines,
        module, package, error)``, ``symbols`` ``(file_id, name, local, fold, kind, parent,
        start_line, start_col, end_line, end_col, signature, doc, language, ast_hash)``,
        ``notes`` ``(file_id, src, line, text)``, receiver ``facts`` ``(file_id, scope,
        target, value, line)`` and ``dumps`` ``(file_id, FileSyms.dumps() bytes)`` (before
        :meth:`begin_write`)."""
        c = self.c
        c.execute("BEGIN")  # the first write is to the intake: only its lock is taken
        try:
            c.executemany(
                "INSERT INTO intake.files VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                [(*f[:8], f[1].rpartition("/")[0], *f[8:]) for f in files])
            c.executemany("INSERT INTO intake.symbols(file_id, name, local, fold, kind, "
                          "parent, start_line, start_col, end_line, end_col, signature, doc, "
                          "language, ast_hash) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", symbols)
            if notes:
                c.executemany("INSERT INTO intake.notes VALUES(?,?,?,?)", notes)
            if facts:
                c.executemany("INSERT INTO intake.facts VALUES(?,?,?,?,?)", facts)
            if dumps:
                c.executemany("INSERT INTO intake.filesyms VALUES(?,?)", dumps)
            c.execute("COMMIT")
        except BaseException:
            _rollback(c)
            raise
        self._symbols += len(symbols)

    def begin_write(self) -> None:
        """Take the bank's write lock (waiting as :func:`_begin` does), delete the old
        index, copy in the staged files, symbols, notes and facts and build their indexes."""
        c = self.c
        self._begin(self._busy_ms)
        drop_indexes(c)
        for t in CODE_TABLES[1:]:
            c.execute(f"DELETE FROM main.{t}")
        for t in _STAGED:
            c.execute(f"INSERT INTO main.{t} SELECT * FROM intake.{t} ORDER BY rowid")
        for name, target in INDEXES:
            if target.split("(", 1)[0] in _STAGED:
                c.execute(f"CREATE INDEX IF NOT EXISTS main.{name} ON {target}")

    def _count(self, edges: list[tuple[Any, ...]]) -> None:
        n = self._edge_counts
        n["edges"] += len(edges)
        for e in edges:
            if e[2] == "call":
                n["calls"] += 1
                n["unresolved_calls"] += e[7] == ""

    def set_modules(self, modules: dict[int, str]) -> None:
        """Change the module of files already added (file id → module)."""
        c = self.c
        c.execute("BEGIN")
        try:
            c.executemany("UPDATE intake.files SET module=? WHERE id=?",
                          [(m, i) for i, m in modules.items()])
            c.execute("COMMIT")
        except BaseException:
            _rollback(c)
            raise

    def add_edges(self, edges: list[tuple[Any, ...]], deps: list[tuple[int, str]]) -> None:
        """Insert edge and dependency rows directly (shapes as :class:`PartWriter`)."""
        self.c.executemany(_EDGE_INSERT.replace("INTO", "INTO main.", 1), edges)
        self.c.executemany(_DEP_INSERT.replace("INTO", "INTO main.", 1), deps)
        self._count(edges)

    def part_writer(self) -> PartWriter:
        """A writer for the part files, for forked child processes."""
        return PartWriter(list(self.paths))

    def merge_part(self, part: int) -> None:
        """Copy the rows a child wrote into part ``part`` (in their order)."""
        self.c.execute(f"INSERT INTO main.edges SELECT * FROM part{part}.edges ORDER BY rowid")
        self.c.execute(f"INSERT INTO main.deps SELECT * FROM part{part}.deps ORDER BY rowid")
        for row in self.c.execute(f"SELECT * FROM part{part}.counts"):
            for k, v in zip(("edges", "calls", "unresolved_calls"), row, strict=True):
                self._edge_counts[k] += v

    # --- end -------------------------------------------------------------------------------
    def finish(self, skipped: dict[str, str], skip_counts: dict[str, int]) -> dict[str, int]:
        """Write the skip lists and the counts, build the secondary indexes, commit.
        Returns the counts (``symbols``, ``edges``, ``calls``, ``unresolved_calls``)."""
        c = self.c
        c.execute("DELETE FROM main.skipped")
        c.executemany("INSERT OR REPLACE INTO main.skipped VALUES(?,?)", sorted(skipped.items()))
        c.execute("DELETE FROM main.skip_counts")
        c.executemany("INSERT INTO main.skip_counts VALUES(?,?)", sorted(skip_counts.items()))
        totals = {"symbols": self._symbols, **self._edge_counts}
        c.executemany("INSERT OR REPLACE INTO main.meta VALUES(?, ?)",
                      [(f"count_{k}", str(v)) for k, v in totals.items()])
        create_indexes(c)
        c.execute("COMMIT")
        self._open = False
        self._close(rollback=False)
        c.execute("PRAGMA optimize")
        checkpoint(c)
        return totals

    def _close(self, rollback: bool) -> None:
        if rollback and self._open:
            with contextlib.suppress(sqlite3.Error):
                self.c.execute("ROLLBACK")
            self._open = False
        for name in self._attached:
            with contextlib.suppress(sqlite3.Error):
                self.c.execute(f"DETACH DATABASE {name}")
        self._attached = []
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = ""

    def __enter__(self) -> SqliteBulkLoad:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        scratch = self.dir
        if self._open or self._attached or self.dir:
            self._close(rollback=True)
        if isinstance(exc, sqlite3.Error):
            where = f" (the scratch files are in {os.path.dirname(scratch)}: TMPDIR)" \
                if scratch and "full" in str(exc) else ""
            raise StorageError(f"{self.where}: full rebuild failed, nothing changed: {exc}"
                               f"{where}", path=self.where) from exc


def _rollback(c: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on SQLITE_FULL,
    or when the interrupt came after COMMIT): a failed ROLLBACK never hides what raised."""
    if c.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            c.execute("ROLLBACK")


def checkpoint(c: sqlite3.Connection) -> None:
    """Truncate the write-ahead log after a rebuild, without waiting: with the busy
    handler on, ``wal_checkpoint(TRUNCATE)`` waits out the busy timeout for any open
    reader and keeps writers out meanwhile (break24). When readers are there the log stays
    (a later checkpoint truncates it)."""
    busy = int(c.execute("PRAGMA busy_timeout").fetchone()[0])
    try:
        c.execute("PRAGMA busy_timeout=0")
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:
        pass  # busy: left for later
    finally:
        c.execute(f"PRAGMA busy_timeout={busy}")
