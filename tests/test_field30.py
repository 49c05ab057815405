"""Forms the fifth blind suites found (session 30, issue 14), with their exact right values:
the values of a dict comprehension (bound to a name or returned), the return value of a
lambda bound to a name, and the definitions of enum members and variants, chained and
tuple lambda bindings, Go's second function-literal name."""

from __future__ import annotations

from pathlib import Path

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


def test_a_walrus_name_is_seen_on_its_own_line(tmp_path: Path) -> None:
    src = ("class Pattern:\n    @classmethod\n    def compile(cls, s):\n        return cls()\n"
           "    def match(self, t): return True\n    def describe(self): pass\n"  # 5-6
           "def check(items, text):\n"  # 7
           "    for s in items:\n"  # 8
           "        if (p := Pattern.compile(s)) is not None and p.match(text):\n"  # 9
           "            p.describe()\n"  # 10
           "    while (q := Pattern.compile('x')) and q.match(''):\n"  # 11
           "        break\n")
    assert calls_from(tmp_path, {"main.py": src}, "main.py::check") == [
        "main.py::check -> main.py::Pattern.compile @11",
        "main.py::check -> main.py::Pattern.compile @9",
        "main.py::check -> main.py::Pattern.describe @10",
        "main.py::check -> main.py::Pattern.match @11",
        "main.py::check -> main.py::Pattern.match @9",
    ]
