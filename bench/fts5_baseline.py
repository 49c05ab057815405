"""The BM25 channel as it was before the lexical engine, for side-by-side runs: an SQLite
FTS5 table (``porter unicode61 remove_diacritics 2``) over identifier-split tokens
(``hindsight.memory.textindex.tokens``), ranked by FTS5's ``bm25()`` with column weights
(body 1, context 0.35), queries of quoted tokens joined by OR with function words dropped,
and in banks over 20,000 memories only the selective words (df ≤ 2 % of the memories, at
least the 3 rarest) — release 0.2's ``recall._bm25_query``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from hindsight.memory.textindex import tokens

STOP = frozenset("""a an the and or but if then so of to in on at by for with from as is
are was were be been being am do does did has have had having it its this that these those
i me my we our you your he him his she her they them their what which who whom whose when
where why how not no nor too very can will just should would could there here than about
into over under again also any all each both some such only own same s t don dont""".split())  # noqa: SIM905
PRUNE_FROM, PRUNE_DF, PRUNE_KEEP = 20_000, 0.02, 3


class Fts5Bm25:
    """An FTS5 index of ``(id, body, context)`` documents in its own database file."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA cache_size=-65536")
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(body, "
                          "context, tokenize = 'porter unicode61 remove_diacritics 2')")
        self.n = 0

    def add(self, docs: list[tuple[int, str, str]]) -> None:
        self.conn.execute("BEGIN")
        self.conn.executemany("INSERT INTO memory_fts(rowid, body, context) VALUES(?,?,?)",
                              [(i, " ".join(tokens(b)), " ".join(tokens(c)))
                               for i, b, c in docs])
        self.conn.execute("COMMIT")
        self.n += len(docs)

    def terms(self, text: str) -> list[str]:
        words = list(dict.fromkeys(tokens(text)))
        keep = [w for w in words if w not in STOP] or words
        terms = [f'"{w}"' for w in keep]
        if self.n <= PRUNE_FROM or len(terms) <= PRUNE_KEEP:
            return terms
        df = {t: self.conn.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?",
                                   (t,)).fetchone()[0] for t in terms}
        sel = [t for t in terms if df[t] <= PRUNE_DF * self.n]
        return sel if len(sel) >= PRUNE_KEEP else sorted(terms, key=lambda t: df[t])[:PRUNE_KEEP]

    def search(self, text: str, limit: int, context_weight: float) -> list[tuple[int, Any]]:
        terms = self.terms(text)
        if not terms:
            return []
        return self.conn.execute(
            "SELECT rowid, bm25(memory_fts, 1.0, ?) s FROM memory_fts WHERE memory_fts MATCH ? "
            "ORDER BY s LIMIT ?", (context_weight, " OR ".join(terms), limit)).fetchall()

    def close(self) -> None:
        self.conn.close()
