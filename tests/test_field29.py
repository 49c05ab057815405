"""Known gaps of session 28 closed in session 29: a subclass's ``@Base.prop.setter`` is a
setter (``Sub.prop:setter``), an ``@overload`` stub under an alias (``from typing import
overload as ov``) is not a symbol, and a bank written by extraction version 8 migrates
to both without a stale memory. Real git repositories (tests/histutil.py) and the
fixture bank of tests/fixtures/banks/make_identities_v8.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from histutil import Repo

from hindsight.app import open_bank
from hindsight.codeindex.parse import EXTRACTOR_VERSION
from hindsight.codeindex.worker import parse_bytes

SRC = FIXTURES / "banks" / "identities-v8"
V8_SHAS = ["92228b65f25ea1a58b5f9f6f59ba15fc57ff268f",
           "2e708ab306e0d1ed712168c22dfbf0e6c2de0176"]


def _locals(src: str) -> list[tuple[str, int]]:
    res = parse_bytes("props.py", "python", src.encode())
    return [(s.local, s.start_line) for s in res.symbols]


def test_subclass_setter_and_aliased_overload_stubs_get_their_identities() -> None:
    src = (SRC / "v1" / "props.py").read_text(encoding="utf-8")
    assert _locals(src) == [("Base", 4), ("Base.level", 6), ("Base.level:setter", 10),
                            ("Strict", 14), ("Strict.level:setter", 16), ("scale", 24)]


def test_alias_forms_of_overload_and_setters_that_are_not_accessors() -> None:
    """Only a name imported as ``overload`` from typing or typing_extensions marks a stub
    (a module's own ``ov`` decorator does not); ``@other.level.setter`` on a function of
    another name is not an accessor of it; a deleter of a base's property is one."""
    src = ("from typing_extensions import (\n    Any, overload as over)\n"
           "from mine import ov\n\n\n@over\ndef a(x: int) -> int: ...\n"
           "def a(x):\n    return x\n\n\n@ov\ndef b(x: int) -> int: ...\n"
           "def b(x):\n    return x\n\n\nclass C(Base):\n    @Base.level.setter\n"
           "    def other(self, v):\n        pass\n\n    @Base.level.deleter\n"
           "    def level(self):\n        pass\n")
    assert _locals(src) == [("a", 8), ("b", 13), ("b", 14), ("C", 18), ("C.other", 20),
                            ("C.level:deleter", 24)]


@pytest.fixture
def v8_bank(tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The bank of make_identities_v8.py (extraction version 8) and its repository."""
    r = Repo(tmp_path / "repo")
    for version in ("v1", "v2"):
        r.write("props.py", (SRC / version / "props.py").read_text(encoding="utf-8"))
        r.commit(f"{version} of props.py")
    assert [r.shas[1], r.shas[2]] == V8_SHAS
    banks = hindsight_home / "banks"
    banks.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "banks" / "identities-v8.db", banks / "identities-v8.db")
    for k, v in {"HINDSIGHT_BANK_ID": "identities-v8", "HINDSIGHT_EMBEDDER": "hashing",
                 "HINDSIGHT_NOW": "2026-01-06T12:00:00+00:00"}.items():
        monkeypatch.setenv(k, v)
    return r


def test_v8_bank_repoints_the_setter_and_the_stub_anchor_and_redoes_history(v8_bank: Repo
                                                                           ) -> None:
    with open_bank(str(v8_bank.path)) as b:
        before = sorted((m, s) for m, _p, s, _h, _st in b.memory.store.anchors_all())
        assert before == [(1, "Strict.level"), (2, "scale"), (3, "scale")]
        assert [e.sha for e in b.history.history("Strict.level")["entries"]] == [
            V8_SHAS[1], V8_SHAS[0]]
        st = b.code.index()
        assert any(f"(version 8 -> {EXTRACTOR_VERSION})" in w for w in st.warnings)
        after = sorted((m, s, stale) for m, _p, s, _h, stale in
                       b.memory.store.anchors_all())
        assert after == [(1, "Strict.level:setter", 0), (2, "scale", 0), (3, "scale", 0)]
        assert b.memory.counts()["stale"] == 0
        b.history.ingest()
        got = b.history.history("Strict.level:setter")["entries"]
        assert [(e.sha, e.change) for e in got] == [(V8_SHAS[1], "modified"),
                                                    (V8_SHAS[0], "added")]
        got = b.history.history("scale")["entries"]
        assert [(e.sha, e.change) for e in got] == [(V8_SHAS[0], "added")]
        why = b.history.why("props.py", 17)
        assert (why["symbol"]["local"], why["last"]["sha"]) == ("Strict.level:setter",
                                                                V8_SHAS[1])


FGH = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n"


@pytest.mark.parametrize(("body", "want"), [
    # bound again to an instance: `d['a']` / `d.get('a')` is no longer the dict's f
    ("    d = {'a': f}\n    d = Reg()\n    return d.get('a')()\n",
     ["a.py::use -> a.py::Reg @27", "a.py::use -> a.py::Reg.get @28"]),
    ("    d = {'a': f}\n    d = Reg()\n    return d['a']()\n",
     ["a.py::use -> a.py::Reg @27"]),
    # bound again to what a function returns: that dict's 'a'
    ("    d = {'a': f}\n    d = make()\n    return d['a']()\n",
     ["a.py::use -> a.py::g @28", "a.py::use -> a.py::make @27"]),
    # bound again to another literal; an unrelated binding between
    ("    d = {'a': f}\n    d = {'a': h}\n    return d.get('a')()\n",
     ["a.py::use -> a.py::h @28"]),
    ("    d = {'a': f}\n    x = 1\n    return d['a']()\n", ["a.py::use -> a.py::f @28"]),
])
def test_an_element_of_a_dict_the_name_no_longer_holds_is_not_read(
        tmp_path: Path, body: str, want: list[str]) -> None:
    """Break-it of session 23 (test_break23's strict xfail keeps the rest: the ``h`` that
    ``Reg.get`` returns): ``d = {'a': f}; d = Reg(); d.get('a')()`` gave ``use -> f``, a
    call the program never makes. Each expected list checked by running the program."""
    from cgutil import calls_from

    src = FGH + ("\n\nclass Reg:\n    def get(self, k):\n        return h\n\n"
                 "    def __getitem__(self, k):\n        return h\n\n\n"
                 "def make():\n    return {'a': g}\n\n\ndef use():\n" + body)
    assert calls_from(tmp_path, {"a.py": src}, "a.py::use") == want
