"""Composition: open a bank for a repository and expose the code index as a Python API.

Only this module picks concrete classes (the SQLite store); everything else sees contracts.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hindsight.config.paths import bank_file, bank_id_for, repo_root
from hindsight.errors import BankNotFound, ConfigError, NotFound, NotIndexed, StorageError
from hindsight.models import IndexStats, Symbol

F = TypeVar("F", bound=Callable[..., Any])
KINDS = frozenset({"function", "method", "constructor", "class", "interface", "struct", "enum",
                   "trait", "type", "constant", "module", "namespace", "macro", "object",
                   "property"})


def _storage(fn: F) -> F:
    """Translate sqlite3 errors raised inside ``fn`` into :class:`StorageError`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            raise StorageError(f"bank database: {e}") from e

    return wrapper  # type: ignore[return-value]


@dataclass
class Bank:
    """An open bank: ``bank_id``, its repository ``root`` and database ``path``.

    Use :func:`open_bank` to get one; close it with :meth:`close` (or a ``with`` block).
    """

    bank_id: str
    root: str
    path: str
    conn: sqlite3.Connection
    _mem: Any = None
    _embedder: Any = None

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
        return out


    # --- history and edit trace (L3) ----------------------------------------------------
    def _excludes(self) -> list[str]:
        saved = self.code.get_meta("exclude")
        return [p for p in saved.split("\n") if p] if saved else []

    @_storage
    def ingest(self, *, mode: str | None = None, limit: int | None = None,
               all_: bool = False, huge: int | None = None, workers: int | None = None,
               progress: Any = None) -> Any:
        """Ingest git history; see :func:`hindsight.codeindex.history.ingest`. Returns its
        IngestStats. Raises ConfigError, GitError, StorageError."""
        from hindsight.codeindex.history import ingest

        return ingest(self.history_store, self.root, mode=mode, limit=limit, all_=all_,
                      huge=huge, exclude=self._excludes(), workers=workers,
                      progress=progress)

    @_storage
    def history(self, symbol: str, file: str | None = None,
                include_unreachable: bool = False) -> dict[str, Any]:
        """Commits that touched ``symbol``; see :func:`hindsight.codeindex.historyq.history`."""
        from hindsight.codeindex.historyq import history

        return history(self._require_index(), self.history_store, self.root, symbol,
                       self.rel(file), include_unreachable)

    @_storage
    def why(self, file: str, line: int) -> dict[str, Any]:
        """Blame lifted to the symbol; see :func:`hindsight.codeindex.historyq.why`.
        ``line`` is 1-based. Raises NotIndexed, NotFound (no such indexed file)."""
        from hindsight.codeindex.historyq import why

        code = self._require_index()
        rel = self.rel(file) or ""
        if rel not in code.load_files() and not os.path.isfile(os.path.join(self.root, rel)):
            raise NotFound(f"{file}: no such file under {self.root}")
        if line < 1:
            raise ConfigError(f"{file}:{line}: lines are 1-based")
        n_lines = _count_lines(os.path.join(self.root, rel))
        if n_lines is not None and line > n_lines:
            raise ConfigError(f"{file}:{line}: past the end of the file ({n_lines} lines)")
        return why(code, self.history_store, self.root, rel, line)

    @_storage
    def impact(self, symbol: str, depth: int = 2, file: str | None = None,
               limit: int = 30, min_support: int = 2) -> dict[str, Any]:
        """Callers and co-changed symbols/files; see
        :func:`hindsight.codeindex.historyq.impact`."""
        from hindsight.codeindex.historyq import impact

        return impact(self._require_index(), self.history_store, symbol, depth,
                      self.rel(file), limit, min_support)

    @_storage
    def hotspots(self, days: int = 90, limit: int = 20) -> dict[str, Any]:
        """Churn and fix-commit ranking; see :func:`hindsight.codeindex.historyq.hotspots`."""
        from hindsight.codeindex.historyq import hotspots

        return hotspots(self.history_store, self.root, days, limit)

    @_storage
    def record_edit(self, path: str, old_text: str | bytes | None,
                    new_text: str | bytes | None, *, actor: str = "human",
                    session: str = "", old_path: str | None = None,
                    refresh_index: bool = True) -> dict[str, Any] | None:
        """Record an edit of ``path`` (absolute, or relative to the root) made by ``actor``
        (``human`` or an agent name) in ``session``: the code index is refreshed first (when
        the repository is indexed and ``refresh_index``), then the event is stored with the
        symbols it touched. Returns the event dict (see :mod:`hindsight.codeindex.trace`),
        or ``None`` when the texts are equal (nothing is stored). Raises ConfigError (no
        text, a path that is not a work-tree file, texts that are not str/bytes/None),
        StorageError."""
        from hindsight.codeindex.trace import record_edit

        if not isinstance(actor, str) or not isinstance(session or "", str):
            raise ConfigError("actor and session must be strings")
        rel = self._rel_in_root(path)
        old_rel = self._rel_in_root(old_path) if old_path else ""
        if refresh_index and self.is_indexed():
            self.index()
        return record_edit(self.history_store, self.root, rel, old_text, new_text,
                           actor=actor, session=session or "", old_path=old_rel)

    def _user_file(self, path: str) -> str:
        """A file named by a user: relative to the current directory when it exists there,
        else to the root (as ``--file`` everywhere); must be inside the root."""
        rel = self.rel(path) or ""
        return self._rel_in_root(rel) if rel else self._rel_in_root(path)

    def _rel_in_root(self, path: str) -> str:
        """A file path (absolute, or relative to the root) as a root-relative path.
        Raises ConfigError for anything that cannot name a file of the work tree."""
        if not isinstance(path, str) or not path or "\0" in path:
            raise ConfigError(f"{path!r}: not a file path")
        full = path if os.path.isabs(path) else os.path.join(self.root, path)
        rel = os.path.relpath(os.path.abspath(full), self.root).replace(os.sep, "/")
        if rel.startswith("..") or rel == ".":
            raise ConfigError(f"{path}: not a file inside the repository {self.root}")
        if rel == ".git" or rel.startswith(".git/"):
            raise ConfigError(f"{path}: inside .git, not part of the work tree")
        return rel

    @_storage
    def trace_log(self, file: str | None = None, symbol: str | None = None,
                  since: float | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """Trace events newest first (``since``: Unix seconds); see
        :meth:`hindsight.store.sqlite.history.SqliteHistoryStore.trace_events`."""
        return self.history_store.trace_events(self.rel(file), symbol, since, limit)


    def watcher(self, *, actor: str = "human", session: str = "",
                debounce_s: float = 0.2, on_event: Any = None, on_error: Any = None) -> Any:
        """A :class:`hindsight.codeindex.watch.Watcher` for this bank (call ``run()``). Its
        index refreshes include untracked files that git does not ignore, and the bank
        remembers that choice (as ``index --include-untracked`` would), so that a later
        ``index`` does not drop what the watcher saw being created."""
        from hindsight.codeindex.watch import Watcher

        def refresh() -> IndexStats:  # new files count as soon as they are saved
            return self.index(include_untracked=True)

        return Watcher(self.root, self.code, self.history_store, refresh, actor=actor,
                       session=session, debounce_s=debounce_s, on_event=on_event,
                       on_error=on_error)


    # --- experience memory ------------------------------------------------------------
    @property
    def memory_store(self) -> Any:
        if self._mem is None:
            from hindsight.store.sqlite.memory import SqliteMemoryStore

            self._mem = SqliteMemoryStore(self.conn)
        return self._mem

    @property
    def llm(self) -> Any:
        """The optional OpenAI-compatible LLM (``HINDSIGHT_LLM_URL``), or None."""
        from hindsight.providers.openai_compat import OpenAICompatLLM

        return OpenAICompatLLM.from_env()

    @property
    def embedder(self) -> Any:
        """The embedding provider: ``HINDSIGHT_EMBEDDER`` = ``minilm`` (default: local
        all-MiniLM-L6-v2, ONNX int8), ``hashing`` (feature hashing; tests, or no model) or
        ``openai`` (an OpenAI-compatible endpoint, see
        :mod:`hindsight.providers.openai_compat`)."""
        if self._embedder is None:
            name = os.environ.get("HINDSIGHT_EMBEDDER", "minilm")
            if name == "hashing":
                from hindsight.providers.hashing import HashingEmbedder

                self._embedder = HashingEmbedder()
            elif name == "minilm":
                from hindsight.providers.local_minilm import MiniLMEmbedder

                self._embedder = MiniLMEmbedder()
            elif name == "openai":
                from hindsight.providers.openai_compat import OpenAICompatEmbedder

                self._embedder = OpenAICompatEmbedder.from_env()
            else:
                raise ConfigError(f"HINDSIGHT_EMBEDDER={name!r}: minilm, hashing or openai")
        return self._embedder

    def _resolve_anchors(self, files: list[str], symbols: list[str]
                         ) -> list[tuple[str, str, str]]:
        out: list[tuple[str, str, str]] = []
        for f in files:
            rel = self._user_file(f)
            if not os.path.exists(os.path.join(self.root, rel)):
                raise NotFound(f"{f}: no such file under {self.root}")
            out.append((rel, "", ""))
        for spec in symbols:
            from hindsight.codeindex.query import resolve_one

            sym = resolve_one(self._require_index(), spec)[0]
            out.append((sym.path, sym.local, sym.ast_hash))
        return out

    @_storage
    def retain(self, text: str, *, kind: str = "", tags: list[str] | None = None,
               files: list[str] | None = None, symbols: list[str] | None = None,
               outcome: str = "", supersedes: int | None = None, source: str = "api",
               **fields: Any) -> Any:
        """Retain one memory; see :mod:`hindsight.memory.retain`. ``files`` (root-relative
        or absolute) and ``symbols`` (names as for ``symbols``) become anchors with the
        symbol's ast hash now. Returns a :class:`~hindsight.memory.retain.Retained`.
        Raises ConfigError, NotFound/Ambiguous (symbol), ProviderError, StorageError."""
        from hindsight.memory.retain import Item, retain

        if fields.get("visibility") == "private" and not fields.get("owner"):
            raise ConfigError("a private memory needs its owner: --agent NAME")
        item = Item(text=text, kind=kind, tags=list(tags or []), outcome=outcome,
                    supersedes=supersedes, source=source,
                    anchors=self._resolve_anchors(list(files or []), list(symbols or [])),
                    **fields)
        return retain(self.memory_store, self.embedder, [item], llm=self.llm)[0]

    @_storage
    def retain_batch(self, items: list[Any], embed: bool = True) -> list[Any]:
        """Retain many :class:`~hindsight.memory.retain.Item` at once: written (and
        searchable) first, embedded after."""
        from hindsight.memory.retain import retain

        return retain(self.memory_store, self.embedder, items, batch=True, embed=embed)

    def _neighbours(self, text: str, files: list[str], syms: list[tuple[str, str]]
                    ) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
        """Files and symbols named in ``text`` and the call-graph neighbours of all of
        them, for the anchor channel (empty without a code index)."""
        if not self.is_indexed():
            return [], [], []
        import re

        code = self.code
        known = code.load_files()
        extra_f = [w for w in re.findall(r"[\w./-]+\.\w+", text) if w in known]
        extra_s: list[tuple[str, str]] = []
        for w in re.findall(r"[A-Za-z_][\w.:/]*[\w]", text)[:40]:
            if not ("_" in w or "." in w or "::" in w or re.search(r"[a-z][A-Z]", w)):
                continue
            hits = code.find_symbols(w.rpartition("::")[2] if "::" in w else w, None,
                                     w.partition("::")[0] if "::" in w else None, 5)
            extra_s += [(h.path, h.local) for h in hits[:3]]
        near: list[tuple[str, str]] = []
        from hindsight.codeindex.query import callees, callers

        for p, loc in (syms + extra_s)[:10]:
            for fn in (callers, callees):
                try:
                    _t, hits = fn(code, f"{p}::{loc}", 1)
                except Exception:  # noqa: BLE001 - a neighbour lookup must not fail recall
                    continue
                near += [(h.symbol.path, h.symbol.local) for h in hits if h.symbol]
        return extra_f, extra_s, near

    @_storage
    def recall(self, text: str, **kw: Any) -> dict[str, Any]:
        """Recall memories for ``text``; keyword arguments are the fields of
        :class:`hindsight.memory.recall.Query` (``files`` root-relative, ``symbols`` as
        names). An empty bank answers at once with no hits. Raises ConfigError,
        ProviderError, StorageError."""
        from hindsight.memory.recall import Query, recall

        touch = kw.pop("touch", True)
        files = [self._user_file(f) for f in kw.pop("files", []) or []]
        syms = [(p, s) for p, s, _h in self._resolve_anchors([], kw.pop("symbols", []) or [])]
        q = Query(text=text, files=files, symbols=syms, **kw)
        store = self.memory_store
        if not store.has_active():
            return {"hits": [], "channels": {}, "reranked_by": "", "tokens": 0, "ms": 0.0}
        reranker = None
        if q.rerank:
            from hindsight.providers.local_reranker import OnnxCrossEncoder

            reranker = OnnxCrossEncoder.from_env()
        res = recall(store, self.embedder, q, self._neighbours, reranker=reranker)
        if touch and res["hits"]:
            from hindsight.memory.clock import now_ts

            store.touch([h["id"] for h in res["hits"]], now_ts())
        return res

    @_storage
    def forget(self, mid: int, reason: str) -> dict[str, Any]:
        from hindsight.memory.lifecycle import forget

        return forget(self.memory_store, mid, reason)

    @_storage
    def restore(self, mid: int) -> dict[str, Any]:
        from hindsight.memory.lifecycle import restore

        return restore(self.memory_store, mid)

    @_storage
    def gc(self, **kw: Any) -> dict[str, Any]:
        from hindsight.memory.lifecycle import gc

        return gc(self.memory_store, **kw)

    @_storage
    def memory(self, mid: int) -> dict[str, Any]:
        """One memory with its anchors and audit history. Raises NotFound."""
        row = self.memory_store.get([mid]).get(mid)
        if row is None:
            raise NotFound(f"no memory {mid}")
        row["history"] = self.memory_store.audit(mid)
        return row

    def export_memories(self) -> Any:
        """Yield the bank's memories as JSONL lines (see :mod:`hindsight.memory.transfer`);
        sqlite errors surface while iterating."""
        from hindsight.memory.transfer import export_lines

        yield from export_lines(self.memory_store)

    @_storage
    def import_memories(self, lines: Any) -> dict[str, int]:
        from hindsight.memory.transfer import import_lines

        return import_lines(self.memory_store, lines)

    @_storage
    def reembed(self) -> dict[str, Any]:
        """Embed every memory that has no vector from the current model (after a model
        change, or when embedding failed); records the model in ``meta``."""
        import time as _time

        from hindsight.memory.retain import embed_missing

        t0 = _time.perf_counter()
        todo = self.memory_store.missing_vectors(self.embedder.model_id)
        n = embed_missing(self.memory_store, self.embedder, todo)
        self.memory_store.set_meta({"embedding_model": self.embedder.model_id})
        return {"model": self.embedder.model_id, "embedded": n,
                "seconds": round(_time.perf_counter() - t0, 3)}

    @_storage
    def reflect(self, question: str, k: int = 20) -> dict[str, Any]:
        """A digest of the best evidence for ``question``: the top ``k`` memories grouped by
        kind and by anchor, each line with its id and date; with an LLM configured also a
        synthesised ``answer`` citing memory ids (``None`` and a ``fallback`` reason when
        there is no LLM, it failed, timed out or cited notes it was not given)."""
        res = self.recall(question, k=k, touch=False)
        by_kind: dict[str, list[str]] = {}
        by_anchor: dict[str, list[str]] = {}
        for h in res["hits"]:
            line = f"[#{h['id']} {h['occurred_at'][:10]}] {' '.join(h['text'].split())}" + (
                " (stale)" if h["stale"] else "")
            by_kind.setdefault(h["kind"], []).append(line)
            for a in h["anchors"]:
                key = a["path"] + (f"::{a['symbol']}" if a["symbol"] else "")
                by_anchor.setdefault(key, []).append(f"#{h['id']}")
        out: dict[str, Any] = {"question": question, "by_kind": by_kind,
                               "by_anchor": by_anchor, "memories": len(res["hits"]),
                               "answer": None, "fallback": "no llm configured"}
        llm = self.llm
        if llm is not None and res["hits"]:
            from hindsight.memory.llm import answer

            out["answer"], out["fallback"] = answer(llm, question, res["hits"], llm.timeout)
        return out

    @_storage
    def memories(self, *, status: str = "active", kind: str | None = None,
                 stale: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        where, args = ["1=1"], []
        if status != "all":
            where.append("status=?")
            args.append(status)
        if kind:
            where.append("kind=?")
            args.append(kind)
        if stale:
            where.append("stale=1")
        return self.memory_store.listing(" AND ".join(where), args, limit)


def refresh_locked(root: str, event: str) -> None:
    """Incremental index + history ingest of the repository at ``root``, for git hooks:
    one run at a time per bank (an exclusive lock on ``HINDSIGHT_HOME/locks/<bank>.lock``);
    a run that finds the lock taken leaves a ``.again`` mark so that the running one goes
    round once more. Never raises: every outcome is one JSON line in
    ``HINDSIGHT_HOME/logs/git-hooks.log``."""
    import fcntl
    import time
    import traceback

    from hindsight.config.paths import hindsight_home

    t0 = time.time()
    rec: dict[str, Any] = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "event": event,
                           "root": root}
    try:
        home = hindsight_home()
        os.makedirs(os.path.join(home, "locks"), exist_ok=True)
        bank = open_bank(root)
        rec["bank"] = bank.bank_id
        safe = os.path.basename(bank.path).removesuffix(".db")
        lock_path = os.path.join(home, "locks", safe + ".lock")
        again = lock_path + ".again"
        with bank, open(lock_path, "a") as lk:
            try:
                fcntl.flock(lk, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                open(again, "w").close()
                rec["outcome"] = "another run is active; it will go round again"
                return
            totals = {"rounds": 0, "files_parsed": 0, "commits": 0, "unreachable_marked": 0}
            for _round in range(5):
                if os.path.exists(again):
                    os.remove(again)
                st = bank.index()
                hs = bank.ingest()
                totals["rounds"] += 1
                totals["files_parsed"] += st.files_parsed
                totals["commits"] += hs.ingested
                totals["unreachable_marked"] += hs.unreachable_marked
                rec.update(totals, outcome="ok")
                if not os.path.exists(again):
                    break
    except Exception as e:  # noqa: BLE001 - a git hook must never fail; log and go on
        rec["outcome"] = "error"
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["trace"] = traceback.format_exc(limit=3)
    finally:
        rec["ms"] = round((time.time() - t0) * 1000)
        _log_line(rec)


def _log_line(rec: dict[str, Any]) -> None:
    from hindsight.config.paths import hindsight_home

    try:
        d = os.path.join(hindsight_home(), "logs")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "git-hooks.log"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    except OSError:
        pass


def _count_lines(path: str) -> int | None:
    """Lines in the file as the index counts them (a last line without newline counts);
    ``None`` when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


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
              create: bool = True) -> Bank:
    """Open (creating if needed) the bank of the repository containing ``path``.

    The repository root is ``repo_root_path`` when given (used as is, even inside another
    repository), else the git work tree top containing ``path`` (or ``path`` outside git);
    git file selection applies when the root has a ``.git``; otherwise the directory is
    walked with the same ignore rules. The bank id
    and file follow :mod:`hindsight.config.paths`. Raises :class:`ConfigError` for a path
    that is not a directory and :class:`StorageError` when the database cannot be opened.
    """
    from hindsight.store.sqlite.db import connect

    if repo_root_path is not None:
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
    bank_id = bank_id_for(root)
    db = bank_file(bank_id)
    if not create and not os.path.exists(db):
        raise BankNotFound(f"no bank for {root} (expected {db}); nothing was retained or "
                           "indexed there yet")
    conn = connect(db)
    try:
        if conn.execute("SELECT count(*) FROM meta WHERE key='bank_id'").fetchone()[0] == 0:
            conn.execute("INSERT OR IGNORE INTO meta VALUES('bank_id', ?)", (bank_id,))
            conn.execute("INSERT OR IGNORE INTO meta VALUES('repo_root', ?)", (root,))
    except sqlite3.Error as e:
        conn.close()
        raise StorageError(f"{db}: {e}") from e
    return Bank(bank_id, root, db, conn)
