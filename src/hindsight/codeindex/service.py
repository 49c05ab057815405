"""The code index of one bank as a service (L1 symbols, L2 call graph).

:class:`CodeService` is what every interface calls for code questions; it sees the storage
only through :class:`hindsight.store.base.CodeStore`. Paths given by a user (absolute,
relative to the current directory, or to the root) are made repository-relative here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hindsight.errors import ConfigError, HindsightError, NotFound, NotIndexed
from hindsight.models import IndexStats, ParseResult, Symbol
from hindsight.store.base import CodeStore

KINDS = frozenset({"function", "method", "constructor", "class", "interface", "struct", "enum",
                   "trait", "type", "constant", "module", "namespace", "macro", "object",
                   "property"})


class CodeService:
    """Index and query the code of the repository at ``root`` (an absolute path).

    ``writer_lock()`` is a context manager factory holding the bank's one index lock (see
    :func:`hindsight.config.paths.index_lock_name`); ``after_index(stats)`` runs after each
    index pass (memories follow the code); ``parse_timeout_s`` bounds one file's parse."""

    def __init__(self, store: CodeStore, root: str, *,
                 writer_lock: Callable[[], Any] | None = None,
                 after_index: Callable[[IndexStats], None] | None = None,
                 parse_timeout_s: float | None = None) -> None:
        self.store = store
        self._parse_timeout_s = parse_timeout_s
        self.root = root
        self._lock = writer_lock
        self._after = after_index
        # when each using definition was last verified: [(path, local)] -> {(path, local):
        # ISO time}; execution records provide it (None until then: times are null)
        self.verified: Callable[[list[tuple[str, str]]], dict[tuple[str, str], str]] | None \
            = None

    # --- indexing -----------------------------------------------------------------------
    def index(self, *, full: bool = False, include_untracked: bool | None = None,
              workers: int | None = None, exclude: list[str] | None = None,
              progress: Callable[[str, int, int], None] | None = None,
              remember: bool = True) -> IndexStats:
        """Index the repository: incremental unless ``full`` or the first time.

        ``workers``: parser processes (default: CPU count). ``exclude`` (gitignore-style
        patterns) and ``include_untracked`` are remembered by the bank when given.
        ``progress(stage, done, total)`` is called during long work. Waits for the bank's
        index lock (another writer's pass finishes first). Raises StorageError when the
        bank cannot be written."""
        from hindsight.codeindex.indexer import index

        with self._locked():
            st = index(self.store, self.root, full=full, include_untracked=include_untracked,
                       workers=workers, exclude=exclude, progress=progress, remember=remember,
                       parse_timeout_s=self._parse_timeout_s)
        if self._after is not None:
            self._after(st)
        return st

    def _locked(self) -> Any:
        import contextlib

        return self._lock() if self._lock is not None else contextlib.nullcontext()

    def is_indexed(self) -> bool:
        """True once a first index pass finished."""
        return self.store.get_meta("indexed_commit") is not None

    def require(self) -> CodeStore:
        """The store, when indexed. Raises NotIndexed (``action="index"``)."""
        if not self.is_indexed():
            if not self.root:  # a team server's bank: memories only
                raise NotIndexed("this bank has no code index: a team server's banks hold "
                                 "memories; the code tools answer from a checkout's own "
                                 "`hindsight mcp`", action="", root="")
            raise NotIndexed(f"{self.root} has no code index yet", action="index",
                             root=self.root)
        return self.store

    def excludes(self) -> list[str]:
        """The remembered ``--exclude`` patterns."""
        saved = self.store.get_meta("exclude")
        return [p for p in saved.split("\n") if p] if saved else []

    def include_untracked(self) -> bool:
        return self.store.get_meta("include_untracked") == "1"

    def rel(self, path: str | None) -> str | None:
        """A user-given file or directory as a repository-relative path: absolute paths and
        paths that exist relative to the current directory are converted; ``./`` is
        dropped; anything else is taken as already relative to the root (always on a
        served bank, which has no root)."""
        if not path or not self.root:
            return path
        cand = os.path.abspath(path)
        if os.path.isabs(path) or os.path.exists(cand):
            rel = os.path.relpath(cand, self.root)
            if not rel.startswith(".."):
                return "" if rel == "." else rel.replace(os.sep, "/")
        return os.path.normpath(path).replace(os.sep, "/").removeprefix("./")

    # --- queries ------------------------------------------------------------------------
    def symbols(self, name: str, kind: str | None = None, file: str | None = None,
                limit: int = 50) -> tuple[str, list[Symbol]]:
        """Find definitions by name: ``(how, symbols)`` with ``how`` one of ``exact``,
        ``prefix``, ``substring``, ``none`` (see :func:`hindsight.codeindex.query.find`).
        Raises ConfigError (unknown kind), NotIndexed."""
        from hindsight.codeindex.query import find

        if kind and kind not in KINDS:
            raise ConfigError(f"kind {kind!r}: one of {', '.join(sorted(KINDS))}",
                              option="kind", value=kind, choices=sorted(KINDS))
        return find(self.require(), name, kind, self.rel(file), limit)

    def resolve(self, spec: str, file: str | None = None) -> Symbol:
        """Exactly one symbol for ``spec`` (name, ``Class.method`` or ``path::local``).
        Raises NotIndexed, NotFound, Ambiguous."""
        from hindsight.codeindex.query import resolve_one

        return resolve_one(self.require(), spec, self.rel(file))[0]

    def callers(self, symbol: str, depth: int = 1, file: str | None = None,
                include_unresolved: bool = False) -> tuple[Symbol, list[Any]]:
        """``(target, hits)``: callers of ``symbol`` breadth first to ``depth``. Raises
        NotIndexed, NotFound, Ambiguous."""
        from hindsight.codeindex.query import callers

        return callers(self.require(), symbol, depth, self.rel(file), include_unresolved,
                       self.root)

    def unresolved_same_name(self, target: Symbol) -> int:
        """How many unresolved call sites carry ``target``'s name (see
        :func:`hindsight.codeindex.query.unresolved_same_name`), and for a property the
        accesses of its name left unresolved (:mod:`hindsight.codeindex.propreads`).
        Raises NotIndexed."""
        from hindsight.codeindex.propreads import is_property, property_uses
        from hindsight.codeindex.query import unresolved_same_name

        store = self.require()
        n = unresolved_same_name(store, target)
        return n + len(property_uses(store, self.root, target, 1)[1]) \
            if is_property(self.root, target) else n

    def callees(self, symbol: str, depth: int = 1, file: str | None = None
                ) -> tuple[Symbol, list[Any]]:
        """``(target, hits)``: callees of ``symbol`` to ``depth``. Raises NotIndexed,
        NotFound, Ambiguous."""
        from hindsight.codeindex.query import callees

        return callees(self.require(), symbol, depth, self.rel(file))

    def walk(self, direction: str, symbol: str, depth: int = 1, file: str | None = None,
             include_unresolved: bool = False, stop: Callable[[], bool] | None = None,
             limit: int | None = None) -> tuple[Symbol, list[Any], int, bool]:
        """:meth:`callers` or :meth:`callees` (``direction``) that asks ``stop()`` before
        each level after the first: ``(target, hits, levels done, cut short)``; the levels
        done hold exactly the full walk's hits. ``limit``: at most that many hits, the
        first of the full walk (see :func:`hindsight.codeindex.query.walk`). Raises
        NotIndexed, NotFound, Ambiguous."""
        from hindsight.codeindex.query import walk

        return walk(self.require(), direction, symbol, depth, self.rel(file),
                    include_unresolved, stop, limit, self.root)

    def uses(self, entity: str, relation: str = "uses", depth: int = 1,
             file: str | None = None) -> tuple[Symbol, list[Any]]:
        """``(entity symbol, uses)``: every place that uses ``entity`` by ``relation``
        (``uses``, ``calls``, ``imports``, ``inherits``) to ``depth`` levels, each with
        file:line and its last verified time (from :attr:`verified`, else None); see
        :func:`hindsight.codeindex.uses.uses`. Raises ConfigError, NotIndexed, NotFound,
        Ambiguous."""
        from hindsight.codeindex.uses import uses

        return uses(self.require(), self.root, entity, relation, depth, self.rel(file),
                    self.verified)

    def trace(self, start: str, depth: int = 3, file: str | None = None) -> Any:
        """Call tree from ``start`` (a :class:`hindsight.codeindex.query.Step`)."""
        from hindsight.codeindex.query import trace

        return trace(self.require(), self.root, start, depth, self.rel(file))

    def neighbours(self, text: str, files: list[str], syms: list[tuple[str, str]]
                   ) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
        """For recall's anchor channel: files and symbols named in ``text`` and the
        call-graph neighbours (depth 1) of those and of ``syms`` ((path, local) pairs);
        empty without a code index. Only the first 2,000 characters of ``text`` are read."""
        from hindsight.codeindex.query import neighbours

        if not self.is_indexed():
            return [], [], []
        return neighbours(self.store, text, syms)

    def debug_file(self, path: str) -> ParseResult | None:
        """Parse one file (relative to the current directory or the root, or absolute)
        without storing anything; ``None`` for a file with no supported language. Raises
        NotFound when the file does not exist or is not a regular file."""
        from hindsight.codeindex.indexer import reparse_one

        rel = self.rel(path) or ""
        full = os.path.join(self.root, rel)
        if not os.path.lexists(full):
            raise NotFound(f"{path}: no such file under {self.root}", path=path)
        if not os.path.isfile(full) or os.path.islink(full):
            raise NotFound(f"{path}: not a regular file (symlinks, pipes and devices are "
                           "never parsed)", path=path)
        return reparse_one(self.root, rel, parse_timeout_s=self._parse_timeout_s)

    def sparse_checkout(self) -> dict[str, Any] | None:
        """``{"patterns": [...], "outside_files": n}`` when the last index pass found
        tracked files outside a sparse checkout (the patterns are ``git sparse-checkout
        list``: the cone's directories), else ``None``."""
        import json

        raw = self.store.get_meta("sparse_checkout")
        if not raw:
            return None
        try:
            patterns = [p for p in json.loads(raw) if isinstance(p, str)]
        except (ValueError, TypeError):
            patterns = []
        return {"patterns": patterns,
                "outside_files": self.store.skipped().get("outside_sparse_checkout", 0)}

    def outside_checkout(self, paths: list[str]) -> set[str]:
        """Those of ``paths`` that lie outside the sparse checkout (tracked, not checked
        out: see :func:`hindsight.codeindex.files.outside_checkout`); empty unless the
        last index pass found a sparse checkout. One git call."""
        if not paths or not self.store.get_meta("sparse_checkout"):
            return set()
        from hindsight.codeindex.files import outside_checkout

        return outside_checkout(self.root, paths)

    def problem_files(self) -> list[tuple[str, str]]:
        """``(path, reason)`` of every skipped file worth listing and every file with a
        parse error (reason = the error, e.g. ``syntax error at line 4``)."""
        return self.store.problem_files()

    def status(self) -> dict[str, Any]:
        """Counts (files, lines, symbols, edges, calls, unresolved calls…), the unresolved
        share, skips by reason, the indexed commit, files changed since (by size and
        mtime, ``None`` when never indexed), ``fresh`` and ``sparse_checkout`` (see
        :meth:`sparse_checkout`)."""
        store = self.store
        c = store.counts()
        indexed = self.is_indexed()
        out: dict[str, Any] = {**c, "unresolved_share": round(
            c["unresolved_calls"] / (c["calls"] or 1), 4), "skipped": store.skipped(),
            "indexed_commit": store.get_meta("indexed_commit"), "indexed": indexed}
        out["changed_since"] = self._changed_since() if indexed else None
        out["fresh"] = out["changed_since"] == 0 if indexed else False
        out["sparse_checkout"] = self.sparse_checkout()
        return out

    def _changed_since(self) -> int:
        """Files the next ``index`` would change: indexed files changed (size, or mtime
        and content: at most :data:`_HASH_AT_MOST` files are read, more count as changed),
        gone or no longer selected (now excluded or untracked), files it would add
        (selected, not indexed, not recorded as skipped) and skipped files whose content
        would now be indexed (a binary file replaced by source)."""
        n = hashed = 0
        files = self.store.load_files()
        try:
            from hindsight.codeindex import files as F

            sel = F.select(self.root, self.include_untracked(), self.excludes())
        except HindsightError:  # git refuses the repository: `index` says why
            sel = None
        present: set[str] | None = None
        if sel is not None:
            present = {p for p in sel.files if p not in sel.skipped}
            for d in sel.unreadable_dirs:  # as `index` does: what it cannot see stays
                present.update(p for p in files if p.startswith(d + "/") or not d)
            skipped = {p for p, _r in self.store.problem_files()} - files.keys()
            n += sum(1 for p in present if p not in files and
                     (p not in skipped or self._now_source(p)))
        for path, fr in files.items():
            if present is not None and path not in present:
                n += 1
                continue
            try:
                st = os.stat(os.path.join(self.root, path))
            except OSError:
                n += 1
                continue
            if st.st_size != fr.size:
                n += 1
            elif st.st_mtime_ns != fr.mtime_ns:  # `touch` alone changes nothing `index`
                hashed += 1  # would do (fresh-user run of session 35): the content decides
                n += hashed > _HASH_AT_MOST or not self._same_content(path, fr.content_hash)
        return n

    def _same_content(self, path: str, digest: str) -> bool:
        from hindsight.codeindex.worker import content_hash

        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                return content_hash(fh.read()) == digest
        except OSError:
            return False

    def _now_source(self, path: str) -> bool:
        """Whether a file recorded as skipped for its content would be indexed now."""
        from hindsight.codeindex.worker import content_skip_reason

        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                raw = fh.read()
        except OSError:
            return False
        return content_skip_reason(path, raw) == ""


_HASH_AT_MOST = 256
"""Files with a new mtime but their old size whose content ``status`` compares."""
