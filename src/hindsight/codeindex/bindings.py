"""Bindings seen in one file: the fact list a file's matches add to, and how a node
becomes an access path (a value) or a bound name (a target); receivers.py, in workers."""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from contextvars import ContextVar
from typing import Any

from hindsight.codeindex import pynodes as pn
from hindsight.codeindex import rustvals
from hindsight.codeindex.elements import iterable as loop_iterable
from hindsight.codeindex.exprs import canon, parse
from hindsight.codeindex.languages import SPECS
from hindsight.codeindex.types import type_value
from hindsight.codeindex.unpack import columns, elements, unpack
from hindsight.codeindex.values import MAX_TARGETS

Fact = tuple[str, str, str, int]
LITERAL = {"dict": "{}", "seq": "[]"}
"""Fact values of a name bound to a dict or list literal (the value is no path; its
elements have facts of their own)."""
SCOPED = "^"
"""Suffix of the fact target ``x^`` whose value is the last line (1-based) where the
binding of ``x`` at the fact's line is visible: a comprehension's, a lambda's or an
``except … as`` variable (no use outside it sees that binding)."""
BRANCH = "~"
"""Suffix of the fact target ``x~`` whose value is the last line (1-based) of the branch
or loop body that binds ``x`` at the fact's line: a use after that line may still see
the binding before (``h = f`` then ``if c: h = g``: ``h()`` after the ``if`` is either)."""
GLOBAL = "~g"
"""Suffix of the fact target ``x~g`` of the module scope: ``x`` is bound at the fact's
line by a function that declares ``global x``; that function may not have run, so a
use may still see the module's binding before (classes.bound)."""
NARROW = "!"
"""Prefix of the value ``!x!A|B``: ``x`` narrowed to instances of A or B (loops.isa)."""
AFTER = "<"
"""Prefix of a fact value evaluated as of the line after the fact's (a comprehension's
variable, bound on the line before its clause so that the clause's line sees it)."""
_NONE = frozenset({"None", "null", "undefined", "nil"})
_NOTHING = frozenset({"none", "null", "undefined", "nil", "null_literal", "unit_expression"})
# call node type → the field holding what is called
_CALL_TYPES = {"call": "function", "call_expression": "function",
               "invocation_expression": "function", "new_expression": "constructor"}
# construction node type → the field holding the type constructed
_CONSTRUCT = {"object_creation_expression": "type", "composite_literal": "type",
              "struct_expression": "name"}
# member access node type → (object field, name field)
_MEMBER_TYPES = {"attribute": ("object", "attribute"), "member_expression": ("object", "property"),
                 "field_access": ("object", "field"), "selector_expression": ("operand", "field"),
                 "field_expression": ("value", "field"),
                 "member_access_expression": ("expression", "name")}
NAMES = frozenset({"identifier", "this", "self", "this_expression", "field_identifier",
                    "property_identifier", "shorthand_property_identifier"})
_UNWRAP = frozenset({"await", "parenthesized_expression", "await_expression",
                     "non_null_expression", "reference_expression", "try_expression",
                     "generic_function"})
_LITERALS = frozenset({"dictionary", "list", "tuple", "array", "object", "set"})
_ALTERNATIVES = frozenset({"conditional_expression", "ternary_expression",  # and `(x)`:
                           "boolean_operator", "parenthesized_expression"})  # its inside
_SPREADS = frozenset({"list_splat", "dictionary_splat", "spread_element"})
_NO_KEY = ("keyword_argument", "list_splat")
_ENTERS = {"enter_context": ".__enter__()", "enter_async_context": ".__aenter__()"}
_PY_READS = frozenset({"next", "getattr", "partial", "min", "max", "iter", "sorted",
                       "reversed", "list", "tuple"})
_PY_SAME = frozenset({"iter", "sorted", "reversed", "list", "tuple"})  # the same elements
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"})
_BUILTIN_FACTORIES = frozenset({"list", "dict", "set", "int", "float", "str", "tuple",
                                "bool", "bytes", "frozenset", "object"})


def _t(n: Any) -> str:
    return n.text.decode("utf-8", "replace") if n is not None else ""


def _line(n: Any) -> int:
    return int(n.start_point[0]) + 1


KEEP_LOCALS: ContextVar[bool] = ContextVar("KEEP_LOCALS", default=False)
"""True: keep every local variable's bindings, read or not (query time: a property read
``x.p`` on ``x = C()`` is no call, so the index does not keep ``x``; propreads.py)."""

class Bindings:
    """The facts of one file as its matches are handled: ``facts`` and ``args``
    (arguments, kept apart until pruning), with the file's ``owner`` and ``local_at``
    maps (see :func:`hindsight.codeindex.receivers.extract`)."""

    __slots__ = ("facts", "args", "owner", "local_at", "language", "selfs", "chained", "uses",
                 "functions", "_scopes", "containers", "shadowed", "eaches")

    def __init__(self, language: str, owner: Callable[[int], str],
                 local_at: dict[int, tuple[str, str]]) -> None:
        self.language = language
        self.facts: list[Fact] = []
        self.args: list[Fact] = []
        self.owner = owner
        self.local_at = local_at
        self.selfs = SPECS[language].self_names
        self.chained: set[int] = set()
        self.uses: dict[str, set[str]] | None = None
        self.functions: dict[str, str] = {}
        self._scopes: dict[int, str] = {}  # start byte -> scope (see :meth:`scope`)
        # access path -> "dict" or "seq": bound to such a literal, or filled by `d[k] = v`
        # / `xs.append(v)` (so `d.get(k)` and `xs.pop()` read its values: _py_builtin)
        self.containers: dict[str, str] = {}
        self.shadowed: Container[str] = frozenset()  # builtin names the file binds: shadow.py
        self.eaches: list[tuple[int, int, str, str]] = []  # callbacks' params: elements.each

    def scope(self, node: Any) -> str:
        """The scope a statement binds in: its owner, or the owner's container when the
        statement is itself a definition (a module constant). Depends only on the start
        byte, so it is computed once per byte."""
        sb = node.start_byte
        s = self._scopes.get(sb)
        if s is None:
            o = self.owner(sb)
            d = self.local_at.get(sb)
            s = self._scopes[sb] = d[1] if d is not None and d[0] == o else o
        return s

    def local(self, node: Any) -> str:
        """Local name of the definition starting at ``node`` (``""`` if none)."""
        d = self.local_at.get(node.start_byte)
        return d[0] if d is not None else ""

    def value(self, node: Any) -> str | None:
        """Access path of an assigned value; ``None`` for a nothing value (``None``,
        ``null``), ``?`` for what is no path. Built from the nodes, so a call's
        arguments are never read."""
        if node is None:
            return "?"
        t = node.type
        if t in NAMES:
            s = node.text.decode("utf-8", "replace")
            return None if s in _NONE else s
        if t in pn.OPERATORS and self.language == "python" and (op := pn.operator_call(node)):
            v = self.value(op[0])  # `a + b`: what `a.__add__(b)` returns (pynodes)
            return f"{v}.{op[1]}()" if v and v != "?" else "?"
        if t in ("call", "subscript") and self.language == "python":  # (`sorted(xs)[0]`)
            base = node.child_by_field_name("value") if t == "subscript" else node
            v = self._py_builtin(base) if base is not None and base.type == "call" else None
            if v is not None:
                return v if base is node else canon(v + _t(node)[base.end_byte - node.start_byte:])
        if self.language == "rust" and t in ("call_expression", "try_expression"):
            v = rustvals.value(self, node)
            if v is not None:
                return v
        if t in _CALL_TYPES:
            fn = node.child_by_field_name(_CALL_TYPES[t])
            if self.language == "go" and fn is not None and fn.text == b"new":  # `new(T)`
                args = node.child_by_field_name("arguments")
                return type_value(_t(args.named_children[0]), "go") or "?" if args is not None \
                    and args.named_child_count == 1 else "?"
            v = self.value(fn) if fn is not None else "?"
            return f"{v}()" if v and v != "?" else "?"
        if t in _CONSTRUCT:
            typ = node.child_by_field_name(_CONSTRUCT[t])
            return type_value(_t(typ), self.language) or "?" if typ is not None else "?"
        if t == "method_invocation":  # Java: [object.]name(arguments)
            obj = node.child_by_field_name("object")
            name = node.child_by_field_name("name")
            v = self.value(obj) if obj is not None else ""
            if name is None or v in ("?", None):
                return "?"
            return f"{v}.{_t(name)}()" if v else f"{_t(name)}()"
        if t in _MEMBER_TYPES:
            obj_f, name_f = _MEMBER_TYPES[t]
            obj = node.child_by_field_name(obj_f)
            name = node.child_by_field_name(name_f)
            v = self.value(obj) if obj is not None else "?"
            if not v or v == "?" or name is None:
                return "?"
            return f"{v}.{name.text.decode('utf-8', 'replace')}"
        if t in _NOTHING:
            return None
        if t in _UNWRAP and node.named_child_count >= 1:
            return self.value(node.named_child(0))
        if t == "unary_expression" and node.text[:1] in (b"&", b"*"):  # Go &T{}, *p
            return self.value(node.named_child(0)) if node.named_child_count else "?"
        if t in ("as_expression", "cast_expression") and node.named_child_count == 2:
            kid = node.named_child(1 if t == "as_expression" else 0)
            return type_value(_t(kid), self.language) or "?"
        if node.end_byte - node.start_byte > 200:
            return "?"
        return canon(_t(node)) or "?"

    def _py_builtin(self, call: Any) -> str | None:
        """``next(it)`` is an element of ``it``, as ``min(xs, key=…)`` and ``max(xs)`` are
        one of ``xs``; ``iter(xs)``, ``sorted(xs, key=…)``, ``reversed(xs)``, ``list(xs)``
        and ``tuple(xs)`` hold the elements of ``xs``; ``getattr(x, "m")`` is ``x.m`` (with a computed name, the default);
        ``functools.partial(f, …)`` is ``f`` (calling it runs ``f``);
        ``stack.enter_context(cm)`` is what ``cm.__enter__()`` gives; on a name
        bound to a dict (:attr:`containers`), ``d.get(k)``, ``d.pop(k)`` and
        ``d.setdefault(k, …)`` are ``d['k']`` for a string key, else ``d[?]``; on one bound
        to a list, tuple or set, ``xs.pop()`` is ``xs[*]``. ``None`` for other calls and
        when an argument is no access path."""
        fn = call.child_by_field_name("function")
        if fn is None:
            return None
        args = call.child_by_field_name("arguments")
        kids = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        if _t(fn) in pn.CASTS and _t(fn).partition(".")[0] not in self.shadowed:
            return pn.cast_value(kids)  # `typing.cast(Svc, v)`: a Svc
        if fn.type == "attribute":
            method = _t(fn.child_by_field_name("attribute"))
            if _t(fn) in ("copy.copy", "copy.deepcopy") and len(kids) == 1 and \
                    "copy" not in self.shadowed:
                v = self.value(kids[0])  # a copy of an object is an object of its class
                return v if v and v != "?" else None
            if ((_t(fn) == "functools.partial" and "functools" not in self.shadowed)
                    or method in _ENTERS) and kids and \
                    kids[0].type not in ("keyword_argument", "list_splat"):
                v = self.value(kids[0])  # `stack.enter_context(cm)`: what cm's enter gives
                return (v + _ENTERS.get(method, "")) if v and v != "?" else None
            return self._container_read(fn, kids)
        name = _t(fn) if fn.type == "identifier" else ""
        if name in self.shadowed:
            return None
        if name == "type" and len(kids) == 1 and _t(kids[0]) in self.selfs:
            return f"type({_t(kids[0])})"  # the receiver's class (table.OWN_CLASS)
        if name not in _PY_READS or not kids or kids[0].type in ("keyword_argument", "list_splat"):
            return None
        if name in ("min", "max") and any(  # `min(xs, key=…)`, not `min(a, b)`
                k.type not in ("keyword_argument", "comment") for k in kids[1:]):
            return None
        v = self.value(kids[0])
        if not v or v == "?":
            return None
        if name in ("next", "min", "max"):
            return f"{v}[*]"
        if name in _PY_SAME:  # `sorted(tasks, key=…)[0]`, `next(iter(ws))`: xs's elements
            return v if all(k.type in ("keyword_argument", "comment") for k in kids[1:]) else None
        if name == "partial":
            return v
        attr = pn.plain_string(kids[1]) if len(kids) in (2, 3) else ""
        prefix = pn.name_prefix(kids[1]) if len(kids) in (2, 3) and not attr else ""
        if prefix:  # `getattr(self, "visit_" + kind)`: a member named so (flow.member)
            return f"{v}.{prefix}$"  # (a default: default_of)
        if len(kids) == 3 and not attr and kids[2].type in ("identifier", "attribute"):
            d = self.value(kids[2])  # `getattr(self, "visit_" + kind, self.generic_visit)`:
            return d if d and d != "?" else None  # the default (the name is not known)
        if len(kids) == 2 and kids[1].type == "identifier" and self.owner(
                kids[1].start_byte).endswith(".__getattr__"):  # `getattr(self._inner, name)`
            return v  # what `__getattr__` delegates to (hierarchy.delegated)
        return f"{v}.{attr}" if attr.isidentifier() and len(kids) == 2 else None

    def _container_read(self, fn: Any, kids: list[Any]) -> str | None:
        """``d.get(k)`` & co. of a known dict or list (see :meth:`_py_builtin`)."""
        method = _t(fn.child_by_field_name("attribute"))
        if method not in ("get", "pop", "setdefault"):
            return None
        obj = fn.child_by_field_name("object")
        base = self.value(obj) if obj is not None else None
        kind = self.containers.get(base) if base else None
        if kind == "seq" and method == "pop" and len(kids) <= 1:
            return f"{base}[*]"
        if kind not in ("dict", None) or not kids or kids[0].type in _NO_KEY:
            return None
        key = k if "'" not in (k := pn.plain_string(kids[0])) else ""
        n = _t(kids[0]) if kids[0].type == "integer" and _t(kids[0]).isdigit() else ""
        if kind is None:  # `hs.get('k')` of `hs = handlers()`: key kept for Flow.eval;
            ok = method == "get" and base and "(" not in base  # `cls.OPS.get(op)`: any
            return (f"{base}.get()" + (f"[~{repr(key) if key else int(n)}]" if key or n
                                       else "")) if ok else None
        return f"{base}['{key}']" if key else f"{base}[{int(n)}]" if n else f"{base}[?]"

    def default_of(self, node: Any, unknown: tuple[str, ...] = ("get",)) -> Any:
        """The default of ``d.get(k, default)`` / ``d.pop(k, default)`` /
        ``d.setdefault(k, default)`` on a known dict (of any value: the methods in
        ``unknown``), and of ``getattr(x, "p_" + k, default)``, else ``None``."""
        if node.type != "call" or self.language != "python":
            return None
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        kids = [c for c in args.named_children if c.type != "comment"] if args else []
        if fn is not None and _t(fn) == "getattr" and len(kids) == 3 and \
                "getattr" not in self.shadowed and pn.name_prefix(kids[1]):
            return kids[2]  # `getattr(self, "visit_" + k, self.generic_visit)`
        method = _t(fn.child_by_field_name("attribute")) if fn and fn.type == "attribute" else ""
        if len(kids) != 2 or kids[1].type in _NO_KEY or method not in ("get", "pop", "setdefault"):
            return None
        base = self.value(fn.child_by_field_name("object"))
        kind = self.containers.get(base) if base else None  # (any `.get(k, f)`: f too)
        return kids[1] if base and (kind == "dict" or kind is None and method in unknown) \
            else None

    def alternatives(self, node: Any) -> list[Any]:
        """The values an expression may take that are each its whole value: both arms of
        ``a if c else b`` (``c ? a : b``) and both sides of ``a or b``, nested ones too,
        else ``[node]``; ``[]`` when there are more than ``MAX_TARGETS`` (a union that
        large is unknown anyway). Iterative: nesting depth does not matter."""
        out: list[Any] = []
        todo = [node]
        while todo:
            n = todo.pop()
            t = n.type
            if t == "parenthesized_expression" and n.named_child_count == 1:
                todo.append(n.named_child(0))  # (`(a if c else (b if d else e))`)
            elif t == "conditional_expression" and n.named_child_count == 3:
                todo += [n.named_child(2), n.named_child(0)]
            elif t == "ternary_expression":
                todo += [c for c in (n.child_by_field_name("alternative"),
                                     n.child_by_field_name("consequence")) if c is not None]
            elif t == "boolean_operator" and pn.is_or(n) and pn.maybe_false(n):
                todo += [c for c in (n.child_by_field_name("right"),
                                     n.child_by_field_name("left")) if c is not None]
            elif t == "call" and (several := pn.min_max_of_several(n, self.shadowed)):
                todo += several[::-1]  # `max(a, b, key=…)` is one of a, b
            else:
                out.append(n)
                if len(out) > MAX_TARGETS:
                    return []
        return out

    def bind(self, scope: str, target_node: Any, value_node: Any, line: int) -> None:
        """Facts for ``target = value``, element-wise for literals and tuples, one per
        alternative of a conditional value (:meth:`alternatives`)."""
        if value_node is not None and value_node.type == "call":
            default = self.default_of(value_node)
            if default is not None:  # `d.get(k, f)`: a value of d, or f
                self.bind(scope, target_node, default, line)
        if value_node is not None and (value_node.type in _ALTERNATIVES or (
                value_node.type == "call" and pn.min_max_of_several(value_node, self.shadowed))):
            alts = self.alternatives(value_node)
            if alts and (len(alts) > 1 or alts[0].id != value_node.id):  # not `a and b`
                for alt in alts:
                    self.bind(scope, target_node, alt, line)
                return
        tt = target_node.type
        if tt in ("pattern_list", "tuple_pattern", "list_pattern"):
            unpack(self, scope, target_node, value_node, line)
            return
        if tt == "identifier":
            target = target_node.text.decode("utf-8", "replace")
            if not self.read(scope, target):
                return
        else:
            target = canon(_t(target_node))
            segs = parse(target) if target else None
            if not segs or len(segs) > 3 or (
                    len(segs) > 1 and segs[1][0] == "." and segs[0] not in self.selfs and (
                        len(segs) > 2 or self.language != "python") and not (
                        segs[-1][0] == "[" and segs[0] in scope.split("."))) or (
                    len(segs) == 3 and segs[2][0] != "[" and segs[1][0] != "."):
                # only x, self.x, x[k], self.x[k], self.x.y, (Python) x.y, and K.x[k] in
                # a method of class K (a class attribute's dict or list: table.py)
                return
        if value_node is not None and value_node.type == "call" and \
                self.language == "python":
            copied = self.copied(value_node)
            if copied is not None:  # `ys = list(xs)`: the elements of xs
                self.containers[target] = "seq"
                for el in copied if "?" not in copied else []:
                    self.facts.append((scope, f"{target}[*]", el, line))
                    self.used(scope, el)
                return
            made = self.factory(value_node)
            if made is not None:  # `d = defaultdict(Bucket)`: d[k] is a Bucket
                self.containers[target] = "dict"
                if tt == "identifier":
                    self.facts.append((scope, target, LITERAL["dict"], line))
                if made:
                    self.facts.append((scope, f"{target}[?]", made, line))
                    self.used(scope, made)
                return
        if value_node is not None and value_node.type in _LITERALS:
            kind = "dict" if value_node.type in ("dictionary", "object") else "seq"
            self.containers[target] = kind
            if tt == "identifier":  # bound here (no path): not a module's container
                self.facts.append((scope, target, LITERAL[kind], line))
            self.elements(scope, target, value_node, line)
            return
        v = self.value(value_node)
        if v is not None:
            self.facts.append((scope, target, v, line))
            self.used(scope, v)
            if target.endswith("]") and not target.endswith(("[?]", "[*]")) and v != "?":
                # `d['k'] = f`: also a value `d[key]` may have from now on (Flow.head)
                base = target[:target.rindex("[")]
                self.facts.append((scope, base + "[+?]", v, line))
                self.containers.setdefault(base, "dict")

    def scoped(self, scope: str, name: str, value: str, line: int, end: int) -> None:
        """Bind ``name`` to ``value`` at ``line``, visible only up to line ``end`` (see
        :data:`SCOPED`)."""
        if value[:1] != AFTER and value != "?":
            value = AFTER + value  # evaluated as of the next line; marks it scoped
        self.facts.append((scope, name, value, line))
        self.facts.append((scope, name + SCOPED, str(end), line))

    def read(self, scope: str, name: str) -> bool:
        """Whether a binding of local variable ``name`` in ``scope`` is worth keeping."""
        uses = self.uses
        return uses is None or scope not in self.functions or name in uses.get(scope, ())

    def used(self, scope: str, value: str) -> None:
        """Record that ``scope`` reads the head of ``value`` (and so do its containers)."""
        if self.uses is not None:
            h = head(value)
            while True:
                self.uses.setdefault(scope, set()).add(h)
                if not scope:
                    break
                scope = scope.rpartition(".")[0]

    def element(self, node: Any) -> list[str]:
        """Access paths of an element of ``node`` (the variable of a loop over it): each
        distinct value of a literal's elements (in order; ``["?"]`` when one is no path
        or there are more than ``MAX_TARGETS``), else ``[<path>[*]]``, else ``["?"]``."""
        if node.type in ("list", "tuple", "array", "set"):
            vals: list[str] = []
            for c in node.named_children:
                if c.type == "comment":
                    continue
                v = self.value(c)
                if v is None:
                    continue
                if v == "?" or c.type in _SPREADS:
                    return ["?"]
                if v not in vals:
                    vals.append(v)
            return vals if 0 < len(vals) <= MAX_TARGETS else ["?"]
        if node.type == "call" and self.language == "python":
            copied = self.copied(node)
            if copied is not None:
                return copied
        v = loop_iterable(_t(node), "rust") if self.language == "rust" else canon(_t(node))
        if v.endswith(".values()") and len(v) > 9:  # a loop over a dict's values
            return [f"{v[:-9]}[?]"]
        if node.type == "call" and self.language == "python":
            read = self.value(node)  # `for f in self.handlers.get(k, [])`: d[?]'s elements
            if read and read != "?" and read != v:
                return [f"{read}[*]"]
        return [f"{v}[*]"] if v else ["?"]

    def copied(self, call: Any) -> list[str] | None:
        """The elements of ``list(xs)``, ``tuple(xs)``, ``set(xs)``, ``sorted(xs, …)``,
        ``reversed(xs)`` and ``filter(f, xs)`` (those of ``xs``) and of ``map(f, xs)``
        (what ``f`` returns); ``None`` for other calls."""
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if fn is None or fn.type != "identifier" or args is None:
            return None
        name = _t(fn)
        if name in self.shadowed:
            return None
        kids = [c for c in args.named_children if c.type not in ("comment", "keyword_argument")]
        if name in _COPIES and kids:
            return self.element(kids[0])
        if name in ("map", "filter") and len(kids) == 2:
            if name == "filter":
                return self.element(kids[1])
            f = self.value(kids[0])
            return [f"{f}()"] if f and f != "?" and kids[0].type != "lambda" else ["?"]
        return None

    def factory(self, call: Any) -> str | None:
        """For ``defaultdict(F)`` (also ``collections.defaultdict``): what reading a
        missing key makes, ``F()`` (``""`` for a builtin such as ``list``, a lambda or no
        argument); ``None`` for other calls."""
        fn = call.child_by_field_name("function")
        if fn is None or _t(fn) not in ("defaultdict", "collections.defaultdict") or \
                _t(fn).partition(".")[0] in self.shadowed:
            return None
        args = call.child_by_field_name("arguments")
        kids = [c for c in args.named_children if c.type != "comment"] if args else []
        v = self.value(kids[0]) if kids and kids[0].type in ("identifier", "attribute") \
            else None
        return f"{v}()" if v and v != "?" and v not in _BUILTIN_FACTORIES else ""

    def _columns(self, scope: str, target: str, lit: Any, line: int) -> None:
        """``xs[*][i]``: what position ``i`` of an element of a literal of tuples is
        (``for name, fn in xs``; see :func:`columns`)."""
        for i, vals in enumerate(columns(self, lit)):
            for v in vals:
                self.facts.append((scope, f"{target}[*][{i}]", v, line))

    def elements(self, scope: str, target: str, lit: Any, line: int) -> None:
        """Facts of the elements of literal ``lit`` bound to ``target`` (unpack.elements)."""
        elements(self, scope, target, lit, line)

def head(path: str) -> str:
    """The first name of an access path's text (``self`` of ``self.a.b``)."""
    if path.isidentifier():  # the usual cases, without the expression
        return path
    if path[:1] == AFTER:
        path = path[1:]
    first, dot, _rest = path.partition(".")
    if dot and first.isidentifier():
        return first
    m = _HEAD.match(path)
    return m.group(1) if m else ""


_HEAD = re.compile(r"\s*&?([^\s.(\[:]*)")
