"""Plain data shapes shared by every layer.

Conventions used throughout hindsight:

* ``path`` is relative to the repository root, with ``/`` separators, UTF-8.
* Lines are **1-based**; columns are **0-based UTF-8 byte offsets** within the line
  (tree-sitter's point column), after line endings are normalised to LF.
* A symbol's span starts at its defining keyword or name, **not** at decorators or
  annotations placed before it (``@decorator``, ``@Override``): this matches Python's
  ``ast`` ``lineno`` for ``def``/``class``.
* A qualified name is ``<path>::<Outer>.<inner>``, e.g. ``pkg/mod.py::Class.method.helper``.
  The part after ``::`` is the *local* qualified name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Symbol(NamedTuple):
    """One definition found in a file.

    ``qname`` is ``path::local``; ``parent`` is the parent's local qualified name or ``""``.
    ``ast_hash`` is a 16-hex-digit xxh3 of the definition's text with comments removed and
    whitespace normalised (see :mod:`hindsight.codeindex.asthash`).
    """

    path: str
    name: str
    local: str
    kind: str
    parent: str
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    signature: str
    doc: str
    language: str
    ast_hash: str

    @property
    def qname(self) -> str:
        return f"{self.path}::{self.local}"


class RawRef(NamedTuple):
    """A reference seen by the parser, before resolution.

    ``kind`` is ``call`` or ``inherits``; ``caller`` is the local qualified name of the
    innermost enclosing definition (``""`` for module level); ``receiver`` is the text of the
    object a method is called on (``self``, ``os.path``) or ``""``; ``line`` is 1-based.
    """

    caller: str
    kind: str
    name: str
    receiver: str
    line: int


class RawImport(NamedTuple):
    """An import seen by the parser.

    ``module`` is the imported module as written (``os.path``, ``./util``, ``..pkg``,
    ``java.util.List``); ``name`` is the imported member or ``""`` for a whole module;
    ``alias`` is the local name it is bound to (``""`` for a wildcard import).
    """

    caller: str
    module: str
    name: str
    alias: str
    line: int


@dataclass(slots=True)
class ParseResult:
    """What the parser extracted from one file."""

    path: str
    language: str
    content_hash: str
    size: int
    mtime_ns: int
    lines: int
    symbols: list[Symbol] = field(default_factory=list)
    refs: list[RawRef] = field(default_factory=list)
    imports: list[RawImport] = field(default_factory=list)
    package: str = ""
    error: str = ""
    skip: str = ""
    hindsight_notes: list[tuple[str, int, str]] = field(default_factory=list)

    def to_wire(self) -> tuple[Any, ...]:
        """Plain nested tuples (pickles ~8x faster than NamedTuples between processes)."""
        return (self.path, self.language, self.content_hash, self.size, self.mtime_ns,
                self.lines, [tuple(s) for s in self.symbols], [tuple(r) for r in self.refs],
                [tuple(i) for i in self.imports], self.package, self.error, self.skip,
                self.hindsight_notes)

    @classmethod
    def from_wire(cls, w: tuple[Any, ...]) -> ParseResult:
        """Inverse of :meth:`to_wire`."""
        return cls(w[0], w[1], w[2], w[3], w[4], w[5], [Symbol._make(s) for s in w[6]],
                   [RawRef._make(r) for r in w[7]], [RawImport._make(i) for i in w[8]],
                   w[9], w[10], w[11], w[12])


class Edge(NamedTuple):
    """A resolved (or unresolved) relation between symbols.

    ``kind``: ``call``, ``import`` or ``inherits``. ``dst`` is the callee's qualified name,
    or ``""`` when unresolved, in which case ``dst_name`` keeps the bare name.
    """

    src: str
    kind: str
    dst: str
    dst_name: str
    path: str
    line: int


@dataclass(slots=True)
class IndexStats:
    """Result of one ``index`` run. Times in seconds."""

    files_seen: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_renamed: int = 0
    files_reresolved: int = 0
    lines: int = 0
    bytes: int = 0
    symbols: int = 0
    edges: int = 0
    parse_errors: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    full: bool = False
    warnings: list[str] = field(default_factory=list)


class SymState(NamedTuple):
    """A symbol as seen in one version of a file, for comparing versions: local qualified
    name, kind, ast hash and its 1-based line span in that version."""

    local: str
    kind: str
    ast_hash: str
    start_line: int
    end_line: int


class SymbolChange(NamedTuple):
    """How one symbol changed between two versions: ``change`` is ``added``, ``modified``,
    ``moved`` (new file or qualified name; ``old_hash != new_hash`` when also edited) or
    ``removed``. ``path``/``local`` name the new place (the old one for ``removed``); lines
    are 1-based in the version after the change (before it for ``removed``)."""

    path: str
    local: str
    kind: str
    change: str
    old_path: str
    old_local: str
    old_hash: str
    new_hash: str
    start_line: int
    end_line: int
