"""Documentation of a definition: a Python docstring, or the comment block right above a
definition in the other languages (markers stripped, lines trimmed, at most
:data:`MAX_DOC` characters)."""

from __future__ import annotations

import re
from typing import Any

MAX_DOC = 1000
# nodes that wrap a definition: its comment sits above the wrapper
_WRAPPERS = frozenset({
    "export_statement", "decorated_definition", "template_declaration", "ambient_declaration",
})
_DECLS = frozenset({"lexical_declaration", "variable_declaration",
                    # `res.send = function send() {}`: the statement holds the comment
                    "assignment_expression", "expression_statement"})
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "doc_comment",
                            "multiline_comment"})


def _txt(b: bytes | None) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


def py_docstring(body: Any) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_child(0)
    if first.type != "expression_statement" or first.named_child_count == 0:
        return ""
    s = first.named_child(0)
    if s.type != "string":
        return ""
    raw = _txt(s.text)
    i = 0
    while i < len(raw) and raw[i] in "rRuUbBfF":
        i += 1
    q = raw[i:i + 3] if raw[i:i + 3] in ('"""', "'''") else raw[i:i + 1]
    text = raw[i + len(q):len(raw) - len(q)] if len(raw) >= i + 2 * len(q) else raw
    return _clean_doc(text)


def _clean_doc(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines()]
    return "\n".join(lines)[:MAX_DOC]


def doc_comment(node: Any) -> str:
    target = node
    parent = node.parent
    while parent is not None and (parent.type in _WRAPPERS or parent.type in _DECLS):
        target = parent
        parent = parent.parent
    parts: list[str] = []
    row = target.start_point[0]
    prev = target.prev_named_sibling
    if prev is not None and prev.type in _COMMENT_TYPES and prev.end_point[0] == row - 2 and \
            prev.text is not None and prev.text.startswith(b"/**"):
        row -= 1  # a `/** … */` block, then one blank line: still the definition's doc
        # (express's API functions are written so)
    while prev is not None and prev.type in _COMMENT_TYPES and prev.end_point[0] >= row - 1:
        parts.append(_strip_comment(_txt(prev.text)))
        row = prev.start_point[0]
        prev = prev.prev_named_sibling
    if not parts:
        return ""
    parts.reverse()
    return _clean_doc("\n".join(parts))


_CMARK = re.compile(r"^\s*(?:/\*\*?|\*/|\*|///?|//!|#)\s?", re.MULTILINE)


def _strip_comment(text: str) -> str:
    text = text.rstrip()
    if text.endswith("*/"):
        text = text[:-2]
    return _CMARK.sub("", text)
