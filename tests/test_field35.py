"""Forms found in session 35 (issue 14), with their exact right values: an instance
attribute bound by a method (``self.run = fn``) comes before the class's method of that
name (Python's instance ``__dict__`` before a non-data descriptor): it hides the method
when ``__init__`` binds it outside any branch, else the method and the attribute's value
may both run; a property is never hidden (``self.x = v`` calls its setter)."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

SHADOW = (
    "import functools\n"  # 1
    "def impl(): pass\n"  # 2
    "def other(): pass\n"  # 3
    "class K:\n"  # 4
    "    def run(self): pass\n"  # 5
    "    def __init__(self, fn):\n        self.run = fn\n"  # 6-7: hides K.run
    "    def go(self):\n        self.run()\n"  # 8-9: what was passed
    "class L:\n    def run(self): pass\n"  # 10-11
    "    def __init__(self, fast):\n        if fast:\n            self.run = impl\n"  # 12-14
    "    def go(self):\n        self.run()\n"  # 15-16: L.run or impl
    "class M:\n    def run(self): pass\n"  # 17-18
    "    def __init__(self):\n        try:\n            self.run = other\n"  # 19-21
    "        except AttributeError:\n            pass\n"  # 22-23
    "    def go(self):\n        self.run()\n"  # 24-25: M.run or other
    "class N:\n    def run(self): pass\n"  # 26-27
    "    def setup(self):\n        self.run = impl\n"  # 28-29: another method
    "    def go(self):\n        self.run()\n"  # 30-31: N.run or impl
    "class W:\n    def run(self): pass\n"  # 32-33
    "    def __init__(self):\n        self.run = functools.lru_cache()(self.run)\n"  # 34-35
    "    def go(self):\n        self.run()\n"  # 36-37: unknown wrapper
    "class Q(K):\n    def run(self): pass\n"  # 38-39: K.__init__ hides it too
    "class P:\n    @property\n    def x(self): return 1\n"  # 40-42
    "    @x.setter\n    def x(self, v): pass\n"  # 43-44
    "    def __init__(self):\n        self.x = 3\n"  # 45-46: the setter
    "    def m(self): pass\n"  # 47
    "def main():\n"  # 48
    "    Q(impl).run()\n"  # 49: impl
    "    L(True).run()\n"  # 50: L.run or impl
    "    N().run()\n"  # 51: N.run or impl
    "    P().m()\n"  # 52
    "    W().run()\n")  # 53: unknown


def test_an_instance_attribute_comes_before_the_method(tmp_path: Path) -> None:
    got = calls_from(tmp_path, {"a.py": SHADOW}, "a.py::K.go", "a.py::L.go", "a.py::M.go",
                     "a.py::N.go", "a.py::W.go", "a.py::main")
    assert got == [
        "a.py::K.go -> a.py::impl @9",  # (Q(impl) passes it)
        "a.py::L.go -> a.py::L.run @16", "a.py::L.go -> a.py::impl @16",
        "a.py::M.go -> a.py::M.run @25", "a.py::M.go -> a.py::other @25",
        "a.py::N.go -> a.py::N.run @31", "a.py::N.go -> a.py::impl @31",
        "a.py::main -> a.py::L @50", "a.py::main -> a.py::L.run @50",
        "a.py::main -> a.py::N @51", "a.py::main -> a.py::N.run @51",
        "a.py::main -> a.py::P @52", "a.py::main -> a.py::P.m @52",
        "a.py::main -> a.py::Q @49", "a.py::main -> a.py::W @53",
        "a.py::main -> a.py::impl @49", "a.py::main -> a.py::impl @50",
        "a.py::main -> a.py::impl @51"]


def test_a_name_imported_twice_calls_either(tmp_path: Path) -> None:
    files = {"a.py": "def f(): pass\n", "b.py": "def f(): pass\n",
             "fallback.py": ("try:\n    from a import f\n"  # 1-2
                             "except ImportError:\n    from b import f\n"  # 3-4
                             "def go():\n    f()\n"  # 5-6: a.f or b.f
                             "f()\n"),  # 7: module code: the first import's
             "modalias.py": ("import sys\n"  # 1
                             "if sys.platform == 'win32':\n    import b as m\n"  # 2-3
                             "else:\n    import a as m\n"  # 4-5
                             "def go():\n    m.f()\n"),  # 6-7: b.f or a.f
             "once.py": "from a import f\ndef go():\n    f()\n"}  # 3: a.f alone
    assert calls_from(tmp_path, files, "fallback.py::go", "fallback.py::",
                      "modalias.py::go", "once.py::go") == [
        "fallback.py:: -> a.py::f @7",
        "fallback.py::go -> a.py::f @6", "fallback.py::go -> b.py::f @6",
        "modalias.py::go -> a.py::f @7", "modalias.py::go -> b.py::f @7",
        "once.py::go -> a.py::f @3"]


def test_a_functions_own_import_comes_first(tmp_path: Path) -> None:
    files = {"a.py": "def f(): pass\n", "b.py": "def f(): pass\n",
             "main.py": ("from a import f\n"  # 1
                         "def go():\n    from b import f\n    f()\n"  # 2-4: b.f
                         "def other():\n    f()\n"),  # 5-6: a.f
             "own.py": ("def f(): pass\n"  # 1
                        "def show():\n    from b import f\n    f()\n"  # 2-4: b.f, no
                        "class K:\n    def m(self):\n        from a import f\n"  # 5-7
                        "        f()\n"  # 8: a.f
                        "        def inner():\n            f()\n"),  # 9-10: a.f
             "lazy.py": ("_f = None\n"  # 1
                         "def get():\n    global _f\n"  # 2-3
                         "    if _f is None:\n        from a import f as g\n"  # 4-5
                         "        _f = g\n"  # 6
                         "    return _f()\n")}  # 7: a.f (the global the import set)
    assert calls_from(tmp_path, files, "main.py::go", "main.py::other", "own.py::show",
                      "own.py::K.m", "own.py::K.m.inner", "lazy.py::get") == [
        "lazy.py::get -> a.py::f @7",
        "main.py::go -> b.py::f @4", "main.py::other -> a.py::f @6",
        "own.py::K.m -> a.py::f @8", "own.py::K.m.inner -> a.py::f @10",
        "own.py::show -> b.py::f @4"]


def test_a_subclass_that_replaces_the_caller_runs_none_of_its_self_calls(tmp_path: Path) -> None:
    src = ("class Base:\n    def run(self):\n        return self.step()\n"  # 1-3
           "    def step(self):\n        return 1\n"  # 4-5
           "    def go(self):\n        self.__step()\n"  # 6-7: Base.__step alone
           "    def __step(self): pass\n"  # 8
           "class Child(Base):\n    def run(self):\n        return 2\n"  # 9-11: no super
           "    def step(self):\n        return 3\n"  # 12-13
           "    def __step(self): pass\n"  # 14: _Child__step, no override
           "class Sup(Base):\n    def run(self):\n        super().run()\n"  # 15-17
           "    def step(self): pass\n"  # 18
           "class Named(Base):\n    def run(self):\n        Base.run(self)\n"  # 19-21
           "    def step(self): pass\n")  # 22
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Base.run", "a.py::Base.go") == [
        "a.py::Base.go -> a.py::Base.__step @7",
        "a.py::Base.run -> a.py::Base.step @3", "a.py::Base.run -> a.py::Named.step @3",
        "a.py::Base.run -> a.py::Sup.step @3"]


def test_after_an_isinstance_block_that_leaves_the_class_is_gone(tmp_path: Path) -> None:
    src = ("class A:\n    def m(self): pass\n    def other(self): pass\n"  # 1-3
           "class B:\n    def m(self): pass\n    def other(self): pass\n"  # 4-6
           "class A2(A):\n    def other(self): pass\n"  # 7-8
           "def handle(x):\n    if isinstance(x, A):\n        return x.m()\n"  # 9-11
           "    x.other()\n"  # 12: B.other alone (A2 is an A)
           "def handle2(x):\n    if isinstance(x, A) and x.ok:\n        return 1\n"  # 13-15
           "    x.other()\n"  # 16: A.other, B.other (the `and` may fail)
           "def handle3(xs):\n    for y in xs:\n        if isinstance(y, B):\n"  # 17-19
           "            continue\n        y.other()\n"  # 20-21: A.other
           "handle(A())\nhandle(B())\nhandle(A2())\n"  # 22-24
           "handle2(A())\nhandle2(B())\nhandle3([A(), B()])\n")  # 25-27
    assert calls_from(tmp_path, {"a.py": src}, "a.py::handle", "a.py::handle2",
                      "a.py::handle3") == [
        "a.py::handle -> a.py::A.m @11", "a.py::handle -> a.py::B.other @12",
        "a.py::handle2 -> a.py::A.other @16", "a.py::handle2 -> a.py::B.other @16",
        "a.py::handle3 -> a.py::A.other @21"]


def test_import_star_binds_the_modules_all_and_no_private_name(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "from .compat import *\nfrom .core import *\n",
             "pkg/compat.py": "def urljoin(a, b):\n    return a + b\n",
             "pkg/core.py": ("__all__ = ['Session']\n"
                             "def urljoin(a, b):\n    return 'core'\n"
                             "class Session:\n    pass\n"),
             "helpers.py": "def _private(): pass\ndef public(): pass\n",
             "dyn.py": "from helpers import public\n__all__ = ['x'] + ['public']\n"
                       "def x(): pass\n",
             "main.py": ("from pkg import *\nfrom helpers import *\nfrom dyn import *\n"
                         "def go():\n"  # 4
                         "    urljoin('a', 'b')\n"  # 5: compat's (core's is not in __all__)
                         "    Session()\n"  # 6
                         "    _private()\n"  # 7: no `import *` binds it
                         "    public()\n"  # 8: helpers'
                         "    x()\n")}  # 9: dyn's (an __all__ built at run time: every name)
    assert calls_from(tmp_path, files, "main.py::go") == [
        "main.py::go -> dyn.py::x @9", "main.py::go -> helpers.py::public @8",
        "main.py::go -> pkg/compat.py::urljoin @5", "main.py::go -> pkg/core.py::Session @6"]


UNIONS = {
    "shapes.py": (
        "from dataclasses import dataclass\nfrom typing import Optional, Union\n"  # 1-2
        "class Circle:\n    def area(self): pass\n    def radius(self): pass\n"  # 3-5
        "class Square:\n    def area(self): pass\n    def side(self): pass\n"  # 6-8
        "def total(s: Circle | Square):\n    s.area()\n"  # 9-10: both
        "    if isinstance(s, Circle):\n        s.radius()\n"  # 11-12
        "    else:\n        s.side()\n"  # 13-14: Square.side (Circle has none)
        "def t2(s: Union[Circle, Square]):\n    s.area()\n"  # 15-16: both
        "def t3(s: 'Optional[Union[Circle, Square]]'):\n    s.area()\n"  # 17-18: both
        "def t4(s: Union[Circle, str]):\n    s.area()\n"  # 19-20: unknown (a str too)
        "def make(k) -> Circle | Square:\n    return k\n"  # 21-22
        "def t5():\n    make(1).area()\n"  # 23-24: make, both areas
        "@dataclass\nclass Holder:\n    shape: Circle | Square\n"  # 25-27
        "    jobs: list[Circle]\n"  # 28: no default: still Circles
        "    def go(self):\n        self.shape.area()\n"  # 29-30: both
        "        for j in self.jobs:\n            j.radius()\n"),  # 31-32: Circle.radius
    "casts.py": (
        "import typing\nimport typing as t\nfrom typing import cast\n"  # 1-3
        "from shapes import Circle\n"  # 4
        "def go(v):\n"  # 5
        "    a = cast(Circle, v)\n    a.area()\n"  # 6-7
        "    b = typing.cast('Circle', v)\n    b.area()\n"  # 8-9
        "    c = t.cast(Circle, v)\n    c.area()\n"),  # 10-11
    "owncast.py": ("from shapes import Circle\n"
                   "def cast(a, b):\n    return b\n"  # 2-3: this file's own cast
                   "def go(v):\n    x = cast(Circle, v)\n    x.area()\n")}  # 4-6: unknown


def test_unions_of_classes_and_typing_cast(tmp_path: Path) -> None:
    got = calls_from(tmp_path, UNIONS, "shapes.py::total", "shapes.py::t2", "shapes.py::t3",
                     "shapes.py::t4", "shapes.py::t5", "shapes.py::Holder.go",
                     "casts.py::go", "owncast.py::go")
    assert got == [
        "casts.py::go -> shapes.py::Circle.area @11", "casts.py::go -> shapes.py::Circle.area @7",
        "casts.py::go -> shapes.py::Circle.area @9",
        "owncast.py::go -> owncast.py::cast @5",
        "shapes.py::Holder.go -> shapes.py::Circle.area @30",
        "shapes.py::Holder.go -> shapes.py::Circle.radius @32",
        "shapes.py::Holder.go -> shapes.py::Square.area @30",
        "shapes.py::t2 -> shapes.py::Circle.area @16", "shapes.py::t2 -> shapes.py::Square.area @16",
        "shapes.py::t3 -> shapes.py::Circle.area @18", "shapes.py::t3 -> shapes.py::Square.area @18",
        "shapes.py::t5 -> shapes.py::Circle.area @24", "shapes.py::t5 -> shapes.py::Square.area @24",
        "shapes.py::t5 -> shapes.py::make @24",
        "shapes.py::total -> shapes.py::Circle.area @10",
        "shapes.py::total -> shapes.py::Circle.radius @12",
        "shapes.py::total -> shapes.py::Square.area @10",
        "shapes.py::total -> shapes.py::Square.side @14"]


def test_self_calls_dispatch_over_a_class_with_eighteen_subclasses(tmp_path: Path) -> None:
    src = ("class Command:\n    def main(self):\n        return self.invoke()\n"  # 1-3
           "    def invoke(self): pass\n"  # 4
           "class Group(Command):\n    def invoke(self): return 1\n"  # 5-6
           + "".join(f"class C{i}(Command):\n    pass\n" for i in range(17)))  # 18 in all
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Command.main") == [
        "a.py::Command.main -> a.py::Command.invoke @3",
        "a.py::Command.main -> a.py::Group.invoke @3"]


GO = """package cobra

type Command struct {
	commands []*Command
	groups   map[string]*Group
	parent   *Command
}

type Group struct{}

func (g *Group) Title() string { return "" }

func (c *Command) Parent() *Command { return c.parent }

func (c *Command) Commands() []*Command { return c.commands }

func (c *Command) check() {
	for _, sub := range c.commands {
		sub.check()
	}
	for _, g := range c.groups {
		g.Title()
	}
	parents := make([]*Command, 0, 5)
	for _, p := range parents {
		p.check()
	}
	for p := c; p != nil; p = p.Parent() {
		p.check()
	}
	for _, x := range c.Commands() {
		x.check()
	}
	for i := range c.commands {
		i.check()
	}
}
"""


def test_go_range_over_slices_maps_and_a_for_clause(tmp_path: Path) -> None:
    """Fresh-user run of session 35: cobra's `for _, sub := range c.commands {
    sub.checkCommandGroups() }` was unresolved (the field is `[]*Command`)."""
    assert calls_from(tmp_path, {"cmd.go": GO}, "cmd.go::Command.check") == [
        "cmd.go::Command.check -> cmd.go::Command.Commands @31",
        "cmd.go::Command.check -> cmd.go::Command.Parent @28",
        "cmd.go::Command.check -> cmd.go::Command.check @19",
        "cmd.go::Command.check -> cmd.go::Command.check @26",
        "cmd.go::Command.check -> cmd.go::Command.check @29",
        "cmd.go::Command.check -> cmd.go::Command.check @32",
        "cmd.go::Command.check -> cmd.go::Group.Title @22"]  # (`i.check()`, 35: an int)


def test_classmethod_arguments_and_dict_get_on_attributes(tmp_path: Path) -> None:
    src = ("def add(): pass\ndef sub(): pass\n"  # 1-2
           "class Calc:\n    OPS = {'add': add, 'sub': sub}\n"  # 3-4
           "    def __init__(self):\n        self.handlers = {'a': add}\n"  # 5-6
           "    @classmethod\n    def run(cls, op):\n"  # 7-8
           "        cls.OPS.get(op)()\n"  # 9: add, sub
           "        f = cls.OPS.get('sub')\n        f()\n"  # 10-11: sub
           "    def go(self, op):\n"  # 12
           "        self.OPS.get(op)()\n"  # 13: add, sub
           "        h = self.handlers.get('a')\n        h()\n"  # 14-15: add
           "    @classmethod\n    def make(cls, factory):\n        return factory()\n"  # 16-18
           "def main():\n    Calc.make(add)\n")  # 19-20: cls comes first: factory is add
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Calc.run", "a.py::Calc.go",
                      "a.py::Calc.make") == [
        "a.py::Calc.go -> a.py::add @13", "a.py::Calc.go -> a.py::add @15",
        "a.py::Calc.go -> a.py::sub @13",
        "a.py::Calc.make -> a.py::add @18",
        "a.py::Calc.run -> a.py::add @9", "a.py::Calc.run -> a.py::sub @11",
        "a.py::Calc.run -> a.py::sub @9"]


def test_declared_mapping_values(tmp_path: Path) -> None:
    src = ("from typing import Mapping\n"  # 1
           "class Handler:\n    def handle(self): pass\n"  # 2-3
           "class Router:\n    routes: dict[str, Handler]\n"  # 4-5
           "    def __init__(self):\n        self.more: dict[str, Handler] = {}\n"  # 6-7
           "    def go(self, k):\n"  # 8
           "        self.routes[k].handle()\n"  # 9
           "        self.routes.get(k).handle()\n"  # 10
           "        for h in self.routes.values():\n            h.handle()\n"  # 11-12
           "        for name, h in self.routes.items():\n            h.handle()\n"  # 13-14
           "        self.more[k].handle()\n"  # 15
           "def f(m: Mapping[str, Handler], k):\n    m[k].handle()\n"  # 16-17
           "    for h in m.values():\n        h.handle()\n")  # 18-19
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Router.go", "a.py::f") == [
        f"a.py::Router.go -> a.py::Handler.handle @{n}" for n in (10, 12, 14, 15, 9)] + [
        f"a.py::f -> a.py::Handler.handle @{n}" for n in (17, 19)]


def test_isinstance_or_isinstance_of_one_name_narrows_to_either(tmp_path: Path) -> None:
    src = ("class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"  # 1-4
           "class C:\n    def m(self): pass\n"  # 5-6
           "def h(x, y):\n"  # 7
           "    if isinstance(x, A) or isinstance(x, B):\n        x.m()\n"  # 8-9: A, B
           "    if isinstance(x, A) or isinstance(y, B):\n        x.m()\n"  # 10-11: any
           "h(A(), 1)\nh(B(), 1)\nh(C(), 1)\n")
    assert calls_from(tmp_path, {"a.py": src}, "a.py::h") == [
        "a.py::h -> a.py::A.m @11", "a.py::h -> a.py::A.m @9", "a.py::h -> a.py::B.m @11",
        "a.py::h -> a.py::B.m @9", "a.py::h -> a.py::C.m @11"]


def test_a_subclass_class_attribute_tuple_reaches_the_base_loop(tmp_path: Path) -> None:
    src = ("class H1:\n    def handle(self): pass\nclass H2:\n    def handle(self): pass\n"
           "class Base:\n    middleware = ()\n"  # 5-6
           "    def run(self):\n        for h in self.middleware:\n"  # 7-8
           "            h().handle()\n"  # 9: H1, H2 (App's)
           "class App(Base):\n    middleware = (H1, H2)\n")  # 10-11
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Base.run") == [
        "a.py::Base.run -> a.py::H1 @9", "a.py::Base.run -> a.py::H1.handle @9",
        "a.py::Base.run -> a.py::H2 @9", "a.py::Base.run -> a.py::H2.handle @9"]


def test_second_break_it_round_of_session_35(tmp_path: Path) -> None:
    """A base ``__init__``'s ``self.run = impl`` does not reach a subclass whose own
    ``__init__`` skips ``super().__init__()``; ``super().run()`` in a grandchild stops at
    a middle class that replaced ``run`` without calling on; a second import outside any
    ``try``/``if`` replaces the first."""
    files = {
        "a.py": "def f(): pass\n", "b.py": "def f(): pass\n",
        "twice.py": "from a import f\nfrom b import f\ndef go():\n    f()\n",  # 4: b.f
        "k.py": ("def impl(): pass\n"  # 1
                 "class Base:\n    def __init__(self):\n        self.run = impl\n"  # 2-4
                 "    def run(self): pass\n"  # 5
                 "class Other(Base):\n    def __init__(self):\n        self.x = 1\n"  # 6-8
                 "    def go(self):\n        self.run()\n"  # 9-10: Base.run
                 "class Good(Base):\n    def __init__(self):\n"  # 11-12
                 "        super().__init__()\n"  # 13
                 "    def go(self):\n        self.run()\n"),  # 14-15: impl
        "m.py": ("class Base:\n    def run(self):\n        return self.step()\n"  # 1-3
                 "    def step(self): pass\n"  # 4
                 "class Mid(Base):\n    def run(self):\n        return 1\n"  # 5-7
                 "    def step(self): return 2\n"  # 8
                 "class Leaf(Mid):\n    def run(self):\n        return super().run()\n"  # 9-11
                 "    def step(self): return 3\n"  # 12
                 "class Ok(Base):\n    def run(self):\n        super().run()\n"  # 13-15
                 "    def step(self): return 4\n")}  # 16
    assert calls_from(tmp_path, files, "twice.py::go", "k.py::Other.go", "k.py::Good.go",
                      "m.py::Base.run") == [
        "k.py::Good.go -> k.py::impl @15", "k.py::Other.go -> k.py::Base.run @10",
        "m.py::Base.run -> m.py::Ok.step @3", "twice.py::go -> b.py::f @4"]


def test_go_range_variable_is_the_loops_own(tmp_path: Path) -> None:
    src = ("package m\n\ntype Flag struct{}\n\nfunc (f *Flag) Run() {}\n\n"  # 1-6
           "type Cmd struct{}\n\nfunc (c *Cmd) Run() {}\n\n"  # 7-10
           "func go1(cmds []*Cmd, f *Flag) {\n\tvar c *Flag = f\n"  # 11-12
           "\tfor _, c := range cmds {\n\t\tc.Run()\n\t}\n"  # 13-15: Cmd.Run
           "\tc.Run()\n}\n")  # 16: Flag.Run (the loop's c is gone)
    assert calls_from(tmp_path, {"m.go": src}, "m.go::go1") == [
        "m.go::go1 -> m.go::Cmd.Run @14", "m.go::go1 -> m.go::Flag.Run @16"]


def test_a_mangled_name_is_never_a_bases(tmp_path: Path) -> None:
    src = ("class Base:\n    def __helper(self): pass\n"  # 1-2
           "    def go(self):\n        self.__helper()\n"  # 3-4: Base.__helper
           "class Sub(Base):\n    def run(self):\n        self.__helper()\n"  # 5-7: none
           "        self.go()\n")  # 8
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Base.go", "a.py::Sub.run") == [
        "a.py::Base.go -> a.py::Base.__helper @4", "a.py::Sub.run -> a.py::Base.go @8"]


def test_after_an_if_elif_chain_of_isinstance_returns(tmp_path: Path) -> None:
    src = ("class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"  # 1-4
           "class C:\n    def m(self): pass\n"  # 5-6
           "def h(x):\n    if isinstance(x, A):\n        return 1\n"  # 7-9
           "    elif isinstance(x, B):\n        return 2\n    x.m()\n"  # 10-12: C.m
           "def h2(x):\n    if isinstance(x, A) or isinstance(x, B):\n"  # 13-14
           "        return 1\n    x.m()\n"  # 15-16: C.m
           "def h3(x):\n    if isinstance(x, A):\n        return 1\n"  # 17-19
           "    elif isinstance(x, B):\n        pass\n    x.m()\n"  # 20-22: any (B stays)
           "for v in (A(), B(), C()):\n    h(v); h2(v); h3(v)\n")
    assert calls_from(tmp_path, {"a.py": src}, "a.py::h", "a.py::h2", "a.py::h3") == [
        "a.py::h -> a.py::C.m @12", "a.py::h2 -> a.py::C.m @16",
        "a.py::h3 -> a.py::A.m @22", "a.py::h3 -> a.py::B.m @22", "a.py::h3 -> a.py::C.m @22"]


def test_callable_annotations_and_a_package_reexported_instance(tmp_path: Path) -> None:
    files = {"lib/__init__.py": "from .api import inst, Client\n",
             "lib/api.py": "class Client:\n    def request(self): pass\ninst = Client()\n",
             "main.py": ("import lib\nfrom typing import Callable, Optional\n"  # 1-2
                         "def impl(): pass\n"  # 3
                         "def f(cb: Callable[[], None]):\n    cb()\n"  # 4-5: impl
                         "def g(cb: Optional[Callable[..., int]] = None):\n"  # 6
                         "    if cb:\n        cb()\n"  # 7-8: impl
                         "def go():\n    lib.inst.request()\n"  # 9-10: Client.request
                         "    f(impl)\n    g(impl)\n")}  # 11-12
    assert calls_from(tmp_path, files, "main.py::f", "main.py::g", "main.py::go") == [
        "main.py::f -> main.py::impl @5", "main.py::g -> main.py::impl @8",
        "main.py::go -> lib/api.py::Client.request @10", "main.py::go -> main.py::f @11",
        "main.py::go -> main.py::g @12"]
