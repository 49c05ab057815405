"""The backends of the contract suites and their ``stores`` fixture.

``sqlite``: one bank file. ``postgres``: the memory store on PostgreSQL (an embedded server
started by the ``pg_server`` fixture, a fresh database per test), the code index and
history in the local SQLite file, as ``app.open_bank`` composes them when ``databaseUrl``
is set (the memory store keeps the checkout's own meta keys in SQLite's meta table)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hindsight.models import MemoryItem

BACKENDS = ["sqlite", "postgres"]
AT = "2026-01-05T12:00:00+00:00"
HANDLES: dict[int, Any] = {}  # id(memory store) -> what closes its backend


def _open_sqlite(tmp: Path, request: pytest.FixtureRequest) -> tuple[Any, Any, Any, Any]:
    from hindsight.store.sqlite import open_stores

    return open_stores(str(tmp / "bank.db"), "contract::bank", str(tmp), 2000)


class _Both:
    """Closes the SQLite connection and the PostgreSQL memory store."""

    def __init__(self, conn: Any, mem: Any) -> None:
        self.conn, self.mem = conn, mem

    def close(self) -> None:
        self.mem.close()
        self.conn.close()


def _open_postgres(tmp: Path, request: pytest.FixtureRequest) -> tuple[Any, Any, Any, Any]:
    from hindsight.store.postgres import open_memory_store

    code, history, _mem, conn = _open_sqlite(tmp, request)
    mem = open_memory_store(request.getfixturevalue("pg_dsn"), "contract::bank",
                            local_meta=code, busy_timeout_ms=2000)
    return code, history, mem, _Both(conn, mem)


OPENERS = {"sqlite": _open_sqlite, "postgres": _open_postgres}


def opened(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    """What a ``stores`` fixture parameterised by :data:`BACKENDS` yields: (code, history,
    memory) of the backend ``request.param``, closed after the test."""
    code, history, memory, handle = OPENERS[request.param](tmp_path, request)
    HANDLES[id(memory)] = handle
    yield code, history, memory
    HANDLES.pop(id(memory), None)
    handle.close()


def _row(text: str, **kw: Any) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """A memory row as the domain hands it to the store."""
    from hindsight.memory.retain import prepare

    row, _found = prepare(MemoryItem(text=text, **kw), 1_767_614_400.0)
    row.pop("_structured")
    return row, row.pop("_anchors")


def _insert(mem: Any, *items: tuple[str, dict[str, Any]]) -> list[tuple[int, bool]]:
    from hindsight.memory.lexical import document

    rows, anchors = zip(*(_row(t, **kw) for t, kw in items), strict=True)
    return mem.insert(list(rows), list(anchors), [document(r) for r in rows], AT)


