"""Classes in receiver resolution (:mod:`hindsight.codeindex.flow`): the method
resolution order, JavaScript constructor functions, and methods that return their own
receiver."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex.values import Value

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow


def linearise(flow: Flow, q: str, depth: int) -> list[str]:
    """Method resolution order of class ``q`` (see :meth:`Flow.mro`), ``depth`` bases
    deep so far (at most 8)."""
    path, _, cls = q.partition("::")
    fs = flow.fs(path)
    if fs is None or depth > 8:
        return [q]
    bases = [b for b in flow.root.bases(path, cls) if b.partition("::")[2]]
    lists = [flow.mro(b) for b in bases]
    if fs.language == "python":
        merged = c3([*[list(x) for x in lists], list(bases)])
        if merged is not None:
            return [q, *merged]
    out = [q]
    for lst in lists:
        out += [c for c in lst if c not in out]
    return out


def c3(seqs: list[list[str]]) -> list[str] | None:
    """C3 merge (Barrett et al., "A Monotonic Superclass Linearization for Dylan", 1996;
    Python's MRO since 2.3); ``None`` when no consistent order exists."""
    out: list[str] = []
    seqs = [s for s in seqs if s]
    while seqs:
        for s in seqs:
            head = s[0]
            if not any(head in t[1:] for t in seqs):
                break
        else:
            return None
        out.append(head)
        seqs = [[c for c in t if c != head] for t in seqs]
        seqs = [t for t in seqs if t]
    return out


def constructor(flow: Flow, q: str) -> bool:
    """A JavaScript function with members (``F.prototype.m = function``, ``this.m =
    function``): ``new F()`` gives an instance of it."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    return fs is not None and fs.language in ("javascript", "typescript", "tsx") and \
        bool(fs.members.get(local))


def own(flow: Flow, recv: Value, q: str) -> Value | None:
    """What calling method ``q`` on ``recv`` gives when the method returns its own
    receiver (``return self``, ``return cls()``, ``return cls``): an instance (or the
    class) of the receiver's class, a subclass's too (``Child.make()`` of an inherited
    ``Base.make``); ``None`` when it returns anything else."""
    path, _, local = q.partition("::")
    fs = flow.fs(path)
    rets = fs.flow.get(local, {}).get("return") if fs is not None else None
    if not rets or fs is None or fs.language != "python":
        return None
    vals = {val for _l, val in rets}
    if vals <= {"self", "cls()"} and (recv[0] == "inst" or "self" not in vals):
        return ("inst", recv[1])
    if vals == {"cls"} and recv[0] == "cls":
        return recv
    return None
