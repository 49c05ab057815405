"""One-line notices for the user that are not errors (a bank opened read-only), said
once per process through :data:`sink` (the CLI prints them on stderr)."""

from __future__ import annotations

from collections.abc import Callable

sink: Callable[[str], None] | None = None
"""Called with each notice; ``None``: nothing is said (the library, the MCP server)."""

_SAID: set[str] = set()


def say(line: str) -> None:
    """Give ``line`` to :data:`sink`, once per process."""
    if sink is not None and line not in _SAID:
        _SAID.add(line)
        sink(line)
