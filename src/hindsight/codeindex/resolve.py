"""L2 call graph: resolve raw references to symbols (issue #2, item 6).

Rules, in order, for a reference ``name`` with ``receiver`` seen inside definition ``caller``:
* no receiver: the enclosing scopes from the innermost outwards (nested functions; class
  bodies where methods call siblings by bare name: Java, C#, Kotlin, C++, Ruby; a Python
  class body sees its own names defined before), then the file's top level, then imports
  (aliases, relative and wildcard imports), then the package (Go directory, Java/C# package);
* ``self``/``cls``/``this`` (and a Go method's receiver variable): the enclosing class's
  members, then its base classes (resolved the same way, depth ≤ 8); ``super``: theirs;
* any other receiver: an imported module alias (``os.path``, ``import * as ns``, Go package
  alias, Rust path), else a class it names (``Class.method``, ``Type::new``).

What does not resolve keeps its bare name with an empty ``dst``. Two files defining a
name are never cross-wired: a bare name reaches another file through an import or the
package only. Each file or key consulted is a dependency (:mod:`~.modules`: incremental).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable

from hindsight.codeindex import dispatch, hierarchy, rustimpl
from hindsight.codeindex import modules as M
from hindsight.codeindex.flow import Flow
from hindsight.codeindex.imports import CJS
from hindsight.codeindex.languages import JS_FAMILY, SPECS
from hindsight.codeindex.namespaces import (
    DOTTED,
    as_type,
    go_rebinds,
    partial_member,
    partial_parts,
    py_rebinds,
    same_package,
    unresolved_call,
)
from hindsight.codeindex.table import CLASS_KINDS, FUNC_KINDS, SUPER_NAMES, FileSyms, Table, mangled

__all__ = ["CLASS_KINDS", "FUNC_KINDS", "FileSyms", "Resolver", "Row", "Table", "resolve_file"]

MAX_DEPTH = 8
_JS = JS_FAMILY
_NAMESPACES = frozenset({"namespace", "module"})  # their bodies see their items by name


class Resolver:
    """Resolves one file's references; collects the keys it consulted in ``deps``."""

    def __init__(self, table: Table, fs: FileSyms, deps: set[str] | None = None) -> None:
        self.t, self.f = table, fs
        self.spec = SPECS[fs.language]
        self.deps: set[str] = deps if deps is not None else set()
        self._memo: dict[tuple[str, str, str, int], list[str]] = {}
        # memoised per file (their dependencies are recorded on first use)
        self._dispatch: dict[tuple[str, str, str, str], list[str]] = {}
        self._decorated: dict[str, str] = {}
        self._subs_seen: set[str] = set()  # base names whose `sub:` keys are in deps
        self._wild: dict[tuple[str, str], list[str]] = {}  # exported() through `import *`
        self._flow: Flow | None = None
        self._shared: weakref.ref[Flow] | None = None

    @property
    def flow(self) -> Flow:
        """The receiver evaluator (:mod:`hindsight.codeindex.flow`), made on first use,
        or the one of the resolver this one works for (:meth:`share_flow`)."""
        shared = self._shared() if self._shared is not None else None
        if shared is not None:
            return shared
        if self._flow is None:
            self._flow = Flow(self)
        return self._flow

    def share_flow(self, flow: Flow) -> None:
        """Evaluate with ``flow`` (held weakly: it holds this resolver)."""
        self._shared = weakref.ref(flow)

    # ---- lookups that record dependencies -------------------------------------------
    def _by_key(self, key: str) -> list[str]:
        self.deps.add(key)
        return self.t.keys(key)

    def _file(self, path: str) -> FileSyms | None:
        if path != self.f.path:
            self.deps.add(f"path:{path}")
        return self.t.get(path)

    def module_files(self, fs: FileSyms, spec: str) -> list[str]:
        """Files an import of module ``spec`` in file ``fs`` may denote."""
        lang = fs.language
        if lang == "python":
            out: list[str] = []
            for target in M.python_targets(fs.module, fs.is_pkg, spec):
                out += self._by_key(f"mod:{target}")
                if not out and "." in target:  # namespace package (no __init__.py)
                    out += M.nearest(fs.path, self._by_key(f"nsmod:{target}"))
            return out
        if lang in _JS:
            if not spec:  # `export default x` records the file itself
                return [fs.path]
            for cand in M.js_candidates(fs.path, spec):
                hit = self._by_key(f"path:{cand}")
                if hit:
                    return hit
            return []
        if lang in ("java", "kotlin", "csharp"):
            return self._by_key(f"pkg:{spec}")
        if lang == "go":
            for d in M.go_dirs(spec, self.t.go_module):
                hit = [p for p in self._by_key(f"dir:{d}") if p.endswith(".go")]
                if hit:
                    return hit
            return []
        if lang == "rust":
            for cands, rest in M.rust_candidates(fs.path, spec, self.t.rust_crate):
                if rest:
                    continue
                for c in cands:
                    hit = self._by_key(f"path:{c}")
                    if hit:
                        return hit
            return []
        return []

    # ---- name lookup ------------------------------------------------------------------
    def lookup(self, fs: FileSyms, scope: str, name: str, line: int = 0) -> list[str]:
        """Qualified names a bare ``name`` at ``line`` (0: unknown) denotes inside ``scope``
        of file ``fs``; a module is ``path::``. Memoised per resolver."""
        own = fs.members.get(scope) if fs.kinds.get(scope) in CLASS_KINDS else None
        key = (fs.path, scope, name, line if own and name in own else 0)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._lookup(fs, scope, name, line)
        return hit

    def _lookup(self, fs: FileSyms, scope: str, name: str, line: int = 0) -> list[str]:
        visible = SPECS[fs.language].class_scope_visible
        py = fs.language == "python"
        own = fs.members.get(scope, {}) if fs.kinds.get(scope) in CLASS_KINDS else {}
        if not visible and name in own and (not line or fs.starts.get(own[name], 0) < line):
            return [f"{fs.path}::{own[name]}"]  # a class body reads its own names (Python)
        s = scope
        while s:
            kind = fs.kinds.get(s, "scope")
            if kind in FUNC_KINDS or visible or kind in _NAMESPACES:  # (TS namespace, Rust mod)
                local = fs.members.get(s, {}).get(name)
                if local and not (kind not in CLASS_KINDS and fs.language in _JS and
                                  fs.kinds.get(local) == "method"):
                    return [f"{fs.path}::{local}"]  # (`F.prototype.m`: no name in F)
                if visible and kind in CLASS_KINDS:
                    hit = partial_member(self, partial_parts(self, fs, s), name) or \
                        self.members_of(fs.path, s, name, 0, skip_own=True)
                    if hit:
                        return hit
            if py and name in fs.scoped_imports.get(s, ()) and (
                    s == scope or kind not in CLASS_KINDS):  # `from b import f` in a def
                got = self._imported(fs, fs.scoped_imports[s][name])
                if got is not None:
                    return got
            s = fs.parents.get(s, "")
        if name in fs.top:
            return [f"{fs.path}::{name}"]
        got = self._imported(fs, fs.scoped_imports.get("", {}).get(name, []) if py
                             else fs.by_alias.get(name, []))
        if got is not None:
            return got
        for mod in reversed(fs.wildcards):  # (the last `import *` binding a name wins)
            for p in self.module_files(fs, mod):
                hit = self.exported(p, name) if not py or M.star_binds(self, p, name) else []
                if hit:  # defined there, or re-exported (`__init__`)
                    return hit
        if py:  # a function's import a `global` statement publishes (`global f; from x
            return self._imported(fs, fs.by_alias.get(name, [])) or []  # import f as g; f = g`)
        return same_package(self, fs, name)

    def _imported(self, fs: FileSyms, binds: list[tuple[str, str]]) -> list[str] | None:
        """What the first of the imports ``binds`` (``(module, name)``) of file ``fs``
        that resolves gives (``[]``: a whole module outside the repository); ``None``
        when none does."""
        for mod, iname in binds:
            files = self.module_files(fs, mod)
            if not files and fs.language == "java" and iname:
                hit = M.java_static(self, mod, iname)
                if hit:
                    return hit
            if not iname:
                return [f"{p}::" for p in files[:1]]
            for p in files:
                hit = self.exported(p, iname)
                if hit:
                    return hit
            if iname == CJS and files and fs.language in _JS:
                return [f"{files[0]}::"]  # `require('m')` of a module without module.exports
            sub = M.submodule(self, fs, mod, iname, files)
            if sub:
                return [f"{sub}::"]
        return None

    # ---- classes ------------------------------------------------------------------------
    def members_of(self, path: str, cls: str, name: str, depth: int,
                   skip_own: bool = False) -> list[str]:
        """``name`` as a member of class ``cls`` in ``path``, then of its bases."""
        fs = self._file(path)
        if fs is None or depth > MAX_DEPTH:
            return []
        if fs.language == "python":  # along the C3 method resolution order
            for cq in self.flow.mro(f"{path}::{cls}")[1 if skip_own else 0:]:
                p, _, c = cq.partition("::")
                other = self._file(p)
                local = other.members.get(c, {}).get(name) if other is not None else None
                if local:
                    return [f"{p}::{local}"]
            return []
        if not skip_own:
            local = fs.members.get(cls, {}).get(name) if fs.language != "rust" else None
            hit = rustimpl.method(self, path, cls, name) if fs.language == "rust" else []
            if local or hit:
                return hit or [f"{path}::{local}"]
            if fs.language == "go":  # methods may be declared in any file of the package
                for p in self._by_key(f"dir:{path.rpartition('/')[0]}"):
                    other = self._file(p) if p != path else None
                    if other is not None and other.language == "go":
                        local = other.members.get(cls, {}).get(name)
                        if local:
                            return [f"{p}::{local}"]
        parts = partial_parts(self, fs, cls)  # C#: the class's other `partial` declarations
        hit = partial_member(self, parts, name) if not skip_own else []
        if hit:
            return hit
        for base in self.bases(path, cls):
            bpath, _, blocal = base.partition("::")
            if blocal:
                hit = self.members_of(bpath, blocal, name, depth + 1)
                if hit:
                    return hit
        return []

    def bases(self, path: str, cls: str) -> list[str]:
        """Resolved base classes of ``path::cls`` (memoised with the keys they needed)."""
        key = (path, cls)
        memo = self.t._bases.get(key)
        if memo is None:
            self.t._bases[key] = ([], frozenset())  # cycle guard
            memo = hierarchy.declared_bases(self, path, cls)
            self.t._bases[key] = memo
        self.deps.update(memo[1])
        if path != self.f.path:
            self.deps.add(f"path:{path}")
        return memo[0]

    def enclosing_class(self, caller: str) -> str:
        fs = self.f
        s = caller
        while s:
            if fs.kinds.get(s, "scope") in CLASS_KINDS:
                return s
            s = fs.parents.get(s, "")
        return ""

    # ---- one reference -------------------------------------------------------------------
    def target(self, caller: str, name: str, receiver: str, line: int = 0) -> str:
        """Qualified name of the symbol a reference at ``line`` denotes, or ``""``: by the
        name rules, else by the receiver's value (:mod:`hindsight.codeindex.flow`) when
        ``line`` is given; the first of :meth:`targets`."""
        return next(iter(self.targets(caller, name, receiver, line)), "")

    def targets(self, caller: str, name: str, receiver: str, line: int = 0) -> list[str]:
        """Qualified names of the symbols a reference at ``line`` may denote (several for a
        union value, :mod:`hindsight.codeindex.values`); ``[]`` when unresolved."""
        if line and ((receiver in self.spec.self_names and not self.f.is_receiver(
                caller, receiver, line)) or (not receiver and self.f.local_name(caller, name))
                or (receiver in self.f.by_alias and self.f.local_name(caller, receiver)
                    and go_rebinds(self, caller, receiver))
                or (receiver in self.f.by_alias and py_rebinds(self, caller, receiver, line))):
            return self.flow.calls(self.f, caller, name, receiver, line)  # (`self = Other()`)
        both = dispatch.reimported(self, caller, name, receiver) \
            if (receiver or name) in self.f.reimports else []  # `try: from a import f`, …
        if both:
            return [self.undecorated(dispatch.aliased(self, t)) for t in both]
        extra = dispatch.rebound(self, caller, name, receiver, line)  # `self = Other()`
        hit = self._by_name(caller, name, receiver, line)
        if hit == "-":  # `self.__m()` of a class without `__m` (mangled: never a base's)
            return []
        shade = hierarchy.shadowed(self, caller, name, hit) \
            if hit and line and receiver in self.spec.self_names else ""  # `self.run = fn`
        if shade:
            got = self.flow.calls(self.f, caller, name, receiver, line)
            if shade == "hides":
                return got
            extra += [t for t in got if t not in extra]
        if line and (receiver in self.spec.self_names or
                     receiver in SUPER_NAMES.get(self.f.language, ("super",))):
            key = (self.f.enclosing_class(caller), name, receiver, hit)
            over = self._dispatch.get(key)
            if over is None:
                over = self._dispatch[key] = dispatch.overrides(self, caller, name, receiver, hit)
            if over:  # a subclass's definition may run (hindsight.codeindex.dispatch)
                return over + [t for t in extra if t not in over]
        if hit and line:
            hit = self.undecorated(dispatch.aliased(self, hit))
            again = dispatch.redefined(self, hit, caller, "" if receiver else name, line)
            if again is not None:  # `helper = replacement` later: that value
                return again + [t for t in extra if t not in again]
        if hit or not line:
            return ([hit] if hit else []) + [t for t in extra if t != hit]
        if not receiver and name in dispatch.OWN_CLASS and self.f.language in dispatch.LANGUAGES \
                and self.f.enclosing_class(caller) and self.f.is_receiver(caller, name, line):
            return dispatch.constructions(self, caller)  # `cls()`, `type(self)()`
        got = self.flow.calls(self.f, caller, name, receiver, line)
        return got or (unresolved_call(self, self.f, name, receiver)  # (`s.IsBlank()` of C#'s
                       if receiver and self.f.language in DOTTED else got)  # `this string s`)

    def undecorated(self, q: str) -> str:
        """What calling function ``q`` runs once its decorator applied: the ``__call__`` of
        the instance a decorator made of it, else :func:`dispatch.decorated`; memoised."""
        hit = self._decorated.get(q)
        if hit is None:
            v = self.flow.classify(q) if self.f.language == "python" else None
            call = self.flow.member(v, "__call__") if v is not None and v[0] == "inst" else None
            hit = self._decorated[q] = call[1] if call is not None and call[0] == "fn" \
                else dispatch.decorated(self, q)  # (`@group()` made an instance: its call)
        return hit

    def _by_name(self, caller: str, name: str, receiver: str, line: int = 0) -> str:
        fs = self.f
        if not receiver:
            hit = as_type(self, fs, caller, name, self.lookup(fs, caller, name, line))
            return hit[0] if hit else ""
        selfs = self.spec.self_names
        if receiver in selfs or (fs.language == "go" and fs.recv_var.get(caller) == receiver):
            cls = self.enclosing_class(caller)
            hit = self.members_of(fs.path, cls, name, 0) if cls else []
            if fs.language == "python" and mangled(name):
                hit = [h for h in hit if h == f"{fs.path}::{cls}.{name}"] or ["-"][:len(hit)]
            return hit[0] if hit else ""
        if receiver in SUPER_NAMES.get(fs.language, ("super",)):
            cls = self.enclosing_class(caller)
            hit = self.members_of(fs.path, cls, name, 0, skip_own=True) if cls else []
            return hit[0] if hit else ""
        if receiver.startswith("super(") and fs.language in dispatch.LANGUAGES:
            return dispatch.explicit_super(self, caller, name, receiver)
        return self._via_receiver(caller, name, receiver)

    def _via_receiver(self, caller: str, name: str, receiver: str) -> str:
        fs = self.f
        whole = [mod for mod, iname in M.scoped_binds(fs, caller, receiver) if not iname]
        for mod in whole:  # whole-module aliases (`os.path`), each import binding it in
            for p in self.module_files(fs, mod):  # turn (`try: import a as m` / `except
                hit = self.exported(p, name)  # ImportError: import b as m`: b's if not a's)
                if hit:
                    return hit[0]
        if whole:
            return ""
        sep = "::" if fs.language == "rust" else "."
        head, _, rest = receiver.partition(sep)
        if fs.language == "rust":
            if receiver.startswith("<") and " as " in receiver:  # <T as Trait>::m()
                return M.rust_qualified(self, caller, name, receiver)
            hit_r = M.rust_inline(self, caller, receiver, name) or \
                self._rust_path(receiver, name) or \
                rustimpl.variant_method(self, caller, receiver, name)  # `E::V.m()`
            if hit_r or head in ("crate", "self", "super") or rest:
                return hit_r
        if not head.isidentifier() and fs.language != "php":
            return ""
        found = self.lookup(fs, caller, head)
        for segment in rest.split(sep) if rest else []:
            found = self._member(found, segment)
        return (self._member(found, name) or [""])[0]

    def exported(self, path: str, name: str, depth: int = 0) -> list[str]:
        """``name`` as defined at the top of file ``path`` or re-exported there by an import
        (``from .core import Engine`` in a package ``__init__``, or ``from .ops import *``
        there), followed to depth 4."""
        other = self._file(path)
        if other is None:
            return []
        if name in other.top:
            return [f"{path}::{name}"]
        if depth >= 4:
            return []
        entries = other.by_alias.get(name, [])
        if name == CJS:  # `module.exports = A; … module.exports = B`: the last one
            entries = entries[::-1]
        for mod, iname in entries:
            if iname:
                for p in self.module_files(other, mod):
                    hit = self.exported(p, iname, depth + 1)
                    if hit:
                        return hit
                    if iname == CJS and other.language in _JS:
                        return [f"{p}::"]  # `module.exports = require('m')`: m itself
        hit = M.wildcard_export(self, other, name, depth) if other.wildcards else []
        if hit:
            return hit
        if name == "default" and other.language in _JS:
            # ES `import x from 'm'` of a CommonJS module: its module.exports
            return self.exported(path, CJS, depth + 1)
        return []

    def _member(self, found: list[str], name: str) -> list[str]:
        for q in found:
            path, _, local = q.partition("::")
            if not local:  # a module: its top-level name, or a submodule (python)
                other = self._file(path)
                hit = self.exported(path, name)
                if hit:
                    return hit
                if other is not None and other.language == "python":
                    sub = self._by_key(f"mod:{other.module}.{name}") if other.module else []
                    if sub:
                        return [f"{sub[0]}::"]
                continue
            hit = self.members_of(path, local, name, 0)
            if hit:
                return hit
        return []

    def _rust_path(self, receiver: str, name: str) -> str:
        return M.rust_path(self, receiver, name)  # (rustimpl.py calls it here)

    def import_target(self, module: str, name: str, alias: str) -> str:
        fs = self.f
        files = self.module_files(fs, module)
        if fs.language == "rust" and name and name != "*":
            sub = self.module_files(fs, f"{module}::{name}" if module else name)
            if sub and (not files or sub[0] != fs.path):
                return f"{sub[0]}::"
        if not files:
            if fs.language == "java" and name:
                hit = M.java_static(self, module, name)
                return hit[0] if hit else ""
            return ""
        if name and name != "*":
            for p in files:
                hit = self.exported(p, name)
                if hit:
                    return hit[0]
            if fs.language == "python":
                sub = self.module_files(fs, (module if module.endswith(".") else module + ".")
                                        + name)
                if sub:
                    return f"{sub[0]}::"
        return f"{files[0]}::"


Row = tuple[str, str, str, str, str, int, str]


def resolve_file(table: Table, fs: FileSyms, refs: Iterable[tuple[str, str, str, str, int]]
                 ) -> tuple[list[Row], set[str]]:
    """Resolve every reference of one file.

    ``refs``: (caller, kind, name, receiver, line) for ``call``/``inherits``; imports come
    from ``fs.imports``. Returns edge rows ``(src, kind, name, receiver, alias, line, dst)``
    (imports first, ``receiver`` holding the module for imports; ``src`` is the caller's
    local qualified name, ``dst`` a full qualified name or ``""`` when unresolved; a call
    that may run several definitions has a row for each) and the dependency keys
    consulted. Calls of a call or subscript (``fs.calls``: ``make()()``)
    become edges named by their callee's access path when they resolve, and only then;
    stored edges of that kind (a name with ``(`` or ``[``, or one of ``fs.calls``:
    ``getattr(self, "visit_" + k)()`` is ``self.visit_$``) are skipped in ``refs``, since
    they are made again from the file's facts (else an incremental index repeats them). A ``RecursionError`` (a nesting no limit
    foresaw) leaves the file's references unresolved rather than failing the index.
    """
    refs = list(refs)
    try:
        return _resolve_file(table, fs, refs)
    except RecursionError:  # a pathological nesting the limits missed: names, no targets
        return ([(c, "import", n, m, a, ln, "") for c, m, n, a, ln in fs.imports] +
                [(c, k, n, rv, "", ln, "") for c, k, n, rv, ln in refs
                 if "(" not in n and "[" not in n], set())


def _resolve_file(table: Table, fs: FileSyms, refs: list[tuple[str, str, str, str, int]]
                  ) -> tuple[list[Row], set[str]]:
    r = Resolver(table, fs)
    out: list[Row] = []
    for caller, module, name, alias, line in fs.imports:
        dst = r.import_target(module, name, alias)
        out.append((caller, "import", name, module, alias, line, dst))
    made = {(c, p, ln) for c, p, ln in fs.calls}  # (also `self.visit_$`, `obj.run`: no paren)
    for caller, kind, name, recv, line in refs:
        if "(" in name or "[" in name or (caller, name, line) in made:
            continue
        dsts = r.targets(caller, name, recv, line) if kind == "call" else \
            [r._by_name(fs.base_scope(caller), name, recv, fs.starts.get(caller, 0))]
        if kind == "call":  # a module is never what a call runs
            dsts = [d for d in dsts if not d.endswith("::")]
        dsts = dsts or [""]
        out += [(caller, kind, name, recv, "", line, dst) for dst in dsts]
    for caller, path, line in fs.calls:
        out += [(caller, "call", path, "", "", line, dst)
                for dst in r.targets(caller, path, "", line)]
    r.deps.discard(f"path:{fs.path}")
    return out, r.deps
