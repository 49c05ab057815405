"""Forms found in session 32 (issue 14), with their exact right values: builtin names a
file binds itself (``def next``, ``from mylib import max``, a parameter ``next``, ``import
utils as copy``) are not read as the builtins (break-it of session 31: each gave a wrong
edge)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import AB, calls_from

from hindsight.codeindex.languages import get
from hindsight.codeindex.shadow import shadowed


@pytest.mark.parametrize(("src", "want"), [
    ("def go(self, next=None, *, max=3):\n    pass\n", {"next", "max"}),
    ("f = lambda iter, x: iter\n", {"iter"}),
    ("with open(p) as iter:\n    pass\n", {"iter"}),
    ("for i, next in xs:\n    pass\n", {"next"}),
    ("a, list = 1, 2\n", {"list"}),
    ("if (next := f()):\n    pass\n", {"next"}),
    ("try:\n    pass\nexcept E as type:\n    pass\n", {"type"}),
    ("def f():\n    zip = 3\n", {"zip"}),
    # a class attribute is no binding a method sees; keyword arguments, strings, comments
    # and a parameter's default or annotation bind nothing
    ("class C:\n    type: str = 'x'\n    max = 3\n", set()),
    ("x = add_argument(\n    type=int,\n    max=3)\n", set()),
    ("'''such as max'''\n# as list\n", set()),
    ("def f(x: list = [], key=max):\n    pass\n", set()),
])
def test_shadowed_names_of_a_file(src: str, want: set[str]) -> None:
    b = src.encode()
    assert shadowed(b, get("python").parser.parse(b).root_node, [], []) == want


def test_imports_of_the_stdlib_names_are_no_shadowing() -> None:
    imports = [("", "copy", "", "copy", 1), ("", "functools", "partial", "partial", 2),
               ("", "collections", "defaultdict", "defaultdict", 3),
               ("", "utils", "", "copy", 4), ("", "mylib", "max", "max", 5)]
    assert shadowed(b"", get("python").parser.parse(b"").root_node, ["next", "helper"],
                    imports[:3]) == {"next"}
    assert shadowed(b"", get("python").parser.parse(b"").root_node, [],
                    imports) == {"copy", "max"}


@pytest.mark.parametrize(("tail", "want"), [
    ("def min(xs, key=None):\n    return B()\n"  # 7-8
     "min([A()], key=id).m()\n",  # 9
     "main.py:: -> main.py::B.m @9"),
    ("def next(it):\n    return B()\n"  # 7-8
     "def gen():\n    yield A()\n"  # 9-10
     "next(gen()).m()\n",  # 11
     "main.py:: -> main.py::B.m @11"),
    ("max = lambda xs, key=None: B()\n"  # 7
     "max([A()], key=id).m()\n",  # 8
     "main.py:: -> main.py::B.m @8"),
    ("def defaultdict(f):\n    return {'k': B()}\n"  # 7-8
     "d = defaultdict(A)\n"  # 9
     "d['k'].m()\n",  # 10
     "main.py:: -> main.py::B.m @10"),
])
def test_a_builtin_the_file_defines_is_its_own(tmp_path: Path, tail: str, want: str) -> None:
    got = calls_from(tmp_path, {"main.py": AB + tail}, "main.py::")
    assert want in got
    assert not any(e.startswith("main.py:: -> main.py::A.m") for e in got)


def test_a_parameter_named_next_is_no_builtin(tmp_path: Path) -> None:
    src = AB + ("def gen():\n    yield A()\n"  # 7-8
                "def go(next):\n    return next(gen()).m()\n"  # 9-10
                "go(lambda it: B())\n")  # 11
    assert calls_from(tmp_path, {"main.py": src}, "main.py::go") == [
        "main.py::go -> main.py::gen @10"]


def test_imported_names_that_shadow_builtins(tmp_path: Path) -> None:
    files = {
        "mylib.py": "class Other:\n    def m(self):\n        return 0\n"  # 1-3
                    "def max(xs, key=None):\n    return Other()\n",  # 4-5
        "utils.py": "from mylib import Other\n"  # 1
                    "def copy(x):\n    return Other()\n",  # 2-3
        "main.py": "from mylib import max\nimport utils as copy\n"  # 1-2
                   "class A:\n    def m(self):\n        return 1\n"  # 3-5
                   "max([A()], key=id).m()\n"  # 6
                   "copy.copy(A()).m()\n"}  # 7
    assert calls_from(tmp_path, files, "main.py::") == [
        "main.py:: -> main.py::A @6",
        "main.py:: -> main.py::A @7",
        "main.py:: -> mylib.py::Other.m @6",
        "main.py:: -> mylib.py::Other.m @7",
        "main.py:: -> mylib.py::max @6",
        "main.py:: -> utils.py::copy @7"]


def test_the_builtins_still_read_where_nothing_shadows_them(tmp_path: Path) -> None:
    src = AB + ("import copy\n"  # 7
                "class C:\n    type: str = 'c'\n    max = 3\n"  # 8-10
                "def gen():\n    yield A()\n"  # 11-12
                "next(gen()).m()\n"  # 13
                "bs = [B()]\n"  # 14
                "max(bs, key=id).m()\n"  # 15
                "copy.copy(A()).m()\n")  # 16
    got = calls_from(tmp_path, {"main.py": src}, "main.py::")
    assert [e for e in got if ".m @1" in e] == [
        "main.py:: -> main.py::A.m @13",
        "main.py:: -> main.py::A.m @16",
        "main.py:: -> main.py::B.m @15"]


def test_a_local_name_hides_the_module_one_for_attribute_writes(tmp_path: Path) -> None:
    src = ("class H:\n    def handle(self):\n        return 1\n"  # 1-3
           "class Server:\n    handler = None\n"  # 4-5
           "    def run(self):\n        return self.handler.handle()\n"  # 6-7
           "class Other:\n    pass\n"  # 8-9
           "server = Server()\n"  # 10
           "def f():\n    server = Other()\n    server.handler = H()\n"  # 11-13
           "def g():\n    server.handler = H()\n")  # 14-15: the module's Server
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Server.run") == [
        "main.py::Server.run -> main.py::H.handle @7"]
    src2 = src.replace("def g():\n    server.handler = H()\n", "")
    assert calls_from(tmp_path / "2", {"main.py": src2}, "main.py::Server.run") == []


CODECS = ("class Json:\n    def dump(self):\n        return 1\n"  # 1-3
          "class Xml:\n    def dump(self):\n        return 2\n"  # 4-6
          "class Yaml:\n    def dump(self):\n        return 3\n")  # 7-9


@pytest.mark.parametrize(("body", "want"), [
    # every arm binds: the caller's Xml never reaches the use
    ("    if k:\n        codec = Json()\n"  # 11-12
     "    elif k == 2:\n        codec = Yaml()\n"  # 13-14
     "    else:\n        codec = Json()\n"  # 15-16
     "    codec.dump()\n",  # 17
     ["Json.dump @17", "Yaml.dump @17"]),
    # no else: the parameter's value may reach
    ("    if k:\n        codec = Json()\n"  # 11-12
     "    elif k == 2:\n        codec = Yaml()\n"  # 13-14
     "    codec.dump()\n",  # 15
     ["Json.dump @15", "Xml.dump @15", "Yaml.dump @15"]),
    # a body that returns: its binding is not seen after it
    ("    if codec is None:\n        codec = Json()\n"  # 11-12
     "        return codec.dump()\n"  # 13
     "    codec.dump()\n",  # 14
     ["Json.dump @13", "Xml.dump @14"]),
    # the if/else is itself in a branch: the value before it may reach
    ("    if k:\n        if k == 2:\n            codec = Json()\n"  # 11-13
     "        else:\n            codec = Yaml()\n"  # 14-15
     "    codec.dump()\n",  # 16
     ["Json.dump @16", "Xml.dump @16", "Yaml.dump @16"]),
    # the last binding of an arm counts, a later binding in an arm wins
    ("    if k:\n        codec = Yaml()\n        codec = Json()\n"  # 11-13
     "    else:\n        codec = Json()\n"  # 14-15
     "        if k == 3:\n            codec = Yaml()\n"  # 16-17
     "    codec.dump()\n",  # 18
     ["Json.dump @18", "Yaml.dump @18"]),
])
def test_a_parameter_bound_in_branches(tmp_path: Path, body: str, want: list[str]) -> None:
    src = CODECS + "def save(codec=None, k=0):\n" + body + "save(Xml())\n"  # 10
    got = calls_from(tmp_path, {"main.py": src}, "main.py::save")
    assert [e.split("::")[-1] for e in got if ".dump @" in e] == want


def test_a_list_pattern_unpacks_as_a_tuple_does(tmp_path: Path) -> None:
    src = AB + ("def make():\n    return [A(), B()]\n"  # 7-8
                "[a, b] = make()\n"  # 9
                "a.m()\nb.m()\n"  # 10-11
                "[c, *d] = [B(), A()]\n"  # 12
                "c.m()\n")  # 13
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::") if ".m @" in e] == [
        "main.py:: -> main.py::A.m @10",
        "main.py:: -> main.py::B.m @11",
        "main.py:: -> main.py::B.m @13"]


FG = "def f(x):\n    return 1\ndef g(x):\n    return 2\n"  # 1-4


def test_dict_literals_keep_the_last_value_of_a_repeated_key(tmp_path: Path) -> None:
    src = FG + ("D = {'a': f, 'a': g, 'b': f}\n"  # 5
                "D['a'](1)\n"  # 6
                "def handlers():\n    return {'a': f, 'a': g}\n"  # 7-8
                "handlers()['a'](1)\n")  # 9
    assert calls_from(tmp_path, {"main.py": src}, "main.py::") == [
        "main.py:: -> main.py::g @6",
        "main.py:: -> main.py::g @9",
        "main.py:: -> main.py::handlers @9"]


def test_returned_dict_literals_read_by_int_key_and_by_get(tmp_path: Path) -> None:
    src = FG + ("def handlers():\n    return {1: f, 2: g}\n"  # 5-6
                "def named():\n    return {'a': f, 'b': g}\n"  # 7-8
                "def run(kind):\n"  # 9
                "    handlers()[2](1)\n"  # 10
                "    named().get(kind)(1)\n"  # 11
                "    hs = named()\n"  # 12
                "    hs.get(kind)(1)\n")  # 13
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::run")
            if "named @" not in e and "handlers @" not in e] == [
        "main.py::run -> main.py::f @11",
        "main.py::run -> main.py::f @13",
        "main.py::run -> main.py::g @10",
        "main.py::run -> main.py::g @11",
        "main.py::run -> main.py::g @13"]


PLUGINS = ("class Registry:\n"  # 1
           "    def __init__(self):\n        self._plugins = {}\n"  # 2-3
           "    def add(self, cls):\n        self._plugins[cls.name] = cls\n"  # 4-5
           "    def create(self, name):\n"  # 6
           "        cls = self._plugins[name]\n        return cls()\n"  # 7-8
           "registry = Registry()\n"  # 9
           "class Plugin:\n    name = 'base'\n"  # 10-11
           "    def __init_subclass__(cls, **kw):\n"  # 12
           "        super().__init_subclass__(**kw)\n"  # 13
           "        registry.add(cls)\n"  # 14
           "    def run(self):\n        return 0\n"  # 15-16
           "class Csv(Plugin):\n    name = 'csv'\n"  # 17-18
           "    def run(self):\n        return 1\n"  # 19-20
           "class Json(Plugin):\n    name = 'json'\n"  # 21-22
           "    def run(self):\n        return 2\n")  # 23-24


def test_an_init_subclass_registry_through_an_object(tmp_path: Path) -> None:
    # cls in __init_subclass__ is any subclass; add's second parameter `cls` is a value;
    # create's local `cls` is no receiver, so create() is no Registry
    src = PLUGINS + ("def go(name):\n"  # 25
                     "    p = registry.create(name)\n"  # 26
                     "    p.run()\n")  # 27
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Registry.create",
                      "main.py::go") == [
        "main.py::Registry.create -> main.py::Csv @8",
        "main.py::Registry.create -> main.py::Json @8",
        "main.py::go -> main.py::Csv.run @27",
        "main.py::go -> main.py::Json.run @27",
        "main.py::go -> main.py::Registry.create @26"]


@pytest.mark.parametrize("owner", ["Plugin", "cls"])
def test_an_init_subclass_registry_in_a_class_attribute(tmp_path: Path, owner: str) -> None:
    src = ("class Plugin:\n    registry = {}\n"  # 1-2
           "    def __init_subclass__(cls, **kw):\n"  # 3
           f"        {owner}.registry[cls.__name__] = cls\n"  # 4
           "    def run(self):\n        return 0\n"  # 5-6
           "class Csv(Plugin):\n    def run(self):\n        return 1\n"  # 7-9
           "def go(name):\n"  # 10
           "    Plugin.registry[name]().run()\n")  # 11
    assert calls_from(tmp_path, {"main.py": src}, "main.py::go") == [
        "main.py::go -> main.py::Csv @11",
        "main.py::go -> main.py::Csv.run @11"]


def test_getattr_with_a_name_prefix_dispatches_to_the_methods_so_named(tmp_path: Path) -> None:
    src = ("class Visitor:\n"  # 1
           "    def visit(self, node):\n"  # 2
           "        method = getattr(self, 'visit_' + node, self.generic_visit)\n"  # 3
           "        return method(node)\n"  # 4
           "    def generic_visit(self, node):\n        return None\n"  # 5-6
           "class Printer(Visitor):\n"  # 7
           "    def visit_num(self, n):\n        return 1\n"  # 8-9
           "    def other(self, n):\n        return 2\n"  # 10-11
           "class Order:\n"  # 12
           "    def fire(self, state):\n"  # 13
           "        hook = getattr(self, f'on_enter_{state}', None)\n"  # 14
           "        hook()\n"  # 15
           "    def on_enter_paid(self):\n        return 1\n"  # 16-17
           "    def on_enter_shipped(self):\n        return 2\n")  # 18-19
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Visitor.visit",
                      "main.py::Order.fire") == [
        "main.py::Order.fire -> main.py::Order.on_enter_paid @15",
        "main.py::Order.fire -> main.py::Order.on_enter_shipped @15",
        "main.py::Visitor.visit -> main.py::Printer.visit_num @4",
        "main.py::Visitor.visit -> main.py::Visitor.generic_visit @4"]


SINKS = ("from typing import Protocol\n"  # 1
         "class Sink(Protocol):\n"  # 2
         "    def write(self, data: str) -> int: ...\n"  # 3
         "class Buffer:\n    def write(self, data: str) -> int:\n        return 1\n"  # 4-6
         "class Counter:\n    def write(self, data: str) -> int:\n        return 2\n")  # 7-9


def test_a_protocol_parameter_takes_what_the_call_sites_pass(tmp_path: Path) -> None:
    src = SINKS + ("def pump(sink: Sink) -> int:\n"  # 10
                   "    return sink.write('x')\n"  # 11
                   "pump(Buffer())\npump(Counter())\n"  # 12-13
                   "def make(k) -> Sink:\n"  # 14
                   "    return Buffer() if k else Counter()\n"  # 15
                   "make(1).write('y')\n")  # 16
    got = calls_from(tmp_path, {"main.py": src}, "main.py::pump", "main.py::")
    assert [e for e in got if "write" in e] == [
        "main.py:: -> main.py::Buffer.write @16",
        "main.py:: -> main.py::Counter.write @16",
        "main.py::pump -> main.py::Buffer.write @11",
        "main.py::pump -> main.py::Counter.write @11"]


def test_a_declared_return_type_gives_way_to_a_narrower_body(tmp_path: Path) -> None:
    src = ("class Codec:\n    registry = {}\n"  # 1-2
           "    def __init_subclass__(cls):\n"  # 3
           "        Codec.registry[cls.__name__] = cls\n"  # 4
           "    def encode(self):\n        return 0\n"  # 5-6
           "class Rot(Codec):\n    def encode(self):\n        return 1\n"  # 7-9
           "class Other:\n    def encode(self):\n        return 2\n"  # 10-12
           "def lookup(name) -> Codec:\n    return Codec.registry[name]()\n"  # 13-14
           "def wrong() -> Codec:\n    return Other()\n"  # 15-16
           "lookup('Rot').encode()\nwrong().encode()\n")  # 17-18
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::")
            if "encode" in e] == [
        "main.py:: -> main.py::Codec.encode @18",  # (a body that is no Codec: the declaration)
        "main.py:: -> main.py::Rot.encode @17"]


def test_a_star_target_takes_only_the_returned_literals_positions(tmp_path: Path) -> None:
    src = AB + ("class C:\n    def m(self):\n        return 3\n"  # 7-9
                "def chain():\n    return [A(), B(), C()]\n"  # 10-11
                "first, *rest = chain()\n"  # 12
                "for h in rest:\n    h.m()\n")  # 13-14
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::") if ".m @" in e] == [
        "main.py:: -> main.py::B.m @14",
        "main.py:: -> main.py::C.m @14"]


def test_a_type_parameter_is_the_classes_passed_or_any_concrete_one(tmp_path: Path) -> None:
    src = ("from abc import ABC, abstractmethod\n"  # 1
           "class Plugin(ABC):\n"  # 2
           "    @abstractmethod\n    def run(self): ...\n"  # 3-4
           "class Md(Plugin):\n    def run(self):\n        return 1\n"  # 5-7
           "class Stats(Plugin):\n    def run(self):\n        return 2\n"  # 8-10
           "def load(cls: type[Plugin]):\n    return cls().run()\n"  # 11-12
           "def make(cls: type[Plugin]):\n    return cls()\n"  # 13-14
           "make(Md)\n")  # 15
    assert calls_from(tmp_path, {"main.py": src}, "main.py::load", "main.py::make") == [
        "main.py::load -> main.py::Md @12",  # (no call passes one: any concrete Plugin;
        "main.py::load -> main.py::Md.run @12",  # Plugin itself is abstract)
        "main.py::load -> main.py::Stats @12",
        "main.py::load -> main.py::Stats.run @12",
        "main.py::make -> main.py::Md @14"]


def test_a_parameter_default_that_names_a_table_is_read_by_part(tmp_path: Path) -> None:
    src = FG + ("STEPS = [('a', f), ('b', g)]\n"  # 5
                "def run(lines, steps=STEPS):\n"  # 6
                "    for name, step in steps:\n"  # 7
                "        lines = step(lines)\n"  # 8
                "    return lines\n"  # 9
                "def routes():\n    return {'/login': f, '/health': g}\n"  # 10-11
                "routes()['/login'](1)\n")  # 12
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run", "main.py::") == [
        "main.py:: -> main.py::f @12",
        "main.py:: -> main.py::routes @12",
        "main.py::run -> main.py::f @8",
        "main.py::run -> main.py::g @8"]


def test_an_index_of_an_attribute_filled_by_append(tmp_path: Path) -> None:
    src = AB + ("class Shelf:\n"  # 7
                "    def __init__(self):\n        self.books = []\n"  # 8-9
                "        self.pair = [A(), A()]\n"  # 10
                "    def add(self):\n        self.books.append(B())\n"  # 11-12
                "        self.pair.append(B())\n"  # 13
                "s = Shelf()\n"  # 14
                "s.books[0].m()\n"  # 15
                "s.pair[0].m()\n")  # 16: the literal's first element stays first
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::") if ".m @" in e] == [
        "main.py:: -> main.py::A.m @16",
        "main.py:: -> main.py::B.m @15"]


def test_a_loop_over_a_generator_of_pairs_reads_their_positions(tmp_path: Path) -> None:
    src = FG + ("class R:\n    def __call__(self, x):\n        return 3\n"  # 5-7
                "def handlers(more):\n"  # 8
                "    yield 'f', f\n"  # 9
                "    if more:\n        yield 'r', R()\n"  # 10-11
                "def run():\n"  # 12
                "    for name, h in handlers(True):\n"  # 13
                "        h(1)\n")  # 14
    assert calls_from(tmp_path, {"main.py": src}, "main.py::run") == [
        "main.py::run -> main.py::R.__call__ @14",
        "main.py::run -> main.py::f @14",
        "main.py::run -> main.py::handlers @13"]


def test_an_imported_table_its_module_fills_read_by_key_and_by_get(tmp_path: Path) -> None:
    files = {
        "plugins/__init__.py": "PLUGINS = {}\n"  # 1
                               "def register(group, plugin):\n"  # 2
                               "    PLUGINS.setdefault(group, []).append(plugin)\n"  # 3
                               "class Trim:\n    def apply(self, t):\n        return t\n"  # 4-6
                               "register('pre', Trim())\n",  # 7
        "main.py": "from plugins import PLUGINS\n"  # 1
                   "def run(group):\n"  # 2
                   "    for p in PLUGINS.get(group, []):\n        p.apply(1)\n"  # 3-4
                   "    for p in PLUGINS[group]:\n        p.apply(2)\n"}  # 5-6
    assert calls_from(tmp_path, files, "main.py::run") == [
        "main.py::run -> plugins/__init__.py::Trim.apply @4",
        "main.py::run -> plugins/__init__.py::Trim.apply @6"]


def test_a_parenthesized_value_is_bound(tmp_path: Path) -> None:
    src = AB + ("class S:\n"  # 7
                "    def field(self, f) -> 'S':\n        return self\n"  # 8-9
                "    def validate(self):\n        return 1\n"  # 10-11
                "u = (\n    S()\n    .field(1)\n)\n"  # 12-15
                "u.validate()\n"  # 16
                "def pick(c):\n    x = (A() if c else B())\n    x.m()\n")  # 17-19
    assert [e for e in calls_from(tmp_path, {"main.py": src}, "main.py::", "main.py::pick")
            if "validate" in e or ".m @" in e] == [
        "main.py:: -> main.py::S.validate @16",
        "main.py::pick -> main.py::A.m @19",
        "main.py::pick -> main.py::B.m @19"]


def test_an_imported_table_filled_from_other_modules(tmp_path: Path) -> None:
    files = {
        "plugins/__init__.py": "PLUGINS = {}\n"  # 1
                               "def register(group, plugin):\n"  # 2
                               "    PLUGINS.setdefault(group, []).append(plugin)\n",  # 3
        "plugins/builtin.py": "from plugins import register\n"  # 1
                              "class Trim:\n    def apply(self, t):\n        return t\n"  # 2-4
                              "register('pre', Trim())\n",  # 5
        "main.py": "from plugins import PLUGINS, register\n"  # 1
                   "import plugins.builtin  # noqa: F401\n"  # 2
                   "class Sig:\n    def apply(self, t):\n        return t\n"  # 3-5
                   "def run(group):\n"  # 6
                   "    for p in PLUGINS.get(group, []):\n        p.apply(1)\n"  # 7-8
                   "register('post', Sig())\n"}  # 9
    assert calls_from(tmp_path, files, "main.py::run") == [
        "main.py::run -> main.py::Sig.apply @8",
        "main.py::run -> plugins/builtin.py::Trim.apply @8"]
