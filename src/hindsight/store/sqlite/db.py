"""SQLite connection set-up and named migrations.

Connection rules (docs/design.md, Storage): ``busy_timeout`` is set before anything
else so concurrent writers wait instead of failing with "database is locked"; then WAL,
``synchronous=NORMAL`` (durable at checkpoints, safe in WAL), foreign keys off (we delete
by ``file_id`` ourselves). Migrations are named, applied in order inside a transaction, and
recorded in ``migrations``; ``meta.schema_version`` is the count applied.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from hindsight.config.paths import Home
from hindsight.errors import StorageError

BUSY_TIMEOUT_MS = 30_000  # default of setting busyTimeoutMs (HINDSIGHT_BUSY_TIMEOUT_MS)


def _busy_ms() -> int:
    """Setting ``busyTimeoutMs`` (environment and config file top level). Raises
    :class:`~hindsight.errors.ConfigError` when the settings are invalid."""
    from hindsight.config.settings import load

    return load().busy_timeout_ms


MIGRATIONS: list[tuple[str, str]] = [
    ("0001_code_index", """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, language TEXT NOT NULL,
  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, content_hash TEXT NOT NULL,
  lines INTEGER NOT NULL, module TEXT NOT NULL DEFAULT '', dir TEXT NOT NULL DEFAULT '',
  package TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '');
CREATE TABLE skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE skip_counts(reason TEXT PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE symbols(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, local TEXT NOT NULL,
  fold TEXT NOT NULL, kind TEXT NOT NULL, parent TEXT NOT NULL, start_line INTEGER NOT NULL,
  start_col INTEGER NOT NULL, end_line INTEGER NOT NULL, end_col INTEGER NOT NULL,
  signature TEXT NOT NULL, doc TEXT NOT NULL, language TEXT NOT NULL, ast_hash TEXT NOT NULL);
-- edges.src is the caller local qualified name (its file is file_id), dst is a full
-- qualified name ("path::local", "path::" for a whole module) or '' when unresolved.
CREATE TABLE edges(
  file_id INTEGER NOT NULL, src TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
  receiver TEXT NOT NULL, alias TEXT NOT NULL, line INTEGER NOT NULL, dst TEXT NOT NULL);
CREATE TABLE deps(file_id INTEGER NOT NULL, key TEXT NOT NULL);
CREATE TABLE notes(file_id INTEGER NOT NULL, src TEXT NOT NULL, line INTEGER NOT NULL,
  text TEXT NOT NULL);
"""),
    ("0002_history", """
-- git history (L3). Dates are ISO 8601 with the original UTC offset, *_ts Unix seconds.
-- seq orders commits of equal committer time (higher = newer).
CREATE TABLE commits(
  sha TEXT PRIMARY KEY, seq INTEGER NOT NULL, parents TEXT NOT NULL,
  author_name TEXT NOT NULL, author_email TEXT NOT NULL, author_date TEXT NOT NULL,
  author_ts INTEGER NOT NULL, committer_date TEXT NOT NULL, committer_ts INTEGER NOT NULL,
  message TEXT NOT NULL, subject TEXT NOT NULL, n_files INTEGER NOT NULL,
  huge INTEGER NOT NULL DEFAULT 0, boundary INTEGER NOT NULL DEFAULT 0,
  expanded INTEGER NOT NULL DEFAULT 0, fix INTEGER NOT NULL DEFAULT 0,
  reachable INTEGER NOT NULL DEFAULT 1, unreachable_at TEXT NOT NULL DEFAULT '');
CREATE INDEX ix_commits_order ON commits(committer_ts, seq);
CREATE TABLE commit_files(
  sha TEXT NOT NULL, path TEXT NOT NULL, old_path TEXT NOT NULL, status TEXT NOT NULL,
  added INTEGER NOT NULL, deleted INTEGER NOT NULL);
CREATE INDEX ix_commit_files_sha ON commit_files(sha);
CREATE INDEX ix_commit_files_path ON commit_files(path);
-- change: added | modified | moved | removed. A move keeps where the symbol came from
-- (old_path, old_local), old_hash/new_hash are ast hashes ('' when absent).
CREATE TABLE symbol_changes(
  sha TEXT NOT NULL, path TEXT NOT NULL, local TEXT NOT NULL, kind TEXT NOT NULL,
  change TEXT NOT NULL, old_path TEXT NOT NULL, old_local TEXT NOT NULL,
  old_hash TEXT NOT NULL, new_hash TEXT NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL);
CREATE INDEX ix_symchanges_sym ON symbol_changes(path, local);
CREATE INDEX ix_symchanges_sha ON symbol_changes(sha);
-- live edit trace. ranges: JSON [[old_start, old_count, new_start, new_count], ...]
CREATE TABLE trace_events(
  id INTEGER PRIMARY KEY, ts TEXT NOT NULL, ts_unix REAL NOT NULL, path TEXT NOT NULL,
  old_path TEXT NOT NULL, action TEXT NOT NULL, old_hash TEXT NOT NULL,
  new_hash TEXT NOT NULL, ranges TEXT NOT NULL, actor TEXT NOT NULL, session TEXT NOT NULL,
  branch TEXT NOT NULL, head TEXT NOT NULL);
CREATE INDEX ix_trace_path ON trace_events(path, ts_unix);
CREATE INDEX ix_trace_ts ON trace_events(ts_unix);
CREATE TABLE trace_symbols(
  event_id INTEGER NOT NULL, path TEXT NOT NULL, local TEXT NOT NULL, kind TEXT NOT NULL, change TEXT NOT NULL,
  old_hash TEXT NOT NULL, new_hash TEXT NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL);
CREATE INDEX ix_trace_symbols_event ON trace_symbols(event_id);
CREATE INDEX ix_trace_symbols_local ON trace_symbols(local);
"""),
    ("0003_memory", """
-- experience memory. Times: ISO 8601 with UTC offset plus Unix seconds (*_ts).
CREATE TABLE memories(
  id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, text TEXT NOT NULL,
  kind TEXT NOT NULL, scene TEXT NOT NULL DEFAULT '', problem TEXT NOT NULL DEFAULT '',
  solution TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]', context TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT 'api', session TEXT NOT NULL DEFAULT '',
  agent TEXT NOT NULL DEFAULT '', commit_sha TEXT NOT NULL DEFAULT '',
  ref TEXT NOT NULL DEFAULT '', occurred_at TEXT NOT NULL, occurred_ts REAL NOT NULL,
  created_at TEXT NOT NULL, created_ts REAL NOT NULL, access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_ts REAL NOT NULL, confidence REAL NOT NULL DEFAULT 1.0,
  status TEXT NOT NULL DEFAULT 'active', status_reason TEXT NOT NULL DEFAULT '',
  status_at TEXT NOT NULL DEFAULT '', superseded_by INTEGER,
  visibility TEXT NOT NULL DEFAULT 'team', owner TEXT NOT NULL DEFAULT '',
  stale INTEGER NOT NULL DEFAULT 0, stale_reason TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '', vector BLOB);
CREATE INDEX ix_memories_status ON memories(status, kind);
CREATE INDEX ix_memories_occurred ON memories(occurred_ts);
CREATE INDEX ix_memories_session ON memories(session, id) WHERE session != '';
CREATE TABLE memory_anchors(
  memory_id INTEGER NOT NULL, path TEXT NOT NULL, symbol TEXT NOT NULL DEFAULT '',
  ast_hash TEXT NOT NULL DEFAULT '', stale INTEGER NOT NULL DEFAULT 0,
  reason TEXT NOT NULL DEFAULT '');
CREATE INDEX ix_anchor_mem ON memory_anchors(memory_id);
CREATE INDEX ix_anchor_path ON memory_anchors(path, symbol);
CREATE VIRTUAL TABLE memory_fts USING fts5(body, context,
  tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE memory_audit(
  id INTEGER PRIMARY KEY, memory_id INTEGER NOT NULL, at TEXT NOT NULL,
  action TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '');
CREATE INDEX ix_audit_mem ON memory_audit(memory_id);
"""),
    ("0004_implicit_anchors", """
-- implicit = 1: an anchor found in the memory's text (memory/implicit.py), 0: given with it
ALTER TABLE memory_anchors ADD COLUMN implicit INTEGER NOT NULL DEFAULT 0;
"""),
    ("0005_memory_agent", """
-- recall looks up the agents a query names (memory/features.py)
CREATE INDEX ix_memories_agent ON memories(agent);
"""),
    ("0006_huge_commit_files", """
-- files of huge commits whose symbol changes were computed later, when a history question
-- needed them (history/lazy.py): their rows are in symbol_changes like any other.
CREATE TABLE huge_files_done(sha TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY(sha, path));
CREATE INDEX ix_commit_files_old ON commit_files(old_path) WHERE old_path != '';
"""),
    ("0007_lexical", """
-- the lexical index (docs/design.md, "Lexical engine"): terms come from
-- hindsight.memory.segment, scores are computed by hindsight.memory.lexical.
-- lex_blocks.key = term id * 2^24 + block number, data = up to 128 postings of 12 bytes,
-- little-endian (memory id u32, tf body u16, tf context u16, len body u16, len context u16).
CREATE TABLE lex_terms(id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL);
CREATE TABLE lex_blocks(key INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE lex_docs(memory_id INTEGER PRIMARY KEY, len_body INTEGER NOT NULL,
  len_context INTEGER NOT NULL);
CREATE TABLE lex_stats(id INTEGER PRIMARY KEY CHECK (id = 1), docs INTEGER NOT NULL,
  len_body INTEGER NOT NULL, len_context INTEGER NOT NULL);
INSERT INTO lex_stats VALUES(1, 0, 0, 0);
-- the FTS5 table of 0003 is replaced: lexical.ensure builds the new index from the rows
DROP TABLE memory_fts;
"""),
    ("0008_vector_seq", """
-- the set_vectors call that stored a row's vector, in order: processes holding the vectors
-- in memory read only the rows stamped after what they hold (store/sqlite/vectors.py)
ALTER TABLE memories ADD COLUMN vec_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ix_memories_vec_seq ON memories(vec_seq);
"""),
    ("0009_receiver_facts", """
-- receiver facts of each file (codeindex/receivers.py), read back when an unchanged file
-- is re-resolved. Banks indexed before this table existed are re-indexed in full once
-- (meta 'facts_version', set by every index, differs).
CREATE TABLE facts(file_id INTEGER NOT NULL, scope TEXT NOT NULL, target TEXT NOT NULL,
  value TEXT NOT NULL, line INTEGER NOT NULL);
"""),
    ("0010_pages", """
-- knowledge pages (hindsight/pages), every version kept: sections and changed are JSON
CREATE TABLE pages(name TEXT NOT NULL, version INTEGER NOT NULL, title TEXT NOT NULL,
  updated_at TEXT NOT NULL, updated_ts REAL NOT NULL, reason TEXT NOT NULL,
  head TEXT NOT NULL, commits INTEGER NOT NULL, sections TEXT NOT NULL,
  changed TEXT NOT NULL, PRIMARY KEY(name, version));
"""),
    ("0011_execution_records", """
-- execution records (records/, issue 12): one row per run of a command or test suite.
-- observation: JSON of models.Observation, *_ts Unix seconds, started_at ISO 8601.
CREATE TABLE exec_records(
  id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, tool TEXT NOT NULL,
  command TEXT NOT NULL, started_at TEXT NOT NULL, started_ts REAL NOT NULL,
  duration_ms INTEGER, exit_code INTEGER, outcome TEXT NOT NULL, observation TEXT NOT NULL,
  diff_summary TEXT NOT NULL, scope TEXT NOT NULL, root TEXT NOT NULL, branch TEXT NOT NULL,
  head TEXT NOT NULL, cwd TEXT NOT NULL, session TEXT NOT NULL, agent TEXT NOT NULL,
  feedback TEXT NOT NULL DEFAULT '', verified INTEGER NOT NULL DEFAULT 0,
  verified_ts REAL NOT NULL DEFAULT 0, retrievals INTEGER NOT NULL DEFAULT 0,
  last_retrieved_ts REAL NOT NULL DEFAULT 0, runs INTEGER NOT NULL DEFAULT 0,
  runs_passed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX ix_exec_started ON exec_records(started_ts);
CREATE INDEX ix_exec_session ON exec_records(session, id);
CREATE INDEX ix_exec_outcome ON exec_records(outcome, started_ts);
-- the symbols records are linked to, once each (name: the last part of local)
CREATE TABLE exec_symbols(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, local TEXT NOT NULL, name TEXT NOT NULL,
  UNIQUE(path, local));
CREATE INDEX ix_exec_symbols_name ON exec_symbols(name);
-- role: c = changed (the record's change, with change/old_hash/new_hash), t = a test the
-- run ran or failed, k = a callee of such a test. seq keeps the order of a record's links.
CREATE TABLE exec_links(
  record_id INTEGER NOT NULL, seq INTEGER NOT NULL, symbol_id INTEGER NOT NULL,
  role TEXT NOT NULL, change TEXT NOT NULL DEFAULT '', old_hash TEXT NOT NULL DEFAULT '',
  new_hash TEXT NOT NULL DEFAULT '', PRIMARY KEY(record_id, seq)) WITHOUT ROWID;
CREATE INDEX ix_exec_links_symbol ON exec_links(symbol_id, record_id);
CREATE TABLE exec_record_files(
  record_id INTEGER NOT NULL, path TEXT NOT NULL, added INTEGER NOT NULL,
  deleted INTEGER NOT NULL);
CREATE INDEX ix_exec_files_path ON exec_record_files(path);
CREATE INDEX ix_exec_files_record ON exec_record_files(record_id);
"""),
    ("0012_visibility", """
-- team use (issue 11): the team of the agent that wrote a memory ('' none). Who sees a
-- memory is decided in each read's query (store/base.py Viewer, store/sqlite/visible.py)
ALTER TABLE memories ADD COLUMN team TEXT NOT NULL DEFAULT '';
CREATE INDEX ix_memories_owner ON memories(owner) WHERE owner != '';
"""),
    ("0013_filesyms", """
-- what resolution knows of each file (codeindex/table.py FileSyms.dumps: marshal bytes),
-- read back in one row when an unchanged file is needed by an incremental re-index, and the
-- facts table keeps only the '@provides' rows (looked up by key). Filled by the full
-- rebuild that the new facts_version asks for.
CREATE TABLE filesyms(file_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
"""),
]

# Secondary indexes: dropped before a full rebuild's bulk load and created after it.
INDEXES: list[tuple[str, str]] = [
    ("ix_symbols_fold", "symbols(fold)"),
    ("ix_symbols_local", "symbols(local)"),
    ("ix_symbols_file", "symbols(file_id, local)"),
    ("ix_edges_dst", "edges(dst) WHERE dst != ''"),
    ("ix_edges_name", "edges(name) WHERE dst = ''"),
    ("ix_edges_file", "edges(file_id)"),
    # codeindex/receivers.py PROVIDES; an older bank gets it with the full rebuild that
    # its facts_version asks for
    ("ix_facts_provides", "facts(value) WHERE target = '@provides'"),  # a file's edges are few: src is filtered
    ("ix_deps_key", "deps(key)"),
    ("ix_deps_file", "deps(file_id)"),
    ("ix_notes_file", "notes(file_id)"),
    ("ix_facts_file", "facts(file_id)"),
    ("ix_files_module", "files(module)"),
    ("ix_files_dir", "files(dir)"),
    ("ix_files_package", "files(package)"),
]


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE``: the write lock is taken up front, so a
    busy bank waits ``busy_timeout`` instead of failing half-way). Commits on success; on
    any error rolls back, so nothing changes, and sqlite errors become StorageError (the
    message starts with the database file)."""
    where = db_path(conn)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as e:
        raise StorageError(f"{where}: cannot start a write transaction: {e}",
                           path=where) from e
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as e:
        conn.execute("ROLLBACK")
        if isinstance(e, sqlite3.Error):
            raise StorageError(f"{where}: write failed, nothing changed: {e}",
                               path=where) from e
        raise


def db_path(conn: sqlite3.Connection) -> str:
    """The file of ``conn``'s main database (``bank database`` when it cannot be told)."""
    try:
        return str(conn.execute("PRAGMA database_list").fetchone()[2]) or "bank database"
    except sqlite3.Error:
        return "bank database"


def _translated(fn: Any) -> Any:
    """``fn`` with sqlite3 errors raised as :class:`StorageError` (generators too)."""
    import functools
    import inspect

    def error(store: Any, e: sqlite3.Error) -> StorageError:
        return _error(getattr(store, "path", "") or "bank database", str(e), e)

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen(*args: Any, **kwargs: Any) -> Any:
            try:
                yield from fn(*args, **kwargs)
            except sqlite3.Error as e:
                raise error(args[0], e) from e
        return gen

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            raise error(args[0], e) from e
    return wrapper


class SqliteStore:
    """What every SQLite store of a bank shares: the connection, write transactions and
    the ``meta`` key-value table. Every public method of a subclass raises
    :class:`StorageError` for a sqlite3 error: no sqlite3 exception leaves the backend."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.path = db_path(conn)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, fn in list(vars(cls).items()):
            if not name.startswith("__") and inspect_function(fn):
                setattr(cls, name, _translated(fn))

    def set_busy_timeout(self, ms: int) -> None:
        """How long a write on this connection waits for another writer (ms) before it
        raises StorageError ("database is locked")."""
        self.conn.execute(f"PRAGMA busy_timeout={int(ms)}")

    def _tx(self) -> Any:
        return transaction(self.conn)

    def get_meta(self, key: str) -> str | None:
        r = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return r[0] if r else None

    def set_meta(self, values: dict[str, str]) -> None:
        with self._tx() as c:
            c.executemany("INSERT OR REPLACE INTO meta VALUES(?, ?)", list(values.items()))


for _name in ("get_meta", "set_meta", "set_busy_timeout"):
    setattr(SqliteStore, _name, _translated(getattr(SqliteStore, _name)))


def inspect_function(obj: Any) -> bool:
    import inspect

    return inspect.isfunction(obj)


def rows_as_dicts(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    """The rows of ``cur`` as dicts keyed by column name."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def chunks(items: list[Any], size: int = 500) -> Iterator[list[Any]]:
    """``items`` in slices of ``size`` (SQLite limits the parameters of one statement)."""
    for i in range(0, len(items), size):
        yield items[i:i + size]


def now_iso() -> str:
    """Current time, ISO 8601 with UTC offset."""
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def _wal(conn: sqlite3.Connection, busy_ms: int) -> None:
    """Switch to WAL. Two processes opening a new bank at once race for this switch, and
    SQLite answers the loser "database is locked" at once, without its busy handler: try
    again (the winner may have switched it already) until ``busy_ms`` has passed."""
    import time

    deadline = time.monotonic() + busy_ms / 1000
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or \
                    time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def connect(path: str, busy_timeout_ms: int | None = None) -> sqlite3.Connection:
    """Open (creating parent dirs) and migrate the bank database at ``path``.

    ``busy_timeout_ms``: how long a write waits for another writer, in milliseconds (0:
    fail at once); None reads setting ``busyTimeoutMs`` (default :data:`BUSY_TIMEOUT_MS`).
    Raises :class:`StorageError` with the path when the file cannot be opened or migrated,
    ValueError for a negative timeout.
    """
    busy = _busy_ms() if busy_timeout_ms is None else int(busy_timeout_ms)
    if busy < 0:
        raise ValueError(f"busy_timeout_ms must be 0 or more, got {busy}")
    try:
        Home.ensure(os.path.dirname(path), private=True)  # banks/: mode 0700 when made
        conn = sqlite3.connect(path, timeout=busy / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={busy}")
        _wal(conn, busy)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-65536")
        migrate(conn)
        return conn
    except (sqlite3.Error, OSError) as e:
        folder = os.path.dirname(path) or "."
        from hindsight.store.sqlite.readonly import open_read_only, writable

        ro = os.path.isdir(folder) and not writable(folder)
        if ro and os.path.isfile(path):
            return open_read_only(path, e)
        hint = f" ({folder} is read-only: hindsight writes its banks there; point " \
            "HINDSIGHT_HOME at a writable directory)" if ro else ""
        raise _error(path, f"cannot open bank database: {e}{hint}", e) from e


def _error(where: str, what: str, e: BaseException) -> StorageError:
    """A StorageError about the database file ``where``; a damaged file (``not a
    database``, ``malformed``) gets ``action="rebuild"`` and says so."""
    damaged = "not a database" in str(e) or "malformed" in str(e)
    return StorageError(f"{where}: {what}" + ("; the file is damaged" if damaged else ""),
                        path=where, action="rebuild" if damaged else None)


# Migrations renamed when branches merged (name a bank may have recorded → today's name):
# a bank that ran one under its earlier name has it (break24: such banks never opened,
# the migration ran twice). Keep every rename here.
RENAMED = {"0004_huge_commit_files": "0006_huge_commit_files",
           "0004_memory_agent": "0005_memory_agent", "0004_lexical": "0007_lexical",
           "0004_receiver_facts": "0009_receiver_facts"}


def migrate(conn: sqlite3.Connection) -> int:
    """Apply pending migrations; returns the schema version (number of migrations). A
    migration recorded under an earlier name (:data:`RENAMED`) counts as applied and is
    recorded under today's name too."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied_at TEXT)")
    done = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    known = [(old, new) for old, new in RENAMED.items() if old in done and new not in done]
    if known:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT OR IGNORE INTO migrations VALUES(?, ?)",
                             [(new, now_iso()) for _old, new in known])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        done.update(new for _old, new in known)
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name=?", (name,)).fetchone():
                conn.execute("ROLLBACK")
                continue
            for stmt in sql.split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            if name in ("0001_code_index", "0009_receiver_facts"):
                create_indexes(conn)
            conn.execute("INSERT INTO migrations VALUES(?, ?)", (name, now_iso()))
            conn.execute("INSERT OR REPLACE INTO meta VALUES('schema_version', ?)",
                         (str(len(MIGRATIONS)),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def create_indexes(conn: sqlite3.Connection) -> None:
    """The secondary indexes of the code index tables that exist (a migration adding a
    table creates its indexes when it runs)."""
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM main.sqlite_master WHERE type='table'")}
    for name, target in INDEXES:  # main named: see drop_indexes
        if target.partition("(")[0] in tables:
            conn.execute(f"CREATE INDEX IF NOT EXISTS main.{name} ON {target}")


def drop_indexes(conn: sqlite3.Connection) -> None:
    """Drop the code index's secondary indexes of the main database. The schema is named:
    ``DROP INDEX IF EXISTS x`` of an index main lacks (an older bank) makes SQLite verify
    every attached database, which read-locks each for the rest of the transaction."""
    for name, _ in INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS main.{name}")
