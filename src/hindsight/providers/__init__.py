"""Model providers behind small contracts (:mod:`hindsight.providers.base`): embedders,
rerankers and LLMs, built from settings by :mod:`hindsight.providers.factory`."""

from hindsight.providers.factory import make_embedder, make_llm, make_prompt_embedder, make_reranker

__all__ = ["make_embedder", "make_llm", "make_prompt_embedder", "make_reranker"]
