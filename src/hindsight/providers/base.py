"""Provider contracts. Memory code sees only these; :mod:`hindsight.providers.factory`
picks the implementation from :class:`~hindsight.config.settings.Settings`.

Every provider raises :class:`hindsight.errors.ProviderError` (with a one-line reason) when
its model or endpoint cannot be used, and nothing else for that reason; callers decide
whether that is fatal (an embedder) or a fallback (the LLM, the reranker).
"""

from __future__ import annotations

from typing import Any, Protocol


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of ``dim`` numbers.

    ``model_id`` names the model (recorded by the bank with every vector, so that a model
    change is detected and ``hindsight reembed`` can migrate). ``embed_batch`` returns a
    NumPy array of shape ``(len(texts), dim)``, dtype float32, rows of unit length (a text
    with no features gives a zero row); ``[]`` gives shape ``(0, dim)``. ``dim`` may be 0
    until the first call for an endpoint that does not say its dimension in advance.
    Raises :class:`hindsight.errors.ProviderError` when the model cannot run.
    """

    model_id: str
    dim: int

    def embed_batch(self, texts: list[str]) -> Any: ...


class Reranker(Protocol):
    """Re-scores candidate texts against a query (a cross-encoder).

    ``score(query, texts)`` returns a NumPy float32 array of shape ``(len(texts),)``, one
    relevance score per text in the given order; higher is more relevant, the scale is the
    model's own (logits; compare scores of one call only). ``model_id`` is reported as
    ``reranked_by``. Raises :class:`hindsight.errors.ProviderError` when the model cannot be
    loaded or run.
    """

    model_id: str

    def score(self, query: str, texts: list[str]) -> Any: ...


class LLM(Protocol):
    """A chat model: ``complete(system, user, timeout)`` returns the assistant's text for
    one system and one user message (temperature 0).

    ``timeout`` is in seconds for the whole call (``None``: the provider's own
    ``timeout``, also in seconds, which callers read to pass a budget on). Raises
    :class:`hindsight.errors.ProviderError` on any failure: unreachable endpoint, HTTP
    error, time-out, malformed response.
    """

    timeout: float

    def complete(self, system: str, user: str, timeout: float | None = None) -> str: ...
