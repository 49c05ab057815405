"""Reads and writes of properties, found when asked (a fresh-user trial: ``callers
Option.is_bool_flag`` said "no callers" for a property read 14 times, so ``impact`` said a
change was safe).

A property is run by an attribute access, not a call, so the index keeps no edge for it.
When ``callers`` (and ``impact``, which walks callers) reach a property, the indexed files
of its language that contain ``.name`` are read and each access ``receiver.name`` that is
not called is resolved as a call of ``name`` on ``receiver`` would be, with the stored
receiver facts (:func:`hindsight.codeindex.indexer.stored_table`): an access whose
receiver is an instance of the property's class (or a subclass) is a caller, ``read``
for the getter and ``write`` (``x.name = v``, also ``x.name += v``) for the setter. An
access whose receiver resolves to nothing stays out (never guessed); their number is
:func:`property_uses`'s second value.

Python properties (``@property``, ``@functools.cached_property``, ``@x.setter``,
``@x.deleter``) and JavaScript/TypeScript accessors (``get x()``, ``set x(v)``) count;
the text scan skips comment lines and accesses inside a quoted string on the line.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from hindsight.codeindex.languages import JS_FAMILY
from hindsight.models import Symbol, innermost, simple_name

if TYPE_CHECKING:
    from hindsight.codeindex.query import GraphHit
    from hindsight.codeindex.table import FileSyms
    from hindsight.store.base import CodeStore

_PY_DECORATOR = re.compile(
    r"^\s*@(?:[\w.]+\.)?(?:property|cached_property|\w+\.(?:setter|getter|deleter))\b")
_JS = JS_FAMILY
_FAMILY = {"tsx": "typescript"}
MAX_FILE_BYTES = 2 * 1024 * 1024  # as the index's own limit (worker.MAX_FILE_BYTES)


def is_property(root: str, sym: Symbol, cache: dict[str, list[str]] | None = None) -> bool:
    """Whether ``sym`` is a property getter, setter or deleter (Python decorators on the
    lines just above its ``def``; a JavaScript/TypeScript ``get``/``set`` accessor).
    ``cache``: path -> lines, kept across calls for symbols of one file."""
    if sym.kind not in ("method", "function", "property"):
        return False
    if sym.local.endswith((":setter", ":deleter")):
        return True
    if sym.language in _JS:
        return sym.signature.lstrip().startswith(("get ", "set ", "static get ",
                                                  "static set "))
    if sym.language != "python" or sym.kind != "method":
        return False
    lines = cache.get(sym.path) if cache is not None else None
    if lines is None:
        lines = source_lines(root, sym.path)
        if lines is None:
            return False
        if cache is not None:
            cache[sym.path] = lines
    return any(_PY_DECORATOR.match(d) for d in decorators(lines, sym.start_line - 1))


def source_lines(root: str, path: str) -> list[str] | None:
    """The lines of ``root``/``path`` (its first ``MAX_FILE_BYTES`` bytes, undecodable
    bytes replaced), or None when it cannot be read."""
    try:
        with open(os.path.join(root, path), "rb") as fh:
            return fh.read(MAX_FILE_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return None


def decorators(lines: list[str], i: int) -> list[str]:
    """The decorator lines of the Python definition at 0-based line ``i``: the ``@``
    lines just above it, nearest first, then (when ``i`` is itself a decorator line, as a
    symbol's start may be) it and the ``@`` lines after it."""
    out: list[str] = []
    j = i - 1
    while 0 <= j < len(lines) and lines[j].lstrip().startswith("@"):
        out.append(lines[j])
        j -= 1
    while 0 <= i < len(lines) and lines[i].lstrip().startswith("@"):
        out.append(lines[i])
        i += 1
    return out


def property_uses(store: CodeStore, root: str, target: Symbol, depth: int
                  ) -> tuple[list[GraphHit], list[GraphHit]]:
    """``(hits, unresolved)``: the accesses of property ``target`` (see the module doc) as
    callers at ``depth``, each with its line (1-based), and the accesses of its name left
    unresolved (``resolved`` false: they may mean another class's attribute). Reads for
    a getter, writes for a setter or deleter (a ``del`` is not looked for)."""
    from hindsight.codeindex.indexer import stored_table
    from hindsight.codeindex.query import GraphHit
    from hindsight.codeindex.resolve import resolve_file

    name = simple_name(target.local.rpartition(":")[0] if ":" in target.local
                       else target.local)
    writes = target.local.endswith((":setter", ":deleter"))
    getter = target.qname.rpartition(":")[0] if writes else target.qname
    access = re.compile(r"((?:[A-Za-z_]\w*(?:\(\))?\.)*[A-Za-z_]\w*(?:\(\))?)\."
                        + re.escape(name) + r"\b(?!\s*\()(\s*(?:[-+*/%&|^@]|//|<<|>>)?=(?!=))?")
    family = _FAMILY.get(target.language, target.language)
    table = None
    reparsed = 0
    hits: list[GraphHit] = []
    unresolved: list[GraphHit] = []
    for path, fr in sorted(store.load_files().items()):
        if _FAMILY.get(fr.language, fr.language) != family:
            continue
        found = _accesses(root, path, name, access, writes)
        if not found:
            continue
        table = table or stored_table(store, root)
        fs = table.get(path)
        if fs is None:
            continue
        syms = sorted(store.file_symbols(path), key=lambda s: (s.start_line, -s.end_line))
        refs = [(_scope(syms, line), "call", name, recv, line) for line, recv in found]
        rows, _keys = resolve_file(table, fs, refs)
        got = {(r[0], r[5]) for r in rows if r[6] == getter}
        other = {(r[0], r[5]) for r in rows if r[6] and r[6] != getter and r[2] == name}
        left = [x for x in refs if (x[0], x[4]) not in got | other]
        if left and fr.language == "python" and reparsed < MAX_REPARSE:
            reparsed += 1  # `x = C(); x.p`: the index keeps no binding of x (no call on it)
            full = _with_locals(root, path, fs.module)
            rows = resolve_file(table, full, left)[0] if full is not None else []
            got |= {(r[0], r[5]) for r in rows if r[6] == getter}
            other |= {(r[0], r[5]) for r in rows if r[6] and r[6] != getter and r[2] == name}
        callers = {s.local: s for s in syms}
        via = "write" if writes else "read"
        for src, line in sorted({(s, ln) for s, _k, _n, _r, ln in refs} - (other - got)):
            sym = callers.get(src)
            qname = f"{path}::{src}"
            ok = (src, line) in got
            (hits if ok else unresolved).append(GraphHit(
                depth, qname, src or "<module>", path, line, sym.kind if sym else "module",
                via, ok, sym, qname, target.qname if ok else f"?{name}"))
    return hits, unresolved


MAX_REPARSE = 50  # files read again with every local binding, per question


def _with_locals(root: str, path: str, module: str) -> FileSyms | None:
    """What resolution knows about file ``path`` as on disk, with the bindings of every
    local variable (:data:`~hindsight.codeindex.bindings.KEEP_LOCALS`); None when it
    cannot be read or is too large."""
    from hindsight.codeindex.bindings import KEEP_LOCALS
    from hindsight.codeindex.wire import file_syms
    from hindsight.codeindex.worker import parse_bytes

    try:
        with open(os.path.join(root, path), "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_FILE_BYTES:
        return None
    token = KEEP_LOCALS.set(True)
    try:
        return file_syms(parse_bytes(path, "python", raw), module)
    finally:
        KEEP_LOCALS.reset(token)


def _accesses(root: str, path: str, name: str, access: re.Pattern[str], writes: bool
              ) -> list[tuple[int, str]]:
    """(line, receiver text) of the accesses of ``.name`` in a file that read it (or,
    with ``writes``, assign it)."""
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError:
        return []
    if len(data) > MAX_FILE_BYTES or f".{name}".encode() not in data:
        return []
    out: list[tuple[int, str]] = []
    for i, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if f".{name}" not in line or line.lstrip().startswith(("#", "//", "*", "/*")):
            continue
        for m in access.finditer(line):
            before = line[:m.start()]
            if before.count('"') % 2 or before.count("'") % 2:
                continue  # inside a string
            assigned = bool(m.group(2))
            augmented = assigned and m.group(2).strip() != "="
            if (writes and assigned) or (not writes and (not assigned or augmented)):
                out.append((i, m.group(1)))
    return out


def _scope(syms: list[Symbol], line: int) -> str:
    """The local name of the innermost function, method or class around ``line`` ("":
    module level)."""
    best = innermost(syms, line, _SCOPE_KINDS)
    return best.local if best is not None else ""


_SCOPE_KINDS = frozenset(("function", "method", "class", "constructor", "property"))
