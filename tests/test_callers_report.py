"""Field reports about callers (issue #14): a method called through variables lists the
call sites it can follow and counts the others; dotted module names name symbols; names
outside the repository say so. CLI as real subprocesses, MCP through the SDK's client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from conftest import FIXTURES, git, make_repo

from hindsight.app import open_bank

RESOLVED = ["app.py::constructed", "app.py::declared", "clipkg/core.py::Command.main"]
UNRESOLVED = ["app.py::from_a_list", "app.py::unknown_command", "app.py::unknown_context"]


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=repo,
                          capture_output=True, text=True, env=os.environ.copy(), timeout=120)


def make(tmp_path: Path) -> Path:
    repo = tmp_path / "cli"
    shutil.copytree(FIXTURES / "callers", repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fixture")
    r = run(repo, "index")
    assert r.returncode == 0, r.stderr
    return repo


def test_callers_through_variables_lists_and_counts(tmp_path: Path) -> None:
    repo = make(tmp_path)
    r = run(repo, "callers", "Context.invoke", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [h["qname"] for h in out["callers"]] == RESOLVED
    assert (out["count"], out["unresolved_same_name"]) == (3, 3)
    r = run(repo, "callers", "Context.invoke")
    assert r.returncode == 0
    assert r.stdout.rstrip().splitlines()[-1] == (
        "3 unresolved call site(s) call `invoke` by name (they may mean this symbol); "
        "--include-unresolved lists their callers (one row per call site; per calling function "
        "for a property)")
    r = run(repo, "callers", "Context.invoke", "--include-unresolved", "--json")
    out = json.loads(r.stdout)
    assert sorted(h["qname"] for h in out["callers"]) == sorted(RESOLVED + UNRESOLVED)
    assert [h["qname"] for h in out["callers"] if not h["resolved"]] == UNRESOLVED
    assert out["unresolved_same_name"] == 3
    # what the parser saw: the binding that explains the resolved call at line 8
    r = run(repo, "debug", "--file", "app.py", "--json")
    assert {"scope": "declared", "target": "ctx", "value": "cmd.make_context()", "line": 7} \
        in json.loads(r.stdout)["facts"]


def test_dotted_module_names(tmp_path: Path) -> None:
    repo = make(tmp_path)
    for spec in ("clipkg.core.Context.invoke", "clipkg.Context.invoke"):
        r = run(repo, "callers", spec, "--json")
        assert r.returncode == 0, (spec, r.stderr)
        out = json.loads(r.stdout)
        assert out["symbol"]["qname"] == "clipkg/core.py::Context.invoke"
        assert [h["qname"] for h in out["callers"]] == RESOLVED
    r = run(repo, "callers", "clipkg.core.echo", "--json")
    assert [h["qname"] for h in json.loads(r.stdout)["callers"]] == ["app.py::shout"]
    r = run(repo, "callees", "app.declared", "--json")
    assert [h["qname"] for h in json.loads(r.stdout)["callees"]] == [
        "clipkg/core.py::Command.make_context", "clipkg/core.py::Context.invoke"]
    r = run(repo, "callers", "json.loads")
    assert r.returncode == 6
    assert r.stderr.strip() == (
        "hindsight: 'json.loads' is outside this repository: nothing indexed here is named "
        "'json' (only the repository's own code is indexed)")
    r = run(repo, "callers", "clipkg.core.nothing")
    assert r.returncode == 6 and "no symbol named 'clipkg.core.nothing'" in r.stderr
    # a module and its stub define the same name: the candidates, exit 7
    (repo / "clipkg" / "core.pyi").write_text("def echo(message: str) -> str: ...\n")
    git(repo, "add", "-A")
    assert run(repo, "index").returncode == 0
    r = run(repo, "callers", "clipkg.core.echo")
    assert r.returncode == 7
    assert "clipkg/core.py::echo" in r.stderr and "clipkg/core.pyi::echo" in r.stderr


def test_mcp_callers_count_and_partial(tmp_path: Path) -> None:
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    repo = make(tmp_path)
    server = build_mcp_server(lambda: open_bank(repo_root_path=str(repo)))

    async def main() -> dict[str, Any]:
        async with Client(server) as c:
            res = await c.call_tool("callers", {"symbol": "clipkg.Context.invoke"})
            assert not res.is_error, res.content[0].text
            assert isinstance(res.structured_content, dict)
            return res.structured_content

    out = anyio.run(main)
    assert [h["qname"] for h in out["callers"]] == RESOLVED
    assert (out["unresolved_same_name"], out["partial"]) == (3, False)
    cli = json.loads(run(repo, "callers", "Context.invoke", "--json").stdout)
    assert {k: v for k, v in out.items() if k != "partial"} == cli


def test_dotted_names_of_overloads_and_accessors(tmp_path: Path) -> None:
    """The dotted module form finds what ``Class.method`` finds: a name of overloads
    gives their candidates (exit 7), one of them by its parameter list gives it, and a
    property with a setter means the getter."""
    repo = make_repo(tmp_path / "r", {
        "src/com/acme/Box.java": (
            "package com.acme;\n\npublic class Box {\n"
            "    public void put(int v) { }\n    public void put(String v) { }\n"
            "    public int size() { put(1); return 0; }\n}\n"),
        "shop/__init__.py": "",
        "shop/cart.py": (
            "class Cart:\n    @property\n    def total(self):\n        return 0\n\n"
            "    @total.setter\n    def total(self, v):\n        pass\n")})
    assert run(repo, "index").returncode == 0
    r = run(repo, "callers", "com.acme.Box.put")
    assert r.returncode == 7
    assert "src/com/acme/Box.java::Box.put(int)" in r.stderr
    assert "src/com/acme/Box.java::Box.put(String)" in r.stderr
    r = run(repo, "callers", "com.acme.Box.put(int)", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["symbol"]["qname"] == "src/com/acme/Box.java::Box.put(int)"
    assert [h["qname"] for h in out["callers"]] == ["src/com/acme/Box.java::Box.size"]
    r = run(repo, "callers", "com.acme.Box.take")  # a package of the repository: not outside
    assert r.returncode == 6 and "no symbol named 'com.acme.Box.take'" in r.stderr
    r = run(repo, "callers", "shop.cart.Cart.total", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["symbol"]["qname"] == "shop/cart.py::Cart.total"


def test_symbols_under_a_file_nothing_indexed_says_so(tmp_path: Path) -> None:
    """Fresh-user trial (stop 24): `symbols X --file nofile.py` only said "no symbol
    matches"; a --file under which nothing is indexed is named as the reason."""
    repo = make(tmp_path)
    r = run(repo, "symbols", "invoke", "--file", "nofile.py")
    assert r.returncode == 6
    assert r.stderr.strip() == (
        "hindsight: no symbol matches 'invoke': no symbol is indexed under --file nofile.py "
        "(a typo, or a file that is untracked, excluded or not indexed yet: `hindsight "
        "status`)")
    r = run(repo, "symbols", "no_such_name", "--file", "app.py")  # the file has symbols
    assert (r.returncode, r.stderr.strip()) == (6, "hindsight: no symbol matches 'no_such_name'")


def test_dotted_paths_go_import_paths_and_block_namespaces(tmp_path: Path) -> None:
    """Forms the break-it pass typed that were "outside this repository": a Python file
    path written dotted without ``__init__.py`` (``tests.test_x.helper``), a Go import
    path (``example.com/proj/store.Open``), a class in a C# block namespace named
    without it (``Fmt.Pad``)."""
    repo = make_repo(tmp_path / "r", {
        "tests/test_x.py": "def helper():\n    return 1\n\n\ndef test_a():\n    assert helper() == 1\n",
        "go.mod": "module example.com/proj\n\ngo 1.21\n",
        "store/s.go": "package store\n\nfunc Open() int { return 1 }\n",
        "main.go": 'package main\n\nimport "example.com/proj/store"\n\nfunc main() { store.Open() }\n',
        "Fmt.cs": ("namespace Acme.Text {\n  public static class Fmt {\n"
                   "    public static string Pad(string s) { return s; }\n"
                   "    public static string Use() { return Pad(\"x\"); }\n  }\n}\n")})
    assert run(repo, "index").returncode == 0
    for spec, target, caller in (
            ("tests.test_x.helper", "tests/test_x.py::helper", "tests/test_x.py::test_a"),
            ("example.com/proj/store.Open", "store/s.go::Open", "main.go::main"),
            ("Fmt.Pad", "Fmt.cs::Acme.Text.Fmt.Pad", "Fmt.cs::Acme.Text.Fmt.Use")):
        r = run(repo, "callers", spec, "--json")
        assert r.returncode == 0, (spec, r.stderr)
        out = json.loads(r.stdout)
        assert (out["symbol"]["qname"], [h["qname"] for h in out["callers"]]) == (
            target, [caller]), spec
    assert run(repo, "callers", "example.com/proj/other.Open").returncode == 6


def test_typos_and_a_conflicting_file_get_the_right_message(tmp_path: Path) -> None:
    """A fresh-user trial: ``Contxt.invoke`` was "outside this repository", a misspelt
    bare name got no suggestion, and a symbol outside ``--file`` was "no symbol"."""
    repo = make(tmp_path)
    for args, want in (
            (["Contxt.invoke"], "no symbol named 'Contxt.invoke'; similar: "
                                "clipkg/core.py::Context.invoke"),
            (["Context.invok"], "no symbol named 'Context.invok'; similar: "
                                "clipkg/core.py::Context.invoke"),
            (["clipkg/core.py::echo", "--file", "app.py"],
             "'clipkg/core.py::echo' is not in 'app.py' (--file); it is defined elsewhere")):
        r = run(repo, "callers", *args)
        assert (r.returncode, r.stderr.strip()) == (6, f"hindsight: {want}"), args
