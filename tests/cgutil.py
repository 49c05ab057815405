"""What the call-graph tests share (tests/test_break23.py, test_break25cg.py, test_cg26.py,
test_break26.py): the resolved call edges of a real index of a tmp git repository."""

from __future__ import annotations

from pathlib import Path

from conftest import make_repo

from hindsight.app import open_bank

ABC_M = """class A:
    def m(self):
        return 1


class B(A):
    def m(self):
        return 2


class C(A):
    def m(self):
        return 3


def parse_int(s):
    return int(s)
"""
"""Three classes with a method ``m`` (B and C derive from A) and ``parse_int``, lines 1-17:
the start of the unpacking cases of tests/test_cg26.py and tests/test_break26.py."""


AB = ("class A:\n    def m(self):\n        return 1\n"  # 1-3
      "class B:\n    def m(self):\n        return 2\n")  # 4-6
"""Two classes with a method ``m``, lines 1-6 (tests/test_field32.py, test_field32b.py)."""


def edges(repo: Path, full: bool = True) -> list[str]:
    """Resolved call edges ``src -> dst @line`` of an index of ``repo`` (``full``: from
    scratch), sorted."""
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=full, workers=1)
        _syms, es = bank.stores.code.snapshot()
    return sorted(f"{e[1]} -> {e[7]} @{e[6]}" for e in es if e[2] == "call" and e[7])


def calls_from(tmp: Path, files: dict[str, str], *srcs: str) -> list[str]:
    """The resolved call edges whose caller is one of ``srcs`` in a fresh index of
    ``files`` (written to ``tmp/r``)."""
    repo = make_repo(tmp / "r", dict(files))
    return [e for e in edges(repo) if e.split(" -> ")[0] in srcs]
