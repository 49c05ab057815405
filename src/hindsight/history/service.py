"""The history (L3) of one bank as a service: git ingest, per-symbol history, why, impact,
hot spots, the live edit trace, the file watcher and the git-hook refresh.

:class:`HistoryService` sees storage only through :class:`hindsight.store.base.HistoryStore`
and the code index through :class:`hindsight.codeindex.service.CodeService`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hindsight.codeindex.service import CodeService
from hindsight.errors import ConfigError, NotFound
from hindsight.models import IndexStats
from hindsight.store.base import HistoryStore


class HistoryService:
    """History of the repository ``code.root``. ``writer_lock(what)`` holds the bank's one
    index lock around an ingest pass."""

    def __init__(self, store: HistoryStore, code: CodeService, *,
                 writer_lock: Callable[[str], Any] | None = None) -> None:
        self.store = store
        self.code = code
        self.root = code.root
        self._lock = writer_lock

    def ingest(self, *, mode: str | None = None, limit: int | None = None,
               all_: bool = False, huge: int | None = None, workers: int | None = None,
               progress: Any = None) -> Any:
        """Ingest git history; see :func:`hindsight.history.ingest.ingest`. Returns its
        IngestStats. Waits for the bank's index lock. Raises ConfigError, GitError,
        StorageError."""
        import contextlib

        from hindsight.history.ingest import ingest

        with self._lock("ingest") if self._lock else contextlib.nullcontext():
            return ingest(self.store, self.root, mode=mode, limit=limit, all_=all_,
                          huge=huge, exclude=self.code.excludes(), workers=workers,
                          progress=progress)

    def history(self, symbol: str, file: str | None = None,
                include_unreachable: bool = False, merges: bool = False) -> dict[str, Any]:
        """Commits that touched ``symbol``; see :func:`hindsight.history.queries.history`
        (``merges``: also merges that only brought in their branch's changes)."""
        from hindsight.history.queries import history

        return history(self.code.require(), self.store, self.root, symbol,
                       self.code.rel(file), include_unreachable, merges, self._expand)

    def _expand(self, paths: set[str]) -> tuple[int, int, str]:
        """Symbol changes of the huge commits touching ``paths``, computed now; see
        :func:`hindsight.history.lazy.expand`."""
        from hindsight.history.lazy import expand

        return expand(self.store, self.root, paths, self.code.excludes())

    def why(self, file: str, line: int, merges: bool = False) -> dict[str, Any]:
        """Blame lifted to the symbol; see :func:`hindsight.history.queries.why`.
        ``line`` is 1-based. Raises NotIndexed, NotFound (no such file), ConfigError (a
        line outside the file)."""
        from hindsight.history.queries import why

        code = self.code.require()
        rel = self.code.rel(file) or ""
        if not rel or os.path.isabs(rel) or rel.startswith("../") or rel == "..":
            raise NotFound(f"{file}: not a file under {self.root}", path=file)
        if rel not in code.load_files() and not os.path.isfile(os.path.join(self.root, rel)):
            raise NotFound(f"{file}: no such file under {self.root}", path=file)
        if line < 1:
            raise ConfigError(f"{file}:{line}: lines are 1-based", option="line", value=line)
        n_lines = _count_lines(os.path.join(self.root, rel))
        if n_lines is not None and line > n_lines:
            raise ConfigError(f"{file}:{line}: past the end of the file ({n_lines} lines)",
                              option="line", value=line)
        return why(code, self.store, self.root, rel, line, merges, self._expand)

    def impact(self, symbol: str, depth: int = 2, file: str | None = None,
               limit: int = 30, min_support: int = 2,
               stop: Callable[[], bool] | None = None) -> dict[str, Any]:
        """Callers and co-changed symbols/files; see
        :func:`hindsight.history.impact.impact` (``stop``: asked before each caller level
        after the first; the answer then says the ``levels`` done and whether it was
        ``cut``)."""
        from hindsight.history.impact import impact

        return impact(self.code.require(), self.store, symbol, depth, self.code.rel(file),
                      limit, min_support, stop, self.root)

    def hotspots(self, days: int = 90, limit: int = 20) -> dict[str, Any]:
        """Churn and fix-commit ranking of what exists at HEAD; see
        :func:`hindsight.history.hotspots.hotspots`. Commits classified under an earlier
        fix rule are classified again first (:func:`hindsight.history.fixes.reclassify`)."""
        from hindsight.history.fixes import reclassify
        from hindsight.history.hotspots import hotspots

        if self.store.commit_count():
            reclassify(self.store)
        indexed = None
        if self.code.is_indexed():
            def indexed(qnames: list[str]) -> set[str]:
                return {s.qname for s in self.code.store.symbols_by_qname(qnames)}
        return hotspots(self.store, self.root, days, limit, indexed)

    def commits(self, limit: int = 50, *, fixes_only: bool = False,
                path: str | None = None) -> list[dict[str, Any]]:
        """Reachable ingested commits newest first, at most ``limit`` (only fix commits,
        :mod:`hindsight.history.fixes`; only those that touched ``path``); see
        :meth:`hindsight.store.base.HistoryStore.recent_commits` for the fields."""
        from hindsight.history.fixes import reclassify

        if fixes_only and self.store.commit_count():
            reclassify(self.store)
        return self.store.recent_commits(limit, fixes_only, path)

    def status(self) -> dict[str, Any]:
        """Commit, file and symbol-change counts, the mode, whether partial, and when."""
        import json

        hs = self.store
        return {**hs.history_counts(),
                "mode": json.loads(hs.get_meta("history_mode") or '"full"'),
                "partial": hs.get_meta("history_partial_kind") or "",
                "ingested_at": hs.get_meta("history_ingested_at")}

    # --- the live edit trace ----------------------------------------------------------
    def record_edit(self, path: str, old_text: str | bytes | None,
                    new_text: str | bytes | None, *, actor: str = "human",
                    session: str = "", old_path: str | None = None,
                    refresh_index: bool = True) -> dict[str, Any] | None:
        """Record an edit of ``path`` (absolute, or relative to the root) made by ``actor``
        (``human`` or an agent name) in ``session``: the code index is refreshed first (when
        the repository is indexed and ``refresh_index``), then the event is stored with the
        symbols it touched. Returns the event dict (see :mod:`hindsight.history.edits`),
        or ``None`` when the texts are equal (nothing is stored). Raises ConfigError (no
        text, a path that is not a work-tree file, texts that are not str/bytes/None),
        StorageError."""
        from hindsight.history.edits import record_edit

        if not isinstance(actor, str) or not isinstance(session or "", str):
            raise ConfigError("actor and session must be strings")
        rel = rel_in_root(self.root, path)
        old_rel = rel_in_root(self.root, old_path) if old_path else ""
        if refresh_index and self.code.is_indexed():
            self.code.index()
        return record_edit(self.store, self.root, rel, old_text, new_text,
                           actor=actor, session=session or "", old_path=old_rel)

    def trace_log(self, file: str | None = None, symbol: str | None = None,
                  since: float | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """Edit-trace events newest first (``since``: Unix seconds); see
        :meth:`hindsight.store.base.HistoryStore.trace_events`."""
        return self.store.trace_events(self.code.rel(file), symbol, since, limit)

    def trace_log_json(self, file: str | None = None, symbol: str | None = None,
                       since: float | None = None, limit: int = 1000
                       ) -> list[dict[str, Any]]:
        """:meth:`trace_log` in its JSON form: one flat object per event, symbols as
        qualified names (see :func:`hindsight.history.edits.event_json`)."""
        from hindsight.history.edits import event_json

        return [event_json(e) for e in self.trace_log(file, symbol, since, limit)]

    def install_git_hooks(self) -> list[str]:
        """Install the git hooks that keep this bank current; one line per hook done.
        See :func:`hindsight.history.githooks.install`."""
        from hindsight.history.githooks import install

        return install(self.root)

    def uninstall_git_hooks(self) -> list[str]:
        """Remove our git hooks and restore the originals; one line per hook."""
        from hindsight.history.githooks import uninstall

        return uninstall(self.root)

    def watcher(self, *, actor: str = "human", session: str = "",
                debounce_s: float = 0.2, on_event: Any = None, on_error: Any = None) -> Any:
        """A :class:`hindsight.history.watch.Watcher` for this bank (call ``run()``). Its
        index refreshes include untracked files that git does not ignore, and the bank
        remembers that choice (as ``index --include-untracked`` would), so that a later
        ``index`` does not drop what the watcher saw being created."""
        from hindsight.history.watch import Watcher

        def refresh() -> IndexStats:  # new files count as soon as they are saved
            return self.code.index(include_untracked=True)

        return Watcher(self.root, self.code.store, self.store, refresh, actor=actor,
                       session=session, debounce_s=debounce_s, on_event=on_event,
                       on_error=on_error)

    def refresh(self, rec: dict[str, Any], pending: Callable[[], bool]) -> None:
        """One git-hook refresh: incremental index, then new commits; repeated (at most 5
        rounds) while ``pending()`` says another hook asked again meanwhile. Totals go
        into ``rec`` (rounds, files_parsed, commits, unreachable_marked)."""
        totals = {"rounds": 0, "files_parsed": 0, "commits": 0, "unreachable_marked": 0}
        for _round in range(5):
            st = self.code.index()
            hs = self.ingest()
            totals["rounds"] += 1
            totals["files_parsed"] += st.files_parsed
            totals["commits"] += hs.ingested
            totals["unreachable_marked"] += hs.unreachable_marked
            rec.update(totals, outcome="ok")
            if not pending():
                break


def rel_in_root(root: str, path: str) -> str:
    """A file path (absolute, or relative to ``root``) as a root-relative path. Raises
    ConfigError for anything that cannot name a file of the work tree."""
    if not isinstance(path, str) or not path or "\0" in path:
        raise ConfigError(f"{path!r}: not a file path", path=str(path))
    full = path if os.path.isabs(path) else os.path.join(root, path)
    rel = os.path.relpath(os.path.abspath(full), root).replace(os.sep, "/")
    if rel.startswith("..") or rel == ".":
        raise ConfigError(f"{path}: not a file inside the repository {root}", path=path)
    if rel == ".git" or rel.startswith(".git/"):
        raise ConfigError(f"{path}: inside .git, not part of the work tree", path=path)
    return rel


def _count_lines(path: str) -> int | None:
    """Lines in the file as the index counts them (``\r\n``, ``\r`` and ``\n`` each end
    one; a last line without an ending counts), read in 1 MiB blocks; ``None`` when it
    cannot be read."""
    n, last, cr = 0, b"", False
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                if cr and block.startswith(b"\n"):
                    block = block[1:]  # the \n of a \r\n split between two blocks
                cr = block.endswith(b"\r")
                n += block.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n")
                last = block[-1:] or last
    except OSError:
        return None
    return n + (1 if last and last not in (b"\n", b"\r") else 0)
