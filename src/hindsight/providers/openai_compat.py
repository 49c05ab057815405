"""Providers that talk to any OpenAI-compatible HTTP endpoint (a local server such as
llama.cpp or vLLM, or a hosted API): ``/embeddings`` and ``/chat/completions``.

Nothing is configured by default and nothing leaves the machine unless the user sets an
endpoint (settings, :mod:`hindsight.config.settings`): ``llmUrl`` (base URL ending in
``/v1``; ``HINDSIGHT_LLM_URL``), ``llmModel``, ``llmApiKey``, ``llmTimeoutS``; for
embeddings ``embedder`` = ``openai`` with ``embedUrl``, ``embedModel``, ``embedApiKey``.
Uses the standard library's HTTP client; every call has a timeout and raises
:class:`~hindsight.errors.ProviderError` on any failure.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from hindsight.errors import ProviderError

if TYPE_CHECKING:
    from hindsight.config.settings import Settings

EMBED_TIMEOUT_S = 30.0


def _post(url: str, body: dict[str, Any], key: str, timeout: float) -> dict[str, Any]:
    try:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {key}"}
                                                 if key else {})})
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - user's URL
            data = json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError, TimeoutError) as e:
        raise ProviderError(f"{url}: {e}") from e
    if not isinstance(data, dict):
        raise ProviderError(f"{url}: unexpected response")
    return data


class OpenAICompatEmbedder:
    """``embed_batch`` through ``POST {base}/embeddings``; vectors are L2-normalised."""

    def __init__(self, base: str, model: str, key: str = "",
                 timeout: float = EMBED_TIMEOUT_S, dim: int = 0) -> None:
        self.base, self.model, self.key, self.timeout = base.rstrip("/"), model, key, timeout
        self.model_id = f"openai:{model}"
        self.dim = dim

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatEmbedder:
        """The endpoint of settings ``embedUrl``, ``embedModel``, ``embedApiKey``. Raises
        ProviderError when the URL or the model is missing."""
        if not settings.embed_url or not settings.embed_model:
            raise ProviderError("embedder openai needs embedUrl and embedModel "
                                "(HINDSIGHT_EMBED_URL, HINDSIGHT_EMBED_MODEL)")
        return cls(settings.embed_url, settings.embed_model, settings.embed_api_key)

    @classmethod
    def from_env(cls) -> OpenAICompatEmbedder:
        """Deprecated: ``from_settings(load())`` (environment and config file, no harness
        layer); use :func:`hindsight.providers.factory.make_embedder`."""
        from hindsight.config.settings import load

        return cls.from_settings(load())

    def embed_batch(self, texts: list[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim or 1), dtype=np.float32)
        data = _post(f"{self.base}/embeddings", {"model": self.model, "input": texts},
                     self.key, self.timeout)
        try:
            rows = sorted(data["data"], key=lambda d: d.get("index", 0))
            mat = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as e:
            raise ProviderError(f"{self.base}/embeddings: malformed response ({e})") from e
        if mat.shape[0] != len(texts):
            raise ProviderError(f"{self.base}/embeddings: {mat.shape[0]} vectors for "
                                f"{len(texts)} texts")
        self.dim = mat.shape[1]
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return mat / norms


class OpenAICompatLLM:
    """``complete(system, user)`` through ``POST {base}/chat/completions``."""

    def __init__(self, base: str, model: str, key: str = "", timeout: float = 10.0) -> None:
        self.base, self.model, self.key, self.timeout = base.rstrip("/"), model, key, timeout

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatLLM | None:
        """The endpoint of settings ``llmUrl``, ``llmModel``, ``llmApiKey``,
        ``llmTimeoutS``; None when ``llmUrl`` is empty (no LLM)."""
        if not settings.llm_url:
            return None
        return cls(settings.llm_url, settings.llm_model, settings.llm_api_key,
                   settings.llm_timeout_s)

    @classmethod
    def from_env(cls) -> OpenAICompatLLM | None:
        """Deprecated: ``from_settings(load())`` (environment and config file, no harness
        layer); use :func:`hindsight.providers.factory.make_llm`."""
        from hindsight.config.settings import load

        return cls.from_settings(load())

    def complete(self, system: str, user: str, timeout: float | None = None) -> str:
        data = _post(f"{self.base}/chat/completions",
                     {"model": self.model, "temperature": 0,
                      "messages": [{"role": "system", "content": system},
                                   {"role": "user", "content": user}]},
                     self.key, timeout or self.timeout)
        try:
            return str(data["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as e:
            raise ProviderError(f"{self.base}/chat/completions: malformed response") from e
