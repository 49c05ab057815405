"""SQLite implementation of :class:`hindsight.store.base.MemoryStore` (migration
``0003_memory``, ``0007_lexical``): memory rows with their vector (float32 blob), anchors,
the lexical index (:mod:`hindsight.store.sqlite.lexical`) and an audit log."""

from __future__ import annotations

import json
from typing import Any

from hindsight.store.base import LexDoc, PurgeRewrite
from hindsight.store.sqlite import lexical as lex
from hindsight.store.sqlite import vectors as vec
from hindsight.store.sqlite.memory_read import SqliteMemoryReads


class SqliteMemoryStore(SqliteMemoryReads):
    """Memory tables of one bank database (reads in :class:`SqliteMemoryReads`)."""

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
            floor = _purged_max(c)
            for row, anc, imp, (body, ctx) in zip(rows, anchors, extra, docs, strict=True):
                cols, vals = list(row), list(row.values())
                if floor:  # never hand out the id of a purged memory again
                    cols, vals = ["id", *cols], [_next_id(c, floor), *vals]
                cur = c.execute(f"INSERT OR IGNORE INTO memories({','.join(cols)}) VALUES "
                                f"({','.join('?' * len(cols))})", vals)
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
            floor = _purged_max(c)
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
                names = cols
                if floor:
                    names, vals = ["id", *cols], [_next_id(c, floor), *vals]
                cur = c.execute(f"INSERT OR IGNORE INTO memories({','.join(names)}) VALUES "
                                f"({','.join('?' * len(names))})", vals)
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


    def purge(self, mid: int, terms: list[str], at: str, detail: str,
              rewrites: list[PurgeRewrite] | None = None,
              fragments: list[str] | None = None) -> bool:
        """Delete memory ``mid`` for real (row, vector, anchors, audit rows, postings),
        rewrite its neighbours' contexts and scrub audit details (``MemoryStore.purge``)
        and keep one audit row ``purged``; with ``secure_delete`` on, so SQLite overwrites
        the freed bytes, and a WAL checkpoint after, so the old pages leave the WAL file;
        the vector snapshot beside the bank (``<bank>.db.vec``) is deleted. Its id is never
        handed out again (meta ``purged_max``). False: no such memory."""
        self.conn.execute("PRAGMA secure_delete=ON")
        try:
            with self._tx() as c:
                if c.execute("SELECT 1 FROM memories WHERE id=?", (mid,)).fetchone() is None:
                    return False
                self._cache = None
                vec.bump_epoch(c)
                lex.remove(c, mid, terms)
                for sql in ("DELETE FROM memory_anchors WHERE memory_id=?",
                            "DELETE FROM memory_audit WHERE memory_id=?",
                            "UPDATE memories SET superseded_by=NULL WHERE superseded_by=?",
                            "DELETE FROM memories WHERE id=?"):
                    c.execute(sql, (mid,))
                for nid, ctx, old_terms, (body, new_ctx) in rewrites or ():
                    c.execute("UPDATE memories SET context=? WHERE id=?", (ctx, nid))
                    lex.remove(c, nid, old_terms)
                    lex.add_docs(c, [(nid, body, new_ctx)])
                    c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                              "VALUES(?,?,?,?)", (nid, at, "scrubbed",
                                                  f"context: text of purged memory {mid}"))
                for frag in fragments or ():
                    c.execute("UPDATE memory_audit SET detail=replace(detail, ?1, '[purged]') "
                              "WHERE ?1 != '' AND instr(detail, ?1) > 0", (frag,))
                c.execute("INSERT INTO memory_audit(memory_id, at, action, detail) "
                          "VALUES(?,?,?,?)", (mid, at, "purged", detail))
                c.execute("INSERT INTO meta VALUES('purged_max', ?) ON CONFLICT(key) DO "
                          "UPDATE SET value = max(CAST(value AS INTEGER), "
                          "CAST(excluded.value AS INTEGER))", (str(mid),))
        finally:
            self.conn.execute("PRAGMA secure_delete=OFF")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if self.path:
            vec.remove_snapshot(self.path)
        return True


def _purged_max(c: Any) -> int:
    """The highest purged id (0: none was purged)."""
    r = c.execute("SELECT value FROM meta WHERE key='purged_max'").fetchone()
    return int(r[0]) if r else 0


def _next_id(c: Any, floor: int) -> int:
    """The next memory id above both the highest stored id and ``floor``."""
    top = c.execute("SELECT max(id) FROM memories").fetchone()[0] or 0
    return max(int(top), floor) + 1
