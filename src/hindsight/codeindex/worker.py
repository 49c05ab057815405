"""Read, decode and parse files; runs inside worker processes.

Each worker loads grammars lazily (cached per process) and returns plain picklable
:class:`~hindsight.models.ParseResult` objects. Nothing here touches the database.
"""

from __future__ import annotations

import os
import re
from typing import Any

import xxhash

from hindsight.codeindex.decode import looks_binary, normalise
from hindsight.codeindex.languages import get
from hindsight.codeindex.parse import extract, extract_rows
from hindsight.models import ParseResult


def content_hash(data: bytes) -> str:
    """xxh3-128 of raw file bytes as 32 hex digits (identity of a file version)."""
    return xxhash.xxh3_128_hexdigest(data)


def parse_bytes(path: str, language: str, raw: bytes, mtime_ns: int = 0) -> ParseResult:
    """Parse ``raw`` file bytes as ``language``; ``path`` is repository-relative.

    Never raises for bad source: syntax errors give a partial result with ``error`` set to
    ``"syntax error at line N"`` (1-based, first error).
    """
    src, tree, lines, error = _parse(language, raw)
    res = ParseResult(path=path, language=language, content_hash=content_hash(raw),
                      size=len(raw), mtime_ns=mtime_ns, lines=lines, error=error)
    (res.symbols, res.refs, res.imports, res.package, res.hindsight_notes,
     res.facts) = extract(
        path, language, src, tree)
    return res


def _parse(language: str, raw: bytes) -> tuple[bytes, Any, int, str]:
    """(normalised source, tree, line count, ``syntax error at line N`` or "").

    A NUL byte past the first 8 KiB (a text file with a stray NUL; earlier, the file is
    binary: :func:`content_skip_reason`) is read as a space, byte offsets and lines
    unchanged: grammars take NUL for the end of input, which dropped every symbol after
    it and reported a syntax error at a wrong line. The error then names its line
    (``NUL byte at line N (read as a space)``)."""
    src, _enc = normalise(raw)
    nul = src.find(b"\0")
    if nul >= 0:
        src = src.replace(b"\0", b" ")
    tree = get(language).parser.parse(src)
    lines = src.count(b"\n") + (1 if src and not src.endswith(b"\n") else 0)
    root = tree.root_node
    error = _first_error(root) if root.has_error else ""
    if nul >= 0:
        line = src.count(b"\n", 0, nul) + 1
        at = f"NUL byte at line {line} (read as a space)"
        error = f"{at}; {error}" if error else at
    return src, tree, lines, error


def _first_error(root: object) -> str:
    """Describe the first ERROR or MISSING node (depth-first), 1-based line."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:  # type: ignore[attr-defined]
            what = "missing " + n.type if n.is_missing else "syntax error"  # type: ignore[attr-defined]
            return f"{what} at line {n.start_point[0] + 1}"  # type: ignore[attr-defined]
        if n.has_error:  # type: ignore[attr-defined]
            stack.extend(reversed(n.children))  # type: ignore[attr-defined]
    return "syntax error"


def parse_path(root: str, path: str, language: str) -> ParseResult:
    """Read ``root/path`` and parse it. A read failure gives a result with ``error`` set
    and no symbols (the caller records it; nothing raises)."""
    full = os.path.join(root, path)
    try:
        st = os.stat(full)
        with open(full, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        return ParseResult(path=path, language=language, content_hash="", size=0, mtime_ns=0,
                           lines=0, error=f"unreadable: {e.strerror or e}")
    reason = content_skip_reason(path, raw)
    if reason:
        return ParseResult(path=path, language=language, content_hash=content_hash(raw),
                           size=len(raw), mtime_ns=st.st_mtime_ns, lines=0, skip=reason)
    return parse_bytes(path, language, raw, st.st_mtime_ns)


def _minified(path: str, src: bytes) -> bool:
    """``*.min.*`` names; or, in a JavaScript file (:data:`MINIFIABLE`) over
    ``MINIFIED_MIN_BYTES``, lines over ``LONG_LINE`` bytes that look like code and are
    not data (a line inside a template literal, or one string literal: :func:`_in_string`)
    hold at least half the bytes (see :func:`content_skip_reason`)."""
    base = path.rsplit("/", 1)[-1]
    if ".min." in base:
        return True
    if not base.endswith(MINIFIABLE) or len(src) <= MINIFIED_MIN_BYTES or \
            not _has_long_line(src):
        return False
    in_long = ticks = 0
    for line in src.split(b"\n"):
        if len(line) > LONG_LINE and not (ticks % 2 or _in_string(line)) and \
                sum(map(line.count, CODE_MARKS)) >= CODE_MARK_SHARE * len(line) and \
                sum(map(line.count, CODE_WORDS)) * 1000 >= CODE_WORDS_PER_KB * len(line):
            in_long += len(line)
        ticks += line.count(b"`")
    return 2 * in_long >= len(src)


def _in_string(line: bytes) -> bool:
    """Whether ``line`` is one string literal after a short head (``const JS = "…";``,
    ``  '…' +``): it starts with a quote within its first 120 bytes and ends with the same
    quote (then only ``;,)+`` and blanks), which appears nowhere between unescaped."""
    head = re.match(rb"[\w\s.$=:,(\[+]{0,120}?([\"'])", line)
    if head is None:
        return False
    q, start = head.group(1), head.end()
    body = line.rstrip(b" \t;,)+")
    return len(body) > start and body.endswith(q) and \
        body.count(q, start, len(body) - 1) == body.count(b"\\" + q, start, len(body) - 1)


def _has_long_line(src: bytes) -> bool:
    """False only when no line is longer than LONG_LINE bytes. Such a line would hold a
    whole aligned block of half that size, so when every block has a newline (the usual
    case, found without splitting the file) there is none."""
    half = LONG_LINE // 2
    return not all(src.find(b"\n", i, i + half) >= 0
                   for i in range(0, len(src) - half + 1, half))


MAX_FILE_BYTES = 2 * 1024 * 1024
MINIFIED_MIN_BYTES = 8192
MINIFIABLE = (".js", ".mjs", ".cjs", ".jsx")
"""Files the content rule reads: the languages whose code is minified for shipping. A long
line of a Python, Go or Rust file is data or generated code, never a reason to skip it (a
Python template holding a minified script was skipped: break-it 40)."""
LONG_LINE = 1000
CODE_MARKS = (b"(", b")", b"{", b"}", b";", b",")
CODE_MARK_SHARE = 0.05
CODE_WORDS = (b"return", b"function", b"=>", b"this.", b"var ", b"typeof", b"const ", b"let ",
              b"new ", b"if(", b"if (", b"def ", b"fn ", b"func ")
CODE_WORDS_PER_KB = 2  # minified JavaScript 14-41, data literals and prose 0-1 (issue #14)


def content_skip_reason(path: str, raw: bytes) -> str:
    """Why a file's content should not be indexed, or ``""``.

    ``too_large`` above ``MAX_FILE_BYTES`` (2 MiB); ``binary`` when a NUL byte appears in the
    first 8 KiB (UTF-16/32 files with a BOM excepted); ``minified`` for ``*.min.*`` names,
    or when most bytes sit in long lines of code: in a JavaScript file over 8 KiB, lines over
    ``LONG_LINE`` (1,000) bytes of which at least 5% are ``( ) { } ; ,`` and with at least
    2 code words per 1,000 bytes (``return``, ``function``, ``=>``, ``this.``, ``var ``…:
    :data:`CODE_WORDS`) hold at least half of the bytes. One long line does not make a
    file minified, and a long data line does not count: an embedded base64 image, a hex
    or escaped-text string (almost none of those marks), a JSON text in a string, a table
    of numbers or tuples, a byte array, an SVG path (none of those words: 0 to 0.01 per
    1,000 bytes, where the longest lines of 8 minified JavaScript files here have 14 to
    41). Measured after decoding and line-end normalisation. Thresholds measured
    (issue #14): the long lines of 135 real ``*.min.js``/``*.min.css`` files have 7.6% to
    15% of those marks, base64 about 0%, English prose about 1-2%; on 6,624 source files
    (a Python stdlib, npm's node_modules, a virtualenv) the content rule alone flags 11
    files, all minified, where the earlier rule (one line over 20,000 bytes, or an average
    line over 400) also skipped 8 files with long data lines (pygments' ``unistring.py``,
    protobuf's ``descriptor_pb2.py``, a wasm blob in base64).
    """
    if len(raw) > MAX_FILE_BYTES:
        return "too_large"
    if looks_binary(raw[:8192]):
        return "binary"
    src = raw
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or raw[:4] == b"\x00\x00\xfe\xff" or b"\r" in raw:
        src = normalise(raw)[0]  # measure lines as the parser will see them
    return "minified" if _minified(path, src) else ""


def parse_wire(root: str, path: str, language: str) -> tuple[Any, ...]:
    """:func:`parse_path` as :meth:`ParseResult.to_wire` (worker entry point)."""
    return parse_path(root, path, language).to_wire()


def index_wire(root: str, path: str, language: str) -> tuple[Any, ...]:
    """:func:`parse_path` in the compact form of a full build (see
    :mod:`hindsight.codeindex.wire`; worker entry point), built from plain tuples."""
    from hindsight.codeindex import wire

    full = os.path.join(root, path)
    try:
        st = os.stat(full)
        with open(full, "rb") as fh:
            raw = fh.read()
    except OSError:
        return wire.index_wire(parse_path(root, path, language))  # records the error
    reason = content_skip_reason(path, raw)
    h = content_hash(raw)
    if reason:
        return wire.skipped(path, language, h, len(raw), st.st_mtime_ns, reason)
    src, tree, lines, error = _parse(language, raw)
    return wire.from_rows(path, language, h, len(raw), st.st_mtime_ns, lines, error,
                          extract_rows(path, language, src, tree))


def parse_batch(root: str, items: list[tuple[str, str]]) -> list[ParseResult]:
    """Parse a batch of ``(path, language)`` pairs under ``root`` (worker entry point)."""
    return [parse_path(root, p, lang) for p, lang in items]


def failed_wire(wire: str, path: str, language: str, exc: BaseException) -> tuple[Any, ...]:
    """What a worker sends for a file its extraction failed on (a bug, not bad input:
    ``RecursionError`` on an unforeseen nesting, say): no symbols, and the error
    ``extraction failed: <exception type>`` that ``status --files`` lists. The content
    hash is left empty, so the next ``index`` tries the file again. ``wire`` is
    ``"parse"`` or ``"index"`` (see :data:`hindsight.codeindex.pool.WIRES`)."""
    from hindsight.codeindex import wire as W

    res = ParseResult(path=path, language=language, content_hash="", size=0, mtime_ns=0,
                      lines=0, error=f"extraction failed: {type(exc).__name__}")
    return W.index_wire(res) if wire == "index" else res.to_wire()
