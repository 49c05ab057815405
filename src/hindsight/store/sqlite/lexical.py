"""The lexical index of the SQLite backend (migration ``0007_lexical``): integers only.

Tables: ``lex_terms`` (term, id, document frequency ``df``), ``lex_blocks`` (postings of a
term in blocks of :data:`BLOCK`, key = term id · 2^24 + block number, so one term's blocks
are one range of the table's primary key), ``lex_docs`` (field lengths per memory) and
``lex_stats`` (documents, total field lengths). A posting is 12 bytes, little-endian:
memory id (u32), term frequency in the body and the context (u16 each), body and context
length (u16 each; lengths and frequencies above 65,535 are stored as 65,535). Postings are
only appended, so a block is written by concatenation and never read back on write; only a
purge (a memory deleted for real, :func:`remove`) writes a term's blocks again. Scores are
computed by :mod:`hindsight.memory.lexical`.
"""

from __future__ import annotations

import sqlite3
import struct
from typing import Any

BLOCK = 128  # postings per block (Lucene's block size for postings lists)
KEY_SHIFT = 24
_POST = struct.Struct("<IHHHH")
_MAX16 = 65_535


def _clamp(n: int) -> int:
    return n if n < _MAX16 else _MAX16


def add_docs(c: sqlite3.Connection, docs: list[tuple[int, dict[str, int], dict[str, int]]]
             ) -> int:
    """Index ``(memory id, body term counts, context term counts)`` inside the caller's
    transaction; a memory already indexed is skipped. Returns how many were added."""
    per_term: dict[str, list[bytes]] = {}
    added = n_body = n_ctx = 0
    pack = _POST.pack
    for mid, body, ctx in docs:
        lb, lc = sum(body.values()), sum(ctx.values())
        cur = c.execute("INSERT OR IGNORE INTO lex_docs VALUES(?,?,?)", (mid, lb, lc))
        if cur.rowcount != 1:
            continue
        added += 1
        n_body += lb
        n_ctx += lc
        clb, clc = _clamp(lb), _clamp(lc)
        for t, f in body.items():
            per_term.setdefault(t, []).append(pack(mid, _clamp(f), _clamp(ctx.get(t, 0)),
                                                   clb, clc))
        for t, f in ctx.items():
            if t not in body:
                per_term.setdefault(t, []).append(pack(mid, 0, _clamp(f), clb, clc))
    if not added:
        return 0
    have: dict[str, tuple[int, int]] = {}
    names = list(per_term)
    for i in range(0, len(names), 500):
        part = names[i:i + 500]
        have.update({r[0]: (r[1], r[2]) for r in c.execute(
            f"SELECT term, id, df FROM lex_terms WHERE term IN ({','.join('?' * len(part))})",
            part)})
    for term, posts in per_term.items():
        if term in have:
            tid, df = have[term]
        else:
            tid = int(c.execute("INSERT INTO lex_terms(term, df) VALUES(?, 0)",
                                (term,)).lastrowid or 0)
            df = 0
        _append(c, tid, df, posts)
        c.execute("UPDATE lex_terms SET df=? WHERE id=?", (df + len(posts), tid))
    c.execute("UPDATE lex_stats SET docs=docs+?, len_body=len_body+?, "
              "len_context=len_context+? WHERE id=1", (added, n_body, n_ctx))
    return added


def _append(c: sqlite3.Connection, tid: int, df: int, posts: list[bytes]) -> None:
    """Append ``posts`` after the ``df`` postings term ``tid`` has: fill its last block,
    then new blocks."""
    pos = 0
    while pos < len(posts):
        at = df + pos
        room = BLOCK - at % BLOCK
        chunk = b"".join(posts[pos:pos + room])
        key = (tid << KEY_SHIFT) + at // BLOCK
        if at % BLOCK:
            c.execute("UPDATE lex_blocks SET data=CAST(data||? AS BLOB) WHERE key=?",
                      (chunk, key))
        else:
            c.execute("INSERT INTO lex_blocks(key, data) VALUES(?,?)", (key, chunk))
        pos += room


def stats(conn: sqlite3.Connection) -> tuple[int, int, int]:
    r = conn.execute("SELECT docs, len_body, len_context FROM lex_stats WHERE id=1").fetchone()
    return (int(r[0]), int(r[1]), int(r[2])) if r else (0, 0, 0)


def df(conn: sqlite3.Connection, terms: list[str]) -> dict[str, tuple[int, int]]:
    """term → (term id, df) for the ``terms`` that are indexed."""
    out: dict[str, tuple[int, int]] = {}
    uniq = list(dict.fromkeys(terms))
    for i in range(0, len(uniq), 500):
        part = uniq[i:i + 500]
        out.update({r[0]: (r[1], r[2]) for r in conn.execute(
            f"SELECT term, id, df FROM lex_terms WHERE term IN ({','.join('?' * len(part))})",
            part)})
    return out


def postings(conn: sqlite3.Connection, terms: list[str]) -> dict[str, bytes]:
    """term → its postings, packed as stored (12 bytes each, the module doc's layout, in
    the order they were added), for the ``terms`` that are indexed."""
    out: dict[str, bytes] = {}
    for term, (tid, _df) in df(conn, terms).items():
        lo = tid << KEY_SHIFT
        out[term] = b"".join(r[0] for r in conn.execute(
            "SELECT data FROM lex_blocks WHERE key >= ? AND key < ? ORDER BY key",
            (lo, lo + (1 << KEY_SHIFT))))
    return out


def remove(c: sqlite3.Connection, mid: int, terms: list[str]) -> None:
    """Take memory ``mid`` out of the index (a purge, inside the caller's transaction): its
    document's lengths leave the totals, its posting leaves each of ``terms`` (the term's
    blocks are written again without it) and a term nobody holds any more is deleted."""
    r = c.execute("SELECT len_body, len_context FROM lex_docs WHERE memory_id=?",
                  (mid,)).fetchone()
    if r is None:
        return
    c.execute("DELETE FROM lex_docs WHERE memory_id=?", (mid,))
    c.execute("UPDATE lex_stats SET docs=docs-1, len_body=len_body-?, "
              "len_context=len_context-? WHERE id=1", (r[0], r[1]))
    for _term, (tid, _df) in df(c, terms).items():
        lo = tid << KEY_SHIFT
        data = b"".join(x[0] for x in c.execute(
            "SELECT data FROM lex_blocks WHERE key >= ? AND key < ? ORDER BY key",
            (lo, lo + (1 << KEY_SHIFT))))
        keep = without(data, mid)
        if keep is None:
            continue
        c.execute("DELETE FROM lex_blocks WHERE key >= ? AND key < ?",
                  (lo, lo + (1 << KEY_SHIFT)))
        if keep:
            _append(c, tid, 0, keep)
            c.execute("UPDATE lex_terms SET df=? WHERE id=?", (len(keep), tid))
        else:
            c.execute("DELETE FROM lex_terms WHERE id=?", (tid,))


def without(data: bytes, mid: int) -> list[bytes] | None:
    """The postings of ``data`` (packed) other than memory ``mid``'s, in order; None when
    ``mid`` holds none of them."""
    posts = [data[i:i + _POST.size] for i in range(0, len(data), _POST.size)]
    keep = [p for p in posts if _POST.unpack(p)[0] != mid]
    return None if len(keep) == len(posts) else keep


def clear(c: sqlite3.Connection) -> None:
    """Empty the index (inside the caller's transaction)."""
    for t in ("lex_terms", "lex_blocks", "lex_docs"):
        c.execute(f"DELETE FROM {t}")
    c.execute("UPDATE lex_stats SET docs=0, len_body=0, len_context=0 WHERE id=1")


def missing(conn: sqlite3.Connection, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` memories (any status) that have no lexical document, in id order:
    ``{"id", "text", "scene", "problem", "solution", "tags", "context"}`` (tags a list)."""
    import json

    cur = conn.execute(
        "SELECT id, text, scene, problem, solution, tags, context FROM memories m WHERE NOT "
        "EXISTS (SELECT 1 FROM lex_docs d WHERE d.memory_id = m.id) ORDER BY id LIMIT ?",
        (limit,))
    return [{"id": r[0], "text": r[1], "scene": r[2], "problem": r[3], "solution": r[4],
             "tags": json.loads(r[5]), "context": r[6]} for r in cur.fetchall()]
