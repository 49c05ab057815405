"""A deterministic hashing embedder (feature hashing of word unigrams and bigrams) for
fast tests and as a no-model fallback. It knows nothing about meaning: texts that share
words get close vectors, paraphrases do not."""

from __future__ import annotations

import re
from typing import Any

import xxhash

_WORD = re.compile(r"\w+", re.U)


class HashingEmbedder:
    """``dim``-dimensional signed feature hashing (Weinberger et al., ICML 2009)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hashing-{dim}"

    def embed_batch(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = _WORD.findall(t.lower())
            for feat in words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]:
                h = xxhash.xxh3_64_intdigest(feat.encode("utf-8", "surrogatepass"))
                out[i, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
