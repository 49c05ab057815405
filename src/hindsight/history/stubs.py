"""Overload stubs and signatures, which are no symbols: which implementation a line of one
belongs to, for ``why`` to say so (a fresh-user trial: an ``@overload`` stub line; break-it
40: a TypeScript overload signature line was answered by git blame with no word).

A Python ``@overload`` stub is a ``def`` decorated with ``overload`` (``typing.overload``,
an alias) whose body is ``...`` or ``pass``; a TypeScript overload signature is a
``function f(…): T;`` or a class member ``m(…): T;`` with no body, followed in the same
scope by the implementation (TypeScript handbook, "Function Overloads").
"""

from __future__ import annotations

import re

from hindsight.codeindex.propreads import decorators, source_lines
from hindsight.models import Symbol

_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)")
_OVERLOAD = re.compile(r"\s*@(?:[\w.]+\.)?overload\b")
_TS_FUNCTION = re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?"
                          r"function\s*\*?\s*([\w$]+)\s*[<(]")
_TS_MEMBER = re.compile(r"^\s*(?:(?:public|private|protected|static|readonly|abstract|"
                        r"override|async|declare)\s+)*([\w$]+)\s*\??\s*[<(]")
TS = frozenset({"typescript", "tsx"})


def _python_stub(lines: list[str], line: int, lo: int) -> str:
    """The name of the ``@overload`` stub holding ``line`` (1-based; its decorator lines
    too), searching no higher than 0-based line ``lo``, else ``""``."""
    i = min(line, len(lines)) - 1
    while i + 1 < len(lines) and lines[i].lstrip().startswith("@"):
        i += 1  # a decorator line: the stub is the def below
    line = max(line, i + 1)
    while i >= lo and not _DEF.match(lines[i]):
        i -= 1
    m = _DEF.match(lines[i]) if i >= lo else None
    end = next((k for k in range(i, len(lines)) if lines[k].rstrip().endswith(("...", "pass"))),
               -1) if m else -1
    if end < line - 1:  # the stub (`def f(...) -> T: ...`) ends above the line
        return ""
    if m and any(_OVERLOAD.match(d) for d in decorators(lines, i)):
        return m.group(1)
    return ""


def overload_stub(root: str, path: str, line: int, cls: Symbol) -> str:
    """The name of the Python ``@overload`` stub holding ``line`` (1-based) in class
    ``cls``'s body, else ``""``: the nearest ``def`` at or above it, decorated with
    ``overload`` (a stub is no symbol: its lines fall in the class body)."""
    if cls.language != "python":
        return ""
    lines = source_lines(root, path)
    return _python_stub(lines, line, cls.start_line) if lines else ""


def overload_signature(root: str, path: str, line: int, scope: Symbol | None,
                       symbols: list[Symbol]) -> Symbol | None:
    """The implementation whose TypeScript overload signature (or Python module-level
    ``@overload`` stub) holds ``line`` (1-based), else None. ``scope``: the class whose
    body holds the line, or None at module level; ``symbols``: the file's symbols. The
    implementation is the symbol named so in the same scope that starts below the line."""
    lang = scope.language if scope else (symbols[0].language if symbols else "")
    if lang not in TS and not (lang == "python" and scope is None):
        return None
    lines = source_lines(root, path)
    if not lines or line > len(lines):
        return None
    lo = scope.start_line if scope else 0  # 0-based index of the scope's first line + 1
    i = line - 1
    if lang == "python":
        name, start = _python_stub(lines, line, 0), line
        if not name:
            return None
    else:
        pattern = _TS_MEMBER if scope else _TS_FUNCTION
        while i >= lo and not pattern.match(lines[i]):
            if lines[i].rstrip().endswith((";", "{", "}")) and i != line - 1:
                return None  # another statement ends between the line and a signature
            i -= 1
        m = pattern.match(lines[i]) if i >= lo else None
        if not m:
            return None
        end = next((k for k in range(i, len(lines)) if lines[k].rstrip().endswith(";")), -1)
        if end < line - 1 or "{" in "".join(lines[i:end + 1]).split(")")[-1]:
            return None  # the line is below the signature's `;`, or it has a body
        name, start = m.group(1), end + 1
    local = f"{scope.local}.{name}" if scope else name
    return next((s for s in symbols if s.local == local and s.start_line > start), None)
