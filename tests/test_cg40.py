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
