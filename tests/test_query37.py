"""Name forms a user types, from the fresh-user run of session 37: ``hindsight symbols
pkg.mod.func`` answers the definition exactly (as ``callers`` already did; it matched on the
last part before), a name differing in case only (``ECHO``) is an exact match (it was
counted a prefix match), and Go's method expression ``(*Command).AddCommand`` names the
method ``Command.AddCommand`` (it was "no symbol named …")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import make_repo

from hindsight.app import open_bank


def _hs(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}  # (the test's HINDSIGHT_HOME)
    return subprocess.run([sys.executable, "-m", "hindsight", *args, "--repo-root",
                           str(repo)], capture_output=True, text=True, env=env)


def test_dotted_case_and_go_receiver_forms(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "pkg/__init__.py": "", "pkg/utils.py": "def echo(x):\n    return x\n\n"
        "def echo_via_pager(x):\n    return echo(x)\n",
        "command.go": "package cobra\n\ntype Command struct{}\n\n"
        "func (c *Command) AddCommand(cmds ...*Command) {}\n\n"
        "func Root() {\n\tc := &Command{}\n\tc.AddCommand()\n}\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
    got = json.loads(_hs(repo, "symbols", "pkg.utils.echo", "--json").stdout)
    assert (got["match"], [s["qname"] for s in got["symbols"]]) == (
        "exact", ["pkg/utils.py::echo"])
    got = json.loads(_hs(repo, "symbols", "ECHO", "--json").stdout)
    assert (got["match"], [s["qname"] for s in got["symbols"]]) == (
        "exact", ["pkg/utils.py::echo"])
    got = json.loads(_hs(repo, "symbols", "ECH", "--json").stdout)
    assert got["match"] == "prefix" and len(got["symbols"]) == 2
    for spec in ("(*Command).AddCommand", "(Command).AddCommand"):
        out = _hs(repo, "callers", spec, "--json")
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        assert got["symbol"]["qname"] == "command.go::Command.AddCommand"
        assert [c["qname"] for c in got["callers"]] == ["command.go::Root"]


def test_impact_names_a_caller_once_at_its_nearest_depth(tmp_path: Path) -> None:
    # click's Command.main calls make_context and also calls what calls it: "calls it
    # (depth 1); calls it (depth 2)" said the same twice (fresh-user run of session 37)
    repo = make_repo(tmp_path / "r", {"m.py": (
        "def target():\n    return 1\n\ndef mid():\n    return target()\n\n"
        "def main():\n    target()\n    return mid()\n")})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
    got = json.loads(_hs(repo, "impact", "target", "--json").stdout)
    reasons = {i["target"]: i["reasons"] for i in got["items"]}
    assert reasons["m.py::main"] == ["calls it (depth 1)"]
    assert reasons["m.py::mid"] == ["calls it (depth 1)"]
