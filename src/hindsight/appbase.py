"""The storage-error boundary shared by the bank's operations."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from hindsight.errors import StorageError

F = TypeVar("F", bound=Callable[..., Any])


def _storage(fn: F) -> F:
    """Translate sqlite3 errors raised inside ``fn`` into :class:`StorageError`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            raise StorageError(f"bank database: {e}") from e

    return wrapper  # type: ignore[return-value]
