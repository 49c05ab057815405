"""Fusion of recall channels: a linear sum of per-query standardised scores (z-scores).

Each score channel (``bm25``, ``prf``, ``dense``, ``recency``) gives raw scores for its
candidates, higher = better (``raw[channel][memory_id]``). Per query, each channel's scores
are standardised, z = (s − mean) / standard deviation, and the fused score is Σ_c w_c · z_c
plus the feature boosts (:mod:`hindsight.memory.features`), which are already in z units.
Unlike reciprocal-rank fusion this keeps score gaps: a BM25 hit far ahead of the rest stays
far ahead (on LoCoMo dev, plain RRF of BM25 and dense is *below* BM25 alone, README).

Missing scores: a memory a channel did not return scores the channel's *floor*, the value
the channel gives a memory that did not make its list — its ``floor`` argument (BM25: 0, no
query word; dense: the cosine floor) or, when the list was cut at its candidate limit, its
lowest score. The floor is standardised together with the candidates (one more
observation), so that being found at all counts, and a channel with a single candidate
still separates it from the rest (z = +1 against −1). When every value is equal (zero
variance: no candidate above the floor) the channel adds 0 to every memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


def zscores(raw: Mapping[int, float], floor: float) -> tuple[dict[int, float], float]:
    """``({memory id: z}, z of the floor)`` for one channel's candidate scores ``raw``
    (any real numbers, higher = better) and the score ``floor`` of a memory the channel did
    not return. Mean and population standard deviation are taken over the candidates and
    the floor together. Zero variance (also: no candidate) gives z = 0 throughout."""
    vals = [*raw.values(), floor]
    mean = math.fsum(vals) / len(vals)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / len(vals))
    if sd <= 1e-12 * max(1.0, abs(mean)):
        return dict.fromkeys(raw, 0.0), 0.0
    return {i: (s - mean) / sd for i, s in raw.items()}, (floor - mean) / sd


def channel_floor(raw: Mapping[int, float], floor: float, limit: int) -> float:
    """The floor of a channel whose list holds ``raw``: ``floor`` when the list is shorter
    than its ``limit`` (every memory above the floor was returned), else the lowest score
    returned (the memories cut off score at most that)."""
    if raw and len(raw) >= limit:
        return min(raw.values())
    return floor


def fuse(raw: Mapping[str, Mapping[int, float]], floors: Mapping[str, float],
         weights: Mapping[str, float], pool: Iterable[int]) -> dict[int, float]:
    """Σ_c w_c · z_c(i) for every memory id ``i`` of ``pool``: ``raw[c]`` are channel c's
    candidate scores, ``floors[c]`` its floor (see :func:`channel_floor`; 0 when absent),
    ``weights[c]`` its weight (a channel without weight, or weight 0, adds nothing). A pool
    memory missing from channel c gets c's floor z."""
    out = dict.fromkeys(pool, 0.0)
    for name, scores in raw.items():
        w = weights.get(name, 0.0)
        if not w:
            continue
        z, zf = zscores(scores, floors.get(name, 0.0))
        for i in out:
            out[i] += w * z.get(i, zf)
    return out


def neighbour_bonus(base: Mapping[int, float], adjacent: Mapping[int, list[int]],
                    weight: float) -> dict[int, float]:
    """The bonus of each neighbouring memory of the memories in ``adjacent`` (memory id →
    ids of its neighbours, e.g. the turns before and after it in its session): ``weight``
    times the best positive ``base`` score among the memories it neighbours (a neighbour of
    a below-average hit gets nothing)."""
    best: dict[int, float] = {}
    for i, near in adjacent.items():
        s = base.get(i, 0.0)
        if s <= 0:
            continue
        for n in near:
            if n != i and s > best.get(n, 0.0):
                best[n] = s
    return {n: weight * s for n, s in best.items()}


RRF_K = 60


def rrf(lists: Mapping[str, list[int]], weights: Mapping[str, float], k: int = RRF_K
        ) -> dict[int, float]:
    """Weighted reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): Σ_c w_c /
    (k + rank_c(i)), ranks 1-based in each list (a repeated id keeps its first rank). Kept
    for comparison (``Query.fusion = "rrf"``, the bench's ablation)."""
    out: dict[int, float] = {}
    for name, ids in lists.items():
        w = weights.get(name, 0.0)
        if not w:
            continue
        for r, i in enumerate(dict.fromkeys(ids), 1):
            out[i] = out.get(i, 0.0) + w / (k + r)
    return out
