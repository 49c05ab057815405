"""Parse one file with tree-sitter and extract symbols, references and imports.

All the per-node work is done by one compiled tree-sitter query per language (see
``queries/*.scm``); Python code only walks the query's matches, never the whole tree.

Capture contract of the queries:

* ``@definition.<kind>`` on a definition node, with ``@name`` on its name node; optional
  ``@receiver`` (Go method receiver type, C++ ``T::``, the object of a JavaScript
  assignment ``obj.m = function``) sets the parent (see :func:`_nest`).
* ``@scope`` + ``@name``: a naming scope that is not itself a symbol (Rust ``impl T``).
* ``@mark.setter`` / ``@mark.deleter`` / ``@mark.stub`` on a definition node: an accessor
  role or an overload stub (see :mod:`hindsight.codeindex.identity`).
* ``@call.name`` and optional ``@call.receiver`` on a call (the call node itself is not
  captured: one Python object less per call).
* ``@inherit.name`` with optional ``@inherit.receiver`` (base class / interface).
* ``@import`` on an import statement (decoded by :mod:`hindsight.codeindex.imports`).
* ``@comment`` on every comment (excluded from the ast hash, used for doc comments).
* ``@package`` on a package name (Java/Kotlin/C#/Go).
"""

from __future__ import annotations

import bisect
import re
from functools import cache, partial
from typing import Any

from hindsight.codeindex import imports as imp
from hindsight.codeindex import pyconsts, receivers, rustvals
from hindsight.codeindex.asthash import blank_comments, flat_hash, indent_hash
from hindsight.codeindex.docstrings import doc_comment, py_docstring
from hindsight.codeindex.identity import alias_stubs, drop_stubs, js_receiver, name_apart
from hindsight.codeindex.languages import JS_FAMILY, get
from hindsight.codeindex.namespaces import ext_facts
from hindsight.codeindex.pymarks import dispatch_marks, main_guard, star_names
from hindsight.codeindex.rustimpl import impl_facts
from hindsight.codeindex.shadow import Shadowed
from hindsight.models import RawImport, RawRef, Symbol

_ANNOT = frozenset({
    "decorator", "annotation", "marker_annotation", "attribute_list", "attribute_item",
    "comment", "line_comment", "block_comment", "modifiers", "attribute",
})
_WS = re.compile(r"\s+")
_NOTE = re.compile(rb"(?:#|//|/\*|--)\s*@hindsight:\s*(.+?)\s*(?:\*/)?\s*$", re.MULTILINE)
MAX_SIG = 240
MAX_NESTING = 48  # definitions nested deeper than this are not recorded as symbols
# Bump when unchanged source gives other symbols: an index or history of another version is
# rebuilt, anchors migrated (memory.anchors.migrate_identities). 10: enum members (s. 30);
# 12: C#/Kotlin/C++ enum members, C# operators…, Kotlin constructor properties (s. 36);
# 13: JS literals holding functions deeper, chained Python constants (s. 39, defs_blind8);
# 14: C++ members named as their class are constructors (s. 41)
EXTRACTOR_VERSION = 14
_JS = JS_FAMILY
_LITERAL_SCOPES = ("variable_declarator", "pair")
_CHAINS = ("assignment_expression", "assignment")  # `a = b = function…` (JS, Python)


def _txt(b: bytes | None) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


class _Def:
    __slots__ = ("node", "kind", "name", "start", "end", "receiver", "is_scope", "local",
                 "parent", "container", "depth", "suffix", "role", "rec_local", "kind0",
                 "alias", "head")

    def __init__(self, node: Any, kind: str, name: str, receiver: str, is_scope: bool) -> None:
        self.node = node
        self.kind = kind
        self.kind0 = kind  # as captured (``_nest`` may make a function a method)
        self.name = name
        self.start = node.start_byte
        self.end = node.end_byte
        self.receiver = receiver
        self.is_scope = is_scope
        self.local = ""
        self.parent: _Def | None = None
        self.container: _Def | None = None
        self.depth = 0
        self.suffix = ""  # ``:setter``, ``:deleter`` or an overload's ``(int,int)``
        self.role = ""  # setter, deleter or stub
        self.rec_local = ""
        # the outer name of a chained assignment (`a.x = a.y = function () {}`), the first of
        # several Go names: it spans the function but never contains a definition
        right = node.child_by_field_name("right") if node.type in _CHAINS else None
        self.alias = (right is not None and right.type == node.type) or (
            node.type == "var_spec" and len(node.children_by_field_name("name")) > 1)
        self.head = 0  # Python def: where its header ends (defaults run in the container)


def extract(path: str, language: str, src: bytes, tree: Any) -> tuple[
        list[Symbol], list[RawRef], list[RawImport], str, list[tuple[str, int, str]],
        list[receivers.Fact]]:
    """Extract ``(symbols, refs, imports, package, notes, facts)`` from a parsed ``tree``
    of ``src``.

    ``notes`` are ``(caller_local, line, text)`` for ``@hindsight:`` comments; ``facts``
    are receiver facts (:mod:`hindsight.codeindex.receivers`).
    """
    syms, refs, imps, package, notes, facts = extract_rows(path, language, src, tree)
    return ([Symbol._make(s) for s in syms], [RawRef._make(r) for r in refs],
            [RawImport._make(i) for i in imps], package, notes, facts)


def extract_rows(path: str, language: str, src: bytes, tree: Any) -> tuple[
        list[tuple[Any, ...]], list[tuple[str, str, str, str, int]],
        list[tuple[str, str, str, str, int]], str, list[tuple[str, int, str]],
        list[receivers.Fact]]:
    """:func:`extract` with plain tuples in the fields' order of
    :class:`~hindsight.models.Symbol`, :class:`~hindsight.models.RawRef` and
    :class:`~hindsight.models.RawImport` (no object per row: what a full build sends)."""
    import tree_sitter as ts

    loaded = get(language)
    spec = loaded.spec
    defs: list[_Def] = []
    calls: list[tuple[int, str, str, int]] = []  # start_byte, name, receiver, line
    inherits: list[tuple[int, str, str, int]] = []
    import_nodes: list[Any] = []
    comments: list[tuple[int, int]] = []
    comment_nodes: list[Any] = []
    package = ""
    marks: dict[tuple[int, int], str] = {}
    cats = _categories(language)
    has_notes = b"@hindsight:" in src
    fact_caps: list[tuple[str, dict[str, Any]]] = []
    call_nodes: list[tuple[str, Any]] | None = [] if language in receivers.ARGS else None
    # one str object per distinct call name or receiver text: fewer decodes, and the
    # pickled references (wire.py) hold each text once
    texts: dict[bytes, str] = {}
    rust = language == "rust"
    for pat, caps in ts.QueryCursor(loaded.query).matches(tree.root_node):
        cat, kind = cats[pat]
        if cat == _CALL:
            n = caps["call.name"][0]
            r = caps.get("call.receiver")
            sb = n.start_byte
            b = src[sb:n.end_byte]
            name = texts.get(b)
            if name is None:
                name = texts[b] = b.decode("utf-8", "replace")
            if r:
                b = src[r[0].start_byte:r[0].end_byte]
                recv = texts.get(b)
                if recv is None:
                    recv = b.decode("utf-8", "replace")
                    recv = texts[b] = rustvals.path(recv) if rust else recv  # (`x?`: x[*])
            else:
                recv = ""
            calls.append((sb, name, recv, n.start_point[0] + 1))
            if call_nodes is not None:
                call_nodes.append((name, n))
        elif cat == _COMMENT:
            for c in caps["comment"]:
                comments.append((c.start_byte, c.end_byte))
                if has_notes:
                    comment_nodes.append(c)
        elif cat == _DEF:
            names = caps.get("name")
            if names:
                rec = caps.get("receiver")
                node = caps[kind][0]
                nm = _txt(names[0].text)
                if language in ("csharp", "kotlin"):
                    nm = _named(names[0], nm)
                defs.append(_Def(node, _KIND[kind], nm, "::".join(_txt(r.text) for r in rec)
                                 if rec else "", kind == "scope"))  # (C++ `A::B::m`)
        elif cat == _INHERIT:
            n = caps["inherit.name"][0]
            r = caps.get("inherit.receiver")
            inherits.append((n.start_byte, _txt(n.text), _txt(r[0].text) if r else "",
                             n.start_point[0] + 1))
        elif cat == _FACT:
            fact_caps.append((kind, caps))
        elif cat == _IMPORT:
            import_nodes.extend(caps["import"])
        elif cat == _PACKAGE:
            package = _txt(caps["package"][0].text)
        elif cat == _MARK:
            n = caps[kind][0]
            marks[(n.start_byte, n.end_byte)] = kind[5:]
    if language == "python":
        classes_ = [d.node for d in defs if d.kind == "class" and d.node.type == "class_definition"]
        defs = [d for d in defs if d.node.type != "lambda" or pyconsts.in_slot(d.node, d.name)]
        defs += [_Def(a, "constant", name, "", False)
                 for a, name in pyconsts.constants(tree.root_node, classes_)]
    defs.sort(key=lambda d: (d.start, -d.end))
    defs = _dedupe(defs)
    if language in _JS:
        defs = [d for d in defs if js_receiver(d)]
    elif language == "python":
        alias_stubs(src, import_nodes, defs, marks)  # `@ov` of `from typing import overload as ov`
    if marks:
        for d in defs:
            d.role = marks.get((d.start, d.end), "")
            if d.role in ("setter", "deleter"):
                d.suffix = ":" + d.role
    _nest(defs, spec.class_kinds, language in _JS)
    if language in _JS:  # a literal whose functions sit deeper (`{a: {b: {run() {}}}}`)
        for d in defs:  # is an object symbol too, as one holding them directly
            p = d.parent if not d.is_scope else None
            while p is not None and p.is_scope and p.node.type in _LITERAL_SCOPES:
                p.is_scope, p.kind, p = False, "object", p.parent
    if name_apart(defs, language):
        _nest(defs, spec.class_kinds, False)
    if language == "cpp":  # `K();`, `K::K() {}`: a member named as its class constructs it
        for d in defs:
            if d.kind == "method" and d.parent is not None and d.name == d.parent.name and \
                    d.parent.kind in spec.class_kinds:
                d.kind = "constructor"
    if marks:
        defs = drop_stubs(defs)
    if any(d.depth > MAX_NESTING for d in defs):
        # deeper definitions are not symbols (their names would grow with the square of
        # the depth); their calls belong to the deepest kept ancestor
        defs = [d for d in defs if d.depth <= MAX_NESTING]
    comments.sort()
    nc = blank_comments(src, comments)
    symbols = [_symbol(path, language, src, d, nc, spec) for d in defs if not d.is_scope]
    starts = [d.start for d in defs]
    if language == "python":  # `def f(x=make())`: make() runs where f is defined
        for d in defs:
            ps = d.node.child_by_field_name("parameters") if d.kind in ("function", "method") \
                else None
            rt = d.node.child_by_field_name("return_type") if ps is not None else None
            d.head = (rt or ps).end_byte if ps is not None else 0
    refs: list[tuple[str, str, str, str, int]] = []
    for pos, name, recv, line in calls:
        refs.append((_owner(defs, starts, pos), "call", name, recv, line))
    for pos, name, recv, line in inherits:
        refs.append((_owner(defs, starts, pos), "inherits", name, recv, line))
    imports: list[tuple[str, str, str, str, int]] = []
    for node in import_nodes:
        owner = _owner(defs, starts, node.start_byte)
        i = bisect.bisect_left(starts, node.start_byte)
        if i < len(defs) and defs[i].node == node:  # Rust `mod x;`: a symbol and an import
            up = defs[i].container
            owner = up.local if up is not None else ""
        for module, name, alias in imp.decode(language, node):
            imports.append((owner, module, name, alias, node.start_point[0] + 1))
    cond = [("", "@cimport", a, ln) for n in import_nodes if language == "python" and  # in
            n.parent is not None and n.parent.type != "module"  # a try or an if
            for o, _m, _n, a, ln in imports if not o and ln == n.start_point[0] + 1 and a]
    notes = _notes(defs, starts, comment_nodes)
    try:
        facts = receivers.extract(
            language, fact_caps, refs, call_nodes or [], partial(_owner, defs, starts),
            {d.start: (d.local, d.container.local if d.container else "") for d in defs},
            {s[2]: s[9] for s in symbols if s[3] in ("function", "method")},
            {d.name for d in defs} | {i[3] for i in imports}, Shadowed(
                src, tree.root_node, [d.name for d in defs if d.kind != "method"], imports)
            if language == "python" else
            frozenset())
    except RecursionError:  # a nesting past Python's limit (break-it: a chain of 490
        facts = []  # calls): the file keeps its symbols and name edges, no receiver facts
    facts += receivers.provided_facts(refs, facts, imports) + cond  # (dispatch.reimported)
    if language == "python":
        facts += dispatch_marks(defs)
        facts += [(c, "@super", n, ln) for c, k, n, rv, ln in refs  # dispatch._runs_for:
                  if k == "call" and (rv.startswith("super(") or (  # also `Base.m(self)`
                      n == c.rpartition(".")[2] and rv.rpartition(".")[2][:1].isupper()))]
        if b"__main__" in src:
            facts += main_guard(tree.root_node)
        if b"__all__" in src:
            facts += star_names(tree.root_node, src)
    elif language == "rust":  # methods of impl blocks across files (codeindex/rustimpl.py)
        facts += impl_facts(defs, imports)
    elif language == "csharp":  # extension methods (codeindex/namespaces.py)
        facts += ext_facts(symbols)
    return symbols, refs, imports, package, notes, facts


_DEF, _CALL, _INHERIT, _IMPORT, _PACKAGE, _COMMENT, _MARK, _FACT, _OTHER = range(9)


class _Kinds(dict[str, str]):
    """Capture name → symbol kind (``definition.method`` → ``method``, ``scope``), one
    string object per kind (pickled once per batch, not once per symbol)."""

    def __missing__(self, capture: str) -> str:
        kind = self[capture] = capture[11:] if capture != "scope" else "scope"
        return kind


_KIND = _Kinds()


def _named(node: Any, text: str) -> str:
    """The name of a C# or Kotlin definition whose ``@name`` is no identifier: a C#
    operator (``operator+``) or finalizer (``~Resource``), a Kotlin unnamed companion
    (``Companion``) or secondary constructor (its class's name); a Kotlin name in
    backticks without them (``function with spaces``)."""
    parent = node.parent.type if node.parent is not None else ""
    if parent == "operator_declaration" and node.type != "identifier":
        return "operator" + text
    if parent == "destructor_declaration" and node.type == "identifier":
        return "~" + text
    if parent == "companion_object" and text == "companion":
        return "Companion"
    if parent == "secondary_constructor" and text == "constructor":
        cls = node.parent.parent.parent if node.parent.parent is not None else None
        n = cls.child_by_field_name("name") if cls is not None else None
        return _txt(n.text) if n is not None else text
    return text.strip("`") if text[:1] == "`" else text
_CAPTURE = re.compile(r"@([\w.]+)")


def prepare(language: str) -> None:
    """Load ``language``'s grammar and compile its query now (both cached per process), so
    processes forked later inherit them instead of compiling again (~20 ms for Python).
    Raises ``KeyError`` for an unknown language."""
    _categories(language)


@cache
def _categories(language: str) -> list[tuple[int, str]]:
    """For each pattern of the language's query: (category, its root capture's name:
    the definition's, the mark's, or the ``@fact.*`` one that names the receiver-fact
    handler), read from the pattern's own text, so the match loop dispatches on an int."""
    from hindsight.codeindex.languages import query_text

    loaded = get(language)
    text = query_text(loaded.spec).encode("utf-8")
    out: list[tuple[int, str]] = []
    for i in range(loaded.query.pattern_count):
        pat = text[loaded.query.start_byte_for_pattern(i):
                   loaded.query.end_byte_for_pattern(i)].decode("utf-8")
        names = set(_CAPTURE.findall(pat))
        kind = next((n for n in names if n.startswith("definition.") or n == "scope"), "")
        mark = next((n for n in names if n.startswith("mark.")), "")
        if kind:
            out.append((_DEF, kind))
        elif mark:
            out.append((_MARK, mark))
        elif "call.name" in names:
            out.append((_CALL, ""))
        elif "inherit.name" in names:
            out.append((_INHERIT, ""))
        elif "import" in names:
            out.append((_IMPORT, ""))
        elif "package" in names:
            out.append((_PACKAGE, ""))
        elif "comment" in names:
            out.append((_COMMENT, ""))
        elif any(n.startswith("fact.") for n in names):
            out.append((_FACT, next((n for n in sorted(names) if n in receivers.HANDLED), "")))
        else:
            out.append((_OTHER, ""))
    return out


_RANK = {"scope": 0, "constant": 1}  # on one node, a symbol beats a scope, a function a constant


def _dedupe(defs: list[_Def]) -> list[_Def]:
    """Drop a second capture of the same node (two patterns matching one definition)."""
    out: list[_Def] = []
    seen: dict[tuple[int, int, str], int] = {}
    for d in defs:
        key = (d.start, d.end, d.name)
        i = seen.get(key)
        if i is not None:
            if _RANK.get(out[i].kind, 2) < _RANK.get(d.kind, 2):
                out[i] = d  # `F = lambda: 0` is a function, not a constant
            continue
        seen[key] = len(out)
        out.append(d)
    return out


def _nest(defs: list[_Def], class_kinds: tuple[str, ...], js: bool) -> None:
    """Set parent, local qualified name and method kind from byte-range nesting.

    A definition with a receiver is a member of the receiver: Go methods, C++ ``T::m``,
    JavaScript ``obj.m = function``. The receiver names a definition in the enclosing
    scope if there is one (``outer.T``), else one at the top level (``T``), else it is
    taken as written under the enclosing scope. A JavaScript ``this.m = function`` is a
    member of the class whose method assigns it, or of the function that does."""
    stack: list[_Def] = []
    by_local: dict[str, _Def] = {}
    for d in defs:
        # one node defining several names (Java `static final int A = 1, B = 2;`): siblings
        while stack and (stack[-1].end <= d.start or
                         (stack[-1].start == d.start and stack[-1].end == d.end)):
            stack.pop()
        container = stack[-1] if stack else None
        d.container = container
        d.depth = container.depth + 1 if container is not None else 0
        d.kind = d.kind0
        leaf = d.name + d.suffix
        if d.receiver == "this" and js:
            owner = container
            if owner is not None and owner.kind in ("method", "constructor") and \
                    owner.parent is not None and owner.parent.kind in class_kinds:
                owner = owner.parent
            d.parent = owner
            d.rec_local = owner.local if owner is not None else ""
            d.local = f"{owner.local}.{leaf}" if owner is not None else leaf
            if d.kind == "function":
                d.kind = "method"
        elif d.receiver:
            rec = d.receiver.replace("::", ".")
            if container is not None:
                inner = f"{container.local}.{rec}"
                rec = inner if inner in by_local or rec not in by_local else rec
            d.rec_local = rec
            d.local = f"{rec}.{leaf}"
            d.parent = by_local.get(rec)
            if d.kind == "function" and (not js or (d.parent is not None and (
                    d.parent.kind in class_kinds or d.parent.is_scope))):
                d.kind = "method"
        elif container is not None:
            d.parent = container
            d.local = f"{container.local}.{leaf}"
            if d.kind == "function" and (container.kind in class_kinds or container.is_scope):
                d.kind = "method"
        else:
            d.parent = None
            d.local = leaf
        by_local.setdefault(d.local, d)
        if not d.alias:
            stack.append(d)


def _owner(defs: list[_Def], starts: list[int], pos: int) -> str:
    """Local qualified name of the innermost definition containing byte ``pos`` that is
    not a constant: what a constant's initialiser calls (``CUBES = [cube(i) …]``) is
    called by the code around it (the module), which runs it; the same for a Python
    function's header (``def f(x=make())``: defaults run where ``f`` is defined).

    The innermost container is the nearest container-or-self of the last definition that
    starts at or before ``pos`` (definitions nest properly), so one bisect and a short walk
    up suffice.
    """
    i = bisect.bisect_right(starts, pos) - 1
    d = defs[i] if i >= 0 else None
    while d is not None and (d.end <= pos or d.kind == "constant" or pos < d.head):
        d = d.container
    return d.local if d is not None else ""


def _notes(defs: list[_Def], starts: list[int], comment_nodes: list[Any]) -> list[
        tuple[str, int, str]]:
    out = []
    for c in comment_nodes:
        t = c.text
        if b"@hindsight:" not in t:
            continue
        for m in _NOTE.finditer(t):
            out.append((_owner(defs, starts, c.start_byte), c.start_point[0] + 1,
                        _txt(m.group(1))))
    return out


def _start_node_pos(node: Any) -> tuple[int, int, int]:
    """(row, col, byte) where the definition starts, skipping leading decorators/annotations."""
    first = node.child(0) if node.child_count else None  # a leaf: a TypeScript enum member
    if first is None or first.type not in _ANNOT:
        return node.start_point[0], node.start_point[1], node.start_byte
    for ch in node.children:
        if ch.type == "modifiers":
            for m in ch.children:
                if m.type not in _ANNOT:
                    return m.start_point[0], m.start_point[1], m.start_byte
            continue
        if ch.type not in _ANNOT:
            return ch.start_point[0], ch.start_point[1], ch.start_byte
    return node.start_point[0], node.start_point[1], node.start_byte


def _symbol(path: str, language: str, src: bytes, d: _Def, nc: bytes, spec: Any
            ) -> tuple[Any, ...]:
    node = d.node
    row, col, sbyte = _start_node_pos(node)
    end = node.end_point
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > sbyte:
        sig = src[sbyte:body.start_byte]
    else:
        sig = src[sbyte:min(node.end_byte, sbyte + 400)].split(b"{", 1)[0]
        if not d.alias:  # a chained assignment's head spans lines: `a.x =\n a.y = function`
            sig = sig.split(b"\n", 1)[0]
    signature = _WS.sub(" ", _txt(sig)).strip().rstrip(":{ ").strip()[:MAX_SIG]
    doc = py_docstring(body) if spec.python_docstrings else doc_comment(node)
    if spec.indent_sensitive:
        h = indent_hash(nc[sbyte:node.end_byte], col)
    else:
        h = flat_hash(nc[sbyte:node.end_byte])
    parent = d.parent.local if d.parent is not None else d.rec_local
    end_row, end_col = end
    if end_col == 0 and end_row > row:  # node ends with its newline (C #define)
        end_row -= 1
        end_col = node.end_byte - 1 - (src.rfind(b"\n", 0, node.end_byte - 1) + 1)
    return (path, d.name, d.local, d.kind, parent, row + 1, col, end_row + 1, end_col,
            signature, doc, language, h)

