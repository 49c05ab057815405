"""Field reports of session 28 on Rust: methods of one type that share a name (an
inherent method and trait methods: ``Type.m`` and ``Type.m:Trait``), found by a break-it
pass and a fresh-user trial on fd; the migration of a bank written by extraction version
7. Real git repositories built commit by commit (tests/histutil.py), the CLI as a
subprocess where the user-facing answer matters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from histutil import Repo, fixture_bank

from hindsight.app import open_bank
from hindsight.codeindex.parse import EXTRACTOR_VERSION

CLI = [sys.executable, "-m", "hindsight"]


RUST = (FIXTURES / "banks" / "identities-v7" / "v1" / "entry.rs").read_text(encoding="utf-8")


V7_SHAS = ["d47e1fb23531cbeb3bfc258a1f23af5759de3b43",
           "6dc6deb1dcfd4866993a05483fcb5a071f227b70"]


def test_rust_trait_methods_have_their_own_names(tmp_path: Path) -> None:
    r = Repo(tmp_path / "rs")
    r.write("entry.rs", RUST + "\nimpl From<std::io::Error> for DirEntry {\n"
            "    fn from(_e: std::io::Error) -> Self { DirEntry { kind: 0 } }\n}\n"
            "\nimpl From<u32> for DirEntry {\n"
            "    fn from(kind: u32) -> Self { DirEntry { kind } }\n}\n"
            "\nfn show(e: &DirEntry) -> u32 {\n    e.file_type()\n}\n")
    r.commit("entry")
    with open_bank(str(r.path)) as b:
        b.code.index()
        locs = [(s.local, s.start_line) for s in b.code.store.file_symbols("entry.rs")
                if s.kind == "method"]
        assert locs == [
            ("Colorable.file_type", 4), ("DirEntry.file_type", 12),
            ("DirEntry.file_type:Colorable", 18), ("DirEntry.fmt:Display", 24),
            ("DirEntry.fmt:Debug", 30), ("DirEntry.from:From<std::io::Error>", 36),
            ("DirEntry.from:From<u32>", 40)]
        # a call names the inherent method (Rust looks there first); the trait's own
        # method calling it is no recursion
        _t, hits = b.code.callers("DirEntry.file_type")
        assert sorted((h.qname, h.line) for h in hits) == [
            ("entry.rs::DirEntry.file_type:Colorable", 19),
            ("entry.rs::DirEntry.fmt:Display", 25), ("entry.rs::show", 44)]
        assert b.code.callers("DirEntry.file_type:Colorable")[1] == []
    # the bare name of two trait methods is ambiguous: exit 7 with the candidates
    p = subprocess.run([*CLI, "callers", "DirEntry.fmt"], cwd=r.path, capture_output=True,
                       text=True)
    assert p.returncode == 7
    assert "entry.rs::DirEntry.fmt:Debug" in p.stdout + p.stderr
    assert "entry.rs::DirEntry.fmt:Display" in p.stdout + p.stderr


@pytest.fixture
def v7_bank(tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The bank of tests/fixtures/banks/make_identities_v7.py (extraction version 7) and
    the repository it was made from (the same two commits)."""
    r = fixture_bank(tmp_path, hindsight_home, "identities-v7", "entry.rs", V7_SHAS)
    for k, v in {"HINDSIGHT_BANK_ID": "identities-v7", "HINDSIGHT_EMBEDDER": "hashing",
                 "HINDSIGHT_NOW": "2026-01-06T12:00:00+00:00"}.items():
        monkeypatch.setenv(k, v)
    return r


def test_v7_bank_repoints_anchors_to_trait_methods_and_redoes_history(v7_bank: Repo
                                                                      ) -> None:
    with open_bank(str(v7_bank.path)) as b:
        before = sorted(b.memory.store.anchors_all())
        assert [(m, s) for m, _p, s, _h, _st in before] == [
            (1, "DirEntry.file_type"), (2, "DirEntry.file_type"), (3, "DirEntry"),
            (3, "DirEntry.fmt")]
        st = b.code.index()
        assert any(f"(version 7 -> {EXTRACTOR_VERSION})" in w for w in st.warnings)
        after = sorted(b.memory.store.anchors_all())
        assert [(m, s, stale) for m, _p, s, _h, stale in after] == [
            (1, "DirEntry.file_type", 0), (2, "DirEntry.file_type:Colorable", 0),
            (3, "DirEntry", 0), (3, "DirEntry.fmt:Debug", 0)]
        assert b.memory.counts()["stale"] == 0
        b.history.ingest()
        hist = b.history.history("DirEntry.file_type:Colorable")
        assert [(e.sha, e.change) for e in hist["entries"]] == [
            (V7_SHAS[1], "modified"), (V7_SHAS[0], "added")]
        hist = b.history.history("DirEntry.file_type")
        assert [(e.sha, e.change) for e in hist["entries"]] == [(V7_SHAS[0], "added")]
        why = b.history.why("entry.rs", 19)
        assert (why["symbol"]["local"], why["last"]["sha"]) == (
            "DirEntry.file_type:Colorable", V7_SHAS[1])


def test_trait_suffix_is_stripped_where_a_user_or_a_call_names_the_method() -> None:
    from hindsight.models import base_local, call_base, simple_name

    cases = {"T.fmt:Display": ("T.fmt", "T.fmt", "fmt"),
             "T.from:From<io::Error>": ("T.from", "T.from", "from"),
             "a.rs::T.from:From<std::io::Error>": ("a.rs::T.from", "a.rs::T.from", "from"),
             "X.f:From<&'a str>": ("X.f", "X.f", "f"),
             "C.p:setter": ("C.p:setter", "C.p", "p"),
             "C.m(int)": ("C.m", "C.m", "m"),
             "a.cc::Foo.m(std::string)": ("a.cc::Foo.m", "a.cc::Foo.m", "m"),
             "src/lib.rs::T.fmt:Debug": ("src/lib.rs::T.fmt", "src/lib.rs::T.fmt", "fmt"),
             "C.m": ("C.m", "C.m", "m")}
    for local, (call, base, simple) in cases.items():
        assert (call_base(local), base_local(local), simple_name(local)) == (
            call, base, simple), local


def test_rust_from_impls_for_several_error_types_stay_apart(tmp_path: Path) -> None:
    """Break-it: ``From<io::Error>``, ``From<serde_json::Error>`` and ``From<std::fmt::
    Error>`` of one type were all ``From<Error>``; each is found by the name it is written
    with, and the bare name is ambiguous."""
    src = ("use std::io;\n\npub struct MyError;\n\n"
           "impl From<io::Error> for MyError {\n    fn from(_e: io::Error) -> Self { MyError }\n}\n\n"
           "impl From<serde_json::Error> for MyError {\n"
           "    fn from(_e: serde_json::Error) -> Self { MyError }\n}\n\n"
           "impl std::convert::From<std::fmt::Error> for MyError {\n"
           "    fn from(_e: std::fmt::Error) -> Self { MyError }\n}\n")
    r = Repo(tmp_path / "err")
    r.write("src/error.rs", src)
    r.commit("errors")
    with open_bank(str(r.path)) as b:
        b.code.index()
        assert [s.local for s in b.code.store.file_symbols("src/error.rs")
                if s.kind == "method"] == [
            "MyError.from:From<io::Error>", "MyError.from:From<serde_json::Error>",
            "MyError.from:From<std::fmt::Error>"]
    got = subprocess.run([*CLI, "symbols", "MyError.from:From<serde_json::Error>", "--json"],
                         cwd=r.path, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert [s["start_line"] for s in json.loads(got.stdout)["symbols"]] == [10]
    p = subprocess.run([*CLI, "callers", "MyError.from"], cwd=r.path, capture_output=True,
                       text=True)
    assert p.returncode == 7


def test_an_inherent_method_added_beside_a_trait_method_keeps_the_trait_s_past(
        tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break-it: ``impl Named for Y { fn name }`` alone is ``Y.name``; adding an inherent
    ``name`` makes it ``Y.name:Named``. Its history goes on, the new inherent method starts
    one, and a memory on the trait method follows it and stays fresh."""
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    trait = ("pub trait Named {\n    fn name(&self) -> String;\n}\n\npub struct Y;\n\n"
             "impl Named for Y {\n    fn name(&self) -> String {\n"
             "        let base = String::from(\"y\");\n        base.to_uppercase()\n    }\n}\n")
    r = Repo(tmp_path / "named")
    r.write("src/lib.rs", trait)
    r.commit("Y is Named")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        b.memory.retain("Decision: Y's Named name is upper case", kind="decision",
                        symbols=["Y.name"])
    r.write("src/lib.rs", trait + "\nimpl Y {\n    pub fn name(&self) -> &'static str {\n"
            "        \"inherent\"\n    }\n}\n")
    r.commit("inherent Y.name")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        anchors = [(s, stale) for _m, _p, s, _h, stale in b.memory.store.anchors_all()]
        assert anchors == [("Y.name:Named", 0)]
        got = b.history.history("Y.name:Named")["entries"]
        assert [(e.subject, e.change) for e in got] == [("inherent Y.name", "moved"),
                                                        ("Y is Named", "added")]
        got = b.history.history("Y.name")["entries"]
        assert [(e.subject, e.change) for e in got] == [("inherent Y.name", "added")]


QUALIFIED = '''use std::fmt;

pub trait Show {
    fn show(&self) -> String;
}

pub struct Y;

impl Y {
    pub fn show(&self) -> String {
        String::from("inherent")
    }
}

impl Show for Y {
    fn show(&self) -> String {
        format!("trait {}", Y::show(self))
    }
}

impl fmt::Display for Y {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.show())
    }
}

impl fmt::Debug for Y {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        <Self as fmt::Display>::fmt(self, f)
    }
}

pub fn both(y: &Y) -> String {
    <Y as Show>::show(y) + &y.show()
}
'''


def test_rust_fully_qualified_calls_name_the_trait_method(tmp_path: Path) -> None:
    """Break-it: ``<Y as Show>::show(y)`` and ``<Self as fmt::Display>::fmt(self, f)``
    run the trait's method, ``y.show()`` and ``Y::show(self)`` the inherent one."""
    r = Repo(tmp_path / "q")
    r.write("src/lib.rs", QUALIFIED)
    r.commit("q")
    with open_bank(str(r.path)) as b:
        b.code.index()
        got = {spec: sorted((h.qname, h.line) for h in b.code.callers(spec)[1])
               for spec in ("Y.show", "Y.show:Show", "Y.fmt:Display")}
    assert got == {
        "Y.show": [("src/lib.rs::Y.fmt:Display", 23), ("src/lib.rs::Y.show:Show", 17),
                   ("src/lib.rs::both", 34)],
        "Y.show:Show": [("src/lib.rs::both", 34)],
        "Y.fmt:Display": [("src/lib.rs::Y.fmt:Debug", 29)]}



def test_text_naming_a_method_family_adds_no_anchor_beside_an_explicit_member(
        tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break-it #9 of session 28: a memory anchored to ``Y.fmt:Display`` whose text says
    ``Y.fmt`` got an implicit anchor to the inherent ``Y.fmt`` beside it, so editing the
    inherent method flagged the memory stale. The explicit member of the name family is
    what the text means; the same for a property setter and its getter."""
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    rust = QUALIFIED.replace("impl Y {\n", "impl Y {\n    pub fn fmt(&self) -> u8 {\n"
                             "        1\n    }\n\n")
    py = ("class Conf:\n    @property\n    def level(self):\n        return self._level\n\n"
          "    @level.setter\n    def level(self, value):\n        self._level = int(value)\n")
    r = Repo(tmp_path / "fam")
    r.write("src/lib.rs", rust)
    r.write("conf.py", py)
    r.commit("Y and Conf")
    with open_bank(str(r.path)) as b:
        b.code.index()
        locals_ = {s.local for s in b.code.store.file_symbols("src/lib.rs")}
        assert {"Y.fmt", "Y.fmt:Display", "Y.fmt:Debug"} <= locals_
        b.memory.retain("Convention: Y.fmt writes the inherent show() and nothing else",
                        kind="convention", symbols=["Y.fmt:Display"])
        b.memory.retain("Lesson: Conf.level coerces to int; a str level once broke logs",
                        kind="lesson", symbols=["Conf.level:setter"])
        b.memory.retain("Lesson: Y.fmt is the numeric code", kind="lesson")
        anchors = sorted((m, s, stale) for m, _p, s, _h, stale in
                         b.memory.store.anchors_all())
        assert anchors == [(1, "Y.fmt:Display", 0), (2, "Conf.level:setter", 0),
                           (3, "Y.fmt", 0)]
    r.write("src/lib.rs", rust.replace("        1\n", "        2\n", 1))
    r.write("conf.py", py.replace("return self._level", "return self._level or 0"))
    r.commit("inherent Y.fmt and the getter change")
    with open_bank(str(r.path)) as b:
        b.code.index()
        anchors = sorted((m, s, stale) for m, _p, s, _h, stale in
                         b.memory.store.anchors_all())
        assert anchors == [(1, "Y.fmt:Display", 0), (2, "Conf.level:setter", 0),
                           (3, "Y.fmt", 1)]
