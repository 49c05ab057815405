"""A local cross-encoder reranker (the reranker slot of recall): any ONNX cross-encoder
with a Hugging Face ``tokenizer.json``, named by settings ``rerankerModel`` and
``rerankerTokenizer`` (``HINDSIGHT_RERANKER_MODEL``, ``HINDSIGHT_RERANKER_TOKENIZER``). No reranker with bundled weights exists on PyPI
(docs/design.md, Offline by default), so there is no default: without these settings ``recall --rerank``
re-scores with the embedding model. The model takes ``input_ids``, ``attention_mask`` and
(if it has it) ``token_type_ids`` for (query, text) pairs and returns one logit per pair
(the first column when it returns several)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from hindsight.errors import ProviderError

if TYPE_CHECKING:
    from hindsight.config.settings import Settings

MAX_TOKENS = 512


class OnnxCrossEncoder:
    """``score(query, texts)`` → float32 array, higher = more relevant."""

    def __init__(self, model_path: str, tokenizer_path: str) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise ProviderError(f"the reranker needs onnxruntime and tokenizers: {e}") from e
        try:
            opts = ort.SessionOptions()
            opts.log_severity_level = 3
            self.session = ort.InferenceSession(model_path, opts,
                                                providers=["CPUExecutionProvider"])
            self.tok = Tokenizer.from_file(tokenizer_path)
        except Exception as e:  # noqa: BLE001 - onnxruntime/tokenizers raise their own types
            raise ProviderError(f"cannot load the reranker {model_path}: {e}") from e
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.model_id = f"onnx-cross-encoder:{os.path.basename(model_path)}"

    @classmethod
    def from_settings(cls, settings: Settings) -> OnnxCrossEncoder | None:
        """The model of settings ``rerankerModel`` and ``rerankerTokenizer``; None when
        ``rerankerModel`` is empty. Raises ProviderError when the tokenizer is missing or
        the model cannot be loaded."""
        if not settings.reranker_model:
            return None
        if not settings.reranker_tokenizer:
            raise ProviderError("rerankerModel needs rerankerTokenizer "
                                "(HINDSIGHT_RERANKER_MODEL needs HINDSIGHT_RERANKER_TOKENIZER)")
        return cls(settings.reranker_model, settings.reranker_tokenizer)

    @classmethod
    def from_env(cls) -> OnnxCrossEncoder | None:
        """Deprecated: ``from_settings(load())`` (environment and config file, no harness
        layer); use :func:`hindsight.providers.factory.make_reranker`."""
        from hindsight.config.settings import load

        return cls.from_settings(load())

    def score(self, query: str, texts: list[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros(0, dtype=np.float32)
        enc = self.tok.encode_batch([(query, t) for t in texts])
        feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
        try:
            out = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        except Exception as e:  # noqa: BLE001
            raise ProviderError(f"reranker failed: {e}") from e
        out = np.asarray(out, dtype=np.float32)
        return out[:, 0] if out.ndim == 2 else out.reshape(len(texts))
