"""Definitions on the seventh blind suite, ``tests/fixtures/defs_blind7/`` (session 36): C#,
Kotlin and C++ one-feature files in the style of a reference tagger's unit cases plus
framework idioms (ASP.NET, Unity, EF; Android, Ktor, Spring; templates, operators,
out-of-line members), 777 definitions written by a helper that read neither the queries
nor the other suites (C++ checked with ``g++ -fsyntax-only -std=c++20``; C# and Kotlin
parse without errors). First scores, coverage recall / precision (``python
bench/defs.py --suite defs_blind7`` on a621d7f): C++ 0.905 / 0.920, C# 0.877 / 0.995,
Kotlin 0.797 / 0.996. Fixed since: enum members of C#, Kotlin and C++ are constants, C#
``const`` fields constants, C# operators (``operator+``), finalizers (``~Resource``),
indexers (``this``) and file-scoped namespaces, Kotlin ``val``/``var`` parameters of a
primary constructor (properties), unnamed companions (``Companion``), secondary
constructors (``Class.Class``) and names in backticks, C++ out-of-line destructors and
members of nested classes (``Outer::Inner::value``).

The floors below are today's scores, to be raised, not exact rows: the suite's
conventions differ from the index's where the README states another (C++ member
declarations in a class body are symbols here, prototypes to the writer; Kotlin ``enum
class`` and ``const val`` are a class and a property here) and the rest are known gaps
(C++ conversion operators, a class behind an export macro, a template specialisation's
second definition)."""

from __future__ import annotations

from pathlib import Path

import pytest
from defsutil import check_coverage

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

SUITE = Path(__file__).resolve().parent / "fixtures" / "defs_blind7"
FLOORS = {"cpp": (0.97, 0.92), "csharp": (0.99, 0.99), "kotlin": (0.99, 0.99)}
"""language → (coverage recall, coverage precision), a definition found when a symbol
starts on its line with its simple name (as bench/defs.py scores)."""


@pytest.mark.parametrize("lang", sorted(FLOORS))
def test_blind_definitions_floors(lang: str) -> None:
    check_coverage(SUITE, lang, *FLOORS[lang])


@pytest.mark.parametrize(("fn", "src", "rows"), [
    ("x.cs", "namespace A;\nenum Dir { North, East = 2 }\nclass M {\n"
     "  public const int Max = 3;\n  public static M operator +(M a, M b) { return a; }\n"
     "  ~M() {}\n  public int this[int i] { get { return i; } }\n}\n",
     [(1, "namespace", "A"), (2, "enum", "Dir"), (2, "constant", "Dir.North"),
      (2, "constant", "Dir.East"), (3, "class", "M"), (4, "constant", "M.Max"),
      (5, "method", "M.operator+"), (6, "method", "M.~M"), (7, "property", "M.this")]),
    ("x.kt", "class U(val id: Long, var name: String? = null, age: Int) {\n"
     "  constructor(n: String) : this(0, n, 1)\n  companion object {\n"
     "    fun make() = 1\n  }\n}\nenum class D { N, E }\nfun `a b`() {}\n",
     [(1, "class", "U"), (1, "property", "U.id"), (1, "property", "U.name"),
      (2, "constructor", "U.U"), (3, "object", "U.Companion"),
      (4, "method", "U.Companion.make"), (7, "class", "D"), (7, "constant", "D.N"),
      (7, "constant", "D.E"), (8, "function", "a b")]),
    ("x.cpp", "enum Mode { READ, WRITE = 2 };\nstruct P { ~P(); struct I { int v(); }; };\n"
     "P::~P() {}\nint P::I::v() { return 1; }\n",
     [(1, "enum", "Mode"), (1, "constant", "Mode.READ"), (1, "constant", "Mode.WRITE"),
      (2, "struct", "P"), (2, "struct", "P.I"), (2, "method", "P.I.v"),
      (3, "method", "P.~P"), (4, "method", "P.I.v")]),
])
def test_forms_of_the_seventh_suite(fn: str, src: str, rows: list[tuple[int, str, str]]
                                    ) -> None:
    lang = language_for(fn)
    assert lang is not None
    r = parse_bytes(fn, lang, src.encode())
    assert sorted((s.start_line, s.kind, s.local) for s in r.symbols) == sorted(rows)
