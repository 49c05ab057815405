"""Queries over the code index: symbol lookup, callers, callees, trace (issue #2, item 8)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hindsight.codeindex.decode import normalise
from hindsight.errors import Ambiguous, NotFound
from hindsight.models import ROLES, Step, Symbol, call_base, overload_base, simple_name
from hindsight.store.base import CodeStore, StoredEdge


@dataclass
class GraphHit:
    """One caller/callee found at ``depth`` (1 = direct). ``symbol`` is ``None`` for an
    unresolved callee (only ``name`` known) or module-level code. ``edge_src`` and
    ``edge_dst`` are the edge's two ends (``edge_dst`` ``?name`` when unresolved);
    ``resolved`` is false for a callee known only by name and for a caller found through
    ``include_unresolved`` (a call by bare name that may mean another symbol). ``line`` is
    the call site for callers and unresolved callees, the definition for resolved ones."""

    depth: int
    qname: str
    name: str
    path: str
    line: int
    kind: str
    via: str
    resolved: bool
    symbol: Symbol | None = None
    edge_src: str = ""
    edge_dst: str = ""

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "symbol"}
        d["symbol"] = self.symbol.as_dict() if self.symbol else None
        return d


def find(store: CodeStore, name: str, kind: str | None = None, file: str | None = None,
         limit: int = 50) -> tuple[str, list[Symbol]]:
    """Look up symbols: exact (name, ``Class.method`` or full ``path::Class.method``), then
    case-insensitive prefix, then substring. Returns ``(match_kind, symbols)`` where
    ``match_kind`` is ``exact``, ``prefix``, ``substring`` or ``none``. Exact also
    covers the dotted module form (``click.echo``: :func:`resolve_one`), Go's receiver
    form (``(*Command).AddCommand``) and a name that differs in case only (``ECHO``)."""
    name = go_receiver_form(name)
    hits = store.find_symbols(name, kind, file, limit)
    if not hits and "." in name and "::" not in name:
        hits = [h for h in _module_form(store, name, file) if not kind or h.kind == kind]
    if hits:
        return "exact", hits[:limit]
    if "::" in name or not name:
        return "none", []
    short = simple_name(name)
    if not short:
        return "none", []
    hits = store.find_prefix(short, kind, file, limit)
    same = [h for h in hits if h.name.casefold() == short.casefold()]
    if same and short == name:  # (a bare name: `ECHO` is `echo`)
        return "exact", same
    if hits:
        return "prefix", hits
    hits = store.find_substring(short, kind, file, limit)
    return ("substring", hits) if hits else ("none", [])


def resolve_one(store: CodeStore, spec: str, file: str | None = None) -> list[Symbol]:
    """The symbol(s) ``spec`` names exactly: a name, ``Class.method``, ``path::local``,
    or a dotted module path (``pkg.mod.func``, ``pkg.mod.Class.method``: a Python module,
    or a Java/Kotlin/C#/Go package, then a local name; a package's re-export counts),
    tried in that order, then the path forms of :func:`_path_forms`. Several definitions sharing one qualified name (redefinitions, a
    C++ declaration and its definition) count as one. Overloads are distinct (``C.m``
    matching ``C.m(int)`` and ``C.m(String)`` is ambiguous); a name matching a getter and
    its setter/deleter means the getter; a bare name matching one definition at a
    module's or a class's level and others nested in functions means the first, and one
    matching a single definition beside class constants or enum members means it. Raises
    :class:`Ambiguous` (the candidate
    qualified names), or :class:`NotFound`, which says when the name's first part is
    nothing in this repository (``json.loads``: code outside it is never indexed)."""
    spec = go_receiver_form(spec)
    hits = store.find_symbols(spec, None, file, 200)
    if not hits and "." in spec and "::" not in spec:
        hits = _module_form(store, spec, file) or _path_forms(store, spec, file)
    if not hits:
        raise NotFound(_not_found(store, spec, file), value=spec)
    qnames = sorted({s.qname for s in hits})
    if len(qnames) > 1:  # a getter stands for its setter and deleter (`C.p`, `C.p:setter`)
        getters = [q for q in qnames if not q.endswith(ROLES) or
                   q[:q.rindex(":")] not in qnames]
        if len(getters) == 1:
            hits = [s for s in hits if s.qname == getters[0]]
            qnames = getters
    if len(qnames) > 1 and "." not in spec and ":" not in spec:
        # a bare name means the one definition not nested in a function, if one only is
        # (click's `echo`, not a test's inner `def echo`: the fresh-user trial)
        outer = sorted({h.qname for h in hits if not _in_function(store, h)})
        if len(outer) == 1:
            hits = [h for h in hits if h.qname == outer[0]]
            qnames = outer
        # and not a class's constant or an enum's member (`Shape.Circle`, `Job.sync_users`)
        # beside one other definition (the struct `Circle`, the function `sync_users`)
        other = sorted({h.qname for h in hits if not (h.kind == "constant" and h.parent)})
        if len(qnames) > 1 and len(other) == 1:
            hits = [h for h in hits if h.qname == other[0]]
            qnames = other
    if len(qnames) > 1:
        raise Ambiguous(f"{spec!r} matches {len(qnames)} symbols; give one of them",
                        qnames[:20], option="file", value=spec)
    return hits


def _in_function(store: CodeStore, h: Symbol) -> bool:
    """Whether definition ``h`` is nested in a function or method of its file (a test's
    inner ``def echo``; not ``res.send = function`` of an object that is no symbol)."""
    if not h.parent:
        return False
    up = store.find_symbols(f"{h.path}::{h.parent}", None, None, 1)
    return bool(up) and up[0].kind in ("function", "method")


_GO_RECEIVER = re.compile(r"^\(\s*\*?\s*([A-Za-z_]\w*)\s*\)\.([A-Za-z_]\w*)$")


def go_receiver_form(spec: str) -> str:
    """``Command.AddCommand`` for Go's method expression ``(*Command).AddCommand`` or
    ``(Command).AddCommand`` (the Go spec, "Method expressions"); ``spec`` otherwise."""
    m = _GO_RECEIVER.match(spec.strip())
    return f"{m.group(1)}.{m.group(2)}" if m else spec


def _module_form(store: CodeStore, spec: str, file: str | None) -> list[Symbol]:
    """Symbols of ``spec`` read as module + local name, the longest module first."""
    parts = spec.split(".")
    for i in range(len(parts) - 1, 0, -1):
        hits = store.find_in_module(".".join(parts[:i]), ".".join(parts[i:]), file, 200)
        if hits:
            return hits
    return []


_NAMESPACE_KINDS = frozenset({"namespace", "module", "package"})


def _path_forms(store: CodeStore, spec: str, file: str | None) -> list[Symbol]:
    """Symbols of ``spec`` in the forms a user types that are no indexed module name
    (break-it findings): a Python file path written dotted (``tests.test_x.helper`` for
    ``tests/test_x.py`` without ``__init__.py``); a Go import path (``example.com/proj/
    store.Open``: ``store.Open`` in a directory ending ``store``); a C#-style name
    inside a block namespace (``Fmt.Pad`` for ``Acme.Text.Fmt.Pad``)."""
    parts = spec.split(".")
    if "/" not in spec:
        for i in range(len(parts) - 1, 0, -1):
            base, local = "/".join(parts[:i]), ".".join(parts[i:])
            for path in (f"{base}.py", f"{base}/__init__.py"):
                hits = store.find_symbols(f"{path}::{local}", None, file, 200)
                if hits:
                    return hits
    else:
        tail = spec.rpartition("/")[2]
        pkg = tail.partition(".")[0]
        hits = store.find_symbols(tail, None, file, 200) or _module_form(store, tail, file)
        return [h for h in hits if f"/{h.path}".rpartition("/")[0].endswith(f"/{pkg}")]
    named = store.find_symbols(parts[-1], None, file, 200)
    return [h for h in named if h.local.endswith("." + spec) and any(
        s.kind in _NAMESPACE_KINDS for s in store.find_symbols(
            f"{h.path}::{h.local[:-len(spec) - 1]}", None, None, 5))]


def _not_found(store: CodeStore, spec: str, file: str | None) -> str:
    """The message of :class:`NotFound` for ``spec``: the symbol outside ``--file``, a
    name outside the repository, or the nearest names (a typo: ``Contxt.invoke``,
    ``lookup_defualt``)."""
    if file and store.find_symbols(spec, None, None, 1):
        return f"{spec!r} is not in {file!r} (--file); it is defined elsewhere"
    near = _near(store, spec)
    head, dot, _rest = spec.partition(".")
    if dot and "::" not in spec and not near and not store.module_known(head) and not \
            store.find_symbols(head, None, None, 1):
        receiver, _, name = spec.rpartition(".")
        n = store.count_unresolved(name, receiver)
        calls = f"; {n} call(s) of it stay unresolved in the index" if n else ""
        return (f"{spec!r} is outside this repository: nothing indexed here is named "
                f"{head!r} (only the repository's own code is indexed){calls}")
    if not near:
        near = [s.qname for s in find(store, spec, None, file, 10)[1][:5]]
    hint = f"; similar: {', '.join(near[:5])}" if near else ""
    return f"no symbol named {spec!r}{hint}"


def _near(store: CodeStore, spec: str) -> list[str]:
    """Qualified names whose local name is within a typo of ``spec`` (difflib ratio 0.8
    or more), among the symbols whose name starts as ``spec``'s last part does or is
    that part (``Contxt.invoke`` -> ``Context.invoke``)."""
    import difflib

    short = simple_name(spec.partition("::")[2] or spec)
    if len(short) < 3:
        return []
    want = spec.partition("::")[2] or spec
    dotted = "." in want
    cands: dict[str, list[str]] = {}
    for s in [*store.find_symbols(short, None, None, 200),
              *store.find_prefix(short[:3], None, None, 500)]:
        key = s.local if dotted else s.name  # `lookup_defualt` reads as a bare name
        if s.qname not in cands.setdefault(key, []):
            cands[key].append(s.qname)
    best = difflib.get_close_matches(want, list(cands), n=5, cutoff=0.8)
    return [q for b in best if b != want for q in cands[b]][:5]


def unresolved_same_name(store: CodeStore, target: Symbol) -> int:
    """How many call sites call a name like ``target``'s and were left unresolved (they
    may or may not mean it; ``include_unresolved`` lists them)."""
    return store.count_unresolved(target.name)


def _edge_hit(e: StoredEdge, depth: int, qname: str, syms: dict[str, Symbol],
              reverse: bool) -> GraphHit:
    s = syms.get(qname)
    dst = e.dst or f"?{e.name}"
    if reverse:  # a caller: resolved only when the edge itself resolved to the target
        return GraphHit(depth, qname, qname.partition("::")[2] or "<module>", e.path, e.line,
                   s.kind if s else "module", e.kind, bool(e.dst), s, e.src, dst)
    name = qname.partition("::")[2] if qname else e.name
    return GraphHit(depth, qname or e.name, name or "<module>", s.path if s else e.path,
               s.start_line if s else e.line, s.kind if s else "", e.kind, bool(qname), s,
               e.src, dst)


def callers(store: CodeStore, spec: str, depth: int = 1, file: str | None = None,
            include_unresolved: bool = False, root: str | None = None
            ) -> tuple[Symbol, list[GraphHit]]:
    """Who calls ``spec``, breadth-first to ``depth``. Each hit's ``line`` is where the
    call is (1-based). Unresolved calls by the same bare name are included only with
    ``include_unresolved`` (they may mean another symbol). With ``root`` (the
    repository's directory), a property's reads and writes are callers too
    (:mod:`hindsight.codeindex.propreads`)."""
    target, hits, _done, _cut = walk(store, "callers", spec, depth, file, include_unresolved,
                                     root=root)
    return target, hits


def walk(store: CodeStore, direction: str, spec: str, depth: int = 1, file: str | None = None,
         include_unresolved: bool = False, stop: Callable[[], bool] | None = None,
         limit: int | None = None, root: str | None = None
         ) -> tuple[Symbol, list[GraphHit], int, bool]:
    """:func:`callers` (``direction`` ``callers``) or :func:`callees` (``callees``) with
    ``stop()`` asked before each level after the first: ``(target, hits, levels done,
    cut short)``. The hits of the levels done are exactly those of the full walk. With
    ``limit``, at most that many hits, the first ones of the full walk (nearest levels
    first), and only their symbols are looked up (a name called from 10,000 places costs
    what ``limit`` callers cost); cut short is then true when hits were left out. With
    ``root``, callers include a property's reads and writes (see :func:`callers`)."""
    if direction == "callees":
        return _callees(store, spec, depth, file, stop, limit)
    return _callers(store, spec, depth, file, include_unresolved, stop, limit, root)


def _property_hits(store: CodeStore, root: str | None, frontier: list[str], d: int,
                   unresolved: bool = False) -> list[tuple[tuple[str, str], GraphHit, str]]:
    """The reads and writes of the properties among ``frontier``, as callers at ``d``
    (with ``unresolved``, also the accesses of their names left unresolved, not
    followed)."""
    if not root:
        return []
    from hindsight.codeindex.propreads import is_property, property_uses

    out: list[tuple[tuple[str, str], GraphHit, str]] = []
    lines: dict[str, list[str]] = {}
    for sym in store.symbols_by_qname(set(frontier)):
        if is_property(root, sym, lines):
            hits, left = property_uses(store, root, sym, d)
            out += [((h.qname, ""), h, h.qname) for h in hits]
            out += [((h.qname, "?"), h, "") for h in left] if unresolved else []
    return out


def call_names(store: CodeStore, qnames: list[str]) -> list[str]:
    """``qnames`` and the names calls of them are edges to: a call cannot tell overloads
    apart, so it is an edge to ``C.m``, a caller of each ``C.m(…)``; a Rust call is an edge
    to ``T.m``, which is ``T.m:Trait`` only when ``T`` has no inherent ``m``."""
    out = list(qnames)
    traits: list[str] = []
    for q in qnames:
        b = call_base(q)
        if b != q and b not in out:
            (out if b == overload_base(q) else traits).append(b)
    if traits:
        real = {s.qname for s in store.symbols_by_qname(set(traits))}
        out += [b for b in dict.fromkeys(traits) if b not in real]
    return out


def _callers(store: CodeStore, spec: str, depth: int, file: str | None, include_unresolved: bool,
             stop: Callable[[], bool] | None, limit: int | None = None,
             root: str | None = None) -> tuple[Symbol, list[GraphHit], int, bool]:
    target = resolve_one(store, spec, file)

    def step(frontier: list[str], d: int, room: int | None
             ) -> list[tuple[tuple[str, str], GraphHit, str]]:
        names = [simple_name(q) for q in frontier] if include_unresolved else []
        edges = sorted(store.edges_to(call_names(store, frontier), names),
                       key=lambda e: (e.src, e.line))
        if room is not None:  # the first `room` callers (one more: to know some were left)
            keep = set(list(dict.fromkeys(e.src for e in edges))[:room + 1])
            edges = [e for e in edges if e.src in keep]
        syms = {s.qname: s for s in store.symbols_by_qname({e.src for e in edges})}
        # a caller is listed once; each unresolved call site of the name on its own line
        # (fresh-user trial: the count of them matches the rows)
        return [((e.src, "" if e.dst else f"?{e.line}"),
                 _edge_hit(e, d, e.src, syms, reverse=True), e.src)
                for e in edges] + _property_hits(store, root, frontier, d, include_unresolved)

    return (target[0], *_bfs(target[0].qname, depth, step, stop, limit))


def _bfs(start: str, depth: int,
         step: Callable[[list[str], int, int | None],
                        list[tuple[tuple[str, str], GraphHit, str]]],
         stop: Callable[[], bool] | None = None, limit: int | None = None
         ) -> tuple[list[GraphHit], int, bool]:
    """Breadth-first over the call graph from ``start`` to ``depth`` levels. ``step``
    gives, for one level's frontier and the room left under ``limit`` (None: no limit),
    (dedup key, hit, next symbol or "") per edge; a hit is listed once per key and level,
    a symbol followed once. ``stop()`` is asked before each level after the first: true
    ends the walk there. Returns (hits, levels done, whether ``stop`` or ``limit`` cut it
    short)."""
    out: list[GraphHit] = []
    seen = {start}
    frontier = [start]
    done = 0
    for d in range(1, depth + 1):
        if d > 1 and stop is not None and stop():
            return out, done, True
        nxt: list[str] = []
        keys: set[tuple[str, str]] = set()
        for key, hit, follow in step(frontier, d, None if limit is None else limit - len(out)):
            if key in keys:
                continue
            if limit is not None and len(out) >= limit:
                return out, done, True
            keys.add(key)
            out.append(hit)
            if follow and follow not in seen:
                seen.add(follow)
                nxt.append(follow)
        done = d
        frontier = nxt
        if not frontier:
            break
    return out, done, False


def callees(store: CodeStore, spec: str, depth: int = 1, file: str | None = None
            ) -> tuple[Symbol, list[GraphHit]]:
    """What ``spec`` calls, breadth-first to ``depth``; unresolved callees are listed by
    bare name (not followed). Each hit's ``line`` is the callee's definition line when
    resolved, else the call's line."""
    target, hits, _done, _cut = walk(store, "callees", spec, depth, file)
    return target, hits


def _callees(store: CodeStore, spec: str, depth: int, file: str | None,
             stop: Callable[[], bool] | None, limit: int | None = None
             ) -> tuple[Symbol, list[GraphHit], int, bool]:
    target = resolve_one(store, spec, file)

    def step(frontier: list[str], d: int, _room: int | None
             ) -> list[tuple[tuple[str, str], GraphHit, str]]:
        edges = store.edges_from(frontier)
        syms = {s.qname: s for s in store.symbols_by_qname({e.dst for e in edges if e.dst})}
        return [((e.src, e.dst or "?" + e.name), _edge_hit(e, d, e.dst, syms, reverse=False),
                 e.dst if e.dst in syms else "") for e in edges]

    return (target[0], *_bfs(target[0].qname, depth, step, stop, limit))


def snippet(root: str, sym: Symbol, max_lines: int = 8) -> str:
    """First ``max_lines`` lines of a symbol's definition read from the work tree
    (``""`` if the file cannot be read)."""
    try:
        with open(os.path.join(root, sym.path), "rb") as fh:
            src, _enc = normalise(fh.read())  # the same decoding and lines as the index
    except OSError:
        return ""
    lines = src.decode("utf-8", "replace").split("\n")
    end = min(sym.end_line, sym.start_line + max_lines - 1)
    return "\n".join(lines[sym.start_line - 1:end])


def trace(store: CodeStore, root: str, spec: str, depth: int = 3, file: str | None = None,
          max_children: int = 25, max_nodes: int = 400) -> Step:
    """The call tree from ``spec`` down to ``depth`` levels, each resolved step with its
    location and a code snippet. Each symbol is expanded once per trace; later
    occurrences are marked ``seen`` (this also ends recursion), so the tree grows
    linearly, and at most ``max_nodes`` resolved steps are listed."""
    start = resolve_one(store, spec, file)[0]
    expanded: set[str] = {start.qname}
    budget = [max_nodes]

    def expand(sym: Symbol, level: int, path: set[str]) -> list[Step]:
        if level > depth or budget[0] <= 0:
            return []
        edges = [e for e in store.edges_from([sym.qname]) if e.kind == "call"]
        syms = {s.qname: s for s in store.symbols_by_qname({e.dst for e in edges if e.dst})}
        out: list[Step] = []
        seen: set[str] = set()
        for e in edges:
            key = e.dst or "?" + e.name
            if key in seen:
                continue
            seen.add(key)
            s = syms.get(e.dst)
            if s is None:
                out.append(Step(None, e.name, e.line, ""))
                continue
            budget[0] -= 1
            if s.qname in expanded:  # shown (with its callees) earlier in this trace
                out.append(Step(s, s.qname, e.line, "", seen=True))
                continue
            expanded.add(s.qname)
            st = Step(s, s.qname, e.line, snippet(root, s))
            st.children = expand(s, level + 1, path | {s.qname})
            out.append(st)
            if len(out) >= max_children:
                break
        return out

    root_step = Step(start, start.qname, 0, snippet(root, start))
    root_step.children = expand(start, 1, {start.qname})
    return root_step


NEIGHBOUR_CHARS = 2_000  # the file-name pattern is quadratic on one long token


def neighbours(store: CodeStore, text: str, syms: list[tuple[str, str]]
               ) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """``(files, symbols, near)``: indexed files and symbols named in ``text`` (its first
    ``NEIGHBOUR_CHARS`` characters; a symbol word has ``_``, ``.``, ``::`` or camelCase),
    and the callers and callees (depth 1) of those and of ``syms`` ((path, local) pairs),
    at most 10 looked up. Never raises for a lookup that fails."""
    import re

    from hindsight.errors import HindsightError

    text = text[:NEIGHBOUR_CHARS]
    known = store.load_files()
    extra_f = [w for w in re.findall(r"[\w./-]+\.\w+", text) if w in known]
    extra_s: list[tuple[str, str]] = []
    for w in re.findall(r"[A-Za-z_][\w.:/]*[\w]", text)[:40]:
        if not ("_" in w or "." in w or "::" in w or re.search(r"[a-z][A-Z]", w)):
            continue
        found = store.find_symbols(w.rpartition("::")[2] if "::" in w else w, None,
                                   w.partition("::")[0] if "::" in w else None, 5)
        extra_s += [(h.path, h.local) for h in found[:3]]
    near: list[tuple[str, str]] = []
    for p, loc in (syms + extra_s)[:10]:
        for fn in (callers, callees):
            try:
                _t, hits = fn(store, f"{p}::{loc}", 1)
            except HindsightError:  # a neighbour lookup must not fail recall
                continue
            near += [(h.symbol.path, h.symbol.local) for h in hits if h.symbol]
    return extra_f, extra_s, near
