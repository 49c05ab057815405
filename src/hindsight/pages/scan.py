"""What the architecture page reads from the files themselves (never running them): entry
points that the code index does not record (CLI definitions, HTTP routes, ``__main__``
guards), module doc comments and README paragraphs.

Entry points are found by the patterns of :data:`PATTERNS`, per language, on the file's text
(read as bytes, decoded UTF-8 with replacement). The findings of every file are cached with
its content hash (meta ``pages:scan``), so a refresh after a commit reads only the files
whose hash changed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

SCAN_VERSION = 1  # bump when PATTERNS change: every file is read again


class Pattern(NamedTuple):
    """``kind`` (``cli`` or ``route``), a ``label`` (the framework or form), the
    ``languages`` it applies to, substrings one of which must be in the file before the
    regex runs (``needles``), and the ``regex`` (its group ``what``, when present, is
    shown: a route's path)."""

    kind: str
    label: str
    languages: tuple[str, ...]
    needles: tuple[str, ...]
    regex: re.Pattern[str]


_PY, _JS = ("python",), ("javascript", "typescript", "tsx")
_HTTP = r"(?P<verb>route|get|post|put|delete|patch|websocket|api_route)"
PATTERNS = (
    Pattern("cli", "argparse", _PY, ("ArgumentParser(",), re.compile(r"\bArgumentParser\(")),
    Pattern("cli", "click/typer command", _PY, (".command(", ".group("),
            re.compile(r"^[ \t]*@[ \t]*[\w.]*\b(?:command|group)\(", re.M)),
    Pattern("cli", "typer app", _PY, ("Typer(",), re.compile(r"\btyper\.Typer\(")),
    Pattern("cli", "__main__ guard", _PY, ("__main__",),
            re.compile(r"^if __name__ == ['\"]__main__['\"]", re.M)),
    Pattern("route", "HTTP route", _PY, (".route(", ".get(", ".post(", ".put(", ".delete(",
                                         ".patch(", ".websocket(", ".api_route("),
            re.compile(r"^[ \t]*@[ \t]*\w+(?:\.\w+)*\." + _HTTP +
                       r"\(\s*[rbuf]*['\"](?P<what>[^'\"]*)['\"]", re.M)),
    Pattern("route", "HTTP route", _JS, (".get(", ".post(", ".put(", ".delete(", ".patch(",
                                         ".all("),
            re.compile(r"\b(?:app|router|server|api)\.(?P<verb>get|post|put|delete|patch|all)"
                       r"\(\s*['\"`](?P<what>/[^'\"`]*)")),
    Pattern("cli", "commander", _JS, ("commander",),
            re.compile(r"""(?:require\(|from\s+)['"]commander['"]""")),
    Pattern("cli", "yargs", _JS, ("yargs",), re.compile(r"""(?:require\(|from\s+)['"]yargs""")),
    Pattern("route", "HTTP route", ("go",), ("HandleFunc(", ".GET(", ".POST(", ".Handle("),
            re.compile(r"\b(?:HandleFunc|Handle|(?P<verb>GET|POST|PUT|DELETE|PATCH))"
                       r"\(\s*\"(?P<what>/[^\"]*)\"")),
    Pattern("cli", "cobra", ("go",), ("cobra.Command",), re.compile(r"&cobra\.Command\{")),
    Pattern("cli", "flag", ("go",), ("flag.Parse()",), re.compile(r"\bflag\.Parse\(\)")),
    Pattern("route", "HTTP route", ("java", "kotlin"), ("Mapping(",),
            re.compile(r"@(?P<verb>Get|Post|Put|Delete|Patch|Request)Mapping\(\s*"
                       r"(?:value\s*=\s*|path\s*=\s*)?\"(?P<what>[^\"]*)\"")),
    Pattern("route", "HTTP route", ("rust",), ("#[get(", "#[post(", ".route("),
            re.compile(r"(?:#\[(?P<verb>get|post|put|delete|patch)|\.route)\(\s*\""
                       r"(?P<what>/[^\"]*)\"")),
    Pattern("cli", "clap", ("rust",), ("Parser",),
            re.compile(r"#\[derive\([^)]*\bParser\b")),
)
MAX_READ = 2 << 20  # files above 2 MiB are not scanned (generated code, data)


class Found(NamedTuple):
    """One entry point found in a file: ``kind`` (cli, route), ``label``, 1-based
    ``line`` and ``what`` (a route's method and path, or "")."""

    kind: str
    label: str
    line: int
    what: str


def read_text(root: str, path: str, limit: int = MAX_READ) -> str | None:
    """The file's text (UTF-8, undecodable bytes replaced), at most ``limit`` bytes; None
    when it cannot be read, is larger, or is a symbolic link leading out of ``root`` (a
    page never quotes a file outside the repository)."""
    full = os.path.join(root, path)
    if os.path.islink(full) and not os.path.realpath(full).startswith(
            os.path.realpath(root) + os.sep):
        return None
    try:
        with open(full, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    return data.decode("utf-8", "replace")


def scan_text(text: str, language: str) -> list[Found]:
    """The entry points :data:`PATTERNS` find in ``text`` of ``language``."""
    out = []
    for p in PATTERNS:
        if language not in p.languages or not any(n in text for n in p.needles):
            continue
        for m in p.regex.finditer(text):
            groups = m.groupdict()
            what = groups.get("what") or ""
            verb = (groups.get("verb") or "").upper()
            if verb in ("ROUTE", "API_ROUTE", "HANDLE", "REQUEST", "ALL") or not verb:
                verb = "ANY" if what else ""
            out.append(Found(p.kind, p.label, text.count("\n", 0, m.start()) + 1,
                             f"{verb} {what}".strip()))
    out.sort(key=lambda f: (f.line, f.kind, f.label))
    return out


def scan(root: str, files: Iterable[tuple[str, str, str]], cached: str | None,
         ) -> tuple[dict[str, list[Found]], str, int]:
    """Entry points of ``files`` (``(path, language, content hash)``), reading only the
    files whose hash differs from the ``cached`` JSON (the meta value of an earlier scan).
    Returns ``(path → findings (files with some), the new cache JSON, files read)``."""
    try:
        old = json.loads(cached) if cached else {}
    except ValueError:
        old = {}
    if old.get("v") != SCAN_VERSION:
        old = {}
    hashes: dict[str, str] = old.get("files", {})
    found_old: dict[str, list[list[Any]]] = old.get("found", {})
    new_hashes: dict[str, str] = {}
    found: dict[str, list[Found]] = {}
    read = 0
    languages = {lang for p in PATTERNS for lang in p.languages}
    for path, language, chash in files:
        if language not in languages:
            continue
        new_hashes[path] = chash
        if hashes.get(path) == chash and chash:
            got = [Found(*f) for f in found_old.get(path, [])]
        else:
            text = read_text(root, path)
            read += 1
            got = scan_text(text, language) if text is not None else []
        if got:
            found[path] = got
    cache = json.dumps({"v": SCAN_VERSION, "files": new_hashes,
                        "found": {p: [list(f) for f in fs] for p, fs in found.items()}},
                       separators=(",", ":"))
    return found, cache, read


# --- doc comments and READMEs ---------------------------------------------------------------
_PY_DOC = re.compile(r'\A(?:\s*#[^\n]*\n|\s*\n)*\s*[rRuU]?("""|\'\'\')(.*?)\1', re.S)
_BLOCK = re.compile(r"\A\s*/\*\*?(.*?)\*/", re.S)
_README = ("README.md", "README.rst", "README.txt", "README", "readme.md")


def first_paragraph(text: str, cap: int = 240) -> str:
    """The first paragraph of ``text`` as one line, at most ``cap`` characters (cut at a
    word, with "…")."""
    para = ""
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = [ln.strip(" *#/!-=`\t") for ln in block.splitlines()]
        para = " ".join(ln for ln in lines if ln and not ln.startswith(("[!", "<", "![")))
        if len(para) > 20 or (para and not para.endswith(":")):
            break
    para = " ".join(para.split())
    if len(para) > cap:
        para = para[:cap - 1].rsplit(" ", 1)[0] + "…"
    return para


def doc_of(text: str, language: str) -> tuple[str, int]:
    """The leading documentation of a source file and its 1-based line: a Python module
    docstring, Go's ``// Package`` comment, Rust's ``//!`` lines, a leading ``/** */``
    block (JavaScript, TypeScript, Java, C…). ``("", 0)`` when there is none."""
    if language == "python":
        m = _PY_DOC.match(text)
        if m:
            return first_paragraph(m.group(2)), text.count("\n", 0, m.start(1)) + 1
        return "", 0
    lines = text.splitlines()
    if language == "go":
        for i, ln in enumerate(lines):
            if ln.startswith("// Package "):
                block = [x[2:].strip() for x in lines[i:i + 12] if x.startswith("//")]
                return first_paragraph("\n".join(block)), i + 1
            if ln.startswith("package "):
                return "", 0
        return "", 0
    if language == "rust":
        docs = [(i, x.strip()[3:]) for i, x in enumerate(lines[:60])
                if x.strip().startswith("//!")]
        if docs:
            return first_paragraph("\n".join(t for _i, t in docs)), docs[0][0] + 1
        return "", 0
    m = _BLOCK.match(text)
    if m and not m.group(1).lstrip().lower().startswith(("copyright", "license", "@license")):
        return first_paragraph(m.group(1)), text.count("\n", 0, m.start(1)) + 1
    return "", 0


def readme(root: str, folder: str, exists: Callable[[str], bool] = os.path.isfile
           ) -> tuple[str, str, int]:
    """``(path, first paragraph, its 1-based line)`` of the README of ``folder`` ("" for
    the root), or ``("", "", 0)``."""
    for name in _README:
        rel = f"{folder}/{name}" if folder else name
        if not exists(os.path.join(root, rel)):
            continue
        text = read_text(root, rel, 256 << 10) or ""
        body = text
        skipped = 0
        # a title line (# Name, or a setext title) is not the description
        lines = body.splitlines()
        while lines and (not lines[0].strip() or lines[0].startswith("#")
                         or set(lines[0].strip()) <= set("=-")
                         or (len(lines) > 1 and set(lines[1].strip()) <= set("=-")
                             and lines[1].strip())):
            if len(lines) > 1 and lines[1].strip() and set(lines[1].strip()) <= set("=-"):
                lines, skipped = lines[2:], skipped + 2
            else:
                lines, skipped = lines[1:], skipped + 1
        para = first_paragraph("\n".join(lines))
        if para:
            return rel, para, skipped + 1
    return "", "", 0
