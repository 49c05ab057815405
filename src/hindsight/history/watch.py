"""``hindsight watch``: a file watcher (the ``watchdog`` library: inotify on Linux, FSEvents
on macOS, polling elsewhere) that refreshes the code index incrementally and records one
trace event per changed file.

Changes are debounced: a batch is handled once no new file event arrived for
``debounce_s`` seconds (default 0.2 s), so an editor's save (write to a temporary file,
rename over the original) is one event. For each batch the old symbols are read from the
index, the index is refreshed, and the new symbols are read back: events are attributed
with the index already up to date. The old text of a file comes from a cache filled when
watching starts (at most ``CACHE_BYTES``) and kept current; without it, from HEAD.
Only files the index knows (before or after the change) produce events.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import content_hash
from hindsight.errors import ConfigError, GitError, HindsightError
from hindsight.history import gitread as G
from hindsight.history.edits import build_event
from hindsight.models import SymState
from hindsight.store.base import CodeStore, HistoryStore

CACHE_BYTES = 256 * 1024 * 1024
DEFAULT_DEBOUNCE_S = 0.2
RETRY_S = 2.0  # a batch that failed (e.g. the bank stayed locked) is tried again after this
MAX_TRIES = 5


def _states(code: CodeStore, path: str) -> list[SymState]:
    return [SymState(s.local, s.kind, s.ast_hash, s.start_line, s.end_line)
            for s in code.file_symbols(path)]


class Watcher:
    """Watches ``root``; call :meth:`run` (blocks until ``stop`` is set or Ctrl-C)."""

    def __init__(self, root: str, code: CodeStore, hs: HistoryStore,
                 refresh: Callable[[], Any], *, actor: str = "human", session: str = "",
                 debounce_s: float = DEFAULT_DEBOUNCE_S,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 on_error: Callable[[str], None] | None = None) -> None:
        self.root = os.path.realpath(root)
        self.code, self.hs, self.refresh = code, hs, refresh
        self.actor, self.session = actor, session
        self.debounce_s = debounce_s
        self.on_event = on_event
        self.on_error = on_error
        self.errors = 0
        self.queue: queue.Queue[tuple[str, str, str]] = queue.Queue()
        self.cache: dict[str, bytes] = {}
        self.stop = threading.Event()
        self.events = 0

    # --- watchdog side (observer thread) ---------------------------------------------
    def _rel(self, path: str) -> str | None:
        rel = os.path.relpath(os.path.realpath(path), self.root).replace(os.sep, "/")
        if rel.startswith("..") or rel == "." or rel == ".git" or rel.startswith(".git/") \
                or "/.git/" in rel:
            return None
        return rel

    def dispatch(self, event: Any) -> None:
        """watchdog handler entry point (any FileSystemEvent)."""
        if event.is_directory:
            return
        src = self._rel(os.fsdecode(event.src_path))
        dest = self._rel(os.fsdecode(getattr(event, "dest_path", "") or "")) \
            if getattr(event, "dest_path", "") else None
        if src is None and dest is None:
            return
        self.queue.put((event.event_type, src or "", dest or ""))

    # --- our side ---------------------------------------------------------------------
    def preload(self) -> None:
        total = 0
        for path in self.code.load_files():
            try:
                with open(os.path.join(self.root, path), "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            total += len(data)
            if total > CACHE_BYTES:
                break
            self.cache[path] = data

    def _old_bytes(self, path: str) -> bytes:
        if path in self.cache:
            return self.cache[path]
        try:
            blob = G.run(self.root, ["cat-file", "blob", f"HEAD:{path}"])
        except GitError:
            return b""
        return blob

    def _read(self, path: str) -> bytes | None:
        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def handle(self, batch: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
        """Refresh the index and record the events of one debounced batch. A batch with
        no file of a supported language is ignored without touching the index."""
        if not any(language_for(p) for _k, src, dest in batch for p in (src, dest) if p):
            return []
        before = self.code.load_files()
        moves: list[tuple[str, str]] = []
        paths: list[str] = []
        for kind, src, dest in batch:
            if kind == "moved" and dest:
                moves.append((src, dest))
            paths += [p for p in (src, dest) if p]
        old_states = {p: _states(self.code, p) for p in dict.fromkeys(paths) if p in before}
        after, now = self._indexed(paths)
        renamed: dict[str, str] = {}  # new path -> old path
        for src, dest in moves:
            if src in before and src not in after and dest in after \
                    and dest not in renamed and src not in renamed.values():
                renamed[dest] = src
        out = []
        for path in dict.fromkeys(paths):
            if path in renamed.values():
                continue  # reported with its new path
            src = renamed.get(path, "")
            old_key = src or path
            if old_key not in before and path not in after:
                continue  # not a file the index knows
            old = self._old_bytes(old_key) if old_key in before else None
            new = now.get(path) if path in after else None
            if old is None and new is None or (old == new and not src):
                continue
            ev, syms = build_event(
                self.root, path, old, new, old_states.get(old_key),
                _states(self.code, path) if path in after else None,
                actor=self.actor, session=self.session, old_path=src)
            ev["id"] = self.hs.add_trace_event(ev, syms)
            ev["symbols"] = [s._asdict() for s in syms]
            self.cache.pop(old_key, None)
            if new is not None:
                self.cache[path] = new
            self.events += 1
            out.append(ev)
            if self.on_event:
                self.on_event(ev)
        return out

    def _indexed(self, paths: list[str]) -> tuple[dict[str, Any], dict[str, bytes | None]]:
        """Refresh the index, then read ``paths``: (the indexed files, each path's bytes).
        A file saved again between the index's read and ours (saves 0.3 s apart) would pair
        the new text with the symbols of the one before (an event named ``g3`` for lines
        holding g3 and g4, no event naming g4: the fresh-user trial of 2026-12-02), so the
        index is refreshed again until the bytes read are the ones it indexed (3 tries)."""
        for _ in range(3):
            self.refresh()
            after = self.code.load_files()
            now = {p: self._read(p) for p in dict.fromkeys(paths) if p in after}
            if all(b is None or content_hash(b) == after[p].content_hash
                   for p, b in now.items()):
                break
        return after, now

    def run(self, ready: Callable[[], None] | None = None) -> None:
        """Watch until :attr:`stop` is set or KeyboardInterrupt. Raises ConfigError when
        the watcher cannot start (e.g. the inotify watch limit)."""
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in ("created", "modified", "deleted", "moved"):
                    watcher.dispatch(event)

        self.preload()
        observer = Observer()
        try:
            observer.schedule(Handler(), self.root, recursive=True)
            observer.start()
        except OSError as e:
            raise ConfigError(f"{self.root}: cannot watch ({e}); on Linux raise "
                              "fs.inotify.max_user_watches") from e
        try:
            if ready:
                ready()
            retry: list[tuple[str, str, str]] = []
            tries = 0
            while not self.stop.is_set():
                try:
                    first = self.queue.get(timeout=RETRY_S if retry else 0.1)
                    batch = [*retry, first]
                except queue.Empty:
                    if not retry:
                        continue
                    batch = retry
                last = time.monotonic()
                while time.monotonic() - last < self.debounce_s:
                    try:
                        batch.append(self.queue.get(timeout=self.debounce_s / 4))
                        last = time.monotonic()
                    except queue.Empty:
                        pass
                try:
                    self.handle(batch)
                    retry, tries = [], 0
                except (HindsightError, OSError) as e:  # keep watching, try the batch again
                    self.errors += 1
                    tries += 1
                    retry = batch if tries < MAX_TRIES else []
                    if self.on_error:
                        again = f"; trying again in {RETRY_S:.0f} s" if retry else \
                            "; given up on these changes"
                        self.on_error(f"could not record {len(batch)} change(s): {e}{again}")
                    if not retry:
                        tries = 0
        finally:
            observer.stop()
            observer.join(timeout=5)
