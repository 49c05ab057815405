"""The "ast hash": a content hash of a definition that ignores comments and whitespace.

Algorithm (ours; the seed idea "ast_hash" asked for a hash insensitive to whitespace and
comments). Comments are first blanked out of the whole file once (:func:`blank_comments`:
same length, newlines kept). Then:

* most languages (:func:`flat_hash`): every whitespace byte of the definition's slice is
  deleted and the rest hashed, so indentation, line breaks, blank lines and spacing
  around tokens never matter;
* indentation-sensitive languages (Python, :func:`line_keys` + :func:`block_hash`): line
  structure stays significant. Each non-blank line becomes ``<indent delta>\\x02<line with
  whitespace deleted>`` where the delta is relative to the previous non-blank line; the
  first line of a definition drops its delta. Moving a whole function into a class keeps
  the hash; moving a statement in or out of a block changes it. Blank lines are ignored.

Known limit (documented in the README): deleting whitespace also deletes the gap between
two word characters, so ``a in b`` and ``ainb`` hash alike. Keeping those gaps needs a
regex pass that costs ~5x the parse time on the standard library; no real edit we know of
changes only such a gap.

Hash: xxh3-64, printed as 16 lowercase hex digits. Everything runs in C-level byte
operations; one Python step per line for Python files.
"""

from __future__ import annotations

import xxhash

_BLANK = bytes(32 if i != 10 else 10 for i in range(256))
_WS = b" \t\n\r\f\v"
_INLINE_WS = b" \t\r\f\v"


def blank_comments(src: bytes, comments: list[tuple[int, int]]) -> bytes:
    """``src`` with every byte of the given comment ranges replaced by a space, newlines kept
    (so offsets and line numbers are unchanged). ``comments``: sorted ``(start, end)`` bytes."""
    if not comments:
        return src
    parts = []
    pos = 0
    for a, b in comments:
        if a < pos:
            continue
        parts.append(src[pos:a])
        parts.append(src[a:b].translate(_BLANK))
        pos = b
    parts.append(src[pos:])
    return b"".join(parts)


def flat_hash(text: bytes) -> str:
    """Hash of ``text`` with all whitespace removed (16 hex digits)."""
    return xxhash.xxh3_64_hexdigest(text.translate(None, _WS))


def line_keys(nc: bytes) -> list[bytes]:
    """Per-line keys (0-based list index = line - 1) for indentation-sensitive hashing of a
    comment-blanked file ``nc``; blank lines give ``b""``."""
    out: list[bytes] = []
    prev = 0
    for ln in nc.split(b"\n"):
        st = ln.lstrip(b" \t\f")
        if not st or st.isspace():
            out.append(b"")
            continue
        ind = len(ln) - len(st)
        out.append(b"%d\x02%s" % (ind - prev, st.translate(None, _INLINE_WS)))
        prev = ind
    return out


def block_hash(keys: list[bytes], start_line: int, end_line: int) -> str:
    """Hash of lines ``start_line..end_line`` (1-based, inclusive) from :func:`line_keys`."""
    first = keys[start_line - 1]
    head = first[first.find(b"\x02") + 1:]
    body = b"\n".join(filter(None, keys[start_line:end_line]))
    return xxhash.xxh3_64_hexdigest(head + b"\n" + body)
