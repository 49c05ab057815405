"""Which names a file's edit changed, as the files that depend on it see them.

An incremental index re-resolves the files that recorded a dependency on an edited file
(``deps``). Most of those resolve nothing the edit touched: appending a function, or
editing a body in place, changes what resolution knows of that one definition only. So
the two versions' :class:`~hindsight.codeindex.table.FileSyms` are compared per local
qualified name (kind, parent, members, signature, first line, imports bound to it, bases,
receiver facts in its scope or on it as a module-level target), and a dependent is
re-resolved only when its stored dump or its call sites mention one of the changed names'
parts (``C.m`` → ``C`` and ``m``): whatever it resolves through an unchanged name resolves
as before. A change that is not per name (wildcard imports, a class's bases) answers
None: every dependent is re-resolved, as before this module.
"""

from __future__ import annotations

import re
from typing import Any

from hindsight.codeindex.table import FileSyms

_PART = re.compile(r"[A-Za-z_$][\w$]*")


def _items(fs: FileSyms) -> dict[str, list[Any]]:
    """Everything resolution reads of ``fs``, grouped by the local name it is about."""
    out: dict[str, list[Any]] = {}

    def add(key: str, *item: Any) -> None:
        out.setdefault(key, []).append(item)

    for name, kind in fs.top.items():
        add(name, "top", kind)
    for parent, ms in fs.members.items():
        for name, local in ms.items():
            add(parent, "member", name, local)
    for field in ("kinds", "parents", "recv_var", "sigs", "starts", "def_lines"):
        for local, v in getattr(fs, field).items():
            add(local, field, v)
    for caller, mod, name, alias, line in fs.imports:
        add(alias or name, "import", caller, mod, name, line)
        if caller:
            add(caller, "import", mod, name, alias, line)
    for alias, targets in fs.by_alias.items():
        add(alias, "alias", tuple(targets))
    for caller, name, receiver, line in fs.inherits:
        add(caller, "base", name, receiver, line)
    for scope, target, value, line in fs.raw_facts:
        add(scope or target, "fact", scope, target, value, line)
    return out


_STOP = frozenset({"self", "cls", "this", "super", "return", "None", "True", "False"})


def _tokens(items: list[Any] | set[Any]) -> set[str]:
    return set(_PART.findall(repr(items)))


def _bases(fs: FileSyms) -> list[tuple[str, str, str]]:
    return sorted((c, n, r) for c, n, r, _line in fs.inherits)


def changed_names(old: FileSyms | None, new: FileSyms | None) -> set[str] | None:
    """The names a dependent must mention to be affected by the change from ``old`` to
    ``new``, or None when the change is not per name (either side missing: a file added
    or deleted; wildcard imports, language or package changed). They are the parts of
    every local name whose resolution-facing content differs (``C.m`` → ``C``, ``m``);
    for one in both versions also the identifiers of what differs (an attribute's new
    type: ``self.repo = Repo()`` → ``repo``, ``Repo``); then, to a fixed point, the parts
    of every local name whose content names one of them (``def f() -> C`` when ``C``'s
    import changed: a dependent reaches ``C`` through ``f`` without writing ``C``)."""
    if old is None or new is None or old.wildcards != new.wildcards or \
            (old.language, old.package) != (new.language, new.package) or \
            _bases(old) != _bases(new):
        return None  # (other bases: every member reached through the class may differ)
    a, b = _items(old), _items(new)
    out: set[str] = set()
    for local in a.keys() | b.keys():
        ia, ib = a.get(local), b.get(local)
        if ia == ib:
            continue
        out.update(_PART.findall(local))
        if ia is not None and ib is not None:
            out |= _tokens(set(ia) ^ set(ib))
    out -= _STOP
    if not out:
        return out
    users: dict[str, set[str]] = {}  # identifier -> the locals whose content names it
    for side in (a, b):
        for local, items in side.items():
            for t in _tokens(items):
                users.setdefault(t, set()).add(local)
    todo = list(out)
    while todo:
        for local in users.get(todo.pop(), ()):
            for part in _PART.findall(local):
                if part not in out and part not in _STOP:
                    out.add(part)
                    todo.append(part)
    return out


def mentions(dump: bytes | None, refs: list[tuple[Any, ...]], names: set[str]) -> bool:
    """True when a dependent's stored dump (:meth:`FileSyms.dumps`: marshal keeps each
    string's bytes) or its call sites (``refs``: tuples of strings and line numbers)
    hold one of ``names`` as a substring (a conservative test: a longer name containing
    it counts too); True as well when the dump is missing."""
    if not names:
        return False
    if dump is None:
        return True
    text = dump + "\n".join(str(x) for r in refs for x in r).encode("utf-8", "replace")
    return any(n.encode("utf-8") in text for n in names)
