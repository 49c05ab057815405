"""Rust methods across ``impl`` blocks of one crate (issue #14; session 28's known gap).

Rust lets any file of a crate add methods to a type: ``impl Entry { fn label }`` in
``entry.rs`` and ``impl Show for Entry { fn label }`` in ``show.rs``. Per file, both are
``Entry.label`` (:mod:`hindsight.codeindex.identity` names a trait's method apart only
when it shares its name with another method of the type in the same file).

* **Extraction** (:func:`impl_facts`, in the worker), per impl block: the type as written
  (``("Entry", "@impl_for", "crate::b::Entry", line)``, generics left out), a fact
  ``(method, "@trait", Trait, line)`` for each method of an ``impl Trait for T`` block
  (the trait as :func:`identity.trait_name` writes it), and a provided key ``impl:<T>``
  (``T`` without path; also under the name an import alias stands for) whose digest
  changes with the methods the file gives ``T``, their traits and the imports that bind
  the name, so a caller is resolved again when one of those changes (not when a method's
  body does).
* **Resolution**: the methods of a type are gathered once per table
  (:func:`methods_of`): the type's own file (nested modules included) and every file
  providing ``impl:<T>`` whose impl block names the same definition (the path as
  written, else the name resolved in that file: two ``struct Entry`` in different modules
  stay apart); trait default methods come with each trait the type implements there.
  :func:`method` answers ``x.m()`` as Rust's lookup mostly does: an inherent method of the
  caller's file, else the one inherent method of that name (several, as in ``impl
  Wrapper<u8>`` and ``impl Wrapper<i32>``: unresolved), else the one trait impl method
  (several: unresolved, as Rust asks for ``<T as Trait>::m`` then or tells the impls
  apart by generic arguments, which are not modelled), else the one default method of an
  implemented trait. Rust's receiver steps (a by-value trait method before a ``&self``
  inherent one) and method visibility are not modelled. :func:`trait_method` is
  ``<T as Trait>::name``.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from hindsight.codeindex.identity import FUNC_KINDS, impl_trait
from hindsight.models import call_base

if TYPE_CHECKING:
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.table import FileSyms, Table

TRAIT = "@trait"
"""Receiver-fact target: the method's ``impl`` block is for this trait."""
IMPL_FOR = "@impl_for"
"""Receiver-fact target: an impl block of this scope names its type so (path, no generics)."""
_TYPE_KINDS = frozenset({"struct", "enum", "union", "type", "trait", "class"})
Methods = dict[str, list[tuple[str, str]]]  # name → [(qualified name, trait, "" or "=Trait")]


def impl_facts(defs: list[Any], imports: list[tuple[str, str, str, str, int]]
               ) -> list[tuple[str, str, str, int]]:
    """The facts and ``impl:<T>`` provided keys of one Rust file's definitions (parse.py
    ``_Def`` objects, nested) and ``imports`` (owner, module, name, alias, line): see the
    module doc."""
    from hindsight.codeindex.receivers import PROVIDES

    rows: dict[str, list[tuple[str, str]]] = {}
    out: list[tuple[str, str, str, int]] = []
    for d in defs:
        c = d.container
        if d.is_scope and d.node.type == "impl_item":
            t = d.node.child_by_field_name("type")
            written = _written(t.text.decode("utf-8", "replace")) if t is not None else ""
            if written:
                out.append((d.local, IMPL_FOR, written, d.node.start_point[0] + 1))
                rows.setdefault(d.name, []).append(("", written))
            continue
        if d.kind not in FUNC_KINDS or d.is_scope or c is None or not c.is_scope or \
                c.node.type != "impl_item":
            continue
        trait = impl_trait(d)
        rows.setdefault(c.name, []).append((d.local, trait))
        if trait:
            out.append((d.local, TRAIT, trait, d.node.start_point[0] + 1))
    for ty, got in sorted(rows.items()):
        used = sorted((m, n, a) for _o, m, n, a, _l in imports if ty in (a, n))
        digest = zlib.crc32(repr((sorted(got), used)).encode("utf-8")) & 0x7FFFFFFF
        names = {ty} | {n for _m, n, a in used if a == ty and n and n != "*"}
        out += [("", PROVIDES, f"impl:{n}", digest) for n in sorted(names)]
    return out


def _written(text: str) -> str:
    """``crate::b::Entry`` of ``&'a mut crate::b::Entry<T>``: the path, no generics."""
    t = text.partition("<")[0].strip().lstrip("&").strip()
    if t.startswith("'"):
        t = t.partition(" ")[2].strip()
    for word in ("mut ", "dyn "):
        t = t.removeprefix(word).strip()
    return t


def trait_of(fs: FileSyms, local: str) -> str:
    """The trait whose ``impl`` block holds method ``local`` of ``fs`` (``""``: inherent)."""
    base = call_base(local)
    if base != local:  # named apart: `T.fmt:Display`, `E.from:From<io::Error>`
        return local[len(base) + 1:]
    hit = fs.flow.get(local, {}).get(TRAIT)
    return hit[0][1] if hit else ""


def method(r: Resolver, path: str, cls: str, name: str) -> list[str]:
    """``[qualified name]`` of method ``name`` of Rust type ``cls`` as file ``path`` names
    it (a struct or an impl block of ``path``); ``[]`` when none or ambiguous (module
    doc)."""
    fs = r._file(path)
    if fs is None or (cls not in fs.members and fs.kinds.get(cls) not in _TYPE_KINDS):
        return []  # a variable, a call: no type of this file
    own = fs.members.get(cls, {}).get(name)
    if own and own in fs.kinds and not trait_of(fs, own):
        return [f"{path}::{own}"]
    ty = definition(r, fs, cls)
    cands = methods_of(r, ty).get(name, []) if ty else []
    inherent = [q for q, t in cands if not t]
    if inherent:
        return inherent if len(inherent) == 1 else []
    impls = [q for q, t in cands if t and t[0] != "="]
    if impls or own:  # (a type whose definition is unknown: the caller's file's own)
        return impls if len(impls) == 1 else [] if impls else [f"{path}::{own}"]
    defaults = [q for q, t in cands if t[:1] == "="]
    return defaults if len(defaults) == 1 else []


def trait_method(r: Resolver, path: str, cls: str, name: str, trait: str) -> str:
    """The method ``name`` that ``impl trait for cls`` gives, or the trait's default
    (``<T as Trait>::name``), ``cls`` as file ``path`` names it; ``""`` when not found."""
    fs = r._file(path)
    if fs is None:
        return ""
    local = f"{cls}.{name}:{trait}"
    if local in fs.kinds:
        return f"{path}::{local}"
    ty = definition(r, fs, cls)
    cands = methods_of(r, ty).get(name, []) if ty else []
    for want in (trait, "=" + trait):
        hits = [q for q, t in cands if t == want]
        if len(hits) == 1:
            return hits[0]
    return ""


def methods_of(r: Resolver, ty: str) -> Methods:
    """Every method the crate gives type ``ty`` (``path::Local`` of its definition): name →
    ``[(qualified name, trait)]`` with trait ``""`` for an inherent method and
    ``"=Trait"`` for a default method of an implemented trait; once per table (the keys it
    needed are added to ``r``'s dependencies on every use)."""
    memo: dict[str, tuple[Methods, frozenset[str]]] = r.t.rust_impls
    hit = memo.get(ty)
    if hit is None:
        memo[ty] = (Methods(), frozenset())  # a cycle (an impl naming itself) finds none
        hit = memo[ty] = _collect(r, ty)
    r.deps.update(hit[1])
    return hit[0]


def _collect(r: Resolver, ty: str) -> tuple[Methods, frozenset[str]]:
    t: Table = r.t
    path, _, local = ty.partition("::")
    simple = local.rpartition(".")[2]
    deps: set[str] = {f"impl:{simple}", f"path:{path}"}
    out: Methods = {}
    traits: list[tuple[str, str]] = []
    files = [path, *(p for p in t.keys(f"impl:{simple}") if p != path)]
    for p in files:
        fs = t.get(p)
        if fs is None or fs.language != "rust":
            continue
        sub = type(r)(t, fs, deps=deps)  # its lookups are what the callers depend on
        aliases = {a for a, targets in fs.by_alias.items()
                   if any(n == simple for _m, n in targets)}
        for scope in list(fs.members):
            if scope.rpartition(".")[2] not in ({simple} | aliases) or \
                    definition(sub, fs, scope) != ty:
                continue
            for name, m in fs.members[scope].items():
                if fs.kinds.get(m) in FUNC_KINDS:
                    out.setdefault(name, []).append((f"{p}::{m}", trait_of(fs, m)))
            for c, tname, recv, _line in fs.inherits:
                if c == scope:
                    tq = sub._by_name(fs.base_scope(scope), tname, recv, fs.starts.get(scope, 0))
                    if tq:
                        traits.append((tq, tname))
    for tq, tname in traits:  # default methods of the traits implemented
        tpath, _, tlocal = tq.partition("::")
        tfs = t.get(tpath)
        for name, m in (tfs.members.get(tlocal, {}) if tfs is not None else {}).items():
            if tfs is not None and tfs.kinds.get(m) in FUNC_KINDS and \
                    not tfs.sigs.get(m, "").rstrip().endswith(";") and \
                    not any(tt == tname for _q, tt in out.get(name, [])):
                out.setdefault(name, []).append((f"{tpath}::{m}", "=" + tname))
                deps.add(f"path:{tpath}")
    # a body edit in another impl file changes nothing here: its `impl:` digest says when
    deps -= {f"path:{p}" for p in files if p != path}
    return out, frozenset(deps)


def definition(r: Resolver, fs: FileSyms, cls: str) -> str:
    """``path::Local`` of the type an impl block (or definition) ``cls`` of ``fs`` is for:
    the definition itself; else the type as its impl blocks write it (a path, or the
    name resolved in that file, an alias followed); ``""`` when unknown, or when impl
    blocks of one scope name different paths."""
    if fs.kinds.get(cls) in _TYPE_KINDS:
        return f"{fs.path}::{cls}"
    written = {v for _l, v in fs.flow.get(cls, {}).get(IMPL_FOR, [])}
    if len(written) > 1:
        return ""
    w = next(iter(written), cls.rpartition(".")[2])
    ctx = r if r.f.path == fs.path else r.flow.ctx(fs.path)
    if ctx is None:
        return ""
    if "::" in w:
        head, _, last = w.rpartition("::")
        q = ctx._rust_path(head, last)
        return q if q and q.partition("::")[2] else ""
    hits = [h for h in ctx.lookup(fs, fs.parents.get(cls, ""), w, 0) if h != f"{fs.path}::{cls}"]
    return hits[0] if len(hits) == 1 else ""


def variant_method(r: Resolver, caller: str, receiver: str, name: str) -> str:
    """The method ``name`` a call on an enum variant runs (``ExitCode::GeneralError.exit()``:
    ``receiver`` is ``ExitCode::GeneralError``): the enum's method, when the path before
    the last segment names an enum; else ``""``."""
    head, sep, variant = receiver.rpartition("::")
    if not sep or not variant.isidentifier() or not variant[:1].isupper():
        return ""
    q = r._rust_path(*head.rsplit("::", 1)) if "::" in head else \
        next(iter(r.lookup(r.f, caller, head)), "")
    path, _, cls = q.partition("::")
    other = r._file(path) if cls else None
    if other is None or other.kinds.get(cls) != "enum" or variant in other.members.get(cls, {}):
        return ""  # (`Enum::CONST.m()`: an associated const, whose type may be another)
    hit = r.members_of(path, cls, name, 0)
    return hit[0] if hit else ""
