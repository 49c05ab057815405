"""Definition coverage and identities per language: every fixture file under
``tests/fixtures/defs/<language>/`` parses to exactly the definitions (file, 1-based
line, kind, local qualified name) its ``expected.tsv`` lists, nothing more and nothing
less. ``bench/defs.py`` reports recall and precision on the same fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes

DEFS = Path(__file__).resolve().parent / "fixtures" / "defs"
LANGS = sorted(p.name for p in DEFS.iterdir() if p.is_dir())


def expected(lang: str) -> list[tuple[str, int, str, str]]:
    rows = []
    for line in (DEFS / lang / "expected.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            f, n, kind, local = line.split("\t")
            rows.append((f, int(n), kind, local))
    return sorted(rows)


def found(lang: str) -> list[tuple[str, int, str, str]]:
    rows = []
    for f in sorted(os.listdir(DEFS / lang)):
        if f == "expected.tsv":
            continue
        language = language_for(f)
        assert language is not None, f
        r = parse_bytes(f, language, (DEFS / lang / f).read_bytes())
        assert not r.error, (f, r.error)  # the fixtures are valid code
        rows += [(f, s.start_line, s.kind, s.local) for s in r.symbols]
    return sorted(rows)


def test_every_fully_supported_language_has_fixtures() -> None:
    assert {"python", "javascript", "typescript", "java", "go", "rust"} <= set(LANGS)


@pytest.mark.parametrize("lang", LANGS)
def test_definitions_exactly(lang: str) -> None:
    assert found(lang) == expected(lang)
