"""Receiver resolution without a type checker (issue #14, item 1).

When the name rules of :mod:`hindsight.codeindex.resolve` leave a call unresolved, the call's
receiver (or, for ``x()``, the callee) is evaluated as an access path (:mod:`.exprs`) over the
receiver facts of the files (:mod:`hindsight.codeindex.receivers`). A value is one of

* ``("cls", q)`` the class (or other type) ``q`` itself, ``("inst", q)`` an instance of it;
* ``("fn", q)`` the function or method ``q``; ``("mod", "path::")`` a module;
* ``("super", q)``: ``super()`` inside class ``q``; ``("gen", q)`` what calling the
  generator function ``q`` gives (its elements are what it yields).

A name is looked up as the language does, innermost first: the binding in the enclosing function
that is the last one *before* the use (flow order; a later one in a loop does not count, and then
the name is unknown), bindings of enclosing functions (closures), the definitions and imports the
name rules know, then module-level bindings (the last one). ``self``/``this`` are an instance of
the enclosing class, ``cls``/``Self`` the class (as a method's first parameter, unless bound again:
``FileSyms.is_receiver``). Attributes are looked up along the class's method resolution order (C3
for Python, base order elsewhere): a method or nested class, else the attribute's bindings in any
method (``self.x = C()``), in the class body or declared as fields. Calling a class gives an
instance, a function what it returns: its declared return type, else the value of its ``return``
statements. An undeclared parameter takes the values passed at its function's call sites
(decorators are call sites: ``@dec`` calls ``dec(f)``), also after a binding that may not have run
(``if c is None: c = D()``). A property read gives its value. ``isinstance(x, C)`` narrows x.
Several values (a loop over ``[f, g]``, returns, call sites or bindings that differ) are a union
(:mod:`hindsight.codeindex.values`, ``MAX_TARGETS``; ``MAX_WIDE``), an edge per target.
Every doubt ends in "unknown" and the call stays unresolved: a value that is no path, a loop, more
than ``MAX_STEPS`` evaluation steps for one file. Every file consulted is a dependency (its
``path:`` key and its lookups' keys: incremental).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from hindsight.codeindex import callsites, classes, dispatch, enums, reaching, returns, rustimpl
from hindsight.codeindex import namespaces as ns
from hindsight.codeindex import selfattrs as sa
from hindsight.codeindex.bindings import AFTER, BRANCH, NARROW, SCOPED
from hindsight.codeindex.elements import held, view
from hindsight.codeindex.exprs import indexed, parse, part_index
from hindsight.codeindex.hierarchy import delegated, instance_shadow, narrowed, prefixed
from hindsight.codeindex.languages import SPECS
from hindsight.codeindex.table import CLASS_KINDS, FUNC_KINDS, OWN_CLASS, SUPER_NAMES, FileSyms
from hindsight.codeindex.values import Value, each_once, members, union, width
from hindsight.codeindex.worth import worth

if TYPE_CHECKING:
    from hindsight.codeindex.resolve import Resolver

__all__ = ["Flow", "Value"]

MAX_STEPS = 20_000  # evaluation steps per resolved file (a bound on pathological files)
MAX_NEST = 24  # nested evaluations (a chain of returns, attributes and parameters)
_PROPERTY = frozenset({"property", "cached_property", "functools.cached_property"})
_CLASS_SELF = frozenset({"cls", "Self", "static"})
_SELF_TYPED = frozenset({"csharp", "go"})  # (namespaces.self_typed)
_CLASS_OF_SELF = OWN_CLASS - {"cls"}


class Flow:
    """Evaluates access paths for the resolver ``root`` (one file being resolved); the
    files it reads are resolved through their own :class:`Resolver`, sharing ``deps``."""

    def __init__(self, root: Resolver) -> None:
        # No reference cycles (collected late, in a forked child): held weakly, both ways.
        self._root = weakref.ref(root)
        self._root_path = root.f.path
        self._ctx: dict[str, Resolver] = {}
        self._memo: dict[tuple[str, ...], Value | None] = {}
        self._busy: set[tuple[str, ...]] = set()
        self._mro: dict[str, list[str]] = {}
        self.callees: dict[tuple[str, str, tuple[str, ...], int], tuple[str, int]] = {}
        self.steps = 0
        self.worthy: dict[tuple[str, str, str], int] = {}  # see codeindex/worth.py
        self.shades: dict[tuple[str, str, str], tuple[str, str]] = {}  # hierarchy.py
        self._nest = 0
        self._returning = 0  # > 0 while a return value is evaluated (see param)
        self._caller = ""  # the scope of the call being resolved (see _undecorated)

    # ---- contexts -----------------------------------------------------------------------
    def ctx(self, path: str) -> Resolver | None:
        """The resolver of file ``path`` (recording the dependency on it)."""
        if path == self._root_path:
            return self.root
        r = self._ctx.get(path)
        if r is None:
            root = self.root
            fs = root._file(path)
            if fs is None:
                return None
            r = type(root)(root.t, fs, deps=root.deps)
            r.share_flow(self)
            self._ctx[path] = r
        return r

    @property
    def root(self) -> Resolver:
        r = self._root()
        assert r is not None, "a flow outlived the resolver it works for"
        return r

    def fs(self, path: str) -> FileSyms | None:
        return r.f if (r := self.ctx(path)) is not None else None

    # ---- a call --------------------------------------------------------------------------
    def calls(self, fs: FileSyms, scope: str, name: str, receiver: str, line: int) -> list[str]:
        """Qualified names a call of ``name`` on ``receiver`` (``""``: a bare call; ``name``
        may be a path: ``make()``) may run: one, several (a union), none (``[]``: unknown)."""
        self._caller = scope
        if receiver in _CLASS_OF_SELF and fs.language == "python":  # `type(self).m()`
            receiver = "self.__class__"
        read = fs.flow.get(scope, {}).get("(" + receiver) if receiver[-1:] in (")", "]") else None
        if read:  # a receiver that is a call the facts name (`next(it).m()`: chains.py)
            v = union(self.value(fs, scope, val, ln) for ln, val in read if ln == line)
            return self.member_target(v, name) if v is not None else []
        segs = parse(receiver or name)
        if not segs or not worth(self, fs, scope, segs, value=bool(receiver)):
            return []
        if receiver in SPECS[fs.language].self_names:
            own = sa.own_attr(self, fs, scope, name, line) or \
                sa.overridden(self, fs, scope, name, line)
            if own is not None:  # `self.h = b; self.h()` in one method; `self.cls_attr()`
                return self.callable_target(own)
        if (v := self.eval(fs, scope, segs, line)) is None:
            return []  # (member_target and callable_target take each alternative of a union)
        return self.member_target(v, name) if receiver else self.callable_target(v)

    def callable_target(self, v: Value | None) -> list[str]:
        """The definitions a call of value ``v`` runs (a class for a construction)."""
        if v is None:
            return []
        kind, q = v
        if kind == "any":
            return each_once(self.callable_target(m) for m in members(v))
        if kind in ("fn", "cls"):
            return [self._undecorated(q) if kind == "fn" else q]
        if kind == "inst":
            m = self.member(v, "__call__")
            return [x[1] for x in members(m) if x[0] == "fn"] if m is not None else []
        return []

    def member_target(self, v: Value, name: str) -> list[str]:
        """The definitions a call of member ``name`` of value ``v`` runs."""
        if v[0] == "any":
            return each_once(self.member_target(m, name) for m in members(v))
        if v[0] == "mod":
            m = self.attr_value(v, name)
            return self._run(m, lambda x: x[0] in ("fn", "cls"))
        if v[0] not in ("cls", "inst", "super"):
            return []
        out = self._run(self.member(v, name),
                        lambda x: x[0] in ("fn", "cls") and self._is_def(x[1]))
        return dispatch.concrete(self.root, out, v[1]) if v[0] == "inst" else out

    def _run(self, m: Value | None, direct: Callable[[Value], bool]) -> list[str]:
        """Targets of calling member value ``m``: each alternative that is ``direct`` (a
        definition) itself, the others as :meth:`callable_target` says."""
        if m is None:
            return []
        if m[0] != "any":
            return [self._undecorated(m[1])] if direct(m) else self.callable_target(m)
        return each_once([self._undecorated(x[1])] if direct(x) else self.callable_target(x)
                        for x in members(m))

    def _undecorated(self, q: str) -> str:
        """What calling function value ``q`` runs (its decorator's wrapper:
        Resolver.undecorated), except inside that decorator, where ``q`` is the
        function it was given (the wrapper calling ``fn``)."""
        w = self.root.undecorated(q)
        if w != q and f"{self._root_path}::{self._caller}".startswith(w.rpartition(".")[0]):
            return q
        return w

    def _is_def(self, q: str) -> bool:
        path, _, local = q.partition("::")
        return (other := self.fs(path)) is not None and local in other.kinds

    # ---- values ----------------------------------------------------------------------------
    def eval(self, fs: FileSyms, scope: str, segs: tuple[str, ...] | None, line: int
             ) -> Value | None:
        """Value of the access path ``segs`` used at ``line`` inside ``scope`` of ``fs``."""
        if not segs:
            return None
        if (key := next((k for k in range(3, len(segs)) if segs[k][:2] == "[~"), 0)) and \
                segs[key - 2] == ".get" and "." not in "".join(segs[1:key - 2]):  # hs.get('k')
            segs, key_seg = segs[:key] + segs[key + 1:], "[" + segs[key][2:]
        i = 1
        name = segs[0]
        while i < len(segs) and segs[i][0] == "[":
            name += segs[i]
            i += 1
        if i == 1 and len(segs) > 1 and segs[1][0] == "." and \
                name in SPECS[fs.language].self_names:
            own, at = sa.self_attr(self, fs, scope, segs, line)
            if own is not None:  # `self.h = b` earlier in this method: that value; or
                return self._rest(own, segs, at)  # a class attribute subclasses set
        v = self.head(fs, scope, name, line)
        if v is None and i == 1 and fs.language in ns.DOTTED and segs[1:2] and segs[1][0] == ".":
            v, i = ns.qualified(self, fs, segs)  # `com.acme.model.Invoice`: that class
        part = part_index(name) if v is None else ""
        if part:  # `parts[1]` of `parts = split()`: `split()[1]`; `c['inc']` likewise
            v = classes.elements_of_binding(self, fs, scope, name[:-len(part)], line, part)
        if v is None and name.endswith("[?]") and "[" not in name[:-3]:
            # a value of the dict a call returned (`pool = make(); pool.values()`)
            v = classes.elements_of_binding(self, fs, scope, name[:-3], line, "[?]")
        if v is None and indexed(name):  # `xs[0]`: an element, as `xs[*]`
            name = indexed(name)
            v = self.head(fs, scope, name, line)
        if v is None and name.endswith("[*]") and "[" not in name[:-3]:
            # an element of a name bound to no literal: `next(it)` of a generator, an element
            # of what the call bound to it returns (`ws = pool(); ws[0]`)
            base = self.head(fs, scope, name[:-3], line)
            v = self.element(base) if base is not None else None
            if v is None:
                v = classes.elements_of_binding(self, fs, scope, name[:-3], line)
        if v is None and fs.language != "python" and "[" not in name and (  # `v.iter()…[*]`
                k := view(segs, i, fs.language)):  # of a std collection: an element of v
            return self.eval(fs, scope, (name + "[*]", *segs[i + k:]), line)
        if v is None and segs[i:i + 2] == (".get", "()") and "[" not in name:
            # `hs.get(k)` as `hs[?]` (hs['k']): of `hs = handlers()`, of an imported table…
            return self.eval(fs, scope, (name + (key_seg if key else "[?]"), *segs[i + 2:]), line)
        if i == 1 and name == "cls" and segs[1:2] == ("()",) and v is not None and \
                v[0] == "cls" and fs.language == "python":
            # `obj = cls()` in a classmethod: any class it may construct (as `cls()` runs)
            made = dispatch.constructions(self.ctx(fs.path) or self.root, scope)
            return self._rest(union(("inst", c) for c in made) if made else v, segs, 2)
        return self._rest(v, segs, i)

    def _rest(self, v: Value | None, segs: tuple[str, ...], i: int) -> Value | None:
        """Value of ``v`` followed by ``segs[i:]`` (each alternative of a union)."""
        while v is not None and i < len(segs):
            if v[0] == "any":
                return union((self._rest(m, segs, i) for m in members(v)), width(v))
            self.steps += 1
            if self.steps > MAX_STEPS:
                return None
            seg = segs[i]
            i += 1
            if seg == "()":
                v, i = returns.called(self, v, segs, i)
                continue
            if seg == "[*]":  # (a position of a generator's tuples too: `[*][1]`)
                v, i = classes.element_at(self, v, segs, i)
                continue
            if seg[0] == "[":  # `Pool()[k]` of an instance: an element (classes.element)
                v = self.element(v) if v[0] == "inst" else None
                continue
            attr = seg.lstrip(".:")
            while i < len(segs) and segs[i][0] == "[":
                attr += segs[i]
                i += 1
            recv = v
            if (got := held(self, v, attr, segs, i) or
                    sa.dict_get(self, v, attr, segs, i)) is not None:
                v, i = got  # `cls.OPS.get(op)` of a class's dict: its value at op; Rust's
                continue
            if attr in classes.SPECIAL_METHODS and i < len(segs) and segs[i] == "()":
                v, i = classes.special(self, v, attr), i + 1
                continue
            v = self.attr_value(v, attr)
            if v is not None and v[0] == "fn" and i < len(segs) and segs[i] == "()" and \
                    recv[0] in ("cls", "inst"):
                own = classes.own(self, recv, v[1])
                if own is not None:
                    v, i = own, i + 1
        return v

    def head(self, fs: FileSyms, scope: str, name: str, line: int) -> Value | None:
        lang = fs.language
        selfs = SPECS[lang].self_names
        if (name in selfs or name == "Self" or (lang == "go" and fs.recv_var.get(scope) == name)
                ) and fs.is_receiver(scope, name, line):
            cls = fs.enclosing_class(scope) or classes.js_constructor_of(fs, scope)
            if cls and name == "cls" and scope == f"{cls}.__init_subclass__":
                return dispatch.derived(self.ctx(fs.path) or self.root, f"{fs.path}::{cls}")
            if cls:
                return ("cls" if name in _CLASS_SELF else "inst", f"{fs.path}::{cls}")
            if lang != "python":  # Python's `cls` outside a class is a plain name
                return None
        if name in SUPER_NAMES.get(lang, ("super",)):
            cls = fs.enclosing_class(scope)
            return ("super", f"{fs.path}::{cls}") if cls else None
        if name.startswith("super("):  # `super(Mid, self)` (exprs.parse): after Mid
            v = self.head(fs, scope, name[6:-1], line)
            return ("super", v[1]) if v is not None and v[0] == "cls" else None
        if name.startswith("&"):
            return self.classify(f"{fs.path}::{name[1:]}")
        if lang in _SELF_TYPED and (v := ns.self_typed(self, fs, scope, name, line)) is not None:
            return v  # (`Mailer Mailer`: the type); else the enclosing functions' bindings
        plain = "[" not in name
        s, inner, first = scope, scope, True
        visible = SPECS[lang].class_scope_visible
        while s:
            kind = fs.kinds.get(s, "scope")
            if first or kind not in CLASS_KINDS:
                d = fs.flow.get(s, {})
                if plain:
                    b = d.get(name)
                    sc = d.get(name + SCOPED) if b else None
                    if b and sc:  # comprehension variables: only inside the comprehension
                        b = reaching.visible(b, sc, line if first else None)
                        if first and all(v[1:2] == NARROW and ln >= line for ln, v in b):
                            b = []  # (`isinstance` binds nothing: up to its block, the outer x)
                    if b:
                        at, br = line if first else None, d.get(name + BRANCH)
                        got = self.pick(fs, s, b, at, br)  # and a parameter's value when
                        if not first and (dl := fs.def_lines.get(inner, 0)):  # a closure: the
                            got = union([self.pick(fs, s, b, dl, br), *(  # binding at its def
                                self.value(fs, s, v, ln) for ln, v in b if ln > dl)])  # or after
                        p = fs.param(s, name) if kind in FUNC_KINDS else None  # it may reach
                        return union([got, callsites.param(self, fs, s, name, *p)]) if p is not None \
                            and reaching.from_entry(b, at, br) else got  # (`x = x or D()`)
                else:
                    found, v = classes.bound(self, fs, s, name, line if first else None)
                    if found or (kind in FUNC_KINDS and name.partition("[")[0] in d):
                        return v  # (a local `d` hides the enclosing scopes' `d[k]`)
                if kind in FUNC_KINDS and "[" not in name:
                    p = fs.param(s, name)
                    if p is not None:
                        return callsites.param(self, fs, s, name, *p)
                elif kind in FUNC_KINDS and ((p := fs.param(s, base := name.partition("[")[0]))
                                             or "*" + base in fs.sigs.get(s, "")):
                    if name != base + "[*]" and not (p and fs.language == "python"):
                        return callsites.kwarg(self, fs, s, base, name[len(base):])  # or none
                    return callsites.param(self, fs, s, base, *p, each=name[len(base):]) \
                        if p else callsites.star_element(self, fs, s, base)  # of *args
            if visible and kind in CLASS_KINDS and "[" not in name.removesuffix("[*]"):
                v = self.attr_value(("inst", f"{fs.path}::{s}"), name)
                if v is not None:
                    return v
            inner, s, first = s, fs.parents.get(s, ""), False
        if "[" not in name:
            r = self.ctx(fs.path)
            hit = ns.as_type(r, fs, scope, name, r.lookup(fs, scope, name, line or 0)) if r else []
            if hit and r and not (name in fs.by_alias and ns.py_rebinds(r, scope, name, line)):
                return self.classify(hit[0])
            if r is not None and name in fs.by_alias and name not in fs.flow.get("", {}):
                return classes.imported(self, r, fs, name)  # `from m import obj`
        else:  # `PIPELINE[*]` of `from m import PIPELINE`: m's elements
            base, _, rest = name.partition("[")
            r = self.ctx(fs.path)
            if r is not None and base in fs.by_alias and base not in fs.flow.get("", {}):
                v = classes.imported(self, r, fs, base, "[" + rest)
                if v is not None:
                    return v
        return classes.bound(self, fs, "", name, line if not scope else None)[1]

    def pick(self, fs: FileSyms, scope: str, bindings: list[tuple[int, str]],
             line: int | None, branches: list[tuple[int, str]] | None = None
             ) -> Value | None:
        """The value of the bindings that reach ``line`` (:func:`reaching.pick`)."""
        return reaching.pick(self, fs, scope, bindings, line, branches)

    def value(self, fs: FileSyms, scope: str, val: str, line: int) -> Value | None:
        if val == "?":
            return None
        if val[0] == AFTER:  # a comprehension's variable: its iterable as of the next line
            val, line = val[1:], line + 1
            if val[:1] == NARROW:  # `if isinstance(x, C):` (loops.isa)
                return narrowed(self, fs, scope, val, line - 1)
        elif val[0] == "&":  # a definition of the file by its local name (`&Outer.inner`;
            return self.classify(f"{fs.path}::{val[1:]}", raw=True)  # itself, undecorated)
        key = ("v", fs.path, scope, val, str(line))
        return self._guarded(key, lambda: self.eval(fs, scope, parse(val), line))

    def _guarded(self, key: tuple[str, ...], fn: Callable[[], Value | None]) -> Value | None:
        if key in self._memo:
            return self._memo[key]
        if key in self._busy or self._nest >= MAX_NEST or self.steps > MAX_STEPS:
            return None
        self._busy.add(key)
        self._nest += 1
        try:
            out = fn()
        finally:
            self._nest -= 1
            self._busy.discard(key)
        self._memo[key] = out
        return out

    def classify(self, q: str, raw: bool = False) -> Value | None:
        """The value a definition's name denotes (:func:`classes.classify`)."""
        return classes.classify(self, q, raw)

    def binding(self, fs: FileSyms, scope: str, name: str, line: int | None) -> Value | None:
        b = fs.flow.get(scope, {}).get(name)
        return self.pick(fs, scope, b, line) if b else None

    # ---- calls, attributes, parameters -------------------------------------------------------
    def call_value(self, v: Value) -> Value | None:
        kind, q = v
        if kind == "any":
            return union((self.call_value(m) for m in members(v)), width(v))
        if kind == "cls":
            return ("inst", q)
        if kind == "inst":
            m = self.member(v, "__call__")
            return union(self.call_value(x) for x in members(m) if x[0] == "fn") \
                if m is not None else None
        if kind != "fn":
            return None
        if classes.constructor(self, q):
            return ("inst", q)
        return self._guarded(("ret", q), lambda: returns.value(self, q))

    def element(self, v: Value) -> Value | None:
        """An element of ``v`` (the variable of a ``for`` loop; :func:`classes.element`)."""
        return classes.element(self, v)

    def attr_value(self, v: Value, name: str) -> Value | None:
        kind, q = v
        if kind == "any":
            return union((self.attr_value(m, name) for m in members(v)), width(v))
        if kind == "mod":
            return classes.module_attr(self, q.partition("::")[0], name)
        if kind not in ("cls", "inst", "super"):
            return None
        if name == "__class__" and kind == "inst":  # (`type(self).m()`: Flow.calls)
            return ("cls", q)
        m = self.member(v, name)
        if m is None or m[0] != "fn" or kind == "cls" or not self._is_def(m[1]):
            return m
        path, _, local = m[1].partition("::")
        other = self.fs(path)
        decos = {val for _l, val in other.flow.get(local, {}).get("@dec", [])} if other else set()
        return self.call_value(m) if decos & _PROPERTY else m

    def member(self, v: Value, name: str) -> Value | None:
        """Member ``name`` of a class or instance value along the class's MRO: a definition
        (method, nested class) or the value of the attribute's bindings."""
        kind, q = v
        if kind == "any" or name[-1:] == "$":  # (`getattr(self, "visit_" + k)`: a prefix)
            return union((self.member(m, name) for m in members(v)), width(v)) \
                if kind == "any" else prefixed(self, v, name[:-1])
        order = self.mro(q)
        if kind == "super":
            order = order[1:]
        for cq in order:
            path, _, cls = cq.partition("::")
            fs = self.fs(path)
            if fs is None:
                continue
            local = fs.members.get(cls, {}).get(name) if "[" not in name else None
            if fs.language == "rust" and "[" not in name and fs.kinds.get(cls) != "trait" and (
                    local is not None or name not in fs.attrs.get(cls, {})):  # (a trait's own)
                # inherent first, in any file; a field before another file's method of its
                hit = rustimpl.method(self.root, path, cls, name)  # name (`x.worker.run()`)
                other = self.fs(hit[0].partition("::")[0]) if hit else None
                if other is not None and other.kinds.get(hit[0].partition("::")[2]) in FUNC_KINDS:
                    return self.classify(hit[0])
                local = None  # none, or ambiguous (`impl Tr for W<u8>` and `for W<i32>`)
            if local is None and fs.language == "go":
                hit = self.root.members_of(path, cls, name, 0) if "[" not in name else []
                if hit:
                    return self.classify(hit[0])
            if local is not None:
                k = fs.kinds.get(local, "")
                if k in FUNC_KINDS or k in CLASS_KINDS:
                    hid, val = instance_shadow(self, q, name, f"{path}::{local}") \
                        if kind == "inst" else ("", None)  # (`self.run = fn`)
                    return val if hid == "hides" else union(
                        [self.classify(f"{path}::{local}"), val])
            attrs = fs.attrs.get(cls, {})
            name = classes.appended(name, attrs)  # `self.xs[0]` of appends: any element
            attr = attrs.get(name) or attrs.get(indexed(name) or name) or \
                classes.stored_elements(attrs, indexed(name) or name)  # `self.ws = ws`: ws's
            if attr and kind == "cls" and fs.language == "python" and any(  # (a Java enum's
                    s == cls for s, _l, _v in attr) and enums.enum_member(self, q, name):
                return ("inst", q)  # `JSON = JsonCodec()` in an Enum: a member, not its value
            if name.endswith(("[?]", "[*]")):  # and what `self.d[k] = v`, `[?]`: `append(v)`
                attr = (attr or []) + attrs.get(f"{name[:-3]}[+{name[-2]}]", []) + (
                    attrs.get(f"{name[:-3]}[+*]", []) if name[-2] == "?" else [])
            elif name in fs.foreign_attrs or name in fs.outside_attrs:  # set elsewhere
                attr = (attr or []) + classes.foreign(self, fs, cq, name)
            if attr:
                return self._guarded(("attr", cq, name), partial(self._agree, fs, attr))
        if kind == "inst" and name == "value":
            return enums.member_value(self, q)  # `self.value` of an enum member
        return ("inst", q) if kind == "cls" and enums.enum_member(self, q, name) else \
            delegated(self, v, name)  # (`__getattr__` of a proxy)

    def _agree(self, fs: FileSyms, bindings: list[tuple[str, int, str]]) -> Value | None:
        """The union of the values of the ``(scope, line, value)`` bindings of an attribute
        (any call site of the methods that bind it counts, also while a return value is
        evaluated: the attribute keeps what every call stored; callsites.param)."""
        saved, self._returning = self._returning, 0
        try:
            return union(self.value(fs, scope, val, line) for scope, line, val in bindings)
        finally:
            self._returning = saved

    def mro(self, q: str) -> list[str]:
        """Method resolution order of class ``q`` (:func:`classes.mro`), memoised."""
        hit = self._mro.get(q)
        return hit if hit is not None else classes.mro(self, q)

