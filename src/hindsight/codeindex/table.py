"""What resolution knows about each file (:class:`FileSyms`) and the table of all files.

A :class:`FileSyms` is built from one file's symbols, imports, base-class references and
receiver facts (:mod:`hindsight.codeindex.receivers`), either fresh from the parser or
from the rows stored in the bank (incremental re-resolution); both give the same object.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from hindsight.codeindex import signatures
from hindsight.codeindex.bindings import AFTER, BRANCH
from hindsight.codeindex.languages import SPECS
from hindsight.models import call_base

FUNC_KINDS = frozenset({"function", "method", "constructor"})
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "object", "scope",
                         "type", "module", "namespace"})
SUPER_NAMES = {"python": ("super()",), "csharp": ("base",), "php": ("parent",), "go": (),
               "rust": (), "c": ()}
"""Receivers meaning the base classes (default ``super``)."""
_GO_RECV = re.compile(r"^func\s*\(\s*(\w+)")


OWN_CLASS = frozenset({"cls", "type(self)", "self.__class__"})
"""Calls that construct the class of the receiver: the enclosing class or a subclass; as
values bound to a self name (``cls = type(self)``), they leave it the receiver's class."""


def mangled(name: str) -> bool:
    """Whether Python mangles attribute ``name`` inside a class (``__step`` is
    ``_Cls__step``: no subclass overrides it, no base's is read; language reference,
    "Identifiers")."""
    return name[:2] == "__" and name[-2:] != "__"


_RUST_CONST = re.compile(r"(pub(\([^)]*\))?\s+)?(const|static)\b")
"""The signature of a Rust associated const or static (an enum variant's has neither)."""


@dataclass
class FileSyms:
    """What resolution needs to know about one file."""

    path: str
    language: str
    module: str = ""
    package: str = ""
    top: dict[str, str] = field(default_factory=dict)
    members: dict[str, dict[str, str]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)
    recv_var: dict[str, str] = field(default_factory=dict)
    imports: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    inherits: list[tuple[str, str, str, int]] = field(default_factory=list)
    by_alias: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    wildcards: list[str] = field(default_factory=list)
    raw_facts: list[tuple[str, str, str, int]] = field(default_factory=list)
    """receiver facts (codeindex/receivers.py) as stored; grouped on first use into
    ``flow``, ``attrs``, ``args``, ``heads`` and ``calls``."""
    _params: dict[str, dict[str, tuple[int, str, bool]]] = field(default_factory=dict)
    sigs: dict[str, str] = field(default_factory=dict)
    """function or method → its signature text (parameters and return type are read from
    it when needed: :mod:`hindsight.codeindex.signatures`)."""
    starts: dict[str, int] = field(default_factory=dict)
    """member of a class (local name) → its first line (1-based): a class body sees its
    own names from their definition on (:meth:`hindsight.codeindex.resolve.Resolver.lookup`)."""
    def_lines: dict[str, int] = field(default_factory=dict)
    """function or method → the line (1-based) of its ``def``: where its parameter
    defaults are evaluated (:func:`hindsight.codeindex.callsites.param`)."""

    @property
    def is_pkg(self) -> bool:
        return self.path.rsplit("/", 1)[-1].startswith("__init__.")

    @classmethod
    def build(cls, path: str, language: str, module: str, package: str,
              symbols: Iterable[tuple[str, str, str, str, str, int]],
              imports: Iterable[tuple[str, str, str, str, int]],
              inherits: Iterable[tuple[str, str, str, int]],
              facts: Iterable[tuple[str, str, str, int]] = ()) -> FileSyms:
        """``symbols``: (local, name, kind, parent, signature, start line, 1-based);
        ``imports``: (caller, module, name, alias, line); ``inherits``: (caller, name,
        receiver, line); ``facts``: (scope, target, value, line) receiver facts."""
        fs = cls(path, language, module, package)
        for local, name, kind, parent, sig, line in symbols:
            fs.kinds.setdefault(local, kind)
            fs.parents[local] = parent
            if parent:
                fs.starts.setdefault(local, line)
                if kind != "constructor" and not (  # `new X()` denotes the class, not the ctor
                        language == "rust" and kind == "constant" and not _RUST_CONST.match(sig)):
                    # (a Rust enum's variant is no member: `E::V.m()` runs E's `m`)
                    # a call cannot tell overloads apart: it names them all (`C.m`), a
                    # name the receiver evaluator knows as a method (no signature); a
                    # Rust call names the inherent method `T.m`, not `T.m:Trait`
                    base = call_base(local)
                    fs.members.setdefault(parent, {}).setdefault(name, base)
                    if base != local:
                        fs.kinds.setdefault(base, kind)
            else:
                fs.top.setdefault(name, kind)
            if kind in FUNC_KINDS or (kind in CLASS_KINDS and language == "csharp"
                                      and "partial" in sig):  # (namespaces.partial_parts)
                fs.sigs[local] = sig
                fs.def_lines.setdefault(local, line)
            if language == "go" and kind == "method":
                m = _GO_RECV.match(sig)
                if m:
                    fs.recv_var[local] = m.group(1)
        fs.imports = list(imports)
        for _c, mod, iname, alias, _l in fs.imports:
            if iname == "*":
                fs.wildcards.append(mod)
            elif alias:
                fs.by_alias.setdefault(alias, []).append((mod, iname))
        fs.inherits = list(inherits)
        fs.raw_facts = list(facts)
        return fs

    _STATE = ("path", "language", "package", "top", "members", "kinds", "parents",
              "recv_var", "imports", "inherits", "by_alias", "wildcards", "raw_facts", "sigs",
              "starts", "def_lines")

    def dumps(self) -> bytes:
        """This file's fields as :mod:`marshal` bytes (data only: loading them runs no
        code), without its module (which moves when packages change); :meth:`loads`. It
        holds what it was built from: signatures redacted by its builders
        (:mod:`hindsight.codeindex.wire`), receiver facts redacted by the extraction
        (``receivers._redacted``)."""
        return marshal.dumps(tuple(getattr(self, k) for k in self._STATE))

    @classmethod
    def loads(cls, data: bytes, module: str) -> FileSyms:
        """The FileSyms :meth:`dumps` wrote, with ``module``. Raises ``ValueError``,
        ``EOFError`` or ``TypeError`` for bytes that are not such a dump."""
        state = marshal.loads(data)
        if not isinstance(state, tuple) or len(state) != len(cls._STATE):
            raise ValueError("not a FileSyms dump")
        fs = cls(state[0], state[1], module)
        for k, v in zip(cls._STATE[2:], state[2:], strict=True):
            setattr(fs, k, v)
        return fs

    @property
    def provided(self) -> dict[str, int]:
        """Keys this file provides beyond its path and module, with their digests
        (receiver facts with target ``@provides``:
        :data:`hindsight.codeindex.receivers.PROVIDES`)."""
        return {v: ln for _s, t, v, ln in self.raw_facts if t == "@provides"}

    @cached_property
    def scoped_imports(self) -> dict[str, dict[str, list[tuple[str, str]]]]:
        """scope (local name; ``""`` the module) → alias → ``(module, name)`` of the
        imports made in that scope, in file order (Python: a function's own ``from b
        import f`` binds ``f`` there alone; Resolver.lookup)."""
        out: dict[str, dict[str, list[tuple[str, str]]]] = {}
        for c, mod, iname, alias, _l in self.imports:
            if alias and iname != "*":
                out.setdefault(c, {}).setdefault(alias, []).append((mod, iname))
        return out

    @cached_property
    def reimports(self) -> frozenset[str]:
        """Names the module's top level imports more than once (dispatch.reimported)."""
        return frozenset(a for a, b in self.scoped_imports.get("", {}).items() if len(b) > 1)

    @cached_property
    def self_bound(self) -> frozenset[str]:
        """Attribute names a method binds on its instance (``self.run = fn``), in any
        class of the file (hierarchy.instance_shadow)."""
        return frozenset(n for cls, d in self.attrs.items() for n, bs in d.items()
                         if any(b[0] != cls for b in bs))

    @cached_property
    def grouped(self) -> Facts:
        return Facts.group(self, self.raw_facts)

    # cached: after the first use each is a plain attribute (resolution reads them often)
    @cached_property
    def flow(self) -> dict[str, dict[str, list[tuple[int, str]]]]:
        return self.grouped.flow

    @cached_property
    def attrs(self) -> dict[str, dict[str, list[tuple[str, int, str]]]]:
        return self.grouped.attrs

    @cached_property
    def args(self) -> dict[str, list[tuple[str, str, str, str, int]]]:
        return self.grouped.args

    @cached_property
    def heads(self) -> dict[str, set[str]]:
        return self.grouped.heads

    @cached_property
    def calls(self) -> list[tuple[str, str, int]]:
        return self.grouped.calls

    @cached_property
    def outside_attrs(self) -> dict[str, list[tuple[str, str, int, str]]]:
        return self.grouped.outside

    @cached_property
    def element_writes(self) -> dict[str, list[tuple[int, str, int, str]]]:
        """Subscript target (``xs[*]``, ``d[+?]``…) → ``(scope's position in flow, scope,
        line, value)`` of the element writes made in functions (not at module level), in
        scope order: one pass per file for :func:`hindsight.codeindex.classes.filled`."""
        out: dict[str, list[tuple[int, str, int, str]]] = {}
        for i, (s, d) in enumerate(self.flow.items()):
            if s:
                for t, lst in d.items():
                    if t.endswith("]"):
                        out.setdefault(t, []).extend((i, s, b, v) for b, v in lst)
        return out

    @cached_property
    def foreign_attrs(self) -> dict[str, list[tuple[str, str, int, str]]]:
        """Attribute name → ``(path of the object from self, scope, line, value)`` of the
        writes ``self.a.name = value`` that methods of this file's classes make on another
        object's attribute (``self.button.on_click = self.handle``):
        :func:`hindsight.codeindex.classes.foreign`."""
        out: dict[str, list[tuple[str, str, int, str]]] = {}
        for d in self.attrs.values():
            for key, lst in d.items():
                obj, _, attr = key.rpartition(".")
                if obj and "[" not in attr:
                    out.setdefault(attr, []).extend((obj, s, ln, v) for s, ln, v in lst)
        return out

    def enclosing_class(self, scope: str) -> str:
        """The innermost class-like definition containing ``scope`` (itself included)."""
        s = scope
        while s:
            if self.kinds.get(s, "scope") in CLASS_KINDS:
                return s
            s = self.parents.get(s, "")
        return ""

    def base_scope(self, cls: str) -> str:
        """Where the bases of class ``cls`` are looked up: in Python the scope around the
        class statement (``class Outer: class Base: …; class S(Base)`` reads Outer's
        body, :meth:`hindsight.codeindex.resolve.Resolver.lookup`)."""
        return self.parents.get(cls, "") if self.language == "python" else cls

    def is_receiver(self, scope: str, name: str, line: int | None) -> bool:
        """Whether self name ``name`` (``self``, ``this``, ``cls``…) at ``line`` of
        ``scope`` is the enclosing method's receiver: in Python not when ``scope`` bound
        it again before ``line`` outside a branch (``self = Other()``; not a lambda's or
        a comprehension's own ``self``, nor ``cls = type(self)``), nor when ``scope`` is
        a function nested in a method with a parameter of that name (``def inner(self)``;
        but ``def inner(self=self)`` is), nor when it is not the first parameter of the
        method (``cls = self._plugins[name]`` in an ordinary method)."""
        if self.language != "python":
            return True
        if name in ("type(self)", "self.__class__"):
            name = "self"  # (`type(self)()`: the class of the receiver)
        d = self.flow.get(scope, {})
        bound = d.get(name)
        if bound:  # (most methods never bind `self`: no set built for them)
            branch = {ln for ln, _v in d.get(name + BRANCH, ())}
            if any((line is None or ln < line) and ln not in branch and v[:1] != AFTER
                   and v not in OWN_CLASS and v != "self" for ln, v in bound):
                return False
        if self.kinds.get(scope) == "function" and self.param(scope, name) is not None:
            return re.search(rf"\b{name}\s*=\s*{name}\b", self.sigs.get(scope, "")) is not None
        s = scope  # the method whose first parameter it is (`cls` elsewhere is a variable)
        while s and self.kinds.get(s) == "function":
            s = self.parents.get(s, "")
        p = self.param(s, name) if self.kinds.get(s) == "method" else None
        return p is not None and p[0] == 0 and not p[2] and not any(  # (not keyword-only,
            d == "staticmethod" for _l, d in self.flow.get(s, {}).get("@dec", ()))  # static)

    def local_name(self, scope: str, name: str) -> bool:
        """Whether bare ``name`` read in ``scope`` (Python, Go) is a parameter or a variable
        of the innermost function around it that binds it (a ``def go(helper)`` hides the
        module's ``helper``; in Go a parameter, or a variable each of whose bindings reads
        its own name: ``cache := cache.New()`` hides the package ``cache``, a binding in a
        block or a func literal, which the facts do not tell apart, does not), not a
        definition or import the names rules find."""
        s = scope
        while s and self.language in ("python", "go"):
            kind = self.kinds.get(s)
            if kind in FUNC_KINDS:
                if name in self.members.get(s, {}):
                    return False  # a nested def
                p = self.param(s, name)  # (a method's receiver `cls`: Resolver.targets)
                b = self.flow.get(s, {}).get(name)
                if b and self.language == "go" and not all(  # (Go: facts have no blocks)
                        v.startswith(name + ".") for _l, v in b):
                    b = None  # only `cache := cache.New()` hides the package `cache`
                if b or p is not None and not (p[0] == 0 and kind == "method"):
                    return True
            elif kind not in CLASS_KINDS:
                return False
            s = self.parents.get(s, "")
        return False

    def param(self, fn: str, name: str) -> tuple[int, str, bool] | None:
        """``(position, declared type text, keyword_only)`` of parameter ``name`` of
        function ``fn`` (the receiver counts as position 0), or ``None``."""
        ps = self._params.get(fn)
        if ps is None:
            sig = self.sigs.get(fn)
            ps = self._params[fn] = {} if not sig else {
                n: (i, typ, kw)
                for i, (n, typ, kw) in enumerate(signatures.params(sig, self.language))}
        return ps.get(name)

    def declared_return(self, fn: str) -> str:
        """The declared return type text of function ``fn`` (``""`` if none)."""
        sig = self.sigs.get(fn)
        return signatures.returns(sig, self.language) if sig else ""


@dataclass
class Facts:
    """One file's receiver facts grouped for lookup (built on first use)."""

    flow: dict[str, dict[str, list[tuple[int, str]]]] = field(default_factory=dict)
    """scope → target → [(line, value)] (variables, returns, yields, decorators)."""
    attrs: dict[str, dict[str, list[tuple[str, int, str]]]] = field(default_factory=dict)
    """class → attribute → [(scope, line, value)]: ``self.x = …`` in any method, class-body
    bindings and declared fields."""
    args: dict[str, list[tuple[str, str, str, str, int]]] = field(default_factory=dict)
    """callee's last name (``""`` when the callee ends in a call or subscript) → (scope,
    callee, position or keyword, value, line) of the arguments passed."""
    heads: dict[str, set[str]] = field(default_factory=dict)
    """scope → the names bound there (``x`` for ``x = …`` and ``x['k'] = …``)."""
    calls: list[tuple[str, str, int]] = field(default_factory=list)
    """(scope, callee access path, line) of calls of a call or subscript (``make()()``)."""
    outside: dict[str, list[tuple[str, str, int, str]]] = field(default_factory=dict)
    """attribute → (object's name, scope, line, value) of the writes ``x.attr = value``
    through a name that is no receiver (``server.handler = Handler()``, Python):
    :func:`hindsight.codeindex.classes.foreign`."""

    @classmethod
    def group(cls, fs: FileSyms, facts: Iterable[tuple[str, str, str, int]]) -> Facts:
        """The facts of ``fs`` grouped for lookup (each list in extraction order)."""
        self = cls()
        selfs = SPECS[fs.language].self_names
        flow, attrs, heads, kinds = self.flow, self.attrs, self.heads, fs.kinds
        for scope, target, value, line in facts:
            if target == "()":
                self.calls.append((scope, value, line))
                continue
            if "@" in target and target[0] not in "@(":
                callee, _, key = target.rpartition("@")
                last = callee.rpartition(".")[2].rpartition(":")[2]
                last = last[:-2] if last.endswith("()") else last  # `make()(x)`: make
                self.args.setdefault(last if last.isidentifier() else "", []).append(
                    (scope, callee, key, value, line))
                continue
            if "." in target and target[0] != "(":  # (`(next(it)`: Flow.calls)
                head, _, rest = target.partition(".")
                if head in selfs or ("[" in rest and head in scope.split(".")):
                    k = fs.enclosing_class(scope)  # (`K.x[k] = v` in a method of K too)
                    if k and (head in selfs or k.rpartition(".")[2] == head):
                        attrs.setdefault(k, {}).setdefault(rest, []).append(
                            (scope, line, value))
                elif "." not in rest and "[" not in rest:
                    self.outside.setdefault(rest, []).append((head, scope, line, value))
                continue
            if scope and kinds.get(scope, "scope") in CLASS_KINDS:
                attrs.setdefault(scope, {}).setdefault(target, []).append((scope, line, value))
            d = flow.get(scope)
            if d is None:
                d = flow[scope] = {}
                heads[scope] = set()
            lst = d.get(target)
            if lst is None:
                d[target] = [(line, value)]
                heads[scope].add(target.partition("[")[0])
            else:
                lst.append((line, value))
        return self


class Table:
    """All files' :class:`FileSyms`, loaded lazily through ``loader(path)``, and the key →
    paths index. ``go_module`` is the ``go.mod`` module path (``""`` if none). Keys the
    index lacks are asked of ``more(key)`` when given (and kept), else have no paths."""

    def __init__(self, loader: Callable[[str], FileSyms | None],
                 key_index: dict[str, list[str]], go_module: str = "",
                 rust_crate: str = "", more: Callable[[str], list[str]] | None = None
                 ) -> None:
        self._loader = loader
        self._files: dict[str, FileSyms | None] = {}
        self.key_index = key_index
        self.go_module = go_module
        self.rust_crate = rust_crate
        self._more = more
        self._bases: dict[tuple[str, str], tuple[list[str], frozenset[str]]] = {}
        # base class name -> (base -> direct subclasses, keys needed): codeindex/dispatch.py
        self._subs: dict[str, tuple[dict[str, list[str]], frozenset[str]]] = {}
        # Rust type -> (its methods, keys needed): codeindex/rustimpl.py
        self.rust_impls: dict[str, tuple[dict[str, list[tuple[str, str]]], frozenset[str]]] = {}

    def keys(self, key: str) -> list[str]:
        """Sorted paths of the files providing ``key``."""
        hit = self.key_index.get(key)
        if hit is None:
            hit = self.key_index[key] = self._more(key) if self._more is not None else []
        return hit

    def get(self, path: str) -> FileSyms | None:
        if path not in self._files:
            self._files[path] = self._loader(path)
        return self._files[path]

    def put(self, fs: FileSyms) -> None:
        self._files[fs.path] = fs
