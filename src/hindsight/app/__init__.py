"""The composition root: open a repository's bank and wire its services.

``open_bank(...)`` resolves the bank id, opens the storage backend (SQLite here; the only
module that names a concrete backend or provider) and returns a :class:`Bank` holding its
services: ``code`` (L1/L2), ``history`` (L3), ``memory``, ``records`` (execution
records), ``sessions``, ``pages`` (knowledge pages) and ``context`` (task context).
Nothing here writes SQL.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from hindsight.app.locks import INDEX_LOCK_WAIT_S as INDEX_LOCK_WAIT_S
from hindsight.app.locks import index_lock as _index_lock
from hindsight.codeindex.service import CodeService
from hindsight.config.paths import Home, bank_file, repo_root
from hindsight.errors import BankNotFound, ConfigError
from hindsight.history.service import HistoryService, rel_in_root
from hindsight.memory.service import MemoryService
from hindsight.models import IndexStats
from hindsight.pages.records import NAMES as PAGE_NAMES  # noqa: F401 (for the adapters)
from hindsight.pages.service import PageService
from hindsight.records.service import RecordService
from hindsight.sessions.service import SessionService
from hindsight.store.base import CodeStore, HistoryStore, MemoryStore, PageStore, RecordStore
from hindsight.store.base import Viewer as Viewer  # adapters (server, MCP) take it from here

if TYPE_CHECKING:
    from hindsight.config.settings import Settings
    from hindsight.context.service import ContextService



@dataclass
class Stores:
    """The storage of one bank. ``raw`` is the backend's own handle (a sqlite3 connection),
    for tests and benchmarks only; ``shared`` the PostgreSQL memory store when the bank's
    memories live there (setting ``databaseUrl``), closed with the bank."""

    code: CodeStore
    history: HistoryStore
    memory: MemoryStore
    raw: Any = None
    pages: PageStore | None = None
    records: RecordStore | None = None
    shared: Any = None

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()
        if self.raw is not None:
            self.raw.close()

    def set_busy_timeout(self, ms: int) -> None:
        """How long writes wait for another writer (ms)."""
        self.memory.set_busy_timeout(ms)
        for store in (self.pages, self.records):
            if self.shared is not None and store is not None:
                store.set_busy_timeout(ms)  # type: ignore[union-attr]
        if self.shared is not None:  # the SQLite file of the code index and history
            self.code.set_busy_timeout(ms)


@dataclass
class Bank:
    """An open bank: ``bank_id``, its repository ``root``, database ``path``, the resolution
    that chose it, and the services ``code``, ``history``, ``memory``, ``sessions``.

    Get one with :func:`open_bank`; close it with :meth:`close` (or a ``with`` block)."""

    bank_id: str
    root: str
    path: str
    stores: Stores
    resolution: Any = None
    code: CodeService = field(init=False)
    history: HistoryService = field(init=False)
    memory: MemoryService = field(init=False)
    records: RecordService = field(init=False)
    sessions: SessionService = field(init=False)
    pages: PageService = field(init=False)
    _context: ContextService | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        from hindsight.providers import make_llm, make_reranker

        lock = _index_lock(self.bank_id, Home.current())
        settings = self.settings
        self.code = CodeService(self.stores.code, self.root, writer_lock=lambda: lock("index"),
                                after_index=self._after_index,
                                parse_timeout_s=settings.parse_timeout_s)
        self.history = HistoryService(self.stores.history, self.code, writer_lock=lock)
        self.memory = MemoryService(self.stores.memory, anchors=self._anchors,
                                    neighbours=self.code.neighbours,
                                    embedder=self._make_embedder,
                                    llm=lambda: make_llm(settings),
                                    reranker=lambda: make_reranker(settings),
                                    code=lambda: self.stores.code
                                    if self.code.is_indexed() else None)
        assert self.stores.records is not None, "a bank's stores include its records"
        self.records = RecordService(self.stores.records, self.code, self.history,
                                     settings=settings, cited=self._cited)
        self.sessions = SessionService(self)
        if self.stores.pages is None:
            raise ConfigError(f"bank {self.bank_id}: its storage has no page store")
        self.pages = PageService(self.stores.pages, bank_id=self.bank_id, root=self.root,
                                 code=self.code, history=self.history, memory=self.memory,
                                 settings=lambda: self.settings,
                                 llm=lambda: make_llm(self.settings),
                                 records=lambda: getattr(self, "records", None))
        self.memory.on_purge.append(self.pages.scrub_memory)  # cited excerpts go too
        self.memory.on_purge.append(self.sessions.scrub_memory)  # gate caches, hook log
        if settings.api_url and self.root:
            self.memory = _remote_memory(self, settings)
            self.records.forward = self.memory.send_record  # type: ignore[attr-defined]
            self.records.forward_many = self.memory.send_records  # type: ignore[attr-defined]
            self.records.team = self.memory.team_attempts  # type: ignore[attr-defined]
            self.pages.memory = self.memory

    @property
    def context(self) -> ContextService:
        """Task context (``context/service.py``), made on first use: its indexes are kept
        in ``<bank>.db.context``."""
        if self._context is None:
            from hindsight.context.service import ContextService

            self._context = ContextService(self.code, self.history,
                                           recall=self._recall_anchored,
                                           cache=self.path + ".context",
                                           attempts=self._failed_attempts)
        return self._context

    def _failed_attempts(self, text: str, limit: int) -> list[Any]:
        """The ``attempts`` channel of task context: the unresolved failed attempts
        ``text`` refers to (``RecordService.for_prompt``), one entry per file or symbol
        each one changed (else per file its run touched)."""
        from hindsight.context.service import Attempt

        out: list[Attempt] = []
        for r in self.records.for_prompt(text, limit=limit):
            obs = r.observation
            why = "; ".join(obs.failed[:2]) or obs.summary or f"exit code {r.exit_code}"
            summary = f"`{r.command[:120]}` failed: {why}"
            places = [(c.path, c.local) for c in r.changes] or [(f, "") for f in r.files]
            out += [Attempt(p, loc, summary, r.started_at) for p, loc in places]
        return out

    def __enter__(self) -> Bank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.stores.close()

    def _recall_anchored(self, text: str, k: int) -> list[tuple[int, str, list[str], float]]:
        """Task context's memory channel: lexical recall (no model load), each memory with
        the paths it is anchored to."""
        if not self.memory.store.has_active():
            return []
        res = self.memory.recall(text, touch=False, embed=False, k=k)
        return [(h.memory.id, h.memory.text, [a.path for a in h.memory.anchors], h.score)
                for h in res.hits]
    def _cited(self, ids: list[int]) -> set[int]:
        """Those of record ``ids`` that an active memory cites (tag ``attempt:<id>``)."""
        return {i for i in ids
                if self.memory.store.list_memories(tag=f"attempt:{i}", limit=1)}

    def _after_index(self, st: IndexStats) -> None:
        st.warnings += self.memory.after_index(self.stores.code, self.code.outside_checkout)

    def _anchors(self, files: list[str], symbols: list[str], must_exist: bool = True
                 ) -> list[tuple[str, str, str]]:
        from hindsight.errors import NotFound

        out: list[tuple[str, str, str]] = []
        for f in files:
            rel = self.code.rel(f) or ""
            rel = rel_in_root(self.root, rel if rel else f)
            if must_exist and not os.path.exists(os.path.join(self.root, rel)):
                raise NotFound(f"{f}: no such file under {self.root}", path=f)
            known = [h for p, h in self.stores.code.files_by_suffix(rel, 1) if p == rel]
            out.append((rel, "", known[0] if known else ""))  # the hash follows a rename
        from hindsight.errors import Ambiguous

        for spec in symbols:
            try:
                sym = self.code.resolve(spec)
            except Ambiguous as e:  # here the file is an anchor, not a way to choose
                raise Ambiguous(f"{e.message} as path::name", e.candidates,
                                option="symbol", value=spec) from None
            out.append((sym.path, sym.local, sym.ast_hash))
        return out

    @property
    def settings(self) -> Settings:
        """The effective settings of this bank (harness and ``banks.<id>`` layers
        applied)."""
        if self.resolution is not None:
            return cast("Settings", self.resolution.settings)
        from hindsight.config.settings import load

        return load(bank_id=self.bank_id)

    def _make_embedder(self) -> Any:
        from hindsight.providers import make_embedder

        return make_embedder(self.settings)

    def prompt_embedder(self) -> Any:
        """The prompt gate's static embedder (``providers.make_prompt_embedder``)."""
        from hindsight.providers import make_prompt_embedder

        return make_prompt_embedder()

    def warm_embedder(self) -> Any:
        """The prompt gate's client of the warm embedding process (``providers.warm``), or
        None (``providers.make_warm_embedder``)."""
        from hindsight.providers.factory import make_warm_embedder

        return make_warm_embedder(self.settings, Home.current().root)

    def status(self) -> dict[str, Any]:
        """Bank id, paths and size; the code index's counts and freshness (see
        :meth:`CodeService.status`); history counts; memories per status; how the bank was
        resolved; the seeding state."""
        out: dict[str, Any] = {"bank": self.bank_id, "root": self.root, "database": self.path,
                               "database_bytes": _db_size(self.path)}
        code = self.code.status()
        fresh = code.pop("fresh")
        out.update(code)
        out["history"] = self.history.status()
        out["mode"] = "local"
        if getattr(self.memory, "remote", False):
            out.update(self.memory.status())  # type: ignore[attr-defined]
        else:
            out["memories"] = self.memory.counts()
        if self.settings.database_url:
            from hindsight.config.urls import masked

            out["memory_database"] = masked(self.settings.database_url)
        out["records"] = self.records.counts()
        out["resolved_by"] = self.resolution.how if self.resolution is not None else ""
        out["seed"] = self.sessions.seed_state()
        out["fresh"] = fresh
        return out


def _db_size(path: str) -> int:
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def _remote_memory(bank: Bank, settings: Settings) -> MemoryService:
    """Client mode (``apiUrl`` set): the bank's memories on the server."""
    from hindsight.remote.client import ServerClient
    from hindsight.remote.service import RemoteMemoryService

    client = ServerClient(settings.api_url, token=settings.api_token,
                          token_file=settings.api_token_file,
                          timeout_s=settings.api_timeout_s)
    spool = os.path.join(Home.current().spool_dir(bank.bank_id, create=True), "remote")
    return RemoteMemoryService(bank.stores.memory, client, bank.bank_id, spool,
                               anchors=bank._anchors, neighbours=bank.code.neighbours,
                               code=lambda: bank.stores.code
                               if bank.code.is_indexed() else None, root=bank.root)


def federated_recall(bank: Bank, text: str, k: int = 10) -> dict[str, Any]:
    """``recall --federated`` (:mod:`hindsight.remote.federation`)."""
    from hindsight.remote.federation import federated_recall as run

    return run(bank.memory, bank.settings, bank.bank_id, text, k)


def push_local(bank: Bank) -> dict[str, Any]:
    """Client mode: copy the bank this checkout has in local mode (its id resolved without
    ``apiUrl``) to the server (``RemoteMemoryService.push``); ``from`` names it. Raises
    ConfigError outside client mode, BankNotFound without a local bank, Unreachable."""
    from hindsight.config.banks import resolve

    if not getattr(bank.memory, "remote", False):
        raise ConfigError("push needs client mode: set apiUrl (HINDSIGHT_API_URL)",
                          option="apiUrl")
    local = resolve(bank.root, settings=bank.settings.with_values({"apiUrl": ""}),
                    root=bank.root)
    if local.bank_id is None or local.bank_id == bank.bank_id:
        return {"from": bank.bank_id, **bank.memory.push()}  # type: ignore[attr-defined]
    db = bank_file(local.bank_id)
    if not os.path.exists(db):
        raise BankNotFound(f"no local bank {local.bank_id} (expected {db})", path=db)
    stores = _sqlite_stores(db, local.bank_id, bank.root, bank.settings.busy_timeout_ms)
    try:
        return {"from": local.bank_id,
                **bank.memory.push(stores.memory)}  # type: ignore[attr-defined]
    finally:
        stores.close()


def open_bank(path: str = ".", *, repo_root_path: str | None = None,
              create: bool = True, harness: str = "cli", resolution: Any = None) -> Bank:
    """Open (creating if needed) the bank of the repository containing ``path``.

    The repository root is ``repo_root_path`` when given (used as is, even inside another
    repository), else the git work tree top containing ``path`` (or ``path`` outside git);
    git file selection applies when the root has a ``.git``; otherwise the directory is
    walked with the same ignore rules. The bank id comes from the layered config and
    :func:`hindsight.config.banks.resolve` (``resolution`` when already resolved); the file
    is ``$HINDSIGHT_HOME/banks/<id>.db``; a bank written by an earlier release is migrated
    in place. Raises :class:`ConfigError` for a path that is not a directory, an invalid
    config, or a repository that has no bank (``disabled``, ``optInOnly``);
    :class:`BankNotFound` when ``create`` is false and the bank does not exist;
    :class:`StorageError` when the database cannot be opened or holds another bank.
    """
    from hindsight.config.banks import resolve

    if resolution is not None:
        root = resolution.root
    elif repo_root_path is not None:
        root = os.path.abspath(repo_root_path)
        if not os.path.isdir(root):
            raise ConfigError(f"{repo_root_path}: not a directory", path=repo_root_path)
    else:
        root = repo_root(path)
    try:
        root.encode("utf-8")
    except UnicodeEncodeError:
        shown = root.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        raise ConfigError(f"{shown}: repository path is not valid UTF-8", path=shown) from None
    res = resolution or resolve(root, harness, root=root, record=create)
    if res.bank_id is None:
        raise ConfigError(f"{root}: no bank ({res.reason})", path=root)
    db = bank_file(res.bank_id)
    if not create and not os.path.exists(db) and not res.settings.api_url:  # client mode:
        # the memories are on the server; this machine's bank holds bookkeeping
        raise BankNotFound(f"no bank for {root} (expected {db}); nothing was retained or "
                           "indexed there yet", path=db, root=root)
    stores = _sqlite_stores(db, res.bank_id, root, res.settings.busy_timeout_ms)
    from hindsight.store.sqlite.readonly import READ_ONLY

    if db in READ_ONLY:
        from hindsight.app import notices

        notices.say(READ_ONLY[db])
    if res.settings.database_url:
        stores = _shared_memory(stores, res.settings.database_url, res.bank_id,
                                res.settings.busy_timeout_ms)
    return Bank(res.bank_id, res.root, db, stores, res)


def _sqlite_stores(db: str, bank_id: str, root: str, busy_ms: int) -> Stores:
    from hindsight.store.sqlite import open_record_store, open_stores, page_store

    code, history, memory, conn = open_stores(db, bank_id, root, busy_ms)
    return Stores(code, history, memory, conn, page_store(conn), open_record_store(conn))


def _shared_memory(stores: Stores, url: str, bank_id: str, busy_ms: int) -> Stores:
    """``stores`` with the memory, page and record stores on PostgreSQL at ``url`` (the
    code index and history stay in the SQLite file; the checkout's own meta keys too).
    Closes the SQLite connection and raises StorageError when the database cannot be
    reached."""
    from hindsight.store.postgres import open_memory_store, work_stores

    try:
        shared = open_memory_store(url, bank_id, local_meta=stores.code,
                                   busy_timeout_ms=busy_ms)
    except BaseException:
        stores.close()
        raise
    pages, records = work_stores(shared)
    return Stores(stores.code, stores.history, shared, stores.raw, pages, records, shared)


def git_refresh(root: str, event: str) -> None:
    """Incremental index + history ingest of the repository at ``root``, for git hooks,
    then the knowledge pages that are due; see :func:`hindsight.history.githooks.refresh`.
    Never raises."""
    from hindsight.history.githooks import refresh

    def pages(bank: Bank, rec: dict[str, Any]) -> None:  # due pages, in this detached run
        from hindsight.errors import HindsightError

        try:
            rec["pages"] = bank.pages.refresh_due(reason=f"git {event}")
        except HindsightError as e:  # index and ingest did their part: say what failed
            rec["pages_error"] = f"{type(e).__name__}: {e}"

    refresh(root, event, lambda r: open_bank(r), after=pages)


def time_bound(text: str, *, end: bool = False, option: str | None = None) -> float:
    """A time option (``--since``, ``--until``) in the one grammar of the README's "Time
    options" table, resolved in the user's zone: Unix seconds, the start of the period (or
    its exclusive end with ``end``). Raises ConfigError (fields ``option``, ``value``).
    See :func:`hindsight.memory.clock.parse_bound`."""
    from hindsight.memory.clock import parse_bound

    return parse_bound(text, end=end, option=option)


def time_shown(when: float | str) -> str:
    """An instant (Unix seconds or ISO 8601 text) as people read it: in the reader's zone
    with its offset, ``2026-03-10 08:30 -07:00``. See
    :func:`hindsight.memory.clock.shown`."""
    from hindsight.memory.clock import shown

    return shown(when)


def time_iso(text: str, *, option: str) -> float:
    """A time from a machine interface (MCP, HTTP): ISO 8601 with an offset only. Raises
    ConfigError. See :func:`hindsight.memory.clock.parse_iso_strict`."""
    from hindsight.memory.clock import parse_iso_strict

    return parse_iso_strict(text, option=option)


SYMBOLS_COUNTED = 10_000  # a symbol search counts (and pages through) this many matches


def page(rows: list[Any], offset: int = 0, limit: int | None = None,
         total: int | None = None) -> tuple[list[Any], dict[str, Any]]:
    """One page of a ranked list, the same for ``--json`` and the MCP tools: the rows
    ``rows[offset:offset + limit]`` (all from ``offset`` when ``limit`` is None) and their
    fields ``{"count", "total", "offset", "truncated"}``, plus ``"next_offset"`` (the offset
    of the next page) when rows remain after this one. ``total`` is ``len(rows)`` unless
    given (a list its producer already cut after ``offset + limit`` rows). Raises
    ConfigError for a negative offset or a limit below 1."""
    if offset < 0:
        raise ConfigError(f"offset {offset}: must be 0 or more", option="offset", value=offset)
    if limit is not None and limit < 1:
        raise ConfigError(f"limit {limit}: must be at least 1", option="limit", value=limit)
    shown = rows[offset:] if limit is None else rows[offset:offset + limit]
    n = len(rows) if total is None else total
    fields: dict[str, Any] = {"count": len(shown), "total": n, "offset": offset,
                              "truncated": offset + len(shown) < n}
    if fields["truncated"]:
        fields["next_offset"] = offset + len(shown)
    return shown, fields


# --- team server (hindsight serve): what the server adapter may use -------------------
# the team server's side (re-exported for the adapters, which import no store module)
from hindsight.app.served import ServedBank as ServedBank  # noqa: E402
from hindsight.app.served import TokenRow as TokenRow  # noqa: E402
from hindsight.app.served import TokenStore as TokenStore  # noqa: E402
from hindsight.app.served import embedded_postgres as embedded_postgres  # noqa: E402
from hindsight.app.served import open_served_bank as open_served_bank  # noqa: E402
from hindsight.app.served import open_token_store as open_token_store  # noqa: E402
from hindsight.app.served import served_bank_bytes as served_bank_bytes  # noqa: E402
