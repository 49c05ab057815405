"""Qualified-name helpers: the identity format of definitions that share a name
(:mod:`hindsight.codeindex.identity`): accessor roles ``Class.prop:setter`` /
``Class.prop:deleter``, overloads ``Class.m(int,int)`` and Rust trait methods
``Type.m:Trait``. Pure functions on strings."""

from __future__ import annotations

from collections.abc import Iterator

ROLES = (":setter", ":deleter")


def _overload_start(local: str) -> int:
    """Index of the ``(`` opening an overload's parameter list at the end of ``local``,
    or -1 (nested parentheses, as in ``m(void(*)(int))``, are matched)."""
    if not local.endswith(")"):
        return -1
    depth = 0
    for i in range(len(local) - 1, -1, -1):
        c = local[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return i
    return -1


def overload_base(local: str) -> str:
    """``local`` without an overload's parameter list: ``Class.m(int,int)`` → ``Class.m``;
    any other name is returned unchanged."""
    i = _overload_start(local)
    return local[:i] if i > 0 else local


def _outside_brackets(s: str, from_end: bool = True) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of ``s`` from its end (``from_end``) or its start, for the
    characters outside ``()``, ``[]`` and ``<>``."""
    closing, opening = (")]>", "([<") if from_end else ("([<", ")]>")
    depth = 0
    for i in range(len(s) - 1, -1, -1) if from_end else range(len(s)):
        c = s[i]
        if c in closing:
            depth += 1
        elif c in opening:
            depth -= 1
        elif depth == 0:
            yield i, c


def _trait_start(local: str) -> int:
    """Index of the ``:`` opening a Rust trait method's trait (``T.fmt:Display``,
    ``T.from:From<io::Error>``) at the end of ``local``, or -1: the last single ``:``
    outside brackets, after the last ``.``."""
    for i, c in _outside_brackets(local):
        if c == ".":
            return -1
        if c == ":" and local[i - 1:i] != ":" and local[i + 1:i + 2] != ":":
            return i if 0 < i < len(local) - 1 else -1
    return -1


def call_base(local: str) -> str:
    """What a call of ``local`` names: an overload's or a trait method's name without its
    parameter list or trait (``C.m(int)`` → ``C.m``, ``T.fmt:Display`` → ``T.fmt``); an
    accessor or any other name is returned unchanged."""
    if local.endswith(ROLES) or (":" not in local and not local.endswith(")")):
        return local
    i = _overload_start(local)
    if i > 0:
        return local[:i]
    i = _trait_start(local)
    return local[:i] if i > 0 else local


def base_local(local: str) -> str:
    """The name a user types for ``local``: without an accessor role, an overload's
    parameter list or a trait (``Class.prop:setter`` → ``Class.prop``, ``Class.m(int)`` →
    ``Class.m``, ``T.fmt:Display`` → ``T.fmt``)."""
    for role in ROLES:
        if local.endswith(role):
            return local[:-len(role)]
    return call_base(local)


def split_qname(spec: str) -> tuple[str, str] | None:
    """``(path, local)`` of a ``path::local`` qualified name, or None when ``spec`` has no
    path part. The path ends at the first ``::`` outside brackets (an overload's parameter
    list, a trait's generic arguments), so ``Foo.m(std::string)`` and
    ``E.from:From<io::Error>`` have none and ``a.cc::Foo.m(std::string)`` is
    (``a.cc``, ``Foo.m(std::string)``)."""
    if "::" not in spec:
        return None
    for j, c in _outside_brackets(spec, from_end=False):
        if c == ":" and spec.startswith("::", j):
            return spec[:j], spec[j + 2:]
    return None


def simple_name(qname: str) -> str:
    """The simple name a qualified or local name ends with: ``a.py::C.m(int)`` → ``m``,
    ``C.p:setter`` → ``p``, ``f#2`` → ``f`` (the last ``.`` outside brackets counts)."""
    sp = split_qname(qname)
    local = base_local((sp[1] if sp else qname).split("#", 1)[0])
    return next((local[i + 1:] for i, c in _outside_brackets(local) if c == "."), local)
