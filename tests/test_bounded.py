"""Bounded tool answers (issue 15, item 8), through the SDK's own MCP client and the CLI as
subprocesses, on a real repository: ``helper`` is called from 1,600 functions (the field
report: ``callers`` of such a helper answered about 900 KB, ≈ 120k tokens, with no
``limit`` and ``partial: false``, and Claude Code drops an answer over its token cap).

Every list tool keeps its ``limit``, stays under the size cap (setting ``mcpMaxTokens``,
10,000 tokens = 40,000 characters of the text the SDK sends) with a huge answer, says
``truncated``/``total``/``next_offset``, and paging by ``next_offset`` returns every row
once, in the CLI's order. Nested answers (trace_flow, reflect, why) are cut and say what
was cut. The CLI's ``--json`` stays complete by default."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from histutil import Repo

from hindsight.app import open_bank
from hindsight.mcp.bounds import capped, paged, size

FILES, PER_FILE = 40, 40  # 1,600 callers of helper
CAP = 40_000  # the default: 10,000 tokens × 4 characters
TICKS = 12  # commits that change clock.tick
MEMORIES = 25
WORDS = ("exporter", "csv", "column", "row", "header", "quote", "escape", "buffer", "flush",
         "stream", "encoding", "locale", "decimal", "separator", "footer", "page")


def _views(f: int) -> str:
    out = "from pkg.util import helper\n\n\n"
    for i in range(PER_FILE):
        out += (f"def handler_{f:02d}_{i:02d}(request):\n    \"\"\"Handle case {i} of "
                f"view {f}.\"\"\"\n    return helper(request)\n\n\n")
    calls = "".join(f"    handler_{f:02d}_{i:02d}(request)\n" for i in range(PER_FILE))
    return out + f"def fan_{f:02d}(request):\n{calls}    return None\n"


def _entry() -> str:
    imports = "".join(f"from pkg.views.mod_{f:02d} import fan_{f:02d}\n" for f in range(FILES))
    calls = "".join(f"    fan_{f:02d}(request)\n" for f in range(FILES))
    return f"{imports}\n\ndef entry(request):\n{calls}"


def _tick(n: int) -> str:
    return f"def tick():\n    return {n}\n\n\ndef tock():\n    return 0\n"


def _memory(i: int) -> str:
    rnd = random.Random(i)
    return (f"Lesson {i} about the exporter: " + " ".join(rnd.choice(WORDS) + str(rnd.randint(
        0, 99)) for _ in range(600)))[:4000]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    """(repository, HINDSIGHT_HOME, the long commit message): helper called from 1,600
    handlers, each view's fan calling its 40 handlers, entry calling the 40 fans; tick
    changed in 12 commits, tock in one with a 60,000-character message; 25 memories of
    4,000 characters; indexed and ingested."""
    base = tmp_path_factory.mktemp("bounded")
    repo, home = base / "repo", base / "home"
    r = Repo(repo)
    r.write("pkg/util.py", "def helper(x):\n    \"\"\"Format one value.\"\"\"\n    return str(x)\n")
    for f in range(FILES):
        r.write(f"pkg/views/mod_{f:02d}.py", _views(f))
    r.write("pkg/entry.py", _entry())
    r.write("pkg/clock.py", _tick(1))
    r.commit("add the views")
    for n in range(2, TICKS + 1):
        r.write("pkg/clock.py", _tick(n))
        r.commit(f"tick returns {n}")
    long_msg = "tock: return zero\n\n" + " ".join(f"reason{i}" for i in range(7000))
    r.write("pkg/clock.py", _tick(TICKS).replace("return 0", "return 0 * 1"))
    r.commit(long_msg)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HINDSIGHT_HOME", str(home))
        mp.setenv("HINDSIGHT_EMBEDDER", "hashing")
        # index and ingest as a user does, in their own process: parser workers are forked,
        # and a test process may hold threads of earlier tests (onnxruntime's) by then
        assert cli(repo, "index", "--workers", "1")["skipped"] == {}
        assert cli(repo, "ingest")["ingested"] == TICKS + 1
        with open_bank(repo_root_path=str(repo)) as bank:
            assert bank.status()["symbols"] == 1 + FILES * (PER_FILE + 1) + 1 + 2
            for i in range(MEMORIES):
                bank.memory.retain(_memory(i), kind="lesson")
    yield repo, home, long_msg


@pytest.fixture
def env(built: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {"HINDSIGHT_HOME": str(built[1]), "HINDSIGHT_EMBEDDER": "hashing"}
    for k, v in values.items():
        monkeypatch.setenv(k, v)
    for k in ("HINDSIGHT_MCP_MAX_TOKENS", "HINDSIGHT_MCP_TIMEOUT_S"):
        monkeypatch.delenv(k, raising=False)
    return values


def cli(repo: Path, *args: str) -> Any:
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", *args, "--json"], cwd=repo,
                       capture_output=True, text=True, env=os.environ.copy(), timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


async def call(c: Any, tool: str, **args: Any) -> tuple[dict[str, Any], str]:
    """(structured answer, the text content the client reads)."""
    res = await c.call_tool(tool, args)
    assert not res.is_error, res.content[0].text
    assert isinstance(res.structured_content, dict)
    return res.structured_content, res.content[0].text


async def pages(c: Any, tool: str, key: str, cap: int = CAP, **args: Any
                ) -> tuple[list[Any], list[dict[str, Any]]]:
    """Every row of ``tool`` by following next_offset from 0, checking each page's size and
    fields: (rows in order, the pages' fields)."""
    rows: list[Any] = []
    seen: list[dict[str, Any]] = []
    offset = 0
    for _ in range(1000):
        ans, text = await call(c, tool, offset=offset, **args)
        assert len(text) <= cap and size(ans) <= cap, (tool, offset, len(text))
        assert ans["offset"] == offset and ans["count"] == len(ans[key])
        rows += ans[key]
        seen.append({k: v for k, v in ans.items() if k != key})
        if not ans["truncated"]:
            assert "next_offset" not in ans and offset + ans["count"] == ans["total"]
            return rows, seen
        assert ans["next_offset"] == offset + ans["count"] and ans["count"] >= 1
        assert f"call {tool} again with offset={ans['next_offset']}" in ans["hint"]
        offset = ans["next_offset"]
    raise AssertionError("paging did not end")


def _client(repo: Path) -> Any:
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    return Client(build_mcp_server(lambda: open_bank(repo_root_path=str(repo))))


# --- the field report, over stdio as an agent runs it -------------------------------------
def test_callers_of_a_helper_with_1600_call_sites(built: tuple[Path, Path, str],
                                                   env: dict[str, str]) -> None:
    from mcp import Client, StdioServerParameters

    repo = built[0]
    complete = cli(repo, "callers", "helper")  # the CLI stays complete by default
    assert (complete["count"], complete["total"], complete["truncated"]) == (1600, 1600, False)
    assert "next_offset" not in complete and len(complete["callers"]) == 1600
    assert len(json.dumps(complete, indent=2)) > 900_000  # what the MCP tool used to send
    tail = cli(repo, "callers", "helper", "--limit", "10", "--offset", "1595")
    assert tail == complete | {"count": 5, "offset": 1595, "callers": complete["callers"][1595:]}
    head = cli(repo, "symbols", "handler", "--limit", "2", "--offset", "3")
    assert [s["qname"] for s in head["symbols"]] == [
        "pkg/views/mod_00.py::handler_00_03", "pkg/views/mod_00.py::handler_00_04"]
    assert (head["total"], head["truncated"], head["next_offset"]) == (1600, True, 5)

    async def main() -> None:
        path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "hindsight.mcp.command", "--repo-root",
                                          str(repo)], env=env | path, cwd=str(repo.parent))
        async with Client(server) as c:
            first, text = await call(c, "callers", symbol="helper")
            assert len(text) <= CAP and len(json.dumps(first)) <= CAP
            assert (first["truncated"], first["total"], first["partial"]) == (True, 1600, False)
            assert 30 <= first["count"] < 100 and first["next_offset"] == first["count"]
            assert "cut to the 40,000-character answer cap" in first["hint"]
            rows, _ = await pages(c, "callers", "callers", symbol="helper")
            assert [h["qname"] for h in rows] == [h["qname"] for h in complete["callers"]]
            assert rows == complete["callers"]  # no overlap, no gap, the same rows
            ten, _ = await call(c, "callers", symbol="helper", limit=10, offset=1595)
            assert [h["qname"] for h in ten["callers"]] == [
                h["qname"] for h in complete["callers"][1595:]]
            assert (ten["count"], ten["truncated"], "hint" in ten) == (5, False, False)

    anyio.run(main)


# --- every list tool: limit, the cap with a huge answer, paging complete -----------------
def test_limit_is_respected_by_every_list_tool(built: tuple[Path, Path, str],
                                               env: dict[str, str]) -> None:
    async def main() -> None:
        async with _client(built[0]) as c:
            for tool, key, args in (
                    ("search_symbols", "symbols", {"name": "handler"}),
                    ("callers", "callers", {"symbol": "helper"}),
                    ("callees", "callees", {"symbol": "entry", "depth": 2}),
                    ("symbol_history", "entries", {"symbol": "tick"}),
                    ("impact", "items", {"symbol": "helper", "depth": 1})):
                ans, _ = await call(c, tool, limit=3, **args)
                assert (ans["count"], len(ans[key]), ans["next_offset"]) == (3, 3, 3), tool
                assert ans["truncated"] is True and "answer cap" not in ans["hint"], tool
                assert ans["hint"].startswith(f"3 of {ans['total']} from offset 0; "), tool
            for bad, msg in (({"offset": -1}, "offset=-1: must be from 0 to 1000000"),
                             ({"limit": 0}, "limit=0: must be from 1 to 1000"),
                             ({"limit": 1001}, "limit=1001: must be from 1 to 1000")):
                res = await c.call_tool("callers", {"symbol": "helper", **bad})
                assert res.is_error and res.content[0].text.endswith(msg)
            # recall's limit is k, and it ranks the top k: three hits, nothing left out
            ans, _ = await call(c, "recall", text="exporter lesson", k=3)
            assert (ans["count"], ans["total"], ans["truncated"]) == (3, 3, False)
            more, _ = await call(c, "recall", text="exporter lesson", k=3, offset=3)
            assert (more["count"], more["total"], more["offset"]) == (3, 6, 3)
            assert not {h["id"] for h in ans["hits"]} & {h["id"] for h in more["hits"]}

    anyio.run(main)


def test_paging_is_complete_under_the_cap(built: tuple[Path, Path, str],
                                          env: dict[str, str]) -> None:
    repo = built[0]
    want_syms = cli(repo, "symbols", "handler", "--limit", "5000")["symbols"]
    want_down = cli(repo, "callees", "entry", "--depth", "2")["callees"]
    want_imp = cli(repo, "impact", "helper", "--depth", "1", "--limit", "5000")["items"]
    assert (len(want_syms), len(want_down), len(want_imp)) == (1600, 1640, 1600)

    async def main() -> None:
        async with _client(repo) as c:
            syms, seen = await pages(c, "search_symbols", "symbols", name="handler", limit=100)
            assert syms == want_syms and len(seen) > 16  # the cap cut pages of 100 rows
            assert {s["total"] for s in seen} == {1600}
            down, seen = await pages(c, "callees", "callees", symbol="entry", depth=2,
                                     limit=1000)
            assert down == want_down and all(not s["partial"] for s in seen)
            imp, seen = await pages(c, "impact", "items", symbol="helper", depth=1,
                                    limit=1000)
            assert imp == want_imp and {s["total"] for s in seen} == {1600}

    anyio.run(main)


def test_a_small_cap_from_the_setting(built: tuple[Path, Path, str], env: dict[str, str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """mcpMaxTokens 500 (2,000 characters): a history of 12 commits comes in pages."""
    repo = built[0]
    want = cli(repo, "history", "tick")
    assert (want["count"], want["total"], want["truncated"]) == (TICKS, TICKS, False)
    tail = cli(repo, "history", "tick", "--limit", "5", "--offset", "10")
    assert tail == want | {"count": 2, "offset": 10, "entries": want["entries"][10:]}
    head = cli(repo, "history", "tick", "--limit", "5")
    assert head == want | {"count": 5, "truncated": True, "next_offset": 5,
                           "entries": want["entries"][:5]}
    monkeypatch.setenv("HINDSIGHT_MCP_MAX_TOKENS", "500")

    async def main() -> None:
        async with _client(repo) as c:
            rows, seen = await pages(c, "symbol_history", "entries", cap=2000, symbol="tick")
            assert [e["sha"] for e in rows] == [e["sha"] for e in want["entries"]]
            assert len(seen) > 2 and "2,000-character answer cap" in seen[0]["hint"]
            monkeypatch.setenv("HINDSIGHT_MCP_MAX_TOKENS", "499")
            res = await c.call_tool("status", {})
            assert res.is_error and res.content[0].text.endswith(
                "HINDSIGHT_MCP_MAX_TOKENS: 499 is out of range (500 to 1000000)")

    anyio.run(main)


def test_recall_pages_come_from_one_ranking(built: tuple[Path, Path, str],
                                            env: dict[str, str]) -> None:
    """25 memories of 4,000 characters: k=25 does not fit; the pages hold every hit of the
    ranking once, in order, though recall counts the hits it shows as accessed."""
    repo = built[0]
    text = "exporter lesson about csv columns"
    with open_bank(repo_root_path=str(repo)) as bank:
        want = [h.memory.id for h in bank.memory.recall(text, k=MEMORIES, touch=False).hits]
        before = {m.id: m.access_count for m in bank.memory.memories(limit=100)}
    assert len(want) == MEMORIES

    async def main() -> None:
        async with _client(repo) as c:
            rows, seen = await pages(c, "recall", "hits", text=text, k=MEMORIES)
            assert [h["id"] for h in rows] == want
            assert len(seen) >= 3 and all(s["partial"] is False for s in seen)
            with open_bank(repo_root_path=str(repo)) as bank:
                after = {m.id: m.access_count for m in bank.memory.memories(limit=100)}
                assert all(after[i] == before[i] + 1 for i in want)  # shown once, counted once
                new = bank.memory.retain("Lesson: the exporter lesson about csv columns is "
                                         "to quote every header", kind="lesson").id
            first, _ = await call(c, "recall", text=text, k=MEMORIES)  # a first page: afresh
            assert new in [h["id"] for h in first["hits"]] and first["total"] == MEMORIES
            with open_bank(repo_root_path=str(repo)) as bank:
                bank.memory.forget(new, "test cleanup")

    anyio.run(main)


def _bfs(tree: dict[str, Any]) -> list[str]:
    order = [tree]
    for node in order:
        order.extend(node["children"])
    return [n["name"] for n in order]


def test_trace_keeps_steps_breadth_first(built: tuple[Path, Path, str], env: dict[str, str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """entry → 40 fans → 40 handlers each (trace lists 25 callees a step): 651 steps, about
    230,000 characters; cut to the first steps breadth first."""

    async def main() -> None:
        async with _client(built[0]) as c:
            monkeypatch.setenv("HINDSIGHT_MCP_MAX_TOKENS", "1000000")
            full, text = await call(c, "trace_flow", start="entry", depth=2)
            assert "truncated" not in full and len(text) > 5 * CAP
            monkeypatch.delenv("HINDSIGHT_MCP_MAX_TOKENS")
            tr, text = await call(c, "trace_flow", start="entry", depth=2)
        steps = _bfs(full["tree"])
        assert len(steps) == 1 + 25 + 25 * 25 and tr["total"] == len(steps)
        assert len(text) <= CAP and tr["truncated"] is True and tr["partial"] is False
        assert _bfs(tr["tree"]) == steps[:tr["count"]] and 26 < tr["count"] < len(steps)
        level1 = tr["tree"]["children"]
        cut = [s for s in level1 if "children_cut" in s]
        assert sum(s["children_cut"] for s in cut) == len(steps) - tr["count"]
        assert all(len(s["children"]) + s["children_cut"] == 25 for s in cut)
        assert f"start={cut[0]['name']!r}" in tr["hint"] and "children_cut" not in tr["tree"]

    anyio.run(main)


def test_reflect_and_why_say_what_was_cut(built: tuple[Path, Path, str],
                                          env: dict[str, str]) -> None:
    repo, _home, long_msg = built
    full_why = cli(repo, "why", "pkg/clock.py:6")
    assert full_why["last"]["message"].startswith(long_msg[:100])
    n = len(full_why["last"]["message"])
    with open_bank(repo_root_path=str(repo)) as bank:  # this process: the MCP's ranking
        lines = bank.memory.reflect("what lessons about the exporter?", 25)["by_kind"][
            "lesson"]
    assert len(lines) == MEMORIES

    async def main() -> None:
        async with _client(repo) as c:
            why, text = await call(c, "why", file="pkg/clock.py", line=6)
            assert len(text) <= CAP and why["truncated"] is True
            assert len(why["cut"]) == 1 and why["cut"][0].startswith("last.message: ")
            assert why["cut"][0].endswith(f" of {n:,} characters")
            msg = why["last"]["message"]
            assert long_msg[:1000] in msg and msg.endswith(" characters cut]")
            refl, text = await call(c, "reflect", question="what lessons about the exporter?",
                                    k=25)
            assert len(text) <= CAP and refl["truncated"] is True
            kept = refl["by_kind"]["lesson"]
            assert refl["cut"] == [f"by_kind.lesson: {MEMORIES - len(kept)} of 25 items"]
            assert kept == lines[:len(kept)] and len(kept) >= 5
            st, _ = await call(c, "status")
            assert "truncated" not in st and st["symbols"] > 1600  # small answers untouched

    anyio.run(main)


# --- the mechanism's own rules ------------------------------------------------------------
def test_paged_and_capped_rules() -> None:
    rows = [{"i": i, "text": "x" * 100} for i in range(50)]
    one = paged({"q": 1}, "rows", rows, offset=48, limit=10, tool="t", cap=100_000)
    assert one == {"q": 1, "count": 2, "total": 50, "offset": 48, "truncated": False,
                   "rows": rows[48:]}
    past = paged({}, "rows", rows, offset=60, limit=10, tool="t", cap=100_000)
    assert (past["count"], past["truncated"], past["rows"]) == (0, False, [])
    big = paged({}, "rows", [{"t": "y" * 5000}] * 3, offset=0, limit=3, tool="t", cap=1000)
    assert big["count"] == 1 and big["next_offset"] == 1  # one row at least: paging moves on
    fixed = capped(big, tool="t", cap=1000)
    kept = fixed["rows"][0]["t"].split(" … ")[0]
    assert 1000 - 80 < size(fixed) <= 1000 and set(kept) == {"y"}  # cut no more than needed
    assert fixed["cut"] == [f"rows[0].t: {5000 - len(kept):,} of 5,000 characters"]
    assert fixed["rows"][0]["t"].endswith(f"y … [{5000 - len(kept):,} characters cut]")
    assert fixed["hint"] == big["hint"]
    small = {"a": [1, 2, 3], "b": "z" * 50}
    assert capped(small, tool="t", cap=1000) is small  # what fits is not copied or marked
    lists = {"a": ["p" * 100] * 30, "b": ["q" * 100] * 10, "n": 1}
    cut = capped(lists, tool="t", cap=2000)
    assert size(cut) <= 2000 and cut["n"] == 1 and len(cut["a"]) >= 1 and len(cut["b"]) >= 1
    assert cut["cut"] == [f"a: {30 - len(cut['a'])} of 30 items",
                          f"b: {10 - len(cut['b'])} of 10 items"]
    assert "ask t for less" in cut["hint"] and len(lists["a"]) == 30  # the input is kept
