"""The bank's one index lock (every index writer: code index, history ingest, seeding,
the git refresh, the watcher, the CLI), re-entrant within a process, each pass logged."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from hindsight.config.paths import Home, file_lock, index_lock_name
from hindsight.errors import Busy, StorageError

INDEX_LOCK_WAIT_S = 600.0  # an index writer waits this long for another one's pass

lock_wait_notice: Callable[[str], None] | None = None
"""Called with one line when an index writer starts waiting for another's pass (the CLI
prints it on stderr: fresh-user run of session 35, an `index` silent for 84 s behind an
`ingest --all`); ``None``: nothing is said."""

_HELD: dict[str, int] = {}
_HELD_LOCK = threading.Lock()


def index_lock(bank_id: str, home: Home) -> Any:
    """A factory of context managers holding the bank's one index lock (re-entrant within
    a process); each pass is logged to ``$HINDSIGHT_HOME/logs/index.jsonl`` with its start
    and end (Unix seconds), pid and kind (``index`` or ``ingest``). ``home`` is the one the
    bank was opened in."""
    name = index_lock_name(bank_id)

    @contextlib.contextmanager
    def held(what: str) -> Iterator[None]:
        with _HELD_LOCK:
            nested = _HELD.get(name, 0) > 0
            _HELD[name] = _HELD.get(name, 0) + 1
        try:
            if nested:
                yield
                return
            note = lock_wait_notice
            holder = f"{what} (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})"
            with contextlib.ExitStack() as stack:
                try:
                    ok = stack.enter_context(file_lock(
                        name, wait_s=INDEX_LOCK_WAIT_S, home=home, holder=holder,
                        on_wait=(lambda who: note(
                            f"waiting for this bank's index lock, held by "
                            f"{who or 'another index writer'} (up to "
                            f"{INDEX_LOCK_WAIT_S:g} s)")) if note else None))
                except OSError as e:  # (a read-only HINDSIGHT_HOME: nothing is written)
                    where = e.filename or home.lock_file(name)
                    raise StorageError(f"{where}: cannot take this bank's index lock: "
                                       f"{e.strerror or e}", path=str(where)) from e
                if not ok:
                    raise Busy(f"bank {bank_id}: another index writer held the lock for "
                               f"{INDEX_LOCK_WAIT_S:g} s", value=bank_id)
                t0 = time.time()
                try:
                    yield
                finally:
                    _log_pass(home, bank_id, what, t0, time.time())
        finally:
            with _HELD_LOCK:
                _HELD[name] -= 1

    return held


def _log_pass(home: Home, bank_id: str, what: str, start: float, end: float) -> None:
    rec = {"bank": bank_id, "what": what, "pid": os.getpid(), "start": start, "end": end}
    home.append_log("index.jsonl", json.dumps(rec))
