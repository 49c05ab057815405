"""Output helpers: rich tables for people, JSON for programs, one-line errors."""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def console() -> Any:
    """A rich Console (imported lazily: rich costs ~50 ms to import)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


_MARKUP = re.compile(r"\[/?(?:bold|red|green|dim)?\]")


def say(text: str) -> None:
    """Print a message: through rich on a terminal, plain (markup removed) otherwise, so a
    piped command does not pay for importing rich."""
    if sys.stdout.isatty():
        console().print(text)
    else:
        sys.stdout.write(_MARKUP.sub("", text) + "\n")


def err(msg: str) -> None:
    """Print one error line to stderr."""
    sys.stderr.write(f"hindsight: {msg}\n")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> None:
    from rich.table import Table

    t = Table(title=title, show_lines=False, header_style="bold")
    for c in columns:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*[str(x) for x in r])
    console().print(t)
