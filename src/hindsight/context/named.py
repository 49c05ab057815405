"""What a task names outright: files (``termui.py``, ``src/shop/cart.go``) and symbols
(``parse_args``, ``Cart.total``, ``deductStock``, a word in backticks), found in the code
index; and their call-graph neighbours (callers and callees, depth 1).

A plain word counts as a symbol only when it is written like code (``_``, ``.``, ``::``,
camelCase, ``()`` after it, or backticks); "option" or "command" in prose is not a name.
The scope a first line opens with names a module too: ``walk: send results in batches``,
``fix(parser): …`` (the Conventional Commits ``type(scope):`` form, and the Linux/Go
``subsystem: …`` habit); the types themselves (``fix:``, ``docs:``, …) name nothing.
"""

from __future__ import annotations

import re

from hindsight.codeindex.query import callees, callers
from hindsight.errors import HindsightError
from hindsight.store.base import CodeStore

MAX_CHARS = 4_000  # of the task read for names
MAX_WORDS = 40  # code-shaped words looked up
MAX_MATCHES = 5  # a name defined in more places than this names none of them
MAX_GRAPH = 10  # named symbols whose neighbours are looked up

_PATHLIKE = re.compile(r"(?<![\w/.-])([\w.-]*[\w-](?:/[\w.-]+)*\.[A-Za-z]\w{0,5})(?::\d+)?\b")
_TICKED = re.compile(r"`([^`\s]{2,80})`")
_WORD = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(\(\))?")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_SCOPE = re.compile(r"\s*([\w./-]+)(?:\(([\w./-]+)\))?!?:\s")
# Conventional Commits types (conventionalcommits.org 1.0, and the Angular list) and kin
_TYPES = frozenset(("feat", "feature", "fix", "bugfix", "hotfix", "chore", "docs", "doc",
                    "refactor", "test", "tests", "perf", "style", "build", "ci", "revert",
                    "maint", "deps", "release", "wip", "merge", "security"))


def code_shaped(word: str, called: bool = False) -> bool:
    """Whether ``word`` is written like an identifier rather than a prose word."""
    return called or "_" in word.strip("_") or "." in word or "::" in word or \
        "#" in word or bool(_CAMEL.search(word))


def mentions(text: str) -> tuple[list[str], list[str]]:
    """``(path-like words, code-shaped words)`` of ``text`` in order, each once."""
    text = text[:MAX_CHARS]
    paths = list(dict.fromkeys(m.group(1) for m in _PATHLIKE.finditer(text)))
    words: list[str] = [m.group(1).strip("()") for m in _TICKED.finditer(text)]
    for m in _WORD.finditer(text):
        w = m.group(0).removesuffix("()")
        if code_shaped(w, bool(m.group(1))):
            words.append(w)
    pathset = set(paths)
    return paths, [w for w in dict.fromkeys(words) if w not in pathset][:MAX_WORDS]


def scope(text: str) -> str:
    """The module the first line of ``text`` opens with (``walk: …`` → ``walk``,
    ``fix(parser): …`` → ``parser``), or ``""`` (none, or only a commit type)."""
    m = _SCOPE.match(text)
    if not m:
        return ""
    for word in (m.group(2), m.group(1)):
        if word and word.lower() not in _TYPES:
            return word
    return ""


def named(store: CodeStore, text: str
          ) -> tuple[dict[str, list[str]], list[tuple[str, str, str]]]:
    """``(files, symbols)`` the task names: ``{path: [the words naming it]}`` (a file by
    its path or name, or as the file of a named symbol) and ``[(path, local, word)]``
    of the named symbols. Names matching more than :data:`MAX_MATCHES` definitions are
    left out."""
    paths, words = mentions(text)
    files: dict[str, list[str]] = {}
    for p in paths:
        found = store.files_by_suffix(p.lstrip("./"), MAX_MATCHES + 1)
        if 0 < len(found) <= MAX_MATCHES:
            for path, _h in found:
                files.setdefault(path, []).append(p)
    where = scope(text)
    for path in _modules(store, where) if where else []:
        files.setdefault(path, []).append(where)
    syms: list[tuple[str, str, str]] = []
    for w in words:
        spec = w.replace("#", ".")
        file = None
        if "::" in spec and "/" in spec.partition("::")[0]:
            file, _, spec = spec.partition("::")
        for path in _modules(store, spec):  # `utils`, `click.shell_completion`: a module
            files.setdefault(path, []).append(w)
        hits = store.find_symbols(spec, None, file, MAX_MATCHES + 1)
        if not hits and "." in spec:  # `module.func`, `pkg.Class.method`: the last parts
            for cut in range(1, spec.count(".") + 1):
                hits = store.find_symbols(spec.split(".", cut)[-1], None, None,
                                          MAX_MATCHES + 1)
                if hits:
                    break
        if not hits or len({h.qname for h in hits}) > MAX_MATCHES:
            continue
        for h in hits:
            if (h.path, h.local, w) not in syms:
                syms.append((h.path, h.local, w))
            files.setdefault(h.path, []).append(w)
    return files, syms


def _modules(store: CodeStore, word: str) -> list[str]:
    """Files a word names as a module: its path without the extension (``utils``,
    ``click/shell_completion``, ``click.shell_completion``; a package by its
    ``__init__``/``index``/``mod`` file), when at most :data:`MAX_MATCHES` files match."""
    spec = word.replace("::", "/").replace(".", "/").strip("/")
    if not spec or not re.fullmatch(r"[\w/-]+", spec):
        return []
    found = store.files_by_suffix(spec, MAX_MATCHES + 1, stem=True)
    return [p for p, _h in found] if len(found) <= MAX_MATCHES else []


def neighbours(store: CodeStore, syms: list[tuple[str, str, str]]
               ) -> dict[str, list[str]]:
    """``{path: [reason]}``: files of the callers and callees (depth 1) of the first
    :data:`MAX_GRAPH` named symbols, each reason like ``calls `parse_args```."""
    out: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for path, local, _w in syms:
        if (path, local) in seen or len(seen) >= MAX_GRAPH:
            continue
        seen.add((path, local))
        for fn, verb in ((callers, "calls"), (callees, "is called by")):
            try:
                _t, hits = fn(store, f"{path}::{local}", 1)
            except HindsightError:  # an ambiguous or vanished name adds nothing
                continue
            for h in hits:
                p = h.symbol.path if h.symbol else (h.path if verb == "calls" else "")
                if p and p != path:
                    why = f"{verb} `{local}`"
                    if why not in out.setdefault(p, []):
                        out[p].append(why)
    return out
