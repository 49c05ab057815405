"""PostgreSQL backend (psycopg 3 + pgvector) for the memory, page and record stores, and the
embedded server launcher (:mod:`.embedded`). Nothing here imports psycopg until a store is opened."""

from __future__ import annotations

from typing import Any

_READY: dict[tuple[str, str], str] = {}  # (url, bank id) -> its schema, once migrated here


def open_memory_store(url: str, bank_id: str, local_meta: Any = None,
                      busy_timeout_ms: int | None = None) -> Any:
    """The memory store of ``bank_id`` in the database at ``url`` (a ``postgresql://``
    URL): its schema is registered, made and migrated on first use (the ``vector``
    extension created when missing). ``local_meta`` keeps the checkout's own meta keys
    (see :data:`.db.BANK_META`); ``busy_timeout_ms`` how long a write waits for a row
    lock. Close it with ``close()``. Raises StorageError (one line, without the
    password) when the server cannot be reached or the schema cannot be made."""
    import psycopg

    from hindsight.store.postgres.memory import PgMemoryStore
    from hindsight.store.postgres.pool import CONNECT_TIMEOUT_S, acquire, error, where
    from hindsight.store.postgres.schema import ensure_bank
    from hindsight.store.sqlite.db import now_iso

    place = f"{where(url)} bank {bank_id}"
    if (url, bank_id) not in _READY:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
                                 ) as conn:
                _READY[(url, bank_id)] = ensure_bank(conn, bank_id, now_iso())
        except psycopg.Error as e:
            raise error(place, e) from e
    pool = acquire(url)
    store = PgMemoryStore(pool, _READY[(url, bank_id)], place, url, local_meta)
    if busy_timeout_ms is not None:
        store.set_busy_timeout(busy_timeout_ms)
    return store


def has_bank(url: str, bank_id: str) -> bool:
    """Whether the database at ``url`` holds ``bank_id`` (``public.hindsight_banks``):
    a bank another server made. Raises StorageError when the server cannot be reached."""
    import psycopg

    from hindsight.store.postgres.pool import CONNECT_TIMEOUT_S, error, where
    from hindsight.store.postgres.schema import banks

    if (url, bank_id) in _READY:
        return True
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
            return bank_id in {b for b, _s in banks(conn)}
    except psycopg.Error as e:
        raise error(f"{where(url)} bank {bank_id}", e) from e


def work_stores(memory: Any) -> tuple[Any, Any]:
    """``(pages, records)``: the :class:`~hindsight.store.base.PageStore` and
    :class:`~hindsight.store.base.RecordStore` in the same bank schema and pool as
    ``memory`` (a store from :func:`open_memory_store`, whose ``close`` gives the pool
    back), keeping the checkout's own meta keys where ``memory`` keeps them."""
    from hindsight.store.postgres.pages import PgPageStore
    from hindsight.store.postgres.records import PgRecordStore

    pages = PgPageStore(memory.pool, memory.s, memory.place, memory.local_meta)
    records = PgRecordStore(memory.pool, memory.s, memory.place, memory.local_meta)
    for store in (pages, records):
        store.set_busy_timeout(memory.busy_ms)
    return pages, records
