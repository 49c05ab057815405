"""The in-process matrix of a bank's vectors, kept in step with the database cheaply.

A process keeps one matrix per connection (``SqliteMemoryStore.matrix``). When another
connection has written (``PRAGMA data_version`` changed: in a long-lived MCP server that is
after every hook that counted an access), the matrix is brought up to date instead of
read again: every ``set_vectors`` stamps its rows with the next ``vec_seq`` (migration
``0008_vector_seq``), so only rows with a higher stamp are read. Changes that remove or
replace vectors (a status change, a re-embedding, an import) bump meta ``vec_epoch``; a
changed epoch means a full read. Measured at 100,000 memories × 384 dimensions: a full read
costs hundreds of milliseconds (README, ``bench/recall_scale.py`` "matrix cold"), an
up-to-date check one indexed query.
"""

from __future__ import annotations

import sqlite3
from typing import Any


def bump_epoch(c: sqlite3.Connection) -> None:
    """Inside the caller's write transaction: vectors were removed or replaced."""
    c.execute("INSERT INTO meta VALUES('vec_epoch', '1') ON CONFLICT(key) DO UPDATE SET "
              "value = CAST(value AS INTEGER) + 1")


def next_seq(c: sqlite3.Connection) -> int:
    return int(c.execute("SELECT coalesce(max(vec_seq), 0) FROM memories").fetchone()[0]) + 1


def _rows(conn: sqlite3.Connection, model: str, after: int) -> list[Any]:
    return conn.execute("SELECT id, vector, vec_seq FROM memories WHERE vec_seq > ? AND "
                        "status='active' AND model=? AND vector IS NOT NULL ORDER BY id",
                        (after, model)).fetchall()


def load(conn: sqlite3.Connection, model: str, cache: dict[str, Any] | None, dv: int
         ) -> dict[str, Any]:
    """The cache for ``model`` at data version ``dv``: ``cache`` brought up to date when its
    epoch still holds, else read in full. Keys: model, dv, epoch, seq, ids, mat, n."""
    import numpy as np

    conn.execute("BEGIN")  # one snapshot for the epoch and the rows
    try:
        r = conn.execute("SELECT value FROM meta WHERE key='vec_epoch'").fetchone()
        epoch = r[0] if r else "0"
        if cache is not None and cache["model"] == model and cache["epoch"] == epoch:
            rows = _rows(conn, model, cache["seq"])
            if _extend(cache, rows):
                cache["dv"] = dv
                return cache
        rows = _rows(conn, model, -1)  # every row, those stored before stamps (0) too
    finally:
        conn.execute("COMMIT")
    n = len(rows)
    dim = len(rows[0][1]) // 4 if rows else 1
    cap = max(64, n * 2)
    ids = np.zeros(cap, dtype=np.int64)
    mat = np.zeros((cap, dim), dtype=np.float32)
    if rows:
        ids[:n] = [x[0] for x in rows]
        mat[:n] = np.frombuffer(b"".join(x[1] for x in rows), dtype=np.float32).reshape(n, dim)
    return {"model": model, "dv": dv, "epoch": epoch, "n": n, "ids": ids, "mat": mat,
            "seq": max((x[2] for x in rows), default=0)}


def _extend(c: dict[str, Any], rows: list[Any]) -> bool:
    """Append ``rows`` (id, vector, seq) not yet in the cache; False when one does not fit
    (another dimension), so the caller reads in full."""
    import numpy as np

    if not rows:
        return True
    known = set(c["ids"][:c["n"]].tolist())
    for mid, blob, seq in rows:
        c["seq"] = max(c["seq"], seq)
        if mid in known:  # appended by this connection already
            continue
        v = np.frombuffer(blob, dtype=np.float32)
        if v.shape[0] != c["mat"].shape[1]:
            return False
        append(c, mid, v)
    return True


def append(c: dict[str, Any], mid: int, v: Any) -> None:
    """Add one row to the cache (spare capacity doubles)."""
    import numpy as np

    if c["n"] == len(c["ids"]):
        c["ids"] = np.concatenate([c["ids"], np.zeros_like(c["ids"])])
        c["mat"] = np.concatenate([c["mat"], np.zeros_like(c["mat"])])
    c["ids"][c["n"]] = mid
    c["mat"][c["n"]] = v
    c["n"] += 1


def nearest(ids: Any, mat: Any, vector: bytes, k: int, floor: float,
            keep: Any = None) -> list[tuple[int, float]]:
    """The ``k`` rows of ``mat`` nearest to ``vector`` (float32 bytes) by dot product (the
    cosine of unit vectors), as ``(id, cosine)`` with cosine ≥ ``floor``, best first; ``[]``
    when the dimensions differ. ``keep(ids)`` → the set of ids allowed: the ranking is then
    walked in slices growing 4× until ``k`` allowed rows are found."""
    import numpy as np

    q = np.frombuffer(vector, dtype=np.float32)
    if k <= 0 or not len(ids) or q.shape[0] != mat.shape[1]:
        return []
    sims = mat @ q
    n, take = len(sims), k
    while True:
        top = np.argpartition(-sims, min(take, n - 1))[:take] if n > take else np.arange(n)
        top = top[np.argsort(-sims[top], kind="stable")]
        top = top[sims[top] >= floor]
        got = [(int(ids[j]), float(sims[j])) for j in top]
        if keep is None:
            return got
        allowed = keep([i for i, _ in got])
        hits = [(i, s) for i, s in got if i in allowed]
        if len(hits) >= k or take >= n or len(got) < take:
            return hits[:k]
        take *= 4
