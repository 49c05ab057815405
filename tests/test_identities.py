"""Accessors, overloads and overload stubs have identities of their own, and ``why``,
``history``, ``trace`` and lookups use them (issue 14, item 2, and its field reports),
on scripted git repositories with exact expected answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo

from hindsight.app import open_bank
from hindsight.errors import Ambiguous

PROP_V1 = '''class Box:
    def __init__(self):
        self._w = 0

    @property
    def width(self):
        return self._w

    @width.setter
    def width(self, value):
        self._w = value

    @width.deleter
    def width(self):
        self._w = 0
'''
PROP_V2 = PROP_V1.replace("self._w = value", "self._w = max(0, value)")


def _lines(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_getter_and_setter_have_their_own_history(tmp_path: Path) -> None:
    """Field report: "A property getter and setter share one qualified name, so `why` on
    the setter blames the getter's commit and history merges the two"."""
    r = Repo(tmp_path / "prop")
    r.write("box.py", PROP_V1)
    c1 = r.commit("add Box.width")
    r.write("box.py", PROP_V2)
    c2 = r.commit("clamp the width setter")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        got = sorted((s.local, s.kind, s.start_line) for s in b.code.store.file_symbols("box.py"))
        assert got == [("Box", "class", 1), ("Box.__init__", "method", 2),
                       ("Box.width", "method", 6), ("Box.width:deleter", "method", 14),
                       ("Box.width:setter", "method", 10)]
        hist = b.history.history("Box.width")
        assert [(e.sha, e.change) for e in hist["entries"]] == [(c1, "added")]
        hist = b.history.history("Box.width:setter")
        assert hist["qname"] == "box.py::Box.width:setter"
        assert [(e.sha, e.change) for e in hist["entries"]] == [(c2, "modified"), (c1, "added")]
        setter_line = _lines(PROP_V2, "max(0, value)")
        w = b.history.why("box.py", setter_line)
        assert (w["symbol"]["local"], w["last"]["sha"]) == ("Box.width:setter", c2)
        w = b.history.why("box.py", _lines(PROP_V2, "return self._w"))
        assert (w["symbol"]["local"], w["last"]["sha"]) == ("Box.width", c1)
        # a plain name means the getter; the setter by its own name
        assert b.code.resolve("width").local == "Box.width"
        assert b.code.resolve("Box.width:setter").start_line == 10


JAVA_V1 = '''package p;

public class Fmt {
    public String show(int n) {
        return "" + n;
    }

    public String show(String s, java.util.List<String> rest) {
        return s;
    }

    public String twice(int n) {
        return show(n) + show(n);
    }
}
'''
JAVA_V2 = JAVA_V1.replace("return s;", "return s.trim();")


def test_overloads_have_their_own_history_and_a_plain_name_is_ambiguous(
        tmp_path: Path) -> None:
    """Field report: "overloaded methods share one qualified name, so why blames the
    other overload's commit and history merges the two"."""
    r = Repo(tmp_path / "ov")
    r.write("Fmt.java", JAVA_V1)
    c1 = r.commit("add Fmt")
    r.write("Fmt.java", JAVA_V2)
    c2 = r.commit("trim the string overload")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        locs = [s.local for s in b.code.store.file_symbols("Fmt.java")]
        assert locs == ["Fmt", "Fmt.show(int)", "Fmt.show(String,java.util.List<String>)",
                        "Fmt.twice"]
        h1 = b.history.history("Fmt.show(int)")
        assert [(e.sha, e.change) for e in h1["entries"]] == [(c1, "added")]
        h2 = b.history.history("Fmt.java::Fmt.show(String,java.util.List<String>)")
        assert [(e.sha, e.change) for e in h2["entries"]] == [(c2, "modified"), (c1, "added")]
        w = b.history.why("Fmt.java", _lines(JAVA_V2, "s.trim()"))
        assert (w["symbol"]["local"], w["last"]["sha"]) == (
            "Fmt.show(String,java.util.List<String>)", c2)
        w = b.history.why("Fmt.java", _lines(JAVA_V2, 'return "" + n'))
        assert (w["symbol"]["local"], w["last"]["sha"]) == ("Fmt.show(int)", c1)
        with pytest.raises(Ambiguous) as e:
            b.code.resolve("Fmt.show")
        assert e.value.candidates == ["Fmt.java::Fmt.show(String,java.util.List<String>)",
                                      "Fmt.java::Fmt.show(int)"]
        # a call cannot tell the overloads apart: it is a caller of each
        for spec in ("Fmt.show(int)", "Fmt.show(String,java.util.List<String>)"):
            _t, hits = b.code.callers(spec)
            assert [(h.qname, h.line) for h in hits] == [("Fmt.java::Fmt.twice", 13)]
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "history", "Fmt.show", "--json"],
                         cwd=r.path, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 7, out.stderr
    assert "Fmt.java::Fmt.show(int)" in out.stdout + out.stderr


OVERLOAD_V1 = '''from typing import overload
import typing


class Conv:
    @overload
    def parse(self, x: int) -> int: ...

    @typing.overload
    def parse(self, x: str) -> str: ...

    def parse(self, x):
        return self.clean(x)

    def clean(self, x):
        return x
'''
OVERLOAD_V2 = OVERLOAD_V1.replace("return self.clean(x)", "return self.clean(x) or x")


def test_overload_stubs_are_not_symbols(tmp_path: Path) -> None:
    """Field report: "history is stored under the real implementation (`Name#3`) but
    queries read the first stub, so `history` is empty, `why` on the implementation's
    line names the wrong commit, and `trace` shows the stub as the root"."""
    r = Repo(tmp_path / "stub")
    r.write("conv.py", OVERLOAD_V1)
    c1 = r.commit("add Conv.parse")
    r.write("conv.py", OVERLOAD_V2)
    c2 = r.commit("parse falls back to x")
    impl = _lines(OVERLOAD_V2, "    def parse(self, x):")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        parse = [s for s in b.code.store.file_symbols("conv.py") if s.name == "parse"]
        assert [(s.local, s.start_line) for s in parse] == [("Conv.parse", impl)]
        hist = b.history.history("Conv.parse")
        assert [(e.sha, e.change, e.local) for e in hist["entries"]] == [
            (c2, "modified", "Conv.parse"), (c1, "added", "Conv.parse")]
        w = b.history.why("conv.py", impl + 1)
        assert (w["symbol"]["local"], w["last"]["sha"]) == ("Conv.parse", c2)
        root = b.code.trace("Conv.parse", depth=1)
        assert (root.symbol.start_line, [c.name for c in root.children]) == (
            impl, ["conv.py::Conv.clean"])


EXPRESS = '''var res = Object.create(http.ServerResponse.prototype);
module.exports = res;

res.status = function status(code) {
  this.statusCode = code;
  return this;
};

res.send = function send (body) {
  return this.status(200).end(body);
};

res.json = function json(obj) {
  return this.send(JSON.stringify(obj));
};
'''
APP = '''var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
};

app.use = function use (fn) {
  this.init();
  return this;
};

app.listen = function listen() {
  return this.use(null);
};
'''


def test_functions_assigned_to_properties_are_symbols(tmp_path: Path) -> None:
    """Field report: "JavaScript functions assigned to properties (`res.send = function
    send () {…}`, `app.use = function use () {…}`): none of the framework's public API
    functions is a symbol"."""
    r = Repo(tmp_path / "js")
    r.write("lib/response.js", EXPRESS)
    r.write("lib/application.js", APP)
    r.commit("add")
    with open_bank(str(r.path)) as b:
        b.code.index()
        got = {(s.path, s.local, s.kind, s.start_line) for p in ("lib/response.js",
               "lib/application.js") for s in b.code.store.file_symbols(p)}
        assert got == {
            ("lib/response.js", "res.status", "function", 4),
            ("lib/response.js", "res.send", "function", 9),
            ("lib/response.js", "res.json", "function", 13),
            ("lib/application.js", "app.init", "function", 3),
            ("lib/application.js", "app.use", "function", 7),
            ("lib/application.js", "app.listen", "function", 12)}
        assert b.code.resolve("app.use").signature == "app.use = function use (fn)"
        env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
        out = subprocess.run([sys.executable, "-m", "hindsight", "symbols", "send", "--json"],
                             cwd=r.path, capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        rows = json.loads(out.stdout)
        assert [s["qname"] for s in rows["symbols"]] == ["lib/response.js::res.send"]


BRANCHES_V1 = '''import sys

if sys.platform == "win32":
    def home():
        return "C:/"
else:
    def home():
        return "/"
'''
BRANCHES_V2 = BRANCHES_V1.replace('return "/"', 'return "/home"')


def test_why_on_a_repeated_name_reads_its_own_copy(tmp_path: Path) -> None:
    """A name defined twice keeps one qualified name; ``why`` on the second copy reads
    the history stored for it (``home#2``), not the first copy's."""
    r = Repo(tmp_path / "br")
    r.write("plat.py", BRANCHES_V1)
    c1 = r.commit("add home")
    r.write("plat.py", BRANCHES_V2)
    c2 = r.commit("posix home is /home")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        w = b.history.why("plat.py", _lines(BRANCHES_V2, '"/home"'))
        assert (w["symbol"]["local"], w["symbol"]["start_line"], w["last"]["sha"]) == (
            "home", 7, c2)
        w = b.history.why("plat.py", _lines(BRANCHES_V2, '"C:/"'))
        assert (w["symbol"]["start_line"], w["last"]["sha"]) == (4, c1)
