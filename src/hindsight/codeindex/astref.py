"""Reference definitions from Python's own ``ast``, to check the tree-sitter extraction.

Used by tests/test_ast_agreement.py and bench/index.py (issue #2 acceptance: same
qualified names and start lines as ``ast`` for every ``def``/``class``).
"""

from __future__ import annotations

import ast
from collections import Counter


def ast_defs(source: bytes) -> Counter[tuple[str, int]] | None:
    """``(qualified name, 1-based line)`` of every def/class, nested names joined with
    ``.``; ``None`` when ``ast`` cannot parse ``source``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    out: Counter[tuple[str, int]] = Counter()
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                q = f"{prefix}.{child.name}" if prefix else child.name
                out[(q, child.lineno)] += 1
                stack.append((child, q))
            else:
                stack.append((child, prefix))
    return out
