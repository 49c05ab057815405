"""Storage contracts. Domain code (``codeindex``, ``memory``) sees only these Protocols;
``app.py`` picks the concrete backend."""

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


class CodeStore(Protocol):
    """Persistence of the code index (L1 symbols, L2 edges) of one bank."""

    # --- indexing -----------------------------------------------------------------------
    def load_files(self) -> dict[str, FileRow]: ...
    def set_meta(self, values: dict[str, str]) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def write_full(self, results: list[ParseResult], modules: dict[str, str],
                   edges_fn: Callable[[], EdgeMap], sel: Any) -> None: ...
    def write_incremental(self, changed: list[ParseResult], modules: dict[str, str],
                          deleted: list[str], edges: EdgeMap, id_of: dict[str, int],
                          modules_update: dict[str, str], sel: Any) -> None: ...
    def touch_mtimes(self, items: list[tuple[str, int]]) -> None: ...
    def write_skips(self, sel: Any) -> None: ...
    def dependents(self, keys: Iterable[str]) -> set[str]: ...
    def load_file_raw(self, file_id: int, path: str) -> tuple[list[Any], list[Any],
                                                              list[Any]]: ...
    def load_raw_refs(self, file_id: int, path: str) -> list[tuple[str, str, str, str, int]]: ...
    def counts(self) -> dict[str, int]: ...

    # --- queries ------------------------------------------------------------------------
    def find_symbols(self, name: str, kind: str | None, file: str | None, limit: int
                     ) -> list[Symbol]: ...
    def symbols_by_qname(self, qnames: Iterable[str]) -> list[Symbol]: ...
    def edges_to(self, qnames: list[str], names: list[str]) -> list[StoredEdge]: ...
    def edges_from(self, qnames: list[str]) -> list[StoredEdge]: ...
    def file_symbols(self, path: str) -> list[Symbol]: ...
    def skipped(self) -> dict[str, int]: ...
    def problem_files(self) -> list[tuple[str, str]]: ...
