"""Which local bindings resolution reads (Python receiver facts, :mod:`hindsight.codeindex.receivers`):
the names each scope reads, the heads of the references' receivers, and the names bound
to a call of something the file knows. Bindings of other locals are not kept."""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.bindings import NARROW, Fact, _t, head


def instances(facts: list[Fact], deferred: list[tuple[Any, dict[str, list[Any]]]],
               known: set[str]) -> set[str]:
    """Names bound to a call of something the file defines or imports (``x = C()``), in
    ``facts`` and in the local assignments not handled yet (``deferred``)."""
    out = {t for _s, t, v, _l in facts if v.endswith(")") and head(v) in known}
    for _fn, caps in deferred:
        rhs = caps.get("fact.rhs")
        if rhs and rhs[0].type == "call":
            callee = rhs[0].child_by_field_name("function")
            if callee is not None and head(_t(callee)) in known:
                out.add(_t(caps["fact.lhs"][0]))
    return out


def heads_of(refs: list[tuple[str, str, str, str, int]]) -> list[tuple[str, str, str]]:
    """``(caller, receiver, head)`` of each reference: the head of its receiver
    (:func:`~hindsight.codeindex.bindings.head`), or its name when it has none. Receivers
    repeat within a file: each is read once."""
    seen: dict[str, str] = {}
    out: list[tuple[str, str, str]] = []
    for c, _k, name, recv, _l in refs:
        if recv:
            h = seen.get(recv)
            if h is None:
                h = seen[recv] = head(recv)
            out.append((c, recv, h))
        else:
            out.append((c, recv, name))
    return out


_DEFAULT = re.compile(r"=\s*([A-Za-z_]\w*)")


def uses(heads: list[tuple[str, str, str]], facts: list[Fact], args: list[Fact],
         functions: dict[str, str] | None = None) -> dict[str, set[str]]:
    """scope → the names read there or in a scope nested in it: receivers and callees of
    its calls, values of its facts so far, objects of its attribute writes, the names a
    nested function's parameter defaults read (``def inner(x=o)``: ``functions``, local
    name → signature, evaluated at the ``def``: callsites.param). A local
    variable outside this set is never read in a way resolution follows, so its bindings
    are not kept."""
    by: dict[str, set[str]] = {}
    for caller, _r, h in heads:
        s = by.get(caller)
        if s is None:
            by[caller] = {h}
        else:
            s.add(h)
    fns = functions or {}
    for local, sig in fns.items():
        if "=" in sig and (parent := local.rpartition(".")[0]) in fns:
            by.setdefault(parent, set()).update(_DEFAULT.findall(sig))
    for scope, target, v, _l in (*facts, *args):
        s = by.setdefault(scope, set())
        s.add(head(v))
        if v[1:2] == NARROW:  # `isinstance(x, Item)` reads x and Item (loops.isa)
            name, _, kinds = v[2:].partition(NARROW)
            s.update([name, *map(head, kinds.lstrip("*").split("|"))])
        if "." in target and "[" not in target:  # `server.handler = H()` reads `server`
            s.add(head(target))  # (classes.foreign: which instance it writes to)
    out: dict[str, set[str]] = {}
    for scope, names in by.items():
        while True:
            s = out.get(scope)
            if s is None:
                out[scope] = set(names)
            else:
                s |= names
            if not scope:
                break
            scope = scope.rpartition(".")[0]
    return out
