"""Python receiver facts read from definitions, not from the flow query: the
``if __name__ == "__main__":`` guard and abstract methods (moved from parse.py)."""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.bindings import Fact


def _txt(b: bytes | None) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


_MAIN_TEST = re.compile(r"""^(__name__\s*==\s*(['"])__main__\2|(['"])__main__\3\s*==\s*__name__)$""")


def main_guard(root: Any) -> list[Fact]:
    """``("", "@main", "<last line of its body>", line)`` (1-based) for each top-level
    ``if __name__ == "__main__":`` of a Python module: what its body binds does not
    happen when the module is imported (its ``else`` does, and what follows it):
    :func:`hindsight.codeindex.classes.import_binding`."""
    out: list[Fact] = []
    for st in root.named_children:
        if st.type == "if_statement":
            cond = st.child_by_field_name("condition")
            body = st.child_by_field_name("consequence")
            if cond is not None and body is not None and _MAIN_TEST.match(_txt(cond.text)):
                out.append(("", "@main", str(body.end_point[0] + 1), st.start_point[0] + 1))
    return out


_ABCMETA = frozenset({"metaclass=ABCMeta", "metaclass=abc.ABCMeta"})


def dispatch_marks(defs: list[Any]) -> list[Fact]:
    """``(method, "@abstract", "raise" | "empty", line)`` for each Python method whose
    body, after a docstring, is only ``raise NotImplementedError…`` or does nothing
    (``pass``, ``...``, ``return``, ``return None``, nothing), and ``(class, "@abstract",
    "abcmeta", line)`` for a class declared with ``metaclass=ABCMeta``: see
    :mod:`hindsight.codeindex.dispatch`."""
    out: list[Fact] = []
    for d in defs:
        if d.kind == "class" and d.node.type == "class_definition":
            sup = d.node.child_by_field_name("superclasses")
            if sup is not None and b"metaclass" in (sup.text or b"") and any(
                    a.type == "keyword_argument" and _txt(a.text).replace(" ", "") in _ABCMETA
                    for a in sup.named_children):
                out.append((d.local, "@abstract", "abcmeta", d.node.start_point[0] + 1))
            continue
        if d.kind != "method" or d.node.type != "function_definition":
            continue
        body = d.node.child_by_field_name("body")
        stmts = [c for c in body.named_children if c.type != "comment"] if body else []
        if stmts and stmts[0].type == "expression_statement" and \
                stmts[0].named_child_count == 1 and stmts[0].named_children[0].type == "string":
            stmts = stmts[1:]
        if len(stmts) > 1:
            continue
        s = stmts[0] if stmts else None
        if s is None or s.type == "pass_statement" or (
                s.type == "expression_statement" and s.named_child_count == 1
                and s.named_children[0].type == "ellipsis") or (
                s.type == "return_statement" and (s.named_child_count == 0 or (
                    s.named_child_count == 1 and s.named_children[0].type == "none"))):
            out.append((d.local, "@abstract", "empty", d.node.start_point[0] + 1))
        elif s.type == "raise_statement" and b"NotImplementedError" in (s.text or b""):
            out.append((d.local, "@abstract", "raise", d.node.start_point[0] + 1))
    return out


def star_names(root: Any, src: bytes) -> list[Fact]:
    """``("", "@all", name, line)`` for each name of a Python module's ``__all__`` when
    every mention of ``__all__`` in the file is a top-level ``__all__ = [...]`` / ``(...)``
    or ``__all__ += [...]`` of string literals (what ``from m import *`` binds: the
    language reference, "The import statement"); ``[]`` otherwise (``__all__`` built at run
    time or not there: every public name counts)."""
    out: list[Fact] = []
    seen = 0
    for st in root.named_children:
        a = st.named_children[0] if st.type == "expression_statement" and \
            st.named_child_count == 1 else None
        if a is None or a.type not in ("assignment", "augmented_assignment"):
            continue
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        if left is None or left.type != "identifier" or left.text != b"__all__":
            continue
        items = [c for c in right.named_children if c.type != "comment"] \
            if right is not None and right.type in ("list", "tuple") else None
        if items is None or any(c.type != "string" or c.named_child_count != 3
                                for c in items):
            return []  # (an f-string or a concatenation: not a literal)
        seen += 1
        out += [("", "@all", _txt(c.named_children[1].text), st.start_point[0] + 1)
                for c in items]
    if not seen or seen != src.count(b"__all__"):
        return []
    return out or [("", "@all", "", 1)]  # (`__all__ = []`: `import *` binds nothing)
