"""Plain data shapes shared by every layer.

Conventions used throughout hindsight:

* ``path`` is relative to the repository root, with ``/`` separators, UTF-8.
* Lines are **1-based**; columns are **0-based UTF-8 byte offsets** within the line
  (tree-sitter's point column), after line endings are normalised to LF.
* A symbol's span starts at its defining keyword or name, **not** at decorators or
  annotations placed before it (``@decorator``, ``@Override``): this matches Python's
  ``ast`` ``lineno`` for ``def``/``class``.
* A qualified name is ``<path>::<Outer>.<inner>``, e.g. ``pkg/mod.py::Class.method.helper``.
  The part after ``::`` is the *local* qualified name. Definitions that share a name get
  distinct ones (see :mod:`hindsight.codeindex.identity`): ``Class.prop:setter``,
  ``Class.prop:deleter``, overloads ``Class.m(int,int)``.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
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

    def as_dict(self) -> dict[str, Any]:
        """The one JSON shape of a symbol, everywhere: its fields plus ``qname``."""
        return {**self._asdict(), "qname": self.qname}


def innermost(symbols: Iterable[Symbol], line: int,
              kinds: Container[str] | None = None) -> Symbol | None:
    """The innermost symbol of ``symbols`` whose span holds ``line`` (1-based): the one
    with the fewest lines, the later one on a tie; only kinds in ``kinds`` when given.
    None when no symbol holds the line."""
    best: Symbol | None = None
    for s in symbols:
        if s.start_line <= line <= s.end_line and (kinds is None or s.kind in kinds) and (
                best is None or s.end_line - s.start_line <= best.end_line - best.start_line):
            best = s
    return best


# Re-exported: the qualified-name helpers live in hindsight.qnames.
from hindsight.qnames import (  # noqa: E402, F401
    ROLES,
    base_local,
    call_base,
    overload_base,
    simple_name,
    split_qname,
)

# Re-exported: the execution record's shapes live in hindsight.recordmodel.
from hindsight.recordmodel import (  # noqa: E402, F401
    OUTCOMES,
    ExecutionRecord,
    Observation,
    SymbolDelta,
)


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
    # receiver facts (scope, target, value, line): codeindex/receivers.py
    facts: list[tuple[str, str, str, int]] = field(default_factory=list)

    def to_wire(self) -> tuple[Any, ...]:
        """Plain nested tuples (pickles ~8x faster than NamedTuples between processes)."""
        return (self.path, self.language, self.content_hash, self.size, self.mtime_ns,
                self.lines, [tuple(s) for s in self.symbols], [tuple(r) for r in self.refs],
                [tuple(i) for i in self.imports], self.package, self.error, self.skip,
                self.hindsight_notes, self.facts)

    @classmethod
    def from_wire(cls, w: tuple[Any, ...]) -> ParseResult:
        """Inverse of :meth:`to_wire`."""
        return cls(w[0], w[1], w[2], w[3], w[4], w[5], [Symbol._make(s) for s in w[6]],
                   [RawRef._make(r) for r in w[7]], [RawImport._make(i) for i in w[8]],
                   w[9], w[10], w[11], w[12], w[13])


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
    # wall seconds of each phase of the run, in order (names: codeindex/indexer.py), and
    # the part of them during which no worker process ran (only this process worked)
    phases: dict[str, float] = field(default_factory=dict)
    serial_seconds: float = 0.0


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


# --- experience memory -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Anchor:
    """A link from a memory to a file (``symbol`` ``""``) or to a symbol in it (``symbol``
    is its local qualified name, ``ast_hash`` the symbol's ast hash when the anchor was
    made; for a file, its content hash when known, used only to follow a rename). ``stale``
    is true when that code changed since (``reason`` says how). ``implicit`` is true for
    an anchor found in the memory's text (:mod:`hindsight.memory.implicit`), false for one
    given with the memory."""

    path: str
    symbol: str = ""
    ast_hash: str = ""
    stale: bool = False
    reason: str = ""
    implicit: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: ``stale`` and ``implicit`` as 0/1."""
        return {"path": self.path, "symbol": self.symbol, "ast_hash": self.ast_hash,
                "stale": int(self.stale), "reason": self.reason,
                "implicit": int(self.implicit)}


@dataclass(frozen=True, slots=True)
class Memory:
    """One stored memory (an experience unit). Times: ``*_at`` ISO 8601 with offset,
    ``*_ts`` Unix seconds. ``kind``: decision, convention, lesson, fact, preference,
    conversation…; ``outcome``: success, failure, partial or ``""``; ``status``: active,
    forgotten, archived or superseded; ``visibility``: private (seen only by ``owner``),
    team (seen by the agents of ``team``, ``""``: none) or public; ``confidence`` 0..1; ``stale`` is true when an anchor's code changed."""

    id: int
    fingerprint: str
    text: str
    kind: str
    scene: str
    problem: str
    solution: str
    outcome: str
    tags: tuple[str, ...]
    context: str
    source: str
    session: str
    agent: str
    commit_sha: str
    ref: str
    occurred_at: str
    occurred_ts: float
    created_at: str
    created_ts: float
    access_count: int
    last_accessed_ts: float
    confidence: float
    status: str
    status_reason: str
    status_at: str
    superseded_by: int | None
    visibility: str
    owner: str
    team: str
    stale: bool
    stale_reason: str
    model: str
    anchors: tuple[Anchor, ...] = ()

    @classmethod
    def from_row(cls, row: dict[str, Any], anchors: list[dict[str, Any]]) -> Memory:
        """From a storage row (column names as the field names; ``tags`` a list) and its
        anchor rows (``path``, ``symbol``, ``ast_hash``, ``stale``, ``reason``,
        ``implicit``)."""
        d: dict[str, Any] = {k: row.get(k) for k in _MEMORY_FIELDS}
        d["tags"] = tuple(row.get("tags") or ())
        d["stale"] = bool(row.get("stale"))
        d["model"] = row.get("model") or ""
        d["status_at"] = row.get("status_at") or ""
        d["status_reason"] = row.get("status_reason") or ""
        d["team"] = row.get("team") or ""
        return cls(**d, anchors=tuple(
            Anchor(a["path"], a.get("symbol", ""), a.get("ast_hash", ""),
                   bool(a.get("stale", 0)), a.get("reason", ""),
                   bool(a.get("implicit", 0))) for a in anchors))

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of a memory (field order as stored; ``stale`` 0/1 as in 0.1).
        ``occurred_at``, ``created_at`` and ``status_at`` are the stored instants in the
        reader's zone (this process's local zone, ``TZ``) with its offset, so that their
        day is the one ``--since today`` means here (README: Times); ``export`` keeps the
        stored text."""
        d = {k: getattr(self, k) for k in _MEMORY_FIELDS}
        d["occurred_at"] = local_iso(self.occurred_ts, self.occurred_at)
        d["created_at"] = local_iso(self.created_ts, self.created_at)
        d["status_at"] = local_iso(None, self.status_at)
        d["tags"] = list(self.tags)
        d["stale"] = int(self.stale)
        d["anchors"] = [a.as_dict() for a in self.anchors]
        return d


_MEMORY_FIELDS = tuple(f for f in Memory.__dataclass_fields__ if f != "anchors")


def local_iso(ts: float | None, text: str = "", timespec: str = "seconds") -> str:
    """An instant as ISO 8601 in this process's local zone with its UTC offset (to the
    second, or as ``timespec`` of :meth:`datetime.isoformat` says): from Unix seconds
    ``ts``, else from ISO 8601 ``text`` with an offset. ``text`` is returned unchanged
    when it cannot be converted (empty, no offset, not ISO 8601)."""
    from datetime import datetime

    try:
        if ts is None:
            dt = datetime.fromisoformat(text)
            if dt.tzinfo is None:
                return text
        else:
            dt = datetime.fromtimestamp(ts)
        return dt.astimezone().isoformat(timespec=timespec)
    except (ValueError, OverflowError, OSError, TypeError):
        return text


@dataclass(frozen=True, slots=True)
class ChannelRank:
    """A memory's place in one recall channel: 1-based ``rank`` and the channel's raw
    ``score`` (BM25: higher is better; dense: cosine; recency: activity); for a feature
    (speaker, date, when, question, lesson, adjacent) ``rank`` 0 and ``score`` the boost it
    added (z units, memory/recall.py)."""

    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Hit:
    """One recalled memory: the fused ``score`` (a weighted sum of per-query z-scores and
    feature boosts, memory/fusion.py; may be negative) and, per channel that found it or
    feature that applied, its :class:`ChannelRank` (``explain``)."""

    memory: Memory
    score: float
    explain: dict[str, ChannelRank]

    def as_dict(self) -> dict[str, Any]:
        """The memory's JSON shape plus ``score`` and ``explain`` ({channel: {rank,
        score}})."""
        return {**self.memory.as_dict(), "score": self.score,
                "explain": {n: {"rank": c.rank, "score": c.score}
                            for n, c in self.explain.items()}}


@dataclass(frozen=True, slots=True)
class RecallResult:
    """What recall returns: ``hits`` best first; ``channels`` the number of candidates per
    channel; ``reranked_by`` the reranking model id or ``""``; ``tokens`` the estimated size
    of the hits' text (≈ 4 characters a token); ``ms`` the time taken; ``partial`` is true
    when only some channels ran before a deadline (``note`` says which)."""

    hits: tuple[Hit, ...] = ()
    channels: dict[str, int] = field(default_factory=dict)
    reranked_by: str = ""
    tokens: int = 0
    ms: float = 0.0
    partial: bool = False
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hits": [h.as_dict() for h in self.hits],
                               "count": len(self.hits), "channels": dict(self.channels),
                               "reranked_by": self.reranked_by, "tokens": self.tokens,
                               "ms": self.ms}
        if self.partial:
            out.update(partial=True, note=self.note)
        return out


@dataclass
class MemoryItem:
    """One memory to retain. ``anchors``: (path, symbol local name or "", ast hash or "").
    ``occurred``: ISO 8601 (default now). ``context``: neighbouring text indexed with it
    (for conversation turns: the turns around it) but not part of the memory."""

    text: str
    kind: str = ""
    tags: list[str] = field(default_factory=list)
    outcome: str = ""
    source: str = "api"
    session: str = ""
    agent: str = ""
    commit_sha: str = ""
    ref: str = ""
    occurred: str = ""
    context: str = ""
    anchors: list[tuple[str, str, str]] = field(default_factory=list)
    visibility: str = "team"
    owner: str = ""
    team: str = ""
    confidence: float = 1.0
    supersedes: int | None = None

    def check(self) -> None:
        """Raises ConfigError for a field of the wrong type or out of range (JSONL input).
        NUL characters in any string become U+FFFD, so both backends store the same text
        (PostgreSQL's ``text`` cannot hold NUL)."""
        import math

        from hindsight.errors import ConfigError

        for f in ("text", "kind", "outcome", "source", "session", "agent", "commit_sha",
                  "ref", "occurred", "context", "visibility", "owner", "team"):
            if not isinstance(getattr(self, f), str):
                raise ConfigError(f"{f}: must be a string")
        if not isinstance(self.tags, list) or not all(isinstance(t, str) for t in self.tags):
            raise ConfigError("tags: must be a list of strings")
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, int | float) or not math.isfinite(c) or \
                not 0 <= c <= 1:
            raise ConfigError("confidence: must be a number from 0 to 1")
        if self.supersedes is not None and (isinstance(self.supersedes, bool) or
                                            not isinstance(self.supersedes, int) or
                                            not 0 < self.supersedes < 2**62):
            raise ConfigError("supersedes: must be a memory id")
        for a in self.anchors:
            if not (isinstance(a, tuple) and len(a) == 3 and all(isinstance(x, str) for x in a)):
                raise ConfigError(f"anchor {a!r}: must be (path, symbol, ast_hash) strings")
        for f in ("text", "kind", "outcome", "source", "session", "agent", "commit_sha",
                  "ref", "occurred", "context", "visibility", "owner", "team"):
            if "\x00" in getattr(self, f):
                setattr(self, f, getattr(self, f).replace("\x00", "\ufffd"))
        self.tags = [t.replace("\x00", "\ufffd") for t in self.tags]
        self.anchors = [tuple(x.replace("\x00", "\ufffd") for x in a)  # type: ignore[misc]
                        for a in self.anchors]


@dataclass
class Retained:
    """Result per item: ``id``; ``action`` created / duplicate / merged; ``redacted``:
    kinds of secrets removed."""

    id: int
    action: str
    redacted: list[str]
    structured: str = ""
    warning: str = ""  # e.g. stored without a vector because the embedding model failed

    def as_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "action": self.action, "redacted": self.redacted,
               "structured": self.structured}
        return {**out, "warning": self.warning} if self.warning else out


@dataclass
class Step:
    """One node of a call trace (``hindsight trace``): the ``symbol`` called (None when
    the call did not resolve), the ``name`` as called, the 1-based ``call_line``, the first
    lines of its definition (``snippet``), its callees (``children``), ``seen`` (already
    expanded higher up) and ``verified``: the last run linked to it (see
    :meth:`hindsight.records.service.RecordService.mark_steps`)."""

    symbol: Symbol | None
    name: str
    call_line: int
    snippet: str
    children: list[Step] = field(default_factory=list)
    seen: bool = False
    # the last run that exercised or changed it: {"status", "at", "verified_at"} (set by
    # RecordService.mark_steps; None when not marked)
    verified: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "call_line": self.call_line, "seen": self.seen,
                "symbol": self.symbol.as_dict() if self.symbol else None,
                "snippet": self.snippet, "verified": self.verified,
                "children": [c.as_dict() for c in self.children]}
