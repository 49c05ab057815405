"""``why`` on a line of an overload signature or stub, which is no symbol: git blame
answers, and a note names the implementation (break-it 40: a TypeScript overload
signature line had no word; the Python ``@overload`` stub at module level neither)."""

from __future__ import annotations

from pathlib import Path

from histutil import Repo

from hindsight.app import open_bank

TS = """export function f(a: string): string;
export function f(
  a: number,
): number;
export function f(a: any): any {
  return a;
}

const g = h(1);

class K {
  private n = m(2);
  m(a: string): void;
  m(a: number): void;
  m(a: any): void {
    return;
  }
}
"""

PY = """from typing import overload


@overload
def f(a: int) -> int: ...
@overload
def f(a: str) -> str:
    ...
def f(a):
    return a


X = 1
"""


def _notes(tmp: Path, name: str, text: str, lines: list[int]) -> dict[int, list[str]]:
    r = Repo(tmp / "r")
    r.write(name, text)
    r.commit("c1")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        return {ln: b.history.why(name, ln)["notes"] for ln in lines}


def test_typescript_overload_signatures_name_the_implementation(tmp_path: Path) -> None:
    got = _notes(tmp_path, "a.ts", TS, [1, 2, 3, 4, 5, 9, 12, 13, 14, 15])
    sig = "git blame answers for the line"
    for n in (1, 2, 3, 4):
        assert got[n] == [
            f"line {n} is in an overload signature of f (implementation: lines 5-7): {sig}"]
    assert got[5] == [] and got[9] == []  # the implementation; a statement
    assert got[12] == [f"line 12 is in the body of K, outside its methods: {sig}"]
    assert got[13] == [
        f"line 13 is in an overload signature of K.m (implementation: lines 15-17): {sig}"]
    assert got[14] == [
        f"line 14 is in an overload signature of K.m (implementation: lines 15-17): {sig}"]
    assert got[15] == []


def test_python_module_level_overload_stubs_name_the_implementation(tmp_path: Path) -> None:
    got = _notes(tmp_path, "m.py", PY, [4, 5, 6, 7, 8, 9, 13])
    sig = "git blame answers for the line"
    for n in (4, 5, 6, 7, 8):
        assert got[n] == [
            f"line {n} is in an @overload stub of f (implementation: lines 9-10): {sig}"]
    assert got[9] == [] and got[13] == []
