"""Classes and containers in receiver resolution (:mod:`hindsight.codeindex.flow`): the
method resolution order, JavaScript constructor functions, methods that return their own
receiver, attributes bound in the method itself, and the elements of lists and dicts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hindsight.codeindex import reaching, returns
from hindsight.codeindex.bindings import AFTER, BRANCH, GLOBAL
from hindsight.codeindex.enums import is_enum
from hindsight.codeindex.languages import JS_FAMILY, SPECS
from hindsight.codeindex.namespaces import partial_parts
from hindsight.codeindex.pynodes import COMPARISONS, SPECIAL
from hindsight.codeindex.table import CLASS_KINDS, FUNC_KINDS, FileSyms
from hindsight.codeindex.values import Value, members, union, width

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.resolve import Resolver


def mro(flow: Flow, q: str) -> list[str]:
    """Method resolution order of class ``q``: C3 linearisation for Python (Python's own
    rule; base-order search when C3 fails), depth-first base order elsewhere. The bases'
    orders are computed first, deepest first, without recursion (a chain of hundreds of
    classes is fine); a cycle of bases ends where it closes. Kept in ``flow._mro``."""
    done = flow._mro
    stack, expanded = [q], set()
    while stack:
        c = stack[-1]
        if c in done:
            stack.pop()
            continue
        if c not in expanded:
            expanded.add(c)
            todo = [b for b in bases(flow, c) if b not in done and b not in expanded]
            if todo:
                stack += todo
                continue
        stack.pop()
        done[c] = linearise(flow, c)
    return done[q]


def bases(flow: Flow, q: str) -> list[str]:
    """The resolved base classes of class ``q`` (``[]`` when its file is unknown)."""
    path, _, cls = q.partition("::")
    if flow.fs(path) is None:
        return []
    return [b for b in flow.root.bases(path, cls) if b.partition("::")[2] and b != q]


def linearise(flow: Flow, q: str) -> list[str]:
    """Method resolution order of class ``q`` from its bases' orders (see
    :meth:`Flow.mro`, which computes those first; a base whose order is not known, in a
    cycle, counts as itself)."""
    path, _, _cls = q.partition("::")
    fs = flow.fs(path)
    if fs is None:
        return [q]
    bases_ = bases(flow, q)
    lists = [flow._mro.get(b, [b]) for b in bases_]
    if fs.language == "python":
        merged = c3([*[list(x) for x in lists], list(bases_)])
        if merged is not None:
            return [q, *merged]
    out = [q]  # (C#: then the class's other `partial` declarations)
    out += [f"{p}::{c}" for p, c in partial_parts(flow.root, fs, _cls)]
    for lst in lists:
        out += [c for c in lst if c not in out]
    return out


def c3(seqs: list[list[str]]) -> list[str] | None:
    """C3 merge (Barrett et al., "A Monotonic Superclass Linearization for Dylan", 1996;
    Python's MRO since 2.3); ``None`` when no consistent order exists."""
    out: list[str] = []
    seqs = [s for s in seqs if s]
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head in t[1:] for t in seqs):
                break
        else:
            return None
        out.append(head)
        seqs = [[c for c in t if c != head] for t in seqs]
        seqs = [t for t in seqs if t]
    return out


def constructor(flow: Flow, q: str) -> bool:
    """A JavaScript function with members (``F.prototype.m = function``, ``this.m =
    function``): ``new F()`` gives an instance of it."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    return fs is not None and fs.language in JS_FAMILY and \
        bool(fs.members.get(local))


def js_constructor_of(fs: FileSyms, scope: str) -> str:
    """``this`` in a JavaScript constructor function or one of its methods: the innermost
    scope around ``scope`` (itself included) that has members (``F.prototype.m =
    function``, ``this.m = …``), else ``""``."""
    if fs.language not in JS_FAMILY:
        return ""
    s = scope
    while s:
        if fs.members.get(s):
            return s
        s = fs.parents.get(s, "")
    return ""


_ASYNC_OR_GEN = re.compile(r"\basync\b|\*")


def own(flow: Flow, recv: Value, q: str) -> Value | None:
    """What calling method ``q`` on ``recv`` gives when the method returns its own
    receiver (``return self``, ``return cls()``, ``return cls``; JavaScript's and
    TypeScript's ``return this``, a TypeScript method declared ``: this``): an instance (or
    the class) of the receiver's class, a subclass's too (``Child.make()`` of an
    inherited ``Base.make``, ``new Derived().name("x").extra()``); ``None`` when it
    returns anything else."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    rets = fs.flow.get(local, {}).get("return") if fs is not None else None
    if fs is not None and fs.language != "python":  # `return this;`, TypeScript's `: this`
        # (not Java or C#: a call there binds by the declared return type; not an async
        # method or a generator: they return a promise, a generator object)
        declared = fs.declared_return(local)
        head = fs.sigs.get(local, "").partition("(")[0]
        if recv[0] == "inst" and fs.language in JS_FAMILY and not _ASYNC_OR_GEN.search(head) and (
                declared == "this" or not declared and rets and all(
                    v in SPECS[fs.language].self_names and fs.is_receiver(local, v, None)
                    for _l, v in rets)):
            return recv
        return None
    if not rets or fs is None:
        return None
    vals: set[str] = set()
    for _l, val in rets:  # `obj = cls(); …; return obj` returns what cls() makes
        bound = fs.flow.get(local, {}).get(val) if val not in ("self", "cls") else None
        vals |= {b for _b, b in bound} if bound else {val}
    if any(v.partition("(")[0] in ("self", "cls") and not fs.is_receiver(
            local, v.partition("(")[0], None) for v in vals):
        return None  # (`cls = self._plugins[name]; return cls()`: a local `cls`)
    vals = {"cls()" if v in ("type(self)()", "self.__class__()") else v for v in vals}
    if vals <= {"self", "cls()"} and (recv[0] == "inst" or "self" not in vals):
        return ("inst", recv[1])
    if vals == {"cls"} and recv[0] == "cls":
        return recv
    return None


def bound(flow: Flow, fs: FileSyms, scope: str, name: str, line: int | None
      ) -> tuple[bool, Value | None]:
    """(whether ``scope`` binds ``name``, its value at ``line``). For ``xs[*]`` (an
    element) and ``d[?]`` (a value under any key): the elements of the last literal
    bound to it, and those added since by ``xs.append(v)`` / ``d[k] = v`` (facts
    ``xs[+*]``, ``d[+?]``), unless ``xs`` itself was bound again after them. ``xs[-1]``
    (a position from the end) is any element when values were appended since."""
    d = fs.flow.get(scope, {})
    if name.endswith("]") and name[name.rfind("[") + 1:name.rfind("[") + 2] == "-":
        # `xs[-1]` of a literal: its last element, unless values were appended since
        base, limit = name[:name.rfind("[")], line if line is not None else 1 << 62
        since = max((b for b, _v in d.get(base, []) if b < limit), default=-1)
        if any(since <= b < limit for b, _v in d.get(f"{base}[+*]", [])) or (
                not scope and filled(fs, base, "*")):
            return bound(flow, fs, scope, f"{base}[*]", line)
    if not name.endswith(("[?]", "[*]")):
        b = d.get(name)  # (a module name a function rebinds by `global`: either value)
        if not b and name.endswith("']"):
            # `pool['a']` of `pool = {n: W(n) for n in ns}`: a dict whose keys the text
            # does not give (no `pool['k']` of a literal), so the value under any key
            base = name[:name.rfind("[")]
            if returns.any_key(d, base):
                return bound(flow, fs, scope, base + "[?]", line)
        if b and name.endswith("]") and reaching.rebound_since(d, name, line):
            return False, None  # `d = {'a': f}; d = Reg(); d['a']`: no longer that dict's
        # an element bound in a branch that ended: the container's binding before it too
        ends = d.get(name[:name.rfind("[")] + BRANCH) if name.endswith("]") else \
            d.get(name + GLOBAL)
        return (True, flow.pick(fs, scope, b, line, ends)) if b else (False, None)
    base = name[:-3]
    lit, acc = d.get(name, []), d.get(f"{base}[+{name[-2]}]", [])
    if not lit and not acc and (scope or not filled(fs, base, name[-2])):
        return False, None
    limit = line if line is not None else 1 << 62
    last_lit = max((b for b, _v in lit if b < limit), default=-1)
    rebound = max((b for b, _v in d.get(base, []) if b < limit), default=-1)
    cut = max(last_lit, rebound)
    vals = [(b, v) for b, v in lit if b == last_lit and last_lit >= rebound] + \
        [(b, v) for b, v in acc if cut <= b < limit]
    out = [flow.value(fs, scope, v, b) for b, v in vals]
    if not scope:  # a module's list or dict filled in its functions (`REGISTRY[k] = f`)
        saved, flow._returning = flow._returning, 0  # (what fills it is no call's return:
        try:  # every call site of the filling function counts, Flow.param)
            out += [flow.value(fs, s, v, b) for s, b, v in filled(fs, base, name[-2])]
        finally:
            flow._returning = saved
    return True, union(out)


def filled(fs: FileSyms, base: str, kind: str) -> list[tuple[str, int, str]]:
    """``(scope, line, value)`` of the elements that functions of ``fs`` add to the
    module-level ``base`` (``base.append(v)``, ``base[k] = v``; ``kind`` ``*`` or ``?``),
    where the function binds no local of that name."""
    writes = fs.element_writes
    a, b = writes.get(f"{base}[{kind}]", []), writes.get(f"{base}[+{kind}]", [])
    rows = sorted(a + b, key=lambda w: w[0]) if a and b else a or b  # scope order
    flow = fs.flow
    return [(s, line, v) for _i, s, line, v in rows if base not in flow[s]]


def foreign(flow: Flow, fs: FileSyms, q: str, name: str) -> list[tuple[str, int, str]]:
    """``(scope, line, value)`` of the writes to attribute ``name`` of class ``q``'s
    instances made from other objects' methods in ``q``'s file (``self.button.on_click =
    self.handle`` in ``Form``, when ``self.button`` is a ``Button``), and through names
    held where the write is made (``server = Server(); server.handler = Handler()``:
    ``self.handler`` in ``Server.serve`` may be that ``Handler``; ``fs.outside_attrs``)."""
    rows = [(f"self.{o}", s, ln, v) for o, s, ln, v in fs.foreign_attrs.get(name, ())] + \
        fs.outside_attrs.get(name, [])
    out = []
    for obj, scope, line, value in rows:
        v = flow.value(fs, scope, obj, line)
        if v is not None and (v == ("inst", q) or ("inst", q) in members(v)):
            out.append((scope, line, value))
    return out


SPECIAL_METHODS = SPECIAL  # (for flow.py)


def special(flow: Flow, v: Value, method: str) -> Value | None:
    """What ``v.<method>()`` gives for a method of :data:`pynodes.SPECIAL`: ``with v``
    (:func:`enter`), or an operator (``v + b`` is ``v.__add__(b)``: pynodes.operator_call):
    what the method returns; when the instance's class defines an arithmetic or bitwise
    operator method whose return value is not known here, an instance of that class
    (``path / "x"``, ``day + timedelta(1)``: such methods return ``type(self)(…)`` or a
    factory's value by convention; a comparison's is not assumed). ``None`` when the
    class defines no such method (``n + 1`` of an int)."""
    if method in ("__enter__", "__aenter__"):
        return enter(flow, v, method)
    m = flow.member(v, method) if v[0] == "inst" else None
    if m is None or m[0] != "fn":
        return None
    w = own(flow, v, m[1])  # (`return self`: v, a subclass's too)
    w = w if w is not None else flow.call_value(m)
    return w if w is not None or method in COMPARISONS else v


def enter(flow: Flow, v: Value, method: str = "__enter__") -> Value | None:
    """What ``with v as x`` binds: what ``v.__enter__()`` (``method``; ``__aenter__`` for
    ``async with``) returns, ``v`` itself when its
    class does not define ``__enter__``; for a generator (a ``@contextmanager``
    function's call) what it yields."""
    if v[0] == "gen":
        return flow.element(v)
    m = flow.member(v, method) if v[0] == "inst" else None
    if m is None:
        return v
    same = own(flow, v, m[1]) if m[0] == "fn" else None  # `return self`: v, a subclass's too
    return same if same is not None else flow.call_value(m)


def import_binding(flow: Flow, fs: FileSyms, name: str) -> Value | None:
    """The value a module importing Python module ``fs`` sees for its top-level ``name``:
    the last binding outside the bodies of its ``if __name__ == "__main__":`` guards
    (false on import; fact ``@main``: :func:`hindsight.codeindex.pymarks.main_guard`)."""
    top = fs.flow.get("", {})
    b = top.get(name)
    cut = top.get("@main")
    if b and cut:
        b = [x for x in b if not any(s <= x[0] <= int(e) for s, e in cut)]
    if not b and "[" in name:  # `PLUGINS[?][*]` of a table its functions fill
        return bound(flow, fs, "", name, None)[1]
    return flow.pick(fs, "", b, None) if b else None


def imported(flow: Flow, r: Resolver, fs: FileSyms, name: str, suffix: str = "",
             depth: int = 0) -> Value | None:
    """The value of ``name`` imported from another module (``from client import
    default_client``) when the module binds it at its top level (``default_client =
    HttpClient(…)``): the value of that binding; with ``suffix`` (``[*]``, ``['k']``)
    the value of that part of it (the module's ``PIPELINE = [auth, timing]``). A module
    that imports the name itself (``from .tracer import tracer`` in a package's
    ``__init__``) is followed, 3 modules deep."""
    for mod, iname in fs.by_alias.get(name, ()):
        if iname:
            for p in r.module_files(fs, mod):
                other = flow.fs(p)
                if other is not None and other.path != fs.path:
                    v = import_binding(flow, other, iname + suffix)
                    if v is None and depth < 3 and iname in other.by_alias:
                        rr = flow.ctx(other.path)
                        v = imported(flow, rr, other, iname, suffix, depth + 1) \
                            if rr is not None else None
                    if v is not None:
                        return v
    return None


def appended(name: str, attrs: Mapping[str, object]) -> str:
    """``xs[*]`` for ``xs[i]`` (an int index) of an attribute filled by ``append``
    (``attrs`` has ``xs[+*]``), when the index is from the end (``xs[-1]``) or no literal
    gives it (``xs[0]``); else ``name``."""
    at = name.rfind("[")
    idx = name[at + 1:-1] if at > 0 and name[-1:] == "]" else ""
    if idx.lstrip("-").isdigit() and f"{name[:at]}[+*]" in attrs and (
            idx[0] == "-" or name not in attrs):
        return f"{name[:at]}[*]"
    return name


def elements_of_binding(flow: Flow, fs: FileSyms, scope: str, name: str, line: int,
                        seg: str = "[*]") -> Value | None:
    """An element of ``name`` bound (in ``scope`` or at the top of the module) to a call
    or another name: the elements of that value (``ws = pool()``: ``pool()[*]``); with
    ``seg`` (``[1]``, ``['k']``) that part of it instead."""
    for s in dict.fromkeys((scope, "")):
        bindings = fs.flow.get(s, {}).get(name)
        if not bindings:
            continue
        before = [b for b in bindings if b[0] < line] if s == scope else bindings
        if not before:
            return None
        bl = max(b for b, _v in before)
        vals = [v for b, v in before if b == bl]
        if len(vals) != 1 or vals[0] == "?" or vals[0][0] == AFTER:
            return None
        return flow.value(fs, s, vals[0] + seg, bl)
    return None


def module_attr(flow: Flow, path: str, name: str) -> Value | None:
    """``name`` in the module of file ``path``: a definition or re-export, a Python
    submodule, a module-level binding; for Go, in any file of the package."""
    if "[" not in name:
        hit = flow.root._member([f"{path}::"], name)
        if hit:
            return flow.classify(hit[0])
    other = flow.fs(path)
    if other is None:
        return None
    v = import_binding(flow, other, name) if path != flow.root.f.path else \
        flow.binding(other, "", name, None)
    if v is None and other.language == "python" and name in other.by_alias and \
            (rr := flow.ctx(path)) is not None:  # `lib.inst` of lib's `from .api import
        v = imported(flow, rr, other, name)  # inst`: api's binding (break-it of session 35)
    if v is None and other.language == "go":
        for p in flow.root._by_key(f"dir:{path.rpartition('/')[0]}"):
            if p != path and p.endswith(".go"):
                sib = flow.fs(p)
                if sib is not None and name in sib.top:
                    return flow.classify(f"{p}::{name}")
    return v


def iterated(flow: Flow, v: Value) -> Value | None:
    """An element of instance ``v`` (``for row in table``): what its class's
    ``__iter__`` gives: the element of a declared ``-> Iterator[C]``, what the generator
    it returns yields, what ``__next__`` returns when it returns an iterator (itself
    included), an element of the attribute it returns (``return iter(self.rows)``); with
    no ``__iter__``, what ``__getitem__`` returns (Python's sequence protocol)."""
    it = flow.member(v, "__iter__")
    if it is None or it[0] != "fn":  # (the sequence protocol: `__getitem__(0)`, `(1)`…)
        get = flow.member(v, "__getitem__") if it is None else None
        return flow.call_value(get) if get is not None and get[0] == "fn" else None
    if returns.declared_element(flow, it[1]):
        return returns.value(flow, it[1], "return[*]")
    r = flow.call_value(it)
    if r is None:  # `return iter(self.items)`: an element of what it returns
        path, _, local = it[1].partition("::")
        fs = flow.fs(path)
        return union(flow.value(fs, local, val + "[*]", line) for line, val in fs.flow.get(
            local, {}).get("return", []) if "(" not in val and "[" not in val) if fs else None
    if r[0] not in ("inst", "gen", "any"):
        return None
    if r[0] == "inst":
        nxt = flow.member(r, "__next__")
        return flow.call_value(nxt) if nxt is not None and nxt[0] == "fn" else None
    return flow.element(r)


def element(flow: Flow, v: Value) -> Value | None:
    """An element of ``v`` (the variable of a ``for`` loop): what a generator function
    yields, when all its ``yield`` statements agree; for an instance, what its
    ``__iter__`` gives (:func:`iterated`); for an enum class, one of its members."""
    kind, q = v
    if kind == "any":
        return union((element(flow, m) for m in members(v)), width(v))
    if kind == "inst":
        return flow._guarded(("iter", q), lambda: iterated(flow, v))
    if kind == "cls":
        return ("inst", q) if is_enum(flow, q) else None
    if kind != "gen":
        return None
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    if fs is None:
        return None
    return flow._guarded(("yield", q), lambda: flow._agree(
        fs, [(local, line, val) for line, val in fs.flow.get(local, {}).get("yield", [])]))


def element_at(flow: Flow, v: Value, segs: tuple[str, ...], i: int
               ) -> tuple[Value | None, int]:
    """An element of ``v`` (:func:`element`) with the index of the segment to read next;
    a generator's element followed by a position (``segs[i]``, ``[1]``: ``for name, f
    in handlers()`` of ``yield "a", f``) is that position of its ``yield`` tuples."""
    seg = segs[i] if i < len(segs) else ""
    if seg[:1] == "[" and seg[1:-1].lstrip("-").isdigit() and \
            any(m[0] == "gen" for m in members(v)):
        out = []
        for m in members(v):
            path, _, local = m[1].partition("::")
            fs = flow.fs(path) if m[0] == "gen" else None
            rows = fs.flow.get(local, {}).get("yield" + seg, []) if fs is not None else []
            out.append(flow._agree(fs, [(local, ln, val) for ln, val in rows])
                       if fs is not None and rows else None)
        return union(out), i + 1
    return element(flow, v), i


def classify(flow: Flow, q: str, raw: bool = False) -> Value | None:
    """The value definition ``q`` (``path::Local``) denotes: a function, a class, a
    module, or a constant's value. A Python function whose outermost decorator of the
    repository returns an instance (``@group()`` making a ``Group`` of the function, as
    click does) denotes that instance, unless ``raw`` (the function itself: what the
    decorator is called with)."""
    path, _, local = q.partition("::")
    if not local:
        return ("mod", q)
    other = flow.fs(path)
    if other is None:
        return None
    kind = other.kinds.get(local)
    if kind is None:
        return None
    if kind in FUNC_KINDS:
        decos = other.flow.get(local, {}).get("@dec") if not raw else None
        if decos and other.language == "python" and decos[0][1] not in _PLAIN_DECORATORS \
                and not decos[0][1].endswith((".setter", ".getter", ".deleter")):
            made = flow._guarded(("deco", q), lambda: _decorated_value(flow, other, local))
            if made is not None and made[0] == "inst":
                return made
        return ("fn", q)
    if kind == "module" and other.language == "rust" and not other.members.get(local):
        d, _, f = path.rpartition("/")  # `mod dir_entry;`: the module's own file
        d = d if f in ("main.rs", "lib.rs", "mod.rs") else path[:-3]
        for p in (f"{d}/{local}.rs" if d else f"{local}.rs", f"{d}/{local}/mod.rs".lstrip("/")):
            if flow.fs(p) is not None:
                return ("mod", f"{p}::")
    if kind in CLASS_KINDS:
        return ("cls", q)
    parent = other.parents.get(local, "")
    name = local.rpartition(".")[2]
    if parent:
        return flow.attr_value(("cls", f"{path}::{parent}"), name)
    return flow.binding(other, "", name, None) if path == flow._root_path \
        else import_binding(flow, other, name)


# decorators of the standard library that never make an instance of a repository class
_PLAIN_DECORATORS = frozenset({
    "property", "staticmethod", "classmethod", "abstractmethod", "abc.abstractmethod",
    "functools.wraps()", "wraps()", "functools.cache", "cache", "functools.lru_cache()",
    "lru_cache()", "functools.lru_cache", "lru_cache", "functools.cached_property",
    "cached_property", "contextmanager", "contextlib.contextmanager", "asynccontextmanager",
    "contextlib.asynccontextmanager", "overload", "typing.overload", "override",
    "typing.override", "functools.singledispatch", "singledispatch", "final", "typing.final",
    "functools.total_ordering", "dataclass", "dataclasses.dataclass", "pytest.fixture"})


def _decorated_value(flow: Flow, fs: FileSyms, local: str) -> Value | None:
    """What the outermost decorator of function ``local`` returns for it: the value of
    calling the decorator (a class constructed from it, say), ``None`` when unknown."""
    decos = fs.flow.get(local, {}).get("@dec", [])
    d = flow.value(fs, fs.parents.get(local, ""), decos[0][1], fs.starts.get(local, 0))
    return flow.call_value(d) if d is not None and d[0] in ("fn", "cls") else None


def stored_elements(attrs: dict[str, list[tuple[str, int, str]]], name: str
                    ) -> list[tuple[str, int, str]]:
    """For ``xs[*]`` / ``xs[?]`` of an attribute with no element facts: the elements of
    each name stored in it (``self.workers = workers``: ``workers[*]`` where it was
    bound, a parameter's elements from its call sites), as ``(scope, line, value)``
    bindings; only names (a literal's elements have facts of their own)."""
    part = name[-3:]
    if part not in ("[*]", "[?]") or "[" in name[:-3]:
        return []
    return [(s, ln, v + part) for s, ln, v in attrs.get(name[:-3], []) if v.isidentifier()]
