"""Rust methods across ``impl`` blocks of one crate (issue #14; session 28's known gap).

Rust lets any file of a crate add methods to a type: ``impl Entry { fn label }`` in
``entry.rs`` and ``impl Show for Entry { fn label }`` in ``show.rs``. Per file, both are
``Entry.label`` (:mod:`hindsight.codeindex.identity` names a trait's method apart only
when it shares its name with another method of the type in the same file). Rust's method
lookup takes the inherent method first, then a trait's method; so does this module:

* **Extraction** (:func:`impl_facts`, in the worker): a receiver fact
  ``(method, "@trait", Trait, line)`` for each method of an ``impl Trait for T`` block (the
  trait as :func:`identity.trait_name` writes it), and a provided key ``impl:<T>`` (``T``
  as the impl names it, without path or generics) whose digest changes with the methods
  the file gives ``T`` and their traits, so a file that looked a method up through the
  key is resolved again when they change.
* **Resolution** (:func:`method`): ``name`` as a method of the type ``cls`` seen from file
  ``path``: an inherent method of ``path`` itself; else the type's definition is found (a
  struct or enum of ``path``, or the name ``cls`` resolved in ``path``, as an impl block
  written there names it) and every file that gives that name methods (key ``impl:<T>``)
  is read: a file counts only when its own ``T`` resolves to the same definition. An
  inherent method wins; then the trait method of ``path`` itself; then a trait method
  when exactly one trait gives the type that name (several: unresolved, as Rust asks for
  ``<T as Trait>::m`` then). :func:`trait_method` is ``<T as Trait>::name``.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from hindsight.codeindex.identity import FUNC_KINDS, impl_trait
from hindsight.models import call_base

if TYPE_CHECKING:
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.table import FileSyms

TRAIT = "@trait"
"""Receiver-fact target: the method's ``impl`` block is for this trait."""
_TYPE_KINDS = frozenset({"struct", "enum", "union", "type", "trait", "class"})


def impl_facts(defs: list[Any]) -> list[tuple[str, str, str, int]]:
    """The ``@trait`` facts and ``impl:<T>`` provided keys of one Rust file's definitions
    (parse.py ``_Def`` objects, nested): see the module doc."""
    from hindsight.codeindex.receivers import PROVIDES

    per_type: dict[str, list[tuple[str, str]]] = {}
    out: list[tuple[str, str, str, int]] = []
    for d in defs:
        c = d.container
        if d.kind not in FUNC_KINDS or d.is_scope or c is None or not c.is_scope or \
                c.node.type != "impl_item":
            continue
        trait = impl_trait(d)
        per_type.setdefault(c.name, []).append((d.local, trait))
        if trait:
            out.append((d.local, TRAIT, trait, d.node.start_point[0] + 1))
    for ty, rows in sorted(per_type.items()):
        digest = zlib.crc32(repr(sorted(rows)).encode("utf-8")) & 0x7FFFFFFF
        out.append(("", PROVIDES, f"impl:{ty}", digest))
    return out


def trait_of(fs: FileSyms, local: str) -> str:
    """The trait whose ``impl`` block holds method ``local`` of ``fs`` (``""``: inherent)."""
    base = call_base(local)
    if base != local:  # named apart: `T.fmt:Display`, `E.from:From<io::Error>`
        return local[len(base) + 1:]
    hit = fs.flow.get(local, {}).get(TRAIT)
    return hit[0][1] if hit else ""


def method(r: Resolver, path: str, cls: str, name: str) -> list[str]:
    """``[qualified name]`` of method ``name`` of Rust type ``cls`` as file ``path`` names
    it (a struct or an impl block of ``path``), ``[]`` when none or several traits'
    (module doc)."""
    fs = r._file(path)
    if fs is None:
        return []
    if cls not in fs.members and fs.kinds.get(cls) not in _TYPE_KINDS:
        return []  # a variable, a call: no type of this file
    own = fs.members.get(cls, {}).get(name)
    if own and not trait_of(fs, own):
        return [f"{path}::{own}"]
    cands = _elsewhere(r, path, cls, name)
    inherent = [q for q, trait in cands if not trait]
    if inherent:
        return inherent[:1]
    if own:
        return [f"{path}::{own}"]
    traits = {trait: q for q, trait in cands}
    return list(traits.values()) if len(traits) == 1 else []


def trait_method(r: Resolver, path: str, cls: str, name: str, trait: str) -> str:
    """The method ``name`` that ``impl trait for cls`` gives (``<T as Trait>::name``),
    ``cls`` as file ``path`` names it; ``""`` when no such block is found."""
    fs = r._file(path)
    if fs is None:
        return ""
    own = fs.members.get(cls, {}).get(name)
    for q, t in ([(f"{path}::{own}", trait_of(fs, own))] if own else []) + \
            _elsewhere(r, path, cls, name):
        if t == trait:
            return q
    local = f"{cls}.{name}:{trait}"
    return f"{path}::{local}" if local in fs.kinds else ""


def _elsewhere(r: Resolver, path: str, cls: str, name: str) -> list[tuple[str, str]]:
    """``(qualified name, trait or "")`` of each method ``name`` other files give the type
    ``cls`` of ``path`` (the same definition), in path order."""
    ty = _definition(r, path, cls)
    if not ty:
        return []
    simple = cls.rpartition(".")[2]
    out: list[tuple[str, str]] = []
    for p in dict.fromkeys([ty.partition("::")[0], *r._by_key(f"impl:{simple}")]):
        other = r._file(p) if p != path else None
        if other is None or other.language != "rust":
            continue
        for scope in (s for s in other.members if s.rpartition(".")[2] == simple):
            local = other.members[scope].get(name)
            if local and local in other.kinds and _definition(r, p, scope) == ty:
                out.append((f"{p}::{local}", trait_of(other, local)))
    return out


def _definition(r: Resolver, path: str, cls: str) -> str:
    """``path::Local`` of the type an impl block (or definition) ``cls`` of ``path`` is
    for: the definition itself, else the type name resolved in that file; ``""``."""
    fs = r._file(path)
    if fs is None:
        return ""
    if fs.kinds.get(cls) in _TYPE_KINDS:
        return f"{path}::{cls}"
    ctx = r.flow.ctx(path)
    if ctx is None:
        return ""
    scope = fs.parents.get(cls, "")
    hits = [h for h in ctx.lookup(fs, scope, cls.rpartition(".")[2], 0) if h != f"{path}::{cls}"]
    return hits[0] if len(hits) == 1 else ""
