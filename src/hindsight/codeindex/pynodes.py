"""Python syntax helpers of the receiver facts (:mod:`hindsight.codeindex.bindings`): plain
string literals, ``a or b`` and ``min(a, b)`` forms. Tree-sitter nodes in, no state."""

from __future__ import annotations

from collections.abc import Container
from typing import Any


def _t(n: Any) -> str:
    return n.text.decode("utf-8", "replace") if n is not None else ""


def plain_string(node: Any) -> str:
    """A plain string literal's text (no interpolation, no concatenation), else ``""``."""
    if node.type != "string" or node.named_child_count > 3:
        return ""
    kids = [c for c in node.named_children if c.type == "string_content"]
    if len(kids) != 1 or any(c.type == "interpolation" for c in node.named_children):
        return ""
    return _t(kids[0])


def name_prefix(node: Any, depth: int = 0) -> str:
    """The literal start of a computed attribute name: ``"visit_" + kind``,
    ``f"on_enter_{state}"``, ``"visit_%s" % kind`` and ``"visit_{}".format(kind)`` give
    ``visit_`` and ``on_enter_`` (an identifier's start), and so does a local variable
    bound once in its function to one of them (``method = "visit_" + type(node).__name__``;
    callgraph_blind6), else ``""`` (also when text follows the computed part:
    ``f"on_{x}_done"``)."""
    t = node.type
    op = node.child_by_field_name("operator") if t == "binary_operator" else None
    if op is not None and op.type == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        p = plain_string(left) if left is not None and right is not None and right.type in (
            "identifier", "attribute", "subscript", "call") else ""
    elif op is not None and op.type == "%":  # `"visit_%s" % kind`
        p = plain_string(node.child_by_field_name("left"))
        p = p[:-2] if p.endswith("%s") and p.count("%") == 1 else ""
    elif t == "call" and _t(node.child_by_field_name("function"))[-7:] == ".format":
        fn = node.child_by_field_name("function")  # `"visit_{}".format(kind)`
        p = plain_string(fn.child_by_field_name("object")) if fn.type == "attribute" else ""
        start, _, field = p.partition("{")  # (one field, at the end: `{}`, `{0}`, `{kind}`)
        p = start if field[-1:] == "}" and "{" not in field and (
            field[:-1].isidentifier() or field[:-1].isdigit() or field == "}") else ""
    elif t == "string" and any(c.type == "interpolation" for c in node.named_children):
        kids = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
        # only `f"on_{x}"`: text after the value (`f"on_{x}_done"`) or a conversion or
        # format (`{x!r}`, `{x:>3}`) makes a name no prefix match tells
        p = _t(kids[0]) if len(kids) == 2 and kids[0].type == "string_content" and \
            kids[1].type == "interpolation" and kids[1].named_child_count == 1 else ""
    elif t == "identifier" and depth == 0:
        value = _sole_local_value(node)
        return name_prefix(value, 1) if value is not None else ""
    else:
        return ""
    return p if p.isidentifier() else ""


_SCOPES = frozenset({"function_definition", "class_definition", "lambda", "module"})
_BINDS = frozenset({"for_statement", "for_in_clause", "augmented_assignment",
                    "named_expression", "as_pattern", "with_item", "global_statement",
                    "nonlocal_statement", "parameters", "lambda_parameters"})


def _sole_local_value(name: Any) -> Any:
    """The value of the one ``name = value`` statement of the function enclosing
    identifier ``name``, when the function binds ``name`` nowhere else (no other
    assignment, loop, ``with … as``, walrus, parameter; nested scopes not read);
    else ``None``."""
    fn = name.parent
    while fn is not None and fn.type not in _SCOPES:
        fn = fn.parent
    if fn is None or fn.type != "function_definition":
        return None
    text = name.text
    found: list[Any] = []
    todo = list(fn.children)
    while todo:
        n = todo.pop()
        if n.type in _SCOPES:
            continue
        if n.type == "assignment":
            left = n.child_by_field_name("left")
            if left is not None and left.type == "identifier" and left.text == text:
                found.append(n.child_by_field_name("right"))
                if len(found) > 1:
                    return None
            elif left is not None and text in left.text and left.type != "identifier":
                return None  # (`method, x = …`)
        elif n.type in _BINDS and text in n.text and n.type != "parameters" or \
                n.type == "parameters" and any(c.text == text for c in n.named_children):
            return None
        todo += n.children
    return found[0] if found else None


OPERATORS = frozenset({"binary_operator", "comparison_operator"})
_DUNDERS = {"+": "__add__", "-": "__sub__", "*": "__mul__", "@": "__matmul__",
            "/": "__truediv__", "//": "__floordiv__", "%": "__mod__", "**": "__pow__",
            "<<": "__lshift__", ">>": "__rshift__", "&": "__and__", "|": "__or__",
            "^": "__xor__", "==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__",
            ">": "__gt__", ">=": "__ge__"}
COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
SPECIAL = frozenset(_DUNDERS.values()) | {"__enter__", "__aenter__"}
"""Methods whose call value :func:`hindsight.codeindex.classes.special` gives."""


def operator_call(node: Any) -> tuple[Any, str] | None:
    """``(left operand, method name)`` of a binary operation or a comparison of two
    operands: ``a + b`` is ``a.__add__(b)``, ``a == b`` is ``a.__eq__(b)`` (the Python
    data model, "Emulating numeric types" and "Rich comparison"); ``None`` for other
    operators (``in``, ``is``, ``not in``), chained comparisons and a literal left
    operand. The reflected
    ``b.__radd__(a)`` is not tried."""
    if node.type == "binary_operator":
        left, op = node.child_by_field_name("left"), node.child_by_field_name("operator")
    elif node.named_child_count == 2 and node.child_count == 3:  # (`a < b < c`: no)
        left, op = node.named_child(0), node.child(1)
    else:
        return None
    name = _DUNDERS.get(op.type) if op is not None else None
    return (left, name) if name and left is not None and left.type in _OPERANDS else None


_OPERANDS = frozenset({"identifier", "attribute", "call", "subscript", "binary_operator",
                       "parenthesized_expression"})  # (not `"%s" % x`, `1 + n`)


def maybe_false(node: Any) -> bool:
    """Whether the left side of ``a or b`` may be false, so that ``b`` is a value too: a
    name, attribute, call or subscript (``self.handler or default``), not a literal or
    a function's name (always true: ``"x" or b`` is ``"x"``)."""
    left = node.child_by_field_name("left")
    return left is not None and left.type in ("attribute", "call", "subscript",
                                              "identifier", "boolean_operator")


def min_max_of_several(call: Any, shadowed: Container[str] = frozenset()) -> list[Any]:
    """The positional arguments of ``min(a, b, …)`` / ``max(a, b, …)`` called with two or
    more of them (the result is one of them), else ``[]`` (one iterable argument, a
    ``*args`` splat, another function, a name in ``shadowed``: shadow.py)."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type != "identifier" or _t(fn) not in ("min", "max") or \
            _t(fn) in shadowed:
        return []
    args = call.child_by_field_name("arguments")
    kids = [c for c in args.named_children if c.type not in ("comment", "keyword_argument")] \
        if args is not None else []
    if len(kids) < 2 or any(k.type in ("list_splat", "dictionary_splat") for k in kids):
        return []
    return kids


def is_or(node: Any) -> bool:
    op = node.child_by_field_name("operator")
    return op is not None and op.type == "or"


CASTS = frozenset({"cast", "typing.cast", "t.cast"})
"""How a Python file calls ``typing.cast`` (``import typing as t``: click's spelling)."""


def cast_value(kids: list[Any]) -> str:
    """The value of ``cast(T, v)`` (``typing.cast``: v, declared a ``T``): an instance of
    ``T`` (also ``"T"``), else ``"?"`` (:func:`hindsight.codeindex.types.type_value`)."""
    from hindsight.codeindex.types import type_value

    if len(kids) != 2 or kids[0].type not in ("identifier", "attribute", "string", "subscript"):
        return "?"
    text = plain_string(kids[0]) if kids[0].type == "string" else _t(kids[0])
    return type_value(text, "python") or "?"
