"""The MCP server (``hindsight mcp``) driven by the SDK's own client: over stdio in a real
subprocess, over streamable HTTP on loopback, and in-process for the deadline paths."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from histutil import Repo, fn

from hindsight.app import open_bank

TOOLS = {"retain", "recall", "reflect", "forget", "search_symbols", "callers", "callees",
         "pages", "trace_flow", "symbol_history", "why", "impact", "status",
         "context", "attempts", "record_attempt"}
CHAIN = ["leaf", "middle", "top", "entry", "main"]  # each calls the one before


def _core(leaf_value: int) -> str:
    out = fn("leaf", f"return {leaf_value}")
    for callee, caller in zip(CHAIN, CHAIN[1:], strict=False):
        out += fn(caller, f"return {callee}()")
    return out


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(repository, HINDSIGHT_HOME): a chain leaf <- middle <- top <- entry <- main, a
    ``helper`` defined twice, three commits (leaf and fmt always change together), indexed
    and with history ingested."""
    base = tmp_path_factory.mktemp("mcp")
    repo, home = base / "repo", base / "home"
    r = Repo(repo)
    r.write("pkg/core.py", _core(1))
    r.write("pkg/util.py", fn("fmt", "return 'a'"))
    r.write("pkg/a.py", fn("helper"))
    r.write("pkg/b.py", fn("helper"))
    r.commit("add the call chain")
    r.write("pkg/core.py", _core(2))
    r.write("pkg/util.py", fn("fmt", "return 'b'"))
    r.commit("leaf: skip the footer row")
    r.write("pkg/core.py", _core(3))
    r.write("pkg/util.py", fn("fmt", "return 'c'"))
    r.commit("fix off-by-one in leaf\n\nThe header row is counted too: keep the 3.")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HINDSIGHT_HOME", str(home))
        with open_bank(repo_root_path=str(repo)) as bank:
            bank.code.index(workers=1)
            bank.history.ingest()
    yield repo, home


@pytest.fixture
def env(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("HINDSIGHT_HOME", str(indexed[1]))
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    monkeypatch.delenv("HINDSIGHT_MCP_TIMEOUT_S", raising=False)
    # the stdio client passes only the variables it is given: the code under test too
    extra = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    return {"HINDSIGHT_HOME": str(indexed[1]), "HINDSIGHT_EMBEDDER": "hashing", **extra}


async def ok(client: Any, tool: str, **args: Any) -> dict[str, Any]:
    res = await client.call_tool(tool, args)
    assert not res.is_error, res.content[0].text
    assert isinstance(res.structured_content, dict)
    return res.structured_content


async def err(client: Any, tool: str, **args: Any) -> str:
    res = await client.call_tool(tool, args)
    assert res.is_error, res.structured_content
    text: str = res.content[0].text
    return text


def _stdio(repo: Path, env: dict[str, str]) -> Any:
    from mcp import Client, StdioServerParameters

    return Client(StdioServerParameters(
        command=sys.executable, args=["-m", "hindsight.mcp.command", "--repo-root", str(repo)],
        env=env, cwd=str(repo.parent)))


async def _check_code_tools(c: Any) -> None:
    st = await ok(c, "status")
    assert st["indexed"] and st["files"] == 4 and st["history"]["commits"] == 3
    assert st["symbols"] >= 8
    found = await ok(c, "search_symbols", name="leaf")
    assert found["match"] == "exact"
    assert [s["qname"] for s in found["symbols"]] == ["pkg/core.py::leaf"]
    assert [h["qname"] for h in (await ok(c, "callers", symbol="leaf"))["callers"]] == [
        "pkg/core.py::middle"]
    deep = await ok(c, "callers", symbol="leaf", depth=3)
    assert [(h["depth"], h["qname"]) for h in deep["callers"]] == [
        (1, "pkg/core.py::middle"), (2, "pkg/core.py::top"), (3, "pkg/core.py::entry")]
    assert deep["partial"] is False and "note" not in deep
    down = await ok(c, "callees", symbol="entry", depth=2)
    assert [(h["depth"], h["qname"]) for h in down["callees"]] == [
        (1, "pkg/core.py::top"), (2, "pkg/core.py::middle")]
    tree = (await ok(c, "trace_flow", start="main", depth=3))["tree"]
    assert tree["name"] == "pkg/core.py::main" and "def main" in tree["snippet"]
    lvl1 = tree["children"][0]
    assert lvl1["name"] == "pkg/core.py::entry" and "return top()" in lvl1["snippet"]
    assert lvl1["children"][0]["children"][0]["name"] == "pkg/core.py::middle"
    assert lvl1["children"][0]["children"][0]["children"] == []  # depth 3 stops there


async def _check_history_tools(c: Any) -> None:
    hist = await ok(c, "symbol_history", symbol="leaf")
    assert hist["symbol"]["qname"] == hist["qname"] == "pkg/core.py::leaf"
    assert hist["total"] == 3
    assert [e["subject"] for e in hist["entries"]] == [
        "fix off-by-one in leaf", "leaf: skip the footer row", "add the call chain"]
    why = await ok(c, "why", file="pkg/core.py", line=2)
    assert why["symbol"]["qname"] == "pkg/core.py::leaf"
    assert why["last"]["subject"] == "fix off-by-one in leaf"
    assert "keep the 3" in why["last"]["message"]
    imp = await ok(c, "impact", symbol="leaf", depth=2)
    items = {i["target"]: i for i in imp["items"]}
    assert items["pkg/core.py::middle"]["depth"] == 1
    assert items["pkg/core.py::top"]["reasons"] == ["calls it (depth 2)"]
    assert "pkg/core.py::entry" not in items
    assert items["pkg/util.py::fmt"]["cochanges"] == 3 and imp["partial"] is False
    ctx = await ok(c, "context", task="leaf skips the footer row", k=2)
    assert [f["path"] for f in ctx["files"]] == ["pkg/core.py", "pkg/util.py"]
    assert any(r.endswith('"leaf: skip the footer row" changed it')
               for r in ctx["files"][0]["reasons"])
    assert ctx["symbols"][0]["qname"] == "pkg/core.py::leaf"
    assert "task must not be empty" in await err(c, "context", task=" ")
    assert "k=0: must be from 1 to 100" in await err(c, "context", task="leaf", k=0)


async def _check_memory_tools(c: Any) -> None:
    text = "Convention: leaf() must never return zero; callers divide by it"
    kept = await ok(c, "retain", text=text, kind="convention", symbols=["leaf"], tags=["math"])
    assert kept["action"] == "created" and kept["id"] >= 1
    hits = (await ok(c, "recall", text="can leaf return zero?", k=5))["hits"]
    assert hits[0]["id"] == kept["id"] and hits[0]["text"] == text
    assert hits[0]["kind"] == "convention" and hits[0]["tags"] == ["math"]
    assert [(a["path"], a["symbol"], a["stale"]) for a in hits[0]["anchors"]] == [
        ("pkg/core.py", "leaf", 0)]
    refl = await ok(c, "reflect", question="what do we know about leaf returning zero?")
    assert refl["memories"] >= 1 and any(text in line for line in refl["by_kind"]["convention"])
    gone = await ok(c, "forget", memory_id=kept["id"], reason="leaf may return zero now")
    assert gone == {"id": kept["id"], "status": "forgotten", "was": "active", "text": text}
    after = await ok(c, "recall", text="can leaf return zero?", k=5)
    assert all(h["id"] != kept["id"] for h in after["hits"]) and after["partial"] is False
    assert "no memory 999999" in await err(c, "forget", memory_id=999_999, reason="x")


async def _check_errors(c: Any) -> None:
    assert "text must not be empty" in await err(c, "recall", text="  ")
    assert "k=0: must be from 1 to 100" in await err(c, "recall", text="x", k=0)
    assert "text: 20,001 characters, at most 20,000" in await err(c, "retain",
                                                                 text="y" * 20_001)
    assert "k=101" in await err(c, "recall", text="x", k=101)
    assert "depth=21: must be from 1 to 20" in await err(c, "callers", symbol="leaf", depth=21)
    assert "line=0: must be at least 1" in await err(c, "why", file="pkg/core.py", line=0)
    assert "past the end" in await err(c, "why", file="pkg/core.py", line=500)
    amb = await err(c, "callers", symbol="helper")
    assert "matches 2 symbols" in amb and "pkg/a.py::helper, pkg/b.py::helper" in amb
    assert "--file" not in amb and "(or pass file)" in amb
    amb = await err(c, "retain", text="helper is pure", symbols=["helper"])
    assert "pkg/a.py::helper, pkg/b.py::helper" in amb and "file" not in amb
    assert "no symbol named 'lea'" in await err(c, "callees", symbol="lea")
    assert "similar: pkg/core.py::leaf" in await err(c, "impact", symbol="lea")
    assert "outcome 'great'" in await err(c, "retain", text="x y z", outcome="great")
    # arguments outside the schema: one line naming the field (fresh-user report, stop 20)
    assert await err(c, "recall", query="cookie") == "text: Field required"
    assert await err(c, "callers", symbol="leaf", depth="deep") == (
        "depth: Input should be a valid integer, unable to parse string as an integer")
    # the server is still serving after all of these
    assert (await ok(c, "callers", symbol="helper", file="pkg/a.py"))["callers"] == []


def test_stdio_server_tools(indexed: tuple[Path, Path], env: dict[str, str]) -> None:
    async def main() -> None:
        async with _stdio(indexed[0], env) as c:
            listed = (await c.list_tools()).tools
            assert {t.name for t in listed} == TOOLS and len(listed) == 16
            for t in listed:
                assert t.description and len(t.description) > 80, t.name
                assert "Call " in t.description, t.name  # states when to call it
            recall = next(t for t in listed if t.name == "recall")
            k = recall.input_schema["properties"]["k"]
            assert (k["minimum"], k["maximum"]) == (1, 100) and k["description"]
            await _check_code_tools(c)
            await _check_history_tools(c)
            await _check_memory_tools(c)
            await _check_errors(c)

    anyio.run(main)


def _server(repo: Path, hook: Callable[[Any], None] = lambda b: None) -> tuple[Any, list[Any]]:
    from hindsight.mcp.server import build_mcp_server

    opened: list[Any] = []

    def opener() -> Any:
        bank = open_bank(repo_root_path=str(repo))
        hook(bank)
        opened.append(bank)
        return bank

    return build_mcp_server(opener), opened


def test_deadline_cuts_deep_walks(indexed: tuple[Path, Path], env: dict[str, str],
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Each level of a walk after the first takes 0.5 s more here: with a 0.8 s limit the
    walk stops after two levels and says so."""
    from mcp import Client

    def slow(bank: Any) -> None:  # each level of a walk (after the first) takes 0.5 s more
        walk, trace, impact = bank.code.walk, bank.code.trace, bank.history.impact

        def later(stop: Any) -> Any:
            def check() -> bool:
                time.sleep(0.5)
                return bool(stop())
            return check

        def slow_walk(*a: Any, stop: Any = None, **kw: Any) -> Any:
            return walk(*a, stop=later(stop), **kw)

        def slow_impact(*a: Any, stop: Any = None, **kw: Any) -> Any:
            return impact(*a, stop=later(stop), **kw)

        def slow_trace(*a: Any, **kw: Any) -> Any:
            time.sleep(0.5)
            return trace(*a, **kw)

        bank.code.walk, bank.code.trace = slow_walk, slow_trace
        bank.history.impact = slow_impact

    server, opened = _server(indexed[0], slow)
    monkeypatch.setenv("HINDSIGHT_MCP_TIMEOUT_S", "0.8")

    async def main() -> None:
        async with Client(server) as c:
            up = await ok(c, "callers", symbol="leaf", depth=4)
            assert [(h["depth"], h["qname"]) for h in up["callers"]] == [
                (1, "pkg/core.py::middle"), (2, "pkg/core.py::top")]
            assert up["partial"] is True
            assert "levels 1-2 of 4 are complete;" in up["note"]
            down = await ok(c, "callees", symbol="main", depth=4)
            assert [h["qname"] for h in down["callees"]] == ["pkg/core.py::entry",
                                                              "pkg/core.py::top"]
            assert down["partial"] is True and "time limit of 0.8 s" in down["note"]
            tr = await ok(c, "trace_flow", start="main", depth=4)
            assert tr["partial"] is True and tr["tree"]["children"][0]["children"]
            assert tr["tree"]["children"][0]["children"][0]["children"] == []
            imp = await ok(c, "impact", symbol="leaf", depth=4)
            targets = {i["target"]: i["depth"] for i in imp["items"]}
            assert targets["pkg/core.py::top"] == 2 and "pkg/core.py::entry" not in targets
            assert targets["pkg/util.py::fmt"] == 0 and imp["partial"] is True
            # a walk that ends by itself within the limit is complete
            assert (await ok(c, "callers", symbol="middle", depth=1))["partial"] is False

    anyio.run(main)
    assert len(opened) == 1  # opened once, reused by every call
    assert capsys.readouterr().out == ""  # nothing reached stdout


def test_recall_returns_lexical_hits_when_late(indexed: tuple[Path, Path],
                                               env: dict[str, str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    server, opened = _server(indexed[0])

    class SlowEmbedder:
        def __init__(self, inner: Any) -> None:
            self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim

        def embed_batch(self, texts: list[str]) -> Any:
            time.sleep(1.0)
            return self.inner.embed_batch(texts)

    async def main() -> None:
        async with Client(server) as c:
            text = "Decision: the exporter writes CSV with a semicolon separator"
            mid = (await ok(c, "retain", text=text, kind="decision"))["id"]
            opened[0].memory._embedder = SlowEmbedder(opened[0].memory.embedder)
            monkeypatch.setenv("HINDSIGHT_MCP_TIMEOUT_S", "0.3")
            t0 = time.monotonic()
            res = await ok(c, "recall", text="exporter semicolon separator")
            assert time.monotonic() - t0 < 0.9  # did not wait for the slow embedding
            assert res["partial"] is True and "full-text matches only" in res["note"]
            assert [h["id"] for h in res["hits"]][:1] == [mid]
            monkeypatch.setenv("HINDSIGHT_MCP_TIMEOUT_S", "5")
            full = await ok(c, "recall", text="exporter semicolon separator")
            assert full["partial"] is False and full["hits"][0]["id"] == mid
            await ok(c, "forget", memory_id=mid, reason="test cleanup")
            monkeypatch.setenv("HINDSIGHT_MCP_TIMEOUT_S", "abc")
            assert "HINDSIGHT_MCP_TIMEOUT_S='abc'" in await err(c, "status")

    anyio.run(main)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _listening_addresses(port: int) -> set[str]:
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, _, p = local.rpartition(":")
            if state == "0A" and int(p, 16) == port:  # LISTEN
                out.add(addr)
    return out


def test_http_serves_on_loopback_only(indexed: tuple[Path, Path], env: dict[str, str]
                                      ) -> None:
    from mcp import Client

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight.mcp.command", "--http", str(port), "--repo-root",
         str(indexed[0])], env={**os.environ, **env}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()[1].decode()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        if os.path.exists("/proc/net/tcp"):
            assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else

        async def main() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as c:
                assert {t.name for t in (await c.list_tools()).tools} == TOOLS
                assert (await ok(c, "search_symbols", name="fmt"))["symbols"][0][
                    "qname"] == "pkg/util.py::fmt"

        anyio.run(main)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.stdout is not None and proc.stdout.read() == b""


def test_import_is_cheap_and_bad_repo_root_fails_fast(tmp_path: Path) -> None:
    code = ("import sys, hindsight.mcp.server, hindsight.mcp.command;"
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
    bad = subprocess.run([sys.executable, "-m", "hindsight.mcp.command", "--repo-root",
                          str(tmp_path / "nope")], capture_output=True, text=True)
    assert bad.returncode == 2 and "does not exist" in bad.stderr and bad.stdout == ""
