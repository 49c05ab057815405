"""Which bindings of a name reach a use (:mod:`hindsight.codeindex.flow`): the one of a
branch or loop body that ended before the use may not have run (:func:`reaching`), a
comprehension's or lambda's variable is visible only inside it (:func:`visible`), and an
element of a container belongs to the container the name held when it was bound
(:func:`rebound_since`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex.bindings import AFTER, BRANCH
from hindsight.codeindex.values import union

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow
    from hindsight.codeindex.table import FileSyms
    from hindsight.codeindex.values import Value


Ends = tuple[dict[int, int], dict[int, int], set[int], dict[int, int]]
_ENDS: dict[int, tuple[list[tuple[int, str]], Ends]] = {}


def branch_ends(branches: list[tuple[int, str]]) -> Ends:
    """Read ``x~`` facts (assigns.branch_fact): binding line → last line of its branch or
    loop body; binding line → first line of the ``if`` statement whose arms all bind the
    name (one of them surely ran); the binding lines whose body ends by leaving the
    function (``return``/``raise``: no use after the body sees them); binding line →
    last line of the arms of its ``if``/``try``/``match`` that follow its own. Memoised
    per list (each use of a name reads the same list: a 3,000-arm ``elif`` chain read it
    once per arm, break-it of session 34); the dicts returned are shared, not to be
    changed."""
    hit = _ENDS.get(id(branches))
    if hit is not None and hit[0] is branches:
        return hit[1]
    ends: dict[int, int] = {}
    groups: dict[int, int] = {}
    dead: set[int] = set()
    sibling: dict[int, int] = {}
    for b, e in branches:
        e, _, sib = e.partition("/")
        if sib.isdigit():
            sibling[b] = int(sib)
        if e.isdigit():
            ends[b] = int(e)
        elif e[-1:] == "!" and e[:-1].isdigit():
            ends[b] = int(e[:-1])
            dead.add(b)
        else:
            end, _, g = e.partition(":")
            if end.isdigit() and g.isdigit():
                ends[b], groups[b] = int(end), int(g)
    if len(branches) > 8:  # (a short list is cheaper to read again than to keep)
        if len(_ENDS) > 512:
            _ENDS.clear()
        _ENDS[id(branches)] = (branches, (ends, groups, dead, sibling))
    return ends, groups, dead, sibling


def reaching(bindings: list[tuple[int, str]], last: int, line: int | None,
             branches: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``(line, value)`` of the bindings that may reach a use at ``line`` (``None``: after
    the scope), from the last one (at ``last``) back: while a binding is in a branch or
    loop body (``branches``: ``x~`` facts, :func:`branch_ends`) that ends before the
    use, the binding before it may be the one that ran; the arms of an ``if``/``else``
    that all bind the name are all reaching, and none before them; a body that returns
    or raises hides its bindings from uses after it."""
    ends, groups, dead, sibling = branch_ends(branches)
    lines = sorted({b for b, _v in bindings}, reverse=True)
    out: list[tuple[int, str]] = []
    for bl in lines[lines.index(last):]:
        end = ends.get(bl)
        if line is not None and end is not None and line > end and (
                bl in dead or line <= sibling.get(bl, 0)):  # (a later arm of its `if`)
            continue
        out += [(b, v) for b, v in bindings if b == bl]
        if end is None or (line is not None and line <= end):
            break
        g = groups.get(bl)
        if g is not None:
            out += [(b, v) for b, v in bindings if b != bl and groups.get(b) == g]
            break
    return out


def from_entry(bindings: list[tuple[int, str]], line: int | None,
               branches: list[tuple[int, str]] | None) -> bool:
    """Whether a use at ``line`` (``None``: after the scope) may see the value the name
    had on entering its scope (a parameter's): no binding comes before it, or each one
    back to the first is in a branch or loop body that ended before the use
    (``if codec is None: codec = Json()``), and no ``if``/``else`` binds it in every arm."""
    before = {b for b, _v in bindings if line is None or b < line}
    if not before:
        return True
    if not branches:
        return False
    ends, groups, _dead, sibling = branch_ends(branches)
    for bl in before:
        end = ends.get(bl)
        if line is not None and end is not None and end < line <= sibling.get(bl, 0):
            continue  # in an earlier arm of the `if` the use is in
        if end is None or (line is not None and line <= end) or bl in groups:
            return False
    return True


def visible(bindings: list[tuple[int, str]], scoped: list[tuple[int, str]],
            line: int | None) -> list[tuple[int, str]]:
    """``bindings`` of a name as a use at ``line`` (``None``: from outside the scope) sees
    them: a binding visible only up to a line (``scoped``: ``x^`` facts,
    bindings.SCOPED) is dropped past it; where it is visible it hides an ordinary binding
    of its own line (the comprehension's or lambda's variable is the innermost)."""
    ends = {b: int(e) for b, e in scoped if e.isdigit()}
    live = {b for b in ends if line is not None and line <= ends[b]}
    out: list[tuple[int, str]] = []
    for b, v in bindings:  # the scoped values are the AFTER ones (Bindings.scoped)
        if b not in ends or (b in live) == (v[:1] == AFTER):
            out.append((b, v))
    return out


def rebound_since(d: dict[str, list[tuple[int, str]]], name: str, line: int | None
                  ) -> bool:
    """Whether the container of element ``name`` (``d`` of ``d['a']``, a literal key) was
    bound to another object after the last binding of that element before ``line``
    (``None``: the scope's end), so the element's binding belongs to a value the name no
    longer holds. A rebinding in a branch that ended before ``line`` may not have run; a
    line whose values include the container itself (``d = d or {}``, ``d = d.copy()``)
    keeps it; anything else replaces it (``d = Reg()``, ``d = {}``, ``d = dict(x)``,
    ``d = d['sub']``: the argument of a call is not kept, so ``dict(d)`` replaces it too).
    A bare annotation (``d: dict``) binds nothing (assigns.py)."""
    limit = line if line is not None else 1 << 62
    base = name[:name.rfind("[")]
    last = max((b for b, _v in d.get(name, []) if b < limit), default=-1)
    if last < 0:
        return False
    ends, groups, _dead, _sib = branch_ends(d.get(base + BRANCH, []))
    maybe = {b for b, e in ends.items() if e < limit and b not in groups}
    by_line: dict[int, list[str]] = {}
    for b, v in d.get(base, []):
        if last < b < limit and b not in maybe:
            by_line.setdefault(b, []).append(v)
    return any(all(_replaces(v, base) for v in vals) for vals in by_line.values())


def _replaces(value: str, base: str) -> bool:
    """Whether binding ``base`` to ``value`` (a receiver fact's value) makes it another
    object than the container it held (see :func:`rebound_since`)."""
    return value not in (base, f"{base}.copy()")


def pick(flow: Flow, fs: FileSyms, scope: str, bindings: list[tuple[int, str]],
         line: int | None, branches: list[tuple[int, str]] | None = None) -> Value | None:
    """Value of the last binding before ``line`` (``None``: the last one); the union
    when that line binds several values, or when it is in a branch or loop body that
    ends before ``line`` (``branches``: ``x~`` facts, receivers.BRANCH): then the
    binding before it counts too."""
    if line is not None:
        bindings = [b for b in bindings if b[0] < line]
        if not bindings:
            return None
    bl = max(b[0] for b in bindings)
    alts = [(b, val) for b, val in bindings if b == bl]
    if branches:
        alts = reaching(bindings, bl, line, branches)
    if len(alts) == 1:
        return flow.value(fs, scope, alts[0][1], alts[0][0])
    # one line binding several values: the elements of a literal, a loop's variable
    return union(flow.value(fs, scope, val, b) for b, val in alts)
