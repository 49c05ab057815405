"""Rust values that hold others (session 36): ``Option<T>``, ``Result<T, E>``, the std
collections, ``Mutex``/``RwLock``/``RefCell`` hold elements of type ``T`` (``x[*]`` in an
access path; :func:`hindsight.codeindex.types.element_type`). ``e?``, ``.unwrap()``,
``.expect(…)`` and the other unwrapping methods read that element; so does a ``for``
loop, ``if let Some(x) = e`` / ``while let`` / ``let … else`` and a ``Some(x)`` / ``Ok(x)``
match arm. The views and accessors of std collections (``.iter()``, ``.values()``,
``.first()``, ``.get(k)``, ``.pop()``, ``.next()``, ``.lock()``, ``.borrow()``) read
through to the elements only where the value before them is no repository type
(:func:`hindsight.codeindex.elements.view`, used by :mod:`hindsight.codeindex.flow`): ``cache.get(k)`` of a ``Cache``
with its own ``get`` is that method's result.

Before: ``let s = find().unwrap(); s.save()``, ``load()?.save()``, ``for s in
&self.stores { s.save() }`` and ``if let Some(m) = &self.main { m.save() }`` were all
unresolved (the call-graph fixture listed ``Option<Store>.unwrap()`` as a known miss).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight.codeindex.bindings import Bindings

UNWRAPS = frozenset({"unwrap", "expect", "unwrap_or_default", "unwrap_or", "unwrap_or_else",
                     "unwrap_unchecked"})
"""Methods of ``Option``/``Result`` that give the value they hold."""
VIEWS = frozenset({"iter", "iter_mut", "into_iter", "values", "values_mut", "drain",
                    "as_ref", "as_mut", "as_deref", "as_deref_mut", "cloned", "copied"})
"""Methods of std collections and ``Option`` that give a view of the same elements."""
HOLDERS = frozenset({"first", "last", "first_mut", "last_mut", "get", "get_mut", "pop",
                      "pop_front", "pop_back", "front", "back", "front_mut", "back_mut",
                      "next", "next_back", "peek", "lock", "read", "write", "try_lock"})
"""Methods of std collections, iterators and locks that give an ``Option``/``Result``
holding one element (unwrapped after them: ``[*]``)."""
DEREFS = frozenset({"borrow", "borrow_mut"})
"""Methods of ``RefCell`` that give the element itself."""
_WRAPPERS = frozenset({"Box::new", "Rc::new", "Arc::new", "Cow::Owned"})
"""Calls whose value is their argument, as method calls see it (types._RS_UNWRAP)."""


def value(out: Bindings, node: Any) -> str | None:
    """The access path of Rust expression ``node`` where it unwraps or wraps (``e?``,
    ``x.unwrap()``, ``x.clone()``, ``Box::new(x)``), ``"?"`` when what it unwraps is no
    path; ``None`` for any other expression (:meth:`Bindings.value` goes on)."""
    if node.type == "try_expression":
        inner = node.named_child(0) if node.named_child_count else None
        v = out.value(inner) if inner is not None else "?"
        return f"{v}[*]" if v and v != "?" else "?"
    fn = node.child_by_field_name("function")
    if fn is None:
        return None
    if fn.type == "scoped_identifier":
        args = node.child_by_field_name("arguments")
        kids = [c for c in args.named_children if c.type != "comment"] if args else []
        if len(kids) == 1 and fn.text.decode("utf-8", "replace") in _WRAPPERS:
            return out.value(kids[0]) or "?"
        return None
    if fn.type != "field_expression":
        return None
    field, obj = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    name = field.text.decode("utf-8", "replace") if field is not None else ""
    if obj is None or name not in UNWRAPS and name != "clone":
        return None
    v = out.value(obj)
    if not v or v == "?":
        return "?"
    return v if name == "clone" else f"{v}[*]"


def path(text: str) -> str:
    """A Rust receiver as written (``find().unwrap()``, ``load()?``) with each unwrapping
    (``?``, ``.unwrap()``, ``.expect(…)``…) written ``[*]`` and ``.clone()`` left out, for
    :func:`hindsight.codeindex.exprs.parse` (which drops a ``?``). Other text unchanged."""
    from hindsight.codeindex.exprs import _close

    if "?" not in text and ".unwrap" not in text and ".expect" not in text and \
            ".clone()" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            while j > 0 and text[j - 1] == "\\":
                j = text.find('"', j + 1)
            j = n if j < 0 else j + 1
            out.append(text[i:j])
            i = j
            continue
        if c == "?":
            out.append("[*]")
            i += 1
            continue
        if c == "." and (text.startswith((".unwrap", ".expect"), i) or
                         text.startswith(".clone()", i)):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            if j < n and text[j] == "(" and (text[i + 1:j] in UNWRAPS or text[i + 1:j] == "clone"):
                end = _close(text, j)
                if end < 0:
                    return text
                out.append("" if text[i + 1:j] == "clone" else "[*]")
                i = end
                continue
        out.append(c)
        i += 1
    return "".join(out)


def some(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``if let Some(x) = e {…}`` (``Ok(x)``; ``while let``; ``let Some(x) = e else {…}``;
    a ``Some(x) =>`` arm of ``match e``): ``x`` is an element of ``e`` (``e[*]``), in the
    block or arm (after a ``let … else``, to the end of the block around it). Bound as of
    the line before (an arm's ``Some(m) => m.save()`` reads it on its own line), as a
    comprehension's variable is; ``if let Some(x) = x`` (x read as it was) is not
    followed: it reads itself."""
    from hindsight.codeindex.bindings import _line, _t
    from hindsight.codeindex.elements import used_beside

    node = caps["fact.some"][0]
    if node.type == "match_arm" and used_beside(node, _t(caps["fact.lhs"][0])):
        return  # (an arm that shares its line with another use of the name)
    v = out.value(caps["fact.rhs"][0])
    if not v or v == "?":
        return
    end = node.parent if node.type == "let_declaration" and node.parent is not None else node
    out.scoped(out.scope(node), _t(caps["fact.lhs"][0]), f"{v}[*]", _line(node) - 1,
               int(end.end_point[0]) + 1)

