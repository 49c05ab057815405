"""recall: hybrid retrieval over a bank's memories.

Score channels, each a list of memory ids with a raw score (higher = better):

- ``bm25``: BM25F (:mod:`.lexical`) over identifier-aware, stemmed terms (CJK as bigrams
  and words, :mod:`.segment`), the memory text weighted 1 and its context (neighbouring
  turns) ``CONTEXT_WEIGHT``;
- ``prf``: the same, its query expanded by pseudo-relevance feedback (off by default:
  weight 0, it lowered LoCoMo dev recall@10 under z-score fusion, README);
- ``dense``: cosine between the query's and the memories' embeddings (exact, NumPy);
- ``recency``: activity (last access, access count) of the candidates.

Features, boosts for candidates (:mod:`hindsight.memory.features`): ``anchor`` (anchored to
the files/symbols named in the query or passed in, or to their call-graph neighbours),
``lesson`` (lessons and failures, so that they are not drowned by successes), ``adjacent``
(the turns right before and after the best hits in the same session: a conversation's
answer is often spread over neighbouring turns), ``speaker`` (the query names the agent
who wrote or said the memory; whatever its weight, the names are taken out of the text the
dense channel embeds, as memory texts do not carry their author), ``date`` (the query
names the memory's date), ``when`` (a "when" query, a memory with a time expression),
``question`` (the memory is a question: down).

Fusion (:mod:`hindsight.memory.fusion`) is linear: Σ_c w_c · z_c over the score channels'
per-query z-scores, plus the boosts, weights in ``WEIGHTS`` (in z units). They were chosen
on LoCoMo dev with leave-one-conversation-out checks (README, bench/recall_locomo.py). An
optional rerank (off by default: it lowered LoCoMo dev recall@10) re-scores the top
``RERANK_TOP`` by cosine with the query — the local embedding model is the default scorer,
as no cross-encoder with bundled weights exists on PyPI — within ``time_ms``.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from hindsight.errors import ProviderError
from hindsight.memory import features as ft
from hindsight.memory import lexical
from hindsight.memory.clock import now_ts, user_zone
from hindsight.memory.fusion import channel_floor, fuse, neighbour_bonus, rrf
from hindsight.models import ChannelRank, Hit, Memory, RecallResult
from hindsight.store.base import MemoryStore, Viewer

DENSE_MIN = 0.15  # below this cosine a memory is not a dense candidate (unrelated text
# scores 0-0.15 with MiniLM): without a floor every memory of a small bank is a candidate
WEIGHTS = {  # score channels: weight of the z-score; features: boost in z units
    "bm25": 1.0, "dense": 0.85, "prf": 0.0, "recency": 0.1,
    "anchor": 3.0, "lesson": 0.3, "adjacent": 0.3,
    "speaker": 4.0, "date": 3.0, "when": 1.5, "question": 1.5,
}
SCORED = ("bm25", "prf", "dense")  # the channels whose sum picks the turns for ``adjacent``
ANCHOR_LEVEL = (1.0, 0.8, 0.5)  # × weight: anchored to a named symbol, to a named file, to
# a call-graph neighbour of one
_CHANNEL_ORDER = ("bm25", "prf", "dense", "anchor", "recency", "lesson", "adjacent")
ADJACENT_FROM = 20  # the top memories by channel score whose neighbouring turns count
PRF_MAX_MEMORIES = 20_000  # a second full-text pass costs as much as the first; beyond
# this size it is skipped to keep recall fast (README: recall_scale)
CONTEXT_WEIGHT = 0.3  # dense 0.85 and 0.3 (were 1.0 and 0.35): LoCoMo dev recall@10 up or
# equal on each of its three conversations (README)
CANDIDATES = 100
RERANK_TOP = 30
RERANK_MIX = 0.5
QUERY_CACHE = 64  # query embeddings kept per process (:func:`query_vector`)
_QUERIES: dict[tuple[str, str], Any] = {}
_QUERIES_LOCK = threading.Lock()
DECAY = 0.05  # activity = confidence · exp(−DECAY · days since last access) + 0.1 · accesses


@dataclass
class Query:
    """A recall request. Times are Unix seconds; ``budget`` is in tokens (≈ 4 characters
    each); ``files``/``symbols`` anchor the query explicitly ((path, local) for symbols)."""

    text: str
    k: int = 10
    kinds: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    since: float | None = None
    until: float | None = None
    files: list[str] = field(default_factory=list)
    symbols: list[tuple[str, str]] = field(default_factory=list)
    scene: str = ""
    budget: int | None = None
    rerank: bool = False
    include_stale: bool = True
    weights: dict[str, float] | None = None
    context_weight: float = -1.0  # < 0: CONTEXT_WEIGHT
    agent: str = ""  # private memories are seen only by their owner
    viewer: Viewer | None = None  # who reads: candidates it may not see are left out in
    # the store's queries, before any channel is cut (None: local use, all are seen)
    dense_min: float = DENSE_MIN
    channels: tuple[str, ...] = ("bm25", "dense", "anchor", "recency", "lesson", "adjacent",
                                 "prf")
    fusion: str = "zscore"  # or "rrf": reciprocal-rank fusion of the channels, no features


def activity(last_ts: float, count: int, confidence: float, now: float) -> float:
    """confidence · exp(−0.05 · days since last access) + 0.1 · access count (the seed's
    numbers)."""
    days = max(0.0, (now - last_ts) / 86400)
    return confidence * math.exp(-DECAY * days) + 0.1 * count


def _rank(ids: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for i in ids:
        if i not in out:
            out[i] = len(out) + 1
    return out


def recall(store: MemoryStore, embedder: Any, q: Query, neighbours: Any = None,
           time_ms: float = 150.0, reranker: Any = None) -> RecallResult:
    """Run ``q``. ``neighbours(files, symbols)`` → (path, local) call-graph neighbours (or
    None). Returns a :class:`~hindsight.models.RecallResult`: hits best first, each with
    its fused score and per channel its rank and raw score (per feature rank 0 and its
    boost); candidates per channel. When the embedding model fails (ProviderError: a dead
    embedding server), the dense channel and the rerank are skipped and the result is
    ``partial`` with a ``note`` saying why; a storage failure raises StorageError."""
    t0 = time.perf_counter()
    now = now_ts()
    weights = {**WEIGHTS, **(q.weights or {})}
    text = " ".join(x for x in (q.text, q.scene) if x)
    lists: dict[str, list[int]] = {}
    raw: dict[str, dict[int, float]] = {}
    floors: dict[str, float] = {}
    names: set[str] = set()
    embed_text = text
    if text.strip() and ("dense" in q.channels or weights.get("speaker")):
        names, embed_text = ft.named_agents(text, store.agents())
    cw = CONTEXT_WEIGHT if q.context_weight < 0 else q.context_weight
    words = embedder is not None  # without a model (prompt hook): no segmenter dictionary
    who = q.viewer
    seen = None if who is None or who.admin else _visible(store, who)
    if "bm25" in q.channels:
        got = lexical.search(store, text, CANDIDATES, cw, words, seen)
        lists["bm25"] = [i for i, _ in got]
        raw["bm25"] = dict(got)
        floors["bm25"] = channel_floor(raw["bm25"], 0.0, CANDIDATES)
    if "prf" in q.channels:
        lists["prf"] = []
        if weights.get("prf") and lists.get("bm25") and \
                store.active_count() <= PRF_MAX_MEMORIES:
            got = lexical.prf(store, text, lists["bm25"], CANDIDATES, cw, words, seen)
            lists["prf"] = [i for i, _ in got]
            raw["prf"] = dict(got)
            floors["prf"] = channel_floor(raw["prf"], 0.0, CANDIDATES)
    qvec, skipped = None, ""
    if embedder is not None and text.strip() and ("dense" in q.channels or q.rerank) and \
            store.has_vectors(embedder.model_id):  # else no model call
        try:
            qvec = query_vector(embedder, embed_text)
        except ProviderError as e:  # a dead embedding server: recall by text, and say so
            skipped = f"dense channel and rerank skipped: the embedding model failed: {e}"
        if qvec is not None and "dense" in q.channels:  # viewer filtered in the store, before k
            got = store.nearest(embedder.model_id, qvec, CANDIDATES, q.dense_min, who)
            lists["dense"], raw["dense"] = [i for i, _ in got], dict(got)
            floors["dense"] = channel_floor(raw["dense"], q.dense_min, CANDIDATES)
    level: dict[int, int] = {}
    if "anchor" in q.channels:
        level = _anchor_channel(store, q, neighbours)
        lists["anchor"] = sorted(level, key=lambda m: (level[m], m))
    pool = list(dict.fromkeys(i for name in ("bm25", "dense", "anchor", "prf") for i in
                              lists.get(name, [])))
    rows = store.get(pool, who)
    pool = [i for i in pool if i in rows and _keep(rows[i], q)]
    keep = set(pool)
    for name in list(lists):
        lists[name] = [i for i in lists[name] if i in keep]
        if name in raw:
            raw[name] = {i: v for i, v in raw[name].items() if i in keep}
    scored = {n: raw[n] for n in SCORED if n in raw}
    base = fuse(scored, floors, weights, pool)
    bonus: dict[int, float] = {}
    if "adjacent" in q.channels and weights.get("adjacent") and base:
        best = sorted(base, key=lambda i: (-base[i], i))[:ADJACENT_FROM]
        adj = store.adjacent(best, who)
        more = store.get([n for near in adj.values() for n in near if n not in rows], who)
        rows.update({k: v for k, v in more.items() if _keep(v, q)})
        adj = {i: [n for n in near if n in rows] for i, near in adj.items()}
        bonus = neighbour_bonus(base, adj, weights["adjacent"])
        new = [n for n in bonus if n not in base]
        base.update(fuse(scored, floors, weights, new))
        pool += new
        lists["adjacent"] = list(bonus)
    fused = dict(base)
    if "recency" in q.channels and pool:
        raw["recency"] = {i: activity(rows[i].last_accessed_ts, rows[i].access_count,
                                      rows[i].confidence, now) for i in pool}
        lists["recency"] = sorted(pool, key=lambda i: (-raw["recency"][i], i))
        floors["recency"] = min(raw["recency"].values())
        for i, v in fuse({"recency": raw["recency"]}, floors, weights, pool).items():
            fused[i] += v
    boosts = _boosts(rows, pool, q, weights, text, names, level)
    boosts["adjacent"] = bonus
    if "lesson" in q.channels:
        lists["lesson"] = [i for i in sorted(base, key=lambda i: (-base[i], i))
                           if i in boosts.get("lesson", {})]
    for parts in boosts.values():
        for i, v in parts.items():
            fused[i] += v
    if q.fusion == "rrf":
        fused = {i: 0.0 for i in pool} | rrf(
            {n: lists[n] for n in (*SCORED, "recency") if n in lists}, weights)
        boosts = {}
    order = sorted(fused, key=lambda i: (-fused[i], i))
    reranked_by = ""
    if q.rerank and order and (time.perf_counter() - t0) * 1000 < time_ms:
        if reranker is not None:
            order = _cross_rerank(reranker, text, order, rows)
            reranked_by = reranker.model_id
        elif qvec is not None:
            order = _rerank(store, embedder, qvec, order, fused)
            reranked_by = embedder.model_id
    res = _result(order, rows, fused, lists, raw, boosts, q, t0, reranked_by)
    return replace(res, partial=True, note=skipped) if skipped else res


def _visible(store: MemoryStore, viewer: Viewer) -> lexical.Keep:
    """The filter of the lexical channels: the active memories among ids ``viewer`` may
    see (``MemoryStore.active_visible``, in the store's query)."""
    return lambda ids: store.active_visible(ids, viewer)


def query_vector(embedder: Any, text: str) -> Any:
    """The embedding of a query (float32, unit length), from a small per-process cache of
    the last ``QUERY_CACHE`` queries by (model id, text): an agent asks the same question
    again across tools and hooks, and embedding is the largest fixed cost of a recall."""
    key = (embedder.model_id, text)
    with _QUERIES_LOCK:  # a server's threads share the cache
        v = _QUERIES.pop(key, None)
    if v is None:
        v = embedder.embed_batch([text])[0]
    with _QUERIES_LOCK:
        while len(_QUERIES) >= QUERY_CACHE:
            _QUERIES.pop(next(iter(_QUERIES)))
        _QUERIES[key] = v
    return v


def _boosts(rows: dict[int, Memory], pool: list[int], q: Query, weights: dict[str, float],
            text: str, names: set[str], level: dict[int, int]) -> dict[str, dict[int, float]]:
    """Per feature, the boost (z units, negative for ``question``) of each pool memory it
    applies to; see the module doc and :mod:`hindsight.memory.features`."""
    w = weights
    out: dict[str, dict[int, float]] = {}
    if level and w.get("anchor"):
        out["anchor"] = {i: w["anchor"] * ANCHOR_LEVEL[level[i]] for i in pool if i in level}
    if "lesson" in q.channels and w.get("lesson"):
        out["lesson"] = {i: w["lesson"] for i in pool
                         if rows[i].kind == "lesson" or rows[i].outcome == "failure"}
    if names and w.get("speaker"):
        out["speaker"] = {i: w["speaker"] for i in pool if rows[i].agent in names}
    periods = ft.query_periods(text) if w.get("date") else []
    if periods:
        zone = user_zone()
        out["date"] = {i: w["date"] for i in pool
                       if ft.in_periods(rows[i].occurred_ts, periods, zone)}
    if w.get("when") and ft.asks_when(text):
        out["when"] = {i: w["when"] for i in pool if ft.has_time(rows[i].text)}
    if w.get("question"):
        out["question"] = {i: -w["question"] for i in pool if ft.is_question(rows[i].text)}
    return out


def _result(order: list[int], rows: dict[int, Memory], fused: dict[int, float],
            lists: dict[str, list[int]], raw: dict[str, dict[int, float]],
            boosts: dict[str, dict[int, float]], q: Query, t0: float, reranked_by: str
            ) -> RecallResult:
    """The hits of ``order`` within ``q.k`` and ``q.budget``, each explained."""
    ranks = {n: _rank(v) for n, v in lists.items()}
    hits: list[Hit] = []
    used = 0
    for i in order:
        if len(hits) >= q.k:
            break
        r = rows[i]
        cost = max(1, math.ceil(len(r.text) / 4))
        if q.budget is not None and used + cost > q.budget:
            continue
        used += cost
        why = {n: ChannelRank(ranks[n][i], round(raw.get(n, {}).get(i, 0.0), 6))
               for n in lists if i in ranks[n] and n not in boosts}
        why.update({n: ChannelRank(0, round(b[i], 6)) for n, b in boosts.items() if i in b})
        hits.append(Hit(r, round(fused[i], 6), why))
    named = [n for n in _CHANNEL_ORDER if n in lists] + [n for n in lists
                                                        if n not in _CHANNEL_ORDER]
    return RecallResult(tuple(hits), {n: len(lists[n]) for n in named}, reranked_by, used,
                        round((time.perf_counter() - t0) * 1000, 3))


def _rerank(store: MemoryStore, embedder: Any, qvec: Any, order: list[int], fused: dict[int, float]
            ) -> list[int]:
    """Re-score the top ``RERANK_TOP`` by a mix of their fused rank and cosine to the
    query (the default reranker: the local embedding model)."""
    top = order[:RERANK_TOP]
    got = store.cosines(embedder.model_id, qvec, top)
    cos = {i: got.get(i, 0.0) for i in top}
    n = len(top)
    score = {i: (1 - RERANK_MIX) * (1 - r / n) + RERANK_MIX * cos[i] for r, i in enumerate(top)}
    return sorted(top, key=lambda i: -score[i]) + order[RERANK_TOP:]


def _cross_rerank(reranker: Any, text: str, order: list[int], rows: dict[int, Any]
                  ) -> list[int]:
    """Order the top ``RERANK_TOP`` by the cross-encoder's score for (query, memory)."""
    top = order[:RERANK_TOP]
    scores = reranker.score(text, [rows[i].text for i in top])
    ranked = [i for _s, i in sorted(zip((-float(x) for x in scores), top, strict=True))]
    return ranked + order[RERANK_TOP:]


def _keep(r: Memory, q: Query) -> bool:
    if r.status != "active":
        return False
    if q.viewer is None and r.visibility == "private" and r.owner != q.agent:
        return False  # local use; with a viewer the store's queries applied its rule
    if q.kinds and r.kind not in q.kinds:
        return False
    if q.tags and not set(q.tags) <= set(r.tags):
        return False
    if q.since is not None and r.occurred_ts < q.since:
        return False
    if q.until is not None and r.occurred_ts >= q.until:
        return False
    return q.include_stale or not r.stale


def _anchor_channel(store: MemoryStore, q: Query, neighbours: Any) -> dict[int, int]:
    """{memory id: level} of the memories anchored to what the query names: 0 to a symbol,
    1 to a file (no symbol), 2 to a call-graph neighbour of one (the lowest level counts)."""
    files = list(q.files)
    syms = list(q.symbols)
    if neighbours is not None and (files or syms or q.text):
        extra_files, extra_syms, near = neighbours(q.text, files, syms)
        files += extra_files
        syms += extra_syms
    else:
        near = []
    direct = store.anchored(files, syms, q.viewer)
    nearby = store.anchored([], near, q.viewer) if near else []
    seen: dict[int, int] = {}
    for mid, _p, s in direct:
        seen[mid] = min(seen.get(mid, 9), 0 if s else 1)
    for mid, _p, _s in nearby:
        seen[mid] = min(seen.get(mid, 9), 2)
    return seen
