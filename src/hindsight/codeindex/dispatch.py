"""Calls on ``self`` and ``super()`` that a subclass redirects (class hierarchy analysis).

``self.step()`` inside ``Base.run`` runs ``Child.step`` when ``run`` is called on a
``Child`` that overrides ``step``; ``super().save()`` inside a mixin runs the next class of
the *instance's* method resolution order, which may be a sibling class. The name rules
(:mod:`hindsight.codeindex.resolve`) give the definition along the enclosing class's own
order; here the targets are that definition plus, for every subclass in the repository,
the definition its own order gives (Dean, Grove and Chambers, "Optimization of
Object-Oriented Programs Using Static Class Hierarchy Analysis", ECOOP 1995; C3 orders as
Python computes them). The enclosing class's own definition is left out when it only
marks the method abstract (``@abstractmethod``, a body that raises
``NotImplementedError``), or when its body does nothing (``pass``, ``...``, a docstring)
and every subclass overrides it; an abstract method a subclass inherits without
overriding is no target of that subclass either (it is abstract too, never instantiated).

Subclasses are found through the keys ``sub:<name>`` (files with a class whose bases name
``<name>``), recorded as dependencies, so a subclass added in another file re-resolves the
base class's file. Past :data:`MAX_SUBCLASSES` subclasses, or past
:data:`~hindsight.codeindex.values.MAX_TARGETS` distinct targets, the answer is the name
rules' one alone (as before this module existed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex.bindings import BRANCH, GLOBAL
from hindsight.codeindex.exprs import parse
from hindsight.codeindex.table import CLASS_KINDS, SUPER_NAMES, FileSyms, mangled
from hindsight.codeindex.table import OWN_CLASS as OWN_CLASS  # (resolve.py reads it here)
from hindsight.codeindex.values import MAX_TARGETS, Value, union

if TYPE_CHECKING:
    from hindsight.codeindex.resolve import Resolver

MAX_SUBCLASSES = 32  # transitive subclasses considered per class (more: no dispatch)
LANGUAGES = frozenset({"python"})
_HOOKS = frozenset({"javascript", "typescript", "tsx"})  # only a method the class lacks
ABSTRACT = "@abstract"
"""Receiver-fact target marking a method whose body only marks it abstract (value
``raise``) or does nothing (value ``empty``); see :mod:`hindsight.codeindex.parse`."""
_ABSTRACT_DECORATORS = frozenset({"abstractmethod", "abc.abstractmethod"})


def derived(r: Resolver, q: str) -> Value | None:
    """``cls`` in ``q.__init_subclass__``: the class being derived, any subclass of class
    ``q`` (PEP 487; ``q`` itself never runs it), ``None`` when there is none."""
    return union(("cls", c) for c in subclasses(r, q)[:MAX_SUBCLASSES])


def concrete_classes(r: Resolver, q: str) -> Value | None:
    """``type[q]`` (Python): any class that is ``q`` or derives from it and can be
    instantiated (no ``@abstractmethod`` of an ``ABC`` left unoverridden: :func:`_enforced`),
    a union (``None`` when none, or more than ``MAX_TARGETS``)."""
    return union(("cls", c) for c in [q, *subclasses(r, q)[:MAX_SUBCLASSES]]
                 if _instantiable(r, c))


def _instantiable(r: Resolver, q: str) -> bool:
    seen: set[str] = set()
    for c in r.flow.mro(q):
        path, _, cls = c.partition("::")
        fs = r._file(path)
        for name, local in (fs.members.get(cls, {}) if fs is not None else {}).items():
            if name not in seen:
                seen.add(name)
                if _enforced(r, f"{path}::{local}"):
                    return False
    return True


def subclasses(r: Resolver, q: str) -> list[str]:
    """Qualified names of the classes that derive from class ``q`` (``path::Local``),
    directly or not, breadth first, at most ``MAX_SUBCLASSES + 1`` (more means "too many").
    The keys consulted are added to ``r.deps``."""
    out: list[str] = []
    seen = {q}
    frontier = [q]
    while frontier and len(out) <= MAX_SUBCLASSES:
        c = frontier.pop(0)
        for s in _direct(r, c.partition("::")[2].rpartition(".")[2]).get(c, ()):
            if s not in seen:
                seen.add(s)
                out.append(s)
                frontier.append(s)
                if len(out) > MAX_SUBCLASSES:  # too many: the rest cannot change that
                    return out
    return out


def _direct(r: Resolver, name: str) -> dict[str, list[str]]:
    """Base class → the classes deriving from it directly, over every class whose bases
    name ``name`` (key ``sub:<name>``), built once per table (each candidate's bases
    resolved once: a name shared by many classes costs linear time, not quadratic), with
    the keys that needed; those are added to ``r.deps``."""
    memo = r.t._subs.get(name)
    if memo is None:
        from hindsight.codeindex.resolve import Resolver

        r.t._subs[name] = ({}, frozenset())  # cycle guard
        sub = Resolver(r.t, r.f)
        index: dict[str, list[str]] = {}
        seen = set(sub._by_key(f"sub:{name}"))
        for p in sorted(seen):
            fs = sub._file(p)
            if fs is None:
                continue
            for cls in dict.fromkeys(i[0] for i in fs.inherits if i[1] == name or any(
                    iname == name for _m, iname in fs.by_alias.get(i[1], ()))):
                for base in sub.bases(p, cls):
                    index.setdefault(base, []).append(f"{p}::{cls}")
        # a candidate's own file is covered by the key: any version of a file that has a
        # class naming `name` as a base provides `sub:<name>` (indexer._affected); its
        # path key would tie every file asking to every candidate (quadratic deps)
        keep = frozenset(k for k in sub.deps if not (k.startswith("path:") and k[5:] in seen))
        memo = r.t._subs[name] = (index, keep)
    if memo[1] and name not in r._subs_seen:  # once per resolver: key sets can be large
        r._subs_seen.add(name)  # (never for the empty in-progress placeholder above)
        r.deps.update(memo[1])
    return memo[0]


def explicit_super(r: Resolver, caller: str, name: str, receiver: str) -> str:
    """``super(Mid, self).name()`` in ``caller``: the member ``name`` after class ``Mid``
    in Mid's own order, or ``""`` (the instance's order, which differs below a diamond, is
    not known here)."""
    segs = parse(receiver)
    if not segs or len(segs) != 1 or segs[0] == "super()":
        return ""
    cls = r.lookup(r.f, caller, segs[0][6:-1])
    path, _, local = cls[0].partition("::") if cls else ("", "", "")
    hit = r.members_of(path, local, name, 0, skip_own=True) if local else []
    return hit[0] if hit else ""


def overrides(r: Resolver, caller: str, name: str, receiver: str, hit: str) -> list[str]:
    """The targets of ``self.<name>()`` (or ``super().<name>()`` when ``receiver`` is a
    super name) in method ``caller`` of file ``r.f``, given ``hit``, the name rules'
    answer (``""`` when none): ``[]`` when no subclass changes that answer."""
    fs = r.f
    if fs.language not in LANGUAGES and (hit or fs.language not in _HOOKS):
        return []  # (JavaScript, TypeScript: `this.sound()` a base leaves to subclasses)
    cls = fs.enclosing_class(caller)
    if not cls or (fs.language in _HOOKS and name in fs.attrs.get(cls, {})):
        return []  # (`this.run = fn` in the class: that value, Flow.calls)
    if fs.language == "python" and mangled(name):
        return []  # `self.__step()` in A is `_A__step`: no subclass overrides it
    q = f"{fs.path}::{cls}"
    subs = subclasses(r, q)
    if not subs or len(subs) > MAX_SUBCLASSES:
        return []
    if fs.language == "python" and caller != cls:  # (break-it of session 35)
        subs = [s for s in subs if _runs_for(r, s, caller)]
    via_super = receiver in SUPER_NAMES.get(fs.language, ("super",))
    per_sub = [_next_after(r, s, q, name) if via_super else _along(r, s, name)
               for s in subs]
    # a subclass whose order gives an @abstractmethod of an ABC does not override it, so
    # it is abstract too: never instantiated, it runs nothing (`Mid(Base)` under `Leaf`)
    found = [t for t in dict.fromkeys(t for t in per_sub if t) if not _enforced(r, t)]
    if not found or found == [hit]:
        return []
    if hit and hit not in found and not _dropped(r, hit, all(per_sub)):
        found.insert(0, hit)
    return found if len(found) <= MAX_TARGETS else []


def rebound(r: Resolver, caller: str, name: str, receiver: str, line: int) -> list[str]:
    """More targets of ``self.<name>()`` at ``line`` of method ``caller``: what the call
    runs when a binding of ``self`` made in a branch before it happened (``if c: self =
    Other()``: ``Other.<name>`` beside the receiver's); ``[]`` when there is none (the
    receiver alone: :meth:`hindsight.codeindex.table.FileSyms.is_receiver`)."""
    fs = r.f
    if not line or fs.language not in LANGUAGES or receiver not in r.spec.self_names:
        return []
    d = fs.flow.get(caller, {})
    bound = d.get(receiver)
    if not bound:
        return []
    branch = {ln for ln, _v in d.get(receiver + BRANCH, ())}
    out: list[str] = []
    for ln, v in bound:
        val = r.flow.value(fs, caller, v, ln) if ln < line and ln in branch else None
        out += [t for t in (r.flow.member_target(val, name) if val else []) if t not in out]
    return out


def concrete(r: Resolver, targets: list[str], cls: str) -> list[str]:
    """The targets of a call on an instance of class ``cls`` (``path::Local``) that the
    flow found (``m.run()`` with ``m: Mid``), each abstract one (``@abstractmethod``,
    ``raise NotImplementedError``) replaced by the overrides the subclasses of ``cls`` in
    the repository give: what runs is one of those (class hierarchy analysis, as for
    ``self``). Unchanged when there are none, too many subclasses or targets, or outside
    Python."""
    abstract = {t for t in targets if _abstract(r, t)} if r.f.language in LANGUAGES else ()
    if not abstract:
        return targets
    subs = subclasses(r, cls)
    if not subs or len(subs) > MAX_SUBCLASSES:
        return targets
    out: list[str] = []
    for t in targets:
        name = t.rpartition(".")[2]
        found = [x for x in dict.fromkeys(_along(r, s, name) for s in subs)
                 if x and x != t and not _abstract(r, x)] if t in abstract else []
        out.extend(found or [t])
    out = list(dict.fromkeys(out))
    return out if len(out) <= MAX_TARGETS else targets


def _along(r: Resolver, s: str, name: str) -> str:
    """``name`` along the method resolution order of class ``s``."""
    path, _, local = s.partition("::")
    hit = r.members_of(path, local, name, 0)
    return hit[0] if hit else ""


def _next_after(r: Resolver, s: str, q: str, name: str) -> str:
    """``name`` in the first class after ``q`` in the order of class ``s`` that defines it."""
    order = r.flow.mro(s)
    if q not in order:
        return ""
    for cq in order[order.index(q) + 1:]:
        path, _, c = cq.partition("::")
        other = r._file(path)
        local = other.members.get(c, {}).get(name) if other is not None else None
        if local:
            return f"{path}::{local}"
    return ""


def _dropped(r: Resolver, hit: str, everywhere: bool) -> bool:
    """Whether the name rules' target ``hit`` is left out: abstract, or empty and
    overridden in every subclass (``everywhere``)."""
    if _abstract(r, hit):
        return True
    return everywhere and "empty" in _method_facts(r, hit)[0]


def _abstract(r: Resolver, q: str) -> bool:
    """Whether method ``q`` (``path::Local``) only marks itself abstract: decorated with
    ``@abstractmethod`` or a body that raises ``NotImplementedError``."""
    marks, decos = _method_facts(r, q)
    return "raise" in marks or bool(decos & _ABSTRACT_DECORATORS)


def _enforced(r: Resolver, q: str) -> bool:
    """Whether method ``q`` is an ``@abstractmethod`` that Python enforces: a class of
    its class's order derives from ``ABC`` (``abc.ABC``) or is declared with
    ``metaclass=ABCMeta``; a class that inherits it without overriding it cannot be
    instantiated. (A metaclass derived from ``ABCMeta`` is not seen: such a method stays a
    target, as a ``raise NotImplementedError`` hook does.)"""
    if not _method_facts(r, q)[1] & _ABSTRACT_DECORATORS:
        return False
    path, _, local = q.partition("::")
    for c in r.flow.mro(f"{path}::{local.rpartition('.')[0]}"):
        cpath, _, cls = c.partition("::")
        fs = r._file(cpath)
        if fs is not None and (any(k == cls and n == "ABC" and rv in ("", "abc")
                                   for k, n, rv, _l in fs.inherits) or any(
                v == "abcmeta" for _l, v in fs.flow.get(cls, {}).get(ABSTRACT, ()))):
            return True
    return False


def _method_facts(r: Resolver, q: str) -> tuple[set[str], set[str]]:
    """(``@abstract`` marks: ``raise``/``empty``, see parse.py; decorators) of method
    ``q`` (``path::Local``); empty sets when its file is unknown."""
    path, _, local = q.partition("::")
    other = r._file(path)
    d = other.flow.get(local, {}) if other is not None else {}
    return {v for _l, v in d.get(ABSTRACT, ())}, {v for _l, v in d.get("@dec", ())}


_WRAPS = frozenset({"functools.wraps()", "wraps()"})


def aliased(r: Resolver, hit: str) -> str:
    """What a call of ``hit`` runs when ``hit`` is a Python module-level name bound to a
    function or class (``ALIAS = real``; ``from config import HANDLER; HANDLER()``): that
    function or class; ``hit`` itself otherwise (one value only: a union stays the name)."""
    path, _, local = hit.partition("::")
    fs = r._file(path) if r.f.language == "python" else None
    if fs is None or fs.kinds.get(local) != "constant" or fs.parents.get(local):
        return hit
    v = r.flow.classify(hit)
    return v[1] if v is not None and v[0] in ("fn", "cls") else hit


def decorated(r: Resolver, hit: str) -> str:
    """What a call of Python function ``hit`` runs when one decorator of the repository
    replaces it with a function of its own: ``@memoize`` returning its nested
    ``wrapper`` gives ``memoize.wrapper``; ``hit`` itself otherwise (no decorator,
    several, one outside the repository, one returning what it was given, or a wrapper
    made with ``functools.wraps`` or ``update_wrapper``, which stands for the function
    it wraps)."""
    path, _, local = hit.partition("::")
    fs = r._file(path) if r.f.language == "python" else None
    decos = fs.flow.get(local, {}).get("@dec") if fs is not None and local else None
    if fs is None or not decos or len(decos) != 1:
        return hit
    d = r.flow.value(fs, fs.parents.get(local, ""), decos[0][1], fs.starts.get(local, 0))
    if d is None or d[0] != "fn":
        return hit
    dpath, _, dlocal = d[1].partition("::")
    other = r._file(dpath)
    rets = other.flow.get(dlocal, {}).get("return") if other is not None else None
    if not rets or other is None:
        return hit
    names = {v for _l, v in rets}
    if len(names) != 1 or "@wraps" in other.flow.get(dlocal, {}):
        return hit  # (update_wrapper(wrapper, fn) in the decorator: as functools.wraps)
    name = names.pop()
    inner = f"{dlocal}.{name}"
    if other.flow.get(dlocal, {}).get(name):  # rebound before it is returned: to one
        v = r.flow.value(other, dlocal, name, max(ln for ln, _v in rets))  # function of
        if v is not None and v[0] == "fn" and v[1].startswith(f"{dpath}::{dlocal}."):
            inner = v[1].partition("::")[2]  # the decorator's (else: as if not rebound)
    if other.kinds.get(inner) not in ("function", "method") or any(
            v in _WRAPS or v.endswith(".wraps()") or _is_wraps(other, v)
            for _l, v in other.flow.get(inner, {}).get("@dec", [])):
        return hit
    return f"{dpath}::{inner}"


def _is_wraps(fs: FileSyms, dec: str) -> bool:
    """Whether decorator call ``dec`` (``keep()``) is ``functools.wraps`` imported under
    another name (``from functools import wraps as keep``)."""
    return dec.endswith("()") and ("functools", "wraps") in fs.by_alias.get(dec[:-2], ())


def constructions(r: Resolver, caller: str) -> list[str]:
    """The classes ``cls()`` / ``type(self)()`` in method ``caller`` may construct: the
    enclosing class and its subclasses in the repository (all of them or, past
    ``MAX_TARGETS``, the enclosing class alone); ``[]`` outside a class or when ``cls``
    is something else (a parameter of a function that is no method)."""
    fs = r.f
    cls = fs.enclosing_class(caller)
    if not cls or caller == cls or fs.kinds.get(caller) != "method":
        return []
    q = f"{fs.path}::{cls}"
    subs = [s for s in subclasses(r, q) if _runs_for(r, s, caller)]
    return [q, *subs] if len(subs) < MAX_TARGETS else [q]


def _runs_for(r: Resolver, sub: str, caller: str) -> bool:
    """Whether method ``caller`` (of the file resolved) runs for subclass ``sub``: ``sub``
    inherits it, or its override reads ``super().<name>`` (a ``return`` or binding of
    it, or a call ``super().<name>(…)``: the ``@super`` facts; break-it of session 34:
    ``Fast.create`` overriding ``Base.create`` never runs the base's ``cls()`` for Fast;
    of session 35: nor its ``self.step()``). Python only (the facts are Python's)."""
    name = caller.rpartition(".")[2]
    me = f"{r.f.path}::{caller}"
    for cq in r.flow.mro(sub):  # each definition along sub's order, down to the caller
        cpath, _, cls = cq.partition("::")
        other = r._file(cpath)
        local = other.members.get(cls, {}).get(name) if other is not None else None
        if local is None or other is None:
            continue
        if f"{cpath}::{local}" == me:
            return True
        if not calls_on(other, local, name):
            return False  # replaced without calling on (`Mid.run` under `Leaf.run`'s super)
    return True


def calls_on(fs: FileSyms, local: str, name: str) -> bool:
    """Whether function ``local`` of ``fs`` calls the next ``name`` along the order:
    ``super().<name>(…)`` or ``Base.<name>(self, …)`` (the ``@super`` facts), or reads
    ``super().<name>`` in a return or binding."""
    facts = fs.flow.get(local, {})
    return any(v == name for _l, v in facts.get("@super", ())) or any(
        v.startswith(("super().", "super(")) and f".{name}(" in v
        for vals in facts.values() for _l, v in vals)


def redefined(r: Resolver, hit: str, caller: str, name: str, line: int) -> list[str] | None:
    """What a call at ``line`` of Python module-level function ``hit`` runs when a module
    binds the name again (break-it of session 34): ``def helper(): …`` then ``helper =
    replacement`` in its own module, or ``from cbs import helper`` then ``helper = …`` in
    the calling module (bare ``name``): the function or class of the last such binding (a
    name or attribute path, or a call giving a module's function or class; a wrapper,
    ``f = deco(f)``, is left to the decorator rules), with ``hit`` too when that binding
    is in a branch or loop body (``try: from fast import loads`` / ``except ImportError:
    loads = slow``); ``[]`` (unresolved) when
    an unconditional one is no function or class known (``helper = json.loads``); ``None``
    (no change) when there is none, or the call is module or class-body code before it."""
    path, _, local = hit.partition("::")
    if r.f.language != "python":
        return None
    fs: FileSyms | None = r.f
    if name and path != r.f.path and r.f.flow.get("", {}).get(name):
        start = 0  # (an import of the calling module: module bindings come after it)
    else:
        fs, name = r._file(path) if "." not in local else None, local
        if fs is None or fs.kinds.get(local) != "function":
            return None
        start = fs.def_lines.get(local, 0)
    mod = fs.flow.get("", {}) if fs is not None else {}
    later = [(ln, v) for ln, v in mod.get(name, ()) if ln > start]
    if fs is None or not later or (fs is r.f and line <= later[-1][0] and (
            not caller or r.f.kinds.get(caller) in CLASS_KINDS)):
        return None
    ln, v = later[-1]
    if "[" in v or any(b == ln for b, _e in mod.get(name + GLOBAL, ())):
        return None  # (a function's `global` binding: the name rules read it, Flow.pick)
    got = r.flow.value(fs, "", v, ln + 1)
    q = got[1] if got is not None and got[0] in ("fn", "cls") else ""
    branch = any(b == ln for b, _e in mod.get(name + BRANCH, ()))
    if ("(" in v and (not q or "." in q.partition("::")[2])) or q == hit:
        return None  # (`f = deco(f)` gives a wrapper: the decorator rules, undecorated)
    return ([hit, q] if branch else [q]) if q else (None if branch else [])


def reimported(r: Resolver, caller: str, name: str, receiver: str) -> list[str]:
    """Targets of ``name()`` (or of ``m.name()`` through a module alias ``m``) in a
    function of a Python file whose top level imports that name more than once (``try:
    from ._speedups import escape`` / ``except ImportError: from ._native import escape``):
    what each import gives from the last one outside a ``try`` or ``if`` on (the
    ``@cimport`` facts name the others); ``[]`` when one import binds it."""
    fs = r.f
    alias = receiver or name
    if not caller or fs.language != "python" or alias not in fs.reimports or alias in fs.top:
        return []
    s = caller
    while s:  # (a function's own import of the name comes first: Resolver.lookup)
        if alias in fs.scoped_imports.get(s, ()):
            return []
        s = fs.parents.get(s, "")
    rows = [(mod, iname, a, ln) for c, mod, iname, a, ln in fs.imports if not c and a == alias]
    cond = {ln for ln, v in fs.flow.get("", {}).get("@cimport", ()) if v == alias}
    last = max((i for i, row in enumerate(rows) if row[3] not in cond), default=0)
    out: list[str] = []
    for mod, iname, a, _l in rows[last:]:  # (an import outside any try or if replaces
        got = r.import_target(mod, iname, a)  # the earlier ones: break-it of session 35)
        if receiver and got.endswith("::") and not iname:  # `import a as m`: a module
            got = next(iter(r.exported(got[:-2], name)), "")
        elif receiver or got.endswith("::"):
            got = ""
        if got and got not in out:
            out.append(got)
    return out
