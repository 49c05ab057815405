"""What the adapters may ask of the code index without a bank (``hindsight debug``)."""

from __future__ import annotations

from typing import Any


def parse_without_bank(root: str, path: str) -> Any:
    """Parse one file of the repository at ``root`` without storing anything and without a
    bank: a :class:`hindsight.models.ParseResult`, or ``None`` for a file of no supported
    language (see :meth:`hindsight.codeindex.service.CodeService.debug_file`). Raises
    NotFound when the file does not exist or is not a regular file."""
    from hindsight.codeindex.service import CodeService

    return CodeService(None, root).debug_file(path)  # type: ignore[arg-type]
