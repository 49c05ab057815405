"""Named-prefix dispatch (``getattr(self, "visit_" + kind, self.generic_visit)``): every
method so named in the class tree is a target, up to ``values.MAX_WIDE`` (16) of them, not
only ``MAX_TARGETS`` (4): ``ast.NodeVisitor`` and ``cmd.Cmd`` tables are written to be
dispatched to (callgraph_blind7's config visitor has five). The name may be built in a
local variable first (``method = "visit_" + type(node).__name__``; callgraph_blind6), by
``+``, an f-string, ``%`` or ``str.format``; a variable bound more than once, or in a loop,
gives no prefix (session 40)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import edges
from conftest import make_repo

VISITOR = """class Visitor:
    def visit(self, node):
        method = {form}
        visitor = getattr(self, method, self.generic_visit)
        return visitor(node)

    def generic_visit(self, node):
        return None


class Evaluator(Visitor):
    def visit_Num(self, node):
        return node

    def visit_Add(self, node):
        return node

    def visit_Mul(self, node):
        return node

    def summary(self):
        return None


class Printer(Visitor):
    def visit_Num(self, node):
        return node

    def visit_Neg(self, node):
        return node
"""

ALL = sorted([
    "v.py::Visitor.visit -> v.py::Evaluator.visit_Add @5",
    "v.py::Visitor.visit -> v.py::Evaluator.visit_Mul @5",
    "v.py::Visitor.visit -> v.py::Evaluator.visit_Num @5",
    "v.py::Visitor.visit -> v.py::Printer.visit_Neg @5",
    "v.py::Visitor.visit -> v.py::Printer.visit_Num @5",
    "v.py::Visitor.visit -> v.py::Visitor.generic_visit @5",
])


@pytest.mark.parametrize("form", [
    '"visit_" + type(node).__name__',
    'f"visit_{node.kind}"',
    '"visit_%s" % node.kind',
    '"visit_{}".format(node.kind)',
    '"visit_{kind}".format(kind=node.kind)',
])
def test_prefix_through_a_local_reaches_every_subclass_method(tmp_path: Path, form: str) -> None:
    found = sorted(e for e in edges(make_repo(tmp_path, {"v.py": VISITOR.format(form=form)}))
                   if "Visitor.visit ->" in e)
    assert found == ALL


@pytest.mark.parametrize("form", [
    '"visit_" + node.kind\n        method = "summary"',  # bound twice
    '"visit_{}_node".format(node.kind)',  # text after the field: no prefix
    '"visit_%s_%s" % (node.kind, node.op)',
    '"visit_" + node.kind\n        for method in node.names:\n            pass',
])
def test_no_prefix_when_the_name_is_not_one(tmp_path: Path, form: str) -> None:
    found = sorted(e for e in edges(make_repo(tmp_path, {"v.py": VISITOR.format(form=form)}))
                   if "Visitor.visit ->" in e)
    line = 5 + form.count("\n")  # `return visitor(node)`
    assert found == [f"v.py::Visitor.visit -> v.py::Visitor.generic_visit @{line}"]


def test_more_than_max_wide_methods_is_unknown(tmp_path: Path) -> None:
    many = "".join(f"    def visit_k{i}(self, node):\n        return node\n\n" for i in range(17))
    src = VISITOR.format(form='"visit_" + node.kind') + "\n\nclass Big(Visitor):\n" + many
    found = sorted(e for e in edges(make_repo(tmp_path, {"v.py": src})) if "Visitor.visit ->" in e)
    # 22 methods named visit_…: a dispatch that could reach anything; the default stays
    assert found == ["v.py::Visitor.visit -> v.py::Visitor.generic_visit @5"]


def test_sixteen_are_kept_with_the_default(tmp_path: Path) -> None:
    # 5 + 10 prefixed methods and the default: 16 targets, the limit
    many = "".join(f"    def visit_k{i}(self, node):\n        return node\n\n" for i in range(10))
    src = VISITOR.format(form='"visit_" + node.kind') + "\n\nclass Big(Visitor):\n" + many
    found = [e for e in edges(make_repo(tmp_path, {"v.py": src})) if "Visitor.visit ->" in e]
    assert len(found) == 16
    assert "v.py::Visitor.visit -> v.py::Big.visit_k9 @5" in found


OPERATORS = {
    "vec.py": """class Vector:
    def __add__(self, other):
        return Vector()

    def __truediv__(self, k):
        return object.__new__(type(self))

    def __eq__(self, other):
        return Expr()

    def __lt__(self, other):
        return self.norm() < other.norm()

    def norm(self):
        return 0

    def scaled(self, k):
        return self


class Expr:
    def render(self):
        return ""
""",
    "main.py": """from vec import Vector


def where(cond):
    return cond.render()


def run(n):
    v = Vector() + Vector()
    v.scaled(2)
    w = v / 2
    w.norm()
    where(v == w)
    less = v < w
    less.norm()
    m = n + 1
    m.scaled(1)
    p = Vector()
    p = p / 3
    p.norm()
""",
}


def test_operators_are_their_methods_calls(tmp_path: Path) -> None:
    """``a + b`` is ``a.__add__(b)`` (the data model): what the method returns, an
    instance of the class when an arithmetic method's return is not known
    (``object.__new__(type(self))``: ``path / "x"``), never assumed for a comparison, nothing for a
    class without the method (``n + 1``); an operator passed as an argument too
    (callgraph_blind4's query builder: ``where(col == 1)``, then ``cond.render()``)."""
    found = sorted(e for e in edges(make_repo(tmp_path, OPERATORS))
                   if not e.startswith("main.py::run -> vec.py::Vector @"))
    assert found == sorted([
        "main.py::run -> vec.py::Vector.scaled @10",
        "main.py::run -> vec.py::Vector.norm @12",
        "main.py::run -> main.py::where @13",
        "main.py::run -> vec.py::Vector.norm @20",
        "main.py::where -> vec.py::Expr.render @5",
        "vec.py::Vector.__add__ -> vec.py::Vector @3",
        "vec.py::Vector.__eq__ -> vec.py::Expr @9",
        "vec.py::Vector.__lt__ -> vec.py::Vector.norm @12",
    ])


EXCEPTIONS = """class AppError(Exception):
    def describe(self):
        return "app"


class Denied(AppError):
    def describe(self):
        return "denied"


class Quota(AppError):
    pass


class Other(Exception):
    def describe(self):
        return "other"


def handle(op):
    try:
        return op()
    except AppError as error:
        return error.describe()


def narrow(op):
    try:
        return op()
    except (Denied, OSError) as error:
        return error.describe()
    except ValueError as error:
        return error.describe()
"""


def test_caught_exception_is_any_subclass(tmp_path: Path) -> None:
    """``except AppError as e``: ``e`` is an AppError or an instance of a class deriving
    from it (what is raised is most often a subclass; callgraph_blind9's
    caught_error_describe), never an unrelated class; nothing for a builtin alone."""
    found = sorted(e for e in edges(make_repo(tmp_path, {"m.py": EXCEPTIONS}))
                   if "describe @" in e)
    assert found == [
        "m.py::handle -> m.py::AppError.describe @24",
        "m.py::handle -> m.py::Denied.describe @24",
        "m.py::narrow -> m.py::Denied.describe @31",
    ]


NARROWED = """class Node:
    def kids(self):
        return []

    def clone(self):
        return type(self)()


class Leaf(Node):
    def kids(self):
        return ()


class Branch(Node):
    pass


class Other:
    def kids(self):
        return None


def walk(n):
    if isinstance(n, Node):
        n.kids()
        n.clone().kids()


def first(n):
    assert isinstance(n, Node)
    return walk(n)


def known():
    x = Other()
    if isinstance(x, Node):
        x.kids()
"""


def test_isinstance_of_an_unknown_value_is_any_subclass(tmp_path: Path) -> None:
    """``isinstance(n, Node)`` of a value the flow does not know: an instance of Node
    or of a class deriving from it (session 40), also when no known value of it is one
    (its known values are then not all it may be); the union stays wide through calls on it
    (``n.clone().kids()``)."""
    found = sorted(e for e in edges(make_repo(tmp_path, {"m.py": NARROWED}))
                   if "kids @" in e)
    assert found == [
        "m.py::known -> m.py::Leaf.kids @37",
        "m.py::known -> m.py::Node.kids @37",
        "m.py::walk -> m.py::Leaf.kids @25",
        "m.py::walk -> m.py::Leaf.kids @26",
        "m.py::walk -> m.py::Node.kids @25",
        "m.py::walk -> m.py::Node.kids @26",
    ]


NONLOCAL = """class Job:
    def run(self):
        return 1


class Idle:
    def run(self):
        return 0


def counter(flag):
    job = Idle()
    n = 0

    def setup():
        nonlocal job, n
        job = Job()
        n = n + 1

    def go():
        return job.run()

    def shadow():
        job = None
        return job

    if flag:
        setup()
    return go()
"""


def test_nonlocal_binding_reaches_the_closures(tmp_path: Path) -> None:
    """``nonlocal job; job = Job()`` in one closure binds the enclosing function's
    ``job``, which another closure reads: either value (the binding may not have run),
    as ``global`` does for a module's name (session 40; a leftover since session 38);
    a closure's own ``job = None`` binds nothing outside."""
    found = sorted(e for e in edges(make_repo(tmp_path, {"m.py": NONLOCAL}))
                   if "run @" in e)
    assert found == ["m.py::counter.go -> m.py::Idle.run @21",
                     "m.py::counter.go -> m.py::Job.run @21"]


PROXY = """class Inner:
    def ping(self):
        return "pong"

    def close(self):
        return None


class Wrapper:
    def __init__(self):
        self._inner = Inner()

    def close(self):
        return self._inner.close()

    def __getattr__(self, name):
        return getattr(self._inner, name)


class Lazy:
    def __getattr__(self, name):
        value = getattr(self._load(), name)
        return value

    def _load(self):
        return Inner()


class Plain:
    def __getattr__(self, name):
        return 42


def use():
    w = Wrapper()
    w.ping()
    w.close()
    Lazy().ping()
    Plain().ping()
    w.__enter__()
"""


def test_proxy_getattr_delegates_missing_members(tmp_path: Path) -> None:
    """A class whose ``__getattr__`` returns ``getattr(<path>, name)`` (directly or
    through a local variable) delegates the members it lacks to what ``<path>`` is
    (``object.__getattr__`` runs when the normal lookup fails); its own ``close`` wins,
    a ``__getattr__`` returning anything else delegates nothing, and a ``__dunder__``
    name is never delegated (special method lookup bypasses ``__getattr__``)."""
    found = sorted(e for e in edges(make_repo(tmp_path, {"m.py": PROXY}))
                   if e.startswith("m.py::use ->"))
    assert found == [
        "m.py::use -> m.py::Inner.ping @36",
        "m.py::use -> m.py::Inner.ping @38",
        "m.py::use -> m.py::Lazy @38",
        "m.py::use -> m.py::Plain @39",
        "m.py::use -> m.py::Wrapper @35",
        "m.py::use -> m.py::Wrapper.close @37",
    ]


CONTAINERS = """class Conn:
    def query(self):
        return 1


class Pool:
    def __init__(self):
        self.conns = [Conn() for _ in range(3)]

    def __iter__(self):
        return iter(self.conns)


class Rows:
    def __getitem__(self, i):
        return Conn()


def use():
    for c in Pool():
        c.query()
    for r in Rows():
        r.query()
    Pool()[0].query()
"""


def test_iterating_a_container_class(tmp_path: Path) -> None:
    """``for c in Pool()`` of a class whose ``__iter__`` returns ``iter(self.conns)``: an
    element of ``self.conns``; of a class with only ``__getitem__``, what it returns
    (Python's sequence protocol); an index of an instance, as an element."""
    found = sorted(e for e in edges(make_repo(tmp_path, {"m.py": CONTAINERS}))
                   if "query @" in e)
    assert found == ["m.py::use -> m.py::Conn.query @21",
                     "m.py::use -> m.py::Conn.query @23",
                     "m.py::use -> m.py::Conn.query @24"]
