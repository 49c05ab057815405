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
    ``if``/``try``/``with`` statement of module ``root``, and the later names of a
    module-level chain (``KILO = KIBI = 1024``: ``KIBI``; the query finds ``KILO``)."""
    for c in class_nodes:
        body = c.child_by_field_name("body")
        if body is not None:
            yield from _assigned(body, _is_enum(c))
    for st in root.named_children:
        if st.type == "expression_statement" and st.named_child_count == 1 and \
                st.named_children[0].type == "assignment":  # `KILO = KIBI = …`: the
            yield from _chain(st.named_children[0].child_by_field_name("right"))  # later
        elif st.type in _COMPOUND:
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


_VALUES = frozenset({"string", "concatenated_string", "integer", "float", "true", "false",
                     "none", "tuple", "unary_operator", "binary_operator", "call"})
_NOT_MEMBERS = frozenset({b"staticmethod", b"classmethod", b"property", b"nonmember"})


def _member_value(a: Any) -> bool:
    """Whether an enum body's ``name = value`` makes a member: a literal, a tuple, an
    expression or a call (``auto()``), not a name (``explain = describe`` is an alias of a
    method) nor ``staticmethod(…)``/``property(…)``/``nonmember(…)``."""
    r = a.child_by_field_name("right")
    if r is None or r.type not in _VALUES:
        return False
    f = r.child_by_field_name("function") if r.type == "call" else None
    return f is None or f.text.rpartition(b".")[2] not in _NOT_MEMBERS


def _is_enum(c: Any) -> bool:
    bases = c.child_by_field_name("superclasses")
    return bases is not None and any(
        b.type in ("identifier", "attribute") and ENUM_BASE.search(b.text.decode("utf-8", "replace"))
        for b in bases.named_children)


def _chain(a: Any, enum: bool = False) -> Iterator[tuple[Any, str]]:
    """Each constant of assignment ``a`` and of the assignments chained to its right
    (``KILO = KIBI = 1024``): an UPPER_CASE name, or in an enum body a member."""
    while a is not None and a.type == "assignment":
        left = a.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            name = left.text.decode("utf-8", "replace")
            if UPPER.match(name) or (enum and name[:1] != "_" and _member_value(a)):
                yield a, name
        a = a.child_by_field_name("right")


def _assigned(block: Any, enum: bool = False) -> Iterator[tuple[Any, str]]:
    for st in block.named_children:
        if st.type == "expression_statement" and st.named_child_count == 1:
            yield from _chain(st.named_children[0], enum)


def in_slot(lam: Any, name: str) -> bool:
    """Whether ``lam`` (a lambda that a query pattern named ``name``: ``f, g = lambda: 1,
    lambda: 2``) is at ``name``'s position on the left: counting only the values and the
    plain names (a ``\\`` line continuation or a comment is a node too) and none starred
    (``a, *m, z = …``). A lambda not in a tuple assignment is kept."""
    values = lam.parent
    a = values.parent if values is not None and values.type in ("expression_list", "tuple") \
        else None
    left = a.child_by_field_name("left") if a is not None and a.type == "assignment" else None
    if left is None or left.type not in ("pattern_list", "tuple_pattern"):
        return True
    skip = ("comment", "line_continuation")
    names = [n for n in left.named_children if n.type not in skip]
    vals = [v for v in values.named_children if v.type not in skip]
    if len(names) != len(vals) or any(n.type != "identifier" for n in names):
        return False
    i = next((k for k, v in enumerate(vals) if v.id == lam.id), -1)
    return i >= 0 and names[i].text.decode("utf-8", "replace") == name
