"""The attempts questions (issue 12, item 4): the Python API and the MCP tools
``record_attempt`` and ``attempts`` (the same shapes as ``hindsight attempts --json``),
attempts beside ``history`` and ``why``, the last run on each ``trace`` step, failures
and whether a later run resolved them, and the lifecycle (activity, pruning)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from recordutil import FIXED, pytest_run, shop

from hindsight.app import open_bank

PYTEST = "python -m pytest -q tests/test_stock.py"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    r = shop(tmp_path)
    with open_bank(repo_root_path=str(r.path)) as b:
        b.code.index(workers=1)
    return r.path


def mcp(repo: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    server = build_mcp_server(lambda: open_bank(repo_root_path=str(repo)))
    got: list[Any] = []

    async def main() -> None:
        async with Client(server) as c:
            for tool, args in calls:
                res = await c.call_tool(tool, args)
                got.append(res.content[0].text if res.is_error else res.structured_content)

    anyio.run(main)
    return got


def cli(repo: Path, *args: str) -> Any:
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", *args], cwd=repo, text=True,
                       capture_output=True, env=os.environ.copy(), timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_mcp_record_attempt_and_attempts(repo: Path) -> None:
    code1, out1 = pytest_run(repo)
    first, = mcp(repo, [("record_attempt", {"command": PYTEST, "exit_code": code1,
                                            "output": out1, "session": "m1"})])
    assert (first["outcome"], first["verified"]) == ("failure", False)
    assert first["observation"]["failed"] == ["tests/test_stock.py::test_deduct"]
    assert "shop/stock.py::deduct_stock" in first["exercised"] and first["changes"] == []
    (repo / "shop/stock.py").write_text(FIXED)
    code2, out2 = pytest_run(repo)
    second, listed, bad = mcp(repo, [
        ("record_attempt", {"command": PYTEST, "exit_code": code2, "output": out2,
                            "session": "m1"}),
        ("attempts", {"symbol": "deduct_stock", "limit": 1}),
        ("attempts", {"symbol": "deduct_stock", "outcome": "great"})])
    assert (second["outcome"], second["verified"], second["changes"]) == (
        "success", True, ["shop/stock.py::deduct_stock"])
    assert (listed["symbol"], listed["total"], listed["truncated"]) == (
        "shop/stock.py::deduct_stock", 2, True)
    assert listed["next_offset"] == 1 and [a["id"] for a in listed["attempts"]] == [
        second["id"]]
    assert "outcome 'great': one of success, failure, interrupted, unknown" in bad
    full = cli(repo, "attempts", "deduct_stock", "--json")
    assert full["attempts"][0] == listed["attempts"][0]  # one shape on both interfaces
    assert list(full) == ["symbol", "attempts", "total", "truncated"]


def test_history_why_and_trace_show_runs(repo: Path) -> None:
    with open_bank(repo_root_path=str(repo)) as b:
        c1, o1 = pytest_run(repo)
        fail = b.records.record(PYTEST, exit_code=c1, output=o1, session="h1")
        (repo / "shop/stock.py").write_text(FIXED)
        c2, o2 = pytest_run(repo)
        ok = b.records.record(PYTEST, exit_code=c2, output=o2, session="h1")
        b.history.ingest()
    hist = cli(repo, "history", "deduct_stock", "--json")
    assert [a["id"] for a in hist["attempts"]] == [ok.id, fail.id]
    assert hist["attempts_total"] == 2
    why = cli(repo, "why", "shop/stock.py:2", "--json")
    assert [a["outcome"] for a in why["attempts"]] == ["success", "failure"]
    tree = cli(repo, "trace", "--start", "test_deduct", "--json")["tree"]
    assert tree["verified"]["status"] == "success"
    step = tree["children"][0]
    assert step["symbol"]["qname"] == "shop/stock.py::deduct_stock"
    assert step["verified"]["status"] == "success"
    assert step["verified"]["verified_at"] == ok.attempt_dict()["started_at"]
    m_hist, m_tree = mcp(repo, [("symbol_history", {"symbol": "deduct_stock"}),
                                ("trace_flow", {"start": "test_deduct"})])
    assert m_hist["attempts"] == hist["attempts"][:10]
    assert m_tree["tree"]["children"][0]["verified"] == step["verified"]


def test_failures_resolved_and_lifecycle(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_bank(repo_root_path=str(repo)) as b:
        c1, o1 = pytest_run(repo)
        fail = b.records.record(PYTEST, exit_code=c1, output=o1, session="f1")
        assert [r.id for r in b.records.failures(unresolved=True)] == [fail.id]
        (repo / "shop/stock.py").write_text(FIXED)
        c2, o2 = pytest_run(repo)
        ok = b.records.record(PYTEST, exit_code=c2, output=o2, session="f1")
        assert [r.id for r in b.records.failures()] == [fail.id]
        assert b.records.failures(unresolved=True) == []
        assert b.records.failures(branch="main") == [b.records.get(fail.id)]
        assert b.records.failures(branch="other") == []
        ok = b.records.get(ok.id)
        now = ok.started_ts
        # activity: (0.5 + 0.5 * passed/runs) * exp(-days / 30) + 0.1 * retrievals
        assert b.records.activity(ok, now) == pytest.approx(1.0 + 0.1 * ok.retrievals)
        assert b.records.activity(ok, now + 30 * 86400) == pytest.approx(
            0.36787944 + 0.1 * ok.retrievals)
        b.memory.retain("Lesson: the off-by-one came back", tags=[f"attempt:{fail.id}"],
                        kind="lesson")
        c3, o3 = 1, "FAILED tests/test_stock.py::test_add - assert 0 == 3\n1 failed in 0.1s\n"
        other = b.records.record(PYTEST, exit_code=c3, output=o3, session="f2")
    assert (c1, c2) == (1, 0)
    monkeypatch.setenv("HINDSIGHT_NOW", "2099-01-01T00:00:00+00:00")  # all are old now
    with open_bank(repo_root_path=str(repo)) as b:
        assert b.records.prune(dry_run=True) == {"pruned": [other.id],
                                                 "kept_cited": [fail.id], "dry_run": True}
        assert b.records.prune()["pruned"] == [other.id]
        assert sorted(b.records.store.record_ids()) == [fail.id, ok.id]  # success kept


def test_settings_reach_the_records(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_RECORDS_CALLEE_DEPTH", "0")
    monkeypatch.setenv("HINDSIGHT_RECORDS_INJECT_LIMIT", "0")
    code, out = pytest_run(repo)
    with open_bank(repo_root_path=str(repo)) as b:
        rec = b.records.record(PYTEST, exit_code=code, output=out)
        assert rec.exercised == ("tests/test_stock.py::test_deduct",
                                 "tests/test_stock.py::test_add")  # the tests, no callees
        assert b.records.for_prompt("fix test_deduct") == []  # nothing injected at 0
        assert [r.id for r in b.records.for_prompt("fix test_deduct", limit=3)] == [rec.id]


def test_text_output_for_people(repo: Path) -> None:
    with open_bank(repo_root_path=str(repo)) as b:
        code, out = pytest_run(repo)
        rec = b.records.record(PYTEST, exit_code=code, output=out)
    def text(*args: str) -> str:
        p = subprocess.run([sys.executable, "-P", "-m", "hindsight", *args], cwd=repo,
                           text=True, capture_output=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"})
        assert p.returncode == 0, p.stderr
        return p.stdout
    shown = text("attempts", "deduct_stock")
    assert "attempts on shop/stock.py::deduct_stock" in shown
    assert "1 failed, 1 passed — FAILED tests/test_stock.py::test_deduct" in shown
    assert text("attempts", "add_stock", "--outcome", "success") == \
        "no attempts recorded for shop/stock.py::add_stock\n"
    md = text("trace", "--start", "test_deduct")
    when = rec.attempt_dict()["started_at"].replace("T", " ")
    assert f"— last run failure {when[:16]}" in md and "not verified" in md


def test_cli_attempts_are_complete_by_default_and_mcp_pages(repo: Path) -> None:
    """Issue 15, item 8: ``hindsight attempts`` (text and --json) lists every attempt unless
    --limit is given; the MCP tool keeps its page of 20 with total and truncated."""
    with open_bank(repo_root_path=str(repo)) as b:
        code, out = pytest_run(repo)
        ids = [b.records.record(PYTEST, exit_code=code, output=out, session=f"s{i}").id
               for i in range(23)]
    newest = ids[::-1]
    full = cli(repo, "attempts", "deduct_stock", "--json")
    assert (full["total"], full["truncated"]) == (23, False)
    assert [a["id"] for a in full["attempts"]] == newest
    cut = cli(repo, "attempts", "deduct_stock", "--json", "--limit", "5")
    assert (cut["total"], cut["truncated"]) == (23, True)
    assert [a["id"] for a in cut["attempts"]] == newest[:5]
    tail = cli(repo, "attempts", "deduct_stock", "--json", "--limit", "5", "--offset", "20")
    assert (tail["total"], tail["truncated"]) == (23, False)
    assert [a["id"] for a in tail["attempts"]] == newest[20:]
    page, = mcp(repo, [("attempts", {"symbol": "deduct_stock"})])
    assert (page["total"], page["truncated"], page["count"], page["next_offset"]) == (
        23, True, 20, 20)
    assert [a["id"] for a in page["attempts"]] == newest[:20]

    def text(*args: str) -> list[str]:
        p = subprocess.run([sys.executable, "-P", "-m", "hindsight", "attempts",
                            "deduct_stock", *args], cwd=repo, text=True, capture_output=True,
                           timeout=120, env={**os.environ, "COLUMNS": "200"})
        assert p.returncode == 0, p.stderr
        return p.stdout.splitlines()
    every = text()
    assert [ln.strip() for ln in every if "attempts on" in ln] == [
        "attempts on shop/stock.py::deduct_stock"]
    assert sum(1 for ln in every if "1 failed, 1 passed" in ln) == 23
    some = text("--limit", "5")
    assert sum(1 for ln in some if "1 failed, 1 passed" in ln) == 5
    assert [ln.strip() for ln in some if "attempts on" in ln] == [
        "attempts on shop/stock.py::deduct_stock (rows 1-5 of 23; --offset 5 for more)"]
    assert text("--offset", "30") == [
        "no attempts recorded for shop/stock.py::deduct_stock from offset 30 (of 23)"]


def test_attempts_of_a_name_nothing_knows_exit_6(repo: Path) -> None:
    # break-it report (stop 20): a typo answered "no attempts recorded" with exit 0
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", "attempts", "NoSuchSym"],
                       cwd=repo, text=True, capture_output=True, timeout=120)
    assert (p.returncode, p.stdout) == (6, "")
    assert p.stderr == ("hindsight: no symbol named 'NoSuchSym' in the index, and no attempt "
                        "names it\n")
    p = subprocess.run([sys.executable, "-P", "-m", "hindsight", "attempts", "deduct_stock"],
                       cwd=repo, text=True, capture_output=True, timeout=120)
    assert (p.returncode, p.stdout) == (0, "no attempts recorded for shop/stock.py::deduct_stock\n")
