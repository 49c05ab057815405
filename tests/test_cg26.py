"""Call-graph rules added in session 26 (issue 14), each an exact edge list on a real git
repository in a tmp dir, indexed for real."""

from __future__ import annotations

from pathlib import Path

from cgutil import ABC_M, calls_from, edges
from conftest import make_repo

ABCMETA = """import abc
from abc import ABCMeta


class Base(metaclass=abc.ABCMeta):
    def run(self):
        return self.step()

    @abc.abstractmethod
    def step(self):
        ...


class Mid(Base):
    pass


class Leaf(Mid):
    def step(self):
        return 3


class Plain(object, metaclass=ABCMeta):
    def go(self):
        return self.hook()

    @abc.abstractmethod
    def hook(self):
        ...


class Impl(Plain):
    def hook(self):
        return 4
"""


def test_abstract_method_of_an_abcmeta_class_is_no_target(tmp_path: Path) -> None:
    """``metaclass=ABCMeta`` (either spelling, beside other bases) enforces
    ``@abstractmethod`` as ``ABC`` does: ``Mid`` inherits ``Base.step`` without overriding
    it, so it is never instantiated and ``self.step()`` in ``Base.run`` runs only
    ``Leaf.step``."""
    repo = make_repo(tmp_path / "r", {"a.py": ABCMETA})
    got = [e for e in edges(repo) if e.startswith(("a.py::Base.run ", "a.py::Plain.go "))]
    assert got == ["a.py::Base.run -> a.py::Leaf.step @7",
                   "a.py::Plain.go -> a.py::Impl.hook @25"]


def test_other_metaclass_keeps_the_abstract_method(tmp_path: Path) -> None:
    """A metaclass other than ``ABCMeta`` enforces nothing: the inherited abstract
    method of ``Mid`` stays a target (it can run)."""
    src = ABCMETA.replace("metaclass=abc.ABCMeta", "metaclass=type")
    got = calls_from(tmp_path, {"a.py": src}, "a.py::Base.run")
    assert got == ["a.py::Base.run -> a.py::Base.step @7",
                   "a.py::Base.run -> a.py::Leaf.step @7"]


def test_package_binding_hides_the_submodule_of_that_name(tmp_path: Path) -> None:
    """``tracer = Tracer()`` in ``tracing/__init__.py`` after ``from .tracer import
    Tracer``: ``from tracing import tracer`` is the instance (the package attribute the
    assignment rebinds), not the submodule ``tracing/tracer.py``."""
    files = {"tracing/__init__.py": "from .tracer import Tracer\n\ntracer = Tracer()\n",
             "tracing/tracer.py": "class Tracer:\n    def start(self):\n        return 1\n",
             "main.py": "from tracing import tracer\n\n\ndef use():\n    return tracer.start()\n"}
    assert calls_from(tmp_path, files, "main.py::use") == [
        "main.py::use -> tracing/tracer.py::Tracer.start @5"]


COLLECTIONS = """from typing import Iterator, Sequence


class Job:
    def run(self):
        return 1


class Table:
    def rows(self) -> Iterator[Job]:
        yield Job()

    def __iter__(self):
        return self.rows()


def typed(jobs: list[Job], more: Sequence[Job] | None = None):
    for j in jobs:
        j.run()
    return [m.run() for m in more]


def made() -> list[Job]:
    return []


def declared():
    xs: list[Job] = []
    for x in xs:
        x.run()
    for y in made():
        y.run()
    for r in Table():
        r.run()


def keys(people):
    best = min(people, key=lambda p: p.run())
    return best.run()


keys([Job()])
"""


def test_elements_of_declared_collections_iterators_and_min(tmp_path: Path) -> None:
    """An element of a parameter declared ``list[Job]`` / ``Sequence[Job] | None``, of a
    variable declared ``list[Job]``, of a function declared ``-> list[Job]``, of an
    instance whose ``__iter__`` returns a generator; ``min(xs, key=lambda p: …)`` is an
    element of ``xs`` and so is the lambda's ``p`` (``xs`` from the call site)."""
    repo = make_repo(tmp_path / "r", {"a.py": COLLECTIONS})
    got = [e for e in edges(repo) if e.split(" -> ")[0] in (
        "a.py::typed", "a.py::declared", "a.py::keys")]
    assert got == [
        "a.py::declared -> a.py::Job.run @30", "a.py::declared -> a.py::Job.run @32",
        "a.py::declared -> a.py::Job.run @34", "a.py::declared -> a.py::Table @33",
        "a.py::declared -> a.py::made @31",
        "a.py::keys -> a.py::Job.run @38", "a.py::keys -> a.py::Job.run @39",
        "a.py::typed -> a.py::Job.run @19", "a.py::typed -> a.py::Job.run @20"]


ENUMS = """from enum import Enum


class Op(Enum):
    ADD = "+"
    MUL = "*"

    def apply(self, a, b):
        return a


class Kind(Op):
    pass


class Event:
    kind = Op.ADD

    def go(self):
        return self.kind.apply(1, 2)


def use():
    Op.MUL.apply(1, 2)
    return [o.apply(1, 2) for o in Op]


class Plain:
    MUL = None

    def apply(self):
        return 1


def plain():
    return Plain.MUL.apply()
"""


def test_enum_members_are_instances_of_their_class(tmp_path: Path) -> None:
    """``Op.MUL`` of an ``Enum`` class is an ``Op`` (so ``Op.MUL.apply()`` runs
    ``Op.apply``), iterating ``Op`` gives its members, and a class attribute bound to a
    member carries it; a plain class's attribute is no instance of it."""
    repo = make_repo(tmp_path / "r", {"a.py": ENUMS})
    got = [e for e in edges(repo) if e.split(" -> ")[0] in (
        "a.py::use", "a.py::Event.go", "a.py::plain")]
    assert got == ["a.py::Event.go -> a.py::Op.apply @20",
                   "a.py::use -> a.py::Op.apply @24", "a.py::use -> a.py::Op.apply @25"]


UNPACK = ABC_M + """

SCHEMA = [("port", parse_int), ("name", str)]


def pipeline():
    first, *middle, last = [A(), B(), B(), C()]
    first.m()
    for s in middle:
        s.m()
    last.m()


def first_converter():
    name, fn = SCHEMA[0]
    return fn("42")


def split():
    return A(), C()


def inspect():
    parts = split()
    return parts[1].m()


def make_counter():
    def inc():
        return 1

    def reset():
        return 0

    return {"inc": inc, "reset": reset}


def use():
    c = make_counter()
    c["inc"]()
    return c["reset"]()
"""


def test_star_unpacking_positions_and_returned_dict_keys(tmp_path: Path) -> None:
    """``first, *middle, last = [A(), B(), B(), C()]``; ``name, fn = SCHEMA[0]`` of a list
    of tuples (position 0's own tuple, not every row's); ``parts[1]`` of a returned
    tuple; ``c["inc"]()`` of a returned dict literal."""
    repo = make_repo(tmp_path / "r", {"a.py": UNPACK})
    got = [e for e in edges(repo) if e.split(" -> ")[0] in (
        "a.py::pipeline", "a.py::first_converter", "a.py::inspect", "a.py::use")]
    assert got == [
        "a.py::first_converter -> a.py::parse_int @33",
        "a.py::inspect -> a.py::C.m @42", "a.py::inspect -> a.py::split @41",
        "a.py::pipeline -> a.py::A @24", "a.py::pipeline -> a.py::A.m @25",
        "a.py::pipeline -> a.py::B @24", "a.py::pipeline -> a.py::B @24",
        "a.py::pipeline -> a.py::B.m @27", "a.py::pipeline -> a.py::C @24",
        "a.py::pipeline -> a.py::C.m @28",
        "a.py::use -> a.py::make_counter @56", "a.py::use -> a.py::make_counter.inc @57",
        "a.py::use -> a.py::make_counter.reset @58"]


MORE = """from contextlib import ExitStack


class Res:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def use(self):
        return 1


class W:
    def write(self):
        return 2


WRITERS = {"w": W}


def export_all():
    return {name: cls().write() for name, cls in WRITERS.items()}


def made():
    items = [Res() for _ in range(2)]
    for it in items:
        it.use()


def stacked():
    with ExitStack() as stack:
        r = stack.enter_context(Res())
        return r.use()
"""


def test_comprehension_pairs_list_comprehensions_and_enter_context(tmp_path: Path) -> None:
    """``{k: cls() for k, cls in d.items()}`` (``cls`` is a plain variable outside a
    class); an element of a name bound to a list comprehension; what
    ``stack.enter_context(cm)`` returns."""
    repo = make_repo(tmp_path / "r", {"a.py": MORE})
    got = [e for e in edges(repo) if e.split(" -> ")[0] in (
        "a.py::export_all", "a.py::made", "a.py::stacked")]
    assert got == [
        "a.py::export_all -> a.py::W @24", "a.py::export_all -> a.py::W.write @24",
        "a.py::made -> a.py::Res @28", "a.py::made -> a.py::Res.use @30",
        "a.py::stacked -> a.py::Res @35", "a.py::stacked -> a.py::Res.use @36"]


def test_wildcard_reexport_in_a_package_init(tmp_path: Path) -> None:
    """``from pkg import *`` where ``pkg/__init__.py`` does ``from .ops import *``: the
    names of ops are the package's."""
    files = {"pkg/__init__.py": "from .ops import *\n",
             "pkg/ops.py": "def dot(a, b):\n    return 1\n\n\ndef _hidden():\n    return 2\n",
             "main.py": "from pkg import *\n\n\ndef main():\n    dot(1, 2)\n    _hidden()\n"}
    assert calls_from(tmp_path, files, "main.py::main") == ["main.py::main -> pkg/ops.py::dot @5"]


def test_container_methods_of_an_instance_and_unknown_index_of_appended(tmp_path: Path
                                                                         ) -> None:
    """``p.add(f)`` on ``p = Pipeline()`` in another file passes ``f`` to
    ``Pipeline.add`` (``add`` is a method here, not a set's); ``self.layers[i]`` (an
    unknown index) reads what ``self.layers.append(layer)`` added."""
    files = {"pipe.py": ("class Pipeline:\n    def __init__(self):\n        self.stages = []\n\n"
                         "    def add(self, stage):\n        self.stages.append(stage)\n"
                         "        return self\n\n    def run(self, i):\n"
                         "        for s in self.stages:\n            s()\n"
                         "        return self.stages[i]()\n"),
             "main.py": ("from pipe import Pipeline\nfrom steps import one, two\n\n\n"
                         "def main():\n    p = Pipeline()\n    p.add(one).add(two)\n"
                         "    return p.run(0)\n"),
             "steps.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n"}
    assert calls_from(tmp_path, files, "pipe.py::Pipeline.run") == [
        "pipe.py::Pipeline.run -> steps.py::one @11", "pipe.py::Pipeline.run -> steps.py::one @12",
        "pipe.py::Pipeline.run -> steps.py::two @11", "pipe.py::Pipeline.run -> steps.py::two @12"]


def test_global_rebinding_in_a_function_adds_a_value(tmp_path: Path) -> None:
    """``_cache = Null()`` at module level and ``global _cache; _cache = Memory()`` in
    ``configure``: a function reading ``_cache`` may see either (configure may or may not
    have run)."""
    src = ("class Null:\n    def get(self):\n        return 0\n\n\nclass Memory:\n"
           "    def get(self):\n        return 1\n\n\n_cache = Null()\n\n\n"
           "def configure():\n    global _cache\n    _cache = Memory()\n\n\n"
           "def compute():\n    return _cache.get()\n")
    assert calls_from(tmp_path, {"a.py": src}, "a.py::compute") == [
        "a.py::compute -> a.py::Memory.get @20", "a.py::compute -> a.py::Null.get @20"]


def test_callback_passed_to_a_method_of_an_attribute(tmp_path: Path) -> None:
    """``self.retry.call(self.transport.request, "GET")`` in one file, and
    ``RetryPolicy.call(self, fn, *args)`` running ``fn(*args)`` in another: ``fn`` is
    the bound method passed."""
    files = {"policy.py": ("class RetryPolicy:\n    def call(self, fn, *args):\n"
                           "        return fn(*args)\n"),
             "client.py": ("from policy import RetryPolicy\n\n\nclass Transport:\n"
                           "    def request(self, verb):\n        return verb\n\n\n"
                           "class Client:\n    def __init__(self):\n"
                           "        self.transport = Transport()\n"
                           "        self.retry = RetryPolicy()\n\n"
                           "    def get(self):\n"
                           "        return self.retry.call(self.transport.request, 'GET')\n")}
    assert calls_from(tmp_path, files, "policy.py::RetryPolicy.call") == [
        "policy.py::RetryPolicy.call -> client.py::Transport.request @3"]


def test_class_attribute_a_subclass_rebinds(tmp_path: Path) -> None:
    """``handler_class = JsonHandler`` in ``Endpoint`` and ``handler_class = XmlHandler``
    in a subclass (another file): ``self.handler_class(request)`` in ``Endpoint.dispatch``
    constructs either, and ``handler.handle()`` runs either's method."""
    files = {"h.py": ("class JsonHandler:\n    def __init__(self, r):\n        self.r = r\n\n"
                      "    def handle(self):\n        return 1\n\n\n"
                      "class XmlHandler(JsonHandler):\n    def handle(self):\n        return 2\n"),
             "e.py": ("from h import JsonHandler\n\n\nclass Endpoint:\n"
                      "    handler_class = JsonHandler\n\n    def dispatch(self, r):\n"
                      "        handler = self.handler_class(r)\n        return handler.handle()\n"),
             "x.py": ("from e import Endpoint\nfrom h import XmlHandler\n\n\n"
                      "class XmlEndpoint(Endpoint):\n    handler_class = XmlHandler\n")}
    assert calls_from(tmp_path, files, "e.py::Endpoint.dispatch") == [
        "e.py::Endpoint.dispatch -> h.py::JsonHandler @8",
        "e.py::Endpoint.dispatch -> h.py::JsonHandler.handle @9",
        "e.py::Endpoint.dispatch -> h.py::XmlHandler @8",
        "e.py::Endpoint.dispatch -> h.py::XmlHandler.handle @9"]


def test_registry_filled_by_a_decorator_factory_in_another_file(tmp_path: Path) -> None:
    """``@register("upper") class UpperCodec`` in one file, ``register(name)`` returning
    ``deco(cls)`` that stores ``cls`` in a module dict, and ``get(name)`` returning
    ``_CODECS[name]()``: ``get`` constructs the registered classes, and a caller of
    ``get`` reaches their methods."""
    files = {"registry.py": ("_CODECS = {}\n\n\ndef register(name):\n    def deco(cls):\n"
                             "        _CODECS[name] = cls\n        return cls\n    return deco\n\n\n"
                             "def get(name):\n    return _CODECS[name]()\n"),
             "builtin.py": ("from registry import register\n\n\n@register('upper')\n"
                            "class UpperCodec:\n    def encode(self, s):\n        return s\n"),
             "main.py": ("import registry\nimport builtin  # noqa: F401\n\n\ndef main():\n"
                         "    return registry.get('upper').encode('a')\n")}
    repo = make_repo(tmp_path / "r", files)
    got = [e for e in edges(repo) if e.split(" -> ")[0] in ("registry.py::get", "main.py::main")]
    assert got == ["main.py::main -> builtin.py::UpperCodec.encode @6",
                   "main.py::main -> registry.py::get @6",
                   "registry.py::get -> builtin.py::UpperCodec @12"]


def test_views_registered_by_a_method_decorator_factory(tmp_path: Path) -> None:
    """``@app.route("/")`` on functions nested in ``register_views`` (another file):
    ``App.route`` returns ``register(view)``, which stores the view in
    ``self.routes[(m, path)]``; ``for (m, p), view in self.routes.items(): view()`` in
    ``App.handle`` runs the registered (nested) functions."""
    files = {"fw.py": ("class App:\n    def __init__(self):\n        self.routes = {}\n\n"
                       "    def route(self, path):\n        def register(view):\n"
                       "            self.routes[('GET', path)] = view\n            return view\n"
                       "        return register\n\n    def handle(self):\n"
                       "        for (m, p), view in self.routes.items():\n"
                       "            view()\n\n\napp = App()\n"),
             "views.py": ("from fw import app\n\n\ndef register_views():\n"
                          "    @app.route('/')\n    def index():\n        return 1\n")}
    assert calls_from(tmp_path, files, "fw.py::App.handle") == [
        "fw.py::App.handle -> views.py::register_views.index @13"]


def test_defaults_run_where_the_function_is_defined(tmp_path: Path) -> None:
    """``def render(name, loader=DefaultLoader())``: the construction in the default runs
    at module level (the caller is the module), and ``loader.load()`` in the body runs
    ``DefaultLoader.load`` (the default's value, no call site passing another)."""
    src = ("class DefaultLoader:\n    def load(self, name):\n        return name\n\n\n"
           "def render(name, loader=DefaultLoader()):\n    return loader.load(name)\n\n\n"
           "render('c')\n")
    repo = make_repo(tmp_path / "r", {"a.py": src})
    assert edges(repo) == ["a.py:: -> a.py::DefaultLoader @6", "a.py:: -> a.py::render @10",
                           "a.py::render -> a.py::DefaultLoader.load @7"]


def test_class_attribute_none_in_the_base_set_by_subclasses(tmp_path: Path) -> None:
    """``model = None`` in ``ListView`` and ``model = Article`` in a subclass in another
    file: ``self.model.all()`` in ``ListView`` runs ``Article.all``."""
    files = {"views.py": ("class ListView:\n    model = None\n\n    def items(self):\n"
                          "        return self.model.all()\n"),
             "models.py": "class Article:\n    @classmethod\n    def all(cls):\n        return []\n",
             "main.py": ("from views import ListView\nfrom models import Article\n\n\n"
                         "class ArticleList(ListView):\n    model = Article\n")}
    assert calls_from(tmp_path, files, "views.py::ListView.items") == [
        "views.py::ListView.items -> models.py::Article.all @5"]


def test_a_function_decorated_into_an_instance_is_that_instance(tmp_path: Path) -> None:
    """``@group()`` returning ``Group(f.__name__, f)`` (click's pattern): ``cli`` names a
    ``Group``, so ``cli.add_command(…)`` runs ``Group.add_command``; the command's
    callback is the decorated function (passed through the decorator's parameter)."""
    files = {"core.py": ("class Command:\n    def __init__(self, name, callback):\n"
                         "        self.callback = callback\n\n    def run(self):\n"
                         "        return self.callback()\n\n\nclass Group(Command):\n"
                         "    def add_command(self, cmd):\n        return cmd\n"),
             "deco.py": ("from core import Command, Group\n\n\ndef command():\n"
                         "    def decorator(f):\n        return Command(f.__name__, f)\n"
                         "    return decorator\n\n\ndef group():\n    def decorator(f):\n"
                         "        return Group(f.__name__, f)\n    return decorator\n"),
             "main.py": ("from deco import command, group\n\n\n@group()\ndef cli():\n"
                         "    return 0\n\n\n@command()\ndef migrate():\n    return 1\n\n\n"
                         "cli.add_command(migrate)\n")}
    repo = make_repo(tmp_path / "r", files)
    got = [e for e in edges(repo) if e.split(" -> ")[0] in ("core.py::Command.run", "main.py::")]
    assert got == ["core.py::Command.run -> main.py::cli @6",  # (Group inherits __init__)
                   "core.py::Command.run -> main.py::migrate @6",
                   "main.py:: -> core.py::Group.add_command @14",
                   "main.py:: -> deco.py::command @9", "main.py:: -> deco.py::command.decorator @9",
                   "main.py:: -> deco.py::group @4", "main.py:: -> deco.py::group.decorator @4"]


def test_a_lambda_in_a_dispatch_table_leaves_the_other_values_known(tmp_path: Path) -> None:
    """``self.ops = {"+": add, "-": sub, "*": lambda a, b: …}``: ``self.ops[op](a, b)``
    runs add or sub (a lambda is no callee to name; it no longer makes the table
    unknown)."""
    src = ("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\n"
           "class Calc:\n    def __init__(self):\n"
           "        self.ops = {'+': add, '-': sub, '*': lambda a, b: a * b}\n\n"
           "    def apply(self, op, a, b):\n        return self.ops[op](a, b)\n")
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Calc.apply") == [
        "a.py::Calc.apply -> a.py::add @14", "a.py::Calc.apply -> a.py::sub @14"]


def test_an_odd_dict_key_with_a_colon_is_no_slice() -> None:
    """A dict key that is a string holding ``:`` and escaped quotes (test_base64.py of the
    stdlib) is no slice: extraction must not fail on it (it raised IndexError once)."""
    from hindsight.codeindex.worker import parse_bytes

    src = ("def f():\n    return 1\n\n\nd = {b'a\\':b': f, b\"x:y\": f}\n"
           "e = {(1, 2): f}\nxs = [f, f][0:1]\n")
    r = parse_bytes("a.py", "python", src.encode())
    assert not r.error and [s.local for s in r.symbols] == ["f"]
    assert ("", "d[?]", "f", 5) in r.facts and ("", "xs", "[]", 7) not in r.facts
