"""An inverted-file (IVF) index over unit vectors, NumPy only: the approximate dense search
of the SQLite backend for large banks (:mod:`hindsight.store.sqlite.vectors`).

The vectors are clustered by spherical k-means (Lloyd's algorithm on a sample, centroids
renormalised after each step: Dhillon & Modha, "Concept decompositions for large sparse
text data using clustering", Machine Learning 42, 2001) into ``nlist`` ≈ √n lists (the
usual rule, e.g. FAISS's guidelines: between √n and 16·√n lists), and stored grouped by
list, so that probing a list is one contiguous slice of the matrix: a query scores the
centroids, then the rows of its ``nprobe`` nearest lists only, exactly (float32). Vectors
added later are assigned to the nearest existing centroid. No graph and no separate build
step: an index is arrays (centroids, list offsets) kept beside the matrix.

Recall against exact search is measured in ``bench/recall_scale.py`` (README).
"""

from __future__ import annotations

import math
from typing import Any

ITERATIONS = 8       # Lloyd steps on the sample
SAMPLE_PER_LIST = 64  # training rows per list (FAISS warns below 39)
PROBE_SHARE = 1 / 12  # lists probed per query, as a share of nlist (bench: recall@100)
PROBE_MIN = 8
CHUNK = 16384         # rows per block when assigning (bounds the (rows, nlist) scores)


def nlist_for(n: int) -> int:
    """Lists for ``n`` vectors: round(√n), at least 16."""
    return max(16, round(math.sqrt(n)))


def nprobe_for(nlist: int) -> int:
    """Lists probed per query: ⌈nlist · PROBE_SHARE⌉, at least PROBE_MIN, at most nlist."""
    return min(nlist, max(PROBE_MIN, math.ceil(nlist * PROBE_SHARE)))


def assign(mat: Any, centroids: Any) -> Any:
    """The nearest centroid (by inner product) of each row of ``mat``: int64 array (n,)."""
    import numpy as np

    out = np.empty(len(mat), dtype=np.int64)
    for i in range(0, len(mat), CHUNK):
        out[i:i + CHUNK] = np.argmax(mat[i:i + CHUNK] @ centroids.T, axis=1)
    return out


def train(mat: Any, nlist: int, seed: int = 0) -> Any:
    """Unit centroids (nlist, dim) float32 by spherical k-means on a sample of ``mat``
    (``SAMPLE_PER_LIST`` rows per list, k-means++ seeds, ``ITERATIONS`` steps; a list left
    empty keeps its centroid). Deterministic for a given ``seed``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(mat)
    pick = np.sort(rng.choice(n, size=min(n, nlist * SAMPLE_PER_LIST), replace=False))
    sample = np.ascontiguousarray(mat[pick], dtype=np.float32)
    cent = _seeds(sample, nlist, rng)
    for _ in range(ITERATIONS):
        labels = assign(sample, cent)
        order = np.argsort(labels, kind="stable")
        counts = np.bincount(labels, minlength=nlist)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        full = counts > 0
        sums = np.add.reduceat(sample[order], starts[full], axis=0)
        cent[full] = sums
        cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-12)
    return cent.astype(np.float32)


def _seeds(sample: Any, nlist: int, rng: Any) -> Any:
    """k-means++ seeding (Arthur & Vassilvitskii, SODA 2007) with cosine distance 1 − x·c:
    each next seed drawn with probability ∝ its squared distance to the nearest seed."""
    import numpy as np

    cent = np.empty((nlist, sample.shape[1]), dtype=np.float32)
    cent[0] = sample[rng.integers(len(sample))]
    d = np.maximum(1.0 - sample @ cent[0], 0.0) ** 2
    for j in range(1, nlist):
        total = float(d.sum())
        pick = int(rng.choice(len(sample), p=d / total)) if total > 0 \
            else int(rng.integers(len(sample)))
        cent[j] = sample[pick]
        d = np.minimum(d, np.maximum(1.0 - sample @ cent[j], 0.0) ** 2)
    return cent


def layout(labels: Any, nlist: int) -> tuple[Any, Any]:
    """(row order grouping rows by list, offsets (nlist + 1,)): list j holds the rows
    ``order[offsets[j]:offsets[j + 1]]``; within a list rows keep their order."""
    import numpy as np

    order = np.argsort(labels, kind="stable")
    offsets = np.zeros(nlist + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(labels, minlength=nlist))
    return order, offsets


def labels_of(offsets: Any) -> Any:
    """The list of each row of a matrix grouped by :func:`layout`."""
    import numpy as np

    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def search(mat: Any, centroids: Any, offsets: Any, q: Any, nprobe: int
           ) -> tuple[Any, Any]:
    """Rows of the ``nprobe`` lists nearest to ``q`` and their inner products with ``q``:
    (row indices int64, scores float32), unordered."""
    import numpy as np

    cs = centroids @ q
    probe = np.argpartition(-cs, nprobe - 1)[:nprobe] if nprobe < len(cs) \
        else np.arange(len(cs))
    rows, sims = [], []
    for j in np.sort(probe):
        a, b = int(offsets[j]), int(offsets[j + 1])
        if b > a:
            rows.append(np.arange(a, b))
            sims.append(mat[a:b] @ q)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    return np.concatenate(rows), np.concatenate(sims)
