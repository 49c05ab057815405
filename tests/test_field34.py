"""Forms found by the break-it of session 34 (issue 14), with their exact right values:
a parameter named like an imported function takes what its call sites pass; the keys of
a dict literal after a ``**splat`` are known; a bytes key is not the text's key; a later
``except`` or ``case`` arm does not see a binding of an earlier one (unless a loop runs
the earlier arm first); a module that binds a function's name again calls the new value;
a parameter default reads the name as the ``def`` saw it; a chain of 490 calls keeps the
file's symbols and edges; ``isinstance`` narrows a name in its block; ``cls()`` in a
classmethod makes no subclass that overrides the method without ``super()``."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from, edges
from conftest import make_repo

FNS = "def a(): pass\ndef b(): pass\ndef c(): pass\ndef risky(): pass\n"


def test_a_parameter_named_like_an_import_takes_what_call_sites_pass(tmp_path: Path) -> None:
    files = {"util.py": "def helper(): pass\ndef other(): pass\n",
             "main.py": ("from util import helper, other\n"  # 1
                         "def go(cb):\n    cb()\n"  # 2-3
                         "def go2(helper):\n    helper()\n"  # 4-5
                         "go(other)\ngo2(other)\n")}  # 6-7
    assert calls_from(tmp_path, files, "main.py::go", "main.py::go2") == [
        "main.py::go -> util.py::other @3", "main.py::go2 -> util.py::other @5"]


def test_dict_keys_after_a_splat_and_bytes_keys(tmp_path: Path) -> None:
    src = ("def a(): pass\ndef b(): pass\ndef c(): pass\n"  # 1-3
           "BASE = {'a': a}\n"  # 4
           "FULL = {**BASE, 'b': b}\n"  # 5
           "OVER = {'a': c, **BASE}\n"  # 6: BASE may replace 'a'
           "KEYS = {'1': a, 1: b, b'1': c}\n"  # 7
           "def run():\n"  # 8
           "    FULL['b']()\n"  # 9: b
           "    FULL.get('b')()\n"  # 10: b
           "    FULL['a']()\n"  # 11: not followed
           "    OVER['a']()\n"  # 12: unknown
           "    KEYS['1']()\n"  # 13: a
           "    KEYS[1]()\n")  # 14: b
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run") == [
        "main.py::run -> main.py::a @13", "main.py::run -> main.py::b @10",
        "main.py::run -> main.py::b @14", "main.py::run -> main.py::b @9"]


def test_later_except_and_case_arms_do_not_see_earlier_arms(tmp_path: Path) -> None:
    src = ("from fns import a, b, c, risky\n"  # 1
           "def t1():\n    f = c\n    try:\n        f = a\n        risky()\n"  # 2-6
           "    except KeyError:\n        f()\n"  # 7-8: c, a
           "    except ValueError:\n        f = b\n"  # 9-10
           "    finally:\n        f()\n"  # 11-12: c, a, b
           "def t2(items):\n    f = c\n    for x in items:\n"  # 13-15
           "        try:\n            risky()\n"  # 16-17
           "        except KeyError:\n            f = a\n"  # 18-19
           "        except ValueError:\n            f()\n"  # 20-21: c, a (a loop)
           "def t3(x):\n    f = c\n    match x:\n"  # 22-24
           "        case 1:\n            f = a\n"  # 25-26
           "        case 2:\n            f()\n"  # 27-28: c only
           "        case _:\n            f = b\n"  # 29-30
           "    f()\n"  # 31: a, b, c
           "def t4(x):\n    f = c\n    try:\n        risky()\n"  # 32-35
           "    except KeyError:\n        f = a\n"  # 36-37
           "    except ValueError:\n        f()\n")  # 38-39: c only
    got = calls_from(tmp_path, {"fns.py": FNS, "main.py": src}, "main.py::t1",
                     "main.py::t2", "main.py::t3", "main.py::t4")
    assert [e for e in got if "risky" not in e] == [
        "main.py::t1 -> fns.py::a @12", "main.py::t1 -> fns.py::a @8",
        "main.py::t1 -> fns.py::b @12", "main.py::t1 -> fns.py::c @12",
        "main.py::t1 -> fns.py::c @8",
        "main.py::t2 -> fns.py::a @21", "main.py::t2 -> fns.py::c @21",
        "main.py::t3 -> fns.py::a @31", "main.py::t3 -> fns.py::b @31",
        "main.py::t3 -> fns.py::c @28", "main.py::t3 -> fns.py::c @31",
        "main.py::t4 -> fns.py::c @39"]


def test_a_module_binding_a_function_name_again(tmp_path: Path) -> None:
    files = {"cbs.py": "def helper():\n    return 1\ndef replacement():\n    return 2\n",
             "own.py": ("def helper():\n    return 1\n"  # 1-2
                        "def replacement():\n    return 2\n"  # 3-4
                        "def run(cb=helper):\n    cb()\n"  # 5-6: helper (at the def)
                        "helper()\n"  # 7: module code before the rebinding: helper
                        "helper = replacement\n"  # 8
                        "def caller():\n    helper()\n"),  # 9-10: replacement
             "main.py": ("import os\nfrom cbs import helper, replacement\n"  # 1-2
                         "def run(cb=helper):\n    cb()\n"  # 3-4: helper
                         "helper = replacement\n"  # 5
                         "def caller():\n    helper()\n"  # 6-7: replacement
                         "if os.name == 'nt':\n    replacement = helper\n"  # 8-9
                         "def caller2():\n    replacement()\n")}  # 10-11: replacement
    # (line 9's `helper` is already `replacement`, bound on line 5: so is line 11's call
    # in both branches; before session 39 the import was read there, giving `helper` too)
    assert calls_from(tmp_path, files, "own.py::", "own.py::run", "own.py::caller",
                      "main.py::run", "main.py::caller", "main.py::caller2") == [
        "main.py::caller -> cbs.py::replacement @7",
        "main.py::caller2 -> cbs.py::replacement @11",
        "main.py::run -> cbs.py::helper @4",
        "own.py:: -> own.py::helper @7",
        "own.py::caller -> own.py::replacement @10",
        "own.py::run -> own.py::helper @6"]


def test_a_chain_past_the_recursion_limit_keeps_the_file(tmp_path: Path) -> None:
    chain = "B()" + ".step()" * 490
    repo = make_repo(tmp_path, {
        "b.py": "class B:\n    def step(self):\n        return self\n",
        "main.py": (f"from b import B\ndef other():\n    pass\n"  # 1-3
                    f"def run():\n    other()\n    return {chain}\n")})  # 4-6
    got = edges(repo)
    assert "main.py::run -> main.py::other @5" in got
    assert "main.py::run -> b.py::B @6" in got


SHAPES = ("class Shape:\n    def area(self):\n        return 0\n"  # 1-3
          "    def name(self):\n        return 's'\n"  # 4-5
          "class Circle(Shape):\n    def area(self):\n        return 3\n"  # 6-8
          "class Square(Shape):\n    def area(self):\n        return 4\n"  # 9-11
          "    def name(self):\n        return 'q'\n")  # 12-13


def test_isinstance_narrows_a_name_in_its_block(tmp_path: Path) -> None:
    src = ("from shapes import Shape, Circle, Square\n"  # 1
           "def describe(s):\n"  # 2
           "    if isinstance(s, Circle):\n        s.area()\n"  # 3-4: Circle.area
           "    elif isinstance(s, Square) and s:\n        s.name()\n"  # 5-6: Square.name
           "    s.area()\n"  # 7: both passed
           "def declared(s: Shape):\n"  # 8
           "    if isinstance(s, Circle):\n        s.name()\n"  # 9-10: Shape.name (inherited)
           "    if isinstance(s, dict):\n        s.area()\n"  # 11-12: a dict: unknown
           "def local(items):\n    for it in items:\n"  # 13-14
           "        if isinstance(it, (Circle, Square)):\n            it.area()\n"  # 15-16
           "        it = Square()\n        if isinstance(it, Circle):\n"  # 17-18
           "            it = Square()\n            it.area()\n"  # 19-20: rebound: Square
           "describe(Circle())\ndescribe(Square())\n")  # 21-22
    assert calls_from(tmp_path, {"shapes.py": SHAPES, "main.py": src}, "main.py::describe",
                      "main.py::declared", "main.py::local") == [
        "main.py::declared -> shapes.py::Shape.name @10",
        "main.py::describe -> shapes.py::Circle.area @4",
        "main.py::describe -> shapes.py::Circle.area @7",
        "main.py::describe -> shapes.py::Square.area @7",
        "main.py::describe -> shapes.py::Square.name @6",
        "main.py::local -> shapes.py::Circle.area @16",
        "main.py::local -> shapes.py::Square @17", "main.py::local -> shapes.py::Square @19",
        "main.py::local -> shapes.py::Square.area @16",
        "main.py::local -> shapes.py::Square.area @20"]


def test_cls_in_a_classmethod_a_subclass_overrides(tmp_path: Path) -> None:
    src = ("class Base:\n    @classmethod\n    def create(cls):\n        return cls()\n"  # 1-4
           "class Fast(Base):\n    @classmethod\n    def create(cls):\n"  # 5-7
           "        return cls()\n"  # 8: Fast overrides create: Base.create never makes it
           "class Slow(Base):\n    pass\n"  # 9-10: inherits it
           "class Kept(Base):\n    @classmethod\n    def create(cls):\n"  # 11-13
           "        return super().create()\n")  # 14: runs Base.create for Kept
    got = calls_from(tmp_path, {"main.py": src}, "main.py::Base.create")
    assert got == ["main.py::Base.create -> main.py::Base @4",
                   "main.py::Base.create -> main.py::Kept @4",
                   "main.py::Base.create -> main.py::Slow @4"]


def test_a_declared_list_of_a_base_class_takes_the_subclasses_passed(tmp_path: Path) -> None:
    files = {"base.py": ("class Handler:\n    def handle(self, x):\n        return x\n"
                         "class Upper(Handler):\n    def handle(self, x):\n"
                         "        return x.upper()\n"),
             "use.py": ("from base import Handler\n"  # 1
                        "def run_all(hs: list[Handler], x):\n"  # 2
                        "    for h in hs:\n        h.handle(x)\n"  # 3-4: both
                        "def run_any(hs, x):\n"  # 5
                        "    for h in hs:\n        h.handle(x)\n"),  # 6-7: Upper only
             "main.py": ("from base import Upper\nfrom use import run_all, run_any\n"
                         "hs = [Upper()]\nrun_all(hs, 'a')\nrun_any(hs, 'b')\n")}
    assert calls_from(tmp_path, files, "use.py::run_all", "use.py::run_any") == [
        "use.py::run_all -> base.py::Handler.handle @4",
        "use.py::run_all -> base.py::Upper.handle @4",
        "use.py::run_any -> base.py::Upper.handle @7"]


def test_a_closure_reads_the_binding_at_its_def_and_the_later_ones(tmp_path: Path) -> None:
    files = {"log.py": "def log_debug(m):\n    print(m)\ndef log_quiet(m):\n    pass\n"
                       "def other(m):\n    pass\n",
             "app.py": ("from log import log_debug, log_quiet, other\n"  # 1
                        "def serve(requests):\n"  # 2
                        "    logger = other\n    logger = log_debug\n"  # 3-4: other is dead
                        "    def handle(r):\n        logger(r)\n"  # 5-6: debug, quiet
                        "    for r in requests:\n        handle(r)\n"  # 7-8
                        "    logger = log_quiet\n")}  # 9
    assert calls_from(tmp_path, files, "app.py::serve.handle") == [
        "app.py::serve.handle -> log.py::log_debug @6",
        "app.py::serve.handle -> log.py::log_quiet @6"]


def test_isinstance_with_outside_classes_protocols_and_open_hierarchies(tmp_path: Path) -> None:
    files = {"paths.py": ("from typing import Protocol\n"  # 1
                          "class Path:\n    def split(self):\n        return []\n"  # 2-4
                          "class Closeable(Protocol):\n    def close(self): ...\n"  # 5-6
                          "class File:\n    def close(self):\n        pass\n"  # 7-9
                          "class Cache:\n    def get(self):\n        return 1\n"),  # 10-12
             "main.py": ("import io\nfrom paths import Path, Closeable, File, Cache\n"  # 1-2
                         "def parts(p):\n"  # 3
                         "    if isinstance(p, str):\n        return p.split('/')\n"  # 4-5
                         "    return p.split()\n"  # 6: Path.split
                         "def shut(r):\n"  # 7
                         "    if isinstance(r, Closeable):\n        r.close()\n"  # 8-9: File
                         "current = Cache()\n"  # 10
                         "def use():\n    current.get()\n"  # 11-12: before the block
                         "    if isinstance(current, Cache):\n        current.get()\n"  # 13-14
                         "class Buf(io.BytesIO):\n    def get(self):\n        return 2\n"
                         "def read(b):\n"  # 18
                         "    if isinstance(b, io.IOBase):\n        b.get()\n"  # 19-20: Buf
                         "parts('a/b'); parts(Path()); shut(File()); read(Buf())\n")}
    assert calls_from(tmp_path, files, "main.py::parts", "main.py::shut", "main.py::use",
                      "main.py::read") == [
        "main.py::parts -> paths.py::Path.split @6",
        "main.py::read -> main.py::Buf.get @20",
        "main.py::shut -> paths.py::File.close @9",
        "main.py::use -> paths.py::Cache.get @12", "main.py::use -> paths.py::Cache.get @14"]


def test_a_name_bound_again_to_what_the_index_cannot_follow(tmp_path: Path) -> None:
    files = {"other.py": "def fn():\n    return 1\ndef make():\n    return fn\n",
             "s.py": ("import json, other\n"  # 1
                      "def helper():\n    return 0\n"  # 2-3
                      "helper = json.loads\n"  # 4: outside the repository: unresolved
                      "def h2():\n    return 0\n"  # 5-6
                      "h2 = other.make()\n"  # 7: a call giving other.fn
                      "def on_save():\n    return 0\n"  # 8-9
                      "class Model:\n    on_save()\n"  # 10-11: class body before line 12
                      "def custom():\n    return 1\n"  # 12-13
                      "on_save = custom\n"  # 14
                      "def run():\n    helper('1')\n    h2()\n    on_save()\n")}  # 15-18
    assert calls_from(tmp_path, files, "s.py::run", "s.py::Model") == [
        "s.py::Model -> s.py::on_save @11",
        "s.py::run -> other.py::fn @17", "s.py::run -> s.py::custom @18"]


def test_int_and_bytes_keys_of_an_imported_table(tmp_path: Path) -> None:
    files = {"h.py": ("def a(): pass\ndef b(): pass\ndef c(): pass\n"
                      "OPS = {1: a, 2: b}\nBK = {b'x': a, 'x': b}\nST = {'1': c, 1: a}\n"),
             "main.py": ("from h import OPS, BK, ST\n"  # 1
                         "def run():\n"  # 2
                         "    OPS.get(2)()\n    BK[b'x']()\n    BK['x']()\n"  # 3-5: b a b
                         "    ST.get(1)()\n    ST.get('1')()\n")}  # 6-7: a c
    assert calls_from(tmp_path, files, "main.py::run") == [
        "main.py::run -> h.py::a @4", "main.py::run -> h.py::a @6",
        "main.py::run -> h.py::b @3", "main.py::run -> h.py::b @5",
        "main.py::run -> h.py::c @7"]


def test_assert_and_early_exit_isinstance_narrow_the_rest_of_the_block(tmp_path: Path) -> None:
    src = ("from shapes import Shape, Circle, Square\n"  # 1
           "def eq(self, other):\n"  # 2
           "    if not isinstance(other, Circle):\n        return NotImplemented\n"  # 3-4
           "    return other.area()\n"  # 5: Circle
           "def asserting(s):\n    s.area()\n"  # 6-7: both
           "    assert isinstance(s, Square)\n    s.area()\n"  # 8-9: Square
           "def loop(items):\n    for it in items:\n"  # 10-11
           "        if not isinstance(it, Square):\n            continue\n"  # 12-13
           "        it.area()\n    it.area()\n"  # 14: Square; 15: both
           "def no_exit(s):\n    if not isinstance(s, Square):\n        print(1)\n"  # 16-18
           "    s.area()\n"  # 19: Circle (the block does not leave)
           "eq(1, Circle()); eq(1, Square()); asserting(Circle()); asserting(Square())\n"
           "loop([Circle(), Square()]); no_exit(Circle())\n")
    assert calls_from(tmp_path, {"shapes.py": SHAPES, "main.py": src}, "main.py::eq",
                      "main.py::asserting", "main.py::loop", "main.py::no_exit") == [
        "main.py::asserting -> shapes.py::Circle.area @7",
        "main.py::asserting -> shapes.py::Square.area @7",
        "main.py::asserting -> shapes.py::Square.area @9",
        "main.py::eq -> shapes.py::Circle.area @5",
        "main.py::loop -> shapes.py::Circle.area @15",
        "main.py::loop -> shapes.py::Square.area @14",
        "main.py::loop -> shapes.py::Square.area @15",
        "main.py::no_exit -> shapes.py::Circle.area @19"]


def test_a_class_pattern_of_a_match_narrows_its_subject(tmp_path: Path) -> None:
    src = ("import shapes\nfrom shapes import Circle, Square\n"  # 1-2
           "def f(x):\n    match x:\n"  # 3-4
           "        case Circle():\n            x.area()\n"  # 5-6: Circle
           "        case shapes.Square(side=s):\n            x.area()\n"  # 7-8: Square
           "        case _:\n            x.area()\n"  # 9-10: both
           "f(Circle()); f(Square())\n")
    assert calls_from(tmp_path, {"shapes.py": SHAPES, "main.py": src}, "main.py::f") == [
        "main.py::f -> shapes.py::Circle.area @10", "main.py::f -> shapes.py::Circle.area @6",
        "main.py::f -> shapes.py::Square.area @10", "main.py::f -> shapes.py::Square.area @8"]
