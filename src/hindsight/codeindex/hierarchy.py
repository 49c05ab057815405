"""Class hierarchy rules of receiver resolution (issue #14): ``typing.Protocol`` types
(structural, PEP 544), a value narrower than a declared type, members named by a prefix
(``getattr(self, "visit_" + kind)``) and ``isinstance`` narrowing."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hindsight.codeindex import dispatch
from hindsight.codeindex.bindings import BRANCH
from hindsight.codeindex.table import CLASS_KINDS
from hindsight.codeindex.values import MAX_WIDE, Value, members, union, width

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.table import FileSyms


def protocol(flow: Flow, v: Value) -> bool:
    """Whether ``v`` is an instance (or the class) of a Python ``typing.Protocol`` class
    of the repository (each member of a union): structural, so its stubs never run
    (PEP 544); a declared protocol type gives way to what is passed or returned."""
    ms = members(v)
    return bool(ms) and all(m[0] in ("inst", "cls") and _is_protocol(flow, m[1]) for m in ms)


def _is_protocol(flow: Flow, q: str) -> bool:
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    return fs is not None and fs.language == "python" and any(
        c == local and n == "Protocol" for c, n, _r, _l in fs.inherits)


def prefixed(flow: Flow, v: Value, prefix: str) -> Value | None:
    """Member ``<prefix>…`` of class or instance value ``v`` (``getattr(self, "visit_" +
    kind)``, bindings.py): any method so named in the MRO of its class or of a class
    deriving from it (the receiver may be one: ``ast.NodeVisitor``'s dispatch), at most
    ``MAX_WIDE`` of them (a wide union; more: unknown, values.py)."""
    out: list[Value | None] = []
    for m in members(v):
        if m[0] not in ("inst", "cls"):
            continue
        r = flow.ctx(m[1].partition("::")[0]) or flow.root
        for c in [m[1], *dispatch.subclasses(r, m[1])[:dispatch.MAX_SUBCLASSES]]:
            names = set()
            for cq in flow.mro(c):
                path, _, local = cq.partition("::")
                fs = flow.fs(path)
                names |= {n for n in (fs.members.get(local, {}) if fs else {})
                          if n.startswith(prefix)}
            out += [flow.member((m[0], c), n) for n in sorted(names)]
    return union(out, MAX_WIDE)


def delegated(flow: Flow, v: Value, name: str) -> Value | None:
    """Member ``name`` of instance ``v`` whose class has no such member but a
    ``__getattr__`` returning ``getattr(<path>, name)`` (a proxy: ``w.ping()`` of a
    wrapper of an ``Inner``): the member of what ``<path>`` is (Python data model,
    ``object.__getattr__``: called when the normal lookup fails; special methods bypass
    it, so a ``__dunder__`` name is never delegated). ``None`` otherwise."""
    if v[0] != "inst" or name[:2] == "__" or "[" in name:
        return None
    m = flow.member(v, "__getattr__")
    to = flow.call_value(m) if m is not None and m[0] == "fn" else None
    return flow.member(to, name) if to is not None and to != v else None


def narrower(flow: Flow, v: Value, than: Value) -> bool:
    """Whether every member of ``v`` is an instance (a class) of a class deriving from
    the class of ``than``'s members (or of that class itself)."""
    tops = {m[1] for m in members(than) if m[0] in ("inst", "cls")}
    kinds = {m[0] for m in members(than)}
    return bool(tops) and all(m[0] in kinds and tops & set(flow.mro(m[1]))
                              for m in members(v))


def narrowed(flow: Flow, fs: FileSyms, scope: str, val: str, line: int) -> Value | None:
    """Value ``!x!A|B`` (:data:`~hindsight.codeindex.bindings.NARROW`) bound at ``line``:
    the members of the value ``x`` had there that are instances of A or B, or of a class
    with a base the index cannot resolve (``class B(with_metaclass(M, A))``, ``class
    P(str)``: it may derive from them); else, when each is a class of the repository,
    instances of A, B or a class deriving from them (:func:`raised`: ``x`` is unknown, or
    none of its known values passes, so they are not all it may be), else unknown
    (``isinstance(x, str)``); the value ``x`` had when one is a ``typing.Protocol``
    (structural: what has its methods passes). A subset of a wide union stays wide.
    ``!x!-L-A|B``: the value x had at line L less the instances of A or B (after ``if
    isinstance(x, A): return``). ``!x!*A|B``: :func:`raised`."""
    name, _, kinds = val[1:].partition("!")
    if kinds[:1] == "*":  # `except E as e` (loops.except_)
        return raised(flow, fs, scope, kinds[1:], line)
    if kinds[:1] == "-":  # `-<line of the if>-A|B`: what x held there, less A and B
        _, at, kinds = kinds.split("-", 2)
        prev = flow.value(fs, scope, name, int(at))
        outs = {t[1] for k in kinds.split("|") if (t := flow.value(fs, scope, k, line))
                is not None and t[0] == "cls"}
        return union((m for m in members(prev) if not (
            m[0] == "inst" and outs & set(flow.mro(m[1])))), width(prev)) if prev else None
    prev = flow.value(fs, scope, name, line)
    tops = [flow.value(fs, scope, k, line) for k in kinds.split("|")]
    want = list(dict.fromkeys(t[1] for t in tops if t is not None and t[0] == "cls"))
    if any(protocol(flow, ("inst", q)) for q in want):
        return prev  # (structural: what has the protocol's methods passes)
    closed = len(want) == len(tops)
    kept = [m for m in members(prev) if m[0] == "inst" and (
        set(want) & set(flow.mro(m[1])) or _open(flow, m[1]))] if prev is not None else []
    if kept or not closed:
        return union(kept, width(prev)) if kept and prev else None
    return raised(flow, fs, scope, kinds, line)


def raised(flow: Flow, fs: FileSyms, scope: str, kinds: str, line: int) -> Value | None:
    """``e`` of ``except A as e`` / ``except (A, B) as e`` (``kinds`` ``A|B``): an instance
    of A, B or a class of the repository deriving from one of them (class hierarchy
    analysis, as for ``self``: dispatch.py), a wide union (at most ``MAX_WIDE``,
    values.py); instances of A and B alone when there are more; ``None`` when none is a
    class of the repository (``except OSError as e``)."""
    tops = [t[1] for k in kinds.split("|") if (t := flow.value(fs, scope, k, line))
            is not None and t[0] == "cls"]
    r = flow.ctx(fs.path) or flow.root
    subs = [c for q in tops for c in dispatch.subclasses(r, q)[:dispatch.MAX_SUBCLASSES]]
    return union([("inst", q) for q in [*tops, *subs]], MAX_WIDE) or \
        union(("inst", q) for q in tops)


def _open(flow: Flow, q: str) -> bool:
    """Whether class ``q`` or a class in its MRO has a base the index cannot resolve (a
    class outside the repository, a call, an alias it does not follow; ``object`` and
    ``typing.Generic[T]`` aside)."""
    for c in flow.mro(q):
        path, _, cls = c.partition("::")
        fs = flow.fs(path)
        names = [n for k, n, _r, _l in fs.inherits if k == cls and n not in _CLOSED] \
            if fs is not None else []
        known = [b for b in flow.root.bases(path, cls) if (o := flow.fs(b.partition("::")[0]))
                 is not None and o.kinds.get(b.partition("::")[2]) in CLASS_KINDS]
        if len(names) > len(known):  # (`with_metaclass(M, A)` resolves to a function)
            return True
    return False


_CLOSED = frozenset({"object", "Generic"})


def instance_shadow(flow: Flow, q: str, name: str, method: str) -> tuple[str, Value | None]:
    """Whether methods of the classes in the MRO of Python class ``q`` bind ``self.<name>``
    (``self.run = fn``), an instance attribute that comes before the class's method
    ``method`` (``path::local``) of that name (the instance ``__dict__`` before a non-data
    descriptor: Python data model, "Invoking Descriptors"): ``"hides"`` when one such
    binding is in an ``__init__``, outside any branch or loop body (every instance has
    it), ``"may"`` when all are elsewhere (the method runs until one ran), ``""`` when
    there is none or the method is a property (a data descriptor: ``self.x = v`` calls its
    setter); with the value of those bindings (``None``: unknown)."""
    key = (q, name, method)
    hit = flow.shades.get(key)
    if hit is None:
        hit = flow.shades[key] = _shadow(flow, q, name, method)
    state, cq = hit
    if not state:
        return "", None
    cfs = flow.fs(cq.partition("::")[0])
    bound = _bound(flow, q, cq, cfs.attrs.get(cq.partition("::")[2]), name) \
        if cfs is not None else []
    return state, flow._guarded(("attr!", cq, name), partial(flow._agree, cfs, bound)) \
        if cfs is not None else None


def _shadow(flow: Flow, q: str, name: str, method: str) -> tuple[str, str]:
    """(:func:`instance_shadow`'s answer, the class whose methods bind the attribute)."""
    for cq in flow.mro(q):
        cpath, _, cls = cq.partition("::")
        cfs = flow.fs(cpath)
        if cfs is None or name not in cfs.self_bound or cfs.language != "python":
            continue
        attrs = cfs.attrs.get(cls)
        bound = _bound(flow, q, cq, attrs, name)
        if not bound or attrs is None:
            continue
        path, _, local = method.partition("::")
        fs = flow.fs(path)
        if fs is None or {v for _l, v in fs.flow.get(local, {}).get("@dec", [])} & _DATA:
            return "", ""
        branched = {(s, ln) for s, ln, _e in attrs.get(name + BRANCH, ())} if attrs else set()
        hides = any(s.endswith(".__init__") and (s, ln) not in branched for s, ln, _v in bound)
        return "hides" if hides else "may", cq
    return "", ""


def _bound(flow: Flow, q: str, cq: str, attrs: dict[str, list[tuple[str, int, str]]] | None,
           name: str) -> list[tuple[str, int, str]]:
    """The bindings ``self.<name> = …`` in methods of class ``cq`` that instances of class
    ``q`` may run: an ``__init__``'s only when ``q``'s own ``__init__`` chain reaches it
    (a subclass's ``__init__`` without ``super().__init__()`` never runs it: break-it of
    session 35)."""
    cls = cq.partition("::")[2]
    out = [b for b in (attrs or {}).get(name, ()) if b[0] != cls]
    if any(s.endswith(".__init__") for s, _l, _v in out) and not _init_runs(flow, q, cq):
        out = [b for b in out if not b[0].endswith(".__init__")]
    return out


def _init_runs(flow: Flow, q: str, cq: str) -> bool:
    """Whether constructing class ``q`` runs class ``cq``'s own ``__init__``: along q's
    order, each ``__init__`` before it calls ``super().__init__`` (the ``@super`` facts)."""
    for c in flow.mro(q):
        path, _, cls = c.partition("::")
        fs = flow.fs(path)
        local = fs.members.get(cls, {}).get("__init__") if fs is not None else None
        if local is None or fs is None:
            continue
        if c == cq:
            return True
        if not dispatch.calls_on(fs, local, "__init__"):
            return False
    return False


def shadowed(r: Resolver, caller: str, name: str, hit: str) -> str:
    """How an instance attribute bound by a method of the class or of a base of
    ``caller``'s (``self.run = fn``) comes before method ``hit`` in ``self.<name>()``
    (Python; :func:`instance_shadow`): ``"hides"``, ``"may"`` or ``""``."""
    cls = r.enclosing_class(caller) if r.f.language == "python" else ""
    return instance_shadow(r.flow, f"{r.f.path}::{cls}", name, hit)[0] if cls else ""


_DATA = frozenset({"property", "cached_property", "functools.cached_property"})


def declared_bases(r: Resolver, path: str, cls: str) -> tuple[list[str], frozenset[str]]:
    """The resolved base classes class ``path::cls`` declares (C#: in each of its
    ``partial`` declarations, :func:`namespaces.partial_parts`), with the keys their
    resolution needed; :meth:`Resolver.bases` memoises them."""
    from hindsight.codeindex.namespaces import partial_parts

    fs = r.t.get(path)
    sub = type(r)(r.t, fs) if fs is not None else None
    out: list[str] = []
    deps: set[str] = set()
    parts = [(path, cls), *partial_parts(sub, fs, cls)] if sub and fs else []
    selves = {f"{p}::{c}" for p, c in parts}
    for p, c in parts:
        pfs = r.t.get(p)
        if pfs is None or sub is None:
            continue
        psub = type(r)(r.t, pfs) if p != path else sub
        for _c, name, recv, _line in (i for i in pfs.inherits if i[0] == c):
            dst = psub._by_name(pfs.base_scope(c), name, recv, pfs.starts.get(c, 0))
            if dst and dst not in out and dst not in selves:
                out.append(dst)
        deps |= psub.deps
    return out, frozenset(deps)
