"""What calling a function gives (:mod:`hindsight.codeindex.flow`): its declared return
type, else the values of its ``return`` statements (their union), a generator for a
function that yields; and the parts of what it returns: ``return[i]`` (position ``i``
of a returned tuple) and ``return[*]`` (an element of a returned list, set or
comprehension)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

from hindsight.codeindex import hierarchy
from hindsight.codeindex.languages import JS_FAMILY
from hindsight.codeindex.types import element_type, type_values
from hindsight.codeindex.values import Value, union

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.table import FileSyms


def declared_element(flow: Flow, q: str) -> str:
    """The access path of an element of what function ``q`` is declared to return
    (``-> list[C]``: ``C()``), or ``""`` (also for a generator: its ``yield`` values)."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    if fs is None or "yield" in fs.flow.get(local, {}):
        return ""
    declared = fs.declared_return(local)
    return element_type(declared, fs.language) if declared else ""


def has_part(flow: Flow, q: str, seg: str) -> bool:
    """Whether function ``q`` has ``return<seg>`` facts (``seg``: ``[i]``, ``[*]`` or a
    string key ``['k']`` of a returned dict literal)."""
    if seg != "[*]" and not seg[1:-1].lstrip("-").isdigit() and seg[1:2] != "'":
        return False
    path, _, local = q.partition("::")
    other = flow.fs(path)
    return other is not None and f"return{seg}" in other.flow.get(local, {})


def any_key(facts: Mapping[str, object], base: str) -> bool:
    """Whether ``base['k']`` reads the value under any key, ``base[?]``: a dict whose keys
    the text does not give (a comprehension: ``base[?]`` facts and no ``base['k']``)."""
    return f"{base}[?]" in facts and not any(k.startswith(base + "['") for k in facts)


def part_key(flow: Flow, q: str, seg: str) -> str:
    """The facts key for ``q()<seg>``: ``return[i]`` for a tuple's position, else
    ``return[*]`` (an element of a returned list: ``make()[0]``, or of a declared
    ``-> list[C]``), ``return[?]`` for a string key of a returned dict comprehension
    or an unknown key (``[?]``) of a returned dict,
    ``""`` when none."""
    if seg == "[*]" and declared_element(flow, q):
        return "return[*]"
    if has_part(flow, q, seg):
        return f"return{seg}"
    if seg[1:-1].lstrip("-").isdigit() and has_part(flow, q, "[*]") and not (
            seg[1:-1].isdigit() and has_part(flow, q, "[0]")):
        return "return[*]"  # (past the end of a returned literal: nothing)
    # `make()['a']` of `return {n: W(n) for n in ns}`: the value under any key
    if seg[:2] != "['" and seg != "[?]":
        return ""
    path, _, local = q.partition("::")
    other = flow.fs(path)
    facts = other.flow.get(local, {}) if other is not None else {}
    # (`make()[kind]`, an unknown key: any value of a returned dict literal too)
    return "return[?]" if any_key(facts, "return") or (
        seg == "[?]" and "return[?]" in facts) else ""


def value(flow: Flow, q: str, key: str = "return") -> Value | None:
    """What calling function ``q`` gives (``key`` ``return[i]``: position ``i`` of
    the tuples it returns)."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    if fs is None:
        return None
    facts = fs.flow.get(local, {})
    if "yield" in facts or "yield[-1]" in facts or (  # (a generator of tuples: `yield k, f`)
            fs.language in JS_FAMILY  # (`*gen() { return this; }`)
            and "*" in fs.sigs.get(local, "").partition("(")[0]):
        return ("gen", q) if key == "return" else None
    if key == "return[*]":
        el = declared_element(flow, q)
        if el:
            return flow.value(fs, local, el, 0)
    declared = fs.declared_return(local) if key == "return" else ""
    if declared:
        dv = union(flow.value(fs, local, p, 0) for p in type_values(declared, fs.language))
        if dv is None or not facts.get(key) or fs.language != "python":
            return dv
        # `-> Codec` of `return Codec.registry[name]()`: the body's value when it is
        # narrower (classes deriving from the declared one); a Protocol is no class
        body = _body(flow, fs, local, facts[key])
        if hierarchy.protocol(flow, dv):
            return body
        return body if body is not None and hierarchy.narrower(flow, body, dv) else dv
    rets = facts.get(key)
    return _body(flow, fs, local, rets) if rets else None


def _body(flow: Flow, fs: FileSyms, local: str, rets: list[tuple[int, str]]) -> Value | None:
    """The union of the values of return facts ``rets`` of function ``local``."""
    flow._returning += 1
    try:
        if len(rets) == 1:
            return flow.value(fs, local, rets[0][1], rets[0][0])
        return union(flow.value(fs, local, val, line) for line, val in rets)
    finally:
        flow._returning -= 1


def called(flow: Flow, v: Value, segs: tuple[str, ...], i: int) -> tuple[Value | None, int]:
    """Value of calling ``v`` in an access path, with the index of the segment to read
    next: ``make()[0]`` of ``return f, g`` is that position's value and ``make()[*]`` an
    element of what it returns (``return [C(x) for x in xs]``), reading the subscript
    ``segs[i]`` too; ``make().get(k)`` of a function returning a dict literal is any of
    its values (reading ``.get()`` too); else what the call gives (``Flow.call_value``)."""
    key = part_key(flow, v[1], segs[i]) \
        if v[0] == "fn" and i < len(segs) and segs[i][0] == "[" else ""
    if key:
        q = v[1]
        return flow._guarded(("ret", q, key), partial(value, flow, q, key)), i + 1
    w = flow.call_value(v)
    if w is None and v[0] == "fn" and segs[i:i + 2] == (".get", "()") and \
            (key := part_key(flow, v[1], "[?]")):
        q = v[1]
        return flow._guarded(("ret", q, key), partial(value, flow, q, key)), i + 2
    return w, i
