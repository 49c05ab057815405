"""Whether a receiver is worth evaluating (issue #14, item 1): a cheap check before
:class:`hindsight.codeindex.flow.Flow` evaluates an access path, mirroring the order in
which the evaluator looks a name up. Most unresolved calls (a local of unknown value, a
builtin, a parameter nothing is known about) stop here. Results are memoised per flow
(``Flow.worthy``: (path, scope, head name) → ``_NO``, ``_YES`` or ``_MEMBERS``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex.bindings import AFTER, NARROW
from hindsight.codeindex.callsites import site_names
from hindsight.codeindex.classes import filled
from hindsight.codeindex.exprs import indexed, parse, part_index
from hindsight.codeindex.languages import SPECS
from hindsight.codeindex.namespaces import DOTTED
from hindsight.codeindex.receivers import ARGS
from hindsight.codeindex.signatures import py_default
from hindsight.codeindex.table import CLASS_KINDS, SUPER_NAMES, FileSyms

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow

_NO, _YES, _MEMBERS = 0, 1, 2  # a function or class is worth it only for a member


def worth(flow: Flow, fs: FileSyms, scope: str, segs: tuple[str, ...], depth: int = 0,
          value: bool = False) -> bool:
    """Whether evaluating ``segs`` may give more than the name rules did: its head is
    ``self``-like, a declared parameter, an undeclared one whose function has call
    sites passing values, a variable bound to something itself worth evaluating, or a
    definition that is neither a class nor a module nor a function (a constant), or
    one of those followed by more than one segment (or any of them when ``value``: the
    receiver of a member call, or a value bound to a name). Most unresolved calls (a
    local of unknown value, a builtin, a parameter nothing is known about) stop here,
    cheaply."""
    head = segs[0]
    if head.startswith("&") or head in SPECS[fs.language].self_names or head in (
            "Self", "super()") or head in SUPER_NAMES.get(fs.language, ("super",)) or \
            head.startswith("super(") or (  # `super(Mid, self)` (exprs.parse)
            fs.language == "go" and fs.recv_var.get(scope) == head):  # as Flow.head: even
        return True  # when the method binds its receiver variable again later (cobra)
    i = 1
    while i < len(segs) and segs[i][0] == "[":  # `d['k']` is one name, as in eval
        head += segs[i]
        i += 1
    key = (fs.path, scope, head)
    memo = flow.worthy
    hit = memo.get(key)
    if hit is None:
        memo[key] = _NO  # a binding that refers to itself is not worth it
        hit = memo[key] = _head_worth(flow, fs, scope, head, depth)
    return hit == _YES or (hit == _MEMBERS and (value or len(segs) > i))


def _head_worth(flow: Flow, fs: FileSyms, scope: str, head: str, depth: int) -> int:
    """:func:`worth` of a name, looked up in the order of :meth:`Flow.head`; ``xs[0]``
    is also tried as ``xs[*]`` (as Flow.eval does when nothing binds ``xs[0]``), and
    ``c['k']`` as ``c``."""
    got = _name_worth(flow, fs, scope, head, depth)
    if got == _NO and fs.language in DOTTED and flow.root._by_key(f"pkghead:{head}"):
        return _MEMBERS  # `com.acme.model.Invoice` (namespaces.qualified)
    if got == _NO and fs.language != "python" and "[" not in head:  # `stores.get(0)`, `v.iter()`
        got = _name_worth(flow, fs, scope, head + "[*]", depth)  # of a declared collection
    alt = indexed(head) if got == _NO else ""
    if alt:
        got = _name_worth(flow, fs, scope, alt, depth)
    if got == _NO and head.endswith("']"):  # `pool['a']` of a dict comprehension: any key
        got = _name_worth(flow, fs, scope, head[:head.rfind("[")] + "[?]", depth)
    if got == _NO and head.endswith("[?]") and "[" not in head[:-3]:
        got = _name_worth(flow, fs, scope, head[:-3], depth)  # `pool = make()`: make()[?]
    part = part_index(head) if got == _NO else ""
    # `c['inc']` of `c = make()`: the base's binding (Flow.eval reads `make()['inc']`)
    if part:
        return _name_worth(flow, fs, scope, head[:-len(part)], depth)
    base = head.partition("[")[0]
    if got == _NO and base != head and fs.param(scope, base) is not None:
        return _name_worth(flow, fs, scope, base, depth)  # `steps[*][1]` of a parameter
    return got


def _name_worth(flow: Flow, fs: FileSyms, scope: str, head: str, depth: int) -> int:
    s = scope
    first = True
    visible = SPECS[fs.language].class_scope_visible
    plain = "[" not in head
    while s:
        kind = fs.kinds.get(s, "scope")
        if first or kind not in CLASS_KINDS:
            b = _bindings(fs, s, head)
            if b:
                return _bound_worth(flow, fs, s, b, depth)
            sig = fs.sigs.get(s)
            if plain and sig and head in sig:
                p = fs.param(s, head)
                if p is not None:
                    return _YES if p[1] or (fs.language in ARGS and (
                        _has_sites(flow, fs, s) or py_default(sig, head))) else _NO
                if "*" + head in sig and fs.language in ARGS:  # *args: its elements
                    return _YES if _has_sites(flow, fs, s) else _NO
        if visible and "[" not in head.removesuffix("[*]") and kind in CLASS_KINDS and (
                head in fs.attrs.get(s, {}) or any(c == s for c, *_r in fs.inherits)):
            return _YES  # a field, maybe inherited
        s = fs.parents.get(s, "")
        first = False
    if plain:
        r = flow.ctx(fs.path)
        hit = r.lookup(fs, scope, head) if r is not None else []
        if hit:
            v = flow.classify(hit[0])
            if v is None:  # (an imported table: its parts, Flow.head)
                return _YES if head in fs.by_alias and head not in fs.flow.get("", {}) else _NO
            return _MEMBERS if v[0] in ("fn", "cls") else _YES
        if head in fs.by_alias and head not in fs.flow.get("", {}):
            return _YES  # an object bound in the module it is imported from: Flow.head
    elif (base := head.partition("[")[0]) in fs.by_alias and base not in fs.flow.get("", {}):
        return _YES  # an element of such an object (`TABLE[k]`): Flow.head
    b = _bindings(fs, "", head)
    if b:
        return _bound_worth(flow, fs, "", b, depth)
    if head.endswith(("[?]", "[*]")) and filled(fs, head[:-3], head[-2]):
        return _YES  # a module's container filled in its functions (classes.bound)
    if head.endswith("[*]") and "[" not in head[:-3] and depth < 4:
        return _head_worth(flow, fs, scope, head[:-3], depth + 1)  # `next(it)`: see Flow.eval
    return _NO


def _bindings(fs: FileSyms, scope: str, head: str) -> list[tuple[int, str]]:
    """The bindings of ``head`` in ``scope``; for ``xs[*]`` / ``d[?]`` with the elements
    added by ``append`` / ``d[k] = v`` too (see Flow._bound)."""
    d = fs.flow.get(scope, {})
    b = d.get(head, [])
    if head.endswith(("[?]", "[*]")):
        b = b + d.get(f"{head[:-3]}[+{head[-2]}]", [])
    return b


def _bound_worth(flow: Flow, fs: FileSyms, scope: str, bindings: list[tuple[int, str]],
                 depth: int) -> int:
    """Whether one of ``bindings`` (of a name in ``scope``) is worth evaluating."""
    if depth > 4:
        return _YES
    return _YES if any(v[1:2] == NARROW or ((segs := parse(v.lstrip(AFTER))) and
                       worth(flow, fs, scope, segs, depth + 1, True))
                       for _l, v in bindings if v != "?") else _NO  # (`!x!C`: a class)


def _has_sites(flow: Flow, fs: FileSyms, fn: str) -> bool:
    """Whether any call in ``fs``, or in another file (key ``arg:<name>``), may pass
    arguments to function ``fn``."""
    names = site_names(fs, fn)
    if fs.args.get("") or any(fs.args.get(n) for n in names):
        return True
    r = flow.ctx(fs.path)
    return r is not None and any(p != fs.path for n in names for p in r._by_key(f"arg:{n}"))
