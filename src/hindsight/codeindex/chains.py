"""Receiver facts of calls made on a call's result (Python; a handler of
:mod:`hindsight.codeindex.receivers`): ``next(pages).render()`` reads an element of
``pages``, as ``first = next(pages); first.render()`` does."""

from __future__ import annotations

from typing import Any

from hindsight.codeindex.bindings import Bindings, _line, _t
from hindsight.codeindex.exprs import canon


def call_receivers(out: Bindings, call_nodes: list[tuple[str, Any]]) -> None:
    """``next(pages).render()``, ``max(xs, key=…).run()``, ``copy.copy(x).m()``,
    ``d.setdefault(k, Bucket()).add(w)``: the value of a receiver that is a call whose
    result the facts can name (:meth:`Bindings.value`; the default of ``setdefault``), as
    the fact ``(scope, "(" + receiver text, value, line)`` that ``Flow.calls`` reads."""
    for _name, node in call_nodes:
        attr = node.parent
        obj = attr.child_by_field_name("object") if attr.type == "attribute" else None
        if obj is None or obj.type != "call" or obj.end_byte - obj.start_byte > 200:
            continue
        text, v = _t(obj), out.value(obj)
        vals = [v] if v and v != "?" and v != canon(_t(obj)) else []
        fn, args = obj.child_by_field_name("function"), obj.child_by_field_name("arguments")
        if fn is not None and fn.type == "attribute" and args is not None and \
                _t(fn.child_by_field_name("attribute")) == "setdefault":
            kids = [c for c in args.named_children if c.type != "comment"]
            d = out.value(kids[1]) if len(kids) == 2 and kids[1].type == "call" else None
            vals += [d] if d and d != "?" else []
        scope, line = out.owner(obj.start_byte), _line(obj)
        for val in vals:
            out.facts.append((scope, "(" + text, val, line))
            out.used(scope, val)
