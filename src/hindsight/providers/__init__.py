"""Model providers: embedders (and later rerankers and LLMs) behind small contracts."""
