"""Output helpers: rich tables for people, JSON for programs, one-line errors."""

from __future__ import annotations

import json
import sys
from typing import Any


def console() -> Any:
    """A rich Console (imported lazily: rich costs ~50 ms to import)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False, markup=False)


def say(text: str) -> None:
    """Print a message: through rich on a terminal, plain (markup removed) otherwise, so a
    piped command does not pay for importing rich."""
    if sys.stdout.isatty():
        console().print(text)  # markup is off: file names like app/[slug]/x.tsx stay intact
    else:
        sys.stdout.write(text + "\n")


def err(msg: str) -> None:
    """Print one error line to stderr."""
    sys.stderr.write(f"hindsight: {msg}\n")


def to_json(data: Any) -> Any:
    """The CLI's one conversion of results to JSON values: records (symbols, memories,
    hits, recall results, history entries…) by their ``as_dict()``, containers
    recursively."""
    if hasattr(data, "as_dict"):
        return to_json(data.as_dict())
    if isinstance(data, dict):
        return {k: to_json(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [to_json(v) for v in data]
    return data


def emit_json(data: Any) -> None:
    """Print ``data`` (see :func:`to_json`) as indented JSON."""
    sys.stdout.write(json.dumps(to_json(data), ensure_ascii=False, indent=2, default=str)
                     + "\n")


def table(title: str | None, columns: list[str], rows: list[list[Any]]) -> None:
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(title) if title else None, show_lines=False, header_style="bold")
    for c in columns:
        t.add_column(Text(c), overflow="fold")
    for r in rows:
        t.add_row(*[Text(str(x)) for x in r])  # data is never read as rich markup
    console().print(t)


def _last_run(v: dict[str, Any] | None) -> str:
    """A step's last recorded run, as the trace shows it."""
    if not v:
        return ""
    from hindsight.app import time_shown

    ok = f", verified {time_shown(v['verified_at'])}" if v["verified_at"] else ", not verified"
    return f" — last run {v['status']} {time_shown(v['at'])}{ok}"


def trace_markdown(step: Any, lang_hint: str = "") -> str:
    """Render a trace as Markdown: numbered steps with location and a fenced snippet."""
    lines = [f"# Call trace from `{step.name}`", ""]

    def walk(st: Any, prefix: str, indent: int) -> None:
        pad = "  " * indent
        s = st.symbol
        if s is None:
            return
        where = f"{s.path}:{s.start_line}-{s.end_line}"
        called = f", called at line {st.call_line}" if st.call_line else ""
        again = " — expanded above" if st.seen else ""
        lines.append(f"{pad}- {prefix} `{s.path}::{s.local}` ({s.kind}) — {where}{called}"
                     f"{again}{_last_run(st.verified)}")
        if st.snippet:
            fence = "````" if "```" in st.snippet else "```"
            lines.append(f"{pad}  {fence}{s.language}")
            lines.extend(f"{pad}  {ln}" for ln in st.snippet.splitlines())
            lines.append(f"{pad}  {fence}")
        resolved = [ch for ch in st.children if ch.symbol is not None]
        for i, ch in enumerate(resolved, 1):
            walk(ch, f"{prefix}{i}.", indent + 1)
        other = [f"`{ch.name}` (line {ch.call_line})" for ch in st.children
                 if ch.symbol is None]
        if other:
            lines.append(f"{pad}  - not resolved to an indexed symbol: {', '.join(other)}")

    walk(step, "1.", 0)
    return "\n".join(lines) + "\n"
