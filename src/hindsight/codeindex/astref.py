"""Reference definitions from Python's own ``ast``, to check the tree-sitter extraction.

Used by tests/test_ast_agreement.py and bench/index.py (issue #2 acceptance: same
qualified names and start lines as ``ast`` for every ``def``/``class``), with the naming
rules of :mod:`hindsight.codeindex.identity`: a name bound to a lambda by an assignment
statement (``f = lambda: 0``, ``f: T = lambda: 0``) is a definition at the statement's
line; ``@p.setter``/``@p.deleter`` on a function ``p`` is ``p:setter``/``p:deleter`` (also
``@Base.p.setter`` in a subclass); an ``@overload`` stub (also under an alias, ``from
typing import overload as ov``) is left out when the implementation is in the file (else
the first stub stands for the name).
"""

from __future__ import annotations

import ast
from collections import Counter

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _role(node: ast.AST, overloads: frozenset[str] = frozenset({"overload"})) -> str:
    """``:setter``/``:deleter`` for an accessor, ``stub`` for an overload stub (decorated
    with a name of ``overloads`` or ``x.overload``), else ''."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    for dec in node.decorator_list:
        if isinstance(dec, ast.Attribute) and dec.attr in ("setter", "deleter") and (
                (isinstance(dec.value, ast.Name) and dec.value.id == node.name) or
                (isinstance(dec.value, ast.Attribute) and dec.value.attr == node.name)):
            return ":" + dec.attr
        if (isinstance(dec, ast.Name) and dec.id in overloads) or (
                isinstance(dec, ast.Attribute) and dec.attr == "overload"):
            return "stub"
    return ""


def _overload_names(tree: ast.AST, source: bytes) -> frozenset[str]:
    """``overload`` and the names ``from typing import overload as ov`` gives it."""
    if b"overload as" not in source:
        return frozenset({"overload"})
    return frozenset({"overload"} | {
        a.asname for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
        and n.module in ("typing", "typing_extensions")
        for a in n.names if a.name == "overload" and a.asname})


def _lambda_name(node: ast.AST) -> str:
    """The name an assignment statement binds to a lambda, or ''."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Lambda):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
            isinstance(node.value, ast.Lambda):
        return node.target.id
    return ""


def ast_defs(source: bytes) -> Counter[tuple[str, int]] | None:
    """``(qualified name, 1-based line)`` of every def/class and lambda bound to a name,
    nested names joined with ``.``; ``None`` when ``ast`` cannot parse ``source``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    overloads = _overload_names(tree, source)
    found: list[tuple[str, int, bool]] = []  # name, line, is a stub
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS):
                role = _role(child, overloads)
                q = f"{prefix}.{child.name}" if prefix else child.name
                q += role if role != "stub" else ""
                found.append((q, child.lineno, role == "stub"))
                stack.append((child, q))
                continue
            name = _lambda_name(child)
            if name and isinstance(child, ast.stmt):
                found.append((f"{prefix}.{name}" if prefix else name, child.lineno, False))
            stack.append((child, prefix))
    impl = {q for q, _line, stub in found if not stub}
    out: Counter[tuple[str, int]] = Counter()
    first: dict[str, int] = {}
    for q, line, stub in sorted(found, key=lambda f: f[1]):
        if stub:
            if q in impl or first.get(q, line) < line:
                continue
            first[q] = line
        out[(q, line)] += 1
    return out
