"""PostgreSQL implementation of :class:`hindsight.store.base.MemoryStore`: one bank's schema
(:mod:`.schema`) on a pooled database (:mod:`.pool`); reads in :mod:`.memory_read`.

Writes are short transactions. Those that touch the lexical index take the bank's lexical
lock first (:func:`.lexical.lock`), so concurrent writers of one bank (several server
processes, several servers on one database) append postings in turn; a duplicate
fingerprint is caught by the table's UNIQUE constraint (``ON CONFLICT DO NOTHING``), so a
memory is never stored twice.
"""

from __future__ import annotations

import json
from typing import Any

from hindsight.store.base import LexDoc, PurgeRewrite
from hindsight.store.postgres import lexical as lex
from hindsight.store.postgres.db import no_nul
from hindsight.store.postgres.memory_read import COLS, PgMemoryReads

_WRITABLE = tuple(c for c in COLS if c != "id")


def _vec(blob: bytes) -> Any:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float32)


def _count(c: Any, schema: str, ids: list[int], ts: float | None) -> None:
    """One more access of each memory of ``ids`` (and its last access at ``ts``, epoch
    seconds, when given) in ``memory_access`` (migration 0006: the memory rows and their
    indexes are not rewritten). Rows are written in id order, so concurrent touches of the
    same memories (a server's parallel reads) wait for each other instead of deadlocking.
    A memory purged meanwhile (the server flushes counts a second later) gets no row."""
    ids = sorted(set(ids))
    c.execute(f"INSERT INTO {schema}.memory_access AS a(memory_id, access_count, "
              "last_accessed_ts) SELECT i, 1, %s FROM unnest(%s::bigint[]) AS i WHERE EXISTS "
              f"(SELECT 1 FROM {schema}.memories m WHERE m.id = i) ORDER BY i "
              "ON CONFLICT (memory_id) DO UPDATE SET access_count = "
              "least(a.access_count, 2147483646) + 1, "
              "last_accessed_ts = greatest(a.last_accessed_ts, excluded.last_accessed_ts)",
              (0.0 if ts is None else ts, ids))


class PgMemoryStore(PgMemoryReads):
    """The memory tables of one bank on PostgreSQL. :meth:`close` gives its pool back."""

    def __init__(self, pool: Any, schema: str, place: str, url: str = "",
                 local_meta: Any = None) -> None:
        super().__init__(pool, schema, place, local_meta)
        self.url = url

    def close(self) -> None:
        """Give back this store's use of the pool (the last user closes it)."""
        from hindsight.store.postgres.pool import release

        if self.url:
            release(self.url)
            self.url = ""

    # --- writes -----------------------------------------------------------------------
    def insert(self, rows: list[dict[str, Any]], anchors: list[list[tuple[str, str, str]]],
               docs: list[LexDoc], at: str,
               implicit: list[list[tuple[str, str, str]]] | None = None
               ) -> list[tuple[int, bool]]:
        out: list[tuple[int, bool]] = []
        new_docs: list[tuple[int, dict[str, int], dict[str, int]]] = []
        extra = implicit if implicit is not None else [[] for _ in rows]
        with self.tx() as c:
            lex.lock(c, self.s)
            got = self._insert_rows(c, rows)
            self._audit(c, [(m, at, "retain", "") for m in got if m is not None])
            fresh_anchors: list[tuple[Any, ...]] = []
            for row, anc, imp, (body, ctx), mid in zip(rows, anchors, extra, docs, got,
                                                       strict=True):
                if mid is not None:
                    new_docs.append((mid, _no_nul_doc(body), _no_nul_doc(ctx)))
                    fresh_anchors += [(mid, *a, 0) for a in anc] + [(mid, *a, 1) for a in imp]
                    out.append((mid, True))
                    continue
                mid, status = c.execute(self.q("SELECT id, status FROM {s}.memories WHERE "
                                               "fingerprint = %s"),
                                        (row["fingerprint"],)).fetchone()
                _count(c, self.s, [mid], None)
                self._audit(c, [(mid, at, "duplicate", "exact")])
                if status != "active":  # retained again: it is current again
                    c.execute(self.q("UPDATE {s}.memories SET status = 'active', "
                                     "status_reason = '', status_at = %s, superseded_by = NULL "
                                     "WHERE id = %s"), (at, mid))
                    self._audit(c, [(mid, at, "active", f"retained again (was {status})")])
                out.append((int(mid), False))
            self._anchors_many(c, fresh_anchors)
            lex.add_docs(c, self.s, new_docs)
        return out

    def _insert_rows(self, c: Any, rows: list[dict[str, Any]]) -> list[int | None]:
        """Insert memory rows in order (one pipelined batch); per row its new id, or None
        when its fingerprint exists (an earlier row of the batch included)."""
        if not rows:
            return []
        cols = list(rows[0])
        cur = c.cursor()
        cur.executemany(self.q(
            f"INSERT INTO {{s}}.memories({', '.join(cols)}) VALUES "
            f"({', '.join(['%s'] * len(cols))}) ON CONFLICT (fingerprint) DO NOTHING "
            "RETURNING id"), [no_nul([_tags(r[k]) if k == "tags" else r[k] for k in cols])
                              for r in rows], returning=True)
        got: list[int | None] = []
        while True:
            r = cur.fetchone()
            got.append(int(r[0]) if r is not None else None)
            if not cur.nextset():
                break
        return got

    def _anchors_many(self, c: Any, items: list[tuple[Any, ...]]) -> None:
        """Insert anchors (memory id, path, symbol, hash, implicit), in order."""
        if items:
            c.cursor().executemany(self.q(
                "INSERT INTO {s}.memory_anchors(memory_id, path, symbol, ast_hash, implicit) "
                "VALUES(%s, %s, %s, %s, %s)"), [no_nul(list(a)) for a in items])

    def _audit(self, c: Any, items: list[tuple[int, str, str, str]]) -> None:
        if items:
            c.cursor().executemany(self.q(
                "INSERT INTO {s}.memory_audit(memory_id, at, action, detail) "
                "VALUES(%s, %s, %s, %s)"), [no_nul(list(x)) for x in items])

    def merge_into(self, mid: int, at: str, detail: str) -> None:
        with self.tx() as c:
            _count(c, self.s, [mid], None)
            self._audit(c, [(mid, at, "merge", detail)])

    def set_status(self, mid: int, status: str, reason: str, at: str,
                   superseded_by: int | None = None) -> None:
        with self.tx() as c:
            c.execute(self.q("UPDATE {s}.memories SET status = %s, status_reason = %s, "
                             "status_at = %s, superseded_by = %s WHERE id = %s"),
                      no_nul([status, reason, at, superseded_by, mid]))
            self._audit(c, [(mid, at, status, reason)])

    def archive_many(self, ids: list[int], reason: str, at: str) -> None:
        with self.tx() as c:
            c.execute(self.q("UPDATE {s}.memories SET status = 'archived', status_reason = %s, "
                             "status_at = %s WHERE id = ANY(%s)"), no_nul([reason, at, ids]))
            self._audit(c, [(i, at, "archived", reason) for i in ids])

    def set_vectors(self, items: list[tuple[int, bytes]], model: str) -> None:
        if not items:
            return
        with self.tx() as c:
            c.cursor().executemany(self.q(
                "UPDATE {s}.memories SET embedding = %s, dims = %s, model = %s WHERE id = %s"),
                [(_vec(v), len(v) // 4, no_nul(model), i) for i, v in items])

    def touch(self, ids: list[int], ts: float) -> None:
        if ids:
            with self.tx(changes_facts=False) as c:
                _count(c, self.s, ids, ts)

    def add_anchors(self, items: list[tuple[int, str, str, str]], at: str) -> int:
        added = 0
        with self.tx() as c:
            for mid, path, sym, h in items:
                got = c.execute(self.q(
                    "INSERT INTO {s}.memory_anchors(memory_id, path, symbol, ast_hash, implicit) "
                    "SELECT %s, %s, %s, %s, 1 WHERE NOT EXISTS (SELECT 1 FROM "
                    "{s}.memory_anchors WHERE memory_id = %s AND path = %s AND symbol = %s) "
                    "RETURNING id"), no_nul([mid, path, sym, h, mid, path, sym])).fetchone()
                if got is not None:
                    added += 1
                    self._audit(c, [(mid, at, "anchored", "implicit: " + path
                                     + (f"::{sym}" if sym else ""))])
        return added

    def mark_stale(self, items: list[tuple[int, str, str, str]], at: str) -> None:
        with self.tx() as c:
            for mid, path, sym, reason in items:
                c.execute(self.q("UPDATE {s}.memory_anchors SET stale = 1, reason = %s WHERE "
                                 "memory_id = %s AND path = %s AND symbol = %s"),
                          no_nul([reason, mid, path, sym]))
                c.execute(self.q("UPDATE {s}.memories SET stale = 1, stale_reason = %s WHERE "
                                 "id = %s"), no_nul([reason, mid]))
                self._audit(c, [(mid, at, "stale", reason)])

    def _fresh_if_clear(self, c: Any, mid: int) -> None:
        if c.execute(self.q("SELECT 1 FROM {s}.memory_anchors WHERE memory_id = %s AND "
                            "stale = 1"), (mid,)).fetchone() is None:
            c.execute(self.q("UPDATE {s}.memories SET stale = 0, stale_reason = '' WHERE "
                             "id = %s"), (mid,))

    def clear_stale(self, items: list[tuple[int, str, str]], at: str) -> None:
        with self.tx() as c:
            for mid, path, sym in items:
                c.execute(self.q("UPDATE {s}.memory_anchors SET stale = 0, reason = '' WHERE "
                                 "memory_id = %s AND path = %s AND symbol = %s"),
                          no_nul([mid, path, sym]))
                self._fresh_if_clear(c, mid)
                self._audit(c, [(mid, at, "fresh", f"{path}::{sym} matches again")])

    def repoint(self, mid: int, old: tuple[str, str], new: tuple[str, str], at: str,
                ast_hash: str | None = None) -> None:
        with self.tx() as c:
            c.execute(self.q("UPDATE {s}.memory_anchors SET path = %s, symbol = %s, stale = 0, "
                             "reason = '', ast_hash = coalesce(%s, ast_hash) WHERE "
                             "memory_id = %s AND path = %s AND symbol = %s"),
                      no_nul([*new, ast_hash, mid, *old]))
            self._fresh_if_clear(c, mid)
            self._audit(c, [(mid, at, "repointed",
                             f"{old[0]}::{old[1]} -> {new[0]}::{new[1]}")])

    # --- the lexical index ------------------------------------------------------------
    def lex_add(self, docs: list[tuple[int, dict[str, int], dict[str, int]]]) -> int:
        with self.tx() as c:
            lex.lock(c, self.s)
            return lex.add_docs(c, self.s, [(m, _no_nul_doc(b), _no_nul_doc(x))
                                            for m, b, x in docs])

    def lex_reset(self, version: str) -> bool:
        with self.tx() as c:
            lex.lock(c, self.s)
            r = c.execute(self.q("SELECT value FROM {s}.meta WHERE key = 'lexical_building'")
                          ).fetchone()
            if r is not None and r[0] == version:
                return False
            lex.clear(c, self.s)
            c.execute(self.q("DELETE FROM {s}.meta WHERE key = 'lexical'"))
            c.execute(self.q("INSERT INTO {s}.meta VALUES('lexical_building', %s) ON CONFLICT "
                             "(key) DO UPDATE SET value = excluded.value"), (version,))
        return True

    # --- import and purge ---------------------------------------------------------------
    def import_rows(self, rows: list[dict[str, Any]], docs: list[LexDoc]) -> dict[str, int]:
        import base64

        idmap: dict[int, int] = {}
        imported = skipped = 0
        dims = {r[0]: int(r[1]) for r in self.all(
            "SELECT DISTINCT ON (model) model, dims FROM {s}.memories WHERE dims > 0")}
        new_docs: list[tuple[int, dict[str, int], dict[str, int]]] = []
        cols = [*_WRITABLE, "embedding", "dims"]
        with self.tx() as c:
            lex.lock(c, self.s)
            for d, (body, ctx) in zip(rows, docs, strict=True):
                if d.get("_dim") and dims.setdefault(d.get("model", ""), d["_dim"]) != d["_dim"]:
                    d["vector"], d["model"] = None, ""  # another size for this model: re-embed
                blob = base64.b64decode(d["vector"]) if d.get("vector") is not None else None
                vals = [_tags(json.dumps(d.get(k) or [], ensure_ascii=False)) if k == "tags" else
                        None if k == "superseded_by" else d.get(k) for k in _WRITABLE]
                got = c.execute(self.q(
                    f"INSERT INTO {{s}}.memories({', '.join(cols)}) VALUES "
                    f"({', '.join(['%s'] * len(cols))}) ON CONFLICT (fingerprint) DO NOTHING "
                    "RETURNING id"), [*no_nul(vals), None if blob is None else _vec(blob),
                                      len(blob) // 4 if blob else 0]).fetchone()
                if got is None:
                    skipped += 1
                    continue
                mid = int(got[0])
                if isinstance(d.get("id"), int):
                    idmap[d["id"]] = mid
                new_docs.append((mid, _no_nul_doc(body), _no_nul_doc(ctx)))
                c.cursor().executemany(self.q(
                    "INSERT INTO {s}.memory_anchors(memory_id, path, symbol, ast_hash, stale, "
                    "reason, implicit) VALUES(%s, %s, %s, %s, %s, %s, %s)"),
                    [no_nul([mid, a["path"], a.get("symbol", ""), a.get("ast_hash", ""),
                             a.get("stale", 0), a.get("reason", ""),
                             int(bool(a.get("implicit", 0)))]) for a in d.get("anchors", [])])
                self._audit(c, [(mid, h["at"], h["action"], h["detail"])
                                for h in d.get("history", [])])
                imported += 1
            for d in rows:
                old, sup = d.get("id"), d.get("superseded_by")
                if old in idmap and sup in idmap:
                    c.execute(self.q("UPDATE {s}.memories SET superseded_by = %s WHERE id = %s"),
                              (idmap[sup], idmap[old]))
            lex.add_docs(c, self.s, new_docs)
        return {"imported": imported, "skipped": skipped}

    def purge(self, mid: int, terms: list[str], at: str, detail: str,
              rewrites: list[PurgeRewrite] | None = None,
              fragments: list[str] | None = None) -> bool:
        """Delete memory ``mid`` for real, rewrite its neighbours' contexts and scrub audit
        details (``MemoryStore.purge``), keeping one audit row ``purged``. PostgreSQL
        frees the old row versions at its next vacuum of the table (autovacuum); a
        ``VACUUM FULL`` rewrites the files at once (README)."""
        with self.tx() as c:
            lex.lock(c, self.s)
            if c.execute(self.q("SELECT 1 FROM {s}.memories WHERE id = %s"),
                         (mid,)).fetchone() is None:
                return False
            lex.remove(c, self.s, mid, no_nul(terms))
            for sql in ("DELETE FROM {s}.memory_anchors WHERE memory_id = %s",
                        "DELETE FROM {s}.memory_access WHERE memory_id = %s",
                        "DELETE FROM {s}.memory_audit WHERE memory_id = %s",
                        "UPDATE {s}.memories SET superseded_by = NULL WHERE superseded_by = %s",
                        "DELETE FROM {s}.memories WHERE id = %s"):
                c.execute(self.q(sql), (mid,))
            for nid, ctx, old_terms, (body, new_ctx) in rewrites or ():
                c.execute(self.q("UPDATE {s}.memories SET context = %s WHERE id = %s"),
                          (no_nul(ctx), nid))
                lex.remove(c, self.s, nid, no_nul(old_terms))
                lex.add_docs(c, self.s, [(nid, _no_nul_doc(body), _no_nul_doc(new_ctx))])
                self._audit(c, [(nid, at, "scrubbed", f"context: text of purged memory {mid}")])
            for frag in (f for f in no_nul(list(fragments or ())) if f):
                c.execute(self.q("UPDATE {s}.memory_audit SET detail = replace(detail, %s, "
                                 "'[purged]') WHERE strpos(detail, %s) > 0"), (frag, frag))
            self._audit(c, [(mid, at, "purged", detail)])
        return True


def _tags(text: str) -> str:
    """A JSON list of tags as PostgreSQL can hold it (jsonb has no ``\\u0000``): NUL in a
    tag becomes U+FFFD, as in every other stored string."""
    return json.dumps(no_nul(json.loads(text)), ensure_ascii=False) if "\\u0000" in text \
        else text


def _no_nul_doc(counts: dict[str, int]) -> dict[str, int]:
    """A term-count map with NUL-free terms (terms rarely hold one: the analyzer splits on
    it)."""
    if not any("\x00" in t for t in counts):
        return counts
    out: dict[str, int] = {}
    for t, n in counts.items():
        out[no_nul(t)] = out.get(no_nul(t), 0) + n
    return out
