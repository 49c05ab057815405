"""The vectors of a bank's active memories for the dense channel, kept in step with the
database cheaply, and searched exactly or, from :data:`IVF_FROM` vectors, through an IVF
index (:mod:`hindsight.store.sqlite.ivf`).

A process keeps one :class:`Vectors` per connection (``SqliteMemoryStore``): a *base*
matrix and a *tail* of rows added since. When another connection has written (``PRAGMA
data_version`` changed: in a long-lived MCP server that is after every hook that counted
an access), the tail is brought up to date instead of everything read again: every
``set_vectors`` stamps its rows with the next ``vec_seq`` (migration ``0008_vector_seq``),
so only rows with a higher stamp are read. Changes that remove or replace vectors (a status
change, a re-embedding, an import) bump meta ``vec_epoch``; a changed epoch means a full
read.

From :data:`SNAPSHOT_FROM` vectors the base is also written beside the bank
(``<bank>.db.vec``: a JSON head naming ``.npy`` files of ids, matrix and IVF arrays), and a
new process maps those files (``numpy.load(mmap_mode="r")``) instead of reading every blob
(1.06 s at 100,000 × 384 in the README's run). A snapshot is used only when its model and
epoch are the bank's, its stamp is not ahead of the bank's, and three of its rows (first,
middle, last) still have the fingerprint and stamp it recorded (a bank file made anew is
not mistaken for the old one); rows stamped after it are read as the tail. When the tail
outgrows ``max(TAIL_MIN, base / TAIL_SHARE)`` rows, base and tail are merged and the
snapshot written again. The files are only savings: deleting them costs one full read.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import secrets
import sqlite3
from typing import Any

from hindsight.store.sqlite import ivf

SNAPSHOT_FROM = 10_000  # base rows from which a snapshot is kept beside the bank
IVF_FROM = 200_000      # base rows from which dense search goes through the IVF index
TAIL_MIN = 4096         # tail rows always allowed before a merge
TAIL_SHARE = 8          # … or base / TAIL_SHARE, whichever is more
SUFFIX = ".vec"
HEAD_VERSION = 1


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


def _epoch(conn: sqlite3.Connection) -> str:
    r = conn.execute("SELECT value FROM meta WHERE key='vec_epoch'").fetchone()
    return str(r[0]) if r else "0"


class Vectors:
    """Base rows (``ids`` int64 (n,), ``mat`` float32 (n, dim), maybe memory-mapped, maybe
    grouped by IVF list with ``centroids``/``offsets``) plus an in-memory tail."""

    def __init__(self, model: str, epoch: str, dv: int, seq: int, ids: Any, mat: Any,
                 index: tuple[Any, Any, int] | None = None) -> None:
        import numpy as np

        self.model, self.epoch, self.dv, self.seq = model, epoch, dv, seq
        self.ids, self.mat = ids, mat
        self.index = index  # (centroids, offsets, rows the centroids were trained on)
        dim = mat.shape[1] if mat.ndim == 2 and mat.shape[1] else 1
        self.tids = np.zeros(64, dtype=np.int64)
        self.tmat = np.zeros((64, dim), dtype=np.float32)
        self.nt = 0
        self.tset: set[int] = set()
        self._sorted: tuple[Any, Any] | None = None

    @property
    def dim(self) -> int:
        return int(self.tmat.shape[1])

    def __len__(self) -> int:
        return len(self.ids) + self.nt

    def add(self, mid: int, v: Any) -> bool:
        """Append one row to the tail (spare capacity doubles); False when its dimension is
        not the matrix's (the caller reads everything again)."""
        import numpy as np

        if v.shape[0] != self.dim and len(self):
            return False
        if not len(self) and v.shape[0] != self.dim:
            self.tmat = np.zeros((64, v.shape[0]), dtype=np.float32)
        if mid in self.tset:
            return True
        if self.nt == len(self.tids):
            self.tids = np.concatenate([self.tids, np.zeros_like(self.tids)])
            self.tmat = np.concatenate([self.tmat, np.zeros_like(self.tmat)])
        self.tids[self.nt] = mid
        self.tmat[self.nt] = v
        self.nt += 1
        self.tset.add(mid)
        self._sorted = None
        return True

    def all(self) -> tuple[Any, Any]:
        """(ids, matrix) of base and tail, in that order (copies when there is a tail)."""
        import numpy as np

        if not self.nt:
            return self.ids, self.mat
        return (np.concatenate([self.ids, self.tids[:self.nt]]),
                np.concatenate([self.mat, self.tmat[:self.nt]]))

    def search(self, q: Any, k: int, floor: float) -> list[tuple[int, float]]:
        """Up to ``k`` (id, cosine) nearest to unit ``q``, best first, cosine ≥ ``floor``:
        exact over the base (or its IVF lists) and the tail."""
        import numpy as np

        if not len(self):
            return []
        q = np.asarray(q, dtype=np.float32)
        if self.index is not None:
            cent, off, _trained = self.index
            rows, bs = ivf.search(self.mat, cent, off, q, ivf.nprobe_for(len(cent)))
            bids = self.ids[rows]
        else:
            bids, bs = self.ids, self.mat @ q if len(self.ids) else np.zeros(0, np.float32)
        ids = np.concatenate([bids, self.tids[:self.nt]]) if self.nt else bids
        sims = np.concatenate([bs, self.tmat[:self.nt] @ q]) if self.nt else bs
        top = np.argpartition(-sims, min(k, len(sims) - 1))[:k] \
            if len(sims) > k else np.arange(len(sims))
        top = top[np.argsort(-sims[top], kind="stable")]
        top = top[sims[top] >= floor]
        return [(int(ids[j]), float(sims[j])) for j in top]

    def cosines(self, q: Any, wanted: list[int]) -> dict[int, float]:
        """Cosine of unit ``q`` with the rows of ``wanted`` that are here."""
        import numpy as np

        if not wanted or not len(self):
            return {}
        if self._sorted is None:
            ids = np.concatenate([self.ids, self.tids[:self.nt]]) if self.nt else self.ids
            order = np.argsort(ids, kind="stable")
            self._sorted = (np.asarray(ids)[order], order)
        keys, order = self._sorted
        w = np.asarray(wanted, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, w), len(keys) - 1)
        hit = keys[at] == w
        out: dict[int, float] = {}
        nb = len(self.ids)
        q = np.asarray(q, dtype=np.float32)
        for mid, pos in zip(w[hit].tolist(), order[at[hit]].tolist(), strict=True):
            row = self.mat[pos] if pos < nb else self.tmat[pos - nb]
            out[mid] = float(row @ q)
        return out


def load(conn: sqlite3.Connection, path: str, model: str, cache: Vectors | None, dv: int
         ) -> Vectors:
    """The vectors of ``model`` at data version ``dv``: ``cache`` brought up to date when
    its epoch still holds, else the snapshot beside ``path`` with newer rows, else
    everything read (and a snapshot written from :data:`SNAPSHOT_FROM` rows)."""
    got: Vectors | None = None
    conn.execute("BEGIN")  # one snapshot for the epoch and the rows
    try:
        epoch = _epoch(conn)
        if cache is not None and cache.model == model and cache.epoch == epoch and \
                _extend(cache, _rows(conn, model, cache.seq)):
            cache.dv = dv
            got = cache
        else:
            snap = _open(conn, path, model, epoch, dv) if path else None
            if snap is not None and _extend(snap, _rows(conn, model, snap.seq)):
                got = snap
            else:
                rows = _rows(conn, model, -1)  # every row, those stored before stamps too
    finally:
        conn.execute("COMMIT")
    if got is not None:
        return _maybe_merge(conn, path, got)
    return _build(conn, path, model, epoch, dv, rows)


def _build(conn: sqlite3.Connection, path: str, model: str, epoch: str, dv: int,
           rows: list[Any]) -> Vectors:
    import numpy as np

    n = len(rows)
    dim = len(rows[0][1]) // 4 if rows else 1
    ids = np.fromiter((x[0] for x in rows), dtype=np.int64, count=n)
    mat = np.frombuffer(b"".join(x[1] for x in rows), dtype=np.float32).reshape(n, dim) \
        if rows else np.zeros((0, dim), dtype=np.float32)
    v = Vectors(model, epoch, dv, max((x[2] for x in rows), default=0), ids, mat)
    if n >= SNAPSHOT_FROM and path:
        v = _indexed(v, None)
        _write(conn, path, v)
    return v


def _extend(c: Vectors, rows: list[Any]) -> bool:
    """Append ``rows`` (id, vector, seq) not yet held; False when one does not fit (another
    dimension), so the caller reads in full."""
    import numpy as np

    if not rows:
        return True
    fresh = [r for r in rows if r[0] not in c.tset]
    if fresh and len(c.ids):  # rows a merge of this process put in the base already
        inbase = np.isin(np.fromiter((r[0] for r in fresh), np.int64, len(fresh)), c.ids)
        fresh = [r for r, b in zip(fresh, inbase.tolist(), strict=True) if not b]
    c.seq = max(c.seq, *(r[2] for r in rows))
    return all(c.add(mid, np.frombuffer(blob, dtype=np.float32)) for mid, blob, _s in fresh)


def _maybe_merge(conn: sqlite3.Connection, path: str, c: Vectors) -> Vectors:
    """``c``, or base and tail merged (and the snapshot written) when the tail is large."""
    if c.nt <= max(TAIL_MIN, len(c.ids) // TAIL_SHARE) or len(c) < SNAPSHOT_FROM:
        return c
    ids, mat = c.all()
    merged = Vectors(c.model, c.epoch, c.dv, c.seq, ids, mat)
    merged = _indexed(merged, c)
    if path:
        _write(conn, path, merged)
    return merged


def merge_if_large(conn: sqlite3.Connection, path: str, c: Vectors) -> Vectors:
    """After rows were appended by this connection: catch up with the database first, so
    that a snapshot holds every row up to its stamp, then merge when the tail is large."""
    if c.nt <= max(TAIL_MIN, len(c.ids) // TAIL_SHARE):
        return c
    conn.execute("BEGIN")
    try:
        if _epoch(conn) != c.epoch or not _extend(c, _rows(conn, c.model, c.seq)):
            return c  # the next load reads in full
    finally:
        conn.execute("COMMIT")
    return _maybe_merge(conn, path, c)


def _indexed(v: Vectors, old: Vectors | None) -> Vectors:
    """``v`` with its rows grouped by IVF list when it has :data:`IVF_FROM` rows or more:
    the centroids of ``old`` reused while ``v`` has under twice the rows they were trained
    on, else trained anew."""
    import numpy as np

    n = len(v.ids)
    if n < IVF_FROM:
        return v
    if old is not None and old.index is not None and n < 2 * old.index[2]:
        cent, trained = old.index[0], old.index[2]
    else:
        cent, trained = ivf.train(v.mat, ivf.nlist_for(n)), n
    labels = ivf.assign(v.mat, cent)
    order, offsets = ivf.layout(labels, len(cent))
    return Vectors(v.model, v.epoch, v.dv, v.seq, np.ascontiguousarray(v.ids[order]),
                   np.ascontiguousarray(v.mat[order]), (cent, offsets, trained))


def _probes(conn: sqlite3.Connection, ids: Any) -> list[list[Any]]:
    """(id, fingerprint, vec_seq) of the first, middle and last of ``ids``."""
    if not len(ids):
        return []
    pick = sorted({int(ids[0]), int(ids[len(ids) // 2]), int(ids[-1])})
    return [list(r) for r in conn.execute(
        f"SELECT id, fingerprint, vec_seq FROM memories WHERE id IN "
        f"({','.join('?' * len(pick))}) ORDER BY id", pick)]


def _write(conn: sqlite3.Connection, path: str, v: Vectors) -> None:
    """Write ``v``'s base as the snapshot beside ``path`` (new files, then the head
    replaced; files of older snapshots removed). Failures only cost the saving."""
    import numpy as np

    token = secrets.token_hex(6)
    arrays = {"ids": v.ids, "mat": v.mat}
    if v.index is not None:
        arrays |= {"cent": v.index[0], "off": v.index[1]}
    head = {"version": HEAD_VERSION, "model": v.model, "epoch": v.epoch, "seq": v.seq,
            "token": token, "rows": len(v.ids), "trained": v.index[2] if v.index else 0,
            "probes": _probes(conn, v.ids)}
    try:
        for name, arr in arrays.items():
            np.save(f"{path}{SUFFIX}-{token}-{name}.npy", np.ascontiguousarray(arr))
        tmp = f"{path}{SUFFIX}.{token}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(head, f)
        os.replace(tmp, path + SUFFIX)
    except OSError:
        _remove(path, keep="")
        return
    _remove(path, keep=token)


def remove_snapshot(path: str) -> None:
    """Delete the snapshot beside ``path`` (head and arrays; a purge: no copy of a deleted
    vector may stay on disk). Missing files are fine."""
    with contextlib.suppress(OSError):
        os.remove(path + SUFFIX)
    _remove(path, keep="")


def _remove(path: str, keep: str) -> None:
    for f in glob.glob(glob.escape(path + SUFFIX) + "-*.npy"):
        if not keep or not os.path.basename(f).startswith(
                os.path.basename(path) + f"{SUFFIX}-{keep}-"):
            with contextlib.suppress(OSError):
                os.remove(f)


def _open(conn: sqlite3.Connection, path: str, model: str, epoch: str, dv: int
          ) -> Vectors | None:
    """The snapshot beside ``path`` when it is valid for this bank, ``model`` and
    ``epoch`` (module doc), memory-mapped; else None."""
    import numpy as np

    try:
        with open(path + SUFFIX, encoding="utf-8") as f:
            head = json.load(f)
        if head.get("version") != HEAD_VERSION or head["model"] != model or \
                head["epoch"] != epoch:
            return None
        top = conn.execute("SELECT coalesce(max(vec_seq), 0) FROM memories").fetchone()[0]
        if int(head["seq"]) > int(top):
            return None
        base = f"{path}{SUFFIX}-{head['token']}-"
        ids = np.load(base + "ids.npy", mmap_mode="r")
        mat = np.load(base + "mat.npy", mmap_mode="r")
        if len(ids) != head["rows"] or len(mat) != len(ids) or \
                _probes(conn, ids) != head["probes"]:
            return None
        index = None
        if head.get("trained"):
            index = (np.load(base + "cent.npy"), np.load(base + "off.npy"), head["trained"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Vectors(model, epoch, dv, int(head["seq"]), ids, mat, index)
