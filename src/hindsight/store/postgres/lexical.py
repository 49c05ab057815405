"""The lexical index on PostgreSQL: the same four tables and the same 12-byte postings as
SQLite's (:mod:`hindsight.store.sqlite.lexical`, docs/design.md "Lexical engine"), so
:mod:`hindsight.memory.lexical` computes bit-identical BM25 scores on both backends.

Blocks are ``bytea`` appended with ``||``; a write sends a fixed number of statements
whatever the number of terms (arrays through ``unnest``). Every function runs inside the
caller's transaction, which must hold the bank's lexical lock (:func:`lock`): postings are
appended at positions computed from ``df``, so two writers of one bank take turns.
"""

from __future__ import annotations

import json
from typing import Any

from hindsight.store.base import POSTING_STRUCT
from hindsight.store.sqlite.lexical import BLOCK, KEY_SHIFT, without

_MAX16 = 65_535


def _clamp(n: int) -> int:
    return n if n < _MAX16 else _MAX16


def lock(c: Any, s: str) -> None:
    """Take the bank's lexical write lock (the ``lex_stats`` row) until the transaction
    ends."""
    c.execute(f"SELECT 1 FROM {s}.lex_stats WHERE id = 1 FOR UPDATE")


def add_docs(c: Any, s: str, docs: list[tuple[int, dict[str, int], dict[str, int]]]) -> int:
    """Index ``(memory id, body term counts, context term counts)``; a memory already
    indexed is skipped. Returns how many were added."""
    import struct

    if not docs:
        return 0
    lens = {mid: (sum(b.values()), sum(x.values())) for mid, b, x in docs}
    added = {r[0] for r in c.execute(
        f"INSERT INTO {s}.lex_docs(memory_id, len_body, len_context) SELECT * FROM "
        "unnest(%s::bigint[], %s::int[], %s::int[]) ON CONFLICT DO NOTHING RETURNING memory_id",
        ([m for m in lens], [lens[m][0] for m in lens], [lens[m][1] for m in lens]))}
    if not added:
        return 0
    per_term: dict[str, list[bytes]] = {}
    pack = struct.Struct(POSTING_STRUCT).pack
    for mid, body, ctx in docs:
        if mid not in added:
            continue
        clb, clc = _clamp(lens[mid][0]), _clamp(lens[mid][1])
        for t, f in body.items():
            per_term.setdefault(t, []).append(pack(mid, _clamp(f), _clamp(ctx.get(t, 0)),
                                                   clb, clc))
        for t, f in ctx.items():
            if t not in body:
                per_term.setdefault(t, []).append(pack(mid, 0, _clamp(f), clb, clc))
    names = list(per_term)
    have = {r[0]: (int(r[1]), int(r[2])) for r in c.execute(
        f"SELECT term, id, df FROM {s}.lex_terms WHERE term = ANY(%s)", (names,))}
    new = [t for t in names if t not in have]
    if new:
        have.update({r[0]: (int(r[1]), 0) for r in c.execute(
            f"INSERT INTO {s}.lex_terms(term, df) SELECT unnest(%s::text[]), 0 "
            "RETURNING term, id", (new,))})
    write_postings(c, s, [(have[t][0], have[t][1], per_term[t]) for t in names])
    c.execute(f"UPDATE {s}.lex_stats SET docs = docs + %s, len_body = len_body + %s, "
              "len_context = len_context + %s WHERE id = 1",
              (len(added), sum(lens[m][0] for m in added), sum(lens[m][1] for m in added)))
    return len(added)


def write_postings(c: Any, s: str, items: list[tuple[int, int, list[bytes]]]) -> None:
    """Append postings: ``(term id, postings it has, new postings)`` each; fills the last
    block, then new blocks (as SQLite's ``_append``), and sets ``df``."""
    upd_k: list[int] = []
    upd_d: list[bytes] = []
    ins_k: list[int] = []
    ins_d: list[bytes] = []
    for tid, df, posts in items:
        pos = 0
        while pos < len(posts):
            at = df + pos
            room = BLOCK - at % BLOCK
            key = (tid << KEY_SHIFT) + at // BLOCK
            (upd_k if at % BLOCK else ins_k).append(key)
            (upd_d if at % BLOCK else ins_d).append(b"".join(posts[pos:pos + room]))
            pos += room
    if upd_k:
        c.execute(f"UPDATE {s}.lex_blocks b SET data = b.data || u.d FROM "
                  "unnest(%s::bigint[], %s::bytea[]) AS u(k, d) WHERE b.key = u.k",
                  (upd_k, upd_d))
    if ins_k:
        c.execute(f"INSERT INTO {s}.lex_blocks(key, data) SELECT * FROM "
                  "unnest(%s::bigint[], %s::bytea[])", (ins_k, ins_d))
    c.execute(f"UPDATE {s}.lex_terms t SET df = u.df FROM unnest(%s::bigint[], %s::int[]) "
              "AS u(id, df) WHERE t.id = u.id",
              ([t for t, _d, _p in items], [d + len(p) for _t, d, p in items]))


def stats(c: Any, s: str) -> tuple[int, int, int]:
    r = c.execute(f"SELECT docs, len_body, len_context FROM {s}.lex_stats WHERE id = 1"
                  ).fetchone()
    return (int(r[0]), int(r[1]), int(r[2])) if r else (0, 0, 0)


def df(c: Any, s: str, terms: list[str]) -> dict[str, tuple[int, int]]:
    """term → (term id, df) for the ``terms`` that are indexed."""
    return {r[0]: (int(r[1]), int(r[2])) for r in c.execute(
        f"SELECT term, id, df FROM {s}.lex_terms WHERE term = ANY(%s)",
        (list(dict.fromkeys(terms)),))}


def postings(c: Any, s: str, terms: list[str]) -> dict[str, bytes]:
    """term → its packed postings in the order they were added, in one query that names
    every block by its key (``df`` gives a term's block count), so the plan is a primary
    key lookup whatever the table's statistics say; ``bytea`` comes back in binary."""
    ids = df(c, s, terms)
    if not ids:
        return {}
    keys = [(tid << KEY_SHIFT) + n for tid, d in ids.values() for n in range(-(-d // BLOCK))]
    by_id = {tid: t for t, (tid, _df) in ids.items()}
    parts: dict[str, list[bytes]] = {t: [] for t in ids}
    cur = c.cursor(binary=True)
    for key, data in cur.execute(f"SELECT key, data FROM {s}.lex_blocks WHERE key = ANY(%s) "
                                 "ORDER BY key", (keys,)):
        parts[by_id[int(key) >> KEY_SHIFT]].append(bytes(data))
    return {t: b"".join(p) for t, p in parts.items()}


def remove(c: Any, s: str, mid: int, terms: list[str]) -> None:
    """Take memory ``mid`` out of the index (a purge): its lengths leave the totals, its
    posting leaves each of ``terms`` (blocks written again), an orphan term is deleted."""
    r = c.execute(f"DELETE FROM {s}.lex_docs WHERE memory_id = %s RETURNING len_body, "
                  "len_context", (mid,)).fetchone()
    if r is None:
        return
    c.execute(f"UPDATE {s}.lex_stats SET docs = docs - 1, len_body = len_body - %s, "
              "len_context = len_context - %s WHERE id = 1", (r[0], r[1]))
    for term, data in postings(c, s, terms).items():
        keep = without(data, mid)
        if keep is None:
            continue
        tid = df(c, s, [term])[term][0]
        c.execute(f"DELETE FROM {s}.lex_blocks WHERE key >= %s AND key < %s",
                  (tid << KEY_SHIFT, (tid + 1) << KEY_SHIFT))
        if keep:
            write_postings(c, s, [(tid, 0, keep)])
        else:
            c.execute(f"DELETE FROM {s}.lex_terms WHERE id = %s", (tid,))


def clear(c: Any, s: str) -> None:
    for t in ("lex_terms", "lex_blocks", "lex_docs"):
        c.execute(f"DELETE FROM {s}.{t}")
    c.execute(f"UPDATE {s}.lex_stats SET docs = 0, len_body = 0, len_context = 0 WHERE id = 1")


def missing(c: Any, s: str, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` memories without a lexical document, in id order (tags a list)."""
    return [{"id": r[0], "text": r[1], "scene": r[2], "problem": r[3], "solution": r[4],
             "tags": json.loads(r[5]), "context": r[6]} for r in c.execute(
        f"SELECT id, text, scene, problem, solution, tags, context FROM {s}.memories m "
        f"WHERE NOT EXISTS (SELECT 1 FROM {s}.lex_docs d WHERE d.memory_id = m.id) "
        "ORDER BY id LIMIT %s", (limit,))]
