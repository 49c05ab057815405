"""Python symbol extraction agrees with Python's own ``ast`` on the standard library:
same qualified names and start lines for every def/class (issue #2 acceptance).
A sample of files runs here; bench/index.py runs all of them and prints the rate."""

from __future__ import annotations

import os
import sysconfig
from collections import Counter

import pytest

from hindsight.codeindex.astref import ast_defs
from hindsight.codeindex.worker import parse_path

STDLIB = sysconfig.get_paths()["stdlib"]


def ours(root: str, rel: str) -> Counter[tuple[str, int]]:
    res = parse_path(root, rel, "python")
    return Counter((s.local, s.start_line) for s in res.symbols
                   if s.kind in ("function", "method", "class"))


def stdlib_files() -> list[str]:
    out = []
    for d, dirs, files in os.walk(STDLIB):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "__pycache__"))
        out += [os.path.relpath(os.path.join(d, f), STDLIB) for f in sorted(files)
                if f.endswith(".py")]
    return out


def compare(rel: str) -> tuple[int, int, list[str]]:
    """(agreeing defs, ast defs, differences) for one file; (0, 0, []) if ast can't parse."""
    with open(os.path.join(STDLIB, rel), "rb") as fh:
        raw = fh.read()
    want = ast_defs(raw)
    if want is None:
        return 0, 0, []
    got = ours(STDLIB, rel)
    agree = sum((want & got).values())
    diff = [f"{rel}: missing {k}" for k in (want - got)] + [
        f"{rel}: extra {k}" for k in (got - want)]
    return agree, sum(want.values()), diff


SAMPLE = stdlib_files()[::25]


@pytest.mark.parametrize("rel", SAMPLE)
def test_agrees_with_ast(rel: str) -> None:
    agree, total, diff = compare(rel)
    assert diff == []
    assert agree == total
