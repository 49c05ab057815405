"""History and edit-trace operations of a bank (L3); mixed into :class:`hindsight.app.Bank`."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hindsight.appbase import _storage
from hindsight.errors import ConfigError, NotFound
from hindsight.models import IndexStats


class HistoryMixin:
    """History, why/impact/hotspots, the edit trace and the watcher."""

    if TYPE_CHECKING:  # provided by Bank
        history_store: Any
        root: str
        path: str
        conn: sqlite3.Connection
        code: Any
        memory_store: Any
        _require_index: Callable[[], Any]
        is_indexed: Callable[[], bool]
        rel: Callable[[str | None], str | None]
        index: Callable[..., IndexStats]

    # --- history and edit trace (L3) ----------------------------------------------------
    def _excludes(self) -> list[str]:
        saved = self.code.get_meta("exclude")
        return [p for p in saved.split("\n") if p] if saved else []

    @_storage
    def ingest(self, *, mode: str | None = None, limit: int | None = None,
               all_: bool = False, huge: int | None = None, workers: int | None = None,
               progress: Any = None) -> Any:
        """Ingest git history; see :func:`hindsight.history.ingest.ingest`. Returns its
        IngestStats. Raises ConfigError, GitError, StorageError."""
        from hindsight.history.ingest import ingest

        return ingest(self.history_store, self.root, mode=mode, limit=limit, all_=all_,
                      huge=huge, exclude=self._excludes(), workers=workers,
                      progress=progress)

    @_storage
    def history(self, symbol: str, file: str | None = None,
                include_unreachable: bool = False) -> dict[str, Any]:
        """Commits that touched ``symbol``; see :func:`hindsight.history.queries.history`."""
        from hindsight.history.queries import history

        return history(self._require_index(), self.history_store, self.root, symbol,
                       self.rel(file), include_unreachable)

    @_storage
    def why(self, file: str, line: int) -> dict[str, Any]:
        """Blame lifted to the symbol; see :func:`hindsight.history.queries.why`.
        ``line`` is 1-based. Raises NotIndexed, NotFound (no such indexed file)."""
        from hindsight.history.queries import why

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
        :func:`hindsight.history.queries.impact`."""
        from hindsight.history.queries import impact

        return impact(self._require_index(), self.history_store, symbol, depth,
                      self.rel(file), limit, min_support)

    @_storage
    def hotspots(self, days: int = 90, limit: int = 20) -> dict[str, Any]:
        """Churn and fix-commit ranking; see :func:`hindsight.history.queries.hotspots`."""
        from hindsight.history.queries import hotspots

        return hotspots(self.history_store, self.root, days, limit)

    @_storage
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
        """A :class:`hindsight.history.watch.Watcher` for this bank (call ``run()``). Its
        index refreshes include untracked files that git does not ignore, and the bank
        remembers that choice (as ``index --include-untracked`` would), so that a later
        ``index`` does not drop what the watcher saw being created."""
        from hindsight.history.watch import Watcher

        def refresh() -> IndexStats:  # new files count as soon as they are saved
            return self.index(include_untracked=True)

        return Watcher(self.root, self.code, self.history_store, refresh, actor=actor,
                       session=session, debounce_s=debounce_s, on_event=on_event,
                       on_error=on_error)



def refresh_locked(root: str, event: str) -> None:
    """Incremental index + history ingest of the repository at ``root``, for git hooks:
    one run at a time per bank (an exclusive lock on ``HINDSIGHT_HOME/locks/<bank>.lock``);
    a run that finds the lock taken leaves a ``.again`` mark so that the running one goes
    round once more. Never raises: every outcome is one JSON line in
    ``HINDSIGHT_HOME/logs/git-hooks.log``."""
    import fcntl
    import time
    import traceback

    from hindsight.app import open_bank
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


