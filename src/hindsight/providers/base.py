"""Provider contracts. Memory code sees only these; ``app.py`` picks the implementation."""

from __future__ import annotations

from typing import Any, Protocol


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of ``dim`` numbers.

    ``model_id`` names the model (recorded by the bank with every vector, so that a model
    change is detected and ``hindsight reembed`` can migrate). ``embed_batch`` returns a
    NumPy array of shape ``(len(texts), dim)``, dtype float32, rows of unit length.
    Raises :class:`hindsight.errors.ProviderError` when the model cannot run.
    """

    model_id: str
    dim: int

    def embed_batch(self, texts: list[str]) -> Any: ...
