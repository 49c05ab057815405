"""The team server's TokenStore contract (store/server_base.py), one suite on both
backends: SQLite (a file) and PostgreSQL (a fresh database on the embedded server)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hindsight.errors import StorageError
from hindsight.store.server_base import TokenRow


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "sqlite":
        from hindsight.store.sqlite.tokens import SqliteTokenStore

        s: Any = SqliteTokenStore(str(tmp_path / "server.db"))
    else:
        from hindsight.store.postgres.tokens import PostgresTokenStore

        s = PostgresTokenStore(request.getfixturevalue("pg_dsn"))
    yield s
    s.close()


def row(tid: str, agent: str = "ann", at: float = 100.0) -> TokenRow:
    return TokenRow(tid, "h" * 64, agent, "red", "write", "team::*", at, at + 60, None)


def test_tokens_round_trip_and_revoke(store: Any) -> None:
    store.ping()
    store.add_token(row("aaaaaaaaaaaa", at=2.0))
    store.add_token(row("bbbbbbbbbbbb", "bob", at=1.0))
    assert store.token("aaaaaaaaaaaa") == row("aaaaaaaaaaaa", at=2.0)
    assert store.token("nope") is None
    assert [t.id for t in store.tokens()] == ["bbbbbbbbbbbb", "aaaaaaaaaaaa"]  # oldest first
    with pytest.raises(StorageError):
        store.add_token(row("aaaaaaaaaaaa"))  # an id is used once
    assert store.revoke("aaaaaaaaaaaa", 5.0) is True
    assert store.revoke("aaaaaaaaaaaa", 6.0) is False  # revoked before
    assert store.revoke("missing", 6.0) is False
    assert store.token("aaaaaaaaaaaa").revoked_at == 5.0


def test_audit_idempotency_banks_size(store: Any) -> None:
    store.add_audit(1.0, "t1", "ann", "retain", "b", 7, "created")
    store.add_audit(2.0, "t1", "ann", "forget", "b", 7, "why: '; DROP TABLE x; --")
    rows = store.audit(10)
    assert [(r["action"], r["memory"]) for r in rows] == [("forget", 7), ("retain", 7)]
    assert rows[0]["detail"] == "why: '; DROP TABLE x; --"
    store.add_audits([(3.0, "t2", "bob", "retain", "b", 8 + i, f"created {i}")
                      for i in range(3)])
    store.add_audits([])  # nothing to write
    assert [(r["memory"], r["detail"]) for r in store.audit(3)] == \
        [(10, "created 2"), (9, "created 1"), (8, "created 0")]  # newest (last written) first
    assert len(store.audit(100)) == 5
    assert store.idem_get("k", "ann") is None
    store.idem_put("k", "ann", "h1", '{"n": 1}', 1.0)
    store.idem_put("k", "ann", "h2", '{"n": 2}', 2.0)  # the first one wins
    assert store.idem_get("k", "ann") == ("h1", '{"n": 1}')
    assert store.idem_get("k", "bob") is None  # keys are per agent
    for b in ("z::b", "a::b", "z::b"):
        store.note_bank(b)
    assert store.banks() == ["a::b", "z::b"]
    assert store.size_bytes() > 0


def test_concurrent_writers_lose_nothing(store: Any) -> None:
    def work(n: int) -> None:
        for i in range(20):
            store.add_audit(float(i), f"t{n}", "ann", "retain", "b", i, "")
            store.note_bank(f"bank{i % 5}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.audit(1000)) == 80
    assert store.banks() == [f"bank{i}" for i in range(5)]


def test_an_unreachable_postgres_is_a_storage_error_at_once() -> None:
    import time

    from hindsight.store.postgres.embedded import free_port
    from hindsight.store.postgres.tokens import PostgresTokenStore

    t0 = time.monotonic()
    with pytest.raises(StorageError, match="PostgreSQL at postgresql://u:\\*\\*\\*@"):
        PostgresTokenStore(f"postgresql://u:secret@127.0.0.1:{free_port()}/x", timeout=1.0)
    assert time.monotonic() - t0 < 10
