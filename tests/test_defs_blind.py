"""Definitions on the blind suite: ``tests/fixtures/defs_blind/<language>/`` was written
from the documented identity format (README "What the index holds") before its writer
read the queries or ``tests/fixtures/defs/``. Every fixture file parses to exactly the
definitions (file, 1-based line, kind, local qualified name) its ``expected.tsv`` lists.
The comment lines there say which rows were aligned afterwards with the index's
conventions (kinds, names), and list any ``# miss:`` left unfixed with its reason.
``python bench/defs.py --suite defs_blind`` reports recall and precision on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from defsutil import Row, langs
from defsutil import expected as _expected
from defsutil import found as _found

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

BLIND = Path(__file__).resolve().parent / "fixtures" / "defs_blind"
LANGS = langs(BLIND)


def expected(lang: str) -> list[Row]:
    return _expected(BLIND, lang)


def found(lang: str) -> list[Row]:
    return _found(BLIND, lang)


def test_six_languages_forty_definitions_or_more() -> None:
    assert LANGS == ["go", "java", "javascript", "python", "rust", "typescript"]
    for lang in LANGS:
        files = [f for f in os.listdir(BLIND / lang) if f != "expected.tsv"]
        assert 4 <= len(files) <= 8, (lang, files)
        assert 40 <= len(expected(lang)) <= 80, lang


@pytest.mark.parametrize("lang", LANGS)
def test_blind_definitions_exactly(lang: str) -> None:
    assert found(lang) == expected(lang)


@pytest.mark.parametrize(("lang", "src", "rows"), [
    # `module A.B {}`, the old spelling of `namespace A.B {}`: its members nest under it
    ("typescript", "module Legacy.Util {\n  export function noop(): void {}\n}\n",
     [(1, "namespace", "Legacy.Util"), (2, "function", "Legacy.Util.noop")]),
    # a named class expression returned by a factory, or passed; bound to a name, the name's
    ("javascript", "function make() {\n  return class Model {\n    save() {}\n  };\n}\n"
     "use(class Plugin {});\nconst Panel = class PanelImpl {};\n",
     [(1, "function", "make"), (2, "class", "make.Model"), (3, "method", "make.Model.save"),
      (6, "class", "Plugin"), (7, "class", "Panel")]),
    # an anonymous class in a field initialiser: its methods are the field's
    ("java", "class S {\n  Comparator<String> byLength = new Comparator<>() {\n"
     "    public int compare(String a, String b) { return 0; }\n  };\n"
     "  int compare(S o) { return 0; }\n}\n",
     [(1, "class", "S"), (3, "method", "S.byLength.compare"), (5, "method", "S.compare")]),
    # probes written after reading the queries
    # `impl Trait for &'a T` and `impl dyn Trait`: the methods are T's and Trait's
    ("rust", "struct Foo;\nimpl<'a> fmt::Display for &'a Foo {\n    fn fmt(&self) {}\n}\n"
     "impl dyn fmt::Debug {\n    fn helper(&self) {}\n}\n",
     [(1, "struct", "Foo"), (3, "method", "Foo.fmt"), (6, "method", "Debug.helper")]),
    # an interface's fields are constants; one declaration of two constants gives siblings
    ("java", "interface Limits {\n    int MAX = 3;\n}\nclass Q {\n"
     "    public static final int A = 1, B = 2;\n}\n",
     [(1, "interface", "Limits"), (2, "constant", "Limits.MAX"), (4, "class", "Q"),
      (5, "constant", "Q.A"), (5, "constant", "Q.B")]),
    # method signatures of a `declare class`; overload signatures beside an implementation
    # are not symbols
    ("typescript", "declare class Ext {\n  m(): void;\n  static n(a: string): number;\n}\n"
     "class K {\n  f(a: string): void;\n  f(a: number): void;\n  f(a: any): void {}\n}\n",
     [(1, "class", "Ext"), (2, "method", "Ext.m"), (3, "method", "Ext.n"), (5, "class", "K"),
      (8, "method", "K.f")]),
    # type aliases: PEP 695 `type X = …` and PEP 613 `X: TypeAlias = …`; a plain annotated
    # assignment is not one
    ("python", "type Point[T] = tuple[T, T]\nJson: TypeAlias = dict\n"
     "class C:\n    Alias: typing.TypeAlias = int\n    n: int = 3\n",
     [(1, "type", "Point"), (2, "type", "Json"), (3, "class", "C"), (4, "type", "C.Alias")]),
    # a quoted method name is taken without its quotes
    ("javascript", "class A {\n  'quoted-name'() {}\n}\n",
     [(1, "class", "A"), (2, "method", "A.quoted-name")]),
    # Go's blank identifier defines nothing (a skipped iota value, `var _ = func…`)
    ("go", "package p\n\nconst (\n\tA = iota\n\t_\n\tB\n)\n\nvar _ = func() {}\n",
     [(4, "constant", "A"), (6, "constant", "B")]),
])
def test_forms_the_blind_suite_found(lang: str, src: str, rows: list[tuple[int, str, str]]) -> None:
    fn = {"typescript": "x.ts", "javascript": "x.js", "java": "X.java", "rust": "x.rs",
          "python": "x.py", "go": "x.go"}[lang]
    r = parse_bytes(fn, language_for(fn), src.encode())
    assert not r.error
    assert [(s.start_line, s.kind, s.local) for s in r.symbols] == rows
