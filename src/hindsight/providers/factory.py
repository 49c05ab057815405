"""Build providers from :class:`~hindsight.config.settings.Settings` (never from the
environment): the one place that maps settings to concrete classes. Concrete modules are
imported only when chosen (onnxruntime and numpy are slow to import)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hindsight.errors import ConfigError

if TYPE_CHECKING:
    from hindsight.config.settings import Settings
    from hindsight.providers.base import LLM, Embedder, Reranker


def make_embedder(settings: Settings) -> Embedder:
    """The embedder named by setting ``embedder``: ``minilm`` (local all-MiniLM-L6-v2,
    ONNX int8, ``threads``), ``hashing`` (feature hashing; tests, or no model) or ``openai``
    (``embedUrl``, ``embedModel``, ``embedApiKey``). Nothing is loaded or contacted yet.
    Raises ProviderError when ``openai`` lacks its URL or model."""
    name = settings.embedder
    if name == "hashing":
        from hindsight.providers.hashing import HashingEmbedder

        return HashingEmbedder()
    if name == "minilm":
        from hindsight.providers.local_minilm import MiniLMEmbedder

        return MiniLMEmbedder.from_settings(settings)
    if name == "openai":
        from hindsight.providers.openai_compat import OpenAICompatEmbedder

        return OpenAICompatEmbedder.from_settings(settings)
    raise ConfigError(f"embedder {name!r}: minilm, hashing or openai")  # Settings checks it


def make_prompt_embedder() -> Embedder:
    """The static embedder of the prompt gate (WordLlama from the package ``wordllama``,
    :mod:`hindsight.providers.static_wordllama`); not a setting, because the hook must
    never wait on loading a model. Nothing is loaded yet; its first use raises
    ProviderError when the package or its files are missing."""
    from hindsight.providers.static_wordllama import WordLlamaStatic

    return WordLlamaStatic()


def make_warm_embedder(settings: Settings, home_root: str) -> Any:
    """The prompt gate's client of the warm embedding process of the home at ``home_root``
    (:class:`hindsight.providers.warm.WarmEmbedder`), serving the bank's model; None unless
    setting ``embedder`` is ``minilm`` (a hashing embedder is cheap in the hook itself, a
    remote one is no faster warm) and setting ``warmEmbedder`` is on. Nothing is contacted yet; the first request that finds
    no process starts one (detached) and raises ProviderError."""
    if settings.embedder != "minilm" or not settings.warm_embedder:
        return None
    from hindsight.providers.local_minilm import MODEL_ID, MiniLMEmbedder
    from hindsight.providers.warm import WarmEmbedder

    return WarmEmbedder(home_root, MODEL_ID, MiniLMEmbedder.dim)


def make_llm(settings: Settings) -> LLM | None:
    """The OpenAI-compatible chat endpoint of settings ``llmUrl``, ``llmModel``,
    ``llmApiKey`` and ``llmTimeoutS``; None when ``llmUrl`` is empty. Nothing is contacted
    yet."""
    from hindsight.providers.openai_compat import OpenAICompatLLM

    return OpenAICompatLLM.from_settings(settings)


def make_reranker(settings: Settings) -> Reranker | None:
    """The local ONNX cross-encoder of settings ``rerankerModel`` and
    ``rerankerTokenizer``; None when ``rerankerModel`` is empty. Loads the model now:
    raises ProviderError when the tokenizer is not set or either file cannot be loaded."""
    if not settings.reranker_model:
        return None
    from hindsight.providers.local_reranker import OnnxCrossEncoder

    return OnnxCrossEncoder.from_settings(settings)
