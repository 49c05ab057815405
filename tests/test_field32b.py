"""The break-it report of session 32 (issue 14), fixed in session 33, each with its exact
edges: long ``elif`` chains, ``getattr`` prefixes, ``.get`` of returned and imported
tables, int keys, parameter defaults at the ``def``, ``yield`` in a lambda, ``type[X]``,
builtin-named methods, later ``if`` arms, chains past the recursion limit, parameters
named like module functions, returned dict keys (split out of tests/test_field32.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import AB, calls_from


def test_a_long_elif_chain_is_indexed_with_its_edges(tmp_path: Path) -> None:
    arms = "".join(f"    {'if' if i == 0 else 'elif'} k == {i}:\n        x = A()\n"
                   for i in range(2500))  # lines 8-5007
    src = AB + "def f(k):\n" + arms + "    else:\n        x = B()\n    x.m()\n"
    got = calls_from(tmp_path, {"main.py": src}, "main.py::f")
    assert [e for e in got if ".m @" in e] == [
        "main.py::f -> main.py::A.m @5010", "main.py::f -> main.py::B.m @5010"]
    assert len(got) == 2503


def test_getattr_prefix_only_when_nothing_follows_the_name_part(tmp_path: Path) -> None:
    src = ("class H:\n    def on_a(self):\n        return 1\n"  # 1-3
           "    def on_a_done(self):\n        return 2\n"  # 4-5
           "    def go(self, x):\n        getattr(self, f'on_{x}_done')()\n"  # 6-7
           "    def go2(self, x):\n        getattr(self, f'on_{x!r}')()\n"  # 8-9
           "    def go3(self, x):\n        getattr(self, f'on_{x}')()\n"  # 10-11
           "    def go4(self, x):\n        getattr(self, 'on_' + x + '_done')()\n"  # 12-13
           "    def go5(self, x):\n        getattr(self, 'on_' + x)()\n")  # 14-15
    assert calls_from(tmp_path, {"main.py": src}, *(f"main.py::H.go{s}" for s in
                                                     ("", "2", "3", "4", "5"))) == [
        "main.py::H.go3 -> main.py::H.on_a @11", "main.py::H.go3 -> main.py::H.on_a_done @11",
        "main.py::H.go5 -> main.py::H.on_a @15", "main.py::H.go5 -> main.py::H.on_a_done @15"]


def test_get_of_a_returned_or_imported_table_reads_its_literal_key(tmp_path: Path) -> None:
    fns = "def a():\n    return 1\ndef b():\n    return 2\n"  # 1-4
    files = {
        "main.py": fns + ("def h():\n    return 3\n"  # 5-6
                          "def handlers():\n    return {'a': a, 'b': b}\n"  # 7-8
                          "def go():\n    hs = handlers()\n"  # 9-10
                          "    hs.get('zz', h)()\n    hs.get('a')()\n"  # 11-12
                          "    f = hs.get('b', h)\n    f()\n"  # 13-14
                          "def go2(k):\n    handlers().get(k)()\n    hs = handlers()\n"  # 15-17
                          "    hs.get(k)()\n"  # 18
                          "class Reg:\n    def get(self, name):\n        return a\n"  # 19-21
                          "def go3():\n    r = Reg()\n    r.get('x')()\n"),  # 22-24
        "tab.py": fns + "TABLE = {'a': a, 'b': b}\n",  # 5
        "use.py": "from tab import TABLE\nfrom main import h\n"  # 1-2
                  "def go():\n    TABLE.get('zz', h)()\n    TABLE.get('a')()\n"}  # 3-5
    got = calls_from(tmp_path, files, "main.py::go", "main.py::go2", "main.py::go3",
                     "use.py::go")
    assert [e for e in got if "handlers" not in e and "Reg @" not in e] == [
        "main.py::go -> main.py::a @12", "main.py::go -> main.py::b @14",
        "main.py::go -> main.py::h @11", "main.py::go -> main.py::h @14",
        "main.py::go2 -> main.py::a @16", "main.py::go2 -> main.py::a @18",
        "main.py::go2 -> main.py::b @16", "main.py::go2 -> main.py::b @18",
        "main.py::go3 -> main.py::Reg.get @24", "main.py::go3 -> main.py::a @24",
        "use.py::go -> main.py::h @4", "use.py::go -> tab.py::a @5"]


def test_int_keys_beside_true_or_float_keys_are_not_read(tmp_path: Path) -> None:
    src = ("def a():\n    return 1\ndef b():\n    return 2\n"  # 1-4
           "def make():\n    return {1: a, True: b}\n"  # 5-6
           "def make2():\n    return {1: a, 2: b}\n"  # 7-8
           "def go():\n    make()[1]()\n    make2()[1]()\n")  # 9-11
    assert calls_from(tmp_path, {"main.py": src}, "main.py::go") == [
        "main.py::go -> main.py::a @11", "main.py::go -> main.py::make @10",
        "main.py::go -> main.py::make2 @11"]


def test_a_parameter_default_is_the_value_at_the_def(tmp_path: Path) -> None:
    src = AB + ("def a():\n    return 1\ndef b():\n    return 2\n"  # 7-10
                "H = a\nSTEPS = [a]\n"  # 11-12
                "def run(f=H, steps=STEPS):\n    f()\n"  # 13-14
                "    for s in steps:\n        s()\n"  # 15-16
                "H = b\nSTEPS = [b]\n"  # 17-18
                "def outer():\n    o = B()\n"  # 19-20
                "    def inner(x=o):\n        x.m()\n    return inner\n")  # 21-23
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run", "main.py::outer.inner") == [
        "main.py::outer.inner -> main.py::B.m @22",
        "main.py::run -> main.py::a @14", "main.py::run -> main.py::a @16"]


def test_a_yield_in_a_lambda_makes_no_generator_of_its_function(tmp_path: Path) -> None:
    src = AB + ("def use(f):\n    return f\n"  # 7-8
                "def make():\n    use(lambda: (yield 'a', B()))\n    return A()\n"  # 9-11
                "def make2():\n    use(lambda: (yield B()))\n    return A()\n"  # 12-14
                "def go():\n    make().m()\n    make2().m()\n")  # 15-17
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::go")
            if ".m @" in e] == ["main.py::go -> main.py::A.m @16",
                                "main.py::go -> main.py::A.m @17"]


def test_type_param_takes_a_passed_class_that_does_not_derive(tmp_path: Path) -> None:
    src = ("class X:\n    def m(self):\n        return 0\n"  # 1-3
           "class Y(X):\n    def m(self):\n        return 1\n"  # 4-6
           "class Duck:\n    def m(self):\n        return 2\n"  # 7-9
           "def make(k: type[X]):\n    return k().m()\n"  # 10-11
           "def go():\n    make(Duck)\n")  # 12-13
    assert calls_from(tmp_path, {"main.py": src}, "main.py::make") == [
        "main.py::make -> main.py::Duck @11", "main.py::make -> main.py::Duck.m @11"]


def test_a_method_named_like_a_builtin_shadows_nothing(tmp_path: Path) -> None:
    src = AB + ("class Box:\n    def copy(self):\n        return Box()\n"  # 7-9
                "    def max(self):\n        return 0\n"  # 10-11
                "def gen():\n    yield A()\n"  # 12-13
                "def go():\n    next(gen()).m()\n    xs = [B()]\n"  # 14-16
                "    max(xs, key=id).m()\n")  # 17
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::go")
            if ".m @" in e] == ["main.py::go -> main.py::A.m @15",
                                "main.py::go -> main.py::B.m @17"]


def test_a_later_arm_of_an_if_does_not_see_an_earlier_arms_binding(tmp_path: Path) -> None:
    src = AB + ("def f(c, x):\n    if c:\n        x = A()\n"  # 7-9
                "    else:\n        x.m()\n"  # 10-11
                "def g(c):\n    x = B()\n    if c:\n        x = A()\n"  # 12-15
                "    elif c > 1:\n        x.m()\n    else:\n        x = A()\n"  # 16-19
                "    x.m()\n"  # 20
                "def main():\n    f(1, B())\n")  # 21-22
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::f", "main.py::g")
            if ".m @" in e] == [
        "main.py::f -> main.py::B.m @11", "main.py::g -> main.py::A.m @20",
        "main.py::g -> main.py::B.m @17", "main.py::g -> main.py::B.m @20"]


@pytest.mark.parametrize("chain", [".copy()" * 500, ".a" * 1000])
def test_a_chain_past_the_recursion_limit_keeps_the_rest_of_the_file(
        tmp_path: Path, chain: str) -> None:
    src = AB + f"x = A(){chain}\n" + "y = B()\ny.m()\n"  # 7-9
    assert "main.py:: -> main.py::B.m @9" in calls_from(tmp_path, {"main.py": src}, "main.py::")


def test_a_parameter_named_like_a_module_function_is_the_parameter(tmp_path: Path) -> None:
    src = AB + ("def helper():\n    return A()\n"  # 7-8
                "def go(helper):\n    helper().m()\n"  # 9-10
                "def go2(helper=helper):\n    helper().m()\n"  # 11-12
                "go(lambda: B())\n")  # 13
    assert calls_from(tmp_path, {"main.py": src}, "main.py::go", "main.py::go2") == [
        "main.py::go2 -> main.py::A.m @12", "main.py::go2 -> main.py::helper @12"]


def test_returned_dict_keys_after_a_splat_and_past_64_pairs(tmp_path: Path) -> None:
    many = "".join(f"'k{i}': A, " for i in range(70))
    src = AB + ("def base():\n    return {'a': B}\n"  # 7-8
                "def mk():\n    return {'a': A, **base(), 'b': B}\n"  # 9-10
                f"def big():\n    return {{{many}'k1': B, 'k69': B}}\n"  # 11-12
                "def go():\n    mk()['a']().m()\n    mk()['b']().m()\n"  # 13-15
                "    big()['k1']().m()\n    big()['k69']().m()\n"  # 16-17
                "    big()['k5']().m()\n    big()['k66']().m()\n")  # 18-19
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::go")
            if ".m @" in e] == ["main.py::go -> main.py::A.m @18",
                                "main.py::go -> main.py::B.m @15"]  # (past 64: unknown)
