"""The ast hash ignores comments and whitespace but not code or block structure."""

from __future__ import annotations

from hindsight.codeindex.worker import parse_bytes


def h(src: str, lang: str = "python", path: str = "m.py") -> dict[str, str]:
    return {s.local: s.ast_hash for s in parse_bytes(path, lang, src.encode()).symbols}


def test_python_hash_rules() -> None:
    base = h("def f(a, b):\n    if a:\n        x = a + b\n        return x\n    return b\n")
    same = h("def f(a,b):  # note\n\n    if a:\n        # comment\n        x=a+b\n"
             "        return x   \n    return b\n")
    assert base == same
    moved = h("class C:\n    def f(a, b):\n        if a:\n            x = a + b\n"
              "            return x\n        return b\n")
    assert moved["C.f"] == base["f"]  # a uniform shift keeps the hash
    block = h("def f(a, b):\n    if a:\n        x = a + b\n    return x\n    return b\n")
    assert block["f"] != base["f"]  # a statement left its block
    changed = h("def f(a, b):\n    if a:\n        x = a - b\n        return x\n    return b\n")
    assert changed["f"] != base["f"]


def test_brace_language_hash_rules() -> None:
    a = h("function f(a, b) {\n  return g(a,\n    b);\n}\n", "javascript", "m.js")
    b = h("function f(a,b){ /* c */ return g(a, b); // d\n}\n", "javascript", "m.js")
    c = h("function f(a, b) { return g(b, a); }\n", "javascript", "m.js")
    assert a == b and a["f"] != c["f"]


def test_indents_index_gives_the_same_hash_as_scanning_each_span() -> None:
    """Indents.hash (one scan per file) equals indent_hash of the span, for every
    definition span of a real module (nested classes, blank lines, tabs, a last line
    without newline) and for spans ending just before or after an indented line."""
    import bisect
    import re
    import tokenize

    from hindsight.codeindex.asthash import Indents, indent_hash

    with open(tokenize.__file__, "rb") as fh:
        src = fh.read() + b"\nclass T:\n\tdef m(self):\n\n\t\treturn 1"
    idx = Indents(src)
    starts = [m.start(1) for m in re.finditer(rb"(?m)^[ \t]*(def|class) ", src)]
    assert len(starts) > 25
    newlines = [m.start() for m in re.finditer(rb"\n", src)]
    for a in starts:
        col = a - (src.rfind(b"\n", 0, a) + 1)
        i = bisect.bisect_right(newlines, a)
        ends = {len(src), *(n + k for n in newlines[i:i + 3] for k in range(col + 10))}
        for end in ends:
            end = min(end, len(src))
            assert idx.hash(a, end, col) == indent_hash(src[a:end], col), (a, end)
