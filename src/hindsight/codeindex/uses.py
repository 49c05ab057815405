"""Every place that uses a type or function (issue 12, item 4: ``search --entity``).

Uses come from two sources:

- **Edges of the code index**: ``call`` (a call of a class or struct is reported as a
  ``construction``), ``import`` and ``inherits`` edges resolved to the entity.
- **Type references**, which the index keeps no edge for: annotations and declared types
  (``x: Engine``, ``Circle c``, ``func f(s *Store)``, ``List<Foo>``) and constructions by
  literal (Go ``Store{}``, Rust ``Point { .. }``). They are found when asked, by parsing
  the indexed files that contain the entity's name with the same tree-sitter grammars:
  a type name node (``type_identifier``; Python: a name inside an annotation, also a
  quoted forward reference; C#: an identifier in a type position; Kotlin: a ``user_type``;
  PHP: a ``named_type``) that is not the name of a definition. A name counts as the entity
  when the file is the entity's own, imports it or its module, is in the same directory
  (one package), or when no other definition has that name.

Depth follows the relation breadth first: at depth 2 the uses of the definitions found at
depth 1 (the callers of callers, the subclasses of subclasses, the uses of a function
taking the type). Every use has a ``verified_at`` time from an optional provider (the
execution records' last passing run over the using code); ``None`` until one is given.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hindsight.codeindex.decode import normalise
from hindsight.codeindex.languages import get, language_for
from hindsight.codeindex.query import call_names, resolve_one
from hindsight.errors import Ambiguous, ConfigError
from hindsight.models import Symbol, innermost, simple_name
from hindsight.store.base import CodeStore

RELATIONS = ("uses", "calls", "imports", "inherits")
KINDS = {"uses": ("call", "construction", "import", "inherits", "annotation"),
         "calls": ("call", "construction"), "imports": ("import",),
         "inherits": ("inherits",)}
TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "type", "object"})
MAX_SCAN_FILES = 5_000  # files parsed for type references per target
MAX_SCAN_BYTES = 2 << 20  # larger files are not parsed (the index skips them too)
_LEAF = {"typescript", "tsx", "java", "go", "rust", "c", "cpp", "kotlin"}
_CONSTRUCT = frozenset({"object_creation_expression", "composite_literal", "struct_expression",
                        "new_expression", "constructor_invocation"})
_INHERIT = frozenset({"superclass", "super_interfaces", "extends_clause", "implements_clause",
                      "base_class_clause", "base_list", "delegation_specifier",
                      "class_heritage", "extends_interfaces", "extends_type_clause"})
# declarations whose ``name`` field is the type they define
_SPECIFIERS = frozenset({"struct_specifier", "class_specifier", "enum_specifier",
                         "union_specifier"})
_DECLS = _SPECIFIERS | frozenset({
    "type_spec", "type_alias", "struct_item", "enum_item", "union_item", "trait_item",
    "type_item", "associated_type", "class_declaration", "abstract_class_declaration",
    "interface_declaration", "type_alias_declaration", "enum_declaration",
    "type_parameter", "type_parameter_declaration", "alias_declaration",
    "object_declaration", "type_definition"})
_QUALIFIED = frozenset({"scoped_type_identifier", "qualified_type", "nested_type_identifier",
                        "scoped_identifier", "qualified_name", "user_type"})
_TYPE_ARGS = frozenset({"type_arguments", "type_argument_list", "type_parameter"})
_CS_TYPE_PARENTS = frozenset({"base_list", "type_argument_list", "array_type", "nullable_type",
                              "pointer_type", "type_parameter_constraint"})

Verified = Callable[[list[tuple[str, str]]], dict[tuple[str, str], str]]
"""``[(path, local)]`` of using definitions → ISO 8601 time of their last verification."""


@dataclass
class Use:
    """One use at ``depth`` (1 = of the entity itself): ``relation`` is ``call``,
    ``construction``, ``import``, ``inherits`` or ``annotation``; ``path``/``line``
    (1-based) where it is; ``src`` the qualified name of the enclosing definition
    (``path::`` for module level); ``target`` the qualified name used; ``verified_at``
    the last verified time (ISO 8601) or ``None``."""

    depth: int
    relation: str
    path: str
    line: int
    src: str
    target: str
    verified_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def uses(store: CodeStore, root: str, spec: str, relation: str = "uses", depth: int = 1,
         file: str | None = None, verified: Verified | None = None
         ) -> tuple[Symbol, list[Use]]:
    """``(entity, uses)`` of ``spec`` (name, ``Class.method`` or ``path::local``) for
    ``relation`` (one of :data:`RELATIONS`) to ``depth`` levels, by depth, path, line.
    Raises ConfigError (unknown relation, depth below 1), NotFound, Ambiguous."""
    if relation not in RELATIONS:
        raise ConfigError(f"relation {relation!r}: one of {', '.join(RELATIONS)}",
                          option="relation", value=relation, choices=RELATIONS)
    if depth < 1:
        raise ConfigError(f"depth {depth}: must be at least 1", option="depth", value=depth)
    entity = _entity(store, spec, file)
    wanted = KINDS[relation]
    out: list[Use] = []
    seen_targets = {entity.qname}
    frontier: list[tuple[str, str]] = [(entity.qname, entity.kind)]
    for d in range(1, depth + 1):
        found: list[Use] = []
        for qname, kind in frontier:
            found += _edge_uses(store, qname, kind, d, wanted)
            if "annotation" in wanted and kind in TYPE_KINDS:
                found += _type_uses(store, root, qname, d, found)
        found = _unique(found)
        out += found
        nxt = sorted({u.src for u in found} - seen_targets)
        seen_targets.update(nxt)
        kinds = {s.qname: s.kind for s in store.symbols_by_qname(nxt)}
        frontier = [(q, kinds.get(q, "module")) for q in nxt]
        if not frontier:
            break
    if verified is not None and out:
        times = verified(sorted({_pair(u.src) for u in out}))
        for u in out:
            u.verified_at = times.get(_pair(u.src))
    return entity, out


def _entity(store: CodeStore, spec: str, file: str | None) -> Symbol:
    """The one definition ``spec`` names; a class named like its own constructors (Java,
    C#, C++) is the class."""
    try:
        return resolve_one(store, spec, file)[0]
    except Ambiguous as e:
        types = [s for s in store.find_symbols(spec, None, file, 200) if s.kind in TYPE_KINDS]
        if len({s.qname for s in types}) == 1 and all(
                q == types[0].qname or q.startswith(types[0].qname + ".")
                for q in e.candidates):
            return types[0]
        raise


def _pair(qname: str) -> tuple[str, str]:
    path, _, local = qname.partition("::")
    return path, local


def _edge_uses(store: CodeStore, qname: str, kind: str, depth: int, wanted: tuple[str, ...]
               ) -> list[Use]:
    names = call_names(store, [qname])
    out = []
    for e in [*store.edges_to(names, []), *store.imports_of(names)]:
        rel = "construction" if e.kind == "call" and kind in TYPE_KINDS else e.kind
        if rel in wanted:
            out.append(Use(depth, rel, e.path, e.line, e.src, qname))
    return out


def _unique(found: list[Use]) -> list[Use]:
    """One use per place: an edge wins over a type reference on the same line of the same
    definition (``Circle c = new Circle()`` is one construction)."""
    best: dict[tuple[str, int, str, str], Use] = {}
    order = {r: i for i, r in enumerate(("call", "construction", "inherits", "import",
                                         "annotation"))}
    for u in found:
        key = (u.path, u.line, u.src, u.target)
        if key not in best or order[u.relation] < order[best[key].relation]:
            best[key] = u
    return sorted(best.values(), key=lambda u: (u.depth, u.path, u.line, u.relation, u.src))


def _type_uses(store: CodeStore, root: str, qname: str, depth: int, edges: list[Use]
               ) -> list[Use]:
    """Type references to the type ``qname`` in the files that may mean it (module doc)."""
    path, _, local = qname.partition("::")
    name = simple_name(local)
    if not name:
        return []
    importers = {e.path for e in store.imports_of([qname, f"{path}::"])}
    unique = len({s.qname for s in store.find_symbols(name, None, None, 2)}) <= 1
    here = os.path.dirname(path)
    out: list[Use] = []
    needle = name.encode()
    scanned = 0
    for p in sorted(store.load_files()):
        lang = language_for(p)
        if lang is None or lang in ("javascript", "ruby") or scanned >= MAX_SCAN_FILES:
            continue
        if not (p == path or p in importers or os.path.dirname(p) == here or unique):
            continue
        try:
            with open(os.path.join(root, p), "rb") as fh:
                data = fh.read(MAX_SCAN_BYTES + 1)
        except OSError:
            continue
        if needle not in data or len(data) > MAX_SCAN_BYTES:
            continue
        scanned += 1
        src = normalise(data)[0]
        syms = store.file_symbols(p)
        for line, rel in type_references(lang, src, name):
            out.append(Use(depth, rel, p, line, _enclosing(p, syms, line), qname))
    return out


def _enclosing(path: str, syms: list[Symbol], line: int) -> str:
    best = innermost(syms, line)
    return best.qname if best is not None else f"{path}::"


def type_references(lang: str, src: bytes, name: str) -> list[tuple[int, str]]:
    """``(1-based line, relation)`` of each type reference to ``name`` in ``src`` (module
    doc); relation is ``construction``, ``inherits`` or ``annotation``."""
    tree = get(lang).parser.parse(src)
    raw = name.encode()
    out: list[tuple[int, str]] = []
    stack: list[tuple[Any, bool]] = [(tree.root_node, False)]
    while stack:
        node, in_type = stack.pop()
        t = node.type
        if node.child_count == 0 or t in ("string", "named_type"):
            if _is_reference(lang, node, in_type) and _text(node) == raw:
                out.append((node.start_point[0] + 1, _relation(node)))
            if node.child_count == 0:
                continue
        inner = in_type or (lang == "python" and t == "type") or \
            (lang == "kotlin" and t == "user_type") or (lang == "php" and t == "named_type")
        stack.extend((c, inner) for c in reversed(node.children))
    return sorted(set(out))


def _text(node: Any) -> bytes:
    if node.type == "string":  # a quoted forward reference: "Engine"
        inner = [c for c in node.children if c.type == "string_content"]
        return bytes(inner[0].text or b"") if len(inner) == 1 else b""
    if node.type == "named_type":
        return bytes(node.text or b"").rpartition(b"\\")[2]
    return bytes(node.text or b"")


def _is_reference(lang: str, node: Any, in_type: bool) -> bool:
    parent = node.parent
    if parent is None:
        return False
    field = _field(parent, node)
    if lang in _LEAF and node.type == "type_identifier":
        if field == "name" and parent.type in _DECLS:
            # a definition's own name (C's `struct T x;` names T without defining it)
            return parent.type in _SPECIFIERS and parent.child_by_field_name(
                "body") is None
        # Rust `impl T { … }` defines T's methods
        return not (parent.type == "impl_item" and field == "type")
    if lang == "python":
        return in_type and (node.type == "identifier" and not (
            parent.type == "attribute" and field == "object") or node.type == "string")
    if lang == "csharp":
        return node.type == "identifier" and (field in ("type", "returns") or
                                              parent.type in _CS_TYPE_PARENTS)
    if lang == "kotlin":
        return in_type and node.type in ("identifier", "type_identifier")
    if lang == "php":
        return node.type == "named_type"
    return False


def _field(parent: Any, node: Any) -> str | None:
    for i, c in enumerate(parent.children):
        if c.id == node.id:
            return str(parent.field_name_for_child(i) or "") or None
    return None


def _relation(node: Any) -> str:
    """``construction`` or ``inherits`` by the nearest enclosing construct (within four
    levels), else ``annotation``; a qualifier (``Circle`` in ``Circle.Builder``) or a type
    argument (``Comparable<Circle>``) is an annotation whatever encloses it."""
    n = node.parent
    if n is not None and n.type in _QUALIFIED and n.named_children[-1].id != node.id:
        return "annotation"
    for _ in range(4):
        if n is None or n.type in _TYPE_ARGS:
            break
        if n.type in _CONSTRUCT:
            return "construction"
        if n.type in _INHERIT:
            return "inherits"
        n = n.parent
    return "annotation"
