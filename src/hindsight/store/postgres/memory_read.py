"""Reads of the PostgreSQL memory store (:class:`PgMemoryReads`, the base of
:class:`hindsight.store.postgres.memory.PgMemoryStore`): the contract of
:class:`hindsight.store.base.MemoryStore`, in the bank's schema. Reads that return memory
content take a ``viewer`` and filter in their query (:func:`~.db.clause`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import nullcontext
from typing import Any

from hindsight.models import Memory
from hindsight.store.base import Viewer
from hindsight.store.postgres import lexical as lex
from hindsight.store.postgres.db import PgStore, clause, no_nul
from hindsight.store.postgres.pool import EF_SEARCH
from hindsight.store.postgres.schema import HNSW_DIMS

# the memory columns, as SQLite's (no vector: ``embedding``/``dims`` are read apart)
COLS = ("id", "fingerprint", "text", "kind", "scene", "problem", "solution", "outcome",
        "tags", "context", "source", "session", "agent", "commit_sha", "ref", "occurred_at",
        "occurred_ts", "created_at", "created_ts", "access_count", "last_accessed_ts",
        "confidence", "status", "status_reason", "status_at", "superseded_by", "visibility",
        "owner", "team", "stale", "stale_reason", "model")
# the select list of COLS over ``{s}.memories m LEFT JOIN {s}.memory_access a`` (ACCESS_JOIN):
# access counts live in both tables (schema migration 0006_memory_access)
_SELECT = ", ".join(
    "least(m.access_count::bigint + coalesce(a.access_count, 0), 2147483647)"
    if c == "access_count" else
    "greatest(m.last_accessed_ts, coalesce(a.last_accessed_ts, 0))"
    if c == "last_accessed_ts" else f"m.{c}" for c in COLS)
ACCESS_JOIN = "{s}.memories m LEFT JOIN {s}.memory_access a ON a.memory_id = m.id"
_ANCHOR_COLS = ("path", "symbol", "ast_hash", "stale", "reason", "implicit")
HNSW_FROM = 100_000  # rows from which dense search may be approximate (MemoryStore.nearest)


def _always(_value: Any) -> bool:
    return True


def _array(v: Any) -> Any:
    """A ``vector`` value as read (pgvector's ``Vector``) as a float32 NumPy array."""
    import numpy as np

    return np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32)


class PgMemoryReads(PgStore):
    """The read side of a bank's memory tables on PostgreSQL."""

    def has_active(self) -> bool:
        return bool(self._memo("has_active", lambda: self.one(
            "SELECT 1 FROM {s}.memories WHERE status = 'active' LIMIT 1") is not None))

    def count(self, status: str | None = "active") -> int:
        if status is None:
            return int(self.one("SELECT count(*) FROM {s}.memories")[0])
        return int(self.one("SELECT count(*) FROM {s}.memories WHERE status = %s",
                            (status,))[0])

    def active_count(self) -> int:
        return self.count()

    def get(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, Memory]:
        if not ids:
            return {}
        see, args = clause(viewer, "m.")
        rows = {r[0]: dict(zip(COLS, r, strict=True)) for r in self.all(
            f"SELECT {_SELECT} FROM {ACCESS_JOIN} WHERE m.id = ANY(%s){see}",
            [list(ids), *args])}
        anchors: dict[int, list[dict[str, Any]]] = {}
        for r in self.all(f"SELECT memory_id, {', '.join(_ANCHOR_COLS)} FROM "
                          "{s}.memory_anchors WHERE memory_id = ANY(%s) ORDER BY id",
                          [list(rows)]):
            anchors.setdefault(r[0], []).append(dict(zip(_ANCHOR_COLS, r[1:], strict=True)))
        out = {}
        for i, r in rows.items():
            r["tags"] = json.loads(r["tags"])
            out[i] = Memory.from_row(r, anchors.get(i, []))
        return out

    def adjacent(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, list[int]]:
        """For conversation memories among ``ids``: the active memories of the same
        session stored right before and after each (among those ``viewer`` may see); one
        query."""
        if not ids:
            return {}
        args = clause(viewer)[1]

        def near(op: str, by: str) -> str:
            return ("(SELECT n.id FROM {s}.memories n WHERE n.session = m.session AND "
                    f"n.id {op} m.id AND n.status = 'active'{clause(viewer, 'n.')[0]} "
                    f"ORDER BY n.id {by} LIMIT 1)")
        out: dict[int, list[int]] = {}
        for i, prev, nxt in self.all(
                f"SELECT m.id, {near('<', 'DESC')}, {near('>', 'ASC')} FROM {{s}}.memories m "
                "WHERE m.id = ANY(%s) AND m.kind = 'conversation' AND m.session != ''"
                f"{clause(viewer, 'm.')[0]}", [*args, *args, list(ids), *args]):
            out[int(i)] = [int(x) for x in (prev, nxt) if x is not None]
        return out

    def agents(self) -> list[str]:
        """Distinct non-empty agents, any status, in code point order (SQLite's): a
        loose index scan of ``ix_memories_agent`` (one lookup per agent)."""
        return list(self._memo("agents", lambda: sorted(r[0] for r in self.all(
            "WITH RECURSIVE a(x) AS (SELECT min(agent) FROM {s}.memories WHERE agent > '' "
            "UNION ALL SELECT (SELECT min(agent) FROM {s}.memories WHERE agent > a.x) FROM a "
            "WHERE a.x IS NOT NULL) SELECT x FROM a WHERE x IS NOT NULL")), keep=_always))

    def by_fingerprint(self, fp: str) -> int | None:
        r = self.one("SELECT id FROM {s}.memories WHERE fingerprint = %s", (fp,))
        return int(r[0]) if r else None

    def audit(self, mid: int) -> list[dict[str, Any]]:
        return [{"at": r[0], "action": r[1], "detail": r[2]} for r in self.all(
            "SELECT at, action, detail FROM {s}.memory_audit WHERE memory_id = %s "
            "ORDER BY id", (mid,))]

    def ids_after(self, after: int, limit: int) -> list[int]:
        return [int(r[0]) for r in self.all(
            "SELECT id FROM {s}.memories WHERE id > %s AND status = 'active' AND "
            "kind != 'conversation' ORDER BY id LIMIT %s", (after, limit))]

    # --- the lexical index ----------------------------------------------------------------
    def lex_stats(self) -> tuple[int, int, int]:
        with self.pool.connection() as c:
            return lex.stats(c, self.s)

    def lex_df(self, terms: list[str]) -> dict[str, int]:
        with self.pool.connection() as c:
            got = lex.df(c, self.s, no_nul(terms))
        return {t: got[no_nul(t)][1] if no_nul(t) in got else 0 for t in terms}

    def lex_postings(self, terms: list[str]) -> dict[str, bytes]:
        with self.pool.connection() as c:
            got = lex.postings(c, self.s, no_nul(terms))
        return {t: got[no_nul(t)] for t in terms if no_nul(t) in got}

    def lex_missing(self, limit: int) -> list[dict[str, Any]]:
        with self.pool.connection() as c:
            return lex.missing(c, self.s, limit)

    def lex_behind(self) -> bool:
        def behind() -> bool:
            r = self.one("SELECT (SELECT max(id) FROM {s}.memories), "
                         "(SELECT max(memory_id) FROM {s}.lex_docs)")
            return bool(r[0] is not None and r[0] != r[1])
        # every writer indexes in the retain's transaction: "not behind" is reused
        return bool(self._memo("lex_behind", behind, keep=lambda v: not v))

    # --- vectors --------------------------------------------------------------------------
    def matrix(self, model: str) -> tuple[Any, Any]:
        """(ids, vectors) of active memories embedded with ``model``, read in full (recall
        uses :meth:`nearest`; this is for the optional rerank and tools)."""
        import numpy as np

        rows = [(r[0], _array(r[1])) for r in self.all(
            "SELECT id, embedding FROM {s}.memories WHERE status = 'active' AND model = %s AND "
            "embedding IS NOT NULL ORDER BY id", (model,))]
        dims = {len(r[1]) for r in rows}
        if len(dims) > 1:  # one model, one dimension: keep the most common
            top = max(dims, key=lambda d: sum(len(r[1]) == d for r in rows))
            rows = [r for r in rows if len(r[1]) == top]
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        mat = np.array([r[1] for r in rows], dtype=np.float32).reshape(len(rows), -1) \
            if rows else np.zeros((0, 1), dtype=np.float32)
        return ids, mat

    def _hnsw(self) -> bool:
        """Whether dense search may go through the HNSW index: the bank holds at least
        :data:`HNSW_FROM` rows (PostgreSQL's estimate, ``pg_class.reltuples``); below
        that it is exact (the contract: never approximate under 100,000 vectors)."""
        r = self._memo("reltuples", lambda: self.one(
            "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (f"{self.s}.memories",)),
            keep=_always, ttl_s=60.0)
        return r is not None and float(r[0]) >= HNSW_FROM

    def nearest(self, model: str, vector: Any, k: int, floor: float = -1.0,
                viewer: Viewer | None = None) -> list[tuple[int, float]]:
        """The ``k`` nearest by cosine distance (``<=>``), filtered by status, model and
        ``viewer`` in the query. From :data:`HNSW_FROM` rows, vectors of
        :data:`~.schema.HNSW_DIMS` dimensions go through the HNSW index (approximate;
        ``hnsw.ef_search`` max(:data:`EF_SEARCH`, 2k), iterative scans so the filter does
        not shorten the list); otherwise every vector is compared (exact)."""
        import numpy as np

        q = np.asarray(vector, dtype=np.float32)
        if k <= 0:
            return []
        see, args = clause(viewer)
        dim = int(q.shape[0])
        indexed = dim == HNSW_DIMS and self._hnsw()
        # the index serves only its own expression; a plain column expression is exact
        col = f"embedding::vector({dim})" if indexed else "embedding"
        cast = f"%s::vector({dim})"
        ef = min(1000, max(EF_SEARCH, 2 * k))  # each connection starts at EF_SEARCH (pool)
        with self.pool.connection() as c, \
                c.transaction() if ef != EF_SEARCH else nullcontext():  # BEGIN costs a trip
            if ef != EF_SEARCH:
                c.execute(f"SET LOCAL hnsw.ef_search = {ef}")
            rows = c.execute(self.q(
                f"SELECT id, {col} <=> {cast} AS d FROM {{s}}.memories WHERE dims = {dim} "
                f"AND model = %s AND status = 'active'{see} ORDER BY {col} <=> {cast} "
                "LIMIT %s"), [q, model, *no_nul(args), q, k]).fetchall()
        got = sorted(((int(i), 1.0 - float(d)) for i, d in rows), key=lambda x: (-x[1], x[0]))
        return [(i, s) for i, s in got if s >= floor]

    def has_vectors(self, model: str) -> bool:
        return bool(self._memo("has_vectors " + model, lambda: self.one(
            "SELECT 1 FROM {s}.memories WHERE model = %s AND embedding IS NOT NULL AND "
            "status = 'active' LIMIT 1", (model,)) is not None))

    def cosines(self, model: str, vector: Any, ids: list[int]) -> dict[int, float]:
        """Cosine of ``vector`` with the ``model`` vector of each active memory of
        ``ids`` that has one (the rerank's scores)."""
        import numpy as np

        q = np.asarray(vector, dtype=np.float32)
        if not ids:
            return {}
        return {int(i): 1.0 - float(d) for i, d in self.all(
            f"SELECT id, embedding <=> %s::vector({int(q.shape[0])}) FROM {{s}}.memories "
            f"WHERE id = ANY(%s) AND model = %s AND status = 'active' AND "
            f"dims = {int(q.shape[0])}", [q, list(ids), model])}

    def active_visible(self, ids: list[int], viewer: Viewer) -> set[int]:
        see, args = clause(viewer)
        return {int(r[0]) for r in self.all(
            f"SELECT id FROM {{s}}.memories WHERE id = ANY(%s) AND status = 'active'{see}",
            [list(ids), *args])} if ids else set()

    # --- anchors and lists ----------------------------------------------------------------
    def anchored(self, paths: list[str], symbols: list[tuple[str, str]],
                 viewer: Viewer | None = None) -> list[tuple[int, str, str]]:
        see, args = clause(viewer, "m.")
        out: list[tuple[int, str, str]] = []
        head = ("SELECT a.memory_id, a.path, a.symbol FROM {s}.memory_anchors a JOIN "
                "{s}.memories m ON m.id = a.memory_id WHERE m.status = 'active'" + see)
        if paths:
            out += [(int(r[0]), r[1], r[2]) for r in self.all(
                head + " AND a.path = ANY(%s) ORDER BY a.id", [*args, list(paths)])]
        if symbols:
            out += [(int(r[0]), r[1], r[2]) for r in self.all(
                head + " AND (a.path, a.symbol) IN (SELECT * FROM unnest(%s::text[], "
                "%s::text[])) ORDER BY a.id",
                [*args, [p for p, _ in symbols], [s for _, s in symbols]])]
        return out

    def anchors_all(self) -> list[tuple[int, str, str, str, int]]:
        return [(int(r[0]), r[1], r[2], r[3], int(r[4])) for r in self.all(
            "SELECT a.memory_id, a.path, a.symbol, a.ast_hash, a.stale FROM "
            "{s}.memory_anchors a JOIN {s}.memories m ON m.id = a.memory_id WHERE "
            "m.status IN ('active', 'archived') ORDER BY a.id")]

    def list_memories(self, *, status: str = "active", kind: str | None = None,
                      stale: bool = False, source: str | None = None, limit: int = 100,
                      tag: str | None = None, visibility: str | None = None,
                      since: float | None = None, until: float | None = None,
                      anchor: tuple[str, str] | None = None, after_id: int = 0,
                      offset: int = 0, order: str = "occurred",
                      viewer: Viewer | None = None) -> list[Memory]:
        see, args = clause(viewer)
        where = ["TRUE" + see]
        for col, val in (("status", None if status == "all" else status), ("kind", kind),
                         ("source", source), ("visibility", visibility)):
            if val:
                where.append(f"{col} = %s")
                args.append(val)
        if stale:
            where.append("stale = 1 AND id IN (SELECT memory_id FROM {s}.memory_anchors "
                         "WHERE stale = 1)")
        if tag:  # a substring test first (cheap), then the exact element
            where.append("strpos(tags, %s) > 0 AND jsonb_exists(tags::jsonb, %s)")
            args += [json.dumps(no_nul(tag), ensure_ascii=False), tag]
        for cond, bound in (("occurred_ts >= %s", since), ("occurred_ts < %s", until),
                            ("id > %s", after_id or None)):
            if bound is not None:
                where.append(cond)
                args.append(bound)
        if anchor is not None:
            path, symbol = anchor
            where.append("id IN (SELECT memory_id FROM {s}.memory_anchors WHERE path = %s"
                         + (" AND symbol = %s)" if symbol else ")"))
            args += [path, symbol] if symbol else [path]
        by = "id DESC" if order == "id" else "occurred_ts DESC, id DESC"
        ids = [int(r[0]) for r in self.all(
            f"SELECT id FROM {{s}}.memories WHERE {' AND '.join(where)} ORDER BY {by} "
            "LIMIT %s OFFSET %s", [*args, limit, offset])]
        got = self.get(ids)
        return [got[i] for i in ids if i in got]

    def status_counts(self) -> dict[str, int]:
        out = dict.fromkeys(("active", "archived", "forgotten", "superseded"), 0)
        out.update({st: int(n) for st, n in self.all(
            "SELECT status, count(*) FROM {s}.memories GROUP BY status")})
        out["stale"] = int(self.one(
            "SELECT count(*) FROM {s}.memories WHERE stale = 1 AND status = 'active' AND id "
            "IN (SELECT memory_id FROM {s}.memory_anchors WHERE stale = 1)")[0])
        return out

    def activity_rows(self) -> list[tuple[int, float, int, float]]:
        return [(int(r[0]), float(r[1]), int(r[2]), float(r[3])) for r in self.all(
            "SELECT m.id, greatest(m.last_accessed_ts, coalesce(a.last_accessed_ts, 0)), "
            "least(m.access_count::bigint + coalesce(a.access_count, 0), 2147483647), "
            "m.confidence FROM " + ACCESS_JOIN
            + " WHERE m.status = 'active'")]

    def export_rows(self, viewer: Viewer | None = None) -> Iterator[dict[str, Any]]:
        see, args = clause(viewer)
        for r in self.all(f"SELECT id FROM {{s}}.memories WHERE TRUE{see} ORDER BY id", args):
            yield {"id": int(r[0])}

    def export_full(self, ids: list[int], viewer: Viewer | None = None
                    ) -> list[dict[str, Any]]:
        """Every stored field of ``ids`` (``vector``: float32 bytes or None)."""

        see, args = clause(viewer, "m.")
        out = []
        for r in self.all(f"SELECT {_SELECT}, m.embedding FROM {ACCESS_JOIN} WHERE "
                          f"m.id = ANY(%s){see} ORDER BY m.id", [list(ids), *args]):
            d = dict(zip(COLS, r[:-1], strict=True))
            d["vector"] = None if r[-1] is None else _array(r[-1]).tobytes()
            out.append(d)
        return out

    def context_holders(self, fragments: list[str]) -> list[int]:
        frags = [f for f in dict.fromkeys(no_nul(list(fragments))) if f]
        return [int(r[0]) for r in self.all(
            "SELECT id FROM {s}.memories m WHERE EXISTS (SELECT 1 FROM unnest(%s::text[]) f "
            "WHERE strpos(m.context, f) > 0) ORDER BY id",
            (frags,))] if frags else []

    def missing_vectors(self, model: str) -> list[tuple[int, str]]:
        return [(int(r[0]), r[1]) for r in self.all(
            "SELECT id, text FROM {s}.memories WHERE embedding IS NULL OR model != %s "
            "ORDER BY id", (model,))]

    def active_fingerprints(self, kinds: list[str]) -> list[tuple[int, str]]:
        return [(int(r[0]), r[1]) for r in self.all(
            "SELECT id, fingerprint FROM {s}.memories WHERE status = 'active' AND "
            "kind = ANY(%s) ORDER BY id", (list(kinds),))] if kinds else []
