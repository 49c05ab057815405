"""Values of receiver resolution (:mod:`hindsight.codeindex.flow`), and their unions.

A value is a pair ``(kind, qualified name)``: ``("cls", q)`` a class itself, ``("inst",
q)`` an instance of it, ``("fn", q)`` a function, ``("mod", "path::")`` a module,
``("super", q)`` ``super()`` inside class ``q``, ``("gen", q)`` what calling generator
function ``q`` gives. ``("any", …)`` is a *union*: the value is one of at most
:data:`MAX_TARGETS` others, known from the program text but not which one at run time
(a loop over ``[f, g]``, a function returning ``A()`` or ``B()``, call sites passing
different functions). A call of a union has one edge per target, each a call that runs
for some execution; more than ``MAX_TARGETS`` alternatives is "unknown" (a call that
could reach anything says little). Call graphs of this kind (every target a data-flow
path reaches) are what static call-graph tools report (Salis et al., "PyCG: Practical
Call Graph Generation in Python", ICSE 2021).
"""

from __future__ import annotations

from collections.abc import Iterable

Value = tuple[str, str]
MAX_TARGETS = 4
MAX_WIDE = 16
"""Members a *wide* union may hold: the methods a named-prefix dispatch reaches
(``getattr(self, "visit_" + kind)``, :func:`hierarchy.prefixed`). Its table is the class
tree's methods so named, written to be dispatched to (``ast.NodeVisitor``), not a guess
among unrelated values, so it keeps up to this many; a union with one wide input (the
dispatch and its default ``self.generic_visit``) is wide too."""
_SEP = "\x1e"
_KSEP = "\x1f"


def union(values: Iterable[Value | None], limit: int = MAX_TARGETS) -> Value | None:
    """The value that is any one of ``values`` (unions flattened, duplicates dropped, in
    order of first appearance). Unknown members (``None``) are left out: each known
    member is still a value the expression has on some path. ``None`` when no member is
    known or more than ``limit`` are (:data:`MAX_TARGETS`; :data:`MAX_WIDE` when an input
    is a union wider than ``MAX_TARGETS``); the member itself when there is one."""
    first: Value | None = None
    out: list[Value] | None = None  # made only when a second value comes
    for v in values:
        if v is None or v == first:
            continue
        if first is None and out is None and v[0] != "any":
            first = v
            continue
        if out is None:
            out = [first] if first is not None else []
        ms = members(v)
        if len(ms) > MAX_TARGETS:
            limit = MAX_WIDE  # (a wide union stays wide: MAX_WIDE)
        for m in ms:
            if m not in out:
                out.append(m)
                if len(out) > limit:
                    return None
    if out is None:
        return first
    if len(out) == 1:
        return out[0]
    return ("any", _SEP.join(f"{k}{_KSEP}{q}" for k, q in out))


def width(v: Value) -> int:
    """The limit of a union made of what each member of ``v`` gives (``x.m()`` of a union
    ``x``): :data:`MAX_WIDE` for a wide union, else :data:`MAX_TARGETS`."""
    return MAX_WIDE if v[0] == "any" and v[1].count(_SEP) >= MAX_TARGETS else MAX_TARGETS


def members(v: Value) -> list[Value]:
    """The alternatives of a union, or ``[v]``."""
    if v[0] != "any":
        return [v]
    out: list[Value] = []
    for part in v[1].split(_SEP):
        k, _, q = part.partition(_KSEP)
        out.append((k, q))
    return out


def each_once(lists: Iterable[list[str]]) -> list[str]:
    """The targets of several lists, each once, in order."""
    out: list[str] = []
    for lst in lists:
        out += [t for t in lst if t not in out]
    return out
