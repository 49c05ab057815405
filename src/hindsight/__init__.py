"""hindsight: persistent, per-repository memory for coding agents.

The public entry point is :func:`hindsight.app.open_bank`; nothing is done at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["open_bank", "__version__"]

if TYPE_CHECKING:
    from hindsight.app import Bank


def open_bank(path: str = ".", **kwargs: Any) -> Bank:
    """Open (creating if needed) the bank of the repository containing ``path``.

    See :func:`hindsight.app.open_bank` for parameters, return value and errors.
    """
    from hindsight.app import open_bank as _open

    return _open(path, **kwargs)
