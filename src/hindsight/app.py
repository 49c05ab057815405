"""Composition: open a bank for a repository and expose the code index as a Python API.

Only this module picks concrete classes (the SQLite store); everything else sees contracts.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hindsight.app_history import HistoryMixin, refresh_locked  # noqa: F401
from hindsight.app_memory import MemoryMixin
from hindsight.appbase import _storage
from hindsight.config.paths import bank_file, repo_root
from hindsight.errors import BankNotFound, ConfigError, NotFound, NotIndexed, StorageError
from hindsight.models import IndexStats, Symbol

F = TypeVar("F", bound=Callable[..., Any])
KINDS = frozenset({"function", "method", "constructor", "class", "interface", "struct", "enum",
                   "trait", "type", "constant", "module", "namespace", "macro", "object",
                   "property"})


@dataclass
class Bank(HistoryMixin, MemoryMixin):
    """An open bank: ``bank_id``, its repository ``root`` and database ``path``.

    Use :func:`open_bank` to get one; close it with :meth:`close` (or a ``with`` block).
    """

    bank_id: str
    root: str
    path: str
    conn: sqlite3.Connection
    _mem: Any = None
    _embedder: Any = None
    resolution: Any = None

    @property
    def code(self) -> Any:
        from hindsight.store.sqlite.code import SqliteCodeStore

        return SqliteCodeStore(self.conn)

    @property
    def history_store(self) -> Any:
        from hindsight.store.sqlite.history import SqliteHistoryStore

        return SqliteHistoryStore(self.conn)

    def __enter__(self) -> Bank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # --- code index ------------------------------------------------------------------
    @_storage
    def index(self, *, full: bool = False, include_untracked: bool | None = None,
              workers: int | None = None, exclude: list[str] | None = None,
              progress: Any = None, remember: bool = True) -> IndexStats:
        """Index the repository (incremental unless ``full`` or first time).

        ``workers``: parser processes (default: CPU count). ``exclude`` (gitignore-style
        patterns) and ``include_untracked`` are remembered by the bank when given. ``progress(stage, done, total)``
        is called during long work. Raises :class:`~hindsight.errors.StorageError` when the
        bank cannot be written.
        """
        from hindsight.codeindex.indexer import index

        st = index(self.code, self.root, full=full, include_untracked=include_untracked,
                   workers=workers, exclude=exclude, progress=progress, remember=remember)
        self._after_index(st)
        return st

    def _after_index(self, st: IndexStats) -> None:
        """Memories follow the code: anchors are checked, ``@hindsight:`` comments synced.
        A failure here is a warning on the stats, never a failed index."""
        from hindsight.errors import HindsightError
        from hindsight.memory.anchors import check_anchors, sync_comments

        try:
            check_anchors(self.memory_store, self.code)
            if self.code.notes() or self.memory_store.count(None):
                sync_comments(self.memory_store, self.code, self.embedder)
        except HindsightError as e:
            st.warnings.append(f"memories not updated after indexing: {e}")

    @_storage
    def is_indexed(self) -> bool:
        return self.code.get_meta("indexed_commit") is not None

    def _require_index(self) -> Any:
        if not self.is_indexed():
            raise NotIndexed(f"{self.root} has no code index yet; run: hindsight index "
                             f"--repo-root {self.root}")
        return self.code

    @_storage
    def rel(self, path: str | None) -> str | None:
        """A user-given file or directory as a repository-relative path: absolute paths and
        paths that exist relative to the current directory are converted; ``./`` is
        dropped; anything else is taken as already relative to the root."""
        if not path:
            return path
        cand = os.path.abspath(path)
        if os.path.isabs(path) or os.path.exists(cand):
            rel = os.path.relpath(cand, self.root)
            if not rel.startswith(".."):
                return "" if rel == "." else rel.replace(os.sep, "/")
        return os.path.normpath(path).replace(os.sep, "/").removeprefix("./")

    def symbols(self, name: str, kind: str | None = None, file: str | None = None,
                limit: int = 50) -> tuple[str, list[Symbol]]:
        """Find symbols by name (exact, then prefix, then substring); see
        :func:`hindsight.codeindex.query.find`. Raises :class:`NotIndexed`."""
        from hindsight.codeindex.query import find

        if kind and kind not in KINDS:
            raise ConfigError(f"--kind {kind!r}: one of {', '.join(sorted(KINDS))}")
        return find(self._require_index(), name, kind, self.rel(file), limit)

    @_storage
    def callers(self, symbol: str, depth: int = 1, file: str | None = None,
                include_unresolved: bool = False) -> tuple[Symbol, list[Any]]:
        """Callers of ``symbol`` to ``depth``. Raises NotIndexed, NotFound, Ambiguous."""
        from hindsight.codeindex.query import callers

        return callers(self._require_index(), symbol, depth, self.rel(file), include_unresolved)

    @_storage
    def callees(self, symbol: str, depth: int = 1, file: str | None = None
                ) -> tuple[Symbol, list[Any]]:
        """Callees of ``symbol`` to ``depth``. Raises NotIndexed, NotFound, Ambiguous."""
        from hindsight.codeindex.query import callees

        return callees(self._require_index(), symbol, depth, self.rel(file))

    @_storage
    def trace(self, start: str, depth: int = 3, file: str | None = None) -> Any:
        """Call tree from ``start`` (a :class:`hindsight.codeindex.query.Step`)."""
        from hindsight.codeindex.query import trace

        return trace(self._require_index(), self.root, start, depth, self.rel(file))

    def debug_file(self, path: str) -> Any:
        """Parse one file (relative to the current directory or the root, or absolute)
        without storing anything. Returns a ParseResult, or ``None`` for a file with no
        supported language. Raises :class:`NotFound` when the file does not exist."""
        from hindsight.codeindex.indexer import reparse_one

        rel = self.rel(path) or ""
        full = os.path.join(self.root, rel)
        if not os.path.lexists(full):
            raise NotFound(f"{path}: no such file under {self.root}")
        if not os.path.isfile(full) or os.path.islink(full):
            raise NotFound(f"{path}: not a regular file (symlinks, pipes and devices are "
                           "never parsed)")
        return reparse_one(self.root, rel)

    @_storage
    def problem_files(self) -> list[tuple[str, str]]:
        """``(path, reason)`` of every skipped file worth listing and every file with a
        parse error (reason = the error, e.g. ``syntax error at line 4``)."""
        return self.code.problem_files()

    def status(self) -> dict[str, Any]:
        """Bank id, paths, counts (files, symbols, edges, unresolved share), skipped files by
        reason, indexed commit and the number of files changed since (by stat)."""
        store = self.code
        c = store.counts()
        calls = c["calls"] or 1
        out: dict[str, Any] = {
            "bank": self.bank_id, "root": self.root, "database": self.path,
            "database_bytes": _db_size(self.path), **c,
            "unresolved_share": round(c["unresolved_calls"] / calls, 4),
            "skipped": store.skipped(), "indexed_commit": store.get_meta("indexed_commit"),
            "indexed": self.is_indexed(),
        }
        out["changed_since"] = _changed_since(store, self.root) if out["indexed"] else None
        hs = self.history_store
        out["history"] = {**hs.history_counts(),
                          "mode": json.loads(hs.get_meta("history_mode") or '"full"'),
                          "partial": hs.get_meta("history_partial_kind") or "",
                          "ingested_at": hs.get_meta("history_ingested_at")}
        out["memories"] = {st: n for st, n in self.conn.execute(
            "SELECT status, count(*) FROM memories GROUP BY status")}
        out["memories"]["stale"] = self.conn.execute(
            "SELECT count(*) FROM memories WHERE stale=1 AND status='active'").fetchone()[0]
        res = self.resolution
        out["resolved_by"] = res.how if res is not None else ""
        try:
            out["seed"] = json.loads(store.get_meta("seed_state") or "{}")
        except ValueError:
            out["seed"] = {}
        out["fresh"] = out["changed_since"] == 0 if out["indexed"] else False
        return out


def _db_size(path: str) -> int:
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def _changed_since(store: Any, root: str) -> int:
    n = 0
    for path, fr in store.load_files().items():
        try:
            st = os.stat(os.path.join(root, path))
        except OSError:
            n += 1
            continue
        if st.st_size != fr.size or st.st_mtime_ns != fr.mtime_ns:
            n += 1
    return n


def open_bank(path: str = ".", *, repo_root_path: str | None = None,
              create: bool = True, harness: str = "cli", resolution: Any = None) -> Bank:
    """Open (creating if needed) the bank of the repository containing ``path``.

    The repository root is ``repo_root_path`` when given (used as is, even inside another
    repository), else the git work tree top containing ``path`` (or ``path`` outside git);
    git file selection applies when the root has a ``.git``; otherwise the directory is
    walked with the same ignore rules. The bank id comes from the layered config and
    :func:`hindsight.config.banks.resolve` (``resolution`` when already resolved); the file
    is ``$HINDSIGHT_HOME/banks/<id>.db``. Raises :class:`ConfigError` for a path that is not
    a directory, an invalid config, or a repository that has no bank (``disabled``,
    ``optInOnly``); :class:`BankNotFound` when ``create`` is false and the bank does not
    exist; :class:`StorageError` when the database cannot be opened.
    """
    from hindsight.config.banks import resolve
    from hindsight.store.sqlite.db import connect

    if resolution is not None:
        root = resolution.root
    elif repo_root_path is not None:
        root = os.path.abspath(repo_root_path)
        if not os.path.isdir(root):
            raise ConfigError(f"{repo_root_path}: not a directory")
    else:
        root = repo_root(path)
    try:
        root.encode("utf-8")
    except UnicodeEncodeError:
        shown = root.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise ConfigError(f"{shown}: repository path is not valid UTF-8") from None
    res = resolution or resolve(root, harness, root=root)
    if res.bank_id is None:
        raise ConfigError(f"{root}: no bank ({res.reason})")
    bank_id = res.bank_id
    db = bank_file(bank_id)
    if not create and not os.path.exists(db):
        raise BankNotFound(f"no bank for {root} (expected {db}); nothing was retained or "
                           "indexed there yet")
    conn = connect(db)
    try:
        stored = conn.execute("SELECT value FROM meta WHERE key='bank_id'").fetchone()
        if stored is None:
            conn.execute("INSERT OR IGNORE INTO meta VALUES('bank_id', ?)", (bank_id,))
            conn.execute("INSERT OR IGNORE INTO meta VALUES('repo_root', ?)", (root,))
    except sqlite3.Error as e:
        conn.close()
        raise StorageError(f"{db}: {e}") from e
    if stored is not None and stored[0] != bank_id:
        conn.close()
        raise StorageError(f"{db} holds bank {stored[0]!r}, not {bank_id!r}; refusing to mix "
                           "two banks in one file")
    bank = Bank(bank_id, res.root, db, conn)
    bank.resolution = res
    return bank
