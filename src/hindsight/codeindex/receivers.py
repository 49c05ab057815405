"""Receiver facts: what the parser can say about the values names hold (issue #14, item 1).

Runs in the parser workers, on the matches of the ``@fact.*`` patterns of each language's
``queries/flow_<lang>.scm``; nothing here resolves a name. A *fact* is a tuple
``(scope, target, value, line)``:

* ``scope``: the local qualified name of the innermost enclosing definition (``""`` for
  module level), as for references;
* ``target``: the bound name: ``x``, ``self.x`` / ``this.x`` (an attribute of the enclosing
  class), ``x['key']`` / ``x[0]`` (an element of a dict or list literal), or one of the
  reserved targets ``return`` (a returned value), ``->`` (a declared return type),
  ``@dec`` (a decorator of the definition ``scope``), ``()`` (a call whose callee is
  itself a call or a subscript, ``make()()`` or ``handlers['x']()``, which the name
  patterns cannot name; the value is the callee) and ``<callee>@<i>`` /
  ``<callee>@<name>`` (an argument passed at position ``i`` or by keyword);
* ``value``: an access path (see :mod:`hindsight.codeindex.exprs`): ``C()`` for an
  instance of ``C`` (a constructor call or a declared type), ``C`` for the class or
  function itself, ``f()`` for what ``f`` returns, ``&local`` for a definition of the
  file; ``?`` for a value that is no path (it hides earlier bindings);
* ``line``: 1-based line of the binding (0: visible in the whole scope).

Parameters and declared return types are not facts: they are read from the stored
signature when needed (:mod:`hindsight.codeindex.signatures`).

Facts whose value is ``?`` are kept only where the same scope binds the same target to a
path too, and arguments only when they name something a fact or definition knows: the
index stores what resolution can use.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Container
from typing import Any

from hindsight.codeindex import assigns, chains, elements, localuse, loops, rustvals, signatures
from hindsight.codeindex.bindings import (
    _PY_READS,
    KEEP_LOCALS,
    Bindings,
    Fact,
    _line,
    _t,
    head,
)
from hindsight.codeindex.exprs import canon, parse
from hindsight.codeindex.languages import SPECS
from hindsight.codeindex.values import MAX_TARGETS
from hindsight.redact import clean, may_hold_secret

__all__ = ["ARGS", "FACTS_VERSION", "Fact", "extract"]

ARGS = frozenset({"python"})  # languages whose undeclared parameters are bound from call sites
FACTS_VERSION = "24"  # stored in a bank's meta; a bank with another value is re-indexed in full


_SEQS = frozenset({"list", "list_comprehension", "set", "set_comprehension", "tuple"})


def _py_decorators(out: Bindings, node: Any) -> None:
    """``@dec`` on a definition: the fact ``(def, '@dec', dec)`` and the argument fact
    ``(scope, 'dec@0', '&def')`` (a decorator is called with the function)."""
    target = node.child_by_field_name("definition")
    if target is None:
        return
    local = out.local(target)
    if not local:
        return
    scope = out.owner(node.start_byte)
    for dec in node.named_children:
        if dec.type != "decorator" or dec.named_child_count == 0:
            continue
        expr = canon(_t(dec.named_child(0)))
        if not expr:
            continue
        out.facts.append((local, "@dec", expr, 0))
        out.args.append((scope, f"{expr}@0", f"&{local}", _line(dec)))
        if expr.endswith("()"):  # `@repeat(3)`: what `repeat(3)` returns is called too
            out.facts.append((scope, "()", expr, _line(dec)))


def _param_of(out: Bindings, scope: str, name: str, functions: dict[str, str],
              wanted: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether ``name`` is a parameter of function ``scope`` nested in another function,
    or of one whose call sites are kept (``wanted``: :func:`_passers`); its value comes
    from the function's own call sites: ``Command(name, f)`` inside a decorator
    factory's ``decorator(f)`` (only those, to keep the facts few)."""
    sig = functions.get(scope)
    return sig is not None and name in sig and (
        scope.rpartition(".")[0] in functions or scope.rpartition(".")[2] in wanted) and any(
        p[0] == name for p in signatures.parts(sig, out.language)[0])


def _call_args(out: Bindings, call: Any, heads: set[str] | None = None,
               functions: dict[str, str] | None = None,
               wanted: set[str] | frozenset[str] = frozenset()) -> None:
    """Argument facts of one call: each argument that is an access path, by position
    (until a ``*``/``**`` argument or a keyword) or by keyword; with ``heads``, only
    when the callee's first name and the argument's are among them (definitions and
    imports of the file, ``self``, instances of those) or the argument is a parameter
    of the function making the call (``functions``: local name → signature)."""
    functions = functions or {}
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    callee = out.value(fn) if fn is not None and args is not None else ""
    if not callee or callee == "?" or (heads is not None and head(callee) not in heads):
        return  # (with heads: a callee the file cannot name is no repository function)
    scope = ""
    i = 0
    positional = True
    for arg in args.named_children:
        t = arg.type
        if t == "comment":
            continue
        if t == "keyword_argument":
            positional = False
            name = arg.child_by_field_name("name")
            val = arg.child_by_field_name("value")
            key, vnode = (_t(name), val) if name is not None else ("", None)
        elif t in ("list_splat", "dictionary_splat", "parenthesized_list_splat"):
            positional = False
            continue
        else:
            key, vnode = (str(i), arg) if positional else ("", None)
            i += 1
        if not key or vnode is None:
            continue
        if vnode.type in ("list", "tuple", "set"):
            # `f([A(), B()])`: an element of the parameter (key `0[*]`: callsites.passed)
            vals = out.element(vnode)
            if "?" not in vals and (heads is None or all(head(v) in heads for v in vals)):
                scope = scope or out.owner(call.start_byte)
                out.args += [(scope, f"{callee}@{key}[*]", v, _line(call)) for v in vals]
            continue
        if vnode.type == "dictionary":  # `f({"a": A()})`: a value at any key (`0[?]`)
            vals = list(dict.fromkeys(out.value(c.child_by_field_name("value")) or "?" for c in
                                      vnode.named_children if c.type != "comment"))
            if "?" not in vals and 0 < len(vals) <= MAX_TARGETS and (
                    heads is None or all(head(v) in heads for v in vals)):
                scope = scope or out.owner(call.start_byte)
                out.args += [(scope, f"{callee}@{key}[?]", v, _line(call)) for v in vals]
            continue
        if vnode.type not in _PATHS:
            continue
        v = out.value(vnode)
        if v and v != "?" and (heads is None or head(v) in heads or _param_of(
                out, scope or out.owner(call.start_byte), head(v), functions, wanted)):
            scope = scope or out.owner(call.start_byte)
            out.args.append((scope, f"{callee}@{key}", v, _line(call)))


_PATHS = frozenset({"identifier", "attribute", "call", "subscript", "binary_operator",
                    "comparison_operator"})  # (`f(a + b)`: a.__add__(b), pynodes)
# builtins and container methods: never a function of another file of the repository
_NOT_ELSEWHERE = frozenset(dir(__import__("builtins"))) | frozenset({
    "append", "add", "extend", "insert", "remove", "discard", "update", "setdefault",
    "pop", "get", "join", "format", "startswith", "endswith", "split", "strip", "replace",
    "encode", "decode", "items", "keys", "values", "copy", "write", "read", "lower",
    "upper", "count", "index", "sort", "clear", "__init__"})
_WORD = re.compile(r"[A-Za-z_]\w*")


def _xcall(out: Bindings, caps: dict[str, list[Any]]) -> None:
    call = caps["fact.xcall"][0]
    callee = caps["fact.callee"][0]
    # `getattr(x, "m")()`, `d.get(k)()`: the path the call reads (Bindings._py_builtin)
    name = (out.value(callee) if out.language == "python" and callee.type == "call"
            else None) or canon(_t(callee))
    if name == "?":
        name = canon(_t(callee))
    if name:
        out.facts.append((out.owner(call.start_byte), "()", name, _line(call)))
    dflt = out.default_of(callee) if out.language == "python" else None
    v = out.value(dflt) if dflt is not None else None  # `d.get(k, default)()`: default too
    if v and v != "?":
        out.facts.append((out.owner(call.start_byte), "()", v, _line(call)))


def _handle(fn: Callable[[Bindings, dict[str, list[Any]]], None], out: Bindings, caps: Any) -> None:
    """Run one fact handler; an expression nested past Python's recursion limit (a chain
    of 500 ``.copy()`` calls: break-it) gives no fact, and the file's other facts stay."""
    try:
        fn(out, caps)
    except RecursionError:  # (parse.py: one outside any handler drops the receiver facts)
        return


_CONTAINERS = {"dictionary": "dict", "list": "seq", "tuple": "seq", "set": "seq"}

_HANDLERS: dict[str, Callable[[Bindings, dict[str, list[Any]]], None]] = {
    "fact.assign": assigns.py_assign,
    "fact.with": assigns.with_,
    "fact.return": lambda out, caps: assigns.returned(out, caps, "fact.return", "return"),
    "fact.yield": lambda out, caps: assigns.returned(out, caps, "fact.yield", "yield"),
    "fact.for": loops.for_, "fact.comp": loops.comp, "fact.pairs": loops.pairs,
    "fact.unpack": loops.unpack, "fact.zipped": loops.zipped, "fact.lambda": loops.lambda_,
    "fact.except": loops.except_, "fact.append": loops.append, "fact.update": loops.update,
    "fact.isa": loops.isa, "fact.some": rustvals.some, "fact.each": elements.each,
    "fact.decorated": lambda out, caps: _py_decorators(out, caps["fact.decorated"][0]),
    "fact.xcall": _xcall,
    "fact.bind": lambda out, caps: assigns.declared(out, caps, "fact.bind"),
    "fact.field": lambda out, caps: assigns.declared(out, caps, "fact.field"),
    "fact.ctor": lambda out, caps: assigns.declared(out, caps, "fact.ctor"),
    "fact.tparam": assigns.type_param, "fact.push": elements.push,
}


def extract(language: str, matches: list[tuple[str, dict[str, list[Any]]]],
            refs: list[tuple[str, str, str, str, int]], call_nodes: list[tuple[str, Any]],
            owner: Callable[[int], str], local_at: dict[int, tuple[str, str]],
            functions: dict[str, str], known: set[str],
            shadowed: Container[str] = frozenset()) -> list[Fact]:
    """Facts from the ``@fact.*`` matches of one file.

    Each match is ``(key, captures)``: ``key`` is its one root capture (``fact.assign``,
    ``fact.return``…, one of :data:`HANDLED`), which names its handler. ``refs``: the file's references ``(caller, kind, name, receiver, line)``;
    ``call_nodes``: (name, the name node of a call) for the arguments of calls whose
    name is a definition of the file (languages in ``ARGS``). ``owner(byte)`` gives the local qualified name enclosing a
    byte offset; ``local_at`` maps a definition node's start byte to (its local name, its
    container's); ``functions`` maps the local names of functions and methods to their
    signatures (the arguments of calls of a function are kept only if the function
    uses a parameter: :func:`_param_users`; a local variable's bindings only if it is
    read: :func:`localuse.uses`); ``known`` the names the file defines or imports (arguments
    naming anything else are dropped); ``shadowed`` the builtin names the file binds itself
    (:mod:`hindsight.codeindex.shadow`: read as ordinary calls)."""
    if not matches and not call_nodes:
        return []
    out = Bindings(language, owner, local_at)
    out.shadowed = shadowed
    globals_: dict[tuple[str, str], str] = {}  # (function, name) of `global`/`nonlocal name`
    for key, caps in matches:  # dicts and lists first: their reads may come before them
        if key == "fact.assign":
            r = caps.get("fact.rhs")
            if r and r[0].type in _CONTAINERS:
                lhs = caps["fact.lhs"][0]
                out.containers.setdefault(canon(_t(lhs)), _CONTAINERS[r[0].type])
        elif key in ("fact.global", "fact.nonlocal"):
            globals_[(out.scope(caps[key][0]), _t(caps["fact.lhs"][0]))] = key
        elif key == "fact.each":  # (two callbacks with one parameter name on a line)
            elements.seen(out, caps)
    deferred: list[tuple[Callable[[Bindings, dict[str, list[Any]]], None], dict[str, list[Any]]]] = []
    for key, caps in matches:
        if globals_ and key == "fact.assign" and caps["fact.lhs"][0].type == "identifier" \
                and (g := globals_.get((out.scope(caps[key][0]), _t(caps["fact.lhs"][0])))):
            assigns.global_(out, caps, g)  # `global _cache; _cache = Memory()`: the module's
            continue
        fn = _HANDLERS.get(key)
        if fn is None:
            continue
        if key in _LOCAL_BINDINGS and caps["fact.lhs"][0].type == "identifier" and \
                out.scope(caps[key][0]) in functions:
            deferred.append((fn, caps))  # a local variable: see localuse.uses
            rhs = caps.get("fact.rhs")  # (but `return xs` of `xs = [...]` reads its kind now)
            if rhs and rhs[0].type in _SEQS:
                out.containers.setdefault(_t(caps["fact.lhs"][0]), "seq")
        else:
            _handle(fn, out, caps)
    heads = localuse.heads_of(refs) if call_nodes or matches else []
    wanted: set[str] = set()
    if language == "python":  # a decorator that calls update_wrapper: dispatch.decorated
        out.facts += [(c, "@wraps", "", ln) for c, k, n, _r, ln in refs
                      if n == "update_wrapper" and k == "call" and c]
    if call_nodes:
        # local assignments are handled below (after their uses are known), but a
        # parameter they read (`put = cache.set`) makes the function's call sites matter
        pending = [(out.scope(caps["fact.assign"][0]), "", _read(caps["fact.rhs"][0]), 0)
                   for _fn, caps in deferred if "fact.assign" in caps and "fact.rhs" in caps]
        wanted = _param_users(heads, out.facts + pending, functions, known)
        own = {f.rpartition(".")[2] for f in functions}
        _passers(out, call_nodes, wanted, functions, [r[3] for r in refs[:len(call_nodes)]],
                 known - own)
        # what an argument to another file's function may name: definitions, imports,
        # self, and variables bound to a call of one of those (`order = Order()`)
        instances = localuse.instances(out.facts, deferred, known)
        outer = known | set(out.selfs) | instances | {c for c in out.containers if c.isidentifier()}
        callees = (known | instances) - own  # heads of another file's functions
        for i, (name, node) in enumerate(call_nodes):
            # calls of the file's functions whose parameters matter, and calls of what
            # other files define (`f(x)` of an import, `m.f(x)`, `obj.f(x)` of an instance
            # of one; not `self.m(x)`): their functions see these arguments (callsites.py)
            inside = name in wanted
            recv = head(refs[i][3]) if refs[i][3] else ""
            # (`p.add(f)` of `p = Pipeline()` is a method, not a container's `add`;
            # `self.retry.call(f)`: a method of the object an attribute holds)
            if not inside and (name in own or (name in _NOT_ELSEWHERE and recv not in instances)
                               or ((recv or name) not in callees and not (
                                   recv in out.selfs and "." in refs[i][3]))):
                continue
            call = node.parent  # `f(…)`: the call; `x.f(…)`: the attribute `x.f`
            if call is not None and call.type != "call":
                call = call.parent
            if call is not None and call.type == "call":  # not a decorator
                _call_args(out, call, None if inside else outer, functions,
                           frozenset() if recv else wanted)  # (bare calls: `_passers`)
        chains.call_receivers(out, call_nodes, [r[3] for r in refs[:len(call_nodes)]])
    if deferred:
        out.functions = functions
        out.uses = None if KEEP_LOCALS.get() else localuse.uses(
            heads, out.facts, out.args, functions)
        for fn, caps in reversed(deferred):  # a use comes after its binding: see it first
            _handle(fn, out, caps)
    return _redacted(_prune(out, known, functions, wanted))


PROVIDES = "@provides"
"""Receiver-fact target of a key the file provides beyond its path and module (value
``sub:<base class name>``, ``arg:<name of a function it passes arguments to>``,
``impl:<Rust type name>``, ``ext:<C# extension method name>``, ``ns:<C# namespace>``,
``partial:<C# partial class name>``): how resolution finds a
class's subclasses (codeindex/dispatch.py), a function's call sites in other files
(codeindex/callsites.py), the impl blocks other files write for a Rust type
(codeindex/rustimpl.py) and C# extension methods (codeindex/namespaces.py), and what
incremental re-resolution follows (each prefix is in :data:`PROVIDED_PREFIXES`)."""
PROVIDED_PREFIXES = ("sub:", "arg:", "impl:", "ext:", "ns:", "partial:")


def provided_facts(refs: list[tuple[str, str, str, str, int]], facts: list[Fact],
                   imports: list[tuple[str, str, str, str, int]]) -> list[Fact]:
    """``("", PROVIDES, key, digest)`` for each key of the file (see :data:`PROVIDES`).
    For ``sub:<name>`` the digest (CRC-32 of the classes naming ``<name>`` as a base and
    of the imports that bind the names those bases use) changes only when what decides
    the file's subclasses of ``<name>`` changes (incremental re-resolution compares it:
    indexer._affected); for ``arg:<name>`` it is that of the arguments passed (lines
    left out: a file whose call sites were read is a dependency by its path too)."""
    subs: dict[str, list[tuple[str, ...]]] = {}
    for c, k, n, r, _l in refs:
        if k == "inherits":
            subs.setdefault(n, []).append((c, n, r))
    out: list[Fact] = []
    for name, rows in sorted(subs.items()):
        heads = {name} | {r.partition(".")[0] for _c, _n, r in rows if r}
        used = sorted((m, n, a) for _o, m, n, a, _l in imports if a in heads or n in heads)
        digest = zlib.crc32(repr((sorted(rows), used)).encode("utf-8")) & 0x7FFFFFFF
        out.append(("", PROVIDES, f"sub:{name}", digest))
        # a base imported under another name (`from base import Base as B`) is also a
        # subclass of the name it has where it is defined
        out += [("", PROVIDES, f"sub:{n}", digest) for n in sorted(
            {n for _o, _m, n, a, _l in imports if a == name and n and n != name})]
    args: dict[str, list[tuple[str, str, str]]] = {}
    for scope, target, v, _l in facts:
        if "@" in target and target[0] != "@":
            last = target.rpartition("@")[0].rpartition(".")[2].rpartition(":")[2]
            last = last[:-2] if last.endswith("()") else last  # `@register("x")`: register
            if last.isidentifier():
                args.setdefault(f"arg:{last}", []).append((scope, target, v))
    return out + [("", PROVIDES, k, zlib.crc32(repr(sorted(rows)).encode("utf-8")) & 0x7FFFFFFF)
                  for k, rows in sorted(args.items())]


def _redacted(facts: list[Fact]) -> list[Fact]:
    """``facts`` with secrets redacted from targets and values. An access path holds free
    text only in the string literal of a subscript (``headers['…']``): facts without a
    quote are kept as they are, and one quick check
    (:func:`hindsight.redact.may_hold_secret`) clears most files that have quotes."""
    if not facts:
        return facts
    text = "\n".join([t for f in facts for t in (f[1], f[2])])
    if ("'" not in text and '"' not in text and "`" not in text) or not may_hold_secret(text):
        return facts
    return [(f[0], clean(f[1]), clean(f[2]), f[3]) if _QUOTES.search(f[1] + f[2]) else f
            for f in facts]


_QUOTES = re.compile("['\"`]")


_LOCAL_BINDINGS = frozenset({"fact.assign", "fact.bind"})
HANDLED = frozenset(_HANDLERS) | {"fact.global", "fact.nonlocal"}  # root captures of `@fact.*`


def _read(rhs: Any) -> str:
    """Text of what assigned value ``rhs`` reads: the first argument of ``getattr(api,
    name)`` and the other builtin reads (Bindings._py_builtin), else its own text."""
    fn = rhs.child_by_field_name("function") if rhs.type == "call" else None
    args = rhs.child_by_field_name("arguments") if fn is not None and \
        fn.type == "identifier" and _t(fn) in _PY_READS else None
    return _t(args.named_children[0]) if args is not None and args.named_child_count else _t(rhs)


def _param_users(heads: list[tuple[str, str, str]], facts: list[Fact],
                 functions: dict[str, str], known: set[str]) -> set[str]:
    """Names of the file's functions whose parameters may need values from call sites:
    a call in them or in a function nested in them has a receiver or callee named like
    a word of their parameter list, and unlike anything the file defines or imports, or
    a binding there takes such a value (``self.cb = cb``). A class stands for its
    ``__init__``."""
    params: dict[str, set[str]] = {}
    for local, sig in functions.items():
        found = _WORD.findall(sig.partition("(")[2])
        words = set(found)
        if "." in local and found and found[0] in ("self", "cls"):
            words.discard(found[0])  # the receiver (`def add(self, cls)`: cls is a value)
        if words:
            params[local] = words
    out: set[str] = set()
    if not params:
        return out
    words = set().union(*params.values())  # (a known name in no parameter list: cheap)

    def note(scope: str, name: str) -> None:
        while scope:
            p = params.get(scope)
            if p is not None and name in p:
                name = scope.rpartition(".")[2]
                out.add(scope.rpartition(".")[0].rpartition(".")[2] if name == "__init__"
                        else name)
            scope = scope.rpartition(".")[0]

    for caller, recv, name in heads:
        # (a wildcard import's alias is "", so "" may be in ``known``; a known name is
        # a parameter's only when one is so named: `def go(helper): helper()`)
        if caller and (not recv or recv not in known) and (name not in known or (
                name in words and _named_param(functions, caller, name))):
            note(caller, name)
    for scope, _target, v, _l in facts:
        if scope in params:
            note(scope, head(v))
    return out


def _named_param(functions: dict[str, str], scope: str, name: str) -> bool:
    """Whether a function around ``scope`` (itself included) has a parameter ``name``."""
    pat = re.compile(rf"[(,*]\s*{re.escape(name)}\s*[:=,)]")
    while scope:
        sig = functions.get(scope)
        if sig is not None and pat.search(sig):
            return True
        scope = scope.rpartition(".")[0]
    return False


def _passers(out: Bindings, call_nodes: list[tuple[str, Any]], wanted: set[str],
             functions: dict[str, str], receivers: list[str] | None = None,
             imported: set[str] | frozenset[str] = frozenset()) -> None:
    """Add to ``wanted`` the functions that pass one of their own parameters to a function
    in it (``def critical(lock): with locked(lock)``: critical's call sites give locked
    its value), until none is added (a chain of such calls in one file), or by a bare
    call to a name the file imports (``validate(ctx)`` of ``from handlers import
    validate``: the other file's function may use it; callgraph_blind10)."""
    words = {f: set(_WORD.findall(sig.partition("(")[2])) - {"self", "cls"}
             for f, sig in functions.items()}
    grew = True
    while grew:
        grew = False
        for i, (name, node) in enumerate(call_nodes):
            if name not in wanted and not (name in imported and receivers is not None
                                           and i < len(receivers) and not receivers[i]):
                continue
            call = node.parent if node.parent is None or node.parent.type == "call" \
                else node.parent.parent
            args = call.child_by_field_name("arguments") if call is not None and \
                call.type == "call" else None
            scope = out.owner(call.start_byte) if args is not None else ""
            own = words.get(scope)
            if not own or args is None:
                continue
            passed = {_t(a.child_by_field_name("value") if a.type == "keyword_argument"
                         else a) for a in args.named_children}
            short = scope.rpartition(".")[2]
            short = scope.rpartition(".")[0].rpartition(".")[2] if short == "__init__" else short
            if passed & own and short not in wanted:
                wanted.add(short)
                grew = True


def _prune(out: Bindings, known: set[str], functions: dict[str, str],
           wanted: set[str]) -> list[Fact]:
    """Drop ``?`` facts of targets the same scope never binds to a path, arguments whose
    value names nothing the file knows (nor a parameter of the calling function), and
    repeats of a fact (both parts of a chain ``a = b = C()`` bind ``b``; one call passing
    the same value twice on one line)."""
    paths = {(s, t) for s, t, v, _l in out.facts if v != "?"}
    facts = [f for f in out.facts if f[2] != "?" or (f[0], f[1]) in paths]
    bound = {t for _s, t, _v, _l in facts} | known | set(SPECS[out.language].self_names)
    for f in out.args:
        v = f[2]
        head = v[1:] if v.startswith("&") else (parse(v) or ("",))[0]
        if v.startswith("&") or head in bound or head.partition("[")[0] in bound or \
                _param_of(out, f[0], head, functions, wanted):
            facts.append(f)
    return list(dict.fromkeys(facts))
