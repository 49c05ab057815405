"""Distinct, stable identities for definitions that share a name in one scope.

The format (README, docs/design.md "qualified name"):

* **Accessors.** A property getter keeps ``Class.prop``; its setter is
  ``Class.prop:setter`` and its deleter ``Class.prop:deleter`` (Python ``@prop.setter`` /
  ``@prop.deleter`` on a function named ``prop``; JavaScript/TypeScript ``set prop(v)``).
  C# and Kotlin declare a property with its accessors in one declaration: one symbol,
  ``Class.Prop``, kind ``property``.
* **Overloads** (Java, C#, C++, Kotlin): when two or more functions, methods or
  constructors of one scope share a name but not a parameter list, each is
  ``Class.m(int,int)``: the parameter types as written (modifiers that change the type,
  such as C# ``ref``/``params`` and Kotlin ``vararg``, included; parameter names, default
  values and Java annotations left out), with whitespace normalised by :func:`norm_type`.
  A name defined once keeps ``Class.m``; a C++ declaration and its definition (same
  parameter list) share one name.
* **Trait methods** (Rust): when methods of one type share a name (an inherent method and
  a trait's, ``impl DirEntry`` and ``impl Colorable for DirEntry``; or two traits',
  ``fmt`` of ``Display`` and of ``Debug``), each one defined in an ``impl Trait for T``
  is ``T.m:Trait``: the trait as written without its own path (``fmt::Display`` →
  ``Display``; its generic arguments stay as written, so ``From<io::Error>`` and
  ``From<serde_json::Error>`` differ), whitespace normalised. The
  inherent method keeps ``T.m``, which is also what a call ``x.m()`` names (Rust looks
  for inherent methods first).
* **Stubs.** A Python ``@overload`` (``typing.overload``, also under an alias:
  ``from typing import overload as ov``, :func:`alias_stubs`) stub and a TypeScript overload
  signature are not symbols when the implementation is in the same file (the
  implementation is ``Class.m``); without one, the first stub stands for the name.

Anything else that repeats (a function defined in both branches of an ``if``) keeps one
local name; history tells the copies apart as ``name#2``, ``name#3``… in source order
(:func:`hindsight.history.symdiff.keyed`).
"""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.imports import decode

OVERLOADED = frozenset({"java", "csharp", "cpp", "kotlin"})
FUNC_KINDS = frozenset({"function", "method", "constructor"})
_SPACE = re.compile(r"\s+")
_GAP = re.compile(r"(?<=\W) | (?=\W)")
_MEMBERS = frozenset({"pair", "method_definition"})
_EXPRS = frozenset({"function_expression", "generator_function", "class"})
# where a named function or class expression is a definition by its own name: passed or
# returned
_FREE = frozenset({"arguments", "return_statement"})
_TS_WRAPPERS = frozenset({"as_expression", "satisfies_expression"})
# an object literal whose members are definitions: bound to a name, assigned, nested in
# such a literal, or the module's default export
_NAMED_LITERAL = frozenset({"variable_declarator", "assignment_expression", "pair",
                            "export_statement"})
_CPP_PARAMS = frozenset({"parameter_declaration", "optional_parameter_declaration",
                         "variadic_parameter_declaration"})


def norm_type(text: str) -> str:
    """A type as written with whitespace normalised: runs of whitespace become one space,
    kept only between two word characters (``const std::string &`` →
    ``const std::string&``, ``List< String >`` → ``List<String>``)."""
    return _GAP.sub("", _SPACE.sub(" ", text).strip())


def _txt(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _cpp_params(node: Any) -> Any:
    """The parameter list of a C++ function definition or declaration."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        nxt = d.child_by_field_name("declarator")
        if nxt is None and d.named_child_count:
            nxt = d.named_child(0)  # reference_declarator has no field name
        d = nxt
    return d.child_by_field_name("parameters") if d is not None else None


def _cpp_type(p: Any) -> str:
    """A C++ parameter's text without its name and default value."""
    src = p.text
    base = p.start_byte
    end = p.end_byte
    dv = p.child_by_field_name("default_value")
    if dv is not None:
        end = dv.start_byte
    text = src[:end - base]
    d = p.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier"):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children
                        if c.type.endswith("declarator") or c.type == "identifier"), None)
        d = nxt
    if d is not None and base <= d.start_byte < end:
        text = text[:d.start_byte - base] + text[d.end_byte - base:]
    out = text.decode("utf-8", "replace").rstrip()
    return out[:-1] if out.endswith("=") else out


def _java(params: Any) -> list[str]:
    out = []
    for p in params.named_children:
        if p.type == "formal_parameter":
            t = _txt(p.child_by_field_name("type"))
            dims = p.child_by_field_name("dimensions")
            out.append(t + _txt(dims))
        elif p.type == "spread_parameter":
            ty = next((c for c in p.named_children
                       if c.type not in ("modifiers", "variable_declarator")), None)
            out.append(_txt(ty) + "...")
    return out


def _csharp(params: Any) -> list[str]:
    out = []
    for i, p in enumerate(params.children):
        if p.type == "parameter":
            mods = [_txt(c) for c in p.children if c.type == "modifier"]
            out.append(" ".join([*mods, _txt(p.child_by_field_name("type"))]).strip())
        elif params.field_name_for_child(i) == "type":  # `params T[] x` (no parameter node)
            out.append("params " + _txt(p))
    return out


def _kotlin(params: Any) -> list[str]:
    out = []
    vararg = False
    for p in params.named_children:
        if p.type == "parameter_modifiers":
            vararg = b"vararg" in p.text
        elif p.type == "parameter":
            t = p.named_children[-1] if p.named_child_count > 1 else None
            out.append(("vararg " if vararg else "") + _txt(t))
            vararg = False
    return out


def param_types(node: Any, language: str) -> str | None:
    """The parameter types of a function/method/constructor definition ``node``, comma
    separated and normalised (``int,java.util.List<String>``), or None when the node has
    no parameter list this module knows."""
    if language == "cpp":
        params = _cpp_params(node)
        types = [_cpp_type(p) for p in params.named_children if p.type in _CPP_PARAMS] \
            if params is not None else None
        if params is not None and any(c.type == "..." for c in params.children):
            types = [*(types or []), "..."]
    elif language == "kotlin":
        params = next((c for c in node.named_children
                       if c.type == "function_value_parameters"), None)
        types = _kotlin(params) if params is not None else None
    else:
        params = node.child_by_field_name("parameters")
        if node.type == "compact_constructor_declaration" and node.parent is not None and \
                node.parent.parent is not None:  # a record's: its components
            params = node.parent.parent.child_by_field_name("parameters")
        if params is None:
            return None
        types = _java(params) if language == "java" else _csharp(params)
    if types is None:
        return None
    return ",".join(norm_type(t) for t in types)


def js_receiver(d: Any) -> bool:
    """Normalise the receiver of a JavaScript assignment definition ``d`` (a parse.py
    ``_Def``); False to drop it: a member of an object literal that is not bound to a
    name (an argument, an array element) is not a definition, nor is a named function
    expression other than an argument, a returned value or a function called where it is
    written (``(function setup() {…})()``; bound to a name, it is that name's
    definition); a named class expression likewise. A literal bound by destructuring
    (``const { a } = {…}``) names nothing; TypeScript's ``{…} as const`` and ``{…}
    satisfies T`` are the literal.
    ``module.exports.x =`` and ``exports.x =`` define the module's ``x``;
    ``Foo.prototype.m =`` a member of ``Foo``; ``module.exports = function f() {}`` is
    ``f`` (dropped when anonymous); an anonymous ``export default class {}`` or function
    is ``default``. A quoted member name is taken without its quotes."""
    node = d.node
    if d.name[:1] in ("'", '"') and d.name[-1:] == d.name[:1]:  # `'quoted-name'() {}`
        d.name = d.name[1:-1]
    if node.type in _EXPRS:
        up = node.parent
        return up is not None and (up.type in _FREE or _iife(node, up) or (
            d.name == "default" and up.type == "export_statement"))  # `export default class {`
    if node.type in _MEMBERS:
        obj = node.parent
        while obj is not None and obj.type == "object":  # (up through nested literals:
            up = obj.parent  # `f({a: {b: {run() {}}}})` names nothing, break-it 39)
            if up is not None and up.type in _TS_WRAPPERS:  # `{...} as const`, `satisfies T`
                up = up.parent
            if up is None or up.type not in _NAMED_LITERAL:
                return False
            if up.type == "variable_declarator":  # not `const { a } = { a: () => 1 }`
                name = up.child_by_field_name("name")
                return name is not None and name.type == "identifier"
            if up.type != "pair":
                return True
            obj = up.parent
    r = d.receiver
    if not r:
        return True
    if r == "module" and d.name == "exports":
        right = d.node.child_by_field_name("right")
        name = right.child_by_field_name("name") if right is not None else None
        if name is None:
            return False
        d.name, d.receiver = _txt(name), ""
    elif r in ("exports", "module.exports"):
        d.receiver = ""
    elif r.endswith(".prototype"):
        d.receiver = r[:-10]
        if d.kind0 == "function":
            d.kind0 = "method"
    elif r.isidentifier() and _this_alias(node, r):
        d.receiver = "this"  # `var self = this; self.m = function () {}` is `this.m = …`
    return True


def _iife(node: Any, up: Any) -> bool:
    """Whether the function expression ``node`` (parent ``up``) is called where it is
    written: ``(function setup() {…})()`` or ``(function setup() {…}())``."""
    if up.type == "call_expression":
        return up.child_by_field_name("function") == node
    call = up.parent if up.type == "parenthesized_expression" else None
    return call is not None and call.type == "call_expression" and \
        call.child_by_field_name("function") == up


_FUNCS = frozenset({"function_declaration", "function_expression", "method_definition",
                    "generator_function_declaration", "generator_function"})


def _this_alias(node: Any, name: str) -> bool:
    """True when the function around ``node`` (an assignment) declares ``name = this``
    among its body's statements (``var self = this;``, ``const that = this;``)."""
    up = node.parent
    while up is not None and up.type not in _FUNCS:
        up = up.parent
    body = up.child_by_field_name("body") if up is not None else None
    if body is None:
        return False
    for st in body.named_children:
        if st.type in ("variable_declaration", "lexical_declaration"):
            for v in st.named_children:
                val = v.child_by_field_name("value")
                if val is not None and val.type == "this" and \
                        _txt(v.child_by_field_name("name")) == name:
                    return True
    return False


def name_overloads(defs: list[Any], language: str) -> bool:
    """Give overloads (one local name, different parameter lists) their parameter types
    as a suffix; True when any was given (locals must then be computed again)."""
    groups: dict[str, list[Any]] = {}
    for d in defs:
        if d.kind in FUNC_KINDS and not d.is_scope:
            groups.setdefault(d.local, []).append(d)
    changed = False
    for group in groups.values():
        if len(group) < 2:
            continue
        sigs = [param_types(d.node, language) for d in group]
        if None in sigs or len(set(sigs)) < 2:
            continue
        for d, sig in zip(group, sigs, strict=True):
            d.suffix = f"({sig})"
        changed = True
    return changed


def impl_trait(d: Any) -> str:
    """The trait of the Rust ``impl Trait for T`` block that directly holds definition
    ``d`` (a parse.py ``_Def``), as written without its own path (generic arguments as
    written), or ``""``."""
    c = d.container
    if c is None or not c.is_scope or c.node.type != "impl_item":
        return ""
    t = c.node.child_by_field_name("trait")
    return trait_name(_txt(t)) if t is not None else ""


def trait_name(text: str) -> str:
    """A Rust trait as a ``T.m:Trait`` suffix names it: as written, without its own path,
    whitespace normalised (``std::convert::From<std::io::Error>`` →
    ``From<std::io::Error>``)."""
    head, lt, args = norm_type(text).partition("<")
    return head.rpartition("::")[2] + lt + args


def name_trait_methods(defs: list[Any]) -> bool:
    """Rust: give the methods of one type that share a name, when defined in an ``impl
    Trait for T``, the trait as a suffix (``T.fmt:Display``; see the module doc); True
    when any was given (locals must then be computed again)."""
    groups: dict[str, list[Any]] = {}
    for d in defs:
        if d.kind in FUNC_KINDS and not d.is_scope and d.container is not None:
            groups.setdefault(d.local, []).append(d)
    changed = False
    for group in groups.values():
        if len(group) < 2:
            continue
        for d in group:
            trait = impl_trait(d)
            if trait:
                d.suffix = ":" + trait
                changed = True
    return changed


def name_apart(defs: list[Any], language: str) -> bool:
    """Name overloads (:func:`name_overloads`) or Rust trait methods
    (:func:`name_trait_methods`) apart; True when a local name changed."""
    if language in OVERLOADED:
        return name_overloads(defs, language)
    return language == "rust" and name_trait_methods(defs)


def alias_stubs(src: bytes, import_nodes: list[Any], defs: list[Any],
                marks: dict[tuple[int, int], str]) -> None:
    """Python: add to ``marks`` (``(start byte, end byte)`` of a function definition →
    role) a ``stub`` for each function of ``defs`` decorated with a name the file imports
    ``overload`` as (``from typing import overload as ov`` … ``@ov``; also
    ``typing_extensions``), read from the parsed imports (``import_nodes``), so neither
    a docstring nor a line continuation misleads; the query marks the plain and dotted
    forms. Costs nothing in a file without ``overload as``."""
    if b"overload" not in src or not _OVERLOAD_AS.search(src):
        return
    names = {alias for node in import_nodes for module, name, alias in decode("python", node)
             if module in ("typing", "typing_extensions") and name == "overload"
             and alias and alias != "overload"}
    if not names:
        return
    for d in defs:
        up = d.node.parent
        if d.node.type != "function_definition" or up is None or \
                up.type != "decorated_definition":
            continue
        if any(c.type == "decorator" and c.named_child_count == 1 and
               c.named_children[0].type == "identifier" and
               c.named_children[0].text.decode("utf-8", "replace") in names
               for c in up.named_children):
            marks.setdefault((d.start, d.end), "stub")


_OVERLOAD_AS = re.compile(rb"\boverload\s+as\b")


def drop_stubs(defs: list[Any]) -> list[Any]:
    """Overload stubs are not symbols when an implementation of the same local name is
    in the file; without one, the first stub stands for the name."""
    impl = {d.local for d in defs if d.role != "stub"}
    seen: set[str] = set()
    out = []
    for d in defs:
        if d.role == "stub":
            if d.local in impl or d.local in seen:
                continue
            seen.add(d.local)
        out.append(d)
    return out
