"""Names defined more than once in a file (``m``, ``m#2``… by position: a C++ method and
its cv-qualified twin, a Python function defined in both branches of an ``if``): a copy
added above the others, or one removed, leaves every other copy its own history
(break-it 40: each later copy took the history of the one before it)."""

from __future__ import annotations

from pathlib import Path

from histutil import Repo

from hindsight.app import open_bank

CPP = """class K {
public:
  int get(int a) { return a; }
  int get(int a) const { return a + 1; }
};
"""

PY = """import sys

if sys.platform == "win32":
    def f():
        return "w"
else:
    def f():
        return "p"
"""


def _history(r: Repo, keys: list[str]) -> dict[str, list[tuple[str, str]]]:
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        return {k: [(e.subject, e.change) for e in b.history.history(k)["entries"]]
                for k in keys}


def test_cpp_copy_inserted_above_keeps_each_history(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.cpp", CPP)
    r.commit("c1")
    r.write("a.cpp", CPP.replace("a + 1", "a + 2"))
    r.commit("c2 edit the const one")
    r.write("a.cpp", CPP.replace("a + 1", "a + 2").replace(
        "public:\n", "public:\n  int get(int a) volatile { return a + 9; }\n"))
    r.commit("c3 add a volatile one above")
    got = _history(r, ["K.get", "K.get#2", "K.get#3"])
    assert got == {"K.get": [("c3 add a volatile one above", "added")],
                   "K.get#2": [("c1", "added")],
                   "K.get#3": [("c2 edit the const one", "modified"), ("c1", "added")]}
    with open_bank(str(r.path)) as b:
        w = b.history.why("a.cpp", 5)
        assert (w["symbol"]["start_line"], w["last"]["subject"]) == (5, "c2 edit the const one")


def test_python_copy_removed_leaves_the_other_its_history(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", PY)
    r.commit("c1")
    r.write("m.py", PY.replace('"p"', '"posix"'))
    r.commit("c2 edit the posix one")
    r.write("m.py", 'def f():\n    return "posix"\n')
    r.commit("c3 drop windows")
    got = _history(r, ["f"])
    # the posix copy (once `f#2`) is `f` now; the windows one's removal is not its history
    assert got == {"f": [("c2 edit the posix one", "modified"), ("c1", "added")]}


def test_copy_edited_while_one_is_added_above(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", PY)
    r.commit("c1")
    r.write("m.py", PY.replace('if sys.platform == "win32":', 'if sys.platform == "os2":\n'
                               '    def f():\n        return "o"\nelif sys.platform == '
                               '"win32":').replace('"p"', '"posix"'))
    r.commit("c2 add os2 above and edit posix")
    got = _history(r, ["f", "f#2", "f#3"])
    assert got == {"f": [("c2 add os2 above and edit posix", "added")],
                   "f#2": [("c1", "added")],
                   "f#3": [("c2 add os2 above and edit posix", "modified"), ("c1", "added")]}
