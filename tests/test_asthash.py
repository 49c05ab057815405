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



def test_indent_hash_equals_its_formula_on_every_span_of_a_real_module() -> None:
    """indent_hash (one regex per start column) equals the documented formula: the
    whitespace-free text, NUL, then ``i[col:]`` of every non-blank line's indentation
    joined by ``|`` — for every def/class of a real module at several end positions, lines
    indented less than ``col`` and tabs included."""
    import re
    import tokenize

    import xxhash

    from hindsight.codeindex.asthash import _INDENT, _WS, indent_hash

    def formula(text: bytes, col: int) -> str:
        inds = b"|".join([i[col:] for i in _INDENT.findall(text)])
        return xxhash.xxh3_64_hexdigest(text.translate(None, _WS) + b"\0" + inds)

    with open(tokenize.__file__, "rb") as fh:
        src = fh.read() + b"\nclass T:\n\tdef m(self):\n\n\t\treturn 1\n  x\n\ty"
    starts = [m.start(1) for m in re.finditer(rb"(?m)^[ \t]*(def|class) ", src)]
    assert len(starts) > 25
    for a in starts:
        col = a - (src.rfind(b"\n", 0, a) + 1)
        for end in (len(src), src.find(b"\n\n", a), a + 200, a + 1):
            for c in {col, 0, 1, 3, 8}:
                assert indent_hash(src[a:end], c) == formula(src[a:end], c), (a, end, c)
