"""hindsight: persistent, per-repository memory for coding agents.

The public API: :func:`open_bank` (returns a :class:`Bank` with the services ``code``,
``history``, ``memory`` and ``sessions``), the records of :mod:`hindsight.models` and the
errors of :mod:`hindsight.errors`. Nothing is done at import time: every name below is
imported when first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_FROM = {
    "Bank": "hindsight.app",
    **dict.fromkeys(("Symbol", "Edge", "IndexStats", "SymbolChange", "Step", "Memory",
                     "Anchor", "Hit", "ChannelRank", "RecallResult", "MemoryItem",
                     "Retained"), "hindsight.models"),
    **dict.fromkeys(("HindsightError", "ConfigError", "BankNotFound", "StorageError", "Busy",
                     "ParseError", "NotIndexed", "NotFound", "Ambiguous", "GitError",
                     "ProviderError"), "hindsight.errors"),
}
__all__ = ["open_bank", "__version__", *_FROM]

if TYPE_CHECKING:
    from hindsight.app import Bank


def open_bank(path: str = ".", **kwargs: Any) -> Bank:
    """Open (creating if needed) the bank of the repository containing ``path``.

    See :func:`hindsight.app.open_bank` for parameters, return value and errors.
    """
    from hindsight.app import open_bank as _open

    return _open(path, **kwargs)


def __getattr__(name: str) -> Any:
    if name in _FROM:
        return getattr(importlib.import_module(_FROM[name]), name)
    raise AttributeError(f"module 'hindsight' has no attribute {name!r}")
