"""Definitions on the eighth blind suite, ``tests/fixtures/defs_blind8/`` (session 39):
Python, JavaScript, TypeScript, Java, Go and Rust one-feature files in the style of a
reference tagger's unit cases plus two framework-shaped files per language (Django,
Flask and pytest; Express and React; Angular and NestJS; Spring and Android; cobra and a
Kubernetes controller; clap/serde and tokio), 1,018 definitions written by a helper that
read neither the queries nor the other suites. First scores, coverage recall / precision
(``python bench/defs.py --suite defs_blind8`` on 57424858): Go, Java and Rust 1.0 / 1.0,
Python 0.985 / 1.0, JavaScript 0.962 / 0.993, TypeScript 0.994 / 1.0. Fixed since: a
JavaScript literal whose functions sit deeper (``const nested = {level1: {level2: {deep()
{}}}}``: ``nested`` and ``nested.level1`` are object symbols, and ``deep`` is
``nested.level1.level2.deep``, no longer ``nested.level2.deep``), a literal assigned to a
name (``handlers = {onOpen() {}}``), a computed key holding a function (``[DECREMENT]:
function``), ``const ENABLED = true`` a constant and ``let LIMIT = 10`` not (the README's
rule: a ``const``), Python chained constants (``KILO = KIBI = 1024``) and lambdas bound by
a parenthesised tuple (``(left, right) = (lambda a: a, lambda b: b)``).

The floors are today's coverage scores. Exact rows differ where the suite's writer chose
other kinds (``property`` for accessors, ``constructor`` for ``Class.constructor``) or
other names than the README's (the members of ``export default {…}`` are the module's:
``data``, not ``default.data``; the one coverage miss is that literal's ``default``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from defsutil import check_coverage

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

SUITE = Path(__file__).resolve().parent / "fixtures" / "defs_blind8"
FLOORS = {"go": (1.0, 1.0), "java": (1.0, 1.0), "javascript": (0.99, 1.0),
          "python": (1.0, 1.0), "rust": (1.0, 1.0), "typescript": (1.0, 1.0)}
"""language → (coverage recall, coverage precision), a definition found when a symbol
starts on its line with its simple name (as bench/defs.py scores)."""


@pytest.mark.parametrize("lang", sorted(FLOORS))
def test_blind_definitions_floors(lang: str) -> None:
    check_coverage(SUITE, lang, *FLOORS[lang])


@pytest.mark.parametrize(("fn", "src", "rows"), [
    ("x.js", "const nested = {\n  level1: {\n    level2: {\n      deep() {},\n    },\n"
     "    flat: true,\n  },\n};\nlet handlers;\nhandlers = {\n  onOpen() {},\n};\n"
     "const D = 'd';\nconst reducers = {\n  [D]: function (s) { return s; },\n};\n"
     "const ENABLED = true;\nlet LIMIT = 10;\nconst plain = { a: { b: 1 } };\n",
     [(1, "object", "nested"), (2, "object", "nested.level1"),
      (3, "object", "nested.level1.level2"), (4, "method", "nested.level1.level2.deep"),
      (10, "object", "handlers"), (11, "method", "handlers.onOpen"), (13, "constant", "D"),
      (14, "object", "reducers"), (15, "method", "reducers.[D]"),
      (17, "constant", "ENABLED")]),
    ("x.ts", "export const routes = {\n  admin: {\n    load: () => 1,\n  },\n};\n",
     [(1, "object", "routes"), (2, "object", "routes.admin"),
      (3, "method", "routes.admin.load")]),
    # break-it 39: a literal passed as an argument names nothing, however deep; a literal
    # assigned inside a function keeps the members' names as before
    ("y.js", "foo({a: {b: {c: {d() {}}}}});\nlet h;\nfunction setup() { h = {on() {}}; }\n"
     "const arr = [{x: {y: {get() {}}}}];\n",
     [(3, "function", "setup"), (3, "function", "setup.on")]),
    ("y.py", "A = B = C = D = E = 1\n", [(1, "constant", n) for n in "ABCDE"]),
    ("x.py", "KILO = KIBI = 1024\nA = B = C = 1\n(left, right) = (lambda a: a, lambda b: b)\n"
     "class K:\n    X = Y = 2\n",
     [(1, "constant", "KILO"), (1, "constant", "KIBI"), (2, "constant", "A"),
      (2, "constant", "B"), (2, "constant", "C"), (3, "function", "left"),
      (3, "function", "right"), (4, "class", "K"), (5, "constant", "K.X"),
      (5, "constant", "K.Y")]),
])
def test_forms_of_the_eighth_suite(fn: str, src: str, rows: list[tuple[int, str, str]]
                                   ) -> None:
    lang = language_for(fn)
    assert lang is not None
    r = parse_bytes(fn, lang, src.encode())
    assert sorted((s.start_line, s.kind, s.local) for s in r.symbols) == sorted(rows)
