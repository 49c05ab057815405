"""The one reader of JSON text that other programs wrote: import files, ``retain -`` items,
hook payloads on stdin, transcripts (JSONL) and config files all pass through here.

Windows tools (PowerShell's ``Out-File``/``Set-Content -Encoding utf8`` before 7, Notepad's
"UTF-8 with BOM") begin UTF-8 text with a byte-order mark, ``EF BB BF`` (U+FEFF), and end
lines with CRLF. RFC 8259 §8.1 lets a parser ignore the mark; Python's ``json.loads``
refuses a ``str`` that starts with one. Here the mark is dropped at the start of the text
(for JSONL: of its first line) and a line's CR before its LF goes with the LF.
"""

from __future__ import annotations

import json
from typing import Any

BOM = "\ufeff"


def json_text(raw: bytes | str, *, first: bool = True, errors: str = "strict") -> str:
    """``raw`` as text for :func:`json.loads`: bytes decoded as UTF-8 (``errors`` as for
    :meth:`bytes.decode`; ``"strict"`` raises UnicodeDecodeError), one leading BOM removed
    when ``first`` (the start of a file or stream), a trailing ``\\r\\n``/``\\n``/``\\r``
    removed."""
    text = raw.decode("utf-8", errors) if isinstance(raw, bytes) else raw
    if first:
        text = text.removeprefix(BOM)
    return text.removesuffix("\n").removesuffix("\r")


def loads(raw: bytes | str, *, first: bool = True, errors: str = "strict") -> Any:
    """``json.loads`` of :func:`json_text` (``raw``). Raises ValueError (JSONDecodeError,
    UnicodeDecodeError) or RecursionError as ``json.loads`` does."""
    return json.loads(json_text(raw, first=first, errors=errors))

