"""Receiver facts of loops, comprehensions, ``except … as`` and ``append`` (Python):
handlers of :mod:`hindsight.codeindex.receivers` for the ``@fact.for``, ``@fact.comp``,
``@fact.unpack``, ``@fact.pairs``, ``@fact.except`` and ``@fact.append`` matches."""

from __future__ import annotations

from typing import Any

from hindsight.codeindex.bindings import AFTER, NARROW, Bindings, _line, _t
from hindsight.codeindex.exprs import canon, parse
from hindsight.codeindex.unpack import columns
from hindsight.codeindex.values import MAX_TARGETS


def for_(out: Bindings, caps: dict[str, list[Any]]) -> None:
    node = caps["fact.for"][0]
    right = caps.get("fact.rhs", [node.child_by_field_name("right")])[0]
    scope, target, line = out.scope(node), _t(caps["fact.lhs"][0]), _line(node)
    own = (out.language == "go" and b":=" in (node.named_children[0].text or b"")) or \
        out.language in ("rust", "typescript", "tsx", "javascript", "java", "csharp")  # (own)
    for v in out.element(right) if right is not None else ["?"]:
        if own:  # Go `for _, c := range cs`: a variable of the loop's own (break-it 35)
            out.scoped(scope, target, v, line, _end(node))
        else:
            out.facts.append((scope, target, v, line))


def comp(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """A comprehension's ``for x in …``: bound from the line before the clause, since
    the element is used on the clause's own line (``[h() for h in fs]``). The variable
    is the comprehension's own: visible up to its last line only."""
    node = caps["fact.comp"][0]
    scope, target, line = out.scope(node), _t(caps["fact.lhs"][0]), _line(node) - 1
    for v in out.element(caps["fact.rhs"][0]):
        # evaluated as of the clause's own line (`xs = [...]` may be on the line before)
        out.scoped(scope, target, AFTER + v if v != "?" else v, line, _end(node.parent))


def unpack(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``for name, fn in pairs`` (a loop or a comprehension's clause): each name is the
    value at its position of an element of ``pairs`` (``pairs[*][i]``, or the values of
    a literal of tuples written there)."""
    node = caps["fact.unpack"][0]
    names = [c for c in caps["fact.lhs"][0].named_children if c.type != "comment"]
    rhs = caps["fact.rhs"][0]
    if rhs.type in ("list", "tuple", "set"):
        cols = columns(out, rhs)
        if len(cols) != len(names):
            return
    else:
        base = out.value(rhs) if rhs.type in ("identifier", "attribute") else None
        if not base or base == "?":
            return
        cols = [[f"{base}[*][{i}]"] for i in range(len(names))]
    comp = node.type == "for_in_clause"
    scope, line = out.scope(node), _line(node) - comp
    for name, vals in zip(names, cols, strict=True):
        if name.type != "identifier":
            continue
        for v in vals:
            if comp:
                out.scoped(scope, _t(name), AFTER + v, line, _end(node.parent))
            else:
                out.facts.append((scope, _t(name), v, line))


def except_(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``except E as e``: ``e`` is an instance of ``E`` or of a class deriving from it
    (what is raised is most often a subclass: ``except AppError as e: e.describe()``);
    of any of ``(A, B)``. The value ``!e!*E|…`` (:func:`hierarchy.narrowed`)."""
    node = caps["fact.except"][0]
    kinds = [c for rhs in caps["fact.rhs"] for c in (  # (two: `isinstance(x, A) or …`)
        [k for k in rhs.named_children if k.type != "comment"] if rhs.type == "tuple" else [rhs])]
    vals = [v for v in (out.value(k) for k in kinds) if v and v != "?" and "(" not in v]
    scope, target, line = out.scope(node), _t(caps["fact.lhs"][0]), _line(node)
    if vals:  # (`e` is unbound after the block: see extract)
        out.scoped(scope, target, f"{NARROW}{target}{NARROW}*{'|'.join(dict.fromkeys(vals))}",
                   line, _end(node))


_LEAVES = frozenset({"return_statement", "raise_statement", "continue_statement",
                     "break_statement"})


def isa(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``if isinstance(x, C):`` (or ``elif``, or ``isinstance(x, (A, B)) and …``): in the
    block, ``x`` is what it was narrowed to instances of ``C`` (a binding visible up to the
    block's end, at the ``if`` line; break-it of session 34); after ``assert
    isinstance(x, C)`` and after ``if not isinstance(x, C):`` whose block leaves (``return``,
    ``raise``, ``continue``, ``break``; no ``else``), up to the end of the enclosing block;
    in ``case C(…):`` of ``match x:``, in the case's block; after ``if isinstance(x, C):``
    whose block leaves (no ``else``), x is what it was less the instances of ``C``."""
    if "isinstance" in out.shadowed or _t(caps["fact.lhs"][0]) in out.selfs:
        return  # (`self` keeps its class and the overrides of its subclasses)
    kinds = [c for rhs in caps["fact.rhs"] for c in (  # (two: `isinstance(x, A) or …`)
        [k for k in rhs.named_children if k.type != "comment"] if rhs.type == "tuple" else [rhs])]
    vals = [v for k in kinds if (v := canon(_t(k)) if k.type == "dotted_name" else out.value(k))
            and v != "?"] if all(k.type in ("identifier", "attribute", "dotted_name")
                                 for k in kinds) else []  # (`case Circle():`, a dotted name)
    if not vals or len(vals) != len(kinds) or len(vals) > MAX_TARGETS:
        return
    node, name = caps["fact.isa"][0], _t(caps["fact.lhs"][0])
    line, body, leave = _line(node), caps.get("fact.body"), caps.get("fact.exit")
    if leave:  # `if not isinstance(x, C): return …`: x is a C after the `if`, to the end
        kids = [c for c in leave[0].named_children if c.type != "comment"]  # of its block
        if node.child_by_field_name("alternative") is not None or not kids or \
                kids[-1].type not in _LEAVES:
            return
        line = _end(node)  # (`assert isinstance(x, C)`: from the next line likewise)
    out.scoped(out.scope(node), name, f"{NARROW}{name}{NARROW}{'|'.join(vals)}", line,
               _end(body[0] if body else node.parent))
    kids = [c for c in body[0].named_children if c.type != "comment"] if body else []
    more = _elif_classes(out, node, name) if kids and kids[-1].type in _LEAVES and \
        node.type == "if_statement" and (node.child_by_field_name("condition").type == "call"
                                         or len(caps["fact.rhs"]) == 2) else None
    if more is not None:  # `if isinstance(x, A): return …` (`elif isinstance(x, B): return`
        out.scoped(out.scope(node), name,  # …): after it, x is no A, no B (break-its of 35)
                   f"{NARROW}{name}{NARROW}-{line}-{'|'.join(vals + more)}", _end(node),
                   _end(node.parent))


def _elif_classes(out: Bindings, node: Any, name: str) -> list[str] | None:
    """The classes of the ``elif isinstance(name, …):`` arms of ``if`` statement ``node``
    when every arm leaves (``return``, ``raise``…) and there is no ``else``; ``[]``
    without ``elif``; ``None`` when an arm is anything else."""
    out_: list[str] = []
    for alt in node.children_by_field_name("alternative"):
        cond, body = alt.child_by_field_name("condition"), alt.child_by_field_name("consequence")
        fn = cond.child_by_field_name("function") if cond is not None and cond.type == "call" \
            else None
        args = [a for a in cond.child_by_field_name("arguments").named_children
                if a.type != "comment"] if fn is not None and _t(fn) == "isinstance" else []
        kids = [c for c in body.named_children if c.type != "comment"] if body else []
        if alt.type != "elif_clause" or len(args) != 2 or _t(args[0]) != name or \
                not kids or kids[-1].type not in _LEAVES:
            return None
        kinds = [k for k in args[1].named_children if k.type != "comment"] \
            if args[1].type == "tuple" else [args[1]]
        vals = [out.value(k) for k in kinds if k.type in ("identifier", "attribute")]
        if len(vals) != len(kinds) or any(not v or v == "?" for v in vals):
            return None
        out_ += [v for v in vals if v]
    return out_ if len(out_) <= 2 * MAX_TARGETS else None


def append(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``xs.append(v)`` / ``xs.add(v)``: ``v`` is an element of ``xs`` from then on (the
    fact ``xs[+*]``; such facts accumulate until ``xs`` is bound again: Flow.head); so are
    ``a`` and ``b`` after ``xs.extend([a, b])`` or ``xs += [a, b]``, and the elements of
    ``ys`` after ``xs.extend(ys)``. A dict
    of lists too: ``d[k].append(v)`` and ``d.setdefault(k, []).append(v)`` add ``v`` to
    the elements of the value at that key and of any value of ``d`` (``d['k'][+*]`` and
    ``d[?][+*]``)."""
    node = caps["fact.append"][0]
    lhs = caps["fact.lhs"][0]
    if lhs.type == "call":  # only `d.setdefault(k, …)`: the list held at some key
        fn = lhs.child_by_field_name("function")
        if fn is None or fn.type != "attribute" or \
                _t(fn.child_by_field_name("attribute")) != "setdefault":
            return
        base = canon(_t(fn.child_by_field_name("object")))
        targets = [f"{base}[?]"] if base else []
    elif lhs.type == "subscript":
        base = canon(_t(lhs.child_by_field_name("value")))
        at = canon(_t(lhs))
        targets = list(dict.fromkeys([at, f"{base}[?]"])) if base and at else []
    else:
        targets = [_t(lhs) if lhs.type == "identifier" else canon(_t(lhs))]
    segs = parse(targets[0]) if targets and targets[0] else None
    core = segs[:-1] if segs and len(segs) > 1 and lhs.type != "identifier" and \
        lhs.type != "attribute" else segs
    if not core or len(core) > 2 or (len(core) == 2 and core[0] not in out.selfs):
        return
    rhs = caps["fact.rhs"][0]
    many = node.type == "augmented_assignment" or _t(
        node.child_by_field_name("function").child_by_field_name("attribute")) == "extend"
    if rhs.type in ("list", "tuple") and not many:
        return  # `xs.append([a, b])`: a list is the element
    if not many:
        vals = [out.value(rhs)]
    elif rhs.type in ("list", "tuple"):  # `xs.extend([a, b])`, `xs += [a, b]`: a and b
        vals = [out.value(c) for c in rhs.named_children[:MAX_TARGETS] if c.type != "comment"]
    else:  # `xs.extend(ys)`: the elements of ys
        v = out.value(rhs)
        vals = [f"{v}[*]" if v and v != "?" else None]
    for target in targets:
        out.containers.setdefault(target, "seq")
    scope, line = out.scope(node), _line(node)
    for v in dict.fromkeys(vals):
        if v and v != "?":
            out.facts.extend((scope, f"{target}[+*]", v, line) for target in targets)
            out.used(scope, v)


def update(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``d.update({'k': v})`` (a dict literal) or ``d.update(k=v)``: from then on
    ``d['k']`` is ``v``, as after ``d['k'] = v`` (the later binding wins: Flow.pick)."""
    node, lhs, args = caps["fact.update"][0], caps["fact.lhs"][0], caps["fact.rhs"][0]
    kids = [c for c in args.named_children if c.type != "comment"]
    if not kids or not (len(kids) == 1 and kids[0].type == "dictionary" or all(
            c.type == "keyword_argument" for c in kids)):
        return  # `h.update(data)`, `d.update(other)`: nothing known
    target = _t(lhs) if lhs.type == "identifier" else canon(_t(lhs))
    segs = parse(target) if target else None
    if not segs or len(segs) > 2 or (len(segs) == 2 and segs[0] not in out.selfs):
        return
    scope = out.scope(node)
    if lhs.type == "identifier" and not out.read(scope, target):
        return
    out.containers.setdefault(target, "dict")
    if kids[0].type == "dictionary":
        out.elements(scope, target, kids[0], _line(node))
        return
    for kw in kids:
        key, val = kw.child_by_field_name("name"), kw.child_by_field_name("value")
        v = out.value(val) if key is not None and val is not None else None
        if key is not None and v is not None:
            out.facts.append((scope, f"{target}['{_t(key)}']", v, _line(node)))
            out.used(scope, v)


def pairs(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``for k, v in d.items()`` (``v`` is any value of ``d``), ``for i, x in
    enumerate(xs)`` (``x`` is an element of ``xs``) and ``for k, f in make()`` (``f`` is
    position 1 of an element of what ``make()`` gives: a generator's ``yield k, f``), in
    a loop or a comprehension."""
    node = caps["fact.pairs"][0]
    call = caps["fact.rhs"][0]
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None:
        return
    if fn.type == "attribute" and _t(fn.child_by_field_name("attribute")) == "items" and \
            args.named_child_count == 0:
        obj = fn.child_by_field_name("object")
        base = out.value(obj) if obj is not None else None
        vals = [f"{base}[?]"] if base and base != "?" else []
    elif _t(fn) == "enumerate" and args.named_child_count >= 1 and \
            "enumerate" not in out.shadowed:
        vals = out.element(args.named_child(0))
    elif fn.type in ("identifier", "attribute") and out.language == "python":
        v = out.value(call)  # `for name, f in handlers()`: position 1 of its elements
        vals = [f"{v}[*][1]"] if v and v != "?" and v.endswith(")") else []
    else:
        return
    comp = node.type == "for_in_clause"  # `{k: cls() for k, cls in d.items()}`
    scope, target, line = out.scope(node), _t(caps["fact.lhs"][0]), _line(node) - comp
    for v in vals:
        if v != "?" and comp:
            out.scoped(scope, target, AFTER + v, line, _end(node.parent))
        elif v != "?":
            out.facts.append((scope, target, v, line))


def zipped(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``for a, b in zip(xs, ys)`` (``a`` an element of ``xs``, ``b`` of ``ys``) and ``for
    i, (a, b) in enumerate(zip(xs, ys))``, in a loop or a comprehension (``for k, v in
    d.items()`` and ``for i, x in enumerate(xs)`` are :func:`pairs`')."""
    node = caps["fact.zipped"][0]
    cols = _zip_columns(out, caps["fact.rhs"][0])
    if cols is None:
        return
    comp = node.type == "for_in_clause"
    scope, line = out.scope(node), _line(node) - comp
    todo = [(caps["fact.lhs"][0], cols)]
    while todo:
        pattern, cs = todo.pop()
        names = [c for c in pattern.named_children if c.type != "comment"]
        if len(names) != len(cs):
            continue
        for name, col in zip(names, cs, strict=True):
            if isinstance(col, tuple):  # a nested zip under enumerate
                if name.type in ("tuple_pattern", "pattern_list"):
                    todo.append((name, list(col)))
                continue
            for v in col if name.type == "identifier" else []:
                if v != "?" and comp:
                    out.scoped(scope, _t(name), AFTER + v, line, _end(node.parent))
                elif v != "?":
                    out.facts.append((scope, _t(name), v, line))


def _zip_columns(out: Bindings, call: Any) -> list[Any] | None:
    """The values at each position of an element of ``zip(xs, ys, …)`` (the elements of
    each argument) or, for ``enumerate(zip(…))``, ``["?"]`` and that zip's columns as a
    tuple; ``None`` for other calls."""
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if fn is None or args is None or fn.type != "identifier" or _t(fn) in out.shadowed:
        return None
    kids = [c for c in args.named_children if c.type != "comment"]
    if _t(fn) == "zip" and 1 < len(kids) <= 4 and all(
            k.type not in ("keyword_argument", "list_splat") for k in kids):
        return [out.element(k) for k in kids]
    if _t(fn) == "enumerate" and kids and kids[0].type == "call":
        inner = _zip_columns(out, kids[0])
        return [["?"], tuple(inner)] if inner is not None and all(
            isinstance(c, list) for c in inner) else None
    return None


_KEYED = frozenset({"sorted", "min", "max", "sort", "nsmallest", "nlargest", "groupby"})


def lambda_(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """The parameter of a lambda passed as ``key=`` to ``sorted``/``min``/``max``/
    ``xs.sort``, or as the function of ``map``/``filter``: an element of the iterable
    (a comprehension-like variable: the lambda's calls belong to the enclosing
    function)."""
    lam = caps["fact.lambda"][0]
    parent = lam.parent
    kw = parent is not None and parent.type == "keyword_argument"
    args = parent.parent if kw else parent
    call = args.parent if args is not None and args.type == "argument_list" else None
    if call is None or call.type != "call":
        return
    fn = call.child_by_field_name("function")
    name = _t(fn.child_by_field_name("attribute") if fn is not None and
              fn.type == "attribute" else fn)
    pos = [c for c in args.named_children if c.type not in ("comment", "keyword_argument")]
    if fn is None or (fn.type == "identifier" and name in out.shadowed):
        return
    if kw and name in _KEYED and _t(parent.child_by_field_name("name")) == "key":
        iterable = fn.child_by_field_name("object") if name == "sort" and fn is not None \
            else (pos[0] if pos and name not in ("nsmallest", "nlargest") else
                  pos[1] if len(pos) > 1 else None)
    elif not kw and name in ("map", "filter") and len(pos) == 2 and pos[0].id == lam.id:
        iterable = pos[1]
    else:
        return
    if iterable is None:
        return
    scope, line = out.scope(call), _line(lam) - 1
    for v in out.element(iterable):
        if v != "?":
            out.scoped(scope, _t(caps["fact.lhs"][0]), AFTER + v, line, _end(lam))


def _end(node: Any) -> int:
    """The last line (1-based) of ``node`` (the line after the file's end for ``None``)."""
    return int(node.end_point[0]) + 1 if node is not None else 1 << 30
