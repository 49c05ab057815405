"""Forms the fifth blind suites found (session 30, issue 14), with their exact right values:
the values of a dict comprehension (bound to a name or returned), the return value of a
lambda bound to a name, and the definitions of enum members and variants, chained and
tuple lambda bindings, Go's second function-literal name."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import calls_from

from hindsight.codeindex.worker import parse_bytes

WORKER = "class Worker:\n    def start(self): pass\n    def assign(self): pass\n"


def test_values_of_a_dict_comprehension(tmp_path: Path) -> None:
    src = WORKER + (
        "def make_pool(names):\n    return {n: Worker(n) for n in names}\n"  # 4-5
        "def run():\n"  # 6
        "    pool = make_pool(['a'])\n"  # 7
        "    pool['a'].start()\n"  # 8
        "    for w in pool.values():\n        w.assign()\n"  # 9-10
        "    make_pool([])['b'].start()\n"  # 11
        "    local = {n: Worker(n) for n in 'ab'}\n"  # 12
        "    local['x'].start()\n"  # 13
        "    for v in local.values():\n        v.assign()\n"  # 14-15
        "    keyed = {'k': Worker()}\n"  # 16
        "    keyed['zz'].start()\n")  # 17: a literal's keys are known: no guess
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run") == [
        "main.py::run -> main.py::Worker @12",
        "main.py::run -> main.py::Worker @16",
        "main.py::run -> main.py::Worker.assign @10",
        "main.py::run -> main.py::Worker.assign @15",
        "main.py::run -> main.py::Worker.start @11",
        "main.py::run -> main.py::Worker.start @13",
        "main.py::run -> main.py::Worker.start @8",
        "main.py::run -> main.py::make_pool @11",
        "main.py::run -> main.py::make_pool @7",
    ]


def test_what_a_lambda_bound_to_a_name_returns(tmp_path: Path) -> None:
    src = WORKER + (
        "make = lambda n='x': Worker(n)\n"  # 4
        "def run():\n"  # 5
        "    w = make()\n"  # 6
        "    w.start()\n"  # 7
        "    make('y').assign()\n"  # 8
        "    sorted([], key=lambda o: o.start())\n")  # 9: an anonymous lambda returns nothing
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run") == [
        "main.py::run -> main.py::Worker.assign @8",
        "main.py::run -> main.py::Worker.start @7",
        "main.py::run -> main.py::make @6",
        "main.py::run -> main.py::make @8",
    ]


def _defs(path: str, src: str) -> list[tuple[int, str, str]]:
    from hindsight.codeindex.languages import language_for

    r = parse_bytes(path, language_for(path) or "", src.encode())
    assert not r.error
    return [(s.start_line, s.kind, s.local) for s in r.symbols]


def test_enum_members_and_variants_are_constants() -> None:
    assert _defs("e.ts", "enum D { Up, Down = 2, 'x-y' = 3 }\ndeclare enum A { X }\n") == [
        (1, "enum", "D"), (1, "constant", "D.Up"), (1, "constant", "D.Down"),
        (1, "constant", "D.x-y"), (2, "enum", "A"), (2, "constant", "A.X")]
    assert _defs("e.rs", "pub enum M {\n    Quit,\n    Move { x: i32 },\n    W(String),\n}\n"
                 "impl M {\n    pub const MAX: i32 = 1;\n}\n") == [
        (1, "enum", "M"), (2, "constant", "M.Quit"), (3, "constant", "M.Move"),
        (4, "constant", "M.W"), (7, "constant", "M.MAX")]
    assert _defs("E.java", "enum Level {\n  LOW;\n  private static final int CODE = 0;\n}\n") == [
        (1, "enum", "Level"), (2, "constant", "Level.LOW"), (3, "constant", "Level.CODE")]


def test_lambda_names_and_func_literal_names() -> None:
    assert _defs("l.py", "a = b = lambda: 0\nf, g = lambda: 1, lambda: 2\nx, y = 1, lambda: 2\n") \
        == [(1, "function", "a"), (1, "function", "b"), (2, "function", "f"),
            (2, "function", "g"), (3, "function", "y")]
    assert _defs("v.go", "package p\n\nvar Triple, Quad = func() int { return 3 }, "
                 "func() int { return 4 }\n") == [
        (3, "function", "Triple"), (3, "function", "Quad")]


def test_an_interface_setter_signature_and_a_quoted_member() -> None:
    assert _defs("i.ts", "interface HasSize {\n  get size(): number;\n  set size(v: number);\n}\n"
                 ) == [(1, "interface", "HasSize"), (2, "method", "HasSize.size"),
                       (3, "method", "HasSize.size:setter")]
    assert _defs("o.js", "const api = {\n  get() {},\n  'quoted-name': function () {},\n};\n") \
        == [(1, "object", "api"), (2, "method", "api.get"), (3, "method", "api.quoted-name")]



def test_a_local_or_a_rebinding_hides_a_comprehension_dict(tmp_path: Path) -> None:
    """Break-it findings of session 30: the values of `config = {k: L(k) …}` were read
    through a function's own `config`, and survived `d = [V() …]`. (A rebinding to a
    value with no access path, `d = None` in a function, is still not seen.)"""
    src = ("import json\nclass L:\n    def get(self, k): return k\n"  # 1-3
           "class V:\n    def start(self): pass\n"  # 4-5
           "config = {k: L() for k in 'ab'}\n"  # 6
           "def read(path):\n    config = json.load(path)\n"  # 7-8
           "    return config['server'].get('port')\n"  # 9: the local, unknown
           "def ok():\n    return config['x'].get('y')\n"  # 10-11: the module's
           "def rebound(ns):\n    d = {n: L() for n in ns}\n    d = [V() for _ in ns]\n"
           "    d['a'].get(1)\n"  # 15
           "    e = {n: L() for n in ns}\n    e = {V() for _ in ns}\n"  # 16-17
           "    e['a'].get(1)\n"  # 18
           "def outer(ns):\n    p = {n: L() for n in ns}\n"  # 19-20
           "    def inner():\n        p = V()\n        p['a'].get(1)\n"  # 21-23
           "    def inner2():\n        p['b'].get(1)\n")  # 24-25: the enclosing p
    got = calls_from(tmp_path, {"main.py": src}, "main.py::read", "main.py::ok",
                     "main.py::rebound", "main.py::outer.inner", "main.py::outer.inner2")
    assert [e for e in got if e.split(" -> ")[1].endswith(".get @9") or ".get" in e] == [
        "main.py::ok -> main.py::L.get @11", "main.py::outer.inner2 -> main.py::L.get @25"]


def test_enum_members_do_not_shadow_a_definition_of_their_name(tmp_path: Path) -> None:
    """`callers sync_users` meant the function, not `Job.sync_users`; a Rust struct
    `Circle` beside the variant `Shape.Circle(Circle)`; an alias in an enum body
    (`explain = describe`) or `staticmethod(…)` is no member."""
    from conftest import make_repo

    from hindsight.app import open_bank
    from hindsight.codeindex.query import resolve_one

    repo = make_repo(tmp_path / "r", {
        "jobs.py": "import enum\nclass Job(enum.Enum):\n    sync_users = 'sync_users'\n"
                   "    def describe(self): pass\n    explain = describe\n"
                   "def sync_users(db): pass\n",
        "shapes.rs": "pub struct Circle { r: f64 }\npub enum Shape {\n    Circle(Circle),\n"
                     "    Empty,\n}\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
        store = bank.stores.code
        assert [s.qname for s in resolve_one(store, "sync_users")] == ["jobs.py::sync_users"]
        assert [s.qname for s in resolve_one(store, "Circle")] == ["shapes.rs::Circle"]
        assert [s.qname for s in resolve_one(store, "Job.sync_users")] == [
            "jobs.py::Job.sync_users"]
    assert [loc for _l, _k, loc in _defs("jobs.py", (repo / "jobs.py").read_text())] == [
        "Job", "Job.sync_users", "Job.describe", "sync_users"]


def test_tuple_lambdas_only_at_their_own_position() -> None:
    src = ("a, *m, z = lambda: f1(), lambda: f2(), lambda: f3()\n"
           "b, c, d = 1, \\\n    lambda: f2(), 3\nf, g = lambda: 1, lambda: 2\n")
    assert _defs("t.py", src) == [(4, "function", "f"), (4, "function", "g")]


def test_a_deleted_enum_member_is_stale_not_moved_to_another_enum(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break-it finding of session 30: a memory on `Status.active` moved to
    `Filter.active` (the same one-token hash) when `active` left Status; a Rust variant
    likewise. A method that moves to another class still follows (its body is its hash)."""
    from conftest import make_repo

    from hindsight.app import open_bank

    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    status = "import enum\nclass Status(enum.Enum):\n    active = 'active'\n    off = 'off'\n"
    root = make_repo(tmp_path / "r", {
        "status.py": status,
        "filters.py": "import enum\nclass Filter(enum.Enum):\n    active = 'active'\n"
                      "    every = 'all'\n",
        "msg.rs": "pub enum Message {\n    Quit,\n    Move,\n}\npub enum Cmd {\n    Quit,\n"
                  "    Run,\n}\n"})
    with open_bank(str(root)) as b:
        b.code.index()
        m1 = b.memory.retain("active users get the nightly e-mail",
                             symbols=["Status.active"]).id
        m2 = b.memory.retain("Quit flushes the log first", symbols=["Message.Quit"]).id
        (root / "status.py").write_text(status.replace("    active = 'active'\n", ""))
        (root / "msg.rs").write_text((root / "msg.rs").read_text().replace("    Quit,\n    Move",
                                                                            "    Move", 1))
        b.code.index()
        assert sorted((m.id, m.stale_reason) for m in b.memory.memories(stale=True)) == [
            (m1, "symbol removed"), (m2, "symbol removed")]


def test_a_variant_moved_to_another_enum_is_no_rename(tmp_path: Path) -> None:
    """Break-it finding of session 30: removing `Message.Quit` and adding `Other.Halt` in
    one commit showed `Other.Halt` as "renamed from Message.Quit" (one-token texts are
    equal once the name is read as the new one). A rename inside its enum still is one."""
    import json
    import subprocess
    import sys

    from histutil import Repo

    r = Repo(tmp_path / "v")
    r.write("a.rs", "enum Message {\n    Quit,\n    Move,\n}\nenum Other {\n    Keep,\n}\n")
    r.commit("add")
    r.write("a.rs", "enum Message {\n    Exit,\n    Move,\n}\nenum Other {\n    Keep,\n}\n")
    r.commit("rename Quit to Exit")
    r.write("a.rs", "enum Message {\n    Move,\n}\nenum Other {\n    Keep,\n    Halt,\n}\n")
    r.commit("Exit goes, Other gets Halt")
    cli = [sys.executable, "-m", "hindsight"]
    for args in (["index"], ["ingest"]):
        subprocess.run([*cli, *args], cwd=r.path, check=True, capture_output=True)

    def history(name: str) -> list[tuple[str, str]]:
        out = subprocess.run([*cli, "history", name, "--json"], cwd=r.path, check=True,
                             capture_output=True, text=True).stdout
        return [(e["change"], e["old_local"]) for e in json.loads(out)["entries"]]

    assert history("Other.Halt") == [("added", "")]
    assert history("Message.Move") == [("added", "")]


def test_a_quoted_name_with_an_escape_is_no_symbol_pair() -> None:
    """Break-it finding of session 30: `"a\\"b": function () {}` gave `api.a` and `api.b`
    (one per fragment of the string); a quoted name is taken when it is one fragment."""
    js = 'const api = {\n  get() {},\n  "a\\"b": function () {},\n  "q-n": function () {},\n};\n'
    assert _defs("o.js", js) == [(1, "object", "api"), (2, "method", "api.get"),
                                 (4, "method", "api.q-n")]
    ts = "enum E { 'a\\'b', 'x-y', Up }\nenum F { 'a\\'b' = 1, 'k' = 2 }\n"
    assert _defs("e.ts", ts) == [(1, "enum", "E"), (1, "constant", "E.x-y"),
                                 (1, "constant", "E.Up"), (2, "enum", "F"),
                                 (2, "constant", "F.k")]
