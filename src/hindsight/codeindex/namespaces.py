"""A bare name defined by another file of the caller's package or namespace.

* Go: another file of the caller's directory (one package);
* Java, Kotlin: another file of the caller's ``package``; Java: a static member of the
  class of an ``import static pkg.Class.*;``;
* C# (ECMA-334, "Namespace and type names"): the caller's namespace and each enclosing
  one (code in ``Acme.Tools`` sees ``Acme``'s types), then the ``using`` directives of the
  file: ``using N;`` (the types of namespace ``N``), ``using static N.T;`` (the static
  members of type ``T``) and ``using A = N.T;`` (an alias of a type). A C# type is found in
  a file that declares its namespace in a block (``namespace N { class C }``: local name
  ``N.C``, also when ``N`` is nested in another block), or file-scoped (``namespace N;``:
  local name ``C``). Files are reached through their ``pkg:`` key (a file's first
  namespace), so a namespace declared nested in another is looked for under each dotted
  prefix of its name.

Every file and key consulted is recorded as a dependency by the resolver's lookups.
"""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING, Any

from hindsight.codeindex.bindings import BRANCH, GLOBAL
from hindsight.codeindex.receivers import PROVIDES
from hindsight.codeindex.table import CLASS_KINDS, FUNC_KINDS

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.table import FileSyms
    from hindsight.codeindex.values import Value


def same_package(r: Resolver, fs: FileSyms, name: str) -> list[str]:
    """Qualified names (``path::local``) ``name`` denotes through ``fs``'s package or
    namespace (module docstring); ``[]`` when none."""
    if fs.language == "go":
        for p in r._by_key(f"dir:{fs.path.rpartition('/')[0]}"):
            other = r._file(p) if p != fs.path else None
            if other is not None and other.language == "go" and name in other.top:
                return [f"{p}::{name}"]
        return []
    if fs.language == "csharp":
        return _csharp(r, fs, name)
    if fs.package and fs.language in ("java", "kotlin"):
        for p in r._by_key(f"pkg:{fs.package}"):
            other = r._file(p) if p != fs.path else None
            if other is not None and name in other.top:
                return [f"{p}::{name}"]
    if fs.language == "java":  # `import static com.acme.Strings.*;`: Strings's members
        for mod in reversed(fs.wildcards):
            pkg, _, tname = mod.rpartition(".")
            for q in package_type(r, pkg, tname) if pkg else ():
                hit = r.members_of(q.partition("::")[0], tname, name, 0)
                if hit:
                    return hit
    return []


def _csharp(r: Resolver, fs: FileSyms, name: str) -> list[str]:
    ns = fs.package
    while ns:  # the file's namespace, then the enclosing ones
        hit = ns_type(r, ns, name, skip=fs.path)
        if hit:
            return hit
        ns = ns.rpartition(".")[0]
    for mod, iname in fs.by_alias.get(name, []):  # `using A = N.T;`
        hit = ns_type(r, mod, iname)
        if hit:
            return hit
    for mod in reversed(fs.wildcards):  # `using N;`, `using static N.T;`
        hit = ns_type(r, mod, name)
        if hit:
            return hit
        outer, _, tname = mod.rpartition(".")
        for q in ns_type(r, outer, tname) if outer else []:
            path, _, local = q.partition("::")
            hit = r.members_of(path, local, name, 0)
            if hit:
                return hit
    return []


def ext_facts(symbols: list[Any]) -> list[tuple[str, str, str, int]]:
    """C# extension methods (a static method whose first parameter is ``this T``): one
    ``("", PROVIDES, "ext:<name>", digest)`` per method name, the digest a CRC-32 of their
    local names and signatures (incremental re-resolution compares it); and one
    ``("", PROVIDES, "ns:<namespace>", digest)`` per namespace block (digest: its members'
    names and kinds)."""
    rows: dict[str, list[tuple[str, str]]] = {}
    spaces: dict[str, list[tuple[str, str]]] = {}
    parts: list[str] = []
    for s in symbols:  # (path, name, local, kind, parent, …, signature at 9)
        if s[3] == "method" and _THIS.search(s[9]):
            rows.setdefault(s[1], []).append((s[2], s[9]))
        if s[3] == "namespace":
            spaces.setdefault(s[2], [])
        elif s[3] in CLASS_KINDS and _PARTIAL.search(s[9]):
            parts.append(s[1])
    for s in symbols:
        if s[4] in spaces:
            spaces[s[4]].append((s[1], s[3]))
    return [("", PROVIDES, f"ext:{n}", _crc(r)) for n, r in sorted(rows.items())] + [
        ("", PROVIDES, f"ns:{n}", _crc(r)) for n, r in sorted(spaces.items())] + [
        ("", PROVIDES, f"partial:{n}", 0) for n in sorted(set(parts))]


_PARTIAL = re.compile(r"\bpartial\b")


def partial_parts(r: Resolver, fs: FileSyms, cls: str) -> list[tuple[str, str]]:
    """The other declarations ``(path, local)`` of C# ``partial`` class ``cls`` of ``fs``:
    classes of the same namespace-qualified name declared ``partial`` in other files
    (ECMA-334, "Partial declarations"), found by their ``partial:<name>`` keys; ``[]`` for
    a class not declared ``partial``. Memoised per resolver."""
    if fs.language != "csharp" or not _PARTIAL.search(fs.sigs.get(cls, "")):
        return []
    key = (fs.path, "\0partial", cls, 0)
    hit = r._memo.get(key)
    if hit is None:
        full, simple, found = _full(fs, cls), cls.rpartition(".")[2], []
        for p in r._by_key(f"partial:{simple}"):
            other = r._file(p) if p != fs.path else None
            if other is not None and other.language == "csharp":
                found += [f"{p}::{q}" for q, k in other.kinds.items() if k in CLASS_KINDS
                          and q.rpartition(".")[2] == simple and _full(other, q) == full
                          and _PARTIAL.search(other.sigs.get(q, ""))]
        hit = r._memo[key] = found
    return [(q.partition("::")[0], q.partition("::")[2]) for q in hit]


def partial_member(r: Resolver, parts: list[tuple[str, str]], name: str) -> list[str]:
    """``[path::local]`` of member ``name`` declared in one of ``parts`` (of
    :func:`partial_parts`), the first; ``[]`` when none declares it."""
    for p, cls in parts:
        other = r._file(p)
        local = other.members.get(cls, {}).get(name) if other is not None else None
        if local:
            return [f"{p}::{local}"]
    return []


def _full(fs: FileSyms, local: str) -> str:
    """The namespace-qualified name of type ``local`` of C# file ``fs``: ``local`` inside a
    namespace block, else prefixed with the file-scoped namespace."""
    s = fs.parents.get(local, "")
    while s:
        if fs.kinds.get(s) == "namespace":
            return local
        s = fs.parents.get(s, "")
    return f"{fs.package}.{local}" if fs.package else local


def _crc(rows: list[tuple[str, str]]) -> int:
    return zlib.crc32(repr(sorted(rows)).encode("utf-8")) & 0x7FFFFFFF


def ns_files(r: Resolver, ns: str) -> list[str]:
    """C# files that declare namespace ``ns``: by their first namespace (``pkg:``) or by any
    namespace block they declare (``ns:``, :func:`ext_facts`: a file with two blocks)."""
    a, b = r._by_key(f"pkg:{ns}"), r._by_key(f"ns:{ns}")
    return sorted(set(a) | set(b)) if b else a


def extension(r: Resolver, fs: FileSyms, name: str) -> list[str]:
    """C#: the extension method ``name`` a call ``x.name(…)`` whose receiver has no such
    member reaches: the one method of that name with a ``this`` first parameter declared in
    a static class of the caller's namespace, an enclosing one or a ``using`` namespace;
    ``[]`` when none or more than one (the index does not weigh the ``this`` types).
    Memoised per file and name."""
    key = (fs.path, "\0ext", name, 0)
    hit = r._memo.get(key)
    if hit is not None:
        return hit
    seen: set[str] = set()
    ns, visible = fs.package, []
    while ns:
        visible.append(ns)
        ns = ns.rpartition(".")[0]
    visible += [m for m in fs.wildcards if m not in visible]
    for p in r._by_key(f"ext:{name}"):
        other = r._file(p)
        if other is None or other.language != "csharp":
            continue
        for cls_ns in visible:
            for cls in (other.members.get(cls_ns, {}).values() if other.members.get(cls_ns)
                        else other.top if other.package == cls_ns else ()):
                local = other.members.get(cls, {}).get(name)
                if local is not None and other.kinds.get(cls) in CLASS_KINDS and any(
                        _THIS.search(sig) for q, sig in other.sigs.items()
                        if q == local or q.startswith(local + "(")):
                    seen.add(f"{p}::{local}")
    hit = r._memo[key] = sorted(seen) if len(seen) == 1 else []
    return hit


_THIS = re.compile(r"\(\s*this\s")
_THIS_STRING = re.compile(r"\(\s*this\s+(?:string|String|System\.String|object)\b")


def ns_type(r: Resolver, ns: str, name: str, skip: str = "") -> list[str]:
    """The type ``name`` declared directly in C# namespace ``ns`` by a file other than
    ``skip``: ``[path::local]`` of the first such file, or ``[]``."""
    prefix = ns
    while prefix:
        for p in ns_files(r, prefix):
            other = r._file(p) if p != skip else None
            if other is None or other.language != "csharp":
                continue
            local = other.members.get(ns, {}).get(name)
            if local is not None and other.kinds.get(ns) == "namespace":
                return [f"{p}::{local}"] if other.kinds.get(local) in CLASS_KINDS else []
            if other.package == ns and other.top.get(name) in CLASS_KINDS and \
                    not other.members.get(ns):
                return [f"{p}::{name}"]  # `namespace N;`
        prefix = prefix.rpartition(".")[0]
    return []


def as_type(r: Resolver, fs: FileSyms, caller: str, name: str, hit: list[str]) -> list[str]:
    """C#: a bare call ``name(…)`` whose lookup ``hit`` is a property, field or constant
    (``public Mailer Mailer { get; set; }`` beside ``Mailer = new Mailer();``, the "Color
    Color" case of ECMA-334 §12.8.7.2) calls no member: it is ``new name()``, so the type
    named ``name`` seen from the enclosing namespace, or nothing (a delegate's invoke)."""
    if not hit or fs.language != "csharp":
        return hit
    path, _, local = hit[0].partition("::")
    other = fs if path == fs.path else r._file(path)
    if other is None or other.kinds.get(local) in CLASS_KINDS | FUNC_KINDS:
        return hit
    return _type(r, fs, caller, name)


def self_typed(f: Flow, fs: FileSyms, scope: str, name: str, line: int) -> Value | None:
    """What ``name`` denotes where its own declaration's type names it (the value of a
    declaration is read before the name it declares exists), else ``None`` (the usual
    lookup):

    * C#: the type ``name`` (``("cls", q)``) when ``name`` is declared in ``scope`` or its
      class with the type of the same name (``Mailer Mailer``: facts ``Mailer =
      Mailer()``); a member reached through either is the same;
    * Go: what ``name`` is at the file's top (a package, a type) when each binding of
      ``name`` in ``scope`` reads ``name`` itself (a struct's field ``cache *cache.LRU``,
      an embedded ``File``, a local ``cache := cache.New(16)``; not a parameter), read
      at ``line`` (1-based) before any of them: the declaration's own value."""
    if fs.language == "go":
        b = fs.flow.get(scope, {}).get(name)
        if b and all(v.startswith(name + ".") or v == name + "()" for _, v in b) and \
                fs.param(scope, name) is None and all(ln >= line for ln, _ in b):
            return f.head(fs, "", name, 0)
        return None
    cls = fs.enclosing_class(scope)
    for s in (scope, cls) if cls and cls != scope else (scope,):
        b = fs.flow.get(s, {}).get(name)
        if b and any(v == name + "()" for _, v in b):
            r = f.ctx(fs.path)
            hit = _type(r, fs, scope, name) if r is not None else []
            return ("cls", hit[0]) if hit else None
    return None


def _type(r: Resolver, fs: FileSyms, caller: str, name: str) -> list[str]:
    """The C# type ``name`` seen from the namespace around ``caller``'s class: ``[q]`` or
    ``[]``."""
    scope = r.enclosing_class(caller)
    scope = fs.parents.get(scope, "") if scope else caller
    got = r.lookup(fs, scope, name)
    path, _, local = got[0].partition("::") if got else ("", "", "")
    other = fs if path == fs.path else r._file(path) if path else None
    return got[:1] if other is not None and other.kinds.get(local) in CLASS_KINDS else []


DOTTED = frozenset({"java", "kotlin", "csharp"})
"""Languages whose code may name a type by its package: ``com.acme.model.Invoice``."""


def qualified(f: Flow, fs: FileSyms, segs: tuple[str, ...]) -> tuple[Value | None, int]:
    """A type named with its package or namespace at the head of access path ``segs``
    (``("com", ".acme", ".model", ".Invoice", "()")``; Java, Kotlin, C#): ``(("cls", q),
    number of segments it spans)``, the longest package first; ``(None, 1)`` when no
    package of at least two parts declares such a type."""
    r = f.ctx(fs.path)
    n = 1
    while n < len(segs) and segs[n][:1] == "." and segs[n][1:].isidentifier():
        n += 1
    for k in range(n - 1, 1, -1):  # segs[k] the type, segs[:k] the package
        pkg, name = segs[0] + "".join(segs[1:k]), segs[k][1:]
        if r is None or not pkg.partition(".")[2]:
            continue
        hit = ns_type(r, pkg, name) if fs.language == "csharp" else package_type(r, pkg, name)
        if hit:
            return ("cls", hit[0]), k + 1
    return None, 1


def unresolved_call(r: Resolver, fs: FileSyms, name: str, receiver: str) -> list[str]:
    """Targets of a call ``receiver.name(…)`` the other rules left unresolved: a C#
    extension method (:func:`extension`), or a type named with its package (``new
    com.acme.model.Invoice(…)``: receiver ``com.acme.model``, Java, Kotlin, C#)."""
    if fs.language == "csharp" and _may_extend(fs, receiver):
        hit = extension(r, fs, name)
        if hit and receiver[0] in "\"@$":  # a string literal: only `this string …`
            path, _, local = hit[0].partition("::")
            other = r._file(path)
            sigs = [g for q, g in (other.sigs.items() if other else ()) if q.startswith(local)]
            hit = hit if any(_THIS_STRING.search(g) for g in sigs) else []
        if hit:
            return hit
    parts = receiver.split(".")
    if fs.language in DOTTED and len(parts) > 1 and all(p.isidentifier() for p in parts):
        segs = (parts[0], *("." + p for p in parts[1:]), "." + name)
        v, k = qualified(r.flow, fs, segs)
        if v is not None and k == len(segs):
            return [v[1]]
    return []


def _may_extend(fs: FileSyms, receiver: str) -> bool:
    """Whether C# ``receiver.m()`` may call an extension method: not a static call on a
    type (``Console.WriteLine``, ``Math.Max``: a capitalised name the file binds no value
    to) nor a call on a number or char literal; on a string literal only an extension of
    ``this string`` counts (``" a ".Trim()`` is string's own: the index does not weigh
    other ``this`` types; break-it of session 37)."""
    if not receiver or receiver[0] in "'0123456789":
        return False
    if receiver.isidentifier() and receiver[0].isupper():
        return any(receiver in d for d in fs.flow.values())  # (a property or local `Name`)
    return True


def package_type(r: Resolver, pkg: str, name: str) -> list[str]:
    """The top-level type ``name`` of Java/Kotlin package ``pkg``: ``[path::name]`` of
    the first file declaring it, or ``[]``."""
    for p in r._by_key(f"pkg:{pkg}"):
        other = r._file(p)
        if other is not None and other.top.get(name) in CLASS_KINDS:
            return [f"{p}::{name}"]
    return []


def go_rebinds(r: Resolver, caller: str, name: str) -> bool:
    """Whether a local ``name`` of Go function ``caller`` (:meth:`FileSyms.local_name`)
    hides the imported package ``name``: a parameter, or bindings that each call a
    function of that package (``cache := cache.New()``); not a typed declaration
    (``func(cache *cache.Store)`` in a func literal, whose facts the enclosing function
    holds). True in other languages."""
    fs = r.f
    if fs.language != "go":
        return True
    b = fs.flow.get(caller, {}).get(name)
    if not b:
        return True  # a parameter
    for _l, v in b:
        fn = v[len(name) + 1:].partition("(")[0]
        got = r._via_receiver(caller, fn, name) if fn.isidentifier() else ""
        path, _, local = got.partition("::")
        other = r._file(path) if got else None
        if other is None or other.kinds.get(local) not in FUNC_KINDS:
            return False
    return True


def py_rebinds(r: Resolver, caller: str, name: str, line: int) -> bool:
    """Whether module alias ``name`` of a Python file is bound again at its top level, so
    that ``name.m()`` at ``line`` of ``caller`` reads that value, not the module: ``import
    cache`` then ``cache = cache.new()`` (break-it of session 38). Only an unconditional
    binding after the alias's last import counts (one in a branch may not run: the module
    stays); module or class-body code reads it only after its line."""
    fs = r.f
    if fs.language != "python":
        return False
    mod = fs.flow.get("", {})
    binds = mod.get(name)
    if not binds:
        return False
    imported = max((ln for c, _m, _i, a, ln in fs.imports if not c and a == name), default=0)
    skip = {b for b, _e in mod.get(name + BRANCH, ())} | {  # (a function's `global name`
        b for b, _e in mod.get(name + GLOBAL, ())}  # binding runs only when it is called)
    later = [ln for ln, _v in binds if ln > imported and ln not in skip]
    if not later:
        return False
    s = caller
    while s:  # a function's own import of the name is read there (break-it 39)
        if name in fs.scoped_imports.get(s, ()):
            return False
        s = fs.parents.get(s, "")
    s = caller
    while s and fs.kinds.get(s) in CLASS_KINDS:
        s = fs.parents.get(s, "")
    return bool(s) or line > later[0]

