"""Builtin names a Python file binds itself (break-it, session 32).

The receiver facts read some calls by their builtin meaning: ``next(it)`` is an element of
``it``, ``max(xs, key=f)`` one of ``xs``, ``list(xs)`` a copy, ``defaultdict(F)`` a dict
of ``F`` instances, ``copy.copy(x)`` an object of ``x``'s class (bindings.py, loops.py,
chains.py). A file that binds such a name to something of its own (``def next(it)``,
``from mylib import max``, ``max = lambda …``, a parameter ``next``, ``import utils as
copy``) means that instead, and reading the builtin there gives wrong edges. Such a name
is *shadowed*: the whole file reads it as an ordinary call (a miss at worst, never a guess).

The test is per file, not per scope: a binding anywhere in the file shadows the name
everywhere in it. Bindings seen: definitions (``def``, ``class``, a lambda bound to a
name), imports, and, confirmed on the tree, assignment and ``for`` targets (not a class
body's), ``as`` targets and parameters. An import of the name from its own module
(``import copy``, ``from functools import partial``, ``from collections import
defaultdict``) is no shadowing. A name is looked at only when a rule is about to read it
(:class:`Shadowed`), so most files pay nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

NAMES = frozenset({
    "next", "min", "max", "getattr", "type", "iter", "list", "tuple", "set", "frozenset",
    "sorted", "reversed", "map", "filter", "zip", "enumerate", "partial", "defaultdict",
    "copy", "functools", "collections", "cast", "typing", "t",
})
"""Names whose calls the receiver facts read by their builtin or stdlib meaning."""

_OWN = frozenset({("copy", "", "copy"), ("functools", "", "functools"),
                  ("collections", "", "collections"), ("functools", "partial", "partial"),
                  ("collections", "defaultdict", "defaultdict"), ("typing", "", "typing"),
                  ("typing", "", "t"), ("typing", "cast", "cast")})
"""``(module, name, alias)`` imports that bind a name to what the rules mean by it."""

_BEFORE = frozenset(b" \t\n\r(,*")  # what may come before a bound name (`for x, next in`)


_CLIMB = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern",
                    "dictionary_splat_pattern", "typed_parameter", "as_pattern_target"})
_TARGETS = frozenset({"assignment", "augmented_assignment", "for_statement", "for_in_clause"})


def _binds(root: Any, start: int, end: int) -> bool:
    """Is the identifier at ``[start, end)`` of the tree under ``root`` a binding: a
    parameter, an ``as`` target, or an assignment or ``for`` target (not of a class body,
    whose names methods do not see)? Strings and comments are no binding."""
    n = root.descendant_for_byte_range(start, end)
    if n is None or n.type != "identifier" or n.start_byte != start or n.end_byte != end:
        return False
    p = n.parent
    while p is not None and p.type in _CLIMB:
        n, p = p, p.parent
    if p is None:
        return False
    t = p.type
    if t in ("parameters", "lambda_parameters", "aliased_import", "as_pattern"):
        return t != "as_pattern" or n.type == "as_pattern_target"
    if t in ("default_parameter", "typed_default_parameter", "named_expression"):
        return p.child_by_field_name("name") == n  # (`(next := f)`: a walrus binds too)
    if t not in _TARGETS:
        return False
    left = p.child_by_field_name("left")
    if left is None or not left.start_byte <= start < left.end_byte:
        return False
    body = p.parent.parent if p.parent is not None else None  # statement, then block
    return body is None or body.parent is None or body.parent.type != "class_definition"


class Shadowed:
    """The builtin names a Python file binds itself, asked one name at a time (``name in
    shadowed``): ``src`` and its tree's ``root``, the names of its definitions
    (``defined``) and its ``(owner, module, name, alias, line)`` import rows (parse.py).
    Each name is decided on first use and kept; never raises."""

    __slots__ = ("src", "root", "defined", "imports", "_memo")

    def __init__(self, src: bytes, root: Any, defined: Iterable[str],
                 imports: Iterable[tuple[str, str, str, str, int]]) -> None:
        self.src, self.root = src, root
        self.defined = {n for n in defined if n in NAMES}
        self.imports = [(m, n, a) for _o, m, n, a, _l in imports if a in NAMES]
        self._memo: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if name not in NAMES or not isinstance(name, str):
            return False
        hit = self._memo.get(name)
        if hit is None:
            hit = self._memo[name] = self._binds(name)
        return hit

    def _binds(self, name: str) -> bool:
        if name in self.defined or any(a == name and (m, n, a) not in _OWN
                                       for m, n, a in self.imports):
            return True
        src, word = self.src, name.encode()
        at = src.find(word)
        while at >= 0:
            end = at + len(word)
            if _candidate(src, at, end) and _binds(self.root, at, end):
                return True
            at = src.find(word, end)
        return False


def _candidate(src: bytes, start: int, end: int) -> bool:
    """Whether the text around ``src[start:end]`` may bind it (a whole word, not an
    attribute, before ``=``/``,``/``)``/``:`` or ``in``, after a line start, ``(``, ``,``,
    ``*``, ``for`` or ``as``): the tree decides then (:func:`_binds`)."""
    if (start and (src[start - 1:start].isalnum() or src[start - 1] in b"_.")) or \
            src[end:end + 1].isalnum() or src[end:end + 1] == b"_":
        return False
    i = end
    while src[i:i + 1] in (b" ", b"\t"):
        i += 1
    if src[i:i + 1] not in (b"=", b",", b")", b":") and src[i:i + 3] not in (b"in ", b"in\t"):
        return False
    if src[i:i + 2] == b"==":
        return False
    j = start - 1
    while j >= 0 and src[j] in b" \t":
        j -= 1
    return j < 0 or src[j] in _BEFORE or src[max(j - 2, 0):j + 1] in (b"for", b" as") or \
        src[max(j - 5, 0):j + 1] == b"lambda"


def shadowed(src: bytes, root: Any, defined: Iterable[str],
             imports: Iterable[tuple[str, str, str, str, int]]) -> frozenset[str]:
    """Every name of :data:`NAMES` that ``src`` binds itself (:class:`Shadowed`, all
    asked at once)."""
    s = Shadowed(src, root, defined, imports)
    return frozenset(n for n in NAMES if n in s)
