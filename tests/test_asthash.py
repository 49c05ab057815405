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
