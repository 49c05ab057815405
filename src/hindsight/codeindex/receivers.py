"""Receiver facts: what the parser can say about the values names hold (issue #14, item 1).

Runs in the parser workers, on the matches of the ``@fact.*`` patterns of each language's
``queries/flow_<lang>.scm``; nothing here resolves a name. A *fact* is a tuple
``(scope, target, value, line)``:

* ``scope``: the local qualified name of the innermost enclosing definition (``""`` for
  module level), as for references;
* ``target``: the bound name: ``x``, ``self.x`` / ``this.x`` (an attribute of the enclosing
  class), ``x['key']`` / ``x[0]`` (an element of a dict or list literal), or one of the
  reserved targets ``return`` (a returned value), ``->`` (a declared return type),
  ``@dec`` (a decorator of the definition ``scope``), ``()`` (a call whose callee is
  itself a call or a subscript, ``make()()`` or ``handlers['x']()``, which the name
  patterns cannot name; the value is the callee) and ``<callee>@<i>`` /
  ``<callee>@<name>`` (an argument passed at position ``i`` or by keyword);
* ``value``: an access path (see :mod:`hindsight.codeindex.exprs`): ``C()`` for an
  instance of ``C`` (a constructor call or a declared type), ``C`` for the class or
  function itself, ``f()`` for what ``f`` returns; ``@<i>`` / ``@k`` for an undeclared
  parameter at position ``i`` (keyword-only: ``k``), bound later from call sites in the
  same file; ``?`` for a value that is no path (it hides earlier bindings);
* ``line``: 1-based line of the binding (0 for parameters: visible in the whole body).

Facts whose value is ``?`` are kept only where the same scope binds the same target to a
path too, and arguments only when they name something a fact or definition knows: the
index stores what resolution can use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hindsight.codeindex.exprs import canon, parse
from hindsight.codeindex.languages import SPECS
from hindsight.codeindex.types import type_value

FACTS_VERSION = "1"  # stored in a bank's meta; a bank with another value is re-indexed in full
Fact = tuple[str, str, str, int]
_NONE = frozenset({"None", "null", "undefined", "nil"})


def _t(n: Any) -> str:
    return n.text.decode("utf-8", "replace") if n is not None else ""


def _line(n: Any) -> int:
    return int(n.start_point[0]) + 1


class _Out:
    __slots__ = ("facts", "args", "owner", "local_at", "language")

    def __init__(self, language: str, owner: Callable[[int], str],
                 local_at: dict[int, tuple[str, str]]) -> None:
        self.language = language
        self.facts: list[Fact] = []
        self.args: list[Fact] = []
        self.owner = owner
        self.local_at = local_at

    def scope(self, node: Any) -> str:
        """The scope a statement binds in: its owner, or the owner's container when the
        statement is itself a definition (a module constant)."""
        o = self.owner(node.start_byte)
        d = self.local_at.get(node.start_byte)
        return d[1] if d is not None and d[0] == o else o

    def local(self, node: Any) -> str:
        """Local name of the definition starting at ``node`` (``""`` if none)."""
        d = self.local_at.get(node.start_byte)
        return d[0] if d is not None else ""

    def value(self, node: Any) -> str | None:
        """Access path of an assigned value; ``None`` for a nothing value (``None``,
        ``null``), ``?`` for what is no path."""
        if node is None:
            return "?"
        t = node.type
        if t in ("none", "null", "undefined", "nil") or (t == "identifier"
                                                          and _t(node) in _NONE):
            return None
        return canon(_t(node)) or "?"

    def bind(self, scope: str, target_node: Any, value_node: Any, line: int) -> None:
        """Facts for ``target = value``, element-wise for literals and tuples."""
        tt = target_node.type
        if tt in ("pattern_list", "tuple_pattern", "list_pattern"):
            targets = [c for c in target_node.named_children if c.type != "comment"]
            vt = value_node.type if value_node is not None else ""
            values = [c for c in value_node.named_children if c.type != "comment"] \
                if vt in ("expression_list", "tuple", "list") else []
            for i, tn in enumerate(targets):
                self.bind(scope, tn, values[i] if len(values) == len(targets) else None, line)
            return
        target = canon(_t(target_node))
        if not target or len(parse(target) or ()) > 2:
            return
        if value_node is not None and value_node.type in ("dictionary", "list", "tuple",
                                                            "array", "object"):
            self.elements(scope, target, value_node, line)
            self.facts.append((scope, target, "?", line))
            return
        v = self.value(value_node)
        if v is not None:
            self.facts.append((scope, target, v, line))

    def element(self, node: Any) -> str:
        """Access path of an element of ``node`` (the variable of a loop over it): the
        common value of a literal's elements, else ``<path>[*]``, else ``?``."""
        if node.type in ("list", "tuple", "array", "set"):
            vals = {self.value(c) for c in node.named_children if c.type != "comment"}
            v = vals.pop() if len(vals) == 1 else None
            return v if v is not None else "?"
        v = canon(_t(node))
        return f"{v}[*]" if v else "?"

    def elements(self, scope: str, target: str, lit: Any, line: int) -> None:
        i = 0
        values: set[str | None] = set()
        for ch in lit.named_children:
            t = ch.type
            if t == "comment":
                continue
            if t in ("pair",):
                key = ch.child_by_field_name("key")
                val = ch.child_by_field_name("value")
                if key is None or val is None:
                    continue
                k = _t(key)
                if key.type in ("property_identifier", "identifier"):
                    k = f"'{k}'"
                segs = parse(f"x[{k}]")
                if segs is not None and segs[1] != "[?]":
                    v = self.value(val)
                    if v is not None:
                        self.facts.append((scope, f"{target}{segs[1]}", v, line))
                continue
            if t in ("list_splat", "dictionary_splat", "spread_element"):
                return
            v = self.value(ch)
            values.add(v)
            if v is not None:
                self.facts.append((scope, f"{target}[{i}]", v, line))
            i += 1
        if len(values) == 1 and lit.type in ("list", "tuple", "array"):
            v = values.pop()
            if v is not None and v != "?":  # every element the same: the element of a loop
                self.facts.append((scope, f"{target}[*]", v, line))


def _py_params(out: _Out, fn: Any, local: str) -> None:
    params = fn.child_by_field_name("parameters")
    if params is not None:
        pos = 0
        keyword_only = False
        for p in params.named_children:
            t = p.type
            if t in ("list_splat_pattern", "keyword_separator", "dictionary_splat_pattern"):
                keyword_only = True
                continue
            if t == "identifier":
                name, typ = _t(p), None
            elif t in ("typed_parameter", "typed_default_parameter", "default_parameter"):
                nm = p.child_by_field_name("name")
                if nm is None:
                    nm = p.named_child(0)
                name, typ = _t(nm), p.child_by_field_name("type")
            else:
                continue
            v = type_value(_t(typ), "python") if typ is not None else ""
            if not (pos == 0 and name in ("self", "cls")):  # the receiver: never bound
                out.facts.append((local, name, v or ("@k" if keyword_only else f"@{pos}"), 0))
            if not keyword_only:
                pos += 1
    rt = fn.child_by_field_name("return_type")
    if rt is not None:
        v = type_value(_t(rt), "python")
        if v:
            out.facts.append((local, "->", v, 0))


def _py_decorators(out: _Out, node: Any) -> None:
    """``@dec`` on a definition: the fact ``(def, '@dec', dec)`` and the argument fact
    ``(scope, 'dec@0', '&def')`` (a decorator is called with the function)."""
    target = node.child_by_field_name("definition")
    if target is None:
        return
    local = out.local(target)
    if not local:
        return
    scope = out.owner(node.start_byte)
    for dec in node.named_children:
        if dec.type != "decorator" or dec.named_child_count == 0:
            continue
        expr = canon(_t(dec.named_child(0)))
        if not expr:
            continue
        out.facts.append((local, "@dec", expr, 0))
        out.args.append((scope, f"{expr}@0", f"&{local}", _line(dec)))
        if expr.endswith("()"):  # `@repeat(3)`: what `repeat(3)` returns is called too
            out.facts.append((scope, "()", expr, _line(dec)))


def _args(out: _Out, call: Any, arg: Any) -> None:
    fn = call.child_by_field_name("function")
    callee = canon(_t(fn)) if fn is not None else ""
    if not callee:
        return
    if arg.type == "keyword_argument":
        name = arg.child_by_field_name("name")
        val = arg.child_by_field_name("value")
        if name is None or val is None:
            return
        key, vnode = _t(name), val
    else:
        i = 0
        for sib in arg.parent.named_children:
            if sib.id == arg.id:
                break
            if sib.type in ("list_splat", "dictionary_splat", "keyword_argument",
                            "parenthesized_list_splat"):
                return
            if sib.type != "comment":
                i += 1
        key, vnode = str(i), arg
    v = canon(_t(vnode))
    if v:
        out.args.append((out.owner(call.start_byte), f"{callee}@{key}", v, _line(call)))


def _py_assign(out: _Out, caps: dict[str, list[Any]]) -> None:
    node = caps["fact.assign"][0]
    if node.parent is not None and node.parent.type == "assignment":
        return  # the inner part of `a = b = v`: bound with the outer one
    scope = out.scope(node)
    line = _line(node)
    right = node.child_by_field_name("right")
    targets = [node.child_by_field_name("left")]
    while right is not None and right.type == "assignment":
        targets.append(right.child_by_field_name("left"))
        right = right.child_by_field_name("right")
    typ = node.child_by_field_name("type")
    declared = type_value(_t(typ), "python") if typ is not None else ""
    for tn in targets:
        if tn is None:
            continue
        if declared:  # a declared type wins over the value
            target = canon(_t(tn))
            if target:
                out.facts.append((scope, target, declared, line))
        elif right is not None:
            out.bind(scope, tn, right, line)


def _with(out: _Out, caps: dict[str, list[Any]]) -> None:
    item = caps["fact.with"][0]
    val = item.child_by_field_name("value")
    if val is None or val.type != "as_pattern" or val.named_child_count < 2:
        return
    out.bind(out.scope(item), caps["fact.lhs"][0], val.named_child(0), _line(item))


def _py_def(out: _Out, caps: dict[str, list[Any]]) -> None:
    fn = caps["fact.def"][0]
    local = out.local(fn)
    if local:
        _py_params(out, fn, local)


def _returned(out: _Out, caps: dict[str, list[Any]], key: str, target: str) -> None:
    node = caps[key][0]
    vals = caps.get("fact.rhs") or ([node.named_child(0)] if node.named_child_count else [])
    if not vals:
        return
    v = out.value(vals[0])
    scope = out.owner(node.start_byte)
    if v is not None and scope:
        out.facts.append((scope, target, v, _line(node)))


def _for(out: _Out, caps: dict[str, list[Any]]) -> None:
    node = caps["fact.for"][0]
    right = caps.get("fact.rhs", [node.child_by_field_name("right")])[0]
    v = out.element(right) if right is not None else "?"
    out.facts.append((out.scope(node), _t(caps["fact.lhs"][0]), v, _line(node)))


def _xcall(out: _Out, caps: dict[str, list[Any]]) -> None:
    call = caps["fact.xcall"][0]
    name = canon(_t(caps["fact.callee"][0]))
    if name:
        out.facts.append((out.owner(call.start_byte), "()", name, _line(call)))


_HANDLERS: dict[str, Callable[[_Out, dict[str, list[Any]]], None]] = {
    "fact.assign": _py_assign,
    "fact.with": _with,
    "fact.def": _py_def,
    "fact.return": lambda out, caps: _returned(out, caps, "fact.return", "return"),
    "fact.yield": lambda out, caps: _returned(out, caps, "fact.yield", "yield"),
    "fact.for": _for,
    "fact.decorated": lambda out, caps: _py_decorators(out, caps["fact.decorated"][0]),
    "fact.xcall": _xcall,
    "fact.args": lambda out, caps: _args(out, caps["fact.args"][0], caps["fact.arg"][0]),
}


def extract(language: str, matches: list[dict[str, list[Any]]],
            owner: Callable[[int], str], local_at: dict[int, tuple[str, str]],
            known: set[str]) -> list[Fact]:
    """Facts from the ``@fact.*`` matches of one file.

    ``owner(byte)`` gives the local qualified name enclosing a byte offset; ``local_at``
    maps a definition node's start byte to (its local name, its container's); ``known``
    holds the names the file defines or imports (arguments naming anything else are
    dropped). Each match has one root capture (``fact.assign``, ``fact.return``…) naming
    its handler."""
    if not matches:
        return []
    out = _Out(language, owner, local_at)
    for caps in matches:
        for key in caps:
            fn = _HANDLERS.get(key)
            if fn is not None:
                fn(out, caps)
                break
    return _prune(out, known)


def _prune(out: _Out, known: set[str]) -> list[Fact]:
    """Drop ``?`` facts of targets the same scope never binds to a path, and arguments
    whose value names nothing the file knows."""
    paths = {(s, t) for s, t, v, _l in out.facts if v != "?"}
    facts = [f for f in out.facts if f[2] != "?" or (f[0], f[1]) in paths]
    bound = {t for _s, t, _v, _l in facts} | known | set(SPECS[out.language].self_names)
    for f in out.args:
        v = f[2]
        head = v[1:] if v.startswith("&") else (parse(v) or ("",))[0]
        if v.startswith("&") or head in bound or head.partition("[")[0] in bound:
            facts.append(f)
    return facts
