"""Call-graph findings of the 2 December fresh-user trial (click, and small repositories
written to match): each with its exact right value. Real git repositories, indexed for
real."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import make_repo
from test_break23 import edges, line_of, run_cli

from hindsight.app import open_bank

GEN = ('from typing import Generic, TypeVar\n\nT = TypeVar("T")\n\n\n'
       'class Box(Generic[T]):\n    def fail(self):\n        return 1\n')


def test_a_subscripted_base_named_through_a_module_is_a_base(tmp_path: Path) -> None:
    """``class DotSub(gen.Box[int])`` (click's ``click.ParamType[...]`` form) derives from
    ``gen.Box``: an ``inherits`` edge, and ``self.fail()`` in it is ``Box.fail``. It had
    no base at all (``class S(gen.Box)`` and ``class S(Box[int])`` worked)."""
    use = ("from pkg import gen\n\n\nclass DotSub(gen.Box[int]):\n    def use(self):\n"
           "        return self.fail()\n")
    repo = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/gen.py": GEN,
                                      "pkg/use.py": use})
    got = [e for e in edges(repo) if e.startswith("pkg/use.py::DotSub")]
    assert got == [f"pkg/use.py::DotSub.use -> pkg/gen.py::Box.fail "
                   f"@{line_of(use, 'self.fail()')}"]
    with open_bank(repo_root_path=str(repo)) as bank:
        conn: sqlite3.Connection = bank.stores.code.conn
        assert conn.execute("SELECT src, dst FROM edges WHERE kind='inherits' AND "
                            "src='DotSub'").fetchall() == [("DotSub", "pkg/gen.py::Box")]


def test_a_call_through_a_module_name_bound_to_a_function_reaches_it(tmp_path: Path) -> None:
    """``ALIAS = real; ALIAS()`` runs ``real``, and so does ``from pkg.config import
    HANDLER; HANDLER()`` with ``HANDLER = default_handler``; the index named the
    constants (``callees caller`` gave ``ALIAS``, ``callers real`` nothing)."""
    use = ("from pkg.config import HANDLER\n\n\ndef real():\n    return 1\n\n\nALIAS = real\n\n\n"
           "def caller():\n    return ALIAS()\n\n\ndef other():\n    return HANDLER()\n")
    config = ("def default_handler():\n    return 0\n\n\nHANDLER = default_handler\n"
              "TABLE = {'a': default_handler}\n")
    repo = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/config.py": config,
                                      "pkg/use.py": use})
    got = [e for e in edges(repo) if e.startswith(("pkg/use.py::caller ", "pkg/use.py::other "))]
    assert got == [
        f"pkg/use.py::caller -> pkg/use.py::real @{line_of(use, 'return ALIAS()')}",
        f"pkg/use.py::other -> pkg/config.py::default_handler "
        f"@{line_of(use, 'return HANDLER()')}"]


def test_a_go_receiver_rebound_later_in_the_method_is_the_receiver_before(tmp_path: Path
                                                                           ) -> None:
    """cobra's ``ExecuteC``: ``return c.Root().ExecuteC()`` early in the method and
    ``c = cmd`` further down; at the call ``c`` is still the receiver, so the call is
    ``Command.ExecuteC`` (it was left unresolved: the later binding made the receiver
    look like a local of unknown value)."""
    src = ("package cobra\n\ntype Command struct {\n\tparent *Command\n}\n\n"
           "func (c *Command) Root() *Command {\n\tif c.parent != nil {\n"
           "\t\treturn c.parent.Root()\n\t}\n\treturn c\n}\n\n"
           "func (c *Command) Find() *Command {\n\treturn c\n}\n\n"
           "func (c *Command) ExecuteC() (cmd *Command, err error) {\n"
           "\tif c.parent != nil {\n\t\treturn c.Root().ExecuteC()\n\t}\n"
           "\tcmd = c.Find()\n\tc = cmd\n\treturn c, nil\n}\n")
    repo = make_repo(tmp_path / "r", {"command.go": src})
    ln = line_of(src, "c.Root().ExecuteC()")
    got = [e for e in edges(repo) if e.startswith("command.go::Command.ExecuteC ")
           and e.endswith(f"@{ln}")]
    assert got == [f"command.go::Command.ExecuteC -> command.go::Command.ExecuteC @{ln}",
                   f"command.go::Command.ExecuteC -> command.go::Command.Root @{ln}"]


ABSTRACT = ("from abc import ABC, abstractmethod\n\n\nclass Base(ABC):\n    @abstractmethod\n"
            "    def run(self):\n        ...\n\n    def name(self):\n        return 'b'\n\n\n"
            "class Mid(Base):\n    pass\n\n\nclass Impl(Mid):\n    def run(self):\n        return 1\n\n\n"
            "class Other(Base):\n    def run(self):\n        return 2\n\n\n"
            "def use_mid(m: Mid):\n    return m.run()\n\n\n"
            "def use_base(b: Base):\n    return b.run(), b.name()\n")


def test_a_typed_receiver_of_an_abstract_method_reaches_the_overrides(tmp_path: Path) -> None:
    """``def use_mid(m: Mid): m.run()`` with ``run`` abstract in ``Base`` runs the
    override of a subclass of Mid (``Impl.run``); the index gave the abstract
    ``Base.run`` only (fresh-user trial), as a typed receiver got no class-hierarchy
    dispatch. ``b: Base`` reaches both overrides; a concrete method stays itself."""
    repo = make_repo(tmp_path / "r", {"a.py": ABSTRACT})
    got = [e for e in edges(repo) if e.startswith(("a.py::use_mid ", "a.py::use_base "))]
    ln = line_of(ABSTRACT, "b.run()")
    assert sorted(got) == [f"a.py::use_base -> a.py::Base.name @{ln}",
                           f"a.py::use_base -> a.py::Impl.run @{ln}",
                           f"a.py::use_base -> a.py::Other.run @{ln}",
                           f"a.py::use_mid -> a.py::Impl.run @{line_of(ABSTRACT, 'm.run()')}"]


def test_a_module_level_caller_is_shown_as_the_module(tmp_path: Path) -> None:
    """A call made outside any function is the module's (``path::``, empty local name):
    the callers table shows it as ``path::<module>`` (it showed ``path::``, an empty
    name), as ``--json`` names it ``<module>`` beside the qualified name as stored."""
    src = "def real():\n    return 1\n\n\nreal()\n"
    repo = make_repo(tmp_path / "r", {"m.py": src})
    assert run_cli("index", cwd=repo).returncode == 0
    table = run_cli("callers", "real", cwd=repo)
    assert table.returncode == 0 and "m.py::<module>" in table.stdout, table.stdout
    data = json.loads(run_cli("callers", "real", "--json", cwd=repo).stdout)
    assert [(h["qname"], h["name"], h["line"]) for h in data["callers"]] == [
        ("m.py::", "<module>", 5)]


def test_a_bare_name_means_the_definition_not_nested_in_a_function(tmp_path: Path) -> None:
    """``callers echo`` in click: ``utils.echo`` and a test's inner ``def echo`` gave
    "ambiguous" (exit 7) although a user means the public one; a bare name now means the
    one definition not nested in a function when there is one only. Two such
    definitions stay ambiguous."""
    files = {"pkg/__init__.py": "", "pkg/utils.py": "def echo(m):\n    return m\n",
             "tests/test_x.py": ("from pkg.utils import echo\n\n\ndef test_x():\n"
                                 "    def echo():\n        return 1\n    return echo()\n\n\n"
                                 "def test_y():\n    return echo('a')\n")}
    repo = make_repo(tmp_path / "r", files)
    assert run_cli("index", cwd=repo).returncode == 0
    data = json.loads(run_cli("callers", "echo", "--json", cwd=repo).stdout)
    assert data["symbol"]["qname"] == "pkg/utils.py::echo"
    assert [h["qname"] for h in data["callers"]] == ["tests/test_x.py::test_y"]
    (repo / "pkg/other.py").write_text("def echo():\n    return 2\n")
    assert run_cli("index", "--include-untracked", cwd=repo).returncode == 0
    assert run_cli("callers", "echo", cwd=repo).returncode == 7
