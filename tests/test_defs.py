"""Definition coverage and identities per language: every fixture file under
``tests/fixtures/defs/<language>/`` parses to exactly the definitions (file, 1-based
line, kind, local qualified name) its ``expected.tsv`` lists, nothing more and nothing
less. ``bench/defs.py`` reports recall and precision on the same fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from defsutil import Row, langs
from defsutil import expected as _expected
from defsutil import found as _found

DEFS = Path(__file__).resolve().parent / "fixtures" / "defs"
LANGS = langs(DEFS)


def expected(lang: str) -> list[Row]:
    return _expected(DEFS, lang)


def found(lang: str) -> list[Row]:
    return _found(DEFS, lang)


def test_every_fully_supported_language_has_fixtures() -> None:
    assert {"python", "javascript", "typescript", "java", "go", "rust"} <= set(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_definitions_exactly(lang: str) -> None:
    assert found(lang) == expected(lang)
