"""Python constants found by walking a few statements instead of query patterns (issue
#14): an ``UPPER_CASE`` name bound in a class body (``Color.RED``, ``Config.PORT: int =
80``) or in a block of a module-level ``if``/``try``/``with`` (``if __name__ ==
"__main__": NAME = …``), and any member of an enum class (``Status.active``). Query patterns for these forms cost 6% and 16% of the whole
query's time on the standard library (measured in session 26); this walk reads only the
statements of class bodies and of those module-level blocks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

UPPER = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
"""A constant's name (ASCII letters: ``ÄRGER`` is not seen)."""

_COMPOUND = frozenset({"if_statement", "try_statement", "with_statement"})
_CLAUSES = frozenset({"elif_clause", "else_clause", "except_clause", "finally_clause"})


def constants(root: Any, class_nodes: Iterable[Any]) -> Iterator[tuple[Any, str]]:
    """``(assignment node, name)`` of each constant bound in the body of one of
    ``class_nodes`` (``class_definition`` nodes) or directly in a block of a top-level
    ``if``/``try``/``with`` statement of module ``root``."""
    for c in class_nodes:
        body = c.child_by_field_name("body")
        if body is not None:
            yield from _assigned(body, _is_enum(c))
    for st in root.named_children:
        if st.type in _COMPOUND:
            for part in st.named_children:
                if part.type == "block":
                    yield from _assigned(part)
                elif part.type in _CLAUSES:
                    for b in part.named_children:
                        if b.type == "block":
                            yield from _assigned(b)


ENUM_BASE = re.compile(r"(^|\.)(\w*Enum|Flag|IntFlag)$")
"""A base naming an enum class (``Enum``, ``enum.IntEnum``, ``StrEnum``, ``IntFlag``, a
``BaseEnum`` of the project's): every member its body binds is a constant, whatever its
case (``Status.active``), except ``_sunder_``/``__dunder__`` names and ``_private`` ones."""


def _is_enum(c: Any) -> bool:
    bases = c.child_by_field_name("superclasses")
    return bases is not None and any(
        b.type in ("identifier", "attribute") and ENUM_BASE.search(b.text.decode("utf-8", "replace"))
        for b in bases.named_children)


def _assigned(block: Any, enum: bool = False) -> Iterator[tuple[Any, str]]:
    for st in block.named_children:
        if st.type != "expression_statement" or st.named_child_count != 1:
            continue
        a = st.named_children[0]
        left = a.child_by_field_name("left") if a.type == "assignment" else None
        if left is not None and left.type == "identifier":
            name = left.text.decode("utf-8", "replace")
            if UPPER.match(name) or (enum and name[:1] != "_" and
                                     a.child_by_field_name("right") is not None and
                                     a.child_by_field_name("right").type != "lambda"):
                yield a, name
