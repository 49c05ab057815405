"""Parameters and declared return types read from a definition's stored signature.

The index keeps each definition's signature text (whitespace collapsed, at most
``parse.MAX_SIG`` characters, starting at the keyword after any decorators), so parameter
and return types cost nothing at parse time: they are read here, when resolution first
needs them. A signature cut short loses its last parameters and its return type; a
parameter that cannot be read is left out (its name then stays unknown).

:func:`params` gives ``(name, declared type or "", keyword_only)`` in order, the receiver
included (Python ``self``, Rust ``self``); :func:`returns` the declared return type text.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NESTING = re.compile(r"[\[\](){}<>\"'`]")
_MODIFIERS = frozenset({"final", "readonly", "public", "private", "protected", "override",
                        "ref", "out", "in", "params", "this", "scoped", "mut"})


def split_top(s: str, sep: str = ",") -> list[str]:
    """``s`` split at ``sep`` outside brackets and string literals."""
    if not _NESTING.search(s):  # the common case, at C speed
        return [p for p in (x.strip() for x in s.split(sep)) if p]
    out: list[str] = []
    depth = 0
    cur = 0
    quote = ""
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and i > 0 and s[i - 1] in "-="):
            depth -= 1
        elif c == sep and depth == 0:
            out.append(s[cur:i].strip())
            cur = i + 1
        i += 1
    out.append(s[cur:].strip())
    return [p for p in out if p]


def _group(sig: str, start: int) -> tuple[str, int]:
    """(text inside the parenthesis group opening at ``start``, index after it)."""
    depth = 0
    for i in range(start, len(sig)):
        c = sig[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return sig[start + 1:i], i + 1
    return "", -1


@lru_cache(maxsize=8192)
def parts(sig: str, language: str) -> tuple[tuple[tuple[str, str, bool], ...], str]:
    """``(params, return type text)`` of a signature (see the module docstring)."""
    if language == "go":
        return _go(sig)
    if language == "python" and "lambda" in sig and not sig.startswith(("def ", "async ")):
        # `f = lambda o, n=1: …` (a name bound to a lambda): its parameters, no return type
        head = sig.split("lambda", 1)[1]
        return (_python(split_top(head.split(":", 1)[0])) if head[:1] in " :" else ()), ""
    open_at = sig.find("(")
    if open_at < 0:
        return (), ""
    inner, after = _group(sig, open_at)
    if after < 0:
        return (), ""
    items = split_top(inner)
    rest = sig[after:].strip()
    if language == "python":
        return _python(items), rest[2:].strip() if rest.startswith("->") else ""
    if language in ("java", "csharp", "kotlin"):
        return _java(items), _java_return(sig[:open_at])
    if language == "rust":
        ret = rest[2:].split(" where ", 1)[0].strip() if rest.startswith("->") else ""
        return _colon(items), ret
    if language in ("typescript", "tsx", "javascript"):
        return _colon(items), rest[1:].strip() if rest.startswith(":") else ""
    return (), ""


def params(sig: str, language: str) -> tuple[tuple[str, str, bool], ...]:
    return parts(sig, language)[0]


def returns(sig: str, language: str) -> str:
    return parts(sig, language)[1]


@lru_cache(maxsize=8192)
def py_star(sig: str) -> tuple[str, int] | None:
    """``(name, position)`` of the ``*args`` parameter of a Python signature (position
    counts the positional parameters before it, the receiver included), or ``None``."""
    open_at = sig.find("(")
    inner, after = _group(sig, open_at) if open_at >= 0 else ("", -1)
    if after < 0:
        return None
    pos = 0
    for it in split_top(inner):
        if it.startswith("**"):
            return None
        if it.startswith("*"):
            name = it[1:].partition(":")[0].strip()
            return (name, pos) if name.isidentifier() else None
        if it != "/":
            pos += 1
    return None


def _python(items: list[str]) -> tuple[tuple[str, str, bool], ...]:
    out: list[tuple[str, str, bool]] = []
    kw = False
    for it in items:
        if it.startswith("*") or it == "/":
            kw = kw or it != "/"
            continue
        head = it.split("=", 1)[0]
        name, _, typ = head.partition(":")
        name = name.strip()
        if name.isidentifier():
            out.append((name, typ.strip(), kw))
    return tuple(out)


_NO_VALUE = frozenset({"None", "True", "False", "Ellipsis", "NotImplemented"})
_PATHLIKE = re.compile(r"^[A-Za-z_][\w.]*$")
_CALLED = re.compile(r"^([A-Za-z_][\w.]*)\([^()]*\)$")  # `Name(args)`, no nested call


@lru_cache(maxsize=8192)
def py_default(sig: str, name: str) -> str:
    """The default value of Python parameter ``name`` in signature ``sig`` when it is a
    name or a dotted name (``def f(cb=handler)`` → ``handler``) or a call of one with
    plain arguments (``loader=DefaultLoader()`` → ``DefaultLoader()``), else ``""``
    (``None``, literals, other expressions: nothing a call could run)."""
    if "=" not in sig:
        return ""
    open_at = sig.find("(")
    if open_at < 0:
        return ""
    inner, _after = _group(sig, open_at)
    for it in split_top(inner):
        head, eq, default = it.partition("=")
        if eq and head.partition(":")[0].strip() == name:
            default = default.strip()
            # a name or attribute path (a function or class to follow), or an instance
            # made by calling one (`loader=DefaultLoader()`: what that call gives)
            call = _CALLED.match(default)
            if call and call.group(1) not in _NO_VALUE:
                return call.group(1) + "()"
            return "" if default in _NO_VALUE or not _PATHLIKE.match(default) else default
    return ""


def _colon(items: list[str]) -> tuple[tuple[str, str, bool], ...]:
    """``name: Type`` parameters (TypeScript, Rust), modifiers and patterns dropped."""
    out: list[tuple[str, str, bool]] = []
    for it in items:
        it = it.split("=", 1)[0].strip()
        if it in ("self", "&self", "&mut self", "mut self") or it.startswith("&'"):
            out.append(("self", "", False))
            continue
        name, colon, typ = it.partition(":")
        words = name.replace("?", "").split()
        words = [w for w in words if w not in _MODIFIERS]
        if len(words) == 1 and words[0].isidentifier():
            out.append((words[0], typ.strip() if colon else "", False))
    return tuple(out)


def _java(items: list[str]) -> tuple[tuple[str, str, bool], ...]:
    """``[annotations] [modifiers] Type name`` parameters (Java, C#)."""
    out: list[tuple[str, str, bool]] = []
    for it in items:
        it = it.split("=", 1)[0].strip()
        words = [w for w in it.split() if not w.startswith("@") and w not in _MODIFIERS]
        if len(words) >= 2 and words[-1].isidentifier():
            out.append((words[-1], " ".join(words[:-1]).replace("...", "[]"), False))
    return tuple(out)


def _java_return(head: str) -> str:
    """The return type of ``[modifiers] [<T>] Type name`` (``""`` for a constructor)."""
    words = [w for w in split_top(head, " ") if not w.startswith("@")]
    if len(words) < 2:
        return ""
    typ = words[-2]
    return "" if typ in _MODIFIERS or typ in ("static", "abstract", "synchronized", "native",
                                              "async", "virtual", "sealed", "new",
                                              "default", "extern", "unsafe") else typ


def _go(sig: str) -> tuple[tuple[tuple[str, str, bool], ...], str]:
    s = sig[4:].strip() if sig.startswith("func") else sig
    if s.startswith("("):  # the receiver
        recv, after = _group(s, 0)
        s = s[after:].strip() if after > 0 else ""
    open_at = s.find("(")
    if open_at < 0:
        return (), ""
    inner, after = _group(s, open_at)
    if after < 0:
        return (), ""
    out: list[tuple[str, str, bool]] = []
    pending: list[str] = []
    for it in split_top(inner):
        words = it.split(None, 1)
        if len(words) == 1:
            pending.append(words[0])  # `a, b T`: the type comes with the last name
            continue
        for n in (*pending, words[0]):
            out.append((n, words[1], False))
        pending = []
    rest = s[after:].strip()
    if rest.startswith("("):
        inner_r, _a = _group(rest, 0)
        first = split_top(inner_r)[:1]
        rest = first[0].split(None, 1)[-1] if first else ""
    return tuple(out), rest
