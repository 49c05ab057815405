"""One JSON shape per concept: the CLI's ``--json`` and the MCP server's answer of the same
command agree (a symbol is the same object everywhere, list answers carry a count), and
the same mistake gives the same error text on both (the CLI adds flags and commands)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from histutil import Repo, fn

from hindsight.app import open_bank


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    monkeypatch.setenv("HINDSIGHT_NOW", "2026-11-30T12:00:00+00:00")
    r = Repo(tmp_path / "repo")
    r.write("pkg/core.py", fn("leaf", "return 1") + fn("top", "return leaf()"))
    r.write("pkg/a.py", fn("helper"))
    r.write("pkg/b.py", fn("helper"))
    r.commit("add the chain")
    with open_bank(repo_root_path=str(r.path)) as b:
        b.code.index(workers=1)
        b.history.ingest()
        b.memory.retain("Lesson: leaf must return one", symbols=["leaf"], kind="lesson")
    return r.path


def cli(repo: Path, *args: str, ok: bool = True) -> Any:
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", *args], cwd=repo,
                       capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    if not ok:
        assert p.returncode != 0
        return p.stderr.strip()
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def mcp(repo: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    server = build_mcp_server(lambda: open_bank(repo_root_path=str(repo)))
    out: list[Any] = []

    async def main() -> None:
        async with Client(server) as c:
            for tool, args in calls:
                res = await c.call_tool(tool, args)
                # the SDK puts "Error executing tool <name>: " before a tool error's text
                text = res.content[0].text.split(": ", 1)[1] if res.is_error else None
                out.append(text if res.is_error else res.structured_content)

    anyio.run(main)
    return out


def test_cli_and_mcp_give_the_same_shapes(repo: Path) -> None:
    syms, callers, hist, rec, tr, down = mcp(repo, [
        ("search_symbols", {"name": "leaf"}), ("callers", {"symbol": "leaf"}),
        ("symbol_history", {"symbol": "leaf"}), ("recall", {"text": "leaf return"}),
        ("trace_flow", {"start": "top", "depth": 3}),
        ("callees", {"symbol": "top", "depth": 3})])
    imp, = mcp(repo, [("impact", {"symbol": "leaf", "depth": 2})])
    c_imp = cli(repo, "impact", "leaf", "--depth", "2", "--json")
    assert {k: v for k, v in imp.items() if k != "partial"} == c_imp
    assert [i["target"] for i in c_imp["items"]] == ["pkg/core.py::top"]
    c_tr = cli(repo, "trace", "--start", "top", "--depth", "3", "--json")
    assert {k: v for k, v in tr.items() if k != "partial"} == c_tr
    assert c_tr["tree"]["children"][0]["symbol"]["qname"] == "pkg/core.py::leaf"
    c_down = cli(repo, "callees", "top", "--depth", "3", "--json")
    assert {k: v for k, v in down.items() if k != "partial"} == c_down and down["count"] == 1
    c_syms = cli(repo, "symbols", "leaf", "--json")
    assert syms["symbols"] == c_syms["symbols"] and syms["count"] == c_syms["count"] == 1
    leaf = c_syms["symbols"][0]
    assert leaf["qname"] == "pkg/core.py::leaf" and leaf["start_line"] >= 1
    c_callers = cli(repo, "callers", "leaf", "--json")
    assert callers["symbol"] == c_callers["symbol"] == leaf  # the same object everywhere
    assert callers["callers"] == c_callers["callers"] and callers["count"] == 1
    assert {k: v for k, v in callers.items() if k != "partial"} == c_callers
    assert callers["callers"][0]["symbol"]["qname"] == "pkg/core.py::top"
    c_hist = cli(repo, "history", "leaf", "--json")
    assert hist["symbol"] == c_hist["symbol"] == leaf
    assert hist["entries"] == c_hist["entries"] and c_hist["count"] == 1
    # a commit has one shape: why's "last" leads with a history entry's keys
    last = cli(repo, "why", f"pkg/core.py:{leaf['start_line']}", "--json")["last"]
    entry = c_hist["entries"][0]
    assert {k: last[k] for k in ("sha", "date", "author", "subject")} == \
        {k: entry[k] for k in ("sha", "date", "author", "subject")}
    c_rec = cli(repo, "recall", "leaf return", "--json")
    assert [h["id"] for h in rec["hits"]] == [h["id"] for h in c_rec["hits"]] == [1]
    drop = ("access_count", "last_accessed_ts")
    assert {k: v for k, v in rec["hits"][0].items() if k not in drop} == \
        {k: v for k, v in c_rec["hits"][0].items() if k not in drop}
    mem = cli(repo, "memories", "--json")
    assert mem["count"] == 1 and mem["memories"][0]["id"] == 1


def test_the_same_mistake_says_the_same_thing(repo: Path) -> None:
    amb, missing, bad_kind, line = mcp(repo, [
        ("callers", {"symbol": "helper"}), ("callers", {"symbol": "nosuchthing"}),
        ("search_symbols", {"name": "leaf", "kind": "bogus"}),
        ("why", {"file": "pkg/core.py", "line": 999})])
    c_amb = cli(repo, "callers", "helper", ok=False)
    assert c_amb.splitlines()[0] == ("hindsight: 'helper' matches 2 symbols; give one of them "
                                     "(or --file)")
    assert amb == ("'helper' matches 2 symbols; give one of them (or pass file); candidates: "
                   "pkg/a.py::helper, pkg/b.py::helper")
    assert cli(repo, "callers", "nosuchthing", ok=False) == f"hindsight: {missing}"
    assert bad_kind.startswith("kind 'bogus': one of ")
    assert cli(repo, "symbols", "leaf", "--kind", "bogus", ok=False) == \
        f"hindsight: --{bad_kind}"
    assert cli(repo, "why", "pkg/core.py:999", ok=False) == f"hindsight: {line}"
    assert "--" not in amb + missing + bad_kind + line


def test_not_indexed_names_the_command_to_run(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    r = Repo(tmp_path / "fresh")
    r.write("a.py", fn("f"))
    r.commit("one")
    msg = cli(r.path, "symbols", "f", ok=False)
    assert msg == (f"hindsight: {r.path} has no code index yet; run: hindsight index "
                   f"--repo-root {r.path}")
    for query in (["callers", "f"], ["history", "f"], ["why", "a.py:1"], ["hotspots"],
                  ["trace-log"], ["status"], ["recall", "x"]):
        cli(r.path, *query, ok=False)
    banks = Path(os.environ["HINDSIGHT_HOME"]) / "banks"
    assert not list(banks.glob("*.db")) if banks.exists() else True  # asking created none
    with open_bank(repo_root_path=str(r.path)) as b:
        b.code.index(workers=1)
    assert cli(r.path, "history", "f", ok=False) == \
        "hindsight: no git history in this bank yet; run: hindsight ingest"
    tool_msg, = mcp(r.path, [("symbol_history", {"symbol": "f"})])
    assert tool_msg == "no git history in this bank yet; read its git history first " \
        "(hindsight ingest)"
