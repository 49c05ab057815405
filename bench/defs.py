"""Definition recall and precision per language on the hand-checked fixture suite
(``tests/fixtures/defs/<language>/``, golden ``expected.tsv``; the same files
``tests/test_defs.py`` compares exactly).

Two scores per language:

* **coverage**: a definition is found when a symbol starts on its line with its simple
  name (``Foo.prototype.m = function`` → ``m``); recall = found / expected, precision =
  matching symbols / all symbols.
* **exact**: file, line, kind and local qualified name all agree (the identity:
  ``Class.prop:setter``, ``Class.m(int,int)``).

    python bench/defs.py                    # tests/fixtures/defs, bench/results/defs.json
    python bench/defs.py --suite defs_blind  # tests/fixtures/defs_blind (written before
                                             # reading the queries), defs_blind.json
    python bench/defs.py --suite defs_blind2  # tests/fixtures/defs_blind2: one-feature
                                              # files in the style of a tagger's unit cases
    python bench/defs.py --suite defs_blind3  # tests/fixtures/defs_blind3: a second blind set
                                              # of one-feature files, odd corners included
    python bench/defs.py --suite defs_blind4  # tests/fixtures/defs_blind4: a third blind set of
                                              # unit-style files (framework idioms, odd corners)
    python bench/defs.py --suite defs_blind5  # tests/fixtures/defs_blind5: a fourth blind set
                                              # (session 30), first scored on 820b4e2
    python bench/defs.py --suite defs_blind6  # tests/fixtures/defs_blind6: a fifth blind set
                                              # (session 31), first scored on 619c7ca
    python bench/defs.py --suite defs_blind7  # tests/fixtures/defs_blind7: C#, Kotlin and C++
                                              # (session 36), first scored on a621d7f

Writes bench/results/<suite>.json and prints one line per language.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, write  # noqa: E402

from hindsight.codeindex.languages import language_for  # noqa: E402
from hindsight.codeindex.worker import parse_bytes  # noqa: E402
from hindsight.models import simple_name  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
SUITES = ("defs", "defs_blind", "defs_blind2", "defs_blind3", "defs_blind4", "defs_blind5",
          "defs_blind6", "defs_blind7", "defs_blind8")
DEFS = FIXTURES / "defs"

Row = tuple[str, int, str, str]  # file, line, kind, local


def expected(lang: str) -> list[Row]:
    rows = []
    for line in (DEFS / lang / "expected.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            f, n, kind, local = line.split("\t")
            rows.append((f, int(n), kind, local))
    return rows


def found(lang: str) -> list[Row]:
    rows: list[Row] = []
    for f in sorted(os.listdir(DEFS / lang)):
        language = language_for(f)
        if f == "expected.tsv" or language is None:
            continue
        r = parse_bytes(f, language, (DEFS / lang / f).read_bytes())
        rows += [(f, s.start_line, s.kind, s.local) for s in r.symbols]
    return rows


def _score(want: list[Any], got: list[Any]) -> dict[str, float]:
    from collections import Counter

    w, g = Counter(want), Counter(got)
    hit = sum((w & g).values())
    return {"recall": round(hit / len(want), 3) if want else 1.0,
            "precision": round(hit / len(got), 3) if got else 1.0}


def score(lang: str) -> dict[str, Any]:
    want, got = expected(lang), found(lang)

    def cover(rows: list[Row]) -> list[tuple[str, int, str]]:
        return [(f, n, simple_name(local)) for f, n, _k, local in rows]

    return {"expected": len(want), "found": len(got),
            "coverage": _score(cover(want), cover(got)), "exact": _score(want, got)}


def main() -> None:
    global DEFS
    ap = argparse.ArgumentParser(description="definition recall and precision per language")
    ap.add_argument("--suite", choices=SUITES, default="defs",
                    help="fixture suite under tests/fixtures/ (default: defs)")
    suite = ap.parse_args().suite
    DEFS = FIXTURES / suite
    langs = sorted(p.name for p in DEFS.iterdir() if p.is_dir())
    out = {lang: score(lang) for lang in langs}
    for lang, s in out.items():
        c, e = s["coverage"], s["exact"]
        print(f"{lang:11} expected {s['expected']:3}  coverage recall {c['recall']:.3f} "
              f"precision {c['precision']:.3f}  exact recall {e['recall']:.3f} "
              f"precision {e['precision']:.3f}")
    path = write(suite, {"machine": machine(), "languages": out})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
