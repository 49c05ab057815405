"""Receiver facts of Python assignments, ``with … as`` and ``return``/``yield``:
handlers of :mod:`hindsight.codeindex.receivers` for the ``@fact.assign``,
``@fact.with``, ``@fact.return`` and ``@fact.yield`` matches."""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.bindings import BRANCH, GLOBAL, LITERAL, NAMES, Bindings, _line, _t
from hindsight.codeindex.exprs import canon
from hindsight.codeindex.types import element_type, type_value, type_values, value_type
from hindsight.codeindex.values import MAX_TARGETS

_PY_TARGETS = frozenset({"identifier", "attribute", "subscript", "pattern_list", "list_pattern",
                         "tuple_pattern"})
_PY_VALUES = frozenset({"call", "identifier", "attribute", "subscript", "await", "dictionary",
                        "parenthesized_expression",
                        "list", "tuple", "set", "expression_list", "assignment",
                        "conditional_expression", "boolean_operator", "binary_operator",
                        "comparison_operator"})


_CONTAINER_TYPES = frozenset({
    "dict", "list", "set", "tuple", "frozenset", "Dict", "List", "Set", "Tuple", "FrozenSet",
    "typing.Dict", "typing.List", "typing.Set", "typing.Tuple", "Mapping", "MutableMapping",
    "Sequence", "MutableSequence", "typing.Mapping", "typing.Sequence"})


def py_assign(out: Bindings, caps: dict[str, list[Any]]) -> None:
    node = caps["fact.assign"][0]
    r = caps.get("fact.rhs")
    if r and r[0].type in _COMPREHENSIONS and "fact.type" not in caps:
        _comprehension(out, node, caps["fact.lhs"][0], r[0])
        return
    if r and r[0].type not in _PY_VALUES and "fact.type" not in caps:
        left = caps["fact.lhs"][0]  # `x = 1`, `x = "s"`: no access path (the query
        if left.type == "identifier" and _t(left) in out.containers:  # matches any value)
            # but a container bound before is gone: `d = {…}; d = None` (reaching.py)
            out.facts.append((out.scope(node), _t(left), "?", _line(node)))
        return
    left = caps["fact.lhs"][0]
    lt = left.type
    if lt == "identifier":
        if not out.read(out.scope(node), left.text.decode("utf-8", "replace")):
            return
    elif lt not in _PY_TARGETS:
        return
    ty = caps.get("fact.type")
    typ = ty[0] if ty else None
    rnode = r[0] if r else (node.child_by_field_name("right") if typ is not None else None)
    if typ is None and (rnode is None or rnode.type not in _PY_VALUES):
        return
    targets = [left]
    if rnode is not None and rnode.type == "assignment":  # a = b = v
        if out.chained and node.id in out.chained:
            return  # the inner part of a chain: bound with the outer one
        while rnode is not None and rnode.type == "assignment":
            out.chained.add(rnode.id)
            targets.append(rnode.child_by_field_name("left"))
            rnode = rnode.child_by_field_name("right")
    scope = out.scope(node)
    line = _line(node)
    declared = type_value(_t(typ), "python") if typ is not None else ""
    alts = type_values(_t(typ), "python") if typ is not None and not declared and \
        rnode is None else ()  # (`x: A | B = A()`: the value is narrower)
    each = element_type(_t(typ), "python") if typ is not None else ""
    for tn in targets:
        if tn is None:
            continue
        if declared and rnode is None and declared[:-2] in _CONTAINER_TYPES:
            # `d: dict` binds nothing; a fact would hide what `d` holds (reaching.py), but
            target = canon(_t(tn))  # a dataclass's `jobs: list[Job]` holds Jobs
            if target:
                _held(out, scope, target, _t(typ), each, line)
        elif declared or alts:  # a declared type wins over the value (`A | B`: either)
            target = canon(_t(tn))
            for d in (declared,) if declared and target else alts if target else ():
                out.facts.append((scope, target, d, line))
                out.used(scope, d)
                _held(out, scope, target, _t(typ), each, line)  # `jobs: list[Job] = []`
        elif rnode is not None:
            out.bind(scope, tn, rnode, line)
        if out.language == "python" and (tn.type == "identifier" or (
                scope.endswith(".__init__") and _self_attr(out, tn))):
            end = branch_fact(node, tn)  # (`self.x` in `__init__`: hierarchy.instance_shadow)
            if end:  # this binding may not happen: Flow.pick keeps the one before too
                out.facts.append((scope, _t(tn) + BRANCH, end, line))


def _held(out: Bindings, scope: str, target: str, typ: str, each: str, line: int) -> None:
    """Facts of what a declared collection holds: ``target[*]`` its elements (``list[Job]``:
    ``each``), ``target[?]`` its values at any key (``dict[str, Handler]``)."""
    for part, v in (("[*]", each), ("[?]", value_type(typ, "python"))):
        if v:
            out.facts.append((scope, target + part, v, line))
            out.used(scope, v)


def _self_attr(out: Bindings, node: Any) -> bool:
    """Whether ``node`` is ``self.<name>``."""
    obj = node.child_by_field_name("object") if node.type == "attribute" else None
    return obj is not None and _t(obj) in out.selfs


def global_(out: Bindings, caps: dict[str, list[Any]], key: str = "fact.global") -> None:
    """``name = value`` in a function that declares ``global name``: a binding of the
    module's ``name`` that may or may not have run when the name is read (the module's
    earlier binding stays a value too: :data:`~hindsight.codeindex.bindings.GLOBAL`).
    With ``key`` ``fact.nonlocal`` (``nonlocal name``), a binding of the enclosing
    function's ``name`` that may or may not have run (its earlier one stays a value too:
    a branch ending at the line, :data:`~hindsight.codeindex.bindings.BRANCH`); the
    closures reading it see both (session 40)."""
    node, r = caps["fact.assign"][0], caps.get("fact.rhs")
    v = out.value(r[0]) if r and r[0].type in _PY_VALUES else None
    if v and v != "?":
        name, line = _t(caps["fact.lhs"][0]), _line(node)
        outer, mark = ("", GLOBAL) if key == "fact.global" else \
            (out.scope(node).rpartition(".")[0], BRANCH)
        out.facts += [(outer, name, v, line), (outer, name + mark, str(line), line)]
        out.used(outer, v)


_COMPREHENSIONS = frozenset({"list_comprehension", "set_comprehension",
                             "generator_expression", "dictionary_comprehension"})


def _comprehension(out: Bindings, node: Any, left: Any, comp: Any) -> None:
    """``files = [open_(n) for n in names]``: an element of ``files`` is the value of
    the comprehension's body (as :func:`returned_elements` reads a returned one); the
    value at any key of ``pool = {n: Worker(n) for n in names}`` is ``Worker(n)``."""
    if left.type not in ("identifier", "attribute"):
        return
    scope, target = out.scope(node), canon(_t(left))
    if not target or (left.type == "identifier" and not out.read(scope, target)):
        return
    body = comp.child_by_field_name("body")
    kind, el = "seq", "[*]"
    if comp.type == "dictionary_comprehension":  # `{n: W(n) for n in ns}`: any key's value
        kind, el = "dict", "[?]"
        body = body.child_by_field_name("value") if body is not None else None

    v = out.value(body) if body is not None else None
    out.containers[target] = kind
    if left.type == "identifier":  # bound to a container (its elements have facts of their
        out.facts.append((scope, target, LITERAL[kind], _line(node)))  # own): a rebinding
    if v and v != "?":
        out.facts.append((scope, target + el, v, _line(node)))
        out.used(scope, v)


_BRANCHES = frozenset({"if_statement", "elif_clause", "else_clause", "for_statement",
                       "while_statement", "try_statement", "except_clause", "case_clause"})
_SCOPES = frozenset({"function_definition", "class_definition", "module", "lambda"})


def _branch_block(node: Any) -> Any:
    """The innermost branch or loop body around ``node`` within its function, or None."""
    n = node.parent
    while n is not None and n.type not in _SCOPES:
        if n.type == "block" and n.parent is not None and n.parent.type in _BRANCHES:
            return n
        n = n.parent
    return None


_LEAVES = frozenset({"return_statement", "raise_statement"})
_MAX_ARMS = 40  # children of an if statement read for every-arm bindings (break-it: 2,500)
_ODD_KEY = re.compile(r"['\"\\\[\]{}]|^\s|\s$")  # a key no access path spells


def branch_fact(node: Any, target: Any) -> str:
    """The ``x~`` fact of the binding ``node`` of name ``target`` (reaching.branch_ends):
    ``""`` outside a branch or loop body; else the body's last line (1-based), followed
    by ``!`` when the body ends with ``return``/``raise``, by ``/<last line of the if>``
    when later arms of its ``if`` follow (a use there never sees it), or by ``:<line of the if>``
    when it is the last binding of the name in an arm of an ``if``/``elif``/``else``
    (not itself in a branch) whose every arm binds the name at its top level."""
    block = _branch_block(node)
    if block is None:
        return ""
    end = str(int(block.end_point[0]) + 1)
    stmts = [c for c in block.named_children if c.type != "comment"]
    if stmts and stmts[-1].type in _LEAVES:
        return end + "!"
    ifs = block.parent if block.parent.type == "if_statement" else block.parent.parent
    later = _later_arms_end(block)
    if later:
        end += f"/{later}"  # later arms (up to that line) never see it
    st = node.parent
    if ifs is None or ifs.type != "if_statement" or st is None or st.parent != block or \
            ifs.child_count > _MAX_ARMS or _branch_block(ifs) is not None:
        return end  # a long elif chain: each arm would be read once per binding
    arms = [ifs.child_by_field_name("consequence")] + [
        c.child_by_field_name("consequence") if c.type == "elif_clause" else
        c.child_by_field_name("body")
        for c in ifs.children_by_field_name("alternative")]
    if not arms or ifs.children_by_field_name("alternative")[-1:] == [] or \
            ifs.children_by_field_name("alternative")[-1].type != "else_clause":
        return end
    name = target.text
    last = [None if a is None else _last_binding(a, name) for a in arms]
    if any(x is None for x in last) or not any(x == st for x in last):
        return end
    return f"{end.partition('/')[0]}:{int(ifs.start_point[0]) + 1}"


_ARMS = {"if_statement": ("elif_clause", "else_clause"),
         "try_statement": ("except_clause", "except_group_clause", "else_clause"),
         "match_statement": ("case_clause",)}
_LOOPS = frozenset({"for_statement", "while_statement"})


def _later_arms_end(block: Any) -> int:
    """Last line (1-based) of the arms of the ``if``/``try``/``match`` statement that
    follow arm ``block`` (a later ``elif``/``else``, ``except`` or ``case`` never sees a
    binding of an earlier one), or 0: none follow, or a loop around the statement may
    run the earlier arm before (break-it of session 34)."""
    arm = block.parent
    if arm.type == "try_statement":
        return 0  # the try body: every except clause may see its bindings
    st = arm if arm.type in _ARMS else arm.parent
    if st is not None and st.type == "block":  # a case clause: in the match's body
        st = st.parent
    if st is None or st.type not in _ARMS:
        return 0
    kinds = _ARMS[st.type]
    arms = [c for c in (st.named_children if st.type != "match_statement" else
                        block.parent.parent.named_children) if c.type in kinds]
    if not arms or arms[-1].end_byte <= block.end_byte:
        return 0
    n = st.parent
    while n is not None and n.type not in _SCOPES:
        if n.type in _LOOPS:
            return 0
        n = n.parent
    return int(arms[-1].end_point[0]) + 1


def _last_binding(block: Any, name: bytes) -> Any:
    """The last top-level statement of ``block`` that is ``name = …``, or None."""
    for st in reversed(block.named_children):
        if st.type == "expression_statement" and st.named_child_count == 1:
            a = st.named_children[0]
            left = a.child_by_field_name("left") if a.type == "assignment" else None
            if left is not None and left.type == "identifier" and left.text == name:
                return st
    return None


_NO_VALUE = frozenset({"expression_list", "tuple", "list", "set", "list_comprehension",
                       "set_comprehension", "generator_expression",
                       "dictionary_comprehension"})


def returned_elements(out: Bindings, node: Any) -> list[str]:
    """Access paths of an element of a returned value (see :func:`_returned`)."""
    t = node.type
    if t in ("list_comprehension", "set_comprehension", "generator_expression"):
        body = node.child_by_field_name("body")
        v = out.value(body) if body is not None else None
        return [v] if v and v != "?" else []
    if t in ("list", "tuple", "set") or (t == "call" and out.copied(node) is not None):
        vals = out.element(node)
        return [] if "?" in vals else vals
    if t in ("identifier", "attribute"):
        v = out.value(node)
        return [f"{v}[*]"] if v and out.containers.get(v) == "seq" else []
    return []


def with_(out: Bindings, caps: dict[str, list[Any]]) -> None:
    item = caps["fact.with"][0]
    val = item.child_by_field_name("value")
    if val is None or val.type != "as_pattern" or val.named_child_count < 2:
        return
    scope, lhs, line = out.scope(item), caps["fact.lhs"][0], _line(item)
    v = out.value(val.named_child(0)) if out.language == "python" else None
    if v and v != "?" and lhs.type == "identifier" and v.endswith(")"):
        # `with Pool() as s`: what `__enter__` returns (Flow._enter: the value itself when
        # its class does not define it)
        stmt = item.parent.parent if item.parent is not None else None
        enter = "__aenter__" if stmt is not None and stmt.child_count and \
            stmt.child(0).type == "async" else "__enter__"
        if out.read(scope, _t(lhs)):
            out.facts.append((scope, _t(lhs), f"{v}.{enter}()", line))
            out.used(scope, v)
        return
    out.bind(scope, lhs, val.named_child(0), line)


def _lambda_yield(node: Any) -> bool:
    """Whether yield ``node`` is in a lambda (``use(lambda: (yield x))``): that lambda is
    the generator, not the function around it."""
    n = node.parent
    while n is not None and n.type not in ("function_definition", "lambda"):
        n = n.parent
    return n is not None and n.type == "lambda"


_ANONYMOUS = frozenset({"arrow_function", "function_expression", "function", "generator_function",
                        "lambda_expression", "anonymous_method_expression", "func_literal",
                        "closure_expression"})


def _anonymous_return(out: Bindings, node: Any) -> bool:
    """Whether ``return`` statement ``node`` returns from a function with no symbol of its
    own inside its owner (a callback, a lambda, a Go func literal: ``xs.forEach(x => {
    return this; })``), not from the owner (break-it 38: it made the method return it)."""
    p = node.parent
    while p is not None:
        if p.type in _ANONYMOUS:
            up = p.parent
            return p.start_byte not in out.local_at and (
                up is None or up.start_byte not in out.local_at) and (
                up is None or up.parent is None or up.parent.start_byte not in out.local_at)
        if p.start_byte in out.local_at:
            return False
        p = p.parent
    return False


def _made_default(out: Bindings, node: Any) -> Any:
    """The default of a returned ``d.get(k, C())`` / ``self.items.setdefault(k, C())``
    when it is a call (an object made there: callgraph_blind10), else None; a literal
    default (``{}``, ``[]``) is left out (it widened unions past their limit)."""
    d = out.default_of(node, ("get", "setdefault")) if node.type == "call" else None
    return d if d is not None and d.type == "call" else None


def returned(out: Bindings, caps: dict[str, list[Any]], key: str, target: str) -> None:
    node = caps[key][0]
    vals = caps.get("fact.rhs") or ([node.named_child(0)] if node.named_child_count else [])
    scope = out.owner(node.start_byte)
    if not vals or not scope or key == "fact.yield" and _lambda_yield(node) or \
            key == "fact.return" and out.language != "python" and _anonymous_return(out, node):
        return
    # `yield from g()`: the elements of g()
    each = "[*]" if key == "fact.yield" and node.child_count > 1 and \
        node.child(1).type == "from" else ""
    tup = vals[0].type in ("expression_list", "tuple", "list")  # positions: `make()[0]`
    alts = out.alternatives(vals[0]) if vals[0].type not in _NO_VALUE else []
    dflt = _made_default(out, vals[0]) if out.language == "python" else None
    for alt in alts + [dflt] if dflt is not None else alts:  # (`return d.get(k, C())`: C())
        v = out.value(alt)
        if v is not None and not (each and v == "?"):
            out.facts.append((scope, target, v + each, _line(node)))
    if target == "return" and out.language == "python":
        # `return [C(x) for x in xs]`, `return list(xs)`, `return ys` (a list):
        # the elements of what the function returns (`for c in make()`: Flow._rest)
        for v in returned_elements(out, vals[0]):
            out.facts.append((scope, "return[*]", v, _line(node)))
    if target == "return" and vals[0].type == "dictionary_comprehension":
        # `return {n: W(n) for n in ns}`: `make()['a']` is any key's value
        pair = vals[0].child_by_field_name("body")
        pv = out.value(pair.child_by_field_name("value")) if pair is not None and \
            pair.type == "pair" else None
        if pv is not None and pv != "?":
            out.facts.append((scope, "return[?]", pv, _line(node)))
    if target == "return" and vals[0].type == "dictionary":
        # `return {"inc": inc}`: `make()['inc']` is inc (a string key of a literal);
        # `make()[kind]` any of the values (at most MAX_TARGETS, all paths: unpack.py)
        # (a repeated key: the last value; an int key: `make()[1]`)
        # (`True` and `1.0` are the key 1: int keys are read only without such keys)
        # (`**base` may replace any key before it; past 64 pairs a value is unknown)
        keyed: dict[str, str | None] = {}
        pairs = vals[0].named_children
        ints = not any(p.child_by_field_name("key").type in ("true", "false", "float")
                       for p in pairs if p.type == "pair")
        for i, pair in enumerate(pairs):
            if pair.type == "dictionary_splat":
                keyed = dict.fromkeys(keyed)
            kn = pair.child_by_field_name("key") if pair.type == "pair" else None
            k = _t(kn)[1:-1] if kn is not None and kn.type == "string" else ""
            seg = f"['{k}']" if k and not _ODD_KEY.search(k) else (
                f"[{_t(kn)}]" if ints and kn is not None and kn.type == "integer" and
                _t(kn).isdigit() else "")
            keyed[seg or str(len(keyed))] = out.value(
                pair.child_by_field_name("value")) if seg and i < 64 else None
        anykey = set(keyed.values())
        out.facts += [(scope, f"return{k}", pv, _line(node)) for k, pv in keyed.items()
                      if k[:1] == "[" and pv is not None and pv != "?"]
        if None not in anykey and "?" not in anykey and 0 < len(anykey) <= MAX_TARGETS:
            out.facts += [(scope, "return[?]", w, _line(node))
                          for w in sorted(x for x in anykey if x)]
    if target in ("return", "yield") and tup:  # (`yield "a", f`: `for k, f in gen()`)
        # `return f, g` (or `[f, g]`): `a, b = make()` reads `make()[0]` and `make()[1]`
        items = [c for c in vals[0].named_children if c.type != "comment"]
        for i, item in enumerate(items if len(items) <= 4 else []):
            v = out.value(item)
            if v is not None and v != "?":
                out.facts.append((scope, f"{target}[{i}]", v, _line(node)))
                if i == len(items) - 1:  # `make()[-1]`
                    out.facts.append((scope, f"{target}[-1]", v, _line(node)))


_LITERAL_FUNCTIONS = frozenset({"func_literal", "closure_expression"})  # typed parameters


def declared(out: Bindings, caps: dict[str, list[Any]], key: str) -> None:
    """``fact.bind`` (a variable), ``fact.field`` (a field or property of the class
    around it) or ``fact.ctor`` (a constructor parameter that is also a field, as
    TypeScript's ``constructor(private repo: Repo)``): ``@fact.lhs`` is the name, with a
    declared type ``@fact.type`` (which wins) and/or a value ``@fact.rhs``."""
    node = caps[key][0]
    lhs = caps["fact.lhs"][0]
    typ = caps.get("fact.type")
    rhs = caps.get("fact.rhs")
    scope = out.scope(node)
    line = _line(node) - (node.type in _LITERAL_FUNCTIONS or (  # seen on its own first line
        node.parent is not None and node.parent.type == "for_clause"))  # `for p := c; …;
    if key == "fact.ctor":  # p = p.Parent()`: the clause's own line reads it
        target = f"{out.selfs[0]}.{_t(lhs)}" if out.selfs else ""
    else:
        target = _t(lhs) if lhs.type in NAMES else canon(_t(lhs))
    if key == "fact.bind" and lhs.type == "identifier" and not out.read(scope, target):
        return
    declared = type_value(_t(typ[0]), out.language) if typ else ""
    each = element_type(_t(typ[0]), out.language) if typ and (
        not declared or out.language != "python") else ""
    if declared and target:  # (and a `Vec<Store>`'s elements: a repository's own generic
        out.facts.append((scope, target, declared, line))  # `Cell<T>` is its class first)
        out.used(scope, declared)
    if each and target:  # Go `commands []*Command`: its elements are Commands
        out.facts.append((scope, target + "[*]", each, line))
        out.used(scope, each)
    if (not target or not (declared or each)) and rhs and key != "fact.ctor":
        out.bind(scope, lhs, rhs[0], line)
        made = (_go_make(rhs[0]) if out.language == "go" else _made(rhs[0], out.language)) \
            if target else ""
        if made:  # `parents := make([]*Command, 0, 5)`, `new List<Store>()`: Commands, Stores
            out.facts.append((scope, target + "[*]", made, line))
            out.used(scope, made)


def _made(node: Any, language: str) -> str:
    """The element type's access path of a new collection: ``new Map<string, Store>()``
    (TypeScript), ``new ArrayList<Store>()`` (Java), ``new List<Store>()`` (C#)."""
    if node.type == "new_expression":
        typ = _t(node.child_by_field_name("constructor")) + _t(
            node.child_by_field_name("type_arguments"))
    elif node.type == "object_creation_expression":
        typ = _t(node.child_by_field_name("type"))
    else:
        return ""
    return element_type(typ, language) if "<" in typ else ""


def _go_make(node: Any) -> str:
    """The element type's access path of Go ``make([]T, …)`` / ``make(map[K]T)``."""
    fn = node.child_by_field_name("function") if node.type == "call_expression" else None
    args = node.child_by_field_name("arguments") if fn is not None and _t(fn) == "make" \
        else None
    kids = [c for c in args.named_children if c.type != "comment"] if args is not None else []
    return element_type(_t(kids[0]), "go") if kids else ""


def type_param(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``fact.tparam``: a type parameter ``@fact.lhs`` with a bound ``@fact.type`` (Java
    ``<T extends Entity>``, TypeScript ``<T extends Entity>``, C# ``where T : IEntity``)
    stands for that class where it is declared: fact ``T = Entity`` (the class; a declared
    ``T item`` is then an instance of it) in its method, or in its class and each method
    of the class body. The fact's line is -1: bound before any statement, so it reaches a
    parameter's declared type (evaluated at line 0). Two bounds give both (a union)."""
    node = caps["fact.tparam"][0]
    declared = type_value(_t(caps["fact.type"][0]), out.language)
    if not declared.endswith("()"):
        return
    name, cls = _t(caps["fact.lhs"][0]), declared[:-2]
    scope = out.scope(node)
    out.facts.append((scope, name, cls, -1))
    out.used(scope, cls)
    owner = node.parent  # (C#: the clause is the class's child; else a list's item)
    if owner is not None and owner.type not in _GENERIC_CLASSES:
        owner = owner.parent
    body = owner.child_by_field_name("body") if owner is not None and \
        owner.type in _GENERIC_CLASSES else None
    for m in body.named_children if body is not None else ():
        local = out.local(m) if m.type in _METHODS else ""
        own = m.child_by_field_name("type_parameters") if local else None
        if own is not None and re.search(rf"\b{re.escape(name)}\b", _t(own)):
            continue  # `<T extends Other> void m(T y)`: the method's own T hides the class's
        if local:
            out.facts.append((local, name, cls, -1))
            out.used(local, cls)


_GENERIC_CLASSES = frozenset({"class_declaration", "interface_declaration",
                              "record_declaration", "struct_declaration",
                              "abstract_class_declaration"})
_METHODS = frozenset({"method_declaration", "constructor_declaration", "method_definition"})
