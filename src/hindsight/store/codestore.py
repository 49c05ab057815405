"""The code index's storage contract (:class:`CodeStore`, its :class:`BulkLoad` and row
types), re-exported by :mod:`hindsight.store.base`, whose conventions hold here too: paths
repository-relative with ``/``, lines 1-based, StorageError for every backend failure."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol

from hindsight.models import ParseResult, Symbol

Row = tuple[str, str, str, str, str, int, str]
EdgeMap = dict[str, tuple[list[Row], set[str]]]


class FileRow(NamedTuple):
    """An indexed file as stored."""

    id: int
    path: str
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    lines: int
    module: str
    package: str
    error: str


class StoredEdge(NamedTuple):
    """An edge as stored: ``src``/``dst`` full qualified names (``dst`` ``""`` when
    unresolved); ``path``/``line`` where the reference is (1-based)."""

    src: str
    kind: str
    name: str
    dst: str
    path: str
    line: int


class BulkLoad(Protocol):
    """A full rebuild of the code index in progress, one transaction: a context manager
    (an exception rolls it back and raises StorageError for a backend failure);
    :meth:`finish` commits. Rows arrive redacted (``hindsight.redact.clean``). Row shapes:
    files ``(id, path, language, size, mtime_ns, content_hash, lines, module, package,
    error)``; symbols ``(file_id, name, local, fold, kind, parent, start_line, start_col,
    end_line, end_col, signature, doc, language, ast_hash)``; notes ``(file_id, src, line,
    text)``; receiver facts ``(file_id, scope, target, value, line)`` (only the
    ``@provides`` ones are stored as rows); FileSyms dumps ``(file_id, bytes)``
    (``codeindex/table.py`` ``FileSyms.dumps``); edges ``(file_id,
    src, kind, name, receiver, alias, line, dst)``; deps
    ``(file_id, key)``. Edges may also be written by forked child processes through
    :meth:`part_writer` (``writer(part, edges, deps)``, one call per part, in the child;
    ``part`` below the ``parts`` the load was made with, or none when it was made with 0)
    and are then taken in by :meth:`merge_part` once that child has exited 0. Files,
    symbols, notes and facts are added first (:meth:`add`, :meth:`set_modules`) without holding
    the bank's write lock; :meth:`begin_write` takes it, replaces the old index with them
    and builds their indexes; edges are added after (:meth:`add_edges`,
    :meth:`merge_part`)."""

    def __enter__(self) -> BulkLoad: ...
    def __exit__(self, exc_type: object, exc: object, tb: object) -> None: ...
    parts: int  # part files made (at most the number asked for)

    def add(self, files: list[tuple[Any, ...]], symbols: list[tuple[Any, ...]],
            notes: list[tuple[Any, ...]], facts: list[tuple[Any, ...]] | None = None,
            dumps: list[tuple[int, bytes]] | None = None) -> None: ...
    def set_modules(self, modules: dict[int, str]) -> None: ...
    def add_edges(self, edges: list[tuple[Any, ...]], deps: list[tuple[int, str]]) -> None: ...
    def part_writer(self) -> Callable[[int, list[tuple[Any, ...]], list[tuple[int, str]]],
                                      None]: ...
    def merge_part(self, part: int) -> None: ...
    def begin_write(self) -> None: ...
    def finish(self, skipped: dict[str, str], skip_counts: dict[str, int]
               ) -> dict[str, int]: ...


class CodeStore(Protocol):
    """Persistence of the code index (L1 symbols, L2 edges) of one bank.

    ``load_files`` maps each indexed path to its :class:`FileRow`; ``bulk_load`` starts a
    full rebuild (:class:`BulkLoad`, one transaction fed while parsing and resolution run);
    ``write_incremental`` replaces the rows of ``changed`` and ``deleted`` files only. ``counts()`` gives ``files, lines, symbols, edges, calls,
    unresolved_calls, imports, inherits`` (ints). ``find_symbols`` matches ``name``
    exactly, then as a prefix, then as a substring (case-insensitive fold), at most
    ``limit``; ``edges_to``/``edges_from`` give the stored edges into / out of full
    qualified names (``edges_to`` also by bare ``names`` for unresolved edges)."""

    # --- indexing -----------------------------------------------------------------------
    def load_files(self) -> dict[str, FileRow]: ...
    def set_meta(self, values: dict[str, str]) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def bulk_load(self, parts: int) -> BulkLoad: ...
    def write_incremental(self, changed: list[ParseResult], modules: dict[str, str],
                          deleted: list[str], edges: EdgeMap, id_of: dict[str, int],
                          modules_update: dict[str, str], sel: Any,
                          dumps: dict[str, bytes] | None = None) -> None:
        """Replace the rows of ``changed`` and ``deleted`` files; ``dumps``: path → the
        FileSyms dump of each changed file."""
        ...
    def touch_mtimes(self, items: list[tuple[str, int]]) -> None: ...
    def write_skips(self, sel: Any) -> None: ...
    def dependents(self, keys: Iterable[str]) -> set[str]: ...
    def load_file_raw(self, file_id: int, path: str) -> tuple[list[Any], list[Any],
                                                              list[Any]]: ...
    def load_raw_refs(self, file_id: int, path: str) -> list[tuple[str, str, str, str, int]]: ...
    def load_dump(self, file_id: int) -> bytes | None:
        """The FileSyms dump stored for one file (``None``: none stored)."""
        ...
    def provided(self, file_ids: Iterable[int]) -> dict[int, dict[str, int]]:
        """file id → the keys it provides beyond its path and module, with their digests
        (its ``@provides`` receiver facts: codeindex/receivers.py ``PROVIDES``)."""
        ...
    def providers(self, key: str) -> list[str]:
        """Sorted paths of the stored files that provide ``key`` (as :meth:`provided`)."""
        ...
    def counts(self) -> dict[str, int]: ...

    # --- queries ------------------------------------------------------------------------
    def find_symbols(self, name: str, kind: str | None, file: str | None, limit: int
                     ) -> list[Symbol]:
        """Exact matches of ``name`` on a symbol's name, local qualified name
        (``Class.method``) or qualified name (``path::Class.method``), optionally of
        ``kind`` and under ``file`` (a file or directory), at most ``limit``."""
        ...

    def find_in_module(self, module: str, local: str, file: str | None, limit: int
                       ) -> list[Symbol]:
        """Symbols with local qualified name ``local`` in the files of ``module`` (a
        Python module's dotted name, or a Java/Kotlin/C#/Go package), else those it is
        the base of there (overloads ``C.m(int)``, accessors ``C.m:setter``, as
        :meth:`find_symbols`), else re-exported there (an import in such a file binding
        the first part of ``local``)."""
        ...

    def module_known(self, module: str) -> bool:
        """Whether any indexed file belongs to ``module`` or a submodule of it (a Python
        module, or a Java/Kotlin/C#/Go package: ``com`` of ``com.acme``)."""
        ...

    def count_unresolved(self, name: str, receiver: str | None = None) -> int:
        """How many call edges named ``name`` (on ``receiver`` when given) are
        unresolved."""
        ...

    def find_prefix(self, prefix: str, kind: str | None, file: str | None, limit: int
                    ) -> list[Symbol]:
        """Names starting with ``prefix``, case-insensitive (Unicode case folding)."""
        ...

    def find_substring(self, text: str, kind: str | None, file: str | None, limit: int
                       ) -> list[Symbol]:
        """Names containing ``text``, case-insensitive (may scan every symbol)."""
        ...

    def symbols_by_qname(self, qnames: Iterable[str]) -> list[Symbol]:
        """The symbols with these qualified names (overloads sharing one all come back)."""
        ...

    def symbols_with_hash(self, ast_hash: str, local: str) -> list[Symbol]:
        """Symbols whose ast hash is ``ast_hash`` and whose name or local qualified name
        is ``local``'s (to follow a moved or renamed anchor)."""
        ...

    def files_by_suffix(self, suffix: str, limit: int, stem: bool = False
                        ) -> list[tuple[str, str]]:
        """``(path, content hash)`` of indexed files whose path is ``suffix`` or ends with
        ``/`` + ``suffix`` (case-sensitive), the exact path first, then by path, at most
        ``limit``. With ``stem`` the
        path is compared without its extension and without a last ``/__init__``,
        ``/index`` or ``/mod`` (a module named by its path: ``shop/payments`` finds
        ``src/shop/payments/__init__.py``)."""
        ...

    def edges_to(self, qnames: list[str], names: list[str]) -> list[StoredEdge]:
        """Edges into any of ``qnames`` (full qualified names), plus unresolved edges
        whose bare name is one of ``names``."""
        ...

    def edges_from(self, qnames: list[str]) -> list[StoredEdge]:
        """Edges out of any of ``qnames`` (resolved or not)."""
        ...

    def import_edges(self) -> list[tuple[str, int, str]]:
        """The module dependency graph: ``(importing path, 1-based line, imported path)``
        of every resolved import edge, by importing path and line."""
        ...

    def imports_of(self, qnames: list[str]) -> list[StoredEdge]:
        """Import edges resolved to any of ``qnames`` (a definition, or a module as
        ``path::``), by path and line."""
        ...

    def file_symbols(self, path: str) -> list[Symbol]:
        """The symbols of one file, in source order."""
        ...

    def repeated_symbols(self) -> list[tuple[str, str, str, int, int]]:
        """``(path, local, ast hash, start line, end line)`` of every symbol whose local
        name occurs more than once in its file (what an identity change may split)."""
        ...

    def notes(self) -> list[tuple[str, str, int, str]]:
        """Every ``@hindsight:`` comment: (path, enclosing local name or "", 1-based line,
        text), by path and line."""
        ...

    def skipped(self) -> dict[str, int]:
        """Files left out of the index, by reason (``binary``, ``too_large``…)."""
        ...

    def problem_files(self) -> list[tuple[str, str]]:
        """(path, reason) of every skipped file worth listing and every parse error."""
        ...

    def set_busy_timeout(self, ms: int) -> None:
        """How long a write waits for another writer (ms) before StorageError."""
        ...
