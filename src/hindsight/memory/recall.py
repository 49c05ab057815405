"""recall: hybrid retrieval over a bank's memories.

Channels, each a ranked list of memory ids:

- ``bm25``: BM25F (:mod:`.lexical`) over identifier-aware, stemmed terms (CJK as bigrams
  and words, :mod:`.segment`), the memory text weighted 1 and its context (neighbouring
  turns) ``CONTEXT_WEIGHT``; ``prf``: the same, its query expanded by pseudo-relevance
  feedback;
- ``dense``: cosine between the query's and the memories' embeddings (exact, NumPy);
- ``anchor``: memories anchored to files/symbols named in the query or passed in, and to
  their call-graph neighbours (callers and callees, depth 1);
- ``recency``: the other channels' candidates by activity (last access, access count);
- ``lesson``: the other channels' candidates that are lessons or failures, in their
  relevance order, so that lessons are not drowned by successes;
- ``adjacent``: the turns right before and after the best hits in the same session (a
  conversation's answer is often spread over neighbouring turns).

Fusion is weighted reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009,
k = 60): score = Σ_c w_c / (k + rank_c). The weights follow each channel's measured
strength (README, bench/recall_locomo.py): a weak channel with full weight pulls good hits
down. An optional rerank (off by default: on LoCoMo dev it lowered recall@10 from 0.774 to
0.765) re-scores the top ``RERANK_TOP`` by cosine with the query — the local embedding
model is the default scorer, as no cross-encoder with bundled weights exists on PyPI —
within ``time_ms``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from hindsight.memory import lexical
from hindsight.memory.clock import now_ts
from hindsight.models import ChannelRank, Hit, Memory, RecallResult
from hindsight.store.base import MemoryStore

RRF_K = 60
DENSE_MIN = 0.15  # below this cosine a memory is not a dense candidate (unrelated text
# scores 0-0.15 with MiniLM): without a floor every memory of a small bank is a candidate
WEIGHTS = {"bm25": 1.0, "dense": 0.6, "anchor": 1.0, "recency": 0.1, "lesson": 0.2,
           "adjacent": 0.2, "prf": 0.5}
ADJACENT_FROM = 20  # the top fused hits whose neighbouring turns are added
PRF_MAX_MEMORIES = 20_000  # a second full-text pass costs as much as the first; beyond
# this size it is skipped to keep recall fast (README: recall_scale)
CONTEXT_WEIGHT = 0.35
CANDIDATES = 100
RERANK_TOP = 30
RERANK_MIX = 0.5
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
    dense_min: float = DENSE_MIN
    channels: tuple[str, ...] = ("bm25", "dense", "anchor", "recency", "lesson", "adjacent",
                                 "prf")


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
    its fused score and per channel its rank and raw score; candidates per channel."""
    t0 = time.perf_counter()
    now = now_ts()
    weights = {**WEIGHTS, **(q.weights or {})}
    text = " ".join(x for x in (q.text, q.scene) if x)
    lists: dict[str, list[int]] = {}
    raw: dict[str, dict[int, float]] = {}
    cw = CONTEXT_WEIGHT if q.context_weight < 0 else q.context_weight
    words = embedder is not None  # without a model (prompt hook): no segmenter dictionary
    if "bm25" in q.channels:
        got = lexical.search(store, text, CANDIDATES, cw, words)
        lists["bm25"] = [i for i, _ in got]
        raw["bm25"] = dict(got)
    if "prf" in q.channels and lists.get("bm25") and store.active_count() <= PRF_MAX_MEMORIES:
        lists["prf"] = [i for i, _ in lexical.prf(store, text, lists["bm25"], CANDIDATES, cw,
                                                   words)]
    qvec = None
    if embedder is not None and text.strip() and ("dense" in q.channels or q.rerank):
        ids, mat = store.matrix(embedder.model_id)
        if len(ids):
            qvec = embedder.embed_batch([text])[0]
            if "dense" in q.channels:
                import numpy as np

                sims = mat @ qvec
                top = np.argpartition(-sims, min(CANDIDATES, len(sims) - 1))[:CANDIDATES] \
                    if len(sims) > CANDIDATES else np.arange(len(sims))
                top = top[np.argsort(-sims[top])]
                top = top[sims[top] >= q.dense_min]
                lists["dense"] = [int(ids[j]) for j in top]
                raw["dense"] = {int(ids[j]): float(sims[j]) for j in top}
    if "anchor" in q.channels:
        lists["anchor"] = _anchor_channel(store, q, neighbours)
    pool = list(dict.fromkeys(i for name in ("bm25", "dense", "anchor", "prf") for i in
                              lists.get(name, [])))
    rows = store.get(pool)
    pool = [i for i in pool if i in rows and _keep(rows[i], q)]
    keep = set(pool)
    for name in list(lists):
        lists[name] = [i for i in lists[name] if i in keep]
    if "recency" in q.channels:
        act = {i: activity(rows[i].last_accessed_ts, rows[i].access_count,
                           rows[i].confidence, now) for i in pool}
        lists["recency"] = sorted(pool, key=lambda i: -act[i])
        raw["recency"] = act
    base = _fuse({n: lists[n] for n in lists if n != "lesson"}, weights)
    if "lesson" in q.channels:
        lists["lesson"] = [i for i in sorted(base, key=lambda i: -base[i])
                           if rows[i].kind == "lesson" or rows[i].outcome == "failure"]
    if "adjacent" in q.channels and base:
        best = sorted(base, key=lambda i: -base[i])[:ADJACENT_FROM]
        adj = store.adjacent(best)
        extra = [n for i in best for n in adj.get(i, [])]
        more = store.get([n for n in extra if n not in rows])
        rows.update({k: v for k, v in more.items() if _keep(v, q)})
        lists["adjacent"] = [n for n in extra if n in rows]
    fused = _fuse(lists, weights)
    order = sorted(fused, key=lambda i: (-fused[i], i))
    reranked_by = ""
    if q.rerank and order and (time.perf_counter() - t0) * 1000 < time_ms:
        if reranker is not None:
            order = _cross_rerank(reranker, text, order, rows)
            reranked_by = reranker.model_id
        elif qvec is not None:
            order = _rerank(store, embedder, qvec, order, fused)
            reranked_by = embedder.model_id
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
        hits.append(Hit(r, round(fused[i], 6), {
            n: ChannelRank(ranks[n][i], round(raw.get(n, {}).get(i, 0.0), 6))
            for n in lists if i in ranks[n]}))
    return RecallResult(tuple(hits), {n: len(v) for n, v in lists.items()}, reranked_by, used,
                        round((time.perf_counter() - t0) * 1000, 3))


def _fuse(lists: dict[str, list[int]], weights: dict[str, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for name, ids in lists.items():
        w = weights.get(name, 0.0)
        if not w:
            continue
        for r, i in enumerate(dict.fromkeys(ids), 1):
            out[i] = out.get(i, 0.0) + w / (RRF_K + r)
    return out


def _rerank(store: MemoryStore, embedder: Any, qvec: Any, order: list[int], fused: dict[int, float]
            ) -> list[int]:
    """Re-score the top ``RERANK_TOP`` by a mix of their fused rank and cosine to the
    query (the default reranker: the local embedding model)."""
    ids, mat = store.matrix(embedder.model_id)
    pos = {int(i): j for j, i in enumerate(ids)}
    top = order[:RERANK_TOP]
    cos = {i: float(mat[pos[i]] @ qvec) if i in pos else 0.0 for i in top}
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
    if r.visibility == "private" and r.owner != q.agent:
        return False
    if q.kinds and r.kind not in q.kinds:
        return False
    if q.tags and not set(q.tags) <= set(r.tags):
        return False
    if q.since is not None and r.occurred_ts < q.since:
        return False
    if q.until is not None and r.occurred_ts >= q.until:
        return False
    return q.include_stale or not r.stale


def _anchor_channel(store: MemoryStore, q: Query, neighbours: Any) -> list[int]:
    files = list(q.files)
    syms = list(q.symbols)
    if neighbours is not None and (files or syms or q.text):
        extra_files, extra_syms, near = neighbours(q.text, files, syms)
        files += extra_files
        syms += extra_syms
    else:
        near = []
    direct = store.anchored(files, syms)
    nearby = store.anchored([], near) if near else []
    seen: dict[int, int] = {}
    for mid, _p, s in direct:
        seen[mid] = min(seen.get(mid, 9), 0 if s else 1)
    for mid, _p, _s in nearby:
        seen[mid] = min(seen.get(mid, 9), 2)
    return sorted(seen, key=lambda m: (seen[m], m))
