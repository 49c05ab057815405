"""Execution records and knowledge pages on the team server (issue 11: on the server live
memories, execution records and knowledge pages): ``POST /v1/records``, ``GET
/v1/attempts``, ``GET /v1/pages[/{name}]`` over real HTTP on 127.0.0.1 against one
``hindsight serve`` subprocess, tokens made by the real ``token`` command; the MCP tools
``attempts``, ``record_attempt`` and ``pages`` at its ``/mcp``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import Served, call, start, token

BANK = "github.com/org/work"
Q = f"bank={BANK}"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server-work-home")


@pytest.fixture(scope="module")
def srv(home: Path) -> Iterator[Served]:
    s = start(home)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def toks(home: Path, srv: Served) -> dict[str, str]:
    return {"w": token(home, "alice", "--team", "red", "--role", "write"),
            "r": token(home, "reader", "--team", "red", "--role", "read"),
            "blue": token(home, "bea", "--team", "blue", "--role", "read"),
            "other": token(home, "olga", "--role", "write", "--bank", "other::*"),
            "admin": token(home, "root", "--role", "admin")}


def _record(n: int, outcome: str = "failure", **kw: Any) -> dict[str, Any]:
    body = {"bank": BANK, "fingerprint": f"fp-{n}", "tool": "Bash",
            "command": f"pytest -q tests/test_stock.py  # {n}",
            "started_at": "2026-01-05T10:00:00+00:00", "started_ts": 1_767_607_200.0 + n,
            "duration_ms": 1200, "exit_code": 1 if outcome == "failure" else 0,
            "outcome": outcome, "observation": json.dumps(
                {"parser": "pytest", "summary": "1 failed", "failed": ["test_deduct"]}),
            "diff_summary": "shop/stock.py +3 -1", "scope": "tests", "root": "/home/a/shop",
            "branch": "main", "head": "abc", "cwd": "", "session": "s1", "feedback": "",
            "links": [["shop/stock.py", "Stock.deduct", "changed", "modified", "h1", "h2"],
                      ["tests/test_stock.py", "test_deduct", "test", "", "", ""]],
            "files": [["shop/stock.py", 3, 1]]}
    return {**body, **kw}


def _bank_db(home: Path) -> Path:
    dbs = [p for p in (home / "banks").glob("*.db")
           if sqlite3.connect(p).execute("SELECT value FROM meta WHERE key='bank_id'"
                                         ).fetchone() == (BANK,)]
    assert len(dbs) == 1
    return dbs[0]


def test_records_need_tokens_and_rights(srv: Served, toks: dict[str, str]) -> None:
    for method, path, body in (("POST", "/v1/records", _record(1)),
                               ("GET", f"/v1/attempts?{Q}&symbol=deduct", None),
                               ("GET", f"/v1/pages?{Q}", None),
                               ("GET", f"/v1/pages/conventions?{Q}", None)):
        status, got = call(srv.url, method, path, body)
        assert status == 401 and got["type"] == "Unauthorized", (path, got)
        status, got = call(srv.url, method, path, body, tok=toks["other"])
        assert status == 403 and got["field"] == "bank", (path, got)
    status, got = call(srv.url, "POST", "/v1/records", _record(1), tok=toks["r"])
    assert status == 403 and "write is needed" in got["error"]


def test_record_then_attempts_with_the_cli_filters(home: Path, srv: Served,
                                                    toks: dict[str, str]) -> None:
    status, a = call(srv.url, "POST", "/v1/records", _record(2), tok=toks["w"])
    assert status == 200 and a["created"] is True and a["attempt"]["outcome"] == "failure"
    again = call(srv.url, "POST", "/v1/records", _record(2), tok=toks["w"])[1]
    assert (again["id"], again["created"]) == (a["id"], False)  # the fingerprint: once
    status, b = call(srv.url, "POST", "/v1/records",
                     _record(3, "success", links=[["tests/test_stock.py", "test_deduct",
                                                   "test", "", "", ""]]), tok=toks["w"])
    assert status == 200 and b["id"] > a["id"]
    row = sqlite3.connect(_bank_db(home)).execute(
        "SELECT agent, command, verified FROM exec_records WHERE id=?", (a["id"],)).fetchone()
    assert row == ("alice", "pytest -q tests/test_stock.py  # 2", 0)  # the token's agent

    def ids(query: str, tok: str = toks["r"]) -> list[int]:
        status, got = call(srv.url, "GET", f"/v1/attempts?{Q}&{query}", tok=tok)
        assert status == 200, got
        return [x["id"] for x in got["attempts"]]

    assert ids("symbol=shop/stock.py::Stock.deduct") == [a["id"]]
    assert ids("symbol=test_deduct") == [b["id"], a["id"]]
    assert ids("symbol=test_deduct&outcome=success") == [b["id"]]
    assert ids("symbol=test_deduct&file=tests") == [b["id"], a["id"]]
    assert ids("symbol=test_deduct&file=docs") == []
    assert ids("symbol=test_deduct&limit=1&offset=1") == [a["id"]]
    got = call(srv.url, "GET", f"/v1/attempts?{Q}&symbol=test_deduct&limit=1",
               tok=toks["r"])[1]
    assert (got["total"], got["truncated"], got["symbol"]) == (2, True, "test_deduct")


def test_every_text_of_a_sent_record_is_redacted(home: Path, srv: Served,
                                                 toks: dict[str, str]) -> None:
    secret = "ghp_" + "Q" * 36
    status, a = call(srv.url, "POST", "/v1/records", _record(
        40, session=f"s-{secret}", cwd=f"/home/{secret}", root=f"/r/{secret}",
        branch=f"b-{secret}", diff_summary=f"shop/stock.py +1 -0 {secret}",
        links=[[f"shop/{secret}.py", "deduct", "changed", "modified", "", ""]],
        files=[[f"shop/{secret}.py", 1, 0]]), tok=toks["w"])
    assert status == 200, a
    assert secret not in json.dumps(a)
    db = _bank_db(home)
    con = sqlite3.connect(db)
    for table in ("exec_records", "exec_symbols", "exec_record_files"):
        rows = con.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608 - fixed names
        assert rows and secret not in repr(rows), table
    assert a["attempt"]["session"] == "s-[REDACTED:github_token]"


def test_bad_records_are_422_naming_the_field(srv: Served, toks: dict[str, str]) -> None:
    for bad, field in ((_record(9, outcome="maybe"), "outcome"),
                       (_record(9, links=[["a.py", "f", "owner", "", "", ""]]), "links"),
                       (_record(9, observation="not json"), "observation"),
                       (_record(9, agent="mallory"), "agent"),
                       ({k: v for k, v in _record(9).items() if k != "fingerprint"},
                        "fingerprint"),
                       # break-it round 2: times that broke "newest first"
                       (_record(9, started_ts=float("nan")), "started_ts"),
                       (_record(9, started_ts=1e308), "started_ts"),
                       (_record(9, started_ts=-1.0), "started_ts"),
                       (_record(9, started_at="garbage-date"), "started_at"),
                       (_record(9, started_at="2026-01-05T10:00:00"), "started_at")):
        status, got = call(srv.url, "POST", "/v1/records", bad, tok=toks["w"])
        assert status == 422 and got["field"] == field, got
    status, got = call(srv.url, "GET", f"/v1/attempts?{Q}&symbol=x&outcome=maybe",
                       tok=toks["r"])
    assert status == 422 and got["field"] == "outcome"


def _write_page(home: Path, cites: list[int]) -> None:
    """A conventions page in the served bank's file, as a checkout's refresh writes it."""
    from hindsight.store.sqlite import open_stores, page_store

    *_s, conn = open_stores(str(_bank_db(home)), BANK, "", 2000)
    lines = [f"- #{m} convention: note {m} [{n}]" for n, m in enumerate(cites, 1)]
    page_store(conn).add_page({
        "name": "conventions", "title": "Conventions", "updated_at": "2026-01-05T10:00:00Z",
        "updated_ts": 1.0, "reason": "manual", "head": "", "commits": 0, "changed": [],
        "sections": [{"heading": "Recorded", "text": "\n".join(lines), "evidence": "e",
                      "citations": [{"kind": "memory", "ref": str(m)} for m in cites]}]})
    conn.close()


def test_pages_hide_lines_citing_memories_the_token_may_not_see(
        home: Path, srv: Served, toks: dict[str, str]) -> None:
    mids = []
    for vis in ("team", "private", "public"):
        status, r = call(srv.url, "POST", "/v1/retain", {
            "bank": BANK, "text": f"Use ruff, {vis} note.", "kind": "convention",
            "visibility": vis}, tok=toks["w"])
        assert status == 200, r
        mids.append(r["id"])
    status, got = call(srv.url, "GET", f"/v1/pages/architecture?{Q}", tok=toks["r"])
    assert status == 404 and got["type"] == "NotFound"
    _write_page(home, mids)
    status, got = call(srv.url, "GET", f"/v1/pages/nope?{Q}", tok=toks["r"])
    assert status == 422

    def shown(tok: str) -> list[str]:
        status, one = call(srv.url, "GET", f"/v1/pages/conventions?{Q}", tok=tok)
        assert status == 200, one
        status, every = call(srv.url, "GET", f"/v1/pages?{Q}", tok=tok)
        assert status == 200 and every["count"] == 1 and every["pages"][0] == one["page"]
        return [ln.split(":")[0] for ln in one["page"]["sections"][0]["text"].split("\n")]

    t, p, pub = mids
    assert shown(toks["w"]) == [f"- #{t} convention", f"- #{p} convention",
                                f"- #{pub} convention"]  # alice owns all three
    assert shown(toks["r"]) == [f"- #{t} convention", f"- #{pub} convention"]  # red team
    assert shown(toks["blue"]) == [f"- #{pub} convention"]
    assert shown(toks["admin"]) == shown(toks["w"])


def test_mcp_tools_on_the_served_bank(home: Path, srv: Served, toks: dict[str, str]) -> None:
    """``record_attempt``, ``attempts`` and ``pages`` at ``/mcp`` (run after the tests
    above: the records and the page they stored are there)."""
    from test_server_mcp import _mcp

    res = _mcp(srv.url, toks["w"], BANK, [
        ("record_attempt", {"command": "make lint", "exit_code": 2,
                            "output": "E501 line too long", "session": "m1"}),
        ("attempts", {"symbol": "test_deduct", "outcome": "success"}),
        ("pages", {"name": "conventions"})])
    assert [e for e, _ in res] == [False, False, False], res
    rec = res[0][1]
    assert (rec["command"], rec["outcome"], rec["changes"], rec["exercised"]) == \
        ("make lint", "failure", [], [])
    row = sqlite3.connect(_bank_db(home)).execute(
        "SELECT agent, tool, session, root FROM exec_records WHERE id=?",
        (rec["id"],)).fetchone()
    assert row == ("alice", "mcp", "m1", "")  # the token's agent; no checkout here
    assert [a["outcome"] for a in res[1][1]["attempts"]] == ["success"]
    assert len(res[2][1]["pages"][0]["sections"][0]["text"].split("\n")) == 3
    res = _mcp(srv.url, toks["blue"], BANK, [
        ("record_attempt", {"command": "make lint", "exit_code": 0}),
        ("pages", {"name": "conventions"})])
    assert res[0][0] is True and "role is read" in str(res[0][1])
    assert res[1][0] is False
    assert len(res[1][1]["pages"][0]["sections"][0]["text"].split("\n")) == 1


def test_purge_is_admin_only_and_takes_the_page_lines_too(srv: Served,
                                                         toks: dict[str, str]) -> None:
    """Run last: purges the team note the page test retained (the page's first line)."""
    status, listed = call(srv.url, "GET", f"/v1/memories?{Q}&kind=convention", tok=toks["w"])
    mid = next(m["id"] for m in listed["memories"] if m["text"] == "Use ruff, team note.")
    path = f"/v1/memories/{mid}/purge"
    status, got = call(srv.url, "POST", path, {"bank": BANK, "reason": "x"}, tok=toks["w"])
    assert status == 403 and "admin is needed" in got["error"]
    status, got = call(srv.url, "POST", path, {"bank": BANK}, tok=toks["admin"])
    assert status == 422 and got["field"] == "reason"
    status, got = call(srv.url, "POST", path, {"bank": BANK, "reason": "leaked"},
                       tok=toks["admin"])
    assert (status, got) == (200, {"id": mid, "purged": True, "by": "root"})
    assert call(srv.url, "GET", f"/v1/memories/{mid}?{Q}", tok=toks["admin"])[0] == 404
    status, got = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "team note"},
                       tok=toks["admin"])
    assert status == 200 and "Use ruff, team note." not in [h["text"] for h in got["hits"]]
    page = call(srv.url, "GET", f"/v1/pages/conventions?{Q}", tok=toks["admin"])[1]["page"]
    assert f"#{mid} " not in page["sections"][0]["text"]
    assert len(page["sections"][0]["text"].split("\n")) == 2
