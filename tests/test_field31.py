"""Forms found in session 31 (issue 14) by the fifth and sixth blind suites, with their
exact right values: an attribute written through a name outside its class, a plain
function's ``cls`` parameter, an unknown key of a returned dict literal."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import calls_from

SERVER = (
    "class Handler:\n    def handle(self, r):\n        return r\n"  # 1-3
    "class Router:\n    def route(self, p):\n        return p\n"  # 4-6
    "class Server:\n"  # 7
    "    def __init__(self):\n        self.handler = None\n"  # 8-9
    "    def serve(self, p):\n"  # 10
    "        return self.handler.handle(p)\n")  # 11


def test_attribute_written_through_a_name(tmp_path: Path) -> None:
    src = SERVER + (
        "server = Server()\n"  # 12
        "server.handler = Handler()\n"  # 13
        "server.handler.handle(1)\n"  # 14
        "other = Router()\n"  # 15
        "other.handler = Router()\n"  # 16: another class's instance: not Server's
        "def setup(s: Server):\n"  # 17
        "    s.handler = Handler()\n")  # 18
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Server.serve", "main.py::") == [
        "main.py:: -> main.py::Handler @13",
        "main.py:: -> main.py::Handler.handle @14",
        "main.py:: -> main.py::Router @15",
        "main.py:: -> main.py::Router @16",
        "main.py:: -> main.py::Server @12",
        "main.py::Server.serve -> main.py::Handler.handle @11"]


def test_attribute_written_through_a_name_of_another_class(tmp_path: Path) -> None:
    # only writes through an instance of the class count: Router's `handler` stays unset
    src = SERVER + "r = Router()\nr.handler = Router()\n"
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Server.serve") == []


def test_cls_parameter_of_a_plain_function(tmp_path: Path) -> None:
    src = ("class Widget:\n    def draw(self):\n        return 1\n"  # 1-3
           "def build(cls):\n    return cls().draw()\n"  # 4-5
           "class K:\n"  # 6
           "    @classmethod\n    def make(cls):\n        return cls().draw()\n"  # 7-9
           "    def draw(self):\n        return 2\n"  # 10-11
           "build(Widget)\n")  # 12
    assert calls_from(tmp_path, {"main.py": src}, "main.py::build", "main.py::K.make") == [
        "main.py::K.make -> main.py::K @9", "main.py::K.make -> main.py::K.draw @9",
        "main.py::build -> main.py::Widget @5", "main.py::build -> main.py::Widget.draw @5"]


def test_unknown_key_of_a_returned_dict_literal(tmp_path: Path) -> None:
    src = ("def on_create(i):\n    return 1\n"  # 1-2
           "def on_delete(i):\n    return 2\n"  # 3-4
           "def handlers():\n"  # 5
           "    return {'create': on_create, 'delete': on_delete}\n"  # 6
           "def apply(kind):\n"  # 7
           "    handlers()[kind](1)\n"  # 8: any value
           "    handlers()['create'](2)\n"  # 9: the key's value
           "    handlers()['zzz'](3)\n"  # 10: a key the literal lacks: no guess
           "    h = handlers()\n"  # 11
           "    h[kind](4)\n")  # 12
    assert calls_from(tmp_path, {"main.py": src}, "main.py::apply") == [
        "main.py::apply -> main.py::handlers @10",
        "main.py::apply -> main.py::handlers @11",
        "main.py::apply -> main.py::handlers @8",
        "main.py::apply -> main.py::handlers @9",
        "main.py::apply -> main.py::on_create @12",
        "main.py::apply -> main.py::on_create @8",
        "main.py::apply -> main.py::on_create @9",
        "main.py::apply -> main.py::on_delete @12",
        "main.py::apply -> main.py::on_delete @8"]


def test_anonymous_default_export_is_named_default() -> None:
    from hindsight.codeindex.worker import parse_bytes

    ts = b"export default class {\n  run() {}\n  get size() { return 1 }\n}\n"
    assert [(s.local, s.kind, s.start_line) for s in parse_bytes("a.ts", "typescript", ts).symbols
            ] == [("default", "class", 1), ("default.run", "method", 2),
                  ("default.size", "method", 3)]
    js = b"export default function () {}\nexport default class Named { m() {} }\n"
    assert [(s.local, s.kind) for s in parse_bytes("b.js", "javascript", js).symbols] == [
        ("default", "function"), ("Named", "class"), ("Named.m", "method")]


def test_quoted_type_alias_annotation() -> None:
    from hindsight.codeindex.worker import parse_bytes

    src = (b"from typing import TypeAlias\nV: TypeAlias = list\nH: 'TypeAlias' = int\n"
           b"J: \"typing.TypeAlias\" = int\nK: 'Other' = 1\n")
    assert [(s.local, s.kind) for s in parse_bytes("p.py", "python", src).symbols] == [
        ("V", "type"), ("H", "type"), ("J", "type"), ("K", "constant")]


def test_star_unpacking_of_a_returned_list(tmp_path: Path) -> None:
    src = ("class Step:\n    def run(self):\n        return 1\n"  # 1-3
           "class Final(Step):\n    def run(self):\n        return 2\n"  # 4-6
           "def pipeline():\n    return [Step(), Step(), Final()]\n"  # 7-8
           "def main():\n"  # 9
           "    head, *middle, last = pipeline()\n"  # 10
           "    head.run()\n"  # 11: position 0
           "    last.run()\n"  # 12: position -1
           "    pipeline()[1].run()\n")  # 13
    assert calls_from(tmp_path, {"main.py": src}, "main.py::main") == [
        "main.py::main -> main.py::Final.run @12",
        "main.py::main -> main.py::Step.run @11",
        "main.py::main -> main.py::Step.run @13",
        "main.py::main -> main.py::pipeline @10",
        "main.py::main -> main.py::pipeline @13"]


def test_cls_is_the_receiver_only_as_a_first_parameter(tmp_path: Path) -> None:
    src = ("class A:\n    pass\n"  # 1-2
           "class Registry:\n"  # 3
           "    def add(self, cls):\n        self.plugins = [cls]\n"  # 4-5: a parameter
           "    def create(self):\n        return self.plugins[0]()\n"  # 6-7: not Registry
           "    def clone(self):\n"  # 8
           "        return type(self)()\n"  # 9: the receiver's class
           "    @classmethod\n    def make(cls):\n        return cls()\n")  # 10-12
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Registry.create",
                      "main.py::Registry.clone", "main.py::Registry.make") == [
        "main.py::Registry.clone -> main.py::Registry @9",
        "main.py::Registry.make -> main.py::Registry @12"]


def test_parameter_value_after_a_binding_that_may_not_run(tmp_path: Path) -> None:
    src = ("class Json:\n    def encode(self, o):\n        return 1\n"  # 1-3
           "class Xml:\n    def encode(self, o):\n        return 2\n"  # 4-6
           "def a(o, codec=None):\n    codec = codec or Json()\n"  # 7-8
           "    return codec.encode(o)\n"  # 9: Json or the passed Xml
           "def b(o, codec=None):\n    if codec is None:\n        codec = Json()\n"  # 10-12
           "    return codec.encode(o)\n"  # 13: the same
           "def c(o, codec=None):\n    codec = Json()\n"  # 14-15
           "    return codec.encode(o)\n"  # 16: always Json
           "a(1, Xml())\nb(1, Xml())\nc(1, Xml())\n")  # 17-19
    assert calls_from(tmp_path, {"main.py": src}, "main.py::a", "main.py::b", "main.py::c") == [
        "main.py::a -> main.py::Json @8", "main.py::a -> main.py::Json.encode @9",
        "main.py::a -> main.py::Xml.encode @9",
        "main.py::b -> main.py::Json @12", "main.py::b -> main.py::Json.encode @13",
        "main.py::b -> main.py::Xml.encode @13",
        "main.py::c -> main.py::Json @15", "main.py::c -> main.py::Json.encode @16"]


def test_values_of_builtin_calls_on_a_call_or_name(tmp_path: Path) -> None:
    src = ("import copy\nfrom collections import defaultdict\n"  # 1-2
           "class Bucket:\n    def add(self, w):\n        return 1\n"  # 3-5
           "class Task:\n    def run(self):\n        return 1\n"  # 6-8
           "def group(words, tasks: list[Task]):\n"  # 9
           "    buckets = defaultdict(Bucket)\n"  # 10
           "    buckets[words[0]].add(1)\n"  # 11: a missing key makes a Bucket
           "    manual = {}\n"  # 12
           "    manual.setdefault(1, Bucket()).add(2)\n"  # 13: the default
           "    max(tasks, key=len).run()\n"  # 14: an element
           "    copy.deepcopy(tasks[0]).run()\n"  # 15: a copy of a Task
           "    lists = defaultdict(list)\n"  # 16
           "    lists['a'].append(3)\n"  # 17: a builtin's method: nothing
           "def gen():\n    yield Task()\n"  # 18-19
           "def use():\n    next(gen()).run()\n")  # 20-21
    assert calls_from(tmp_path, {"main.py": src}, "main.py::group", "main.py::use") == [
        "main.py::group -> main.py::Bucket @13",
        "main.py::group -> main.py::Bucket.add @11",
        "main.py::group -> main.py::Bucket.add @13",
        "main.py::group -> main.py::Task.run @14",
        "main.py::group -> main.py::Task.run @15",
        "main.py::use -> main.py::Task.run @21",
        "main.py::use -> main.py::gen @21"]


def test_object_a_classmethod_constructs_and_a_returned_local_list(tmp_path: Path) -> None:
    src = ("class Entity:\n    @classmethod\n    def create(cls):\n"  # 1-3
           "        obj = cls()\n        obj.init()\n        return obj\n"  # 4-6: any subclass
           "    def init(self):\n        pass\n"  # 7-8
           "class Product(Entity):\n    def init(self):\n        pass\n"  # 9-11
           "def build():\n    items = [Product() for _ in range(2)]\n"  # 12-13
           "    return items\n"  # 14
           "for it in build():\n    it.init()\n")  # 15-16: an element of the local list
    assert calls_from(tmp_path, {"main.py": src}, "main.py::Entity.create", "main.py::") == [
        "main.py:: -> main.py::Product.init @16",
        "main.py:: -> main.py::build @15",
        "main.py::Entity.create -> main.py::Entity @4",
        "main.py::Entity.create -> main.py::Entity.init @5",
        "main.py::Entity.create -> main.py::Product @4",
        "main.py::Entity.create -> main.py::Product.init @5"]


def test_dict_nested_in_a_dict_literal(tmp_path: Path) -> None:
    src = ("def get_user(i):\n    pass\ndef del_user(i):\n    pass\n"  # 1-4
           "def get_post(i):\n    pass\n"  # 5-6
           "ROUTES = {'users': {'get': get_user, 'delete': del_user},\n"  # 7
           "          'posts': {'get': get_post}}\n"  # 8
           "def handle(res, meth):\n"  # 9
           "    ROUTES[res][meth](1)\n"  # 10: any inner value
           "    ROUTES['users']['get'](2)\n"  # 11
           "    ROUTES[res]['get'](3)\n"  # 12: any outer key, inner 'get'
           "    ROUTES['posts'].get('get')(4)\n"  # 13
           "    ROUTES['posts']['zzz'](5)\n")  # 14: a key the literal lacks: nothing
    assert calls_from(tmp_path, {"main.py": src}, "main.py::handle") == [
        "main.py::handle -> main.py::del_user @10",
        "main.py::handle -> main.py::get_post @10",
        "main.py::handle -> main.py::get_post @12",
        "main.py::handle -> main.py::get_post @13",
        "main.py::handle -> main.py::get_user @10",
        "main.py::handle -> main.py::get_user @11",
        "main.py::handle -> main.py::get_user @12"]


def test_zip_enumerate_and_get_default(tmp_path: Path) -> None:
    src = ("class S:\n    def read(self):\n        pass\n"  # 1-3
           "class D:\n    def show(self):\n        pass\n"  # 4-6
           "def fallback():\n    pass\n"  # 7-8
           "TABLE = {'s': S}\n"  # 9
           "def f(ss: list[S], ds: list[D], k):\n"  # 10
           "    for s, d in zip(ss, ds):\n        s.read()\n        d.show()\n"  # 11-13
           "    for i, (s, d) in enumerate(zip(ss, ds)):\n        d.show()\n"  # 14-15
           "    [d.show() for s, d in zip(ss, ds)]\n"  # 16
           "    TABLE.get(k, fallback)()\n")  # 17: a value of TABLE, or the default
    assert calls_from(tmp_path, {"main.py": src}, "main.py::f") == [
        "main.py::f -> main.py::D.show @13",
        "main.py::f -> main.py::D.show @15",
        "main.py::f -> main.py::D.show @16",
        "main.py::f -> main.py::S @17",
        "main.py::f -> main.py::S.read @12",
        "main.py::f -> main.py::fallback @17"]


def test_fallback_module_alias_and_getattr_default(tmp_path: Path) -> None:
    files = {"main.py": ("try:\n    import not_ours as backend\n"  # 1-2
                         "except ImportError:\n    import slow_impl as backend\n"  # 3-4
                         "def encode(o):\n    return backend.dumps(o)\n"  # 5-6: the one we have
                         "class V:\n    def visit(self, node):\n"  # 7-8
                         "        m = getattr(self, 'visit_' + node, self.generic)\n"  # 9
                         "        return m(node)\n"  # 10: the default; the name is computed
                         "    def generic(self, node):\n        return 1\n"),  # 11-12
             "slow_impl.py": "def dumps(o):\n    return 1\n"}
    assert calls_from(tmp_path, files, "main.py::encode", "main.py::V.visit") == [
        "main.py::V.visit -> main.py::V.generic @10",
        "main.py::encode -> slow_impl.py::dumps @6"]


def test_a_staticmethod_parameter_named_cls_is_no_receiver(tmp_path: Path) -> None:
    src = ("class W:\n    def draw(self):\n        pass\n"  # 1-3
           "class A:\n    def draw(self):\n        pass\n"  # 4-6
           "    @staticmethod\n    def m(cls):\n        cls().draw()\n"  # 7-9: not A
           "    def k(self):\n        self.draw()\n")  # 10-11
    assert calls_from(tmp_path, {"main.py": src}, "main.py::A.m", "main.py::A.k") == [
        "main.py::A.k -> main.py::A.draw @11"]


def test_a_member_function_of_a_plain_object_is_not_nested(tmp_path: Path) -> None:
    # express: `res.send = function` (lib) and a test's `var res = { send: function }`
    # inside a callback: `callers send` must not pick the stub (fresh-user trial, session 31)
    from conftest import make_repo

    from hindsight.app import open_bank
    from hindsight.codeindex.query import Ambiguous, resolve_one

    repo = make_repo(tmp_path / "r", {
        "lib/response.js": "var res = module.exports = {};\n"
                           "res.send = function send(body) {\n  return body;\n};\n",
        "test/router.js": "it('x', function () {\n  var res = { send: function (v) {} };\n"
                          "});\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
        with pytest.raises(Ambiguous):
            resolve_one(bank.stores.code, "send")
