"""Connections to PostgreSQL: one pool per database URL and process, shared by every bank
opened on it, and the translation of psycopg's errors into :class:`StorageError`.

A pooled connection is in autocommit mode (a read holds no transaction open); writes open
one with ``conn.transaction()``. Each connection gets the ``vector`` type registered
(``pgvector.psycopg.register_vector``) and pgvector's iterative index scans
(``hnsw.iterative_scan = relaxed_order``, pgvector 0.8), so a filtered HNSW search keeps
scanning until it has its ``LIMIT`` rows (docs/design.md, "PostgreSQL").
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any
from urllib.parse import urlsplit

from hindsight.config.urls import masked
from hindsight.errors import StorageError

POOL_MAX = 8  # connections per database URL and process (a CLI uses one, a server more)
POOL_TIMEOUT_S = 30.0  # how long a caller waits for a free connection
CONNECT_TIMEOUT_S = 10  # libpq connect_timeout of each new connection

_POOLS: dict[str, list[Any]] = {}  # url -> [pool, users]
_LOCK = threading.Lock()


def where(url: str) -> str:
    """``host:port/database`` of ``url`` (what messages name)."""
    try:
        parts = urlsplit(url)
        return f"{parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path or '/'}"
    except ValueError:
        return masked(url)


def error(place: str, e: BaseException) -> StorageError:
    """One line about a failed PostgreSQL call: ``PostgreSQL <place>: <first line>``."""
    text = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return StorageError(f"PostgreSQL {place}: {text}", path=place)


# hnsw.ef_search of every connection: the dense search's candidate list (≥ its k, 100 in
# recall); PgMemoryReads.nearest raises it per query for a larger k
EF_SEARCH = 200


def _configure(conn: Any) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")


PROBE_TIMEOUT_S = 1  # libpq connect_timeout of the probe a pool makes while its server is down


def guarded_pool(url: str, **kw: Any) -> Any:
    """A ``psycopg_pool.ConnectionPool`` of ``url`` (``kw`` as its constructor's) whose
    ``connection()`` fails fast while the server is down and recovers as soon as it is back
    (issue 11: "PostgreSQL stopped under load: requests fail fast with 503 and recover").
    Once a call fails with an OperationalError (a pool timeout is one) and one direct
    connection (``connect_timeout`` :data:`PROBE_TIMEOUT_S`) fails too, the pool is marked
    down; each later ``connection()`` probes first: still down → OperationalError at once
    (a refused connection answers in about a millisecond) instead of waiting out the pool's
    timeout; back → the pool drops its broken connections (``check()``) and the call goes
    on, without waiting for the pool's own reconnection back-off."""
    import contextlib
    from collections.abc import Iterator

    import psycopg
    from psycopg_pool import ConnectionPool

    class GuardedPool(ConnectionPool):
        down = False

        def _probe(self) -> bool:
            try:
                psycopg.connect(url, connect_timeout=PROBE_TIMEOUT_S).close()
                return True
            except psycopg.Error:
                return False

        @contextlib.contextmanager
        def connection(self, timeout: float | None = None) -> Iterator[Any]:
            if self.down:
                if not self._probe():
                    raise psycopg.OperationalError("the server does not answer (probed at once "
                                                   "since an earlier call failed)")
                self.down = False
                self.check()  # broken connections out; new ones made now
            try:
                with super().connection(timeout) as conn:
                    yield conn
            except psycopg.OperationalError:
                if not self._probe():
                    self.down = True
                raise

    return GuardedPool(url, **kw)


def acquire(url: str) -> Any:
    """The pool of ``url`` (made on first use, counted per user: give it back with
    :func:`release`). Raises StorageError when the server cannot be reached."""
    import psycopg

    with _LOCK:
        got = _POOLS.get(url)
        if got is None or got[0].closed:
            pool = guarded_pool(url, min_size=1, max_size=POOL_MAX, open=False,
                                  kwargs={"autocommit": True,
                                          "connect_timeout": CONNECT_TIMEOUT_S},
                                  configure=_configure, timeout=POOL_TIMEOUT_S,
                                  name="hindsight")
            try:
                pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
            except psycopg.Error as e:
                pool.close()
                raise error(where(url), e) from e
            got = _POOLS[url] = [pool, 0]
        got[1] += 1
        return got[0]


def release(url: str) -> None:
    """Give back one use of ``url``'s pool; the last user closes it."""
    with _LOCK:
        got = _POOLS.get(url)
        if got is None:
            return
        got[1] -= 1
        if got[1] <= 0:
            del _POOLS[url]
            got[0].close()


def translated(fn: Any) -> Any:
    """``fn`` (a store method) with psycopg errors raised as StorageError naming the
    store's place (``self.place``); generators too."""
    import psycopg

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from fn(self, *args, **kwargs)
            except psycopg.Error as e:
                raise error(self.place, e) from e
        return gen

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except psycopg.Error as e:
            raise error(self.place, e) from e
    return wrapper
