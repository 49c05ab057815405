"""What resolution knows about each file (:class:`FileSyms`) and the table of all files.

A :class:`FileSyms` is built from one file's symbols, imports, base-class references and
receiver facts (:mod:`hindsight.codeindex.receivers`), either fresh from the parser or
from the rows stored in the bank (incremental re-resolution); both give the same object.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hindsight.codeindex.languages import SPECS

FUNC_KINDS = frozenset({"function", "method", "constructor"})
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "object", "scope",
                         "type", "module", "namespace"})
SUPER_NAMES = {"python": ("super()",), "csharp": ("base",), "php": ("parent",), "go": (),
               "rust": (), "c": ()}
"""Receivers meaning the base classes (default ``super``)."""
_GO_RECV = re.compile(r"^func\s*\(\s*(\w+)")


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
    # receiver facts (codeindex/receivers.py), grouped for lookup:
    flow: dict[str, dict[str, list[tuple[int, str]]]] = field(default_factory=dict)
    """scope → target → [(line, value)] in line order (variables, returns, decorators)."""
    attrs: dict[str, dict[str, list[tuple[str, int, str]]]] = field(default_factory=dict)
    """class → attribute → [(scope, line, value)]: ``self.x = …`` in any method, class-body
    bindings and declared fields."""
    args: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    """(scope, callee, position or keyword, value, line) of arguments passed."""
    calls: list[tuple[str, str, int]] = field(default_factory=list)
    """(scope, callee access path, line) of calls of a call or subscript (``make()()``)."""

    @property
    def is_pkg(self) -> bool:
        return self.path.rsplit("/", 1)[-1].startswith("__init__.")

    @classmethod
    def build(cls, path: str, language: str, module: str, package: str,
              symbols: Iterable[tuple[str, str, str, str, str]],
              imports: Iterable[tuple[str, str, str, str, int]],
              inherits: Iterable[tuple[str, str, str, int]],
              facts: Iterable[tuple[str, str, str, int]] = ()) -> FileSyms:
        """``symbols``: (local, name, kind, parent, signature); ``imports``: (caller, module,
        name, alias, line); ``inherits``: (caller, name, receiver, line); ``facts``:
        (scope, target, value, line) receiver facts."""
        fs = cls(path, language, module, package)
        for local, name, kind, parent, sig in symbols:
            fs.kinds.setdefault(local, kind)
            fs.parents[local] = parent
            if parent:
                if kind != "constructor":  # `new X()` denotes the class, not the ctor
                    fs.members.setdefault(parent, {}).setdefault(name, local)
            else:
                fs.top.setdefault(name, kind)
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
        fs._add_facts(facts)
        return fs

    def enclosing_class(self, scope: str) -> str:
        """The innermost class-like definition containing ``scope`` (itself included)."""
        s = scope
        while s:
            if self.kinds.get(s, "scope") in CLASS_KINDS:
                return s
            s = self.parents.get(s, "")
        return ""

    def _add_facts(self, facts: Iterable[tuple[str, str, str, int]]) -> None:
        selfs = SPECS[self.language].self_names
        for scope, target, value, line in sorted(facts, key=lambda f: f[3]):
            if "@" in target and not target.startswith("@"):
                callee, _, key = target.rpartition("@")
                self.args.append((scope, callee, key, value, line))
                continue
            if target == "()":
                self.calls.append((scope, value, line))
                continue
            head, dot, rest = target.partition(".")
            if dot and head in selfs:
                cls = self.enclosing_class(scope)
                if cls:
                    self.attrs.setdefault(cls, {}).setdefault(rest, []).append(
                        (scope, line, value))
                continue
            if scope and not dot and self.kinds.get(scope, "scope") in CLASS_KINDS:
                self.attrs.setdefault(scope, {}).setdefault(target, []).append(
                    (scope, line, value))
            self.flow.setdefault(scope, {}).setdefault(target, []).append((line, value))


class Table:
    """All files' :class:`FileSyms`, loaded lazily through ``loader(path)``, and the key →
    paths index. ``go_module`` is the ``go.mod`` module path (``""`` if none)."""

    def __init__(self, loader: Callable[[str], FileSyms | None],
                 key_index: dict[str, list[str]], go_module: str = "",
                 rust_crate: str = "") -> None:
        self._loader = loader
        self._files: dict[str, FileSyms | None] = {}
        self.key_index = key_index
        self.go_module = go_module
        self.rust_crate = rust_crate
        self._bases: dict[tuple[str, str], tuple[list[str], frozenset[str]]] = {}

    def get(self, path: str) -> FileSyms | None:
        if path not in self._files:
            self._files[path] = self._loader(path)
        return self._files[path]

    def put(self, fs: FileSyms) -> None:
        self._files[fs.path] = fs
