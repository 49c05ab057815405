"""Receiver facts of calls made on a call's result (Python; a handler of
:mod:`hindsight.codeindex.receivers`): ``next(pages).render()`` reads an element of
``pages``, as ``first = next(pages); first.render()`` does; ``sorted(ts)[0].run()`` one of
``ts``."""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.bindings import Bindings, _line, _t
from hindsight.codeindex.exprs import canon

_HEAD = re.compile(r"(?:next|min|max|getattr|partial|functools\.partial|copy\.copy|"
                   r"copy\.deepcopy|iter|sorted|reversed|list|tuple)\(|[\w.]*\.(?:get|pop|setdefault|enter_context|"
                   r"enter_async_context)\(")
"""A receiver whose result :meth:`Bindings.value` may name: a call of one of these
functions, or of one of these methods (matched at the start of the receiver's text)."""


def call_receivers(out: Bindings, call_nodes: list[tuple[str, Any]],
                   receivers: list[str]) -> None:
    """``next(pages).render()``, ``max(xs, key=…).run()``, ``copy.copy(x).m()``,
    ``d.setdefault(k, Bucket()).add(w)``: the value of a receiver that is a call whose
    result the facts can name (:meth:`Bindings.value`; the default of ``setdefault``), as
    the fact ``(scope, "(" + receiver text, value, line)`` that ``Flow.calls`` reads.
    ``receivers[i]`` is the receiver text of ``call_nodes[i]`` (the references')."""
    for i, recv in enumerate(receivers):
        if recv[-1:] not in (")", "]") or len(recv) > 200 or _HEAD.match(recv) is None:
            continue  # (most receivers: `a.b().c()`, read as a path)
        attr = call_nodes[i][1].parent
        obj = attr.child_by_field_name("object") if attr.type == "attribute" else None
        base = obj.child_by_field_name("value") if obj is not None and \
            obj.type == "subscript" else obj  # `sorted(xs, key=…)[0].run()`
        if obj is None or base is None or base.type != "call":
            continue
        text, v = _t(obj), out.value(obj)
        vals = [v] if v and v != "?" and v != canon(text) else []
        args = obj.child_by_field_name("arguments")
        if ".setdefault(" in recv and args is not None:
            kids = [c for c in args.named_children if c.type != "comment"]
            d = out.value(kids[1]) if len(kids) == 2 and kids[1].type == "call" else None
            vals += [d] if d and d != "?" else []
        scope, line = out.owner(obj.start_byte), _line(obj)
        for val in vals:
            out.facts.append((scope, "(" + text, val, line))
            out.used(scope, val)
