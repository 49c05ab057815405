"""Elements of std collections in TypeScript, Java and C# (session 36), as
:mod:`hindsight.codeindex.rustvals` does for Rust: a value declared ``Store[]``,
``Array<Store>``, ``Map<string, Store>``, ``List<Store>``, ``Optional<Store>``,
``IEnumerable<Store>``… holds elements of type ``Store`` (``x[*]`` in an access path;
:func:`hindsight.codeindex.types.element_type`). A ``for … of`` / ``for (var s : xs)`` /
``foreach (var s in xs)`` loop, the one parameter of a callback given to an element
method (``xs.forEach(s => …)``, ``xs.stream().filter(…).forEach(s -> …)``,
``xs.Where(s => …)``) and the element reads (``xs.get(i)``, ``map.get(k)``,
``opt.orElseThrow()``, ``xs.First()``, ``xs.pop()``) give an element; the adapters that
keep the elements (``filter``, ``stream``, ``Where``…) are read through. Element reads
apply only where the value before them is no repository type (:func:`view`, used by
:mod:`hindsight.codeindex.flow`): a repository class's own ``get`` keeps its declared
result.

Before: ``for (const s of this.stores) s.save()`` and ``stores.forEach(s -> s.save())``
were unresolved, or resolved only when one class of the repository had a ``save``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight.codeindex.bindings import Bindings

_TS = ("typescript", "tsx", "javascript")

KEEPS: dict[str, frozenset[str]] = {
    "typescript": frozenset({"filter", "slice", "concat", "reverse", "sort", "toSorted",
                             "toReversed", "values", "splice"}),
    "java": frozenset({"stream", "parallelStream", "filter", "sorted", "distinct", "limit",
                       "skip", "peek", "values", "findFirst", "findAny", "iterator",
                       "toList", "subList", "descendingIterator", "unmodifiableList"}),
    "csharp": frozenset({"Where", "OrderBy", "OrderByDescending", "ThenBy",
                         "ThenByDescending", "Skip", "Take", "SkipWhile", "TakeWhile",
                         "Reverse", "AsEnumerable", "ToList", "ToArray", "Values", "Distinct",
                         "Concat", "AsReadOnly", "ToHashSet"}),
}
"""Methods whose result holds the same elements (a filtered array, a stream, a LINQ
query, Java's ``findFirst`` giving an ``Optional`` of one; Rust's in :func:`_rust`)."""
READS: dict[str, frozenset[str]] = {
    "typescript": frozenset({"get", "at", "pop", "shift", "find", "findLast"}),
    "java": frozenset({"get", "getFirst", "getLast", "orElse", "orElseThrow", "orElseGet",
                       "peek", "poll", "pop", "next", "first", "last", "remove",
                       "element", "pollFirst", "pollLast", "peekFirst", "peekLast"}),
    "csharp": frozenset({"First", "FirstOrDefault", "Last", "LastOrDefault", "Single",
                         "SingleOrDefault", "ElementAt", "ElementAtOrDefault", "Find",
                         "Dequeue", "Pop", "Peek", "GetValueOrDefault"}),
}
"""Methods that give one element."""
CALLBACKS: dict[str, frozenset[str]] = {
    "typescript": frozenset({"forEach", "map", "filter", "find", "findIndex", "findLast",
                             "some", "every", "flatMap"}),
    "java": frozenset({"forEach", "map", "filter", "anyMatch", "allMatch", "noneMatch",
                       "ifPresent", "peek", "flatMap", "removeIf", "forEachOrdered",
                       "mapToInt", "mapToLong", "mapToDouble", "ifPresentOrElse"}),
    "csharp": frozenset({"ForEach", "Select", "Where", "Any", "All", "First",
                         "FirstOrDefault", "Last", "Count", "OrderBy", "OrderByDescending",
                         "SelectMany", "Single", "SingleOrDefault", "Sum", "Max", "Min",
                         "TrueForAll", "Exists", "FindAll", "RemoveAll", "Find"}),
}
"""Methods whose callback's first parameter is an element."""


HOLDERS: dict[str, frozenset[str]] = {}
"""Methods that give an ``Option``/``Result`` of one element, unwrapped after them (Rust)."""


def _rust() -> None:
    """The Rust rows of the tables (:mod:`hindsight.codeindex.rustvals`), added on first
    use: iterator adapters that keep the elements, ``RefCell`` borrows, holders."""
    from hindsight.codeindex import rustvals

    KEEPS["rust"] = rustvals.VIEWS | {"filter", "rev", "skip", "take", "skip_while",
                                      "take_while", "inspect", "peekable", "step_by",
                                      "by_ref", "chain", "fuse", "cycle"}
    READS["rust"] = rustvals.DEREFS
    HOLDERS["rust"] = rustvals.HOLDERS


def family(language: str) -> str:
    """The key of the tables above for ``language`` (``""``: none)."""
    if language == "rust" and "rust" not in KEEPS:
        _rust()
    return "typescript" if language in _TS else language if language in KEEPS else ""


def iterable(text: str, language: str) -> str:
    """What a loop or an element method goes over, as an access path, with the
    adapters that keep the elements taken off its end (``this.items.filter(…)`` →
    ``this.items``; Rust's ``self.all().iter().rev()`` → ``self.all()``, each unwrapping
    written ``[*]``: :func:`rustvals.path`); ``""`` when it is no access path."""
    from hindsight.codeindex.exprs import parse, render
    from hindsight.codeindex.rustvals import path

    segs = parse(path(text.strip()) if language == "rust" else text.strip())
    if segs is None:
        return ""
    keeps = KEEPS.get(family(language), frozenset())
    n = len(segs)
    while n > 2 and segs[n - 1] == "()" and segs[n - 2][:1] == "." and segs[n - 2][1:] in keeps:
        n -= 2
    return render(segs[:n])


def view(segs: tuple[str, ...], i: int, language: str) -> int:
    """How many segments from ``segs[i]`` read an element of the value before them
    (``.filter()`` … ``.get()``, ``.First()``, ``.borrow()``, ``[*]`` after adapters;
    Rust's ``.first()``, ``.lock()`` only when unwrapped after them: ``.first()[*]``): 0
    when they do not."""
    fam = family(language)
    if not fam:
        return 0
    keeps, reads, holders = KEEPS[fam], READS[fam], HOLDERS.get(fam, frozenset())
    j, n = i, len(segs)
    while j + 1 < n and segs[j + 1] == "()" and segs[j][:1] == "." and segs[j][1:] in keeps:
        j += 2
    if j + 1 < n and segs[j + 1] == "()" and segs[j][:1] == ".":
        if segs[j][1:] in reads:
            return j + 2 - i
        if segs[j][1:] in holders and j + 2 < n and segs[j + 2] == "[*]":
            return j + 3 - i
    if j < n and segs[j] == "[*]" and j > i:
        return j + 1 - i
    return 0


def held(flow: Any, v: Any, attr: str, segs: tuple[str, ...], i: int) -> tuple[Any, int] | None:
    """``(value, next segment)`` of attribute ``attr`` of ``v`` read as a std collection
    (``self.stores.iter()…[*]``, ``this.items.get(k)``, ``Items.First()``: an element of
    it) when ``attr`` itself has no value (it is declared a ``Vec<Store>``, whose
    elements the facts give) and ``segs[i:]`` read an element (:func:`view`); ``None``
    otherwise. ``flow`` is the :class:`~hindsight.codeindex.flow.Flow`."""
    if "[" in attr or i >= len(segs) or v[0] not in ("inst", "cls"):
        return None
    fs = flow.fs(v[1].partition("::")[0])
    if fs is None or fs.language == "python" or not (k := view(segs, i, fs.language)) or \
            flow.attr_value(v, attr) is not None:
        return None  # (Python's `self.d.get(k)` reads the dict: selfattrs.dict_get)
    got = flow.attr_value(v, attr + "[*]")
    return (got, i + k) if got is not None else None


def each(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``xs.forEach(s => …)`` (``map``, ``filter``, Java's ``stream().forEach(s -> …)``,
    ``opt.ifPresent(s -> …)``, C#'s ``xs.Where(s => …)``, Rust's ``xs.iter().map(|s| …)``
    and ``opt.map(|s| …)``: :func:`iterable`…): the callback's first untyped
    parameter is an element of what the method is called on, inside the callback (bound
    as of the line before: ``xs.forEach(s => s.save())`` reads it on its own line)."""
    from hindsight.codeindex.bindings import _line, _t

    node, name = caps["fact.each"][0], _t(caps["fact.lhs"][0])
    v = iterable(_t(caps["fact.rhs"][0]), out.language)
    if v and used_beside(node, name, [(s, e) for s, e, n, w in out.eaches if n == name and w == v]):
        return
    if v:
        out.scoped(out.scope(node), _t(caps["fact.lhs"][0]), f"{v}[*]", _line(node) - 1,
                   int(node.end_point[0]) + 1)


def seen(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """Record a callback of :func:`each` before any is bound: ``(start byte, end byte,
    parameter, what it iterates)`` in ``out.eaches``."""
    from hindsight.codeindex.bindings import _t

    node = caps["fact.each"][0]
    out.eaches.append((node.start_byte, node.end_byte, _t(caps["fact.lhs"][0]),
                       iterable(_t(caps["fact.rhs"][0]), out.language)))


def used_beside(node: Any, name: str, same: list[tuple[int, int]] | None = None) -> bool:
    """Whether ``name`` is written on the lines of ``node`` outside it and outside the
    byte ranges ``same`` (other callbacks whose parameter ``name`` is an element of the
    same collection: ``xs.Where(p => p.IsExpress()).Sum(p => p.Weight())``, session 38):
    a binding of the callback's parameter for those lines would then also be read there
    (two callbacks with one parameter name on a line, ``p.weight() + xs.map(|p|
    p.weight())``, ``.map(s -> s.key()).filter(s -> s.valid())``), so none is made
    (break-it of session 36: each gave a wrong edge)."""
    import re

    root = node
    while root.parent is not None:
        root = root.parent
    src = root.text or b""
    start = src.rfind(b"\n", 0, node.start_byte) + 1
    end = src.find(b"\n", node.end_byte)
    end = len(src) if end < 0 else end
    pat = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
    return any(not (node.start_byte <= m.start() < node.end_byte) and not any(
        s <= m.start() < e for s, e in same or ()) for m in pat.finditer(src, start, end))


def push(out: Bindings, caps: dict[str, list[Any]]) -> None:
    """``fact.push``: ``xs.push(v)`` (JavaScript, TypeScript, Rust), ``this.xs.push(v)``,
    ``self.xs.push(v)``: ``v`` is an element of ``xs`` from then on (the fact ``xs[+*]``,
    as Python's ``xs.append(v)``: :func:`hindsight.codeindex.loops.append`)."""
    from hindsight.codeindex.bindings import _line, _t
    from hindsight.codeindex.exprs import canon, parse

    node, lhs = caps["fact.push"][0], caps["fact.lhs"][0]
    target = _t(lhs) if lhs.type == "identifier" else canon(_t(lhs))
    segs = parse(target) if target else None
    if not segs or len(segs) > 2 or (len(segs) == 2 and segs[0] not in out.selfs):
        return
    v = out.value(caps["fact.rhs"][0])
    if v and v != "?":
        scope = out.scope(node)
        out.containers.setdefault(target, "seq")
        out.facts.append((scope, f"{target}[+*]", v, _line(node)))
        out.used(scope, v)
