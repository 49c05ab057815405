"""Definitions on the second blind suite: ``tests/fixtures/defs_blind2/<language>/`` holds
one-feature files in the style of a reference tagger's unit cases (odd-looking but valid
code: decorators with arguments, definitions under ``if``/``try``/``with`` at module
level, ES5 prototypes, ambient modules, compact constructors, generic receivers, ``impl``
for primitive types…), written from the documented identity format (README "What the
index holds") before its writer read the queries or ``tests/fixtures/defs*/``. Every
file parses to exactly the definitions (file, 1-based line, kind, local qualified name)
its ``expected.tsv`` lists; the comment lines there say which rows were aligned afterwards
with the index's conventions and which misses were fixed. ``python bench/defs.py --suite
defs_blind2`` reports recall and precision per language."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from defsutil import Row, langs
from defsutil import expected as _expected
from defsutil import found as _found

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

BLIND = Path(__file__).resolve().parent / "fixtures" / "defs_blind2"
LANGS = langs(BLIND)


def expected(lang: str) -> list[Row]:
    return _expected(BLIND, lang)


def found(lang: str) -> list[Row]:
    return _found(BLIND, lang)


def test_six_languages_twelve_to_twenty_five_unit_files() -> None:
    assert LANGS == ["go", "java", "javascript", "python", "rust", "typescript"]
    for lang in LANGS:
        files = [f for f in os.listdir(BLIND / lang) if f != "expected.tsv"]
        assert 12 <= len(files) <= 25, (lang, len(files))
        rows = expected(lang)
        assert {f for f, *_ in rows} == set(files), lang  # every file defines something
        assert len(rows) >= 40, lang


@pytest.mark.parametrize("lang", LANGS)
def test_blind2_definitions_exactly(lang: str) -> None:
    assert found(lang) == expected(lang)


@pytest.mark.parametrize(("fn", "src", "rows"), [
    # every name of a Go constant spec, grouped or not; `_` still defines nothing
    ("x.go", "package p\n\nconst A, _, C = 1, 2, 3\n\nconst (\n\tD, E = 4, 5\n)\n",
     [(3, "constant", "A"), (3, "constant", "C"), (6, "constant", "D"), (6, "constant", "E")]),
    # `impl` for a primitive type, and for a reference to one
    ("x.rs", "trait T { fn t(&self); }\nimpl T for u8 {\n    fn t(&self) {}\n}\n"
     "impl T for &str {\n    fn t(&self) {}\n}\n",
     [(1, "trait", "T"), (1, "method", "T.t"), (3, "method", "u8.t"), (6, "method", "str.t")]),
    # an ambient module named by a string; `module A.B {}` is unchanged
    ("x.ts", "declare module \"lib/*\" {\n  export class C {}\n}\nmodule N.M {\n"
     "  export const f = () => 1;\n}\n",
     [(1, "namespace", "lib/*"), (2, "class", "lib/*.C"), (4, "namespace", "N.M"),
      (5, "function", "N.M.f")]),
    # `that = this` in a class method: the assigned function is the class's; an alias of
    # something else is not `this`
    ("x.js", "class K {\n  init() {\n    const that = this;\n    that.go = () => 1;\n  }\n}\n"
     "function F(o) {\n  var self = o;\n  self.m = function () {};\n}\n",
     [(1, "class", "K"), (2, "method", "K.init"), (4, "method", "K.go"),
      (7, "function", "F"), (9, "function", "F.self.m")]),
])
def test_forms_the_second_blind_suite_found(fn: str, src: str,
                                            rows: list[tuple[int, str, str]]) -> None:
    r = parse_bytes(fn, language_for(fn), src.encode())
    assert not r.error
    assert [(s.start_line, s.kind, s.local) for s in r.symbols] == rows
