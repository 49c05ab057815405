"""Findings of session 27's fresh-user trial and break-it pass (their exact right values):
documentation comments, and the reads and writes of properties as callers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import make_repo

from hindsight.codeindex.worker import parse_bytes


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=repo,
                          capture_output=True, text=True, timeout=120)

JS = b"""/**
 * Adjacent doc.
 */
function a() {}

/**
 * Send a response.
 *
 * @param {string|number|boolean|object|Buffer} body
 * @public
 */

res.send = function send(body) {};

// a plain comment, then a blank line

function c() {}

/** two blank lines */


function d() {}
"""


def test_a_jsdoc_block_one_blank_line_above_is_the_doc() -> None:
    """express writes every API function's JSDoc one blank line above it (a fresh-user
    trial found ``doc`` empty for all of them); a plain comment or a block two blank
    lines up is no doc."""
    docs = {s.local: s.doc for s in parse_bytes("x.js", "javascript", JS).symbols}
    assert docs == {"a": "Adjacent doc.", "res.send": (
        "Send a response.\n@param {string|number|boolean|object|Buffer} body\n@public"),
        "c": "", "d": ""}


PROPS = {
    "opts.py": '''import functools


class Option:
    def __init__(self, flag):
        self._flag = flag

    @property
    def is_flag(self):
        return bool(self._flag)

    @is_flag.setter
    def is_flag(self, value):
        self._flag = value

    @functools.cached_property
    def label(self):
        return "x"

    def help(self):
        if self.is_flag:  # a read in a method
            return "flag"
        return "self.is_flag"  # in a string: no read


class Other:
    is_flag = True


def toggle(opt: Option, other: Other):
    opt.is_flag = not opt.is_flag  # a write and a read
    return other.is_flag, opt.label
''',
    "use.py": '''from opts import Option


def make():
    o = Option(1)
    o.is_flag += 1
    return o.is_flag


def unknown(x):
    return x.is_flag
''',
    "acc.js": '''class Box {
  get size() { return 1; }
  set size(v) { this._s = v; }
  grow() { return this.size + 1; }
}

function fill(b) {
  const box = new Box();
  box.size = 3;
  return box.size;
}
'''}


def test_property_reads_and_writes_are_callers(tmp_path: Path) -> None:
    """click's ``Option.is_bool_flag`` had "no callers" (a fresh-user trial): the reads
    of a property are its getter's callers and the writes its setter's, found through
    the receiver as calls are (``self``, a declared parameter, a constructed local, in
    another file); ``Other.is_flag`` and a string are not; ``impact`` says "reads it"."""
    repo = make_repo(tmp_path / "r", PROPS)
    assert run(repo, "index").returncode == 0

    def callers(spec: str) -> list[tuple[str, str, int]]:
        r = run(repo, "callers", spec, "--json")
        assert r.returncode == 0, r.stderr
        return [(h["qname"], h["via"], h["line"]) for h in json.loads(r.stdout)["callers"]]

    assert callers("Option.is_flag") == [
        ("opts.py::Option.help", "read", 21), ("opts.py::toggle", "read", 31),
        ("use.py::make", "read", 6)]
    assert callers("Option.is_flag:setter") == [
        ("opts.py::toggle", "write", 31), ("use.py::make", "write", 6)]  # `+=` both
    assert callers("Option.label") == [("opts.py::toggle", "read", 32)]
    r = run(repo, "callers", "Option.is_flag", "--include-unresolved", "--json")
    out = json.loads(r.stdout)
    # `x.is_flag` of an unknown x, and `other.is_flag` (a plain attribute of Other: no
    # definition to resolve to), are listed as unresolved: they may be other attributes
    assert out["unresolved_same_name"] == 2
    assert [(h["qname"], h["resolved"], h["line"]) for h in out["callers"]
            if not h["resolved"]] == [("opts.py::toggle", False, 32),
                                      ("use.py::unknown", False, 11)]
    assert callers("Box.size") == [("acc.js::Box.grow", "read", 4), ("acc.js::fill", "read", 10)]
    assert callers("Box.size:setter") == [("acc.js::fill", "write", 9)]
    r = run(repo, "impact", "Option.is_flag", "--json")
    assert r.returncode == 0, r.stderr
    assert {i["target"]: i["reasons"] for i in json.loads(r.stdout)["items"]
            if i["kind"] == "symbol"} == {"opts.py::Option.help": ["reads it (depth 1)"],
                                         "opts.py::toggle": ["reads it (depth 1)"],
                                         "use.py::make": ["reads it (depth 1)"]}


CPP = b"""class V {
public:
    int& at(int i) { return d[i]; }
    V& operator=(const V& o) { return *this; }
    int* data() { return d; }
    int size() const { return 4; }
    int* raw();
    int d[4];
};
int* helper() { return 0; }
int& K::at(int i) { return x; }
int* V::raw() { return d; }
"""


def test_cpp_methods_returning_pointers_and_references_are_symbols() -> None:
    """``int& at(int)``, ``V& operator=``, ``int* data()`` in a class, their declarations
    and out-of-class definitions (``int& K::at``) were no symbols (break-it finding)."""
    got = [(s.local, s.kind, s.start_line) for s in parse_bytes("v.cpp", "cpp", CPP).symbols]
    assert got == [("V", "class", 1), ("V.at", "method", 3), ("V.operator=", "method", 4),
                   ("V.data", "method", 5), ("V.size", "method", 6), ("V.raw", "method", 7),
                   ("helper", "function", 10), ("K.at", "method", 11), ("V.raw", "method", 12)]


def test_debug_stores_nothing_not_even_a_bank(tmp_path: Path) -> None:
    """``debug --file`` ("nothing stored") made an empty bank when there was none (a
    fresh-user trial): it parses all the same, and no database appears."""
    repo = make_repo(tmp_path / "r", {"x.js": "function a() {}\n"})
    r = run(repo, "debug", "--file", "x.js", "--json")
    assert r.returncode == 0, r.stderr
    assert [s["local"] for s in json.loads(r.stdout)["symbols"]] == ["a"]
    home = Path(os.environ["HINDSIGHT_HOME"])
    assert not list(home.rglob("*.db"))
    assert run(repo, "status").returncode == 3  # still no bank


def test_typescript_abstract_overload_signatures_are_one_symbol() -> None:
    """Two ``abstract run(…)`` signatures and no implementation: the first stands for the
    name, as for interface and ``declare`` signatures (break-it finding)."""
    src = (b"abstract class Q {\n  abstract run(a: string): void;\n"
           b"  abstract run(a: number): void;\n  abstract stop(): void;\n  other(): void {}\n}\n")
    got = [(s.local, s.start_line) for s in parse_bytes("q.ts", "typescript", src).symbols]
    assert got == [("Q", 1), ("Q.run", 2), ("Q.stop", 4), ("Q.other", 5)]
