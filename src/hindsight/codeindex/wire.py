"""The compact form in which a parse worker hands one file to a full build (issue 14).

Everything per row is done in the worker, in parallel: symbol rows come ready for the store
(case fold computed, signature and docstring redacted), note texts redacted, the file's
:class:`~hindsight.codeindex.resolve.FileSyms` built for resolution (its ``module`` is set
by the main process, which knows the package layout), references as plain tuples. The
main process only unpickles what it uses (plain tuples of str/int pickle and unpickle at
C speed; NamedTuples would call a constructor per row). The references are pickled into
bytes by the worker: the main process only holds those bytes, and each forked resolver
unpickles those of its own share of the files.

A wire is a tuple; :data:`PATH` … :data:`REFS` name its positions.
"""

from __future__ import annotations

import pickle
from typing import Any, cast

from hindsight.codeindex.resolve import FileSyms
from hindsight.models import ParseResult
from hindsight.redact import clean, may_hold_secret

(PATH, LANGUAGE, CONTENT_HASH, SIZE, MTIME_NS, LINES, PACKAGE, ERROR, SKIP, SYMBOLS, NOTES,
 FILESYMS, REFS) = range(13)


def file_syms(r: ParseResult, module: str) -> FileSyms:
    """What resolution needs to know about the parsed file ``r`` whose module is
    ``module`` (``""`` outside Python); signatures redacted as the stored symbols' are."""
    sigs = [s.signature for s in r.symbols]
    if may_hold_secret("\n".join(sigs)):
        sigs = [clean(t) for t in sigs]
    return FileSyms.build(
        r.path, r.language, module, r.package,
        ((s.local, s.name, s.kind, s.parent, sig, s.start_line)
         for s, sig in zip(r.symbols, sigs, strict=True)),
        ((i.caller, i.module, i.name, i.alias, i.line) for i in r.imports),
        ((x.caller, x.name, x.receiver, x.line) for x in r.refs if x.kind == "inherits"),
        r.facts)


Rows = tuple[list[tuple[Any, ...]], list[tuple[str, str, str, str, int]],
             list[tuple[str, str, str, str, int]], str, list[tuple[str, int, str]],
             list[tuple[str, str, str, int]]]


def skipped(path: str, language: str, content_hash: str, size: int, mtime_ns: int,
            skip: str, error: str = "") -> tuple[Any, ...]:
    """The wire of a file that is not indexed (``skip`` says why) or could not be read."""
    return (path, language, content_hash, size, mtime_ns, 0, "", error, skip, [], [], None, [])


def from_rows(path: str, language: str, content_hash: str, size: int, mtime_ns: int,
              lines: int, error: str, rows: Rows) -> tuple[Any, ...]:
    """The wire of a parsed file from :func:`hindsight.codeindex.parse.extract_rows`'
    ``rows``: symbol rows ``(name, local, fold, kind, parent, start_line, start_col,
    end_line, end_col, signature, doc, language, ast_hash)`` with signature and doc
    redacted, note rows ``(src, line, text)`` redacted, the FileSyms (with the file's
    receiver facts ``(scope, target, value, line)``, :mod:`hindsight.codeindex.receivers`,
    which the main process stages from it) and the refs ``(caller, kind, name, receiver,
    line)`` (the FileSyms as :meth:`FileSyms.dumps` bytes, stored as they are in the bank:
    :func:`unpack_filesyms`; the refs pickled: :func:`unpack_refs`)."""
    syms, refs, imps, package, notes, facts = rows
    # one check clears every signature and docstring of the file (most files)
    if may_hold_secret("\n".join([t for s in syms for t in (s[9], s[10])])):
        srows = [(s[1], s[2], _fold(s[1]), s[3], s[4], s[5], s[6], s[7], s[8],
                  clean(s[9]), clean(s[10]), s[11], s[12]) for s in syms]
    else:
        srows = [(s[1], s[2], _fold(s[1]), *s[3:]) for s in syms]
    fs = FileSyms.build(path, language, "", package,  # signatures as stored: redacted
                        ((s[1], s[0], s[3], s[4], s[9], s[5]) for s in srows), imps,
                        ((c, n, r, ln) for c, k, n, r, ln in refs if k == "inherits"), facts)
    return (path, language, content_hash, size, mtime_ns, lines, package, error, "", srows,
            [(src, line, clean(text)) for src, line, text in notes], fs.dumps(), _pack(refs))


def _fold(name: str) -> str:
    """The case fold of ``name``, as the same object when unchanged (pickled once)."""
    f = name.casefold()
    return name if f == name else f


def _pack(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def unpack_filesyms(blob: bytes, module: str) -> FileSyms:
    """The FileSyms of a wire, with its ``module`` set."""
    return FileSyms.loads(blob, module)


def unpack_refs(blob: bytes) -> list[tuple[str, str, str, str, int]]:
    """The refs ``(caller, kind, name, receiver, line)`` of a wire."""
    refs: list[tuple[str, str, str, str, int]] = pickle.loads(blob)
    return refs


def index_wire(r: ParseResult) -> tuple[Any, ...]:
    """The wire of a :class:`ParseResult` (few files parsed without a pool, read errors)."""
    if r.skip:
        return skipped(r.path, r.language, r.content_hash, r.size, r.mtime_ns, r.skip, r.error)
    rows = ([tuple(s) for s in r.symbols], [tuple(x) for x in r.refs],
            [tuple(i) for i in r.imports], r.package, r.hindsight_notes, r.facts)
    return from_rows(r.path, r.language, r.content_hash, r.size, r.mtime_ns, r.lines, r.error,
                     cast(Rows, rows))
