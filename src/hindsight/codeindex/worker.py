"""Read, decode and parse files; runs inside worker processes.

Each worker loads grammars lazily (cached per process) and returns plain picklable
:class:`~hindsight.models.ParseResult` objects. Nothing here touches the database.
"""

from __future__ import annotations

import os

import xxhash

from hindsight.codeindex.decode import looks_binary, normalise
from hindsight.codeindex.languages import get
from hindsight.codeindex.parse import extract
from hindsight.models import ParseResult


def content_hash(data: bytes) -> str:
    """xxh3-128 of raw file bytes as 32 hex digits (identity of a file version)."""
    return xxhash.xxh3_128_hexdigest(data)


def parse_bytes(path: str, language: str, raw: bytes, mtime_ns: int = 0) -> ParseResult:
    """Parse ``raw`` file bytes as ``language``; ``path`` is repository-relative.

    Never raises for bad source: syntax errors give a partial result with ``error`` set to
    ``"syntax error at line N"`` (1-based, first error).
    """
    src, _enc = normalise(raw)
    loaded = get(language)
    tree = loaded.parser.parse(src)
    res = ParseResult(path=path, language=language, content_hash=content_hash(raw),
                      size=len(raw), mtime_ns=mtime_ns,
                      lines=src.count(b"\n") + (1 if src and not src.endswith(b"\n") else 0))
    root = tree.root_node
    if root.has_error:
        res.error = _first_error(root)
    (res.symbols, res.refs, res.imports, res.package, res.hindsight_notes,
     res.facts) = extract(
        path, language, src, tree)
    return res


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
    base = path.rsplit("/", 1)[-1]
    if ".min." in base:
        return True
    n = src.count(b"\n") + 1
    if len(src) > 8192 and len(src) / n > MAX_AVG_LINE:
        return True
    return len(src) > MAX_LINE_BYTES and max(map(len, src.split(b"\n"))) > MAX_LINE_BYTES


MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_BYTES = 20_000
MAX_AVG_LINE = 400


def content_skip_reason(path: str, raw: bytes) -> str:
    """Why a file's content should not be indexed, or ``""``.

    ``too_large`` above ``MAX_FILE_BYTES`` (2 MiB); ``binary`` when a NUL byte appears in the
    first 8 KiB (UTF-16/32 files with a BOM excepted); ``minified`` for ``*.min.*`` names,
    any line over ``MAX_LINE_BYTES`` (20,000) bytes, or an average line over
    ``MAX_AVG_LINE`` (400) bytes in a file over 8 KiB, measured after decoding and line-end
    normalisation (limits in the spirit of ctags' and
    GitHub linguist's generated-file heuristics).
    """
    if len(raw) > MAX_FILE_BYTES:
        return "too_large"
    if looks_binary(raw[:8192]):
        return "binary"
    src = raw
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or raw[:4] == b"\x00\x00\xfe\xff" or b"\r" in raw:
        src = normalise(raw)[0]  # measure lines as the parser will see them
    return "minified" if _minified(path, src) else ""


def parse_batch(root: str, items: list[tuple[str, str]]) -> list[ParseResult]:
    """Parse a batch of ``(path, language)`` pairs under ``root`` (worker entry point)."""
    return [parse_path(root, p, lang) for p, lang in items]
