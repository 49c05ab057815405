"""Access paths: the small expression form receiver resolution reasons about.

An *access path* is a head name followed by segments, written canonically as one string:
``self.store.open()``, ``make()``, ``Foo::new()``, ``handlers['get']``. Segments are
``.name`` (attribute or field), ``::name`` (Rust/C++ path), ``()`` (a call; its arguments
are dropped) and ``[key]`` (a subscript by a literal: ``'text'`` or a whole number;
``[?]`` for any other subscript; ``[*]``, written by the extractor, is "an element" (the
variable of a ``for`` loop over the value)). ``&local`` as a head names a definition of the same file
by its local qualified name (written by the extractor, never found in source).

:func:`parse` turns source text (a call's receiver as written, or an assigned value) into
segments, or ``None`` when the text is not such a path (an operator, a literal, a lambda):
resolution then leaves the call unresolved rather than guess. Leading ``await``, ``new``,
``&``, ``&mut``, ``*`` and wrapping parentheses are dropped, and so are a TypeScript
non-null ``!`` and a Rust ``?`` after a segment, ``.await``, and turbofish / generic
arguments after ``::``.
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_TEXT = 4000  # longer texts are not paths worth following (a builder chain of lambdas)
_PREFIXES = ("await ", "new ", "&mut ", "&", "*")
_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _ident_end(s: str, i: int) -> int:
    """End of the identifier starting at ``i`` (``i`` itself when there is none). ``$``
    is part of identifiers (PHP ``$this``, JS ``$el``)."""
    n = len(s)
    j = i
    while j < n and (s[j].isalnum() or s[j] in "_$" or ord(s[j]) > 127):
        j += 1
    if j > i and s[i].isdigit():
        return i
    return j


def _skip_string(s: str, i: int) -> int:
    """Index after the string literal opening at ``i`` (a quote), or ``len(s)``."""
    q = s[i]
    if s.startswith(q * 3, i):
        end = s.find(q * 3, i + 3)
        return len(s) if end < 0 else end + 3
    j = i + 1
    n = len(s)
    while j < n:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == q or c == "\n":
            return j + 1
        j += 1
    return n


def _close(s: str, i: int) -> int:
    """Index after the bracket group opening at ``i``, skipping strings; -1 if unbalanced."""
    stack = [_OPEN[s[i]]]
    j = i + 1
    n = len(s)
    while j < n:
        c = s[j]
        if c in "\"'`" and stack[-1] != ">":
            j = _skip_string(s, j)
            continue
        if c in "([{" or (c == "<" and stack[-1] == ">"):
            stack.append(_OPEN[c])
        elif c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        elif c in ")]}":
            return -1
        j += 1
    return -1


def key_text(inner: str) -> str:
    """Canonical subscript key: ``'text'`` for a string literal (``b'text'`` for bytes,
    another key), digits for a whole number (``-1`` … ``-9`` for a position from the
    end), ``?`` for anything else."""
    t = inner.strip()
    if t == "*":
        return "*"
    if t[:1] == "~":  # `~'k'`, `~1`: the literal key of `d.get('k')` (Bindings._container_read)
        k = key_text(t[1:])
        return "~" + k if k[:1] == "'" or k.isdigit() else "?"
    if t.isdigit():
        return str(int(t))
    if t[:1] == "-" and t[1:].strip().isdigit() and 0 < int(t[1:]) <= 9:
        return str(-int(t[1:]))  # `xs[-1]`: a position from the end
    i = 0
    while i < len(t) and t[i] in "rRbBuU":
        i += 1
    body = t[i:]
    if len(body) >= 2 and body[0] in "\"'" and body[-1] == body[0] and i <= 1:
        q = body[0]
        inner_s = body[3:-3] if body.startswith(q * 3) and len(body) >= 6 else body[1:-1]
        if "\\" not in inner_s and "'" not in inner_s and len(inner_s) <= 80:
            return f"b'{inner_s}'" if t[:i] in ("b", "B") else f"'{inner_s}'"
    return "?"


def _slice(inner: str) -> bool:
    """Whether a subscript's text is a slice (``1:``, ``::2``, ``i:j``): a ``:`` outside
    brackets and braces, in a text with no string or ``lambda`` (a key such as
    ``b"a:b"`` is no slice)."""
    if ":" not in inner or "lambda" in inner or "'" in inner or '"' in inner:
        return False
    depth = 0
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == ":" and depth == 0:
            return True
    return False


# the two-argument form of super(): a class named, then the instance or class
_SUPER_ARGS = re.compile(r"\s*([A-Za-z_][\w.]*)\s*,\s*[A-Za-z_]\w*\s*$")


@lru_cache(maxsize=65536)
def parse(text: str) -> tuple[str, ...] | None:
    """Segments of an access path written as ``text`` (head first), or ``None``."""
    if not text or len(text) > MAX_TEXT:
        return None
    s = text.strip()
    changed = True
    while changed:
        changed = False
        for p in _PREFIXES:
            if s.startswith(p) and len(s) > len(p):
                s = s[len(p):].lstrip()
                changed = True
    i = 0
    n = len(s)
    segs: list[str] = []
    if s.startswith("("):
        end = _close(s, 0)
        if end < 0:
            return None
        inner = parse(s[1:end - 1])
        if inner is None:
            return None
        segs.extend(inner)
        i = end
    else:
        j = _ident_end(s, i)
        if j == i:
            return None
        if s[i] == "&" or s[i] == "$" and j == i + 1:
            return None
        segs.append(s[i:j])
        i = j
    while i < n:
        c = s[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in "!?" and not s.startswith("?.", i) and not s.startswith("!=", i):
            i += 1  # TS non-null assertion, Rust `?`
            continue
        if c == "." or s.startswith("?.", i) or s.startswith("->", i) or s.startswith("::", i):
            sep = "::" if c == ":" else "."
            i += 1 if c == "." else 2
            while i < n and s[i] in " \t\r\n":
                i += 1
            if i < n and s[i] == "<" and sep == "::":  # turbofish: f::<T>
                end = _close(s, i)
                if end < 0:
                    return None
                i = end
                continue
            j = _ident_end(s, i)
            if j == i:
                return None
            name = s[i:j]
            i = j
            if name == "await" and sep == ".":
                continue
            segs.append(sep + name)
            continue
        if c in "([":
            end = _close(s, i)
            if end < 0:
                return None
            explicit = _SUPER_ARGS.match(s, i + 1, end - 1) \
                if c == "(" and segs == ["super"] else None
            if explicit:  # `super(Mid, self)`: after Mid in the order (PEP 3135)
                segs[0] = f"super({explicit.group(1)})"
            elif c == "[" and _slice(s[i + 1:end - 1]):
                pass  # `jobs[1:]`: a slice holds the same kind of elements (no segment)
            else:
                segs.append("()" if c == "(" else f"[{key_text(s[i + 1:end - 1])}]")
            i = end
            continue
        return None
    if segs[0] == "super" and len(segs) > 1 and segs[1] == "()":
        segs[0:2] = ["super()"]
    return tuple(segs)


def render(segs: tuple[str, ...] | list[str]) -> str:
    """The canonical string of segments (the inverse of :func:`parse`)."""
    return "".join(segs)


def canon(text: str) -> str:
    """The canonical access path written as ``text``, or ``""`` when it is none."""
    segs = parse(text)
    return render(segs) if segs is not None else ""


_INDEX = re.compile(r"\[(?:-?\d+|\?)\]$")


def indexed(name: str) -> str:
    """``xs[*]`` for ``xs[0]`` / ``xs[-1]`` / ``xs[i]`` (an index of a plain name or
    path: some element; used where ``xs`` has no facts for that index), else ``""``
    (``xs[*][1]`` is a tuple's position: kept)."""
    m = _INDEX.search(name)
    return name[:m.start()] + "[*]" if m and m.start() and "[" not in name[:m.start()] else ""


_PART = re.compile(r"^[A-Za-z_][\w.]*(\[(?:-?\d+|'[^'\[\]]*')\])$")


def part_index(name: str) -> str:
    """``[1]`` of ``parts[1]`` (``[-1]`` of ``parts[-1]``), ``['k']`` of ``c['k']`` (one
    literal index of a plain name or path), else ``""``."""
    m = _PART.match(name)
    return m.group(1) if m else ""
