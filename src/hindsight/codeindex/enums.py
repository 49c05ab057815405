"""Python enums in receiver resolution (:mod:`hindsight.codeindex.flow`): which classes
are enums, which of their names are members, and what a member's ``value`` is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.codeindex.values import Value

if TYPE_CHECKING:
    from hindsight.codeindex.flow import Flow


ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})


def is_enum(flow: Flow, q: str) -> bool:
    """Whether class ``q`` is an ``enum`` (Java, C#, TypeScript, Kotlin…; not Rust) or (Python)
    derives from ``enum.Enum`` (or ``IntEnum``, ``Flag`` …), directly or through classes
    of the repository (memoised per flow)."""
    hit = flow._memo.get(("enum", q), False)
    if hit is not False:
        return hit is not None
    flow._memo[("enum", q)] = ("cls", q) if _enum(flow, q) else None
    return flow._memo[("enum", q)] is not None


def _enum(flow: Flow, q: str) -> bool:
    path, _, cls = q.partition("::")
    fs = flow.fs(path)
    if fs is not None and fs.language not in ("python", "rust") and \
            fs.kinds.get(cls) == "enum":
        return True  # (a Java, C#, TypeScript… `enum`; Rust's variants: rustimpl/flow)
    for c in flow.mro(q):
        path, _, cls = c.partition("::")
        fs = flow.fs(path)
        if fs is not None and fs.language == "python" and any(
                k == cls and n in ENUM_BASES and rv in ("", "enum")
                for k, n, rv, _l in fs.inherits):
            return True
    return False


def enum_member(flow: Flow, q: str, name: str) -> bool:
    """Whether ``q.name`` is a member of enum class ``q`` (an instance of it): a public
    name that is no method or nested class (``Color.RED``; ``Op.MUL.apply()``)."""
    return name.isidentifier() and not name.startswith("_") and is_enum(flow, q)


def member_value(flow: Flow, q: str) -> Value | None:
    """``self.value`` (``Codec.JSON.value``) of an instance of enum ``q``: any of the
    values its class body binds to its members (``JSON = JsonCodec()``), when ``q`` is an
    enum of the repository, else ``None`` (Python's ``Enum.value``: the assigned value)."""
    if not is_enum(flow, q):
        return None
    path, _, cls = q.partition("::")
    fs = flow.fs(path)
    if fs is None:
        return None
    vals = [(scope, line, val) for name, binds in fs.attrs.get(cls, {}).items()
            if name.isidentifier() and not name.startswith("_")
            for scope, line, val in binds if scope == cls]
    return flow._guarded(("enumvalue", q), lambda: flow._agree(fs, vals)) if vals else None
