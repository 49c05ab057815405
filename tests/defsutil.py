"""The harness of the definition fixture suites (``tests/fixtures/defs*/<language>/``): each
language folder holds source files and an ``expected.tsv`` of the definitions they hold
(file, 1-based line, kind, local qualified name; ``#`` lines are comments)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import parse_bytes
from hindsight.models import simple_name

Row = tuple[str, int, str, str]


def langs(suite: Path) -> list[str]:
    """The language folders of ``suite``, sorted."""
    return sorted(p.name for p in suite.iterdir() if p.is_dir())


def expected(suite: Path, lang: str) -> list[Row]:
    """The rows ``expected.tsv`` of ``suite/lang`` lists, sorted."""
    rows = []
    for line in (suite / lang / "expected.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            f, n, kind, local = line.split("\t")
            rows.append((f, int(n), kind, local))
    return sorted(rows)


def found(suite: Path, lang: str) -> list[Row]:
    """The definitions the parser finds in the files of ``suite/lang``, sorted; every file
    must be valid code of a supported language (asserted)."""
    rows = []
    for f in sorted(os.listdir(suite / lang)):
        if f == "expected.tsv":
            continue
        language = language_for(f)
        assert language is not None, f
        r = parse_bytes(f, language, (suite / lang / f).read_bytes())
        assert not r.error, (f, r.error)  # the fixtures are valid code
        rows += [(f, s.start_line, s.kind, s.local) for s in r.symbols]
    return sorted(rows)


def check_coverage(suite: Path, lang: str, recall: float, precision: float) -> None:
    """Assert the coverage scores of ``suite/lang`` (as bench/defs.py computes them: a
    definition is found when a symbol starts on its line with its simple name) reach
    ``recall`` and ``precision``; a file the grammar cannot parse whole keeps the symbols
    before the error. The failure lists the rows missed or extra."""
    want = Counter((f, n, simple_name(q)) for f, n, _k, q in expected(suite, lang))
    got: Counter[tuple[str, int, str]] = Counter()
    for f in sorted((suite / lang).iterdir()):
        language = language_for(f.name)
        if language is not None:
            got.update((f.name, s.start_line, simple_name(s.local))
                       for s in parse_bytes(f.name, language, f.read_bytes()).symbols)
    hit = sum((want & got).values())
    assert hit / sum(want.values()) >= recall, sorted((want - got).elements())
    assert hit / sum(got.values()) >= precision, sorted((got - want).elements())
