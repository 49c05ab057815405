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

import bisect
import marshal
import re
from collections.abc import Callable
from typing import Any

from hindsight.codeindex.bindings import AFTER, BRANCH, GLOBAL, NARROW, SCOPED
from hindsight.codeindex.receivers import PROVIDES
from hindsight.codeindex.table import FileSyms
from hindsight.store.base import CodeStore

_PART = re.compile(r"[A-Za-z_$][\w$]*")
_DIGITS = re.compile(r"\d+")
_LINE_VALUED = (BRANCH, SCOPED, GLOBAL)  # fact target suffixes whose values are lines
_NARROWED = (NARROW, AFTER + NARROW)
_NARROW_LINE = re.compile(r"(?<=!)-(\d+)-")


def _line_norm(fs: FileSyms) -> Callable[[str, int], Any]:
    """Lines as resolution's order sees them, so that lines moved by an edit above leave a
    definition unchanged: a module-level line (an import or fact of the module scope, a
    top-level ``def``) becomes its rank among the module-level lines (their order is what
    decides which binding a module-level statement sees); a line inside a top-level
    definition becomes its distance from the definition's first line (a class's members
    keep their order and gaps)."""
    top = {line for caller, _m, _n, _a, line in fs.imports if not caller}
    top |= {line for scope, target, _v, line in fs.raw_facts if not scope and target != PROVIDES}
    top |= {line for local, line in fs.def_lines.items() if "." not in local}
    order = sorted(top)
    anchor: dict[str, int] = {}
    for local, line in [*fs.starts.items(), *fs.def_lines.items(),
                        *((c, ln) for c, _m, _n, _a, ln in fs.imports if c),
                        *((sc, ln) for sc, t, _v, ln in fs.raw_facts if sc and t != PROVIDES)]:
        if line > 0:  # (a decorator's fact has line 0)
            g = local.split(".", 1)[0]
            anchor[g] = min(anchor.get(g, line), line)

    def norm(local: str, line: int) -> Any:
        if line <= 0:
            return line
        if not local or ("." not in local and local not in anchor):
            return ("rank", bisect.bisect_left(order, line))  # module-level lines before it
        return line - anchor.get(local.split(".", 1)[0], 0)
    return norm


def _lines_in(value: str, pattern: re.Pattern[str], scope: str,
              norm: Callable[[str, int], Any]) -> str:
    """``value`` with the line numbers ``pattern`` finds (its last group) normalised."""
    def one(m: re.Match[str]) -> str:
        return m.group(0).replace(m.group(m.lastindex or 0), repr(norm(scope, int(
            m.group(m.lastindex or 0)))))
    return pattern.sub(one, value)


def _items(fs: FileSyms) -> dict[str, list[Any]]:
    """Everything resolution reads of ``fs``, grouped by the local name it is about, with
    lines as :func:`_line_norm` gives them."""
    out: dict[str, list[Any]] = {}
    norm = _line_norm(fs)

    def add(key: str, *item: Any) -> None:
        out.setdefault(key, []).append(item)

    for name, kind in fs.top.items():
        add(name, "top", kind)
    for parent, ms in fs.members.items():
        for name, local in ms.items():
            add(parent, "member", name, local)
    for field in ("kinds", "parents", "recv_var", "sigs"):
        for local, v in getattr(fs, field).items():
            add(local, field, v)
    for local, line in fs.starts.items():
        add(local, "start", norm(local, line))
    for local, line in fs.def_lines.items():  # a top-level def: its rank among the module's
        add(local, "def", norm("" if "." not in local else local, line))
    for caller, mod, name, alias, line in fs.imports:
        add(alias or name, "import", caller, mod, name, norm(caller, line))
        if caller:
            add(caller, "import", mod, name, alias, norm(caller, line))
    for alias, targets in fs.by_alias.items():
        add(alias, "alias", tuple(targets))
    for caller, name, receiver, _line in fs.inherits:
        add(caller, "base", name, receiver)
    for scope, target, value, line in fs.raw_facts:
        if target == PROVIDES:  # (its digests: indexer's provided keys compare them)
            continue
        if target.endswith(_LINE_VALUED):  # `x~`, `x^`: the value holds lines
            value = _lines_in(value, _DIGITS, scope, norm)
        elif value.startswith(_NARROWED):  # `!x!-line-A|B` (loops.py): after that line
            value = _lines_in(value, _NARROW_LINE, scope, norm)
        add(scope or target, "fact", scope, target, value, norm(scope, line))
    return out


_STOP = frozenset({"self", "cls", "this", "super", "return", "None", "True", "False"})


_REF = re.compile(r"(\.)?([A-Za-z_$][\w$]*)")


def _outside(items: set[Any], known: set[str]) -> set[str]:
    """The identifiers in ``items``' fields a dependent could write: an attribute
    (after a ``.``) or a name of the file (``known``), not a function's local variable."""
    texts: list[str] = []
    _strings([i[1:] for i in items], texts)
    return {m.group(2) for t in texts for m in _REF.finditer(t)
            if m.group(1) or m.group(2) in known}


def _tokens(items: list[Any] | set[Any]) -> set[str]:
    """The identifiers in ``items``' fields (not their tags, ``("fact", …)``)."""
    return set(_PART.findall(repr([i[1:] for i in items]))) - {"rank"}


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
    known = {part for local in a.keys() | b.keys() for part in _PART.findall(local)}
    out: set[str] = set()
    for local in a.keys() | b.keys():
        ia, ib = a.get(local), b.get(local)
        if ia == ib:
            continue
        out.update(_PART.findall(local))
        if ia is not None and ib is not None:
            out |= _outside(set(ia) ^ set(ib), known)
    out -= _STOP
    if not out:
        return out
    return _reach([a, b], out)


def _reach(sides: list[dict[str, list[Any]]], out: set[str]) -> set[str]:
    """``out`` (changed in place and returned) grown, to a fixed point, by the parts of
    every local name of ``sides`` whose content names one of its names."""
    users: dict[str, set[str]] = {}  # identifier -> the locals whose content names it
    for side in sides:
        for local, items in side.items():
            for t in _tokens(items):
                users.setdefault(t, set()).add(local)
    todo = [n for n in out if n in users]
    while todo:
        for local in users.get(todo.pop(), ()):
            for part in _PART.findall(local):
                if part not in out and part not in _STOP:
                    out.add(part)
                    todo.append(part)
    return out


def reaching(fs: FileSyms, names: set[str]) -> set[str]:
    """The names of dependent ``fs`` that reach one of ``names`` (its locals whose content
    names them, to a fixed point), with ``names``: a file that depends on ``fs`` and
    writes only ``g`` is affected when ``fs``'s ``def g(): return make()`` reaches a
    changed ``make`` of a third file (break-it of session 41)."""
    return _reach([_items(fs)], set(names))


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _strings(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings(k, out)
            _strings(v, out)


def identifiers(dump: bytes | None, refs: list[tuple[Any, ...]]) -> set[str] | None:
    """The identifiers of a dependent's stored dump (:meth:`FileSyms.dumps`) and its call
    sites (``refs``: tuples of strings and line numbers), or None when the dump is
    missing or cannot be read (the dependent counts as affected by any change)."""
    if dump is None:
        return None
    texts: list[str] = []
    try:
        _strings(marshal.loads(dump), texts)
    except (ValueError, EOFError, TypeError):
        return None
    _strings(refs, texts)
    return set(_PART.findall("\n".join(texts)))


def edit_names(olds: list[tuple[str, FileSyms | None]], fresh: dict[str, FileSyms]
               ) -> set[str] | None:
    """:func:`changed_names` over several edited files (``olds``: (path, the version
    stored, None for a new file); ``fresh``: path → the version parsed now), or None when
    some change is not per name."""
    out: set[str] = set()
    for path, old in olds:
        n = changed_names(old, fresh[path])
        if n is None:
            return None
        out |= n
    return out


def enumeration_changed(key: str, fs: FileSyms, names: set[str] | None) -> bool:
    """Whether a file enumerating the provided ``key`` of ``fs`` may resolve otherwise
    after a change of ``names``: for ``sub:B``, only when a class of ``fs`` based on ``B``
    is among them (a base imported under another name: always); other keys (``arg:``,
    ``impl:``…) always."""
    if not key.startswith("sub:") or names is None:
        return True
    subs = {c.split(".", 1)[0] for c, n, _r, _l in fs.inherits if n == key[4:]}
    return not subs or not subs.isdisjoint(names)


def affected_by_name(store: CodeStore, table: Any, rerun: list[str],
                      refs: dict[str, list[Any]], id_of: dict[str, int],
                      names: set[str] | None, forced: set[str]) -> list[str]:
    """Of the dependents ``rerun``, those an edit that changed ``names`` may resolve
    otherwise (all when ``names`` is None; codeindex/interface.py): a dependent that
    writes one of them, or enumerates what changed (``forced``); then, to a fixed point,
    one that writes a name of an affected dependent reaching them (a chain through a third
    file: ``g`` returning ``make()``) or enumerates an affected dependent's provided keys
    (its call sites, its subclasses)."""
    if names is None:
        return rerun
    names, forced = set(names), set(forced)
    vocab = {p: identifiers(store.load_dump(id_of[p]), refs[p]) for p in rerun}
    hit: set[str] = set()
    grew = True
    while grew:
        grew = False
        for p in rerun:
            words = vocab[p]
            if p in hit or not (p in forced or words is None or not names.isdisjoint(words)):
                continue
            hit.add(p)
            grew = True
            fs = table.get(p)
            if fs is not None:
                names |= reaching(fs, names)
                if fs.provided:
                    forced |= store.dependents(set(fs.provided))
    return [p for p in rerun if p in hit]
