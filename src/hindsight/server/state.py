"""What one server process shares between requests: the token store, the open banks
(each opened on first use and kept, with the lock its calls hold: every call of a SQLite
bank, only the writes of a PostgreSQL one, whose reads run in parallel) and the metrics.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hindsight.server.metrics import Metrics
from hindsight.server.tokens import Principal, authenticate
from hindsight.server.views import Scoped

if TYPE_CHECKING:
    from hindsight.app import ServedBank, TokenStore

MAX_BODY_BYTES = 8 * 1024 * 1024  # a request body above this is refused with 413
MAX_BATCH = 1000  # items in one batch retain
# reads of one PostgreSQL bank at once: a safeguard for the pool of 8 connections per
# process (store/postgres/pool.py POOL_MAX), which the writer holding the bank lock, the
# touch flush and the embedding thread share with the readers; 2 cores gain nothing from
# more (bench/server_load.py, 5,000 memories: 4 clients 34 requests/s with it)
PARALLEL_READS = 3
TOUCH_EVERY_S = 1.0  # how often recalled memories' access counts are written


class ServerState:
    """``tokens``: the token store; ``opener(bank_id, create)``: opens a served bank
    (default :func:`hindsight.app.open_served_bank`); ``database``: what ``/healthz`` and
    the startup line name (``sqlite`` or ``postgresql``)."""

    def __init__(self, tokens: TokenStore,
                 opener: Callable[[str, bool], ServedBank] | None = None,
                 database: str = "sqlite", max_body: int = MAX_BODY_BYTES) -> None:
        self.tokens = tokens
        self.database = database
        self.max_body = max_body
        self._open = opener or _open_served
        self._banks: dict[str, tuple[ServedBank, threading.Lock]] = {}
        self._readers: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self.metrics = Metrics(self)
        self._touched: dict[str, Counter[int]] = {}  # bank id -> memory id -> recalls
        self._flusher: threading.Thread | None = None
        self._stop = threading.Event()
        self._to_embed: set[str] = set()  # banks with memories a batch left without vector
        self._embed_wake = threading.Event()
        self._embedder_thread: threading.Thread | None = None

    def embed_later(self, bank_id: str) -> None:
        """Embed the memories of ``bank_id`` that have no vector of its model yet, in the
        background: a batch retain answers once its memories are written and searchable by
        text (BM25), and the dense channel finds them when this is done (≈ 30 memories/s
        with MiniLM on a loaded 2-core machine, against ≥ 300/s the batch target asks)."""
        with self._lock:
            self._to_embed.add(bank_id)
            if self._embedder_thread is None:
                self._embedder_thread = threading.Thread(target=self._embed_loop,
                                                         daemon=True, name="hindsight-embed")
                self._embedder_thread.start()
        self._embed_wake.set()

    def _embed_loop(self) -> None:
        while not self._stop.is_set():
            self._embed_wake.wait(TOUCH_EVERY_S)
            self._embed_wake.clear()
            self.embed_pending()

    def embed_pending(self, chunk: int = 64) -> int:
        """Embed now what :meth:`embed_later` queued: the model runs outside the bank's
        lock, each chunk's vectors are written under it. Returns how many were embedded;
        a failure (a dead model server, the database) leaves the rest for the next call,
        the bank stays queued."""
        import numpy as np

        from hindsight.errors import HindsightError

        with self._lock:
            todo_banks, self._to_embed = self._to_embed, set()
            held = {b: self._banks.get(b) for b in todo_banks}
        done = 0
        for bank_id, got in held.items():
            if got is None:
                continue
            bank, lock = got
            try:
                mem = bank.memory
                with lock:
                    todo = mem.store.missing_vectors(mem.embedder.model_id)
                for i in range(0, len(todo), chunk):
                    if self._stop.is_set():
                        return done
                    part = todo[i:i + chunk]
                    vecs = mem.embedder.embed_batch([t for _, t in part])
                    with lock:
                        mem.store.set_vectors([(mid, np.asarray(v, dtype=np.float32)
                                                .tobytes()) for (mid, _), v in
                                               zip(part, vecs, strict=True)],
                                              mem.embedder.model_id)
                    done += len(part)
            except HindsightError:
                with self._lock:
                    self._to_embed.add(bank_id)
        return done

    def touched(self, bank_id: str, ids: list[int]) -> None:
        """Count an access of ``ids`` (recalled) later, off the request: the background
        flush writes them every :data:`TOUCH_EVERY_S` (a recall's touch is a write of up
        to k rows; on PostgreSQL each also updates the HNSW index, ≈ 70 ms per recall in
        ``bench/server_load.py`` at 14,000 memories under load). Counts not flushed when
        the process is killed are lost (bookkeeping only: activity for recency)."""
        if not ids:
            return
        with self._lock:
            self._touched.setdefault(bank_id, Counter()).update(ids)
            if self._flusher is None:
                self._flusher = threading.Thread(target=self._flush_loop, daemon=True,
                                                 name="hindsight-touch")
                self._flusher.start()

    def _flush_loop(self) -> None:
        while not self._stop.wait(TOUCH_EVERY_S):
            self.flush_touches()

    def flush_touches(self) -> None:
        """Write the pending access counts now (each bank's memory service ``touch``,
        under the bank's lock). A storage failure leaves them out, as a recall's own
        touch does."""
        from hindsight.errors import HindsightError

        with self._lock:
            pending, self._touched = self._touched, {}
            held = {b: self._banks.get(b) for b in pending}
        for bank_id, counts in pending.items():
            got = held[bank_id]
            if got is None:
                continue
            while counts:  # one touch per round: an id recalled n times is counted n times
                ids = sorted(counts)
                try:
                    with got[1]:
                        got[0].memory.touch(ids)
                except HindsightError:
                    break
                counts.subtract(ids)
                counts = +counts

    def principal(self, header: str | None) -> Principal:
        """The caller of a request. Raises Unauthorized, StorageError."""
        return authenticate(self.tokens, header)

    def scoped(self, who: Principal, bank_id: str, role: str = "read") -> Scoped:
        """Bank ``bank_id`` as ``who`` may use it. Raises Forbidden (another bank, a role
        too low), BankNotFound (a read of a bank that does not exist), ConfigError (a bad
        id), StorageError."""
        who.require(bank_id, role)
        with self._lock:
            held = self._banks.get(bank_id)
        if held is None:
            bank = self._open(bank_id, role != "read")
            with self._lock:
                held = self._banks.setdefault(bank_id, (bank, threading.Lock()))
            if held[0] is not bank:
                bank.close()
            if role != "read":
                self.tokens.note_bank(bank_id)
            self.embed_later(bank_id)  # vectors a stopped server left unwritten
        with self._lock:
            readers = self._readers.setdefault(bank_id,
                                               threading.BoundedSemaphore(PARALLEL_READS))
        return Scoped(held[0], held[1], who, self.tokens, readers=readers,
                      parallel_reads=bool(getattr(held[0], "parallel_reads", False)),
                      touched=lambda ids: self.touched(bank_id, ids),
                      embed_later=lambda: self.embed_later(bank_id))

    def bank_ids(self) -> list[str]:
        """Banks this server holds: those noted in its database and those open now."""
        with self._lock:
            open_now = set(self._banks)
        return sorted(set(self.tokens.banks()) | open_now)

    def counts(self) -> dict[str, dict[str, int]]:
        """Memories per status of every open bank (for the metrics)."""
        with self._lock:
            held = list(self._banks.items())
        out: dict[str, dict[str, int]] = {}
        for bank_id, (bank, lock) in held:
            with lock:
                out[bank_id] = dict(bank.memory.counts())
        return out

    def database_bytes(self) -> dict[str, int]:
        """Bytes on disk: ``server`` (tokens, audit) and each open bank."""
        from hindsight.app import served_bank_bytes

        with self._lock:
            held = list(self._banks.items())
        out = {"server": self.tokens.size_bytes()}
        for bank_id, (bank, _lock) in held:
            out[f"bank:{bank_id}"] = served_bank_bytes(bank)
        return out

    def close(self) -> None:
        self._stop.set()
        self._embed_wake.set()
        self.flush_touches()
        with self._lock:
            held = list(self._banks.values())
            self._banks.clear()
        for bank, lock in held:
            with lock:
                bank.close()
        self.tokens.close()


def _open_served(bank_id: str, create: bool) -> Any:
    from hindsight.app import open_served_bank

    return open_served_bank(bank_id, create=create)
