"""Map a file to its module identity, and an import to candidate files, per language.

Keys: resolution looks files up by *keys* so that incremental indexing knows which files
depend on which: every file provides ``path:<path>`` plus ``mod:<python module>``,
``dir:<directory>`` (Go packages) and ``pkg:<package>`` (Java/Kotlin/C#) where they apply.
A resolver that looks up a key records it as a dependency, found or not, so a file that
later appears under that key triggers re-resolution of its dependents.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from hindsight.codeindex import rustimpl
from hindsight.codeindex.identity import trait_name

if TYPE_CHECKING:
    from hindsight.codeindex.resolve import Resolver
    from hindsight.codeindex.table import FileSyms

PY_EXT = (".py", ".pyi", ".pyw")
JS_EXT = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts",
          "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")


def python_module(path: str, init_files: set[str]) -> str:
    """Dotted module name of a Python file, walking up while ``__init__.py`` files exist.

    ``pkg/sub/mod.py`` → ``pkg.sub.mod`` if ``pkg/__init__.py`` and ``pkg/sub/__init__.py``
    are indexed, else ``sub.mod`` or ``mod``; ``pkg/__init__.py`` → ``pkg``.
    """
    d, base = posixpath.split(path)
    stem = base.rsplit(".", 1)[0]
    parts = [] if stem == "__init__" else [stem]
    while d and (f"{d}/__init__.py" in init_files or f"{d}/__init__.pyi" in init_files):
        d, name = posixpath.split(d)
        parts.insert(0, name)
    return ".".join(parts)


@lru_cache(maxsize=1 << 16)
def provided_keys(path: str, language: str, module: str, package: str) -> tuple[str, ...]:
    """Keys a file answers to (see module docstring). Cached: a one-file re-index builds
    the key index of every file again (~4 ms for 1,800 files otherwise)."""
    keys = [f"path:{path}", f"dir:{posixpath.dirname(path)}"]
    if language == "python" and module:
        keys.append(f"mod:{module}")
        # PEP 420 namespace packages: `import a.b` also finds a/b.py without __init__.py
        parts = path.rsplit(".", 1)[0].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for i in range(len(parts) - 1):
            dotted = ".".join(parts[i:])
            if dotted != module and "." in dotted:
                keys.append(f"nsmod:{dotted}")
    if package:
        keys.append(f"pkg:{package}")
        if language in ("java", "kotlin", "csharp"):  # `com.acme.model.Invoice` in code
            keys.append(f"pkghead:{package.partition('.')[0]}")  # (namespaces.qualified)
    return tuple(keys)


def python_targets(module: str, is_pkg: bool, spec: str) -> list[str]:
    """Absolute module names an import ``spec`` (``a.b``, ``.x``, ``..``) may mean from
    ``module``. Relative imports follow PEP 328."""
    if not spec.startswith("."):
        return [spec] if spec else []
    level = len(spec) - len(spec.lstrip("."))
    rest = spec[level:]
    parts = module.split(".") if module else []
    if not is_pkg:
        parts = parts[:-1]
    if level > 1:
        if level - 1 > len(parts):
            return []
        parts = parts[: len(parts) - (level - 1)]
    if rest:
        parts.append(rest)
    return [".".join(parts)] if parts else []


def js_candidates(importer: str, spec: str) -> list[str]:
    """Candidate repository paths for a relative JS/TS import ``spec`` from ``importer``;
    bare package names give ``[]`` (external)."""
    if not spec.startswith("."):
        return []
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    if base.startswith(".."):
        return []
    if base == ".":  # `require('../')` from a subdirectory: the root's index
        return [e[1:] for e in JS_EXT if e.startswith("/index")]
    stripped = base
    for ext in (".js", ".jsx", ".mjs", ".cjs"):
        if base.endswith(ext):  # TS code imports './x.js' meaning './x.ts'
            stripped = base[: -len(ext)]
            break
    out = [base + e for e in JS_EXT]
    if stripped != base:
        out += [stripped + e for e in JS_EXT[1:]]
    return out


def go_dirs(import_path: str, go_module: str) -> list[str]:
    """Repository directories a Go import path may denote, given the ``go.mod`` module
    path (``""`` if none): the path with the module prefix removed."""
    if go_module and (import_path == go_module or import_path.startswith(go_module + "/")):
        rest = import_path[len(go_module):].lstrip("/")
        return [rest]
    return []


def rust_module_of(path: str) -> tuple[str, list[str]]:
    """(crate root dir, module path segments) of a Rust file: ``src/a/b.rs`` →
    (``src``, [a, b]); ``src/a/mod.rs`` → (``src``, [a]); ``src/lib.rs`` → (``src``, [])."""
    parts = path.split("/")
    if "src" in parts:
        i = len(parts) - 1 - parts[::-1].index("src")
        root = "/".join(parts[: i + 1])
        segs = parts[i + 1:]
    else:
        root = posixpath.dirname(path)
        segs = parts[-1:]
    last = segs[-1][:-3] if segs and segs[-1].endswith(".rs") else ""
    segs = segs[:-1]
    if last not in ("mod", "lib", "main"):
        segs.append(last)
    return root, segs


def rust_candidates(importer: str, spec: str, crate: str = "") -> list[tuple[list[str],
                                                                          list[str]]]:
    """For a Rust path ``spec`` (``crate::a::b``, ``self::x``, ``super::y``, ``x::y``) used
    in ``importer``: ``(candidate files, remaining segments)`` pairs, longest module path
    first (``a::b`` may be module ``a::b`` or item ``b`` of module ``a``). ``crate`` is the
    package's crate name from Cargo.toml, so ``use demo::x`` in ``src/main.rs`` works."""
    root, cur = rust_module_of(importer)
    segs = [s for s in spec.split("::") if s]
    if not segs:
        return []
    if segs[0] == "crate" or (crate and segs[0] == crate):
        mod: list[str] = []
        segs = segs[1:]
    elif segs[0] == "self":
        mod = list(cur)
        segs = segs[1:]
    elif segs[0] == "super":
        mod = list(cur)
        while segs and segs[0] == "super":
            mod = mod[:-1]
            segs = segs[1:]
    else:
        mod = list(cur)  # a child module declared with `mod x;`
    out: list[tuple[list[str], list[str]]] = []
    full = mod + segs
    for n in range(len(full), len(mod) - 1, -1):
        m = full[:n]
        if m:
            base = "/".join([root, *m])
            out.append(([base + ".rs", base + "/mod.rs"], full[n:]))
        else:
            out.append(([f"{root}/lib.rs", f"{root}/main.rs"], full[n:]))
    return out


def build_key_index(files: Iterable[tuple[str, str, str, str]]) -> dict[str, list[str]]:
    """Key → sorted paths, from ``(path, language, module, package)`` tuples."""
    out: dict[str, list[str]] = {}
    for path, language, module, package in files:
        for key in provided_keys(path, language, module, package):
            out.setdefault(key, []).append(path)
    for paths in out.values():
        paths.sort()
    return out


def bound_in(r: Resolver, files: list[str], name: str) -> bool:
    """Whether the first of ``files`` (a Python package's ``__init__``) binds ``name`` at
    module level (a receiver fact, or ``from .tracer import tracer``): that binding, not a
    submodule of the same name, is what ``from pkg import name`` gives."""
    other = r._file(files[0]) if files else None
    return other is not None and (name in other.flow.get("", {}) or any(
        iname == name for _m, iname in other.by_alias.get(name, ())))


def submodule(r: Resolver, fs: FileSyms, mod: str, name: str, files: list[str]) -> str:
    """The file of module ``name`` imported from ``mod`` (``from pkg import submodule``;
    Rust's ``use crate::dir_entry;``), when ``mod`` itself does not export ``name``
    (already tried) and, in Python, the package does not bind it (``tracer = Tracer()``
    in ``__init__`` hides the submodule ``tracer``: :func:`bound_in`); else ``""``."""
    if fs.language == "python" and not bound_in(r, files, name):
        sub = r.module_files(fs, (mod + "." if not mod.endswith(".") else mod) + name)
    elif fs.language == "rust":
        sub = r.module_files(fs, f"{mod}::{name}")
    else:
        return ""
    return sub[0] if sub else ""


def java_static(r: Resolver, mod: str, name: str) -> list[str]:
    """``import static p.Util.helper``: member ``helper`` of class ``Util`` in package
    ``p`` (qualified names; ``[]`` when not found)."""
    pkg, _, cls = mod.rpartition(".")
    for p in r._by_key(f"pkg:{pkg}"):
        other = r._file(p)
        if other is not None and cls in other.top:
            hit = r.members_of(p, cls, name, 0)
            if hit:
                return hit
    return []


def wildcard_export(r: Resolver, fs: FileSyms, name: str, depth: int) -> list[str]:
    """``name`` re-exported by ``from .ops import *`` in Python package ``__init__`` file
    ``fs`` (the last such import that gives it; :meth:`Resolver.exported` one level
    deeper), ``[]`` when none. Memoised per resolver: standard-library modules chain
    wildcard imports widely, and four copies of a tree made the search quadratic."""
    if name[:1] == "_" or fs.language != "python" or not fs.path.endswith("/__init__.py"):
        return []
    key = (fs.path, name)
    hit = r._wild.get(key)
    if hit is None:
        hit = r._wild[key] = next(
            (h for mod in reversed(fs.wildcards) for p in r.module_files(fs, mod)
             if star_binds(r, p, name) and (h := r.exported(p, name, depth + 1))), [])
    return hit


def star_binds(r: Resolver, path: str, name: str) -> bool:
    """Whether ``from <the module of path> import *`` in a Python file binds ``name``: not
    a ``_name``, and one of its ``__all__`` when the module spells that out (the ``@all``
    facts, :func:`hindsight.codeindex.pymarks.star_names`); break-it of session 35."""
    other = r._file(path)
    if other is None or other.language != "python":
        return True
    names = other.flow.get("", {}).get("@all")
    return name[:1] != "_" and (not names or any(v == name for _l, v in names))


def rust_qualified(r: Resolver, caller: str, name: str, receiver: str) -> str:
    """The target of a fully qualified Rust call ``<T as Trait>::name(…)`` (``receiver``
    is ``<T as Trait>``; ``T`` may be ``Self``): the method that ``impl Trait for T`` gives
    (``T.name:Trait`` when named apart), in whichever file, or the trait's default
    (:func:`hindsight.codeindex.rustimpl.trait_method`); else ``T.name`` as a call
    ``x.name()`` would; ``""`` when ``T`` is not found."""
    inner = receiver[1:-1].strip() if receiver.endswith(">") else ""
    ty, sep, trait = inner.partition(" as ")
    ty = ty.strip().lstrip("&").strip()
    ty = ty[4:].strip() if ty.startswith("mut ") else ty
    if not sep or not ty:
        return ""
    ty = ty.partition("<")[0].strip()
    if ty == "Self":
        cls = r.enclosing_class(caller)
        q = f"{r.f.path}::{cls}" if cls else ""
    elif "::" in ty:
        q = rust_path(r, *ty.rsplit("::", 1))
    else:
        q = next(iter(r.lookup(r.f, caller, ty)), "")
    path, _, cls = q.partition("::")
    hit = rustimpl.trait_method(r, path, cls, name, trait_name(trait)) if cls else ""
    if hit:
        return hit
    found = r.members_of(path, cls, name, 0) if cls else []
    return found[0] if found else ""


def nearest(importer: str, paths: list[str]) -> list[str]:
    """``paths`` ordered by the length of the directory prefix they share with ``importer``
    (longest first), then by path: the most local namespace-package match wins."""
    def shared(p: str) -> int:
        a, b = importer.split("/")[:-1], p.split("/")[:-1]
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n

    return sorted(paths, key=lambda p: (-shared(p), p))


def rust_path(r: Resolver, receiver: str, name: str) -> str:
    """The target of ``<receiver>::<name>`` (Rust) by module path: through the file's
    ``use`` aliases, the crate's module files and their top level, one type's members, or
    a name of the file; ``""`` when none."""
    fs = r.f
    segs = receiver.split("::")
    for _c, mod, iname, alias, _l in fs.imports:  # `use a::b;` then `b::f()`
        if alias == segs[0] and alias:
            segs = [*mod.split("::"), iname, *segs[1:]]
            break
    spec = "::".join(segs)
    for cands, rest in rust_candidates(fs.path, spec, r.t.rust_crate):
        for c in cands:
            hit = r._by_key(f"path:{c}")
            if not hit:
                continue
            if not rest:
                other = r._file(hit[0])
                if other is not None and name in other.top:
                    return f"{hit[0]}::{name}"
            elif len(rest) == 1:
                found = r.members_of(hit[0], rest[0], name, 0)
                if found:
                    return found[0]
    if len(segs) == 1:
        found = r.lookup(fs, "", segs[0])
        hit2 = r._member(found, name)
        if hit2:
            return hit2[0]
    return ""


def scoped_binds(fs: FileSyms, scope: str, alias: str) -> list[tuple[str, str]]:
    """The ``(module, name)`` imports that bind ``alias`` as read in ``scope`` of ``fs``:
    the innermost function's own (Python: ``def f(): import b as mod`` beside a module's
    ``import a as mod``: break-it of session 35), else the module's, else any."""
    if fs.language == "python":
        s = scope
        while True:
            got = fs.scoped_imports.get(s, {}).get(alias)
            if got and (not s or fs.kinds.get(s) != "class" or s == scope):
                return got
            if not s:
                break
            s = fs.parents.get(s, "")
    return fs.by_alias.get(alias, [])


def rust_inline(r: Resolver, caller: str, receiver: str, name: str) -> str:
    """The target of ``<receiver>::<name>`` through Rust inline modules of the caller's
    file (``mod text { pub mod helpers { … } }``): ``super::slug`` in ``text::helpers``,
    ``helpers::join_words`` in ``text``, ``text::helpers::title`` or, after ``use
    text::helpers;``, ``helpers::title``; the last module's item, or a type's member
    (``text::Parser::new``). A name is read in the caller's module only (Rust modules do
    not see their parents' items unqualified); ``crate::`` only in the crate's root file;
    ``""`` when none (a path to another file: :func:`rust_path`)."""
    fs = r.f
    mod = caller
    while mod and fs.kinds.get(mod) != "module":
        mod = fs.parents.get(mod, "")
    segs = receiver.split("::")
    for c, m, iname, alias, _l in fs.imports:  # `use text::helpers;` then `helpers::f()`
        if alias and alias == segs[0] and (c == mod or not c):
            segs, mod = [*m.split("::"), iname, *segs[1:]], ""  # (a `use` path: from the top)
            break
    for i, seg in enumerate(segs):
        if seg == "super" and all(x == "super" for x in segs[:i]):
            if not mod:
                return ""  # past the file's top: another file's module
            mod = fs.parents.get(mod, "")
        elif i == 0 and seg in ("self", "crate"):
            if seg == "crate" and rust_module_of(fs.path)[1]:
                return ""  # (not the crate's root file)
            mod = "" if seg == "crate" else mod
        else:
            local = fs.members.get(mod, {}).get(seg) if mod else (seg if seg in fs.top else None)
            if local is None:
                return ""
            if fs.kinds.get(local) != "module":  # a type: its member, at the path's end
                hit = r.members_of(fs.path, local, name, 0) if i == len(segs) - 1 else []
                return hit[0] if hit else ""
            mod = local
    local = fs.members.get(mod, {}).get(name) if mod else (name if name in fs.top else None)
    return f"{fs.path}::{local}" if local is not None and fs.kinds.get(local) != "module" else ""
