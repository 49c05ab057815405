"""Supported languages: file extensions, grammar packages, queries and naming rules.

Grammars come from the individual ``tree-sitter-<lang>`` wheels on PyPI (compiled in,
nothing downloaded at run time; see docs/design.md, Offline by default). Loading is lazy and cached per
process: :func:`get` builds the ``Language``, ``Parser`` and ``Query`` on first use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

# Languages whose calls, imports and inheritance are resolved ("full" support, issue #2).
FULL = ("python", "javascript", "typescript", "tsx", "java", "go", "rust")
JS_FAMILY = frozenset({"javascript", "typescript", "tsx"})
"""The languages of the JavaScript grammar family (TypeScript and TSX share its rules)."""


@dataclass(frozen=True)
class LangSpec:
    """Static description of one language.

    ``class_kinds``: definition kinds that make a nested function a ``method``.
    ``self_names``: receivers that mean "the current object" (``self``, ``this``).
    ``class_scope_visible``: whether a method may call a sibling method by bare name
    (Java/C#/Kotlin/C++: yes; Python/JS: no).
    """

    name: str
    module: str
    func: str
    query_file: str
    extensions: tuple[str, ...]
    indent_sensitive: bool = False
    python_docstrings: bool = False
    self_names: tuple[str, ...] = ("this",)
    class_scope_visible: bool = False
    class_kinds: tuple[str, ...] = ("class", "interface", "struct", "enum", "trait", "object")
    extra_queries: tuple[str, ...] = field(default_factory=tuple)


SPECS: dict[str, LangSpec] = {
    s.name: s
    for s in (
        LangSpec("python", "tree_sitter_python", "language", "python.scm", (".py", ".pyi", ".pyw"),
                 indent_sensitive=True, python_docstrings=True, self_names=("self", "cls"),
                 extra_queries=("flow_python.scm",)),
        LangSpec("javascript", "tree_sitter_javascript", "language", "javascript.scm",
                 (".js", ".jsx", ".mjs", ".cjs"),
                 extra_queries=("js_heritage.scm", "flow_js.scm", "flow_jsfield.scm")),
        LangSpec("typescript", "tree_sitter_typescript", "language_typescript", "typescript.scm",
                 (".ts", ".mts", ".cts"),
                 extra_queries=("javascript.scm", "flow_js.scm", "flow_ts.scm")),
        LangSpec("tsx", "tree_sitter_typescript", "language_tsx", "typescript.scm", (".tsx",),
                 extra_queries=("javascript.scm", "flow_js.scm", "flow_ts.scm")),
        LangSpec("java", "tree_sitter_java", "language", "java.scm", (".java",),
                 class_scope_visible=True, extra_queries=("flow_java.scm",)),
        LangSpec("go", "tree_sitter_go", "language", "go.scm", (".go",), self_names=(),
                 extra_queries=("flow_go.scm",)),
        LangSpec("rust", "tree_sitter_rust", "language", "rust.scm", (".rs",),
                 self_names=("self", "Self"), extra_queries=("flow_rust.scm",)),
        LangSpec("c", "tree_sitter_c", "language", "c.scm", (".c", ".h")),
        LangSpec("cpp", "tree_sitter_cpp", "language", "cpp.scm",
                 (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++", ".h++"),
                 class_scope_visible=True),
        LangSpec("csharp", "tree_sitter_c_sharp", "language", "csharp.scm", (".cs",),
                 class_scope_visible=True, extra_queries=("flow_csharp.scm",)),
        LangSpec("ruby", "tree_sitter_ruby", "language", "ruby.scm", (".rb",),
                 self_names=("self",), class_scope_visible=True),
        LangSpec("php", "tree_sitter_php", "language_php", "php.scm", (".php",),
                 self_names=("$this", "self", "static")),
        LangSpec("kotlin", "tree_sitter_kotlin", "language", "kotlin.scm", (".kt", ".kts"),
                 class_scope_visible=True),
    )
}

EXTENSIONS: dict[str, str] = {ext: s.name for s in SPECS.values() for ext in s.extensions}


def language_for(path: str) -> str | None:
    """Language name for a repository-relative ``path`` by extension, or ``None``."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def query_text(spec: LangSpec) -> str:
    """The query source for ``spec``: its own file followed by any shared ones."""
    pkg = resources.files("hindsight.codeindex") / "queries"
    parts = [(pkg / spec.query_file).read_text(encoding="utf-8")]
    for extra in spec.extra_queries:
        parts.append((pkg / extra).read_text(encoding="utf-8"))
    return "\n".join(parts)


@dataclass
class Loaded:
    """A language ready to use in this process."""

    spec: LangSpec
    language: Any
    parser: Any
    query: Any


@cache
def get(name: str) -> Loaded:
    """Load grammar, parser and compiled query for language ``name`` (cached per process).

    Raises ``KeyError`` for an unknown language.
    """
    import tree_sitter as ts

    spec = SPECS[name]
    mod = importlib.import_module(spec.module)
    lang = ts.Language(getattr(mod, spec.func)())
    return Loaded(spec, lang, ts.Parser(lang), ts.Query(lang, query_text(spec)))
