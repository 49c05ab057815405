"""Reads of a served bank in parallel (issue 11, the load targets): a bank whose memories
are on PostgreSQL answers reads while a writer holds its lock; a SQLite bank (one
connection) makes them wait. Many threads recalling and retaining at once on PostgreSQL
all get right answers, every acknowledged memory is stored once, and the recalls' access
counts are written after the answers (``ServerState.flush_touches``), none lost."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

BANK = "team::parallel"
TEXT = "the deploy script reads the staging key from vault before the canary step"


def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dsn: str) -> Any:
    from hindsight.app import open_token_store
    from hindsight.server.state import ServerState

    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "hs"))
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    if dsn:
        monkeypatch.setenv("HINDSIGHT_DATABASE_URL", dsn)
    else:
        monkeypatch.delenv("HINDSIGHT_DATABASE_URL", raising=False)
    return ServerState(open_token_store(dsn), database="postgresql" if dsn else "sqlite")


def _who(agent: str = "alice") -> Any:
    from hindsight.server.tokens import Principal

    return Principal("t1", agent, "", "write", "*")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_reads_wait_for_a_writer_only_on_sqlite(backend: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                request: pytest.FixtureRequest) -> None:
    dsn = str(request.getfixturevalue("pg_dsn")) if backend == "postgres" else ""
    state = _state(tmp_path, monkeypatch, dsn)
    try:
        sc = state.scoped(_who(), BANK, "write")
        assert sc.parallel_reads is (backend == "postgres")
        sc.retain([sc.item(TEXT), sc.item("lunch is at noon on fridays")], batch=True)
        got: list[Any] = []

        def read() -> None:
            got.append(state.scoped(_who(), BANK).recall("staging key vault", k=1))

        with sc.lock:  # a writer holds the bank
            t = threading.Thread(target=read)
            t.start()
            t.join(10 if backend == "postgres" else 1.5)
            waited = t.is_alive()
        t.join(30)
        assert waited is (backend == "sqlite")
        assert [h.memory.text for h in got[0].hits] == [TEXT]
    finally:
        state.close()


def test_parallel_recall_and_retain_on_postgres(tmp_path: Path, pg_dsn: object,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hindsight.server.state.TOUCH_EVERY_S", 3600.0)  # flushed below
    state = _state(tmp_path, monkeypatch, str(pg_dsn))
    try:
        sc = state.scoped(_who(), BANK, "write")
        base = [f"note {i}: the {w} service restarts after the cache warms" for i, w in
                enumerate(["billing", "search", "auth", "mail", "queue", "report"])]
        sc.retain([sc.item(t) for t in base], batch=True)
        errors: list[BaseException] = []
        tops: list[str] = []
        acked: list[int] = []
        lock = threading.Lock()

        def reader(n: int) -> None:
            try:
                for _ in range(8):  # the same hits each time: their touches overlap
                    res = state.scoped(_who(), BANK).recall("billing service restarts", k=3)
                    with lock:
                        tops.append(res.hits[0].memory.text)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        def writer(n: int) -> None:
            try:
                for i in range(5):
                    w = state.scoped(_who(f"w{n}"), BANK, "write")
                    r = w.retain([w.item(f"writer {n} item {i} about the ledger")], False)
                    with lock:
                        acked.append(r[0].id)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=reader, args=(n,)) for n in range(12)] + \
            [threading.Thread(target=writer, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert tops == [base[0]] * 96
        assert len(set(acked)) == 10
        hit = state.scoped(_who(), BANK).memories(limit=100)
        assert [m.access_count for m in hit if m.text == base[0]] == [0]  # not yet written
        state.flush_touches()
        counts = dict(state.scoped(_who(), BANK).bank.memory.counts())
        assert counts["active"] == 16
        hit = state.scoped(_who(), BANK).memories(limit=100)
        assert {m.text for m in hit} >= set(base)
        billing = [m for m in hit if m.text == base[0]][0]
        assert billing.access_count == 96  # every recall's touch counted, none lost
    finally:
        state.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_batch_is_searchable_by_text_at_once_and_embedded_after(
        backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    from hindsight.server.state import ServerState

    # the background thread does nothing here: embed_pending runs below, in this thread
    monkeypatch.setattr(ServerState, "_embed_loop", lambda self: None)
    dsn = str(request.getfixturevalue("pg_dsn")) if backend == "postgres" else ""
    state = _state(tmp_path, monkeypatch, dsn)
    try:
        sc = state.scoped(_who(), BANK, "write")
        texts = [f"batch item {i}: the {w} worker retries the upload" for i, w in
                 enumerate(["ledger", "invoice", "thumbnail", "archive"])] + [TEXT]
        res = sc.retain([sc.item(t) for t in texts], batch=True)
        assert [r.action for r in res] == ["created"] * 5
        mem = sc.bank.memory
        hits = sc.recall("staging key vault canary", k=1, embed=False)
        assert [h.memory.text for h in hits.hits] == [TEXT]  # by text, before any vector
        assert sorted(m for m, _t in mem.store.missing_vectors(mem.embedder.model_id)) == \
            sorted(r.id for r in res)  # answered before the vectors were written
        assert state.embed_pending(chunk=2) == 5
        assert mem.store.missing_vectors(mem.embedder.model_id) == []
        dense = sc.recall("the deploy script reads the staging key from vault", k=1,
                          channels=("dense",))
        assert [h.memory.text for h in dense.hits] == [TEXT]
        assert state.embed_pending() == 0  # nothing left
    finally:
        state.close()
