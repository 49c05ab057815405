"""The compact form in which a parse worker hands one file to a full build (issue 14).

Everything per row is done in the worker, in parallel: symbol rows come ready for the store
(case fold computed, signature and docstring redacted), note texts redacted, the file's
:class:`~hindsight.codeindex.resolve.FileSyms` built for resolution (its ``module`` is set
by the main process, which knows the package layout), references as plain tuples. The
main process only unpickles these (plain tuples, lists, dicts and str/int pickle and
unpickle at C speed; NamedTuples would call a constructor per row) and hands the rows on.

A wire is a tuple; :data:`PATH` … :data:`REFS` name its positions.
"""

from __future__ import annotations

from typing import Any

from hindsight.codeindex.resolve import FileSyms
from hindsight.models import ParseResult
from hindsight.redact import clean

(PATH, LANGUAGE, CONTENT_HASH, SIZE, MTIME_NS, LINES, PACKAGE, ERROR, SKIP, SYMBOLS, NOTES,
 FILESYMS, REFS) = range(13)


def file_syms(r: ParseResult, module: str) -> FileSyms:
    """What resolution needs to know about the parsed file ``r`` whose module is
    ``module`` (``""`` outside Python)."""
    return FileSyms.build(
        r.path, r.language, module, r.package,
        ((s.local, s.name, s.kind, s.parent, s.signature) for s in r.symbols),
        ((i.caller, i.module, i.name, i.alias, i.line) for i in r.imports),
        ((x.caller, x.name, x.receiver, x.line) for x in r.refs if x.kind == "inherits"))


def index_wire(r: ParseResult) -> tuple[Any, ...]:
    """``r`` as a wire tuple: file fields, symbol rows ``(name, local, fold, kind, parent,
    start_line, start_col, end_line, end_col, signature, doc, language, ast_hash)`` with
    signature and doc redacted, note rows ``(src, line, text)`` redacted, the FileSyms
    (``None`` for a skipped file) and refs ``(caller, kind, name, receiver, line)``."""
    syms = [(s.name, s.local, s.name.casefold(), s.kind, s.parent, s.start_line, s.start_col,
             s.end_line, s.end_col, clean(s.signature), clean(s.doc), s.language, s.ast_hash)
            for s in r.symbols]
    notes = [(src, line, clean(text)) for src, line, text in r.hindsight_notes]
    fs = None if r.skip else file_syms(r, "")
    return (r.path, r.language, r.content_hash, r.size, r.mtime_ns, r.lines, r.package,
            r.error, r.skip, syms, notes, fs, [tuple(x) for x in r.refs])
