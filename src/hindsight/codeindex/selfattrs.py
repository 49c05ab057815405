"""Attributes read through ``self`` (issue #14, item 1): a method's own earlier binding,
class attributes that subclasses set (class hierarchy analysis, as
:mod:`hindsight.codeindex.dispatch` does for methods), and ``.get`` of a dict attribute.
Split from :mod:`hindsight.codeindex.classes`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex import dispatch
from hindsight.codeindex.values import Value, union

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.table import FileSyms


def own_attr(flow: Flow, fs: FileSyms, scope: str, attr: str, line: int) -> Value | None:
    """The value of ``self.<attr>`` bound last before ``line`` in method ``scope``
    itself, or ``None`` (then every binding of the attribute counts)."""
    cls = fs.enclosing_class(scope)
    here = [(b, v) for s, b, v in fs.attrs.get(cls, {}).get(attr, ())
            if s == scope and b < line] if cls else []
    return flow.pick(fs, scope, here, line) if here else None


def self_attr(flow: Flow, fs: FileSyms, scope: str, segs: tuple[str, ...], line: int
              ) -> tuple[Value | None, int]:
    """``self.<attr>`` (``segs[1]``) at ``line`` of method ``scope``: its binding earlier in
    the method (:func:`own_attr`) or the class attribute subclasses set
    (:func:`overridden`), with the index of ``segs`` after it; also an element
    ``self.<attr>[*]`` that subclasses set (``middleware = (H1, H2)`` over ``middleware =
    ()``: break-it of session 35); ``(None, 0)`` when neither applies."""
    attr = segs[1][1:]
    own = own_attr(flow, fs, scope, attr, line) or overridden(flow, fs, scope, attr, line)
    if own is not None:
        return own, 2
    if len(segs) > 2 and segs[2] in ("[*]", "[?]"):
        own = overridden(flow, fs, scope, attr + segs[2], line)
        if own is not None:
            return own, 3
    return None, 0


def overridden(flow: Flow, fs: FileSyms, scope: str, attr: str, line: int) -> Value | None:
    """``self.<attr>`` in a method of class K (Python) when no method of K binds ``attr``
    and subclasses in the repository that run this method (do not override it) get
    another value along their own order (``handler_class = XmlHandler``, ``model =
    Article`` over ``model = None``, a mixin's binding): the union of K's value (if any)
    and theirs (class hierarchy analysis, as
    :mod:`hindsight.codeindex.dispatch` does for methods); ``None`` when no subclass
    rebinds it (the usual lookup then applies)."""
    cls = fs.enclosing_class(scope)
    if not cls or fs.language != "python" or any(  # (`self.x = …` in a method wins)
            s != cls for s, _b, _v in fs.attrs.get(cls, {}).get(attr, ())) or \
            not fs.is_receiver(scope, "self", line):
        return None
    meth = scope[len(cls) + 1:].partition(".")[0]
    return flow._guarded(("over", fs.path, cls, meth, attr),
                         lambda: _overridden(flow, fs, cls, meth, attr))


def _overridden(flow: Flow, fs: FileSyms, cls: str, method: str, attr: str) -> Value | None:
    r = flow.ctx(fs.path)
    q = f"{fs.path}::{cls}"
    subs = dispatch.subclasses(r, q) if r is not None else []
    if not subs or len(subs) > dispatch.MAX_SUBCLASSES:
        return None
    meth = f"{q}.{method}"
    base = flow.attr_value(("inst", q), attr)
    extra = []
    for sq in subs:  # a subclass running this method, whose order binds attr otherwise
        # (in its own body or a mixin's: `class CommentList(CommentMixin, ListView)`)
        if flow.member(("cls", sq), meth.rpartition(".")[2]) == ("fn", meth):
            v = flow.attr_value(("inst", sq), attr)
            if v is not None and v != base:
                extra.append(v)
    if not extra:
        return None
    return union([base, *extra])


def dict_get(flow: Flow, v: Value, attr: str, segs: tuple[str, ...], i: int
             ) -> tuple[Value | None, int] | None:
    """``<v>.<attr>.get(k)`` (``segs[i:]`` is ``.get``, ``()`` and maybe ``[~'k']``) when
    the attribute holds a dict the index knows: (its value at ``'k'``, or at any key,
    the index in ``segs`` after the call); ``None`` when it is no such dict (a
    ``self.session.get(url)`` method call reads on)."""
    if segs[i:i + 2] != (".get", "()") or "[" in attr:
        return None
    j, key = i + 2, "[?]"
    if j < len(segs) and segs[j][:2] == "[~":
        j, key = j + 1, "[" + segs[j][2:]
    got = flow.attr_value(v, attr + key)
    return (got, j) if got is not None else None
