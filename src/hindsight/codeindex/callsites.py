"""Values of undeclared parameters, from their call sites (Python).

A parameter without a declared type takes the value its function's call sites pass, by
position or by keyword: the union of the values they pass (at most ``MAX_TARGETS``,
:mod:`hindsight.codeindex.values`); unknown when more than ``MAX_TARGETS`` sites pass
something that is not followed. The call sites of the function's own file are read;
when it has none, those of other files that call a function of that name, through the
key ``arg:<name>`` (at most ``MAX_FILES`` such files): an edge found this way is one
that runs when the function is called from there.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hindsight.codeindex import dispatch, hierarchy
from hindsight.codeindex.bindings import BRANCH
from hindsight.codeindex.exprs import parse, render
from hindsight.codeindex.receivers import ARGS
from hindsight.codeindex.signatures import py_default, py_star
from hindsight.codeindex.table import FUNC_KINDS, FileSyms
from hindsight.codeindex.types import element_type, type_values, value_type
from hindsight.codeindex.values import MAX_TARGETS, union

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.values import Value


def passed(flow: Flow, fs: FileSyms, fn: str, pos: int, name: str, each: str = "",
           star: bool = False) -> Value | None:
    """The value (a union when they differ) the call sites of ``fs``'s function ``fn``
    pass for its parameter ``name`` at position ``pos`` (-1: keyword-only), or ``None``
    when they pass none that is known. A method called on an instance, and a class called (its ``__init__``),
    get the receiver as position 0; a decorator application counts as a call. ``each``:
    a part of the parameter instead, ``[*]`` an element (the elements of a literal
    passed: ``f([A()])``, or of what a name or a call passed holds: ``f(people)``), or a
    longer path (``[*][1]``: of what a name passed holds);
    ``star``: an element of ``*args`` at ``pos`` (every positional argument from there)."""
    r = flow.ctx(fs.path)
    if r is None:
        return None
    q = f"{fs.path}::{fn}"
    decos = {d for _l, d in fs.flow.get(fn, {}).get("@dec", [])} \
        if fs.kinds.get(fn) == "method" and fs.language == "python" else {"staticmethod"}
    method = "staticmethod" not in decos
    bound = "classmethod" in decos  # `Runner.make(cb)`: cls comes first all the same
    init = fn.endswith(".__init__") and fs.parents.get(fn, "") == fn[:-9]
    vals: list[Value | None] = []
    unknown = 0
    # subclasses that inherit this __init__ (`Group(name, f)` runs `Command.__init__`)
    heirs = _heirs(flow, r, q) if init else {}
    names = site_names(fs, fn) + list(dict.fromkeys(heirs.values()))
    sites = [(fs, r, *s) for s in fs.args.get("", [])]
    for i, last in enumerate(names):
        here = [(fs, r, *s) for s in fs.args.get(last, [])]
        # other files only when this one passes nothing (their files are then read); for
        # the outer function of a nested one (`register()` applying `deco`) always: the
        # calls here of the outer function itself pass nothing to the nested one
        outer = i and not init
        sites += here + _elsewhere(flow, r, fs, last) if outer else \
            here or _elsewhere(flow, r, fs, last)
    for site_fs, site_r, scope, callee, key, value, line in sites:
        if key.endswith(("[*]", "[?]")):  # an element of a literal passed (`f([A()])`),
            if each != key[-3:]:  # a value of a dict literal (`f({'a': A()})`)
                continue
            key = key[:-3]
        elif each:  # an element of the name or call passed (`f(people)`: `people[*]`)
            if value == "?" or value[:1] in ("[", "{", "("):
                continue
            value += each
        if key != name and not key.isdigit():
            continue
        segs = parse(callee)
        if not segs:
            continue
        target, shift = _callee(flow, site_r, site_fs, scope, segs, line)
        if target == q:
            shift = 1 if bound else shift if method else 0
        elif not (init and (target == q[:-9] or target in heirs)):
            continue
        else:
            shift = 1
        if key.isdigit() and (int(key) + shift < pos if star else int(key) + shift != pos):
            continue
        if star and not key.isdigit():
            continue
        v = flow.value(site_fs, scope, value, line)
        if v is None:
            unknown += 1
            if unknown > MAX_TARGETS:
                return None  # mostly passed what is not followed: unknown, and cheap
        elif v not in vals:
            vals.append(v)
            if len(vals) > MAX_TARGETS and union(vals) is None:
                return None  # too many values already: no need to read the other sites
    return union(vals)

MAX_FILES = 4
"""Files whose calls of a name are read for its parameters' values; a name that more
files call (``get``, ``run``) gets values from its own file only."""


def _elsewhere(flow: Flow, r: Resolver, fs: FileSyms, last: str
               ) -> list[tuple[FileSyms, Resolver, str, str, str, str, int]]:
    """The argument facts of calls of ``last`` in other files (key ``arg:<last>``,
    :data:`hindsight.codeindex.receivers.PROVIDES`), at most :data:`MAX_FILES` files."""
    paths = [p for p in r._by_key(f"arg:{last}") if p != fs.path]
    if not paths or len(paths) > MAX_FILES:
        return []
    out: list[tuple[FileSyms, Resolver, str, str, str, str, int]] = []
    for p in paths:
        other_r = flow.ctx(p)
        if other_r is not None:
            out += [(other_r.f, other_r, *s) for s in other_r.f.args.get(last, [])]
    return out


def _heirs(flow: Flow, r: Resolver, q: str) -> dict[str, str]:
    """The subclasses of ``__init__`` ``q``'s class whose instances it initialises (no
    ``__init__`` of their own or between): qualified name → simple name (Python)."""
    if r.f.language != "python":
        return {}
    subs = dispatch.subclasses(r, q[:-9])
    return {s: s.rpartition(".")[2].rpartition("::")[2] for s in subs[:dispatch.MAX_SUBCLASSES]
            if flow.member(("cls", s), "__init__") == ("fn", q)}


def site_names(fs: FileSyms, fn: str) -> list[str]:
    """The names under which calls of function ``fn`` of ``fs`` keep their arguments
    (``FileSyms.args`` keys, ``arg:<name>`` keys): its own; its class's for an
    ``__init__``; its enclosing function's when nested in one (``deco`` returned by
    ``register`` is what ``@register("x")`` calls: the callee ``register()``)."""
    last = fn.rpartition(".")[2]
    if last == "__init__" and fs.parents.get(fn, "") == fn[:-9]:
        return [last, fn[:-9].rpartition(".")[2]]
    outer = fs.parents.get(fn, "")
    return [last, outer.rpartition(".")[2]] if outer and fs.kinds.get(outer) in FUNC_KINDS \
        else [last]


def _callee(flow: Flow, r: Resolver, fs: FileSyms, scope: str, segs: tuple[str, ...],
            line: int) -> tuple[str, int]:
    """(target of a call of ``segs``, 1 when it is called on an instance), memoised."""
    key = (fs.path, scope, segs, line)
    hit = flow.callees.get(key)
    if hit is None:
        hit = flow.callees[key] = _callee_uncached(flow, r, fs, scope, segs, line)
    return hit

def _callee_uncached(flow: Flow, r: Resolver, fs: FileSyms, scope: str,
                     segs: tuple[str, ...], line: int) -> tuple[str, int]:
    last = segs[-1]
    if len(segs) == 1:
        return r.target(scope, last, "", line), 0
    if last[0] in ".:":
        recv = render(segs[:-1])
        rv = flow.eval(fs, scope, segs[:-1], line)
        shift = 0 if rv is not None and rv[0] in ("cls", "mod") else 1
        return r.target(scope, last.lstrip(".:"), recv, line), shift
    return next(iter(flow.callable_target(flow.eval(fs, scope, segs, line))), ""), 0


def param(flow: Flow, fs: FileSyms, fn: str, name: str, pos: int, typ: str, kw: bool,
          each: bool | str = False) -> Value | None:
    """Value of parameter ``name`` (at ``pos``; ``kw``: keyword-only) of function ``fn``
    of ``fs``: its declared type ``typ``, else (Python) the values its call sites in this
    file pass (:func:`passed`) and its default (a union when they differ; unknown instead
    while a return value is evaluated). ``each``: an element of the parameter (``True``)
    or a part of one (``"[*][1]"``: ``for name, step in steps``): of its declared
    collection type (``list[Job]``), else from what the call sites pass and a default
    that is a name (``steps=STEPS``)."""
    if each:
        part = "[*]" if each is True else str(each)
        if typ:  # `jobs: list[Job]`: a Job (or the subclasses' instances passed)
            el = element_type(typ, fs.language) if part == "[*]" else \
                value_type(typ, fs.language) if part == "[?]" else ""  # `Mapping[str, H]`
            dv = flow.value(fs, fn, el, 0) if el else None
            return _declared_base(flow, fs, fn, name, -1 if kw else pos, dv, part)
        if fs.language not in ARGS:
            return None
        got = flow._guarded(("param" + part, fs.path, fn, name),
                            partial(passed, flow, fs, fn, -1 if kw else pos, name, part))
        default = py_default(fs.sigs.get(fn, ""), name)  # `steps=STEPS`: STEPS[*]
        return union([got, _at_def(flow, fs, fn, default + part)]) \
            if default.isidentifier() and fs.def_lines.get(fn) else got
    dv = None
    if typ:
        dv = union(flow.value(fs, fn, p, 0) for p in type_values(typ, fs.language))
        if dv is not None and dv[0] == "inst" and not hierarchy.protocol(flow, dv):
            return _declared_base(flow, fs, fn, name, -1 if kw else pos, dv)  # `sink: Sink`
        callable_ = dv is None and fs.language == "python" and "Callable" in typ and \
            "|" not in typ and "Union" not in typ  # (`Command | Callable`: narrowed inside)
        if not callable_ and (dv is None or fs.language != "python" or not (
                dv[0] == "cls" or hierarchy.protocol(flow, dv))):
            return dv  # (a Protocol: what the call sites pass, PEP 544; `type[X]`: below;
            # `cb: Callable[[], None]` likewise: break-it of session 35)
    if fs.language not in ARGS or (pos == 0 and name in ("self", "cls") and
                                   fs.kinds.get(fn) == "method"):
        return None  # the receiver (a plain function's `cls` is a parameter like any)
    got = flow._guarded(("param", fs.path, fn, name),
                        partial(passed, flow, fs, fn, -1 if kw else pos, name))

    default = py_default(fs.sigs.get(fn, ""), name)
    if default:  # evaluated where the function is defined
        got = union([got, _at_def(flow, fs, fn, default)])
    if dv is not None and dv[0] == "cls" and not hierarchy.protocol(flow, dv):
        # `type[X]`: the classes passed, else any class deriving from X that can be made
        return got if got is not None else \
            dispatch.concrete_classes(flow.ctx(fs.path) or flow.root, dv[1])
    if got is not None and got[0] == "any" and flow._returning:
        # `def same(x): return x` called with `a` here and `b` there: what one call
        # returns is not the union (call sites are not told apart), so unknown
        return None
    return got


def _declared_base(flow: Flow, fs: FileSyms, fn: str, name: str, pos: int,
                   dv: Value | None, part: str = "") -> Value | None:
    """Declared value ``dv`` of parameter ``name`` (or of its part ``part``: ``[*]`` of
    ``hs: list[Handler]``) with, for a Python class that has subclasses, the instances of
    those the call sites pass (session 33; session 34 for the elements)."""
    if dv is None or dv[0] != "inst" or fs.language != "python" or \
            hierarchy.protocol(flow, dv) or not dispatch.subclasses(
                flow.ctx(fs.path) or flow.root, dv[1]):
        return dv
    got = flow._guarded(("param" + part, fs.path, fn, name),
                        partial(passed, flow, fs, fn, pos, name, part))
    return union([dv, got]) if got is not None and hierarchy.narrower(flow, got, dv) else dv


def _at_def(flow: Flow, fs: FileSyms, fn: str, default: str) -> Value | None:
    """Value of parameter default ``default`` of ``fn`` as its ``def`` statement saw it
    (a module name bound again later keeps its value at the ``def``)."""
    scope, at = fs.parents.get(fn, ""), fs.def_lines.get(fn, 0)
    b = fs.flow.get("", {}).get(default) if not scope and at else None
    if b and default.isidentifier() and any(ln < at for ln, _v in b):
        return flow.pick(fs, "", b, at, fs.flow.get("", {}).get(default + BRANCH))
    return flow.value(fs, scope, default, at)


def star_element(flow: Flow, fs: FileSyms, fn: str, name: str) -> Value | None:
    """An element of ``fn``'s ``*name`` parameter (Python): the union of the positional
    arguments its call sites in this file pass from that position on, or ``None``."""
    star = py_star(fs.sigs.get(fn, "")) if fs.language in ARGS else None
    if star is None or star[0] != name:
        return None
    return flow._guarded(("param*", fs.path, fn, name),
                         partial(passed, flow, fs, fn, star[1], name, "", True))


def kwarg(flow: Flow, fs: FileSyms, fn: str, base: str, part: str) -> Value | None:
    """``hooks['before']`` (or ``hooks.get('before')``) of a Python ``**hooks`` parameter
    of ``fn``: what its call sites pass as the keyword ``before`` (when ``before`` is no
    parameter of its own); ``None`` for another part (``*args``'s, a computed key)."""
    if fs.language != "python" or len(part) < 5 or part[:2] not in ("['", '["') or \
            "**" + base not in fs.sigs.get(fn, ""):
        return None
    key = part[2:-2]
    if not key.isidentifier() or part[-2:] not in ("']", '"]') or fs.param(fn, key):
        return None
    return flow._guarded(("kwarg", fs.path, fn, key), partial(passed, flow, fs, fn, -1, key))
