"""What every PostgreSQL store of a bank shares: the pool, the bank's schema, write
transactions, the visibility clause and the ``meta`` table.

Statements are written with ``{s}`` for the bank's schema (made by
:func:`hindsight.store.postgres.schema.schema_name`: ``[a-z0-9_]`` only) and ``%s`` for
every value. PostgreSQL text cannot hold NUL: a NUL in a stored or searched string becomes
U+FFFD (:func:`no_nul`), the same on write and on read, so such a filter still matches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hindsight.store.base import Viewer
from hindsight.store.postgres.pool import translated

MEMO_S = 2.0  # seconds a memoised fact of the bank (:meth:`PgStore._memo`) is reused

# meta keys kept in the bank's schema; the rest go to ``local_meta`` when one is given
# (what one checkout records for itself: seeding, write-back offsets, watermarks)
BANK_META = frozenset({"lexical", "lexical_building", "embedding_model", "schema_version"})


def no_nul(v: Any) -> Any:
    """``v`` with NUL characters replaced by U+FFFD (strings, and strings in lists)."""
    if isinstance(v, str):
        return v.replace("\x00", "\ufffd") if "\x00" in v else v
    if isinstance(v, list | tuple):
        return type(v)(no_nul(x) for x in v)
    return v


def clause(viewer: Viewer | None, prefix: str = "") -> tuple[str, list[Any]]:
    """``(" AND (…)", args)``: ``viewer`` may see the row (store/base.py ``Viewer``; the
    same rule as :func:`hindsight.store.sqlite.visible.clause`); nothing for None or an
    admin."""
    if viewer is None or viewer.admin:
        return "", []
    p = prefix
    return (f" AND ({p}visibility = 'public' OR ({p}owner != '' AND {p}owner = %s) OR "
            f"({p}visibility = 'team' AND {p}team != '' AND {p}team = %s))",
            [no_nul(viewer.agent), no_nul(viewer.team)])


class PgStore:
    """A bank's schema in a pooled database. ``place`` (host:port/database and bank) names
    it in errors; every public method of a subclass raises StorageError for a psycopg
    error. ``local_meta`` (optional, another store's ``get_meta``/``set_meta``) keeps the
    meta keys outside :data:`BANK_META`."""

    def __init__(self, pool: Any, schema: str, place: str, local_meta: Any = None) -> None:
        self.pool = pool
        self.s = schema
        self.place = place
        self.local_meta = local_meta
        self.busy_ms = 30_000
        self._memos: dict[str, tuple[float, int, Any]] = {}
        self._writes = 0  # write transactions begun through this object (:meth:`tx`)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        import inspect

        super().__init_subclass__(**kwargs)
        for name, fn in list(vars(cls).items()):
            if not name.startswith("_") and inspect.isfunction(fn):
                setattr(cls, name, translated(fn))

    def q(self, sql: str) -> str:
        """``sql`` with ``{s}`` made the bank's schema."""
        return sql.replace("{s}", self.s)

    def all(self, sql: str, args: Any = ()) -> list[Any]:
        with self.pool.connection() as c:
            return list(c.execute(self.q(sql), no_nul(list(args))).fetchall())

    def one(self, sql: str, args: Any = ()) -> Any:
        with self.pool.connection() as c:
            return c.execute(self.q(sql), no_nul(list(args))).fetchone()

    def _memo(self, key: str, fn: Callable[[], Any], keep: Callable[[Any], bool] = bool,
              ttl_s: float = MEMO_S) -> Any:
        """``fn()``, reused for ``ttl_s`` seconds when ``keep(value)`` and no write
        transaction began through this object meanwhile: the facts a recall asks every time
        (is anything active, are there vectors, which agents, how big) cost a round trip
        each (issue 11's load target). Another process's writes show within ``ttl_s``."""
        now, writes = time.monotonic(), self._writes  # a write during fn() voids the value
        hit = self._memos.get(key)
        if hit is not None and hit[0] > now and hit[1] == writes:
            return hit[2]
        value = fn()
        if keep(value):
            self._memos[key] = (now + ttl_s, writes, value)
        return value

    @contextmanager
    def tx(self, changes_facts: bool = True) -> Iterator[Any]:
        """One write transaction on a pooled connection (committed at the end, rolled back
        on any error); waits at most ``busy_ms`` for a row lock. ``changes_facts`` False:
        it changes nothing :meth:`_memo` keeps (access counts)."""
        self._writes += changes_facts
        try:
            with self.pool.connection() as c, c.transaction():
                c.execute(f"SET LOCAL lock_timeout = {max(1, int(self.busy_ms))}")
                yield c
        finally:  # again once committed: a read begun meanwhile saw the old rows
            self._writes += changes_facts

    def set_busy_timeout(self, ms: int) -> None:
        """How long a write waits for a row lock another writer holds (ms; PostgreSQL's
        ``lock_timeout``, 0 counts as 1 ms) before it fails with StorageError."""
        self.busy_ms = int(ms)

    def get_meta(self, key: str) -> str | None:
        if self.local_meta is not None and key not in BANK_META:
            return self.local_meta.get_meta(key)
        r = self._memo("meta " + key, lambda: self.one(
            "SELECT value FROM {s}.meta WHERE key = %s", (key,)))
        return r[0] if r else None

    def set_meta(self, values: dict[str, str]) -> None:
        mine = {k: v for k, v in values.items()
                if self.local_meta is None or k in BANK_META}
        if len(mine) < len(values):
            self.local_meta.set_meta({k: v for k, v in values.items() if k not in mine})
        if mine:
            with self.tx() as c:
                for k, v in mine.items():
                    c.execute(self.q("INSERT INTO {s}.meta VALUES(%s, %s) ON CONFLICT (key) DO "
                                     "UPDATE SET value = excluded.value"), no_nul([k, v]))


for _name in ("get_meta", "set_meta", "set_busy_timeout"):
    setattr(PgStore, _name, translated(getattr(PgStore, _name)))
