"""Reads of the SQLite memory store (:class:`SqliteMemoryReads`, the base of
:class:`hindsight.store.sqlite.memory.SqliteMemoryStore`). Reads that return memory content
take a ``viewer`` and filter in their query (:mod:`hindsight.store.sqlite.visible`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from hindsight.models import Memory
from hindsight.store.base import Viewer
from hindsight.store.sqlite import lexical as lex
from hindsight.store.sqlite import vectors as vec
from hindsight.store.sqlite.db import SqliteStore, rows_as_dicts
from hindsight.store.sqlite.rows import memory_rows
from hindsight.store.sqlite.visible import clause

_CHUNK = 500


class SqliteMemoryReads(SqliteStore):
    """The read side of a bank's memory tables (and the vector cache it keeps)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._cache: vec.Vectors | None = None

    def _tx(self) -> Any:
        self._writes = getattr(self, "_writes", 0) + 1
        return super()._tx()

    def has_active(self) -> bool:
        return self.conn.execute("SELECT 1 FROM memories WHERE status='active' LIMIT 1"
                                 ).fetchone() is not None

    def active_count(self) -> int:
        """Active memories, cached until this or another connection writes."""
        key = (self.conn.execute("PRAGMA data_version").fetchone()[0],
               getattr(self, "_writes", 0))
        if getattr(self, "_count_key", None) != key:
            self._count_key, self._count = key, self.count()
        return int(self._count)

    def count(self, status: str | None = "active") -> int:
        if status is None:
            return int(self.conn.execute("SELECT count(*) FROM memories").fetchone()[0])
        return int(self.conn.execute("SELECT count(*) FROM memories WHERE status=?",
                                     (status,)).fetchone()[0])

    def get(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, Memory]:
        """The memories of ``ids`` that exist and ``viewer`` may see, with their anchors."""
        return memory_rows(self.conn, ids, _CHUNK, clause(viewer))

    def adjacent(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, list[int]]:
        """For conversation memories among ``ids``: the active memories of the same
        session stored right before and after each (id order is turn order), among those
        ``viewer`` may see."""
        out: dict[int, list[int]] = {}
        if not ids:
            return out
        q = ",".join("?" * len(ids))
        see, args = clause(viewer)
        for i, sess in self.conn.execute(
                f"SELECT id, session FROM memories WHERE id IN ({q}) AND "
                f"kind='conversation' AND session != ''{see}", [*ids, *args]).fetchall():
            prev = self.conn.execute(
                "SELECT id FROM memories WHERE session=? AND id < ? AND session != '' "
                f"AND status='active'{see} ORDER BY id DESC LIMIT 1",
                (sess, i, *args)).fetchone()
            nxt = self.conn.execute(
                "SELECT id FROM memories WHERE session=? AND id > ? AND session != '' "
                f"AND status='active'{see} ORDER BY id LIMIT 1", (sess, i, *args)).fetchone()
            out[i] = [x[0] for x in (prev, nxt) if x is not None]
        return out

    def agents(self) -> list[str]:
        """Distinct non-empty agents, any status: a skip-scan of ``ix_memories_agent`` (one
        index lookup per agent, not a pass over the memories)."""
        return [r[0] for r in self.conn.execute(
            "WITH RECURSIVE a(x) AS (SELECT min(agent) FROM memories WHERE agent > '' "
            "UNION ALL SELECT (SELECT min(agent) FROM memories WHERE agent > a.x) FROM a "
            "WHERE a.x IS NOT NULL) SELECT x FROM a WHERE x IS NOT NULL")]

    def _cols(self) -> str:
        if not hasattr(self, "_colnames"):
            self._colnames = ", ".join(r[1] for r in self.conn.execute(
                "PRAGMA table_info(memories)") if r[1] != "vector")
        return self._colnames

    def by_fingerprint(self, fp: str) -> int | None:
        r = self.conn.execute("SELECT id FROM memories WHERE fingerprint=?", (fp,)).fetchone()
        return r[0] if r else None

    def audit(self, mid: int) -> list[dict[str, Any]]:
        return rows_as_dicts(self.conn.execute(
            "SELECT at, action, detail FROM memory_audit WHERE memory_id=? ORDER BY id", (mid,)))

    def ids_after(self, after: int, limit: int) -> list[int]:
        """Ids above ``after`` of active memories that are not conversation turns, in id
        order, at most ``limit``."""
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM memories WHERE id > ? AND status='active' AND "
            "kind != 'conversation' ORDER BY id LIMIT ?", (after, limit))]

    def lex_stats(self) -> tuple[int, int, int]:
        """(documents, total body length, total context length) of the lexical index."""
        return lex.stats(self.conn)

    def lex_df(self, terms: list[str]) -> dict[str, int]:
        """Document frequency of each of ``terms`` (0 when not indexed)."""
        got = lex.df(self.conn, terms)
        return {t: got[t][1] if t in got else 0 for t in terms}

    def lex_postings(self, terms: list[str]) -> dict[str, bytes]:
        """term → packed postings (``store.base.POSTING`` layout) for indexed ``terms``."""
        return lex.postings(self.conn, terms)

    def lex_missing(self, limit: int) -> list[dict[str, Any]]:
        return lex.missing(self.conn, limit)

    def lex_behind(self) -> bool:
        """Whether the newest memory has no lexical document (two primary-key lookups)."""
        r = self.conn.execute("SELECT (SELECT max(id) FROM memories), "
                              "(SELECT max(memory_id) FROM lex_docs)").fetchone()
        return r[0] is not None and r[0] != r[1]

    def _vectors(self, model: str) -> vec.Vectors:
        """This connection's :class:`~hindsight.store.sqlite.vectors.Vectors` of ``model``,
        brought up to date after other connections wrote (one ``PRAGMA`` when none did)."""
        dv = self.conn.execute("PRAGMA data_version").fetchone()[0]
        c = self._cache
        if c is None or c.model != model or c.dv != dv:
            c = self._cache = vec.load(self.conn, self.path, model, c, dv)
        return c

    def matrix(self, model: str) -> tuple[Any, Any]:
        """(ids, vectors) of active memories embedded with ``model``: int64 array and a
        float32 matrix (rows unit length), in no promised order. Kept per connection and
        brought up to date, not read again, after other connections add vectors; from
        ``vectors.SNAPSHOT_FROM`` rows mapped from the snapshot beside the bank
        (:mod:`hindsight.store.sqlite.vectors`)."""
        return self._vectors(model).all()

    def nearest(self, model: str, vector: Any, k: int, floor: float = -1.0,
                viewer: Viewer | None = None) -> list[tuple[int, float]]:
        """Up to ``k`` active memories embedded with ``model`` nearest to the unit
        ``vector`` (float32, shape (dim,)): ``(id, cosine)`` best first, cosine ≥
        ``floor``. Exact below ``vectors.IVF_FROM`` vectors, through the IVF index above
        (recall against exact: README, bench/recall_scale.py). With a ``viewer`` the
        ranking is asked for k, 4k, … rows, each filtered by :meth:`active_visible`, until
        ``k`` visible ones are found or none are left."""
        v = self._vectors(model)
        if viewer is None or viewer.admin:
            return v.search(vector, k, floor)
        take = k
        while True:
            got = v.search(vector, take, floor)
            seen = self.active_visible([i for i, _ in got], viewer)
            hits = [(i, s) for i, s in got if i in seen]
            if len(hits) >= k or len(got) < take:
                return hits[:k]
            take *= 4

    def has_vectors(self, model: str) -> bool:
        """Whether an active memory has a ``model`` vector (from the held vectors)."""
        return len(self._vectors(model)) > 0

    def cosines(self, model: str, vector: Any, ids: list[int]) -> dict[int, float]:
        """Cosine of the unit ``vector`` with the ``model`` vectors of those of ``ids``
        that are active and embedded with it."""
        return self._vectors(model).cosines(vector, ids)

    def anchored(self, paths: list[str], symbols: list[tuple[str, str]],
                 viewer: Viewer | None = None) -> list[tuple[int, str, str]]:
        """(memory id, path, symbol) of active memories ``viewer`` may see anchored to one
        of ``paths`` (any symbol in it) or ``symbols`` ((path, local) pairs)."""
        out: list[tuple[int, str, str]] = []
        see, args = clause(viewer, "m.")
        for p in paths:
            out += [(r[0], r[1], r[2]) for r in self.conn.execute(
                "SELECT a.memory_id, a.path, a.symbol FROM memory_anchors a JOIN memories m "
                f"ON m.id=a.memory_id WHERE a.path=? AND m.status='active'{see}", (p, *args))]
        for p, s in symbols:
            out += [(r[0], r[1], r[2]) for r in self.conn.execute(
                "SELECT a.memory_id, a.path, a.symbol FROM memory_anchors a JOIN memories m "
                f"ON m.id=a.memory_id WHERE a.path=? AND a.symbol=? AND m.status='active'{see}",
                (p, s, *args))]
        return out

    def anchors_all(self) -> list[tuple[int, str, str, str, int]]:
        return [tuple(r) for r in self.conn.execute(
            "SELECT a.memory_id, a.path, a.symbol, a.ast_hash, a.stale FROM memory_anchors a "
            "JOIN memories m ON m.id=a.memory_id WHERE m.status IN ('active','archived') "
            "ORDER BY a.rowid")]  # anchor order, as PostgreSQL gives it

    def list_memories(self, *, status: str = "active", kind: str | None = None,
                      stale: bool = False, source: str | None = None, limit: int = 100,
                      tag: str | None = None, visibility: str | None = None,
                      since: float | None = None, until: float | None = None,
                      anchor: tuple[str, str] | None = None, after_id: int = 0,
                      offset: int = 0, order: str = "occurred",
                      viewer: Viewer | None = None) -> list[Memory]:
        see, args = clause(viewer)
        where: list[str] = ["1=1" + see]
        # `+status`: SQLite then walks the order's index (occurred time or id) newest first
        # and stops after `limit` rows instead of sorting every row of a status (120 ms →
        # 0.1 ms for the first page of 100,000 active memories). Not when a filter is
        # likely rare (a visibility other than team, a source): a walk would then visit
        # most rows through the index, slower than a scan.
        walk = not source and visibility in (None, "team")
        for col, val in (("status", None if status == "all" else status), ("kind", kind),
                         ("source", source), ("visibility", visibility)):
            if val:
                where.append(f"{'+' if walk else ''}{col}=?")
                args.append(val)
        if stale:  # a stale memory has a stale anchor (mark_stale/clear_stale keep both)
            where.append("stale=1 AND id IN (SELECT memory_id FROM memory_anchors "
                         "WHERE stale=1)")
        if tag:  # a substring test first (cheap), then the exact element
            quoted = json.dumps(tag, ensure_ascii=False)
            where.append("instr(tags, ?) > 0 AND EXISTS (SELECT 1 FROM json_each(tags) "
                         "WHERE value=?)")
            args += [quoted, tag]
        bounds: list[tuple[str, float | None]] = [
            ("occurred_ts >= ?", since), ("occurred_ts < ?", until),
            ("id > ?", after_id or None)]
        for cond, bound in bounds:
            if bound is not None:
                where.append(cond)
                args.append(bound)
        if anchor is not None:
            path, symbol = anchor
            where.append("id IN (SELECT memory_id FROM memory_anchors WHERE path=?"
                         + (" AND symbol=?)" if symbol else ")"))
            args += [path, symbol] if symbol else [path]
        by = "id DESC" if order == "id" else "occurred_ts DESC, id DESC"
        cur = self.conn.execute(f"SELECT id FROM memories WHERE {' AND '.join(where)} "
                                f"ORDER BY {by} LIMIT ? OFFSET ?", [*args, limit, offset])
        ids = [r[0] for r in cur.fetchall()]
        got = self.get(ids)
        return [got[i] for i in ids if i in got]

    def status_counts(self) -> dict[str, int]:
        out = dict.fromkeys(("active", "archived", "forgotten", "superseded"), 0)
        out.update({st: n for st, n in self.conn.execute(
            "SELECT status, count(*) FROM memories GROUP BY status")})
        out["stale"] = self.conn.execute(  # from the anchors: no scan of the memory rows
            "SELECT count(*) FROM memories WHERE id IN (SELECT memory_id FROM memory_anchors "
            "WHERE stale=1) AND stale=1 AND status='active'").fetchone()[0]
        return out

    def activity_rows(self) -> list[tuple[int, float, int, float]]:
        """(id, last accessed ts, access count, confidence) of active memories."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT id, last_accessed_ts, access_count, confidence FROM memories "
            "WHERE status='active'")]

    def export_rows(self, viewer: Viewer | None = None) -> Iterator[dict[str, Any]]:
        see, args = clause(viewer)
        yield from rows_as_dicts(self.conn.execute(
            f"SELECT id FROM memories WHERE 1=1{see} ORDER BY id", args))

    def export_full(self, ids: list[int], viewer: Viewer | None = None
                    ) -> list[dict[str, Any]]:
        q = ",".join("?" * len(ids))
        see, args = clause(viewer)
        rows = rows_as_dicts(self.conn.execute(
            f"SELECT * FROM memories WHERE id IN ({q}){see}", [*ids, *args]))
        for r in rows:
            r.pop("vec_seq", None)  # bookkeeping of this file, not part of a memory
        return rows

    def context_holders(self, fragments: list[str]) -> list[int]:
        out: set[int] = set()
        for frag in (f for f in dict.fromkeys(fragments) if f):
            out.update(r[0] for r in self.conn.execute(
                "SELECT id FROM memories WHERE instr(context, ?) > 0", (frag,)))
        return sorted(out)

    def missing_vectors(self, model: str) -> list[tuple[int, str]]:
        """(id, text) of memories without a vector from ``model``."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "SELECT id, text FROM memories WHERE vector IS NULL OR model != ? ORDER BY id",
            (model,))]

    def active_fingerprints(self, kinds: list[str]) -> list[tuple[int, str]]:
        """(id, fingerprint) of active memories of ``kinds``, in id order."""
        q = ",".join("?" * len(kinds))
        return [(r[0], r[1]) for r in self.conn.execute(
            f"SELECT id, fingerprint FROM memories WHERE status='active' AND kind IN ({q}) "
            "ORDER BY id", list(kinds))] if kinds else []

    # --- team use ---------------------------------------------------------------------
    def active_visible(self, ids: list[int], viewer: Viewer) -> set[int]:
        """The ids among ``ids`` of active memories ``viewer`` may see (one query per 500).
        ``+status`` keeps SQLite's planner on the rowid lookups: with the status index it
        scanned every active memory (14 ms against 2 ms for 400 ids at 100,000 memories)."""
        see, args = clause(viewer)
        out: set[int] = set()
        for i in range(0, len(ids), _CHUNK):
            ch = ids[i:i + _CHUNK]
            out.update(r[0] for r in self.conn.execute(
                f"SELECT id FROM memories WHERE id IN ({','.join('?' * len(ch))}) AND "
                f"+status='active'{see}", [*ch, *args]))
        return out
