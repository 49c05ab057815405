"""The lexical channel: BM25 over the store's postings, scored here (NumPy, or plain Python for
small queries in a process that has not loaded NumPy: the same floats).

The store keeps integers only (term → document frequency, postings with per-field term
frequencies and lengths, collection totals: ``store.base.MemoryStore.lex_*``); terms come
from :mod:`hindsight.memory.segment`. So any backend that stores the same postings gives
bit-identical scores (docs/design.md, "Lexical engine").

Score of memory d for query terms Q: BM25 (Robertson & Zaragoza, "The Probabilistic
Relevance Framework: BM25 and Beyond", 2009) over two fields whose frequencies are weighted
before the saturation, as in BM25F (ibid. §3.5), with one length normalisation over the
memory's whole document (both fields), as SQLite FTS5's ``bm25()`` does::

    tf~(t, d) = tf_body(t, d) + w · tf_context(t, d)
    score(d)  = Σ_{t ∈ Q} idf(t) · tf~ · (k1 + 1) / (tf~ + k1 · (1 − b + b · len(d) / avglen))
    idf(t)    = max(1e-6, ln((N − df(t) + 0.5) / (df(t) + 0.5)))     (the RSJ weight, FTS5's floor)

len(d) = body + context length in terms; the context is the neighbouring turns and ``w``
recall's ``CONTEXT_WEIGHT``. On LoCoMo dev this variant beat per-field length
normalisation (recall@10 of the fused result 0.782 against 0.760) and b = 0.75 beat 0.5
and 0.3 (README). N and the average length count every indexed memory, any status (recall
filters statuses after).

Bounded cost: a query uses at most :data:`MAX_TERMS` terms (its rarest). When its terms'
postings add up to more than :data:`MAX_POSTINGS`, the rarest terms within that budget are
scored in full (at least one), the best :data:`REFINE` memories by that partial score are
kept, and the frequent terms add their part to those only — term-at-a-time scoring with a
candidate limit in the manner of MaxScore (Turtle & Flood 1995). Exact below the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hindsight.memory import segment
from hindsight.store.base import LexDoc, MemoryStore

Keep = Callable[[list[int]], set[int]]

K1 = 1.2  # Robertson & Zaragoza 2009 (k1 in 1.2-2.0); Lucene's default
B = 0.75  # length normalisation (R&Z 2009's usual value; beat 0.5 and 0.3 on LoCoMo dev)
IDF_FLOOR = 1e-6  # a term in more than half the memories still counts a little (FTS5)
MAX_TERMS = 64  # a query's rarest terms kept (a pasted log can hold hundreds)
MAX_POSTINGS = 250_000  # postings scored in full per query before frequent terms only refine
REFINE = 2_000  # candidates the frequent terms refine when the budget is exceeded
PY_POSTINGS = 20_000  # up to this many postings a query is scored without importing NumPy
# (importing it costs ≈ 0.1-0.5 s here, scoring 20,000 postings in Python ≈ 20-50 ms)
NP_LOADED_POSTINGS = 1_000  # once NumPy is loaded it is faster from about this many
FILL_CHUNK = 2_000  # memories indexed per transaction when (re)building the index
PRF_DOCS = 5
PRF_TERMS = 8


def document(row: dict[str, Any]) -> LexDoc:
    """The lexical document of a memory row (``text``, ``scene``, ``problem``,
    ``solution``, ``tags`` as a list or JSON string, ``context``): term counts of the body
    (text, scene, problem, solution and tags) and of the context."""
    tags = row.get("tags") or []
    if isinstance(tags, str):
        import json

        tags = json.loads(tags)
    body = " ".join(x for x in (row.get("text", ""), row.get("scene", ""),
                                row.get("problem", ""), row.get("solution", ""),
                                " ".join(tags)) if x)
    return segment.counts(body), segment.counts(row.get("context", "") or "")


def ensure(store: MemoryStore) -> None:
    """Build the lexical index where it is missing or was made by another analyzer
    version (a bank written before it existed is indexed on first use, in chunks of
    :data:`FILL_CHUNK` memories, each its own transaction, so an interrupted build goes
    on where it stopped). Costs two reads when the index is complete. Raises
    StorageError."""
    if store.get_meta("lexical") == segment.ANALYZER and not store.lex_behind():
        return
    if store.get_meta("lexical") != segment.ANALYZER:
        store.lex_reset(segment.ANALYZER)
    while rows := store.lex_missing(FILL_CHUNK):
        store.lex_add([(r["id"], *document(r)) for r in rows])
    store.set_meta({"lexical": segment.ANALYZER})


def _ensure_for_read(store: MemoryStore) -> None:
    """:func:`ensure` for a search: when the build cannot write (another process holds
    the bank past the busy timeout, a read-only file), search what is indexed."""
    import contextlib

    from hindsight.errors import StorageError

    with contextlib.suppress(StorageError):
        ensure(store)


def idf(n: int, df: int) -> float:
    """max(1e-6, ln((N − df + 0.5) / (df + 0.5))): the Robertson/Spärck Jones weight of a
    term held by ``df`` of ``n`` memories, floored as FTS5's ``bm25()`` floors it. A df
    above N (read a moment after N while another process wrote: PostgreSQL reads them in
    two statements) gets the floor instead of a math domain error."""
    return max(IDF_FLOOR, math.log((max(n - df, 0) + 0.5) / (df + 0.5)))


def document_frequency(store: MemoryStore, terms: list[str]) -> tuple[dict[str, int], int]:
    """``(df per term, N)``: how many indexed memories hold each term, and how many are
    indexed. Builds the index first if needed (:func:`ensure`)."""
    _ensure_for_read(store)
    return store.lex_df(terms), store.lex_stats()[0]


def search(store: MemoryStore, text: str, limit: int, context_weight: float,
           words: bool = True, keep: Keep | None = None) -> list[tuple[int, float]]:
    """The ``limit`` best memories (any status) for ``text`` by BM25F, as ``(id, score)``
    best first (ties by id); ``[]`` when the text has no term or nothing matches.
    ``words``: also the jieba words of Chinese text (see :mod:`.segment`). ``keep(ids)``
    → the ids allowed (a viewer's active memories, ``MemoryStore.active_visible``): the
    ranking is then walked in slices growing 4× until ``limit`` allowed ones are found,
    so hidden memories never take a place. Raises StorageError."""
    return search_terms(store, segment.query_terms(text, words=words), limit, context_weight,
                        keep)


def search_terms(store: MemoryStore, terms: list[str], limit: int, context_weight: float,
                 keep: Keep | None = None) -> list[tuple[int, float]]:
    """:func:`search` for analysed ``terms`` (distinct)."""
    if not terms or limit <= 0:
        return []
    _ensure_for_read(store)
    n, sum_body, sum_ctx = store.lex_stats()
    if n == 0:
        return []
    df = store.lex_df(terms)
    pos = {t: i for i, t in enumerate(terms)}
    terms = sorted((t for t in terms if df[t]), key=lambda t: (df[t], pos[t]))[:MAX_TERMS]
    if not terms:
        return []
    post = store.lex_postings(terms)
    avg_len = (sum_body + sum_ctx) / n or 1.0
    w = {t: idf(n, df[t]) for t in terms}
    import sys

    # the same floats either way (tested): NumPy when it is loaded, else for large queries
    if sum(df[t] for t in terms) <= (NP_LOADED_POSTINGS if "numpy" in sys.modules
                                     else PY_POSTINGS):
        return _search_python(terms, post, w, context_weight, avg_len, limit, keep)
    return _search_numpy(terms, post, df, w, context_weight, avg_len, limit, keep)


def _walk(best: Callable[[int], list[tuple[int, float]]], limit: int, total: int,
          keep: Keep | None) -> list[tuple[int, float]]:
    """``best(n)`` (the n best, best first) cut to ``limit`` after ``keep``: slices of
    ``limit``, 4·``limit``, … until enough are allowed or all ``total`` were seen."""
    take = limit
    while True:
        got = best(take)
        if keep is None:
            return got
        allowed = keep([i for i, _ in got])
        hits = [(i, s) for i, s in got if i in allowed]
        if len(hits) >= limit or take >= total:
            return hits[:limit]
        take *= 4


def _search_python(terms: list[str], post: dict[str, bytes], w: dict[str, float],
                   context_weight: float, avg_len: float, limit: int, keep: Keep | None = None
                   ) -> list[tuple[int, float]]:
    """Exact scores without NumPy (a hook process does not import it: ≈ 0.1-0.5 s here).
    The same IEEE operations in the same order as :func:`_term_scores` and the same
    per-memory sums in term order, so both paths give the same floats."""
    import struct

    from hindsight.store.base import POSTING_STRUCT

    k1p, one_b = K1 + 1.0, 1.0 - B
    acc: dict[int, float] = {}
    for t in terms:
        wt = w[t]
        for mid, tb, tc, lb, lc in struct.iter_unpack(POSTING_STRUCT, post[t]):
            tf = tb + context_weight * float(tc)
            s = wt * (tf * k1p) / (tf + K1 * (one_b + B * ((lb + float(lc)) / avg_len)))
            acc[mid] = acc.get(mid, 0.0) + s
    import heapq

    def best(n: int) -> list[tuple[int, float]]:
        top = heapq.nsmallest(n, ((-s, mid) for mid, s in acc.items() if s > 0))
        return [(mid, -s) for s, mid in top]
    return _walk(best, limit, len(acc), keep)


def _search_numpy(terms: list[str], post: dict[str, bytes], df: dict[str, int],
                  w: dict[str, float], context_weight: float, avg_len: float, limit: int,
                  keep: Keep | None = None) -> list[tuple[int, float]]:
    """Scores with NumPy, under the postings budget (module doc)."""
    import numpy as np

    from hindsight.store.base import POSTING

    dt = np.dtype(POSTING)
    arr = {t: np.frombuffer(post[t], dtype=dt) for t in terms}
    full: list[str] = []
    total = 0
    for t in terms:  # rarest first
        if full and total + df[t] > MAX_POSTINGS:
            break
        full.append(t)
        total += df[t]
    rest = terms[len(full):]
    ids = np.concatenate([arr[t]["id"] for t in full]).astype(np.int64)
    part = np.concatenate([_term_scores(arr[t], w[t], context_weight, avg_len) for t in full])
    acc = np.bincount(ids, weights=part)
    cand = np.flatnonzero(acc > 0)
    if rest and len(cand) > REFINE:  # the best REFINE by partial score
        cand = np.sort(cand[_best(cand, acc[cand], REFINE)])
    if rest:
        mask = np.zeros(len(acc), dtype=bool)
        mask[cand] = True
        for t in rest:
            p = arr[t]
            p = p[p["id"] < len(acc)]
            p = p[mask[p["id"]]]
            acc = acc + np.bincount(p["id"].astype(np.int64), minlength=len(acc),
                                    weights=_term_scores(p, w[t], context_weight, avg_len))
    scores = acc[cand]

    def best(n: int) -> list[tuple[int, float]]:
        return [(int(cand[i]), float(scores[i])) for i in _best(cand, scores, n)]
    return _walk(best, limit, len(cand), keep)


def _best(ids: Any, scores: Any, k: int) -> Any:
    """Positions of the ``k`` best scores, best first, ties by smaller id (a partition
    first, so the sort is over about ``k`` entries)."""
    import numpy as np

    sel = np.arange(len(scores))
    if len(scores) > k:
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        sel = np.flatnonzero(scores >= kth)
    return sel[np.lexsort((ids[sel], -scores[sel]))][:k]


def _term_scores(p: Any, w_idf: float, context_weight: float, avg_len: float) -> Any:
    """The score one term gives each memory of its postings ``p`` (module doc)."""
    tf = p["tf_body"] + context_weight * p["tf_context"].astype("float64")
    length = p["len_body"] + p["len_context"].astype("float64")
    return w_idf * (tf * (K1 + 1.0)) / (tf + K1 * ((1.0 - B) + B * (length / avg_len)))


def prf(store: MemoryStore, text: str, top: list[int], limit: int, context_weight: float,
        words: bool = True, keep: Keep | None = None) -> list[tuple[int, float]]:
    """Pseudo-relevance feedback (Rocchio 1971; RM3 in spirit): terms found in at least
    two of the best :data:`PRF_DOCS` hits ``top`` and not in the query (at most
    :data:`PRF_TERMS`, most frequent first; no numbers, none under three characters) expand
    it for a second :func:`search`. ``[]`` when no term qualifies."""
    from collections import Counter

    query = segment.query_terms(text, words=words)
    qset = set(query)
    rows = store.get(top[:PRF_DOCS])
    seen: Counter[str] = Counter()
    for r in rows.values():
        seen.update({t for t in segment.terms(r.text, words=words)
                     if t not in qset and len(t) > 2 and not t.isdigit()
                     and not segment.is_stop(t)})
    extra = [t for t, c in seen.most_common(PRF_TERMS) if c >= 2]
    if not extra:
        return []
    return search_terms(store, query + extra, limit, context_weight, keep)
