"""Decode import statements into ``(module, name, alias)`` triples, per language.

``module`` is the module as written; ``name`` the imported member (``""`` for the module
itself); ``alias`` the local binding (``""`` for wildcard imports). Resolution of these
triples to files lives in :mod:`hindsight.codeindex.modules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Triple = tuple[str, str, str]
# A CommonJS module's value: `module.exports = X` is the triple ("", X, CJS) (as `export
# default X` is ("", X, "default")); `var x = require('m')` is ("m", CJS, "x").
CJS = "module.exports"


def _t(n: Any) -> str:
    return n.text.decode("utf-8", "replace") if n is not None else ""


def _python(node: Any) -> list[Triple]:
    out: list[Triple] = []
    if node.type == "import_statement":
        for ch in node.named_children:
            if ch.type == "dotted_name":
                mod = _t(ch)
                out.append((mod, "", mod))
                if "." in mod:  # `import a.b` also binds `a`
                    top = mod.split(".", 1)[0]
                    out.append((top, "", top))
            elif ch.type == "aliased_import":
                out.append((_t(ch.child_by_field_name("name")), "",
                            _t(ch.child_by_field_name("alias"))))
        return out
    mod_node = node.child_by_field_name("module_name")
    mod = _t(mod_node).replace(" ", "")
    for ch in node.named_children:
        if ch is mod_node or (mod_node is not None and ch.id == mod_node.id):
            continue
        if ch.type == "dotted_name":
            name = _t(ch)
            out.append((mod, name, name))
        elif ch.type == "aliased_import":
            out.append((mod, _t(ch.child_by_field_name("name")),
                        _t(ch.child_by_field_name("alias"))))
        elif ch.type == "wildcard_import":
            out.append((mod, "*", ""))
    return out


def _strip_quotes(s: str) -> str:
    return s.strip().strip("\"'`")


def _js_export(node: Any) -> list[Triple]:
    src = node.child_by_field_name("source")
    if src is None:  # export default <decl or identifier>: this file, alias "default"
        decl = node.child_by_field_name("declaration")
        target = decl.child_by_field_name("name") if decl is not None else \
            node.child_by_field_name("value")
        if target is not None and target.type in ("identifier", "type_identifier"):
            return [("", _t(target), "default")]
        return []
    mod = _strip_quotes(_t(src))
    out: list[Triple] = []
    for ch in node.named_children:
        if ch.type == "export_clause":
            for spec in ch.named_children:
                if spec.type == "export_specifier":
                    name = _t(spec.child_by_field_name("name"))
                    out.append((mod, name, _t(spec.child_by_field_name("alias")) or name))
        elif ch.type == "namespace_export":
            out.append((mod, "", _t(ch.named_child(0))))
    return out or [(mod, "*", "")]


def _js(node: Any) -> list[Triple]:
    if node.type == "export_statement":
        return _js_export(node)
    src = node.child_by_field_name("source")
    if src is None:
        return []
    mod = _strip_quotes(_t(src))
    out: list[Triple] = []
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        return [(mod, "", "")]
    for ch in clause.named_children:
        if ch.type == "identifier":
            out.append((mod, "default", _t(ch)))
        elif ch.type == "namespace_import":
            ids = [c for c in ch.named_children if c.type == "identifier"]
            if ids:
                out.append((mod, "", _t(ids[0])))
        elif ch.type == "named_imports":
            for spec in ch.named_children:
                if spec.type != "import_specifier":
                    continue
                name = _t(spec.child_by_field_name("name"))
                alias = _t(spec.child_by_field_name("alias")) or name
                out.append((mod, name, alias))
    return out


def _required(call: Any) -> str | None:
    """The module of ``require('x')`` (``None`` for any other call)."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or _t(fn) != "require" or args is None or args.named_child_count == 0 \
            or args.named_child(0).type != "string":
        return None
    return _strip_quotes(_t(args.named_child(0)))


def _js_require(node: Any) -> list[Triple]:
    """``var x = require('m')``: ``x`` is what ``m`` assigns to ``module.exports`` (the
    name ``module.exports``; the module itself when it assigns none, see
    Resolver.lookup); ``var {a, b: c} = require('m')``; ``var a = require('m').a``."""
    name = node.child_by_field_name("name")
    val = node.child_by_field_name("value")
    if name is None or val is None:
        return []
    if val.type == "member_expression" and name.type == "identifier":
        obj, prop = val.child_by_field_name("object"), val.child_by_field_name("property")
        mod = _required(obj) if obj is not None and obj.type == "call_expression" else None
        return [(mod, _t(prop), _t(name))] if mod is not None and prop is not None else []
    mod = _required(val)
    if mod is None:
        return []
    if name.type == "identifier":
        return [(mod, CJS, _t(name))]
    out: list[Triple] = []
    if name.type == "object_pattern":
        for p in name.named_children:
            if p.type == "shorthand_property_identifier_pattern":
                out.append((mod, _t(p), _t(p)))
            elif p.type == "pair_pattern":
                out.append((mod, _t(p.child_by_field_name("key")),
                            _t(p.child_by_field_name("value"))))
    return out


def _js_any(node: Any) -> list[Triple]:
    if node.type == "variable_declarator":
        return _js_require(node)
    if node.type == "assignment_expression":  # module.exports = X | require('m')
        right = node.child_by_field_name("right")
        if right is None:
            return []
        if right.type == "identifier":
            return [("", _t(right), CJS)]
        mod = _required(right)
        return [(mod, CJS, CJS)] if mod is not None else []
    return _js(node)


def _java(node: Any) -> list[Triple]:
    text = _t(node).removeprefix("import").strip().rstrip(";").strip()
    static = text.startswith("static ")
    if static:
        text = text[7:].strip()
    text = text.replace(" ", "")
    if text.endswith(".*"):
        return [(text[:-2], "*", "")]
    mod, _, name = text.rpartition(".")
    return [(mod, name, name)]


def _csharp(node: Any) -> list[Triple]:
    """``using N;`` → ``(N, "*", "")``; ``using static N.T;`` → ``(N.T, "*", "")``;
    ``using A = N.T;`` → ``(N, "T", "A")``; ``global using`` alike."""
    text = _t(node).strip().rstrip(";").removeprefix("global").strip()
    text = text.removeprefix("using").strip().removeprefix("static ").strip()
    alias, eq, target = text.partition("=")
    if eq:
        mod, _, name = target.replace(" ", "").rpartition(".")
        return [(mod, name, alias.strip())] if name and alias.strip() else []
    text = text.replace(" ", "")
    return [(text, "*", "")] if text else []


def _go(node: Any) -> list[Triple]:
    path = node.child_by_field_name("path")
    if path is None:
        return []
    mod = _strip_quotes(_t(path))
    alias_node = node.child_by_field_name("name")
    alias = _t(alias_node) if alias_node is not None else mod.rsplit("/", 1)[-1]
    if alias in ("_",):
        return [(mod, "", "")]
    if alias == ".":
        return [(mod, "*", "")]
    return [(mod, "", alias)]


def _rust_tree(node: Any, prefix: str, out: list[Triple]) -> None:
    t = node.type
    if t in ("scoped_identifier", "identifier", "crate", "self", "super"):
        full = (prefix + "::" if prefix else "") + _t(node)
        mod, _, name = full.rpartition("::")
        out.append((mod, name, name if name != "self" else mod.rsplit("::", 1)[-1]))
    elif t == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = _t(node.child_by_field_name("alias"))
        full = (prefix + "::" if prefix else "") + _t(path)
        mod, _, name = full.rpartition("::")
        out.append((mod, name, alias))
    elif t == "scoped_use_list":
        path = node.child_by_field_name("path")
        base = (prefix + "::" if prefix else "") + _t(path) if path is not None else prefix
        lst = node.child_by_field_name("list")
        if lst is not None:
            for ch in lst.named_children:
                _rust_tree(ch, base, out)
    elif t == "use_list":
        for ch in node.named_children:
            _rust_tree(ch, prefix, out)
    elif t == "use_wildcard":
        inner = node.named_child(0)
        base = (prefix + "::" if prefix else "") + _t(inner) if inner is not None else prefix
        out.append((base, "*", ""))


def _rust(node: Any) -> list[Triple]:
    out: list[Triple] = []
    if node.type == "mod_item":
        name = _t(node.child_by_field_name("name"))
        if node.child_by_field_name("body") is None:
            out.append(("self", name, name))
        return out
    arg = node.child_by_field_name("argument")
    if arg is not None:
        _rust_tree(arg, "", out)
    return out


def _generic(node: Any) -> list[Triple]:
    text = _t(node).strip().rstrip(";")
    for kw in ("import", "using", "require_relative", "require", "include", "use",
               "#include"):
        if text.startswith(kw):
            text = text[len(kw):].strip()
            break
    mod = _strip_quotes(text.strip("<>\"' ()"))
    return [(mod, "", "")] if mod else []


_DECODERS: dict[str, Callable[[Any], list[Triple]]] = {
    "python": _python,
    "javascript": _js_any,
    "typescript": _js_any,
    "tsx": _js_any,
    "java": _java,
    "csharp": _csharp,
    "go": _go,
    "rust": _rust,
}


def decode(language: str, node: Any) -> list[Triple]:
    """Import triples for one ``@import`` node of ``language``. Never raises on odd syntax."""
    try:
        return _DECODERS.get(language, _generic)(node)
    except (AttributeError, IndexError, ValueError):
        return []
