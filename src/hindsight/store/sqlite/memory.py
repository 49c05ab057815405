"""SQLite implementation of :class:`hindsight.store.base.MemoryStore` (migration
``0003_memory``, ``0007_lexical``): memory rows with their vector (float32 blob), anchors,
the lexical index (:mod:`hindsight.store.sqlite.lexical`) and an audit log."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from hindsight.models import Memory
from hindsight.store.base import LexDoc
from hindsight.store.sqlite import lexical as lex
from hindsight.store.sqlite import vectors as vec
from hindsight.store.sqlite.db import SqliteStore, rows_as_dicts
from hindsight.store.sqlite.rows import memory_rows

_CHUNK = 500



class SqliteMemoryStore(SqliteStore):
    """Memory tables of one bank database."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._cache: vec.Vectors | None = None

    def _tx(self) -> Any:
        self._writes = getattr(self, "_writes", 0) + 1
        return super()._tx()

    # --- writes -----------------------------------------------------------------------
    def insert(self, rows: list[dict[str, Any]], anchors: list[list[tuple[str, str, str]]],
               docs: list[LexDoc], at: str,
               implicit: list[list[tuple[str, str, str]]] | None = None
               ) -> list[tuple[int, bool]]:
        """Insert memories with their lexical documents in one transaction. A row whose
        fingerprint exists is not inserted: the existing memory's access count is bumped
        instead. Returns (id, new) per row."""
        out: list[tuple[int, bool]] = []
        new_docs: list[tuple[int, dict[str, int], dict[str, int]]] = []
        extra = implicit if implicit is not None else [[] for _ in rows]
        with self._tx() as c:
            for row, anc, imp, (body, ctx) in zip(rows, anchors, extra, docs, strict=True):
                cols = list(row)
                cur = c.execute(f"INSERT OR IGNORE INTO memories({','.join(cols)}) VALUES "
                                f"({','.join('?' * len(cols))})", [row[k] for k in cols])
                if cur.rowcount == 1:
                    mid = int(cur.lastrowid or 0)
                    new_docs.append((mid, body, ctx))
                    c.executemany("INSERT INTO memory_anchors(memory_id, path, symbol, "
                                  "ast_hash, implicit) VALUES(?,?,?,?,?)",
                                  [(mid, *a, 0) for a in anc] + [(mid, *a, 1) for a in imp])
                    c.execute("INSERT INTO memory_audit(memory_id, at, action) VALUES(?,?,?)",
                              (mid, at, "retain"))
                    out.append((mid, True))
                else:
                    mid, status = c.execute("SELECT id, status FROM memories WHERE "
                                            "fingerprint=?", (row["fingerprint"],)).fetchone()
                    c.execute("UPDATE memories SET access_count=access_count+1 WHERE id=?",
                              (mid,))
                    c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                              "VALUES(?,?,?,?)", (mid, at, "duplicate", "exact"))
                    if status != "active":  # retained again: it is current again
                        self._cache = None
                        vec.bump_epoch(c)
                        c.execute("UPDATE memories SET status='active', status_reason='', "
                                  "status_at=?, superseded_by=NULL WHERE id=?", (at, mid))
                        c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                                  "VALUES(?,?,?,?)", (mid, at, "active",
                                                      f"retained again (was {status})"))
                    out.append((mid, False))
            lex.add_docs(c, new_docs)
        return out

    def merge_into(self, mid: int, at: str, detail: str) -> None:
        with self._tx() as c:
            c.execute("UPDATE memories SET access_count=access_count+1 WHERE id=?", (mid,))
            c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) VALUES(?,?,?,?)",
                      (mid, at, "merge", detail))

    def set_status(self, mid: int, status: str, reason: str, at: str,
                   superseded_by: int | None = None) -> None:
        self._cache = None
        with self._tx() as c:
            vec.bump_epoch(c)
            c.execute("UPDATE memories SET status=?, status_reason=?, status_at=?, "
                      "superseded_by=? WHERE id=?", (status, reason, at, superseded_by, mid))
            c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) VALUES(?,?,?,?)",
                      (mid, at, status, reason))

    def set_vectors(self, items: list[tuple[int, bytes]], model: str) -> None:
        with self._tx() as c:
            q = ",".join("?" * len(items))
            if items and c.execute(f"SELECT 1 FROM memories WHERE vector IS NOT NULL AND id IN "
                                   f"({q}) LIMIT 1", [i for i, _ in items]).fetchone():
                vec.bump_epoch(c)  # vectors replaced (re-embedding): others read again
                self._cache = None
            seq = vec.next_seq(c)
            c.executemany("UPDATE memories SET vector=?, model=?, vec_seq=? WHERE id=?",
                          [(v, model, seq, i) for i, v in items])
        active = {r[0] for r in self.conn.execute(
            f"SELECT id FROM memories WHERE status='active' AND id IN "
            f"({','.join('?' * len(items))})", [i for i, _ in items])} if items else set()
        self._append([(i, v) for i, v in items if i in active], model)

    def touch(self, ids: list[int], ts: float) -> None:
        """Count a recall of each memory (access count, last accessed)."""
        if not ids:
            return
        with self._tx() as c:
            c.executemany("UPDATE memories SET access_count=access_count+1, "
                          "last_accessed_ts=? WHERE id=?", [(ts, i) for i in ids])

    def archive_many(self, ids: list[int], reason: str, at: str) -> None:
        self._cache = None
        with self._tx() as c:
            vec.bump_epoch(c)
            c.executemany("UPDATE memories SET status='archived', status_reason=?, status_at=? "
                          "WHERE id=?", [(reason, at, i) for i in ids])
            c.executemany("INSERT INTO memory_audit(memory_id, at, action, detail) "
                          "VALUES(?,?,?,?)", [(i, at, "archived", reason) for i in ids])

    def add_anchors(self, items: list[tuple[int, str, str, str]], at: str) -> int:
        """Add implicit anchors (memory id, path, symbol, hash), each with an audit row; an
        anchor the memory has already (same path and symbol) is skipped. Returns how many
        were added."""
        added = 0
        with self._tx() as c:
            for mid, path, sym, h in items:
                cur = c.execute(
                    "INSERT INTO memory_anchors(memory_id, path, symbol, ast_hash, implicit) "
                    "SELECT ?,?,?,?,1 WHERE NOT EXISTS (SELECT 1 FROM memory_anchors WHERE "
                    "memory_id=? AND path=? AND symbol=?)", (mid, path, sym, h, mid, path, sym))
                if cur.rowcount == 1:
                    added += 1
                    c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                              "VALUES(?,?,?,?)", (mid, at, "anchored", "implicit: " + path
                                                  + (f"::{sym}" if sym else "")))
        return added

    def ids_after(self, after: int, limit: int) -> list[int]:
        """Ids above ``after`` of active memories that are not conversation turns, in id
        order, at most ``limit``."""
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM memories WHERE id > ? AND status='active' AND "
            "kind != 'conversation' ORDER BY id LIMIT ?", (after, limit))]

    def mark_stale(self, items: list[tuple[int, str, str, str]], at: str) -> None:
        """(memory id, path, symbol, reason) anchors to flag stale."""
        with self._tx() as c:
            for mid, path, sym, reason in items:
                c.execute("UPDATE memory_anchors SET stale=1, reason=? WHERE memory_id=? AND "
                          "path=? AND symbol=?", (reason, mid, path, sym))
                c.execute("UPDATE memories SET stale=1, stale_reason=? WHERE id=?",
                          (reason, mid))
                c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                          "VALUES(?,?,?,?)", (mid, at, "stale", reason))

    # --- reads ------------------------------------------------------------------------
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

    def get(self, ids: list[int]) -> dict[int, Memory]:
        """The memories of ``ids`` that exist, with their anchors."""
        return memory_rows(self.conn, ids, _CHUNK)

    def adjacent(self, ids: list[int]) -> dict[int, list[int]]:
        """For conversation memories among ``ids``: the active memories of the same
        session stored right before and after each (id order is turn order)."""
        out: dict[int, list[int]] = {}
        if not ids:
            return out
        q = ",".join("?" * len(ids))
        for i, sess in self.conn.execute(
                f"SELECT id, session FROM memories WHERE id IN ({q}) AND "
                f"kind='conversation' AND session != ''", ids).fetchall():
            prev = self.conn.execute(
                "SELECT id FROM memories WHERE session=? AND id < ? AND session != '' "
                "AND status='active' ORDER BY id DESC LIMIT 1", (sess, i)).fetchone()
            nxt = self.conn.execute(
                "SELECT id FROM memories WHERE session=? AND id > ? AND session != '' "
                "AND status='active' ORDER BY id LIMIT 1", (sess, i)).fetchone()
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

    # --- the lexical index (hindsight.store.sqlite.lexical) -------------------------------
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

    def lex_add(self, docs: list[tuple[int, dict[str, int], dict[str, int]]]) -> int:
        with self._tx() as c:
            return lex.add_docs(c, docs)

    def lex_reset(self, version: str) -> bool:
        with self._tx() as c:
            r = c.execute("SELECT value FROM meta WHERE key='lexical_building'").fetchone()
            if r is not None and r[0] == version:
                return False
            lex.clear(c)
            c.execute("DELETE FROM meta WHERE key='lexical'")
            c.execute("INSERT OR REPLACE INTO meta VALUES('lexical_building', ?)", (version,))
        return True

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

    def nearest(self, model: str, vector: Any, k: int, floor: float = -1.0
                ) -> list[tuple[int, float]]:
        """Up to ``k`` active memories embedded with ``model`` nearest to the unit
        ``vector`` (float32, shape (dim,)): ``(id, cosine)`` best first, cosine ≥
        ``floor``. Exact below ``vectors.IVF_FROM`` vectors, through the IVF index above
        (recall against exact: README, bench/recall_scale.py)."""
        return self._vectors(model).search(vector, k, floor)

    def cosines(self, model: str, vector: Any, ids: list[int]) -> dict[int, float]:
        """Cosine of the unit ``vector`` with the ``model`` vectors of those of ``ids``
        that are active and embedded with it."""
        return self._vectors(model).cosines(vector, ids)

    def _append(self, items: list[tuple[int, bytes]], model: str) -> None:
        """Add freshly embedded vectors to the held vectors (or drop them: read again)."""
        import numpy as np

        c = self._cache
        if c is None or c.model != model:
            self._cache = None
            return
        for mid, blob in items:
            if not c.add(mid, np.frombuffer(blob, dtype=np.float32)):
                self._cache = None
                return
        self._cache = vec.merge_if_large(self.conn, self.path, c)

    def anchored(self, paths: list[str], symbols: list[tuple[str, str]]) -> list[tuple[int,
                                                                                      str, str]]:
        """(memory id, path, symbol) of active memories anchored to one of ``paths`` (any
        symbol in it) or ``symbols`` ((path, local) pairs)."""
        out: list[tuple[int, str, str]] = []
        for p in paths:
            out += [(r[0], r[1], r[2]) for r in self.conn.execute(
                "SELECT a.memory_id, a.path, a.symbol FROM memory_anchors a JOIN memories m "
                "ON m.id=a.memory_id WHERE a.path=? AND m.status='active'", (p,))]
        for p, s in symbols:
            out += [(r[0], r[1], r[2]) for r in self.conn.execute(
                "SELECT a.memory_id, a.path, a.symbol FROM memory_anchors a JOIN memories m "
                "ON m.id=a.memory_id WHERE a.path=? AND a.symbol=? AND m.status='active'",
                (p, s))]
        return out

    def anchors_all(self) -> list[tuple[int, str, str, str, int]]:
        return [tuple(r) for r in self.conn.execute(
            "SELECT a.memory_id, a.path, a.symbol, a.ast_hash, a.stale FROM memory_anchors a "
            "JOIN memories m ON m.id=a.memory_id WHERE m.status IN ('active','archived')")]

    def clear_stale(self, items: list[tuple[int, str, str]], at: str) -> None:
        """Anchors (memory id, path, symbol) that match the code again; a memory whose
        anchors are all fresh is no longer stale."""
        with self._tx() as c:
            for mid, path, sym in items:
                c.execute("UPDATE memory_anchors SET stale=0, reason='' WHERE memory_id=? AND "
                          "path=? AND symbol=?", (mid, path, sym))
                if not c.execute("SELECT 1 FROM memory_anchors WHERE memory_id=? AND stale=1",
                                 (mid,)).fetchone():
                    c.execute("UPDATE memories SET stale=0, stale_reason='' WHERE id=?", (mid,))
                c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                          "VALUES(?,?,?,?)", (mid, at, "fresh", f"{path}::{sym} matches again"))

    def repoint(self, mid: int, old: tuple[str, str], new: tuple[str, str], at: str,
                ast_hash: str | None = None) -> None:
        with self._tx() as c:
            c.execute("UPDATE memory_anchors SET path=?, symbol=?, stale=0, reason='', "
                      "ast_hash=coalesce(?, ast_hash) WHERE memory_id=? AND path=? AND "
                      "symbol=?", (*new, ast_hash, mid, *old))
            if not c.execute("SELECT 1 FROM memory_anchors WHERE memory_id=? AND stale=1",
                             (mid,)).fetchone():
                c.execute("UPDATE memories SET stale=0, stale_reason='' WHERE id=?", (mid,))
            c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) VALUES(?,?,?,?)",
                      (mid, at, "repointed", f"{old[0]}::{old[1]} -> {new[0]}::{new[1]}"))

    def list_memories(self, *, status: str = "active", kind: str | None = None,
                      stale: bool = False, source: str | None = None, limit: int = 100,
                      tag: str | None = None, visibility: str | None = None,
                      since: float | None = None, until: float | None = None,
                      anchor: tuple[str, str] | None = None, after_id: int = 0,
                      offset: int = 0, order: str = "occurred") -> list[Memory]:
        where: list[str] = ["1=1"]
        args: list[Any] = []
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

    def export_rows(self) -> Iterator[dict[str, Any]]:
        yield from rows_as_dicts(self.conn.execute("SELECT id FROM memories ORDER BY id"))

    def export_full(self, ids: list[int]) -> list[dict[str, Any]]:
        q = ",".join("?" * len(ids))
        rows = rows_as_dicts(self.conn.execute(f"SELECT * FROM memories WHERE id IN ({q})", ids))
        for r in rows:
            r.pop("vec_seq", None)  # bookkeeping of this file, not part of a memory
        return rows

    def import_rows(self, rows: list[dict[str, Any]], docs: list[LexDoc]) -> dict[str, int]:
        """Insert exported rows (see :mod:`hindsight.memory.transfer`) with their lexical
        documents in one transaction."""
        self._cache = None
        import base64

        cols = [r[1] for r in self.conn.execute("PRAGMA table_info(memories)")
                if r[1] not in ("id", "vec_seq")]
        idmap: dict[int, int] = {}
        imported = skipped = 0
        dims = {r[0]: len(r[1]) // 4 for r in self.conn.execute(
            "SELECT model, vector FROM memories WHERE vector IS NOT NULL GROUP BY model")}
        new_docs: list[tuple[int, dict[str, int], dict[str, int]]] = []
        with self._tx() as c:
            vec.bump_epoch(c)  # imported vectors carry no sequence stamp: others read again
            for d, doc in zip(rows, docs, strict=True):
                if d.get("_dim") and dims.setdefault(d.get("model", ""), d["_dim"]) != d["_dim"]:
                    d["vector"] = None  # another size for this model: re-embed instead
                    d["model"] = ""
                vals = []
                for k in cols:
                    v = d.get(k)
                    if k == "vector" and v is not None:
                        v = base64.b64decode(v)
                    elif k == "tags":
                        v = json.dumps(v or [], ensure_ascii=False)
                    elif k == "superseded_by":
                        v = None
                    vals.append(v)
                cur = c.execute(f"INSERT OR IGNORE INTO memories({','.join(cols)}) VALUES "
                                f"({','.join('?' * len(cols))})", vals)
                if cur.rowcount != 1:
                    skipped += 1
                    continue
                mid = int(cur.lastrowid or 0)
                if isinstance(d.get("id"), int):
                    idmap[d["id"]] = mid
                new_docs.append((mid, *doc))
                c.executemany("INSERT INTO memory_anchors(memory_id, path, symbol, ast_hash, "
                              "stale, reason, implicit) VALUES(?,?,?,?,?,?,?)",
                              [(mid, a["path"], a.get("symbol", ""), a.get("ast_hash", ""),
                                a.get("stale", 0), a.get("reason", ""),
                                int(bool(a.get("implicit", 0))))
                               for a in d.get("anchors", [])])
                c.executemany("INSERT INTO memory_audit(memory_id, at, action, detail) "
                              "VALUES(?,?,?,?)", [(mid, h["at"], h["action"], h["detail"])
                                                  for h in d.get("history", [])])
                imported += 1
            for d in rows:
                old, sup = d.get("id"), d.get("superseded_by")
                if old in idmap and sup in idmap:
                    c.execute("UPDATE memories SET superseded_by=? WHERE id=?",
                              (idmap[sup], idmap[old]))
            lex.add_docs(c, new_docs)
        return {"imported": imported, "skipped": skipped}

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
