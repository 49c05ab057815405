"""Builtin names a Python file binds itself (break-it, session 32).

The receiver facts read some calls by their builtin meaning: ``next(it)`` is an element of
``it``, ``max(xs, key=f)`` one of ``xs``, ``list(xs)`` a copy, ``defaultdict(F)`` a dict
of ``F`` instances, ``copy.copy(x)`` an object of ``x``'s class (bindings.py, loops.py,
chains.py). A file that binds such a name to something of its own (``def next(it)``,
``from mylib import max``, ``max = lambda …``, a parameter ``next``, ``import utils as
copy``) means that instead, and reading the builtin there gives wrong edges. Such a name
is *shadowed*: the whole file reads it as an ordinary call (a miss at worst, never a guess).

The test is on the text, per file, not per scope: a binding anywhere in the file shadows
the name everywhere in it. Bindings seen: definitions (``def``, ``class``, a lambda bound
to a name), imports, assignment and ``for`` targets at the start of a line, ``as`` targets,
and the parameters of ``def`` and ``lambda``. An import of the name from its own module
(``import copy``, ``from functools import partial``, ``from collections import
defaultdict``) is no shadowing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

NAMES = frozenset({
    "next", "min", "max", "getattr", "type", "iter", "list", "tuple", "set", "frozenset",
    "sorted", "reversed", "map", "filter", "zip", "enumerate", "partial", "defaultdict",
    "copy", "functools", "collections",
})
"""Names whose calls the receiver facts read by their builtin or stdlib meaning."""

_OWN = frozenset({("copy", "", "copy"), ("functools", "", "functools"),
                  ("collections", "", "collections"), ("functools", "partial", "partial"),
                  ("collections", "defaultdict", "defaultdict")})
"""``(module, name, alias)`` imports that bind a name to what the rules mean by it."""

_ALT = "|".join(sorted(NAMES))
_TARGET = re.compile(
    rb"^[ \t]*(?:for[ \t]+|async[ \t]+for[ \t]+)?\(?[ \t]*(?:\w+[ \t]*,[ \t]*)*(" + _ALT.encode()
    + rb")\b[ \t]*(?:,[^\n=]*)?(?:=(?!=)|:[^\n=]*=(?!=)|\bin\b|\)[ \t]*(?:=(?!=)|in\b))",
    re.MULTILINE)
_AS = re.compile(rb"\bas[ \t]+(" + _ALT.encode() + rb")\b")
_PARAMS = re.compile(rb"\bdef[ \t]+\w+[ \t]*\((.*?)\)[ \t]*(?:->[^:\n]*)?:|\blambda\b([^:\n]*):",
                     re.DOTALL)
_PARAM = re.compile(rb"(?:^|,)[ \t\n\\]*\**(" + _ALT.encode() + rb")[ \t]*(?=[:=,]|$)")


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
    if t in ("default_parameter", "typed_default_parameter"):
        return p.child_by_field_name("name") == n
    if t not in _TARGETS:
        return False
    left = p.child_by_field_name("left")
    if left is None or not left.start_byte <= start < left.end_byte:
        return False
    body = p.parent.parent if p.parent is not None else None  # statement, then block
    return body is None or body.parent is None or body.parent.type != "class_definition"


def shadowed(src: bytes, root: Any, defined: Iterable[str],
             imports: Iterable[tuple[str, str, str, str, int]]) -> frozenset[str]:
    """The names of :data:`NAMES` that ``src`` (a Python file, parsed: ``root``) binds to
    something of its own. ``defined``: the names of its definitions; ``imports``: its
    ``(owner, module, name, alias, line)`` import rows (parse.py). The text finds the
    candidates, the tree confirms each (:func:`_binds`); never raises."""
    out = {n for n in defined if n in NAMES}
    out.update(a for _o, m, n, a, _l in imports if a in NAMES and (m, n, a) not in _OWN)
    spans = [m.span(1) for m in _TARGET.finditer(src)]
    spans += [m.span(1) for m in _AS.finditer(src)]
    for m in _PARAMS.finditer(src):
        g = 1 if m.group(1) is not None else 2
        base = m.start(g)
        spans += [(base + p.start(1), base + p.end(1)) for p in _PARAM.finditer(m.group(g))]
    for s, e in spans:
        name = src[s:e].decode()
        if name not in out and _binds(root, s, e):
            out.add(name)
    return frozenset(out)
