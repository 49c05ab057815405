"""Storage contracts. Domain code (``codeindex``, ``history``, ``memory``, ``sessions``,
``records``) sees only these Protocols; ``app.py`` picks the concrete backend.

Conventions for every method of every store: paths are repository-relative with ``/``;
lines are 1-based; times are Unix seconds (float) or ISO 8601 strings with an offset, as
named; every method raises :class:`hindsight.errors.StorageError` when the backend fails
(locked past its busy timeout, disk full, corrupt file) and never lets a backend exception
(``sqlite3.Error``, ``psycopg.Error``) escape. No signature carries SQL: filters are typed
arguments. ``tests/store/test_contract.py`` runs one suite against every backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from hindsight.models import Memory, SymbolChange
from hindsight.store.codestore import BulkLoad as BulkLoad
from hindsight.store.codestore import CodeStore as CodeStore
from hindsight.store.codestore import EdgeMap as EdgeMap
from hindsight.store.codestore import FileRow as FileRow
from hindsight.store.codestore import Row as Row
from hindsight.store.codestore import StoredEdge as StoredEdge
from hindsight.store.visibility import Viewer, can_see  # noqa: F401 (the contract's reader)
from hindsight.store.workstore import PageStore as PageStore
from hindsight.store.workstore import RecordLink as RecordLink
from hindsight.store.workstore import RecordStore as RecordStore

# A memory's lexical document: term → frequency in its body (text, scene, problem,
# solution, tags) and in its context, terms from hindsight.memory.segment.
LexDoc = tuple[dict[str, int], dict[str, int]]
PurgeRewrite = tuple[int, str, list[str], LexDoc]  # id, new context, old terms, new document
# One posting, 12 bytes little-endian (docs/design.md, "Lexical engine"): memory id, term
# frequency per field, field lengths (in terms); values above 65,535 are stored as 65,535,
# so every backend hands back the same bytes and the same BM25 scores. As a NumPy
# structured dtype (``np.dtype(POSTING)``) and as a ``struct`` format:
POSTING = [("id", "<u4"), ("tf_body", "<u2"), ("tf_context", "<u2"), ("len_body", "<u2"),
           ("len_context", "<u2")]
POSTING_STRUCT = "<IHHHH"


class HistoryStore(Protocol):
    """Persistence of git history (commits, files, symbol changes) and the live edit trace
    of one bank.

    Commits are keyed by full sha; ``seq`` orders them (higher is newer): children above
    parents, otherwise by committer date (``git rev-list --date-order``), so a commit
    whose clock ran ahead still sorts below its children; ``*_ts`` are Unix seconds,
    dates ISO 8601 with the original offset. Query results are dicts keyed by the field
    names of the stored records (commit: ``sha, seq, parents, author_name, author_email,
    author_date, author_ts, committer_date, committer_ts, message, subject, n_files, huge, boundary, expanded, fix, reachable``;
    symbol change: the fields of :class:`hindsight.models.SymbolChange` plus the commit's
    ``sha``, ``date``, ``author``, ``subject``). Trace events (``add_trace_event``) hold
    ``ts`` (ISO), ``ts_unix``, ``path``, ``old_path``, ``action``, ``old_hash``,
    ``new_hash``, ``ranges`` ([[old_start, old_count, new_start, new_count]]), ``actor``,
    ``session``, ``branch``, ``head`` and the symbols touched."""

    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, values: dict[str, str]) -> None: ...
    def known_commits(self, shas: list[str]) -> dict[str, tuple[int, int, int, int]]: ...
    def unexpanded(self) -> list[str]: ...
    def reset_expanded(self) -> int: ...
    def redo_candidates(self, huge: int) -> list[str]: ...
    def seqs(self, shas: list[str]) -> dict[str, int]: ...
    def set_seqs(self, seqs: dict[str, int]) -> None: ...
    def max_seq(self) -> int: ...
    def commit_graph(self) -> list[tuple[str, tuple[str, ...], int]]: ...
    def write_commits(self, commits: list[dict[str, Any]],
                      files: dict[str, list[tuple[str, str, str, int, int]]],
                      changes: dict[str, list[SymbolChange]]) -> None: ...
    def mark_reachable(self, reachable: set[str], at: str) -> tuple[int, int]: ...
    def set_fixes(self, is_fix: Callable[[str], bool]) -> int: ...
    def huge_pending(self, paths: list[str]) -> list[dict[str, Any]]: ...
    def add_huge_changes(self, changes: dict[str, list[SymbolChange]],
                         done: list[tuple[str, str]]) -> int: ...
    def commit_count(self) -> int: ...
    def set_busy_timeout(self, ms: int) -> None: ...
    def history_counts(self) -> dict[str, int]: ...
    def commit(self, sha: str) -> dict[str, Any] | None: ...
    def symbol_changes(self, path: str, local: str, before: int | None = None,
                       include_unreachable: bool = False) -> list[dict[str, Any]]: ...
    def locals_named(self, name: str) -> list[tuple[str, str]]: ...
    def file_commits(self, path: str, include_unreachable: bool = False
                     ) -> list[dict[str, Any]]: ...
    def noise_shas(self, shas: Iterable[str]) -> set[str]: ...
    def cochanged_symbols(self, shas: list[str]) -> list[tuple[str, str, str, int]]: ...
    def cochanged_files(self, shas: list[str]) -> list[tuple[str, int]]: ...
    def change_sets(self) -> list[tuple[str, int, str, list[tuple[str, str, list[str]]]]]:
        """``(sha, committer ts, message, files)`` of every reachable commit that is neither
        a merge nor huge, oldest first (by seq); ``files``: ``(path, old
        path or "", locals)`` of each file it added, modified or renamed, by path
        (deletions are left out; the old path of a rename only), ``locals`` the local names
        of the symbols it added, modified or moved there (history's keys: ``name#2`` for a
        repeated name), by name. What task context ranks past commits by
        (``hindsight.context``)."""
        ...

    def added_deleted(self) -> dict[str, tuple[list[str], list[str]]]:
        """``sha → (paths added, paths deleted)`` of every reachable commit that is neither
        a merge nor huge and added or deleted a file (git's renames are neither), paths
        sorted. What task context detects replaced files from (``hindsight.context``)."""
        ...

    def renames(self) -> list[tuple[str, str, str, str]]: ...
    def recent_commits(self, limit: int, fixes_only: bool = False, path: str | None = None
                       ) -> list[dict[str, Any]]:
        """Reachable commits newest first, at most ``limit``; only fix commits with
        ``fixes_only``; only those that touched ``path`` (as new or old path) when given.
        Each ``{"sha", "subject", "author", "date" (committer date, ISO), "ts" (committer
        Unix seconds), "fix", "merge" (bools), "files" (paths, sorted)}``."""
        ...

    def newest_commit_ts(self, include_unreachable: bool = False) -> int | None: ...
    def file_churn(self, since_ts: int) -> list[dict[str, Any]]: ...
    def huge_count(self, since_ts: int) -> int: ...
    def symbol_churn(self, since_ts: int) -> list[dict[str, Any]]: ...
    def add_trace_event(self, event: dict[str, Any], symbols: list[SymbolChange]) -> int: ...
    def trace_events(self, path: str | None = None, local: str | None = None,
                     since_unix: float | None = None, limit: int = 1000
                     ) -> list[dict[str, Any]]: ...


class MemoryStore(Protocol):
    """Persistence of the experience memory of one bank: memory rows (a
    :class:`~hindsight.models.Memory` each) with their vector, anchors, a full-text index
    and an audit log.

    Ids are positive ints given by the store. ``at`` arguments are ISO 8601 times with an
    offset; ``ts`` arguments Unix seconds. Vectors are float32, unit length, stored per
    embedding ``model`` id. Reads of ``get``/``list_memories`` return every status unless
    filtered; recall filters statuses itself. Reads that return memory content take an
    optional ``viewer`` (:class:`Viewer`) and return only what it may see, filtered in the
    backend's query; None sees everything.
    """

    def get_meta(self, key: str) -> str | None: ...  # the value of ``key``, None when unset
    def set_meta(self, values: dict[str, str]) -> None: ...  # several keys, one transaction
    def set_busy_timeout(self, ms: int) -> None: ...  # how long a write waits (ms)

    # --- writes -------------------------------------------------------------------------
    def insert(self, rows: list[dict[str, Any]], anchors: list[list[tuple[str, str, str]]],
               docs: list[LexDoc], at: str,
               implicit: list[list[tuple[str, str, str]]] | None = None
               ) -> list[tuple[int, bool]]:
        """Insert memories in one transaction: ``rows`` (the :class:`Memory` fields but
        ``id``/``anchors``, ``tags`` as a JSON string), per row its anchors (path, symbol,
        ast hash), its lexical document (:data:`LexDoc`, made by
        :func:`hindsight.memory.lexical.document`, indexed in the same transaction) and its
        ``implicit`` anchors (the same triples, stored flagged implicit; None: none). A row
        whose ``fingerprint`` exists is not inserted: that memory's access count is bumped
        (and it is made active again). Returns ``(id, created)`` per row, in order."""
        ...

    def merge_into(self, mid: int, at: str, detail: str) -> None:
        ...  # count a near duplicate against memory ``mid`` (access count + audit row)

    def set_status(self, mid: int, status: str, reason: str, at: str,
                   superseded_by: int | None = None) -> None:
        """Set ``status`` (active, forgotten, archived, superseded) with an audit row."""
        ...

    def archive_many(self, ids: list[int], reason: str, at: str) -> None:
        ...  # archive ``ids`` in one transaction, each with an audit row

    def set_vectors(self, items: list[tuple[int, bytes]], model: str) -> None:
        ...  # store float32 vectors (raw bytes, native order) made by ``model``

    def touch(self, ids: list[int], ts: float) -> None: ...  # one access of each, at ``ts``

    def add_anchors(self, items: list[tuple[int, str, str, str]], at: str) -> int:
        """Add implicit anchors (memory id, path, symbol, hash) in one transaction, each
        with an audit row (``anchored``); one the memory has (same path and symbol) is
        skipped. Returns how many were added."""
        ...

    def ids_after(self, after: int, limit: int) -> list[int]:
        """Ids above ``after`` of active memories other than conversation turns, ascending,
        at most ``limit``."""
        ...

    def mark_stale(self, items: list[tuple[int, str, str, str]], at: str) -> None:
        """Flag anchors (memory id, path, symbol, reason) and their memories stale."""
        ...

    def clear_stale(self, items: list[tuple[int, str, str]], at: str) -> None:
        """Anchors (memory id, path, symbol) that match the code again; a memory whose
        anchors are all fresh is no longer stale."""
        ...

    def repoint(self, mid: int, old: tuple[str, str], new: tuple[str, str], at: str,
                ast_hash: str | None = None) -> None:
        """Move an anchor from (path, symbol) ``old`` to ``new`` (a rename or move); with
        ``ast_hash`` also record that hash (an identity migration, the code unchanged)."""
        ...

    def import_rows(self, rows: list[dict[str, Any]], docs: list[LexDoc]) -> dict[str, int]:
        """Insert exported rows (:mod:`hindsight.memory.transfer`), each with its lexical
        document, in one transaction; ``{"imported", "skipped"}`` (skipped: the
        fingerprint exists)."""
        ...

    # --- reads --------------------------------------------------------------------------
    def get(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, Memory]:
        """The memories of ``ids`` that exist (any status) and ``viewer`` may see, with
        their anchors."""
        ...

    def list_memories(self, *, status: str = "active", kind: str | None = None,
                      stale: bool = False, source: str | None = None, limit: int = 100,
                      tag: str | None = None, visibility: str | None = None,
                      since: float | None = None, until: float | None = None,
                      anchor: tuple[str, str] | None = None, after_id: int = 0,
                      offset: int = 0, order: str = "occurred",
                      viewer: Viewer | None = None) -> list[Memory]:
        """Memories ``viewer`` may see, newest first (by occurred time, then id;
        ``order="id"``: by id, the order they were stored), skipping ``offset``, at most
        ``limit``. Filters (all
        optional, combined with AND): ``status`` (``all`` for every status), ``kind``,
        ``source``, ``visibility``, ``stale`` (only stale ones), ``tag`` (one of its tags),
        ``since``/``until`` (occurred time in Unix seconds, ``since`` ≤ t < ``until``),
        ``anchor`` ((path, symbol local name or ``""`` for any anchor in the file)) and
        ``after_id`` (ids above it)."""
        ...

    def has_active(self) -> bool: ...

    def count(self, status: str | None = "active") -> int:
        """Memories of ``status`` (None: all)."""
        ...

    def active_count(self) -> int:
        """Active memories (may be cached until a write)."""
        ...

    def status_counts(self) -> dict[str, int]:
        """Memories per status (every status, 0 included: active, archived, forgotten,
        superseded), plus ``stale``: active memories flagged stale."""
        ...

    def by_fingerprint(self, fp: str) -> int | None: ...

    def audit(self, mid: int) -> list[dict[str, Any]]:
        """The memory's audit rows ``{"at", "action", "detail"}``, oldest first."""
        ...

    # --- the lexical index: integers only; BM25 is computed in hindsight.memory.lexical ---
    def lex_stats(self) -> tuple[int, int, int]:
        """``(documents, total body length, total context length)`` of the lexical index
        (every indexed memory, any status; lengths in terms)."""
        ...

    def lex_df(self, terms: list[str]) -> dict[str, int]:
        """Document frequency of each of ``terms``: how many indexed memories (any status)
        hold it in either field; 0 when no memory does. Keys: every one of ``terms``."""
        ...

    def lex_postings(self, terms: list[str]) -> dict[str, bytes]:
        """term → its postings, for each of ``terms`` that some memory holds: ``df`` packed
        postings (:data:`POSTING`, 12 bytes each), one per memory holding the term (any
        status), in the order they were indexed. Bytes, not arrays: a short-lived hook
        decodes a few with ``struct`` instead of importing NumPy."""
        ...

    def lex_missing(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` memories (any status) without a lexical document, in id order:
        ``{"id", "text", "scene", "problem", "solution", "tags" (list), "context"}``."""
        ...

    def lex_behind(self) -> bool:
        """Whether the newest memory has no lexical document (a cheap check)."""
        ...

    def lex_add(self, docs: list[tuple[int, dict[str, int], dict[str, int]]]) -> int:
        """Index ``(memory id, body counts, context counts)`` of stored memories in one
        transaction; memories already indexed are skipped. Returns how many were added."""
        ...

    def lex_reset(self, version: str) -> bool:
        """Empty the lexical index for a rebuild by analyzer ``version`` and remove meta
        ``lexical``, unless a rebuild for ``version`` has already begun (meta
        ``lexical_building``); returns whether it emptied the index."""
        ...

    def matrix(self, model: str) -> tuple[Any, Any]:
        """``(ids, vectors)`` of active memories embedded with ``model``: an int64 array of
        shape (n,) and a float32 array of shape (n, dim), rows unit length. For export and
        tests: recall and retain ask :meth:`nearest` and :meth:`cosines` instead."""
        ...

    def nearest(self, model: str, vector: Any, k: int, floor: float = -1.0,
                viewer: Viewer | None = None) -> list[tuple[int, float]]:
        """The dense channel's top-k: up to ``k`` active memories embedded with ``model``
        (that ``viewer`` may see: filtered before the cut) nearest to ``vector`` (float32,
        shape (dim,), unit length), as ``(id, cosine)`` best first (ties in any order), only
        those with cosine ≥ ``floor``. A backend may answer approximately above a size it
        states (SQLite: an IVF index from 200,000 vectors; PostgreSQL: its HNSW index from
        100,000 rows), never below 100,000 vectors."""
        ...

    def has_vectors(self, model: str) -> bool: ...  # an active memory has a ``model`` vector

    def cosines(self, model: str, vector: Any, ids: list[int]) -> dict[int, float]:
        """Cosine of ``vector`` (unit length) with the ``model`` vector of each of ``ids``
        that is active and has one (others are left out)."""
        ...

    def adjacent(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, list[int]]:
        """For conversation memories among ``ids``: the active memories of the same
        session stored right before and after each (among those ``viewer`` may see)."""
        ...

    def agents(self) -> list[str]:
        """The distinct non-empty ``agent`` values (who wrote or said a memory) of the
        bank's memories, any status, sorted; read from an index (one lookup per agent)."""
        ...

    def anchored(self, paths: list[str], symbols: list[tuple[str, str]],
                 viewer: Viewer | None = None) -> list[tuple[int, str, str]]:
        """(memory id, path, symbol) of active memories ``viewer`` may see anchored to one
        of ``paths`` (any symbol in it) or ``symbols`` ((path, local) pairs)."""
        ...

    def anchors_all(self) -> list[tuple[int, str, str, str, int]]:
        """(memory id, path, symbol, ast hash, stale 0/1) of active and archived memories,
        in the order the anchors were stored."""
        ...

    def activity_rows(self) -> list[tuple[int, float, int, float]]:
        """(id, last accessed ts, access count, confidence) of active memories."""
        ...

    def export_rows(self, viewer: Viewer | None = None) -> Iterator[dict[str, Any]]:
        """``{"id"}`` of every memory ``viewer`` may see, in id order."""
        ...

    def export_full(self, ids: list[int], viewer: Viewer | None = None
                    ) -> list[dict[str, Any]]:
        """Every stored field of ``ids`` ``viewer`` may see (``vector`` as bytes or None,
        ``tags`` JSON)."""
        ...

    # --- team use (issue 11) --------------------------------------------------------------
    def active_visible(self, ids: list[int], viewer: Viewer) -> set[int]:
        """The ids among ``ids`` of active memories ``viewer`` may see (recall filters its
        candidates with it before cutting a channel's list)."""
        ...

    def purge(self, mid: int, terms: list[str], at: str, detail: str,
              rewrites: list[PurgeRewrite] | None = None,
              fragments: list[str] | None = None) -> bool:
        """Delete memory ``mid`` for real: its row, vector, anchors, audit rows and lexical
        postings (``terms``: its document's terms; a term no memory holds any more is
        removed); one audit row ``purged`` with ``detail`` (who and why) is kept. In the
        same transaction each of ``rewrites`` ``(id, new context, old document's terms,
        new document)`` gets its context replaced and its lexical document re-indexed (a
        neighbour whose context held the purged text) with an audit row ``scrubbed``, and
        every ``fragments`` string in another memory's audit detail becomes
        ``[purged]``. False when there is no such memory (nothing changed)."""
        ...

    def context_holders(self, fragments: list[str]) -> list[int]:
        """Ids (ascending, any status) of memories whose ``context`` contains one of
        ``fragments`` (exact substring; empty strings are ignored)."""
        ...

    def missing_vectors(self, model: str) -> list[tuple[int, str]]:
        """(id, text) of memories without a vector from ``model``."""
        ...

    def active_fingerprints(self, kinds: list[str]) -> list[tuple[int, str]]:
        """(id, fingerprint) of active memories of ``kinds``, in id order (the prompt
        gate's vector cache is checked against them)."""
        ...
