"""Definitions on the fourth blind suite: ``tests/fixtures/defs_blind4/<language>/`` holds
one-feature files in the style of a reference tagger's unit cases, written by a helper
from its own knowledge of the six languages before it read the queries or the other
suites (session 26, issue 14), odd corners of real code included. Every file parses to exactly the definitions (file, 1-based
line, kind, local qualified name) its ``expected.tsv`` lists; the comment lines there say
which rows were aligned afterwards with the index's conventions and which misses were
fixed in the index. ``python bench/defs.py --suite defs_blind4`` reports recall and
precision per language."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from defsutil import Row, langs
from defsutil import expected as _expected
from defsutil import found as _found

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

BLIND = Path(__file__).resolve().parent / "fixtures" / "defs_blind4"
LANGS = langs(BLIND)


def expected(lang: str) -> list[Row]:
    return _expected(BLIND, lang)


def test_six_languages_of_unit_files4() -> None:
    assert LANGS == ["go", "java", "javascript", "python", "rust", "typescript"]
    for lang in LANGS:
        files = [f for f in os.listdir(BLIND / lang) if f != "expected.tsv"]
        assert 14 <= len(files) <= 25, (lang, len(files))
        assert len(expected(lang)) >= 70, lang


@pytest.mark.parametrize("lang", LANGS)
def test_blind4_definitions_exactly(lang: str) -> None:
    assert _found(BLIND, lang) == expected(lang)


@pytest.mark.parametrize(("fn", "src", "rows"), [
    # UPPER_CASE names in a class body (constants, enum members), also annotated
    ("x.py", "from enum import Enum\nclass Color(Enum):\n    RED = 1\n    green = 2\n"
     "class Config:\n    PORT: int = 80\n    def m(self):\n        X = 1\n",
     [(2, "class", "Color"), (3, "constant", "Color.RED"), (5, "class", "Config"),
      (6, "constant", "Config.PORT"), (7, "method", "Config.m")]),
    # a computed (template-literal) key of an object literal's method
    ("x.js", "const s = {\n  [`k${1}`]() {},\n};\n",
     [(1, "object", "s"), (2, "method", "s.[`k${1}`]")]),
])
def test_forms_the_fourth_blind_suite_found(fn: str, src: str,
                                            rows: list[tuple[int, str, str]]) -> None:
    r = parse_bytes(fn, language_for(fn), src.encode())
    assert not r.error
    assert [(s.start_line, s.kind, s.local) for s in r.symbols] == rows
