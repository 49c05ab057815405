"""Adversarial tests of the session-26 call-graph rules (tests/test_cg26.py): programs
where a rule gives an edge the program can never take, or misses one it claims to find.
Every expected list was checked against the program's real run (sys.setprofile tracing).
A test marked ``xfail(strict=True)`` documents a current defect."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import ABC_M, calls_from

# --- rule 12: a function whose outermost decorator returns an instance -----------------

CLICK = {
    "core.py": '''class Command:
    def __init__(self, name, callback):
        self.name = name
        self.callback = callback

    def invoke(self):
        return self.callback()

    def __call__(self):
        return self.invoke()


def group():
    def decorator(f):
        return Command(f.__name__, f)
    return decorator


def option(*names):
    def decorator(f):
        return f
    return decorator


def traced(f):
    def wrapper(*a, **k):
        return f(*a, **k)
    return wrapper
''',
    "main.py": '''from core import group, option, traced


@group()
@option("--x")
def cli():
    return 0


@traced
@group()
def tool():
    return 2


if __name__ == "__main__":
    cli()
    tool()
''',
}


def test_calling_a_function_decorated_into_an_instance_runs_its_call(tmp_path: Path) -> None:
    """``cli`` names ``Command(f.__name__, f)``: ``cli()`` runs ``Command.__call__``
    (which later runs the function through ``invoke``), never ``cli`` directly."""
    got = calls_from(tmp_path, CLICK, "main.py::")
    assert [e for e in got if e.endswith("@17")] == ["main.py:: -> core.py::Command.__call__ @17"]


@pytest.mark.xfail(strict=True, reason="rule 12: with a function-returning decorator "
                   "(traced) outermost over @group(), the wrapper's `f(...)` is the Command "
                   "instance, yet the index calls the decorated function directly")
def test_wrapper_over_a_decorator_returning_an_instance(tmp_path: Path) -> None:
    """``@traced @group() def tool``: ``tool`` is ``traced.wrapper``; its ``f`` is the
    ``Command``, so ``f()`` runs ``Command.__call__``."""
    got = calls_from(tmp_path, CLICK, "core.py::traced.wrapper", "main.py::")
    assert [e for e in got if not e.endswith(("@4", "@5", "@10", "@11", "@17"))] == [
        "core.py::traced.wrapper -> core.py::Command.__call__ @27",
        "main.py:: -> core.py::traced.wrapper @18"]


def test_decorator_that_registers_an_instance_but_returns_the_function(tmp_path: Path
                                                                         ) -> None:
    """``@command`` appending ``Command(f.__name__, f)`` to a list and returning ``f``:
    the name stays the function (passes)."""
    files = {"core.py": CLICK["core.py"] + '''

COMMANDS = []


def command(f):
    COMMANDS.append(Command(f.__name__, f))
    return f
''',
             "main.py": '''from core import command


@command
def migrate():
    return 1


def main():
    return migrate()
'''}
    assert calls_from(tmp_path, files, "main.py::main") == ["main.py::main -> main.py::migrate @10"]


def test_module_list_of_instances_filled_by_a_decorator(tmp_path: Path) -> None:
    """Was a strict xfail (rules 11/12) until session 32: an imported module table its
    functions fill is read through them (classes.import_binding)."""
    files = {"core.py": CLICK["core.py"] + '''

COMMANDS = []


def command(f):
    COMMANDS.append(Command(f.__name__, f))
    return f
''',
             "main.py": ("from core import command, COMMANDS\n\n\n@command\ndef migrate():\n"
                         "    return 1\n\n\ndef run_all():\n    for c in COMMANDS:\n"
                         "        c.invoke()\n")}
    assert calls_from(tmp_path, files, "main.py::run_all") == [
        "main.py::run_all -> core.py::Command.invoke @11"]


# --- rule 2: a package binding hides the submodule of that name ---------------------------

def test_package_reexports_an_instance_named_like_its_submodule(tmp_path: Path) -> None:
    files = {"tracing/__init__.py": "from .tracer import tracer\n",
             "tracing/tracer.py": ("class Tracer:\n    def start(self):\n        return 1\n\n\n"
                                   "def start():\n    return 2\n\n\ntracer = Tracer()\n"),
             "main.py": "from tracing import tracer\n\n\ndef use():\n    return tracer.start()\n"}
    assert calls_from(tmp_path, files, "main.py::use") == [
        "main.py::use -> tracing/tracer.py::Tracer.start @5"]


def test_package_binds_the_submodule_name_to_a_function(tmp_path: Path) -> None:
    """``from .helpers import helpers`` (a function named like its module): the function
    (passes)."""
    files = {"util/__init__.py": "from .helpers import helpers\n",
             "util/helpers.py": "def helpers():\n    return 1\n",
             "main.py": "from util import helpers\n\n\ndef use():\n    return helpers()\n"}
    assert calls_from(tmp_path, files, "main.py::use") == [
        "main.py::use -> util/helpers.py::helpers @5"]


@pytest.mark.xfail(strict=True, reason="rule 2: a binding made before the submodule's first "
                   "import is replaced by the submodule (the import sets the package "
                   "attribute); the index keeps the list and misses the module function")
def test_submodule_import_after_the_binding_rebinds_the_name(tmp_path: Path) -> None:
    files = {"signals/__init__.py": ("handlers = []\n\n\ndef connect(fn):\n"
                                     "    handlers.append(fn)\n    return fn\n\n\n"
                                     "from .handlers import on_save  # noqa: E402\n"),
             "signals/handlers.py": "def on_save():\n    return 1\n\n\ndef on_delete():\n    return 2\n",
             "main.py": "from signals import handlers\n\n\ndef use():\n    return handlers.on_delete()\n"}
    assert calls_from(tmp_path, files, "main.py::use") == [
        "main.py::use -> signals/handlers.py::on_delete @5"]


# --- rule 4: enum members --------------------------------------------------------------

ENUM_CODEC = '''from enum import Enum


class JsonCodec:
    def encode(self, s):
        return "j" + s


class XmlCodec:
    def encode(self, s):
        return "x" + s


class Codec(Enum):
    JSON = JsonCodec()
    XML = XmlCodec()

    def encode(self, s):
        return self.value.encode(s)


def use():
    return Codec.JSON.encode("a")
'''


def test_enum_member_with_an_instance_value_is_a_member(tmp_path: Path) -> None:
    assert calls_from(tmp_path, {"a.py": ENUM_CODEC}, "a.py::use") == [
        "a.py::use -> a.py::Codec.encode @23"]


def test_enum_value_of_a_member_is_its_assigned_value(tmp_path: Path) -> None:
    """``self.value`` in the enum's method, and ``Codec.XML.value`` outside, are the
    values the members were assigned (any member's: fixed in session 27)."""
    src = ENUM_CODEC + "\n\ndef raw():\n    return Codec.XML.value.encode('a')\n\n\nuse()\n"
    assert calls_from(tmp_path, {"a.py": src}, "a.py::Codec.encode", "a.py::raw") == [
        "a.py::Codec.encode -> a.py::JsonCodec.encode @19",
        "a.py::Codec.encode -> a.py::XmlCodec.encode @19",
        "a.py::raw -> a.py::JsonCodec.encode @27", "a.py::raw -> a.py::XmlCodec.encode @27"]


def test_enum_methods_from_a_member_less_enum_base(tmp_path: Path) -> None:
    """``class Color(Base)`` where ``Base(Enum)`` has only methods: members and iteration
    of ``Color`` reach ``Base.describe``; a plain class attribute bound to a class in an
    enum does not hide the enum's method (passes)."""
    src = '''from enum import Enum


class Base(Enum):
    def describe(self):
        return self.name


class Color(Base):
    RED = 1
    GREEN = 2


def use():
    Color.RED.describe()
    return [c.describe() for c in Color]
'''
    assert calls_from(tmp_path, {"a.py": src}, "a.py::use") == [
        "a.py::use -> a.py::Base.describe @15", "a.py::use -> a.py::Base.describe @16"]


# --- rule 10: self.<attr> from subclasses' class bodies -----------------------------------

def test_subclass_binding_attr_but_overriding_the_method(tmp_path: Path) -> None:
    files = {"views.py": ("class ListView:\n    model = None\n\n    def items(self):\n"
                          "        return self.model.all()\n"),
             "models.py": ("class Article:\n    @classmethod\n    def all(cls):\n        return []\n\n"
                           "    @classmethod\n    def published(cls):\n        return []\n"),
             "main.py": ("from views import ListView\nfrom models import Article\n\n\n"
                         "class ArticleList(ListView):\n    model = Article\n\n"
                         "    def items(self):\n        return self.model.published()\n")}
    assert calls_from(tmp_path, files, "views.py::ListView.items") == []


def test_attr_bound_by_a_mixin_of_a_subclass(tmp_path: Path) -> None:
    files = {"views.py": ("class ListView:\n    model = None\n\n    def items(self):\n"
                          "        return self.model.all()\n"),
             "models.py": "class Comment:\n    @classmethod\n    def all(cls):\n        return []\n",
             "main.py": ("from views import ListView\nfrom models import Comment\n\n\n"
                         "class CommentMixin:\n    model = Comment\n\n\n"
                         "class CommentList(CommentMixin, ListView):\n    pass\n\n\n"
                         "CommentList().items()\n")}
    assert calls_from(tmp_path, files, "views.py::ListView.items") == [
        "views.py::ListView.items -> models.py::Comment.all @5"]


# --- rule 6: wildcard re-exports ---------------------------------------------------------

def test_later_wildcard_reexport_shadows_an_earlier_one(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "from .v1 import *\nfrom .v2 import *\n",
             "pkg/v1.py": "def run():\n    return 1\n\n\ndef only_v1():\n    return 11\n",
             "pkg/v2.py": "def run():\n    return 2\n",
             "main.py": "from pkg import *\n\n\ndef main():\n    run()\n    only_v1()\n"}
    assert calls_from(tmp_path, files, "main.py::main") == [
        "main.py::main -> pkg/v1.py::only_v1 @6", "main.py::main -> pkg/v2.py::run @5"]


def test_wildcard_reexport_respects_all(tmp_path: Path) -> None:
    """``__all__ = ['dot']`` in the re-exported module: ``helper`` stays the importer's
    own function defined before the wildcard import (passes)."""
    files = {"lib/__init__.py": "from .ops import *\n",
             "lib/ops.py": "__all__ = ['dot']\n\n\ndef dot():\n    return 1\n\n\ndef helper():\n    return 2\n",
             "main.py": ("def helper():\n    return 0\n\n\nfrom lib import *  # noqa: E402\n\n\n"
                         "def main():\n    dot()\n    helper()\n")}
    assert calls_from(tmp_path, files, "main.py::main") == [
        "main.py::main -> lib/ops.py::dot @9", "main.py::main -> main.py::helper @10"]


@pytest.mark.xfail(strict=True, reason="rule 6: `for k, v in d.items()` in a comprehension "
                   "where the keys are classes: k() and k().m() are unresolved")
def test_comprehension_over_items_with_class_keys(tmp_path: Path) -> None:
    src = ("class A:\n    def m(self):\n        return 1\n\n\nclass B(A):\n    def m(self):\n"
           "        return 2\n\n\nREG = {A: 'a', B: 'b'}\n\n\ndef by_items():\n"
           "    return [k().m() for k, v in REG.items()]\n")
    assert calls_from(tmp_path, {"a.py": src}, "a.py::by_items") == [
        "a.py::by_items -> a.py::A @15", "a.py::by_items -> a.py::A.m @15",
        "a.py::by_items -> a.py::B @15", "a.py::by_items -> a.py::B.m @15"]


def test_enter_context_returns_what_enter_returns(tmp_path: Path) -> None:
    """``stack.enter_context(Pool())`` is what ``Pool.__enter__`` returns (a ``Conn``),
    not the pool, though both have ``query`` (passes)."""
    src = '''from contextlib import ExitStack


class Conn:
    def query(self):
        return 1


class Pool:
    def __enter__(self):
        return Conn()

    def __exit__(self, *a):
        return False

    def query(self):
        return 2


def work():
    with ExitStack() as stack:
        c = stack.enter_context(Pool())
        return c.query()
'''
    assert calls_from(tmp_path, {"a.py": src}, "a.py::work") == [
        "a.py::work -> a.py::Conn.query @23", "a.py::work -> a.py::Pool @22"]


# --- rule 5: unpacking and positions ---------------------------------------------------

UNPACK = ABC_M + '''

def parse_flag(s):
    return s == "1"


SCHEMA = [("port", parse_int), ("debug", parse_flag)]


def split():
    return A(), B(), C()


def last_converter():
    name, fn = SCHEMA[-1]
    return fn("1")


def last_part():
    parts = split()
    return parts[-1].m()


def star_of_call():
    head, *rest = split()
    for r in rest:
        r.m()
'''


def test_negative_index_positions(tmp_path: Path) -> None:
    """``SCHEMA[-1]`` of a list of tuples and ``parts[-1]`` of a returned tuple are the
    last position (fixed in session 27)."""
    assert calls_from(tmp_path, {"a.py": UNPACK}, "a.py::last_converter", "a.py::last_part") == [
        "a.py::last_converter -> a.py::parse_flag @33",
        "a.py::last_part -> a.py::C.m @38", "a.py::last_part -> a.py::split @37"]


def test_star_unpacking_of_a_returned_tuple(tmp_path: Path) -> None:
    """``head, *rest = split()``: rest holds the positions after the first (session 27)."""
    assert calls_from(tmp_path, {"a.py": UNPACK}, "a.py::star_of_call") == [
        "a.py::star_of_call -> a.py::B.m @44", "a.py::star_of_call -> a.py::C.m @44",
        "a.py::star_of_call -> a.py::split @42"]


def test_negative_index_after_appends_and_rebinding(tmp_path: Path) -> None:
    """``xs[-1]`` after ``xs.append(B())`` may be any element (the append moved the end);
    after ``xs = [C()]`` it is C again; a module list's ``KINDS[-1]`` is its last class."""
    src = ABC_M + (
        "\n\ndef appended():\n    xs = [A()]\n    xs.append(B())\n    return xs[-1].m()\n"
        "\n\ndef rebound():\n    xs = [A()]\n    xs.append(B())\n    xs = [C()]\n"
        "    return xs[-1].m()\n\n\nKINDS = [A, C]\n\n\n"
        "def last_kind():\n    return KINDS[-1]().m()\n")
    got = calls_from(tmp_path, {"a.py": src}, "a.py::appended", "a.py::rebound",
                     "a.py::last_kind")
    assert [e for e in got if ".m @" in e] == [
        "a.py::appended -> a.py::A.m @23", "a.py::appended -> a.py::B.m @23",
        "a.py::last_kind -> a.py::C.m @37", "a.py::rebound -> a.py::C.m @30"]


def test_returned_dict_key_rebound_by_the_caller(tmp_path: Path) -> None:
    """``ops["inc"] = ops["dec"]`` before ``ops["inc"]()``: only ``dec`` (passes)."""
    src = ('def make_ops():\n    def inc():\n        return 1\n\n    def dec():\n        return -1\n\n'
           '    return {"inc": inc, "dec": dec}\n\n\ndef use():\n    ops = make_ops()\n'
           '    ops["inc"] = ops["dec"]\n    return ops["inc"]()\n')
    assert calls_from(tmp_path, {"a.py": src}, "a.py::use") == [
        "a.py::use -> a.py::make_ops @12", "a.py::use -> a.py::make_ops.dec @14"]
