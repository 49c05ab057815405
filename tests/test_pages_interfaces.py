"""The knowledge pages through their interfaces: ``hindsight pages`` (real subprocess, the
issue's JSON shape), the MCP tool (in-process client, paged and capped), the session
briefing's map, the lazy triggers (the session-start hook starting a detached worker, the
git hook's refresh) and the LLM rewrite against a stub model server on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from pagesutil import build

from hindsight.app import open_bank

PAGES = ["architecture", "conventions", "hotspots", "in-flight"]


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, dict]]:
    with pytest.MonkeyPatch.context() as mp:
        base = tmp_path_factory.mktemp("pagesif")
        mp.setenv("HINDSIGHT_HOME", str(base / "home"))
        yield build(base)


def run(args: list[str], repo: Path, home: Path, **env: str
        ) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_EMBEDDER": "hashing", **env}
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=repo, env=e,
                          capture_output=True, text=True, timeout=120)


def test_cli_writes_then_shows_the_pages_in_the_issues_json_shape(fixture: tuple) -> None:
    repo, home, names = fixture
    r = run(["pages", "--json"], repo, home)  # the first read writes them
    assert r.returncode == 0, r.stderr
    assert "architecture: version 1 (added: Parts;" in r.stderr
    data = json.loads(r.stdout)
    assert list(data) == ["pages"] and [p["name"] for p in data["pages"]] == PAGES
    for p in data["pages"]:
        assert list(p) == ["name", "title", "version", "updated_at", "sections"]
        assert p["version"] == 1 and p["updated_at"][:2] == "20"
        for s in p["sections"]:
            assert list(s) == ["heading", "text", "citations"]
            assert all(list(c) == ["kind", "ref"] and c["kind"] in
                       {"file", "symbol", "commit", "memory", "attempt"} for c in s["citations"])
    r = run(["pages", "hotspots", "--refresh", "--json"], repo, home)
    assert r.returncode == 0 and "hotspots: version 1 (unchanged)" in r.stderr
    one = json.loads(r.stdout)["pages"]
    assert [p["name"] for p in one] == ["hotspots"]
    fix = names["shas"]["fix"]
    assert {"kind": "commit", "ref": fix} in one[0]["sections"][2]["citations"]
    r = run(["pages", "architecture"], repo, home)
    assert r.returncode == 0 and "## Entry points" in r.stdout
    assert "[1] file pyproject.toml:5" in r.stdout
    r = run(["pages", "nope"], repo, home)
    assert r.returncode == 2 and "'nope' is not one of" in r.stderr
    assert r.stdout == ""


def test_cli_on_a_repository_never_indexed_says_what_to_run(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    r = run(["pages"], repo, tmp_path / "home")
    assert r.returncode == 5 and "hindsight index" in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2


def test_mcp_tool_pages_is_paged_and_capped(fixture: tuple,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    repo, home, _names = fixture
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.pages.refresh(reason="test")
    server = build_mcp_server(lambda: open_bank(repo_root_path=str(repo)))

    async def go() -> tuple[Any, Any, Any, Any]:
        async with Client(server) as c:
            a = await c.call_tool("pages", {"limit": 1})
            b = await c.call_tool("pages", {"name": "conventions"})
            bad = await c.call_tool("pages", {"name": "nope"})
            monkeypatch.setenv("HINDSIGHT_MCP_MAX_TOKENS", "500")
            small = await c.call_tool("pages", {"name": "hotspots"})
            return a, b, bad, small

    a, b, bad, small = anyio.run(go)
    got = a.structured_content
    assert [p["name"] for p in got["pages"]] == ["architecture"]
    assert (got["total"], got["truncated"], got["next_offset"]) == (4, True, 1)
    assert "call pages again with offset=1" in got["hint"]
    assert [p["name"] for p in b.structured_content["pages"]] == ["conventions"]
    assert bad.is_error and "page 'nope': one of architecture" in bad.content[0].text
    cut = small.structured_content
    assert cut["truncated"] is True and cut["cut"]
    assert len(json.dumps(cut, ensure_ascii=False, indent=2)) <= 2000


def test_the_briefing_carries_a_short_map_within_its_cap(fixture: tuple,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from hindsight.sessions.briefing import PAGES_TITLE

    repo, home, _names = fixture
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.pages.refresh(reason="test")
        text, _ids = bank.sessions.briefing(max_chars=8000)
        assert f"## {PAGES_TITLE}" in text
        lines = text.split(f"## {PAGES_TITLE}\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [ln.split(" (v")[0] for ln in lines] == [f"- {n}" for n in PAGES]
        assert lines[0].startswith("- architecture (v1): Parts: `shop/` (4 files")
        assert "[1]" not in "\n".join(lines)
        assert sum(len(ln) + 1 for ln in lines) <= 8000 // 4
        # the conventions come first; a small cap keeps the map's whole lines only
        assert text.index("## Conventions") < text.index(f"## {PAGES_TITLE}")
        small, _ids = bank.sessions.briefing(max_chars=1200)
        assert len(small) <= 1200
        part = small.split(f"## {PAGES_TITLE}\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [ln.split(" (v")[0] for ln in part] == [f"- {n}" for n in PAGES]
        assert all(len(ln) <= 1200 // 4 // 4 for ln in part) and part[0].endswith("…")


def test_session_start_starts_a_detached_refresh_of_due_pages(tmp_path: Path) -> None:
    repo, home, _names = build(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HINDSIGHT_", "CLAUDE_"))}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDER="hashing", HINDSIGHT_SEED="0",
               HINDSIGHT_PAGE_TRIGGER_CRON="",  # only "first" here: no hour may pass between
               HINDSIGHT_DIAG_FILE=str(tmp_path / "diag.jsonl"),
               CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    payload = {"session_id": "s1", "cwd": str(repo), "hook_event_name": "SessionStart",
               "source": "startup"}
    r = subprocess.run([sys.executable, "-m", "hindsight", "hook", "session-start"],
                       input=json.dumps(payload), capture_output=True, text=True, env=env,
                       cwd=repo, timeout=60)
    assert r.returncode == 0
    rec = [json.loads(x) for x in (tmp_path / "diag.jsonl").read_text().splitlines()]
    start = next(x for x in rec if x["event"] == "session-start")
    assert start["pages_due"] == dict.fromkeys(PAGES, "first") and start["pages_pid"] > 0
    deadline = time.monotonic() + 90
    worker: list[dict[str, Any]] = []
    while time.monotonic() < deadline and not worker:
        time.sleep(0.3)
        worker = [json.loads(x) for x in (tmp_path / "diag.jsonl").read_text().splitlines()
                  if '"event": "pages"' in x]
    assert worker and not worker[0]["error"], worker
    assert [p["version"] for p in worker[0]["result"]["pages"]] == [1, 1, 1, 1]
    assert worker[0]["result"]["reason"] == "session start: first"
    r = subprocess.run([sys.executable, "-m", "hindsight", "hook", "session-start"],
                       input=json.dumps({**payload, "session_id": "s2"}), capture_output=True,
                       text=True, env=env, cwd=repo, timeout=60)
    again = [json.loads(x) for x in (tmp_path / "diag.jsonl").read_text().splitlines()][-1]
    assert "pages_due" not in again  # nothing due any more: no worker
    assert "- architecture (v1): Parts:" in again["injected"]


def test_git_hook_refresh_writes_due_pages_after_enough_commits(tmp_path: Path) -> None:
    repo, home, names = build(tmp_path)
    env = {"HINDSIGHT_SURVEY_REFRESH_COMMITS": "2", "HINDSIGHT_PAGE_TRIGGER_CRON": ""}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HINDSIGHT_HOME", str(home))
        with open_bank(repo_root_path=str(repo)) as bank:
            bank.pages.refresh(reason="test")
    r = names["repo"]
    r.write("shop/orders.py", r.path.joinpath("shop/orders.py").read_text() + "\nX = 1\n")
    r.commit("one more")
    run(["git-hooks", "run-git", "post-commit", "--repo-root", str(repo)], repo, home, **env)
    log = [json.loads(x) for x in (home / "logs" / "git-hooks.log").read_text().splitlines()]
    assert log[-1]["outcome"] == "ok" and log[-1]["pages"] is None  # 1 commit of 2
    r.write("shop/orders.py", r.path.joinpath("shop/orders.py").read_text() + "\nY = 1\n")
    r.commit("and another")
    run(["git-hooks", "run-git", "post-commit", "--repo-root", str(repo)], repo, home, **env)
    log = [json.loads(x) for x in (home / "logs" / "git-hooks.log").read_text().splitlines()]
    pages = log[-1]["pages"]
    assert pages["reason"] == "git post-commit: commits"
    assert {p["name"]: p["version"] for p in pages["pages"]} == {
        "architecture": 2, "conventions": 2, "hotspots": 2, "in-flight": 2}


# --- the LLM rewrite, against a stub model server -------------------------------------------
REPLY: dict[str, Any] = {"mode": "keep"}


class Stub(BaseHTTPRequestHandler):
    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = body["messages"][1]["content"].split("\n\n", 1)[1]
        if REPLY["mode"] == "keep":  # reworded, every mark kept
            out = "In short: " + text.replace("- ", "")
        elif REPLY["mode"] == "drop":
            out = text.replace("[1]", "")
        else:  # invents a citation
            out = text + " [99]"
        raw = json.dumps({"choices": [{"message": {"content": out}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    monkeypatch.setenv("HINDSIGHT_LLM_URL", base)
    monkeypatch.setenv("HINDSIGHT_LLM_MODEL", "stub")
    monkeypatch.setenv("HINDSIGHT_LLM_TIMEOUT_S", "5")
    yield base
    srv.shutdown()


@pytest.mark.parametrize(("mode", "why"), [("drop", "dropped [1]"),
                                           ("invent", "cited [99] that it was not given")])
def test_a_rewrite_that_loses_or_invents_a_citation_is_rejected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm: str, mode: str, why: str
        ) -> None:
    repo, home, _names = build(tmp_path)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    REPLY["mode"] = mode
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.pages.refresh(["conventions"], reason="test")
        page = bank.pages.get("conventions")
    assert "rewrite rejected (Tooling): " + why in page.changed
    tooling = page.sections[1]
    assert tooling.text.startswith("- Linter: ruff (`pyproject.toml`) [1]")  # deterministic


def test_a_rewrite_that_keeps_every_citation_is_stored_and_kept_while_evidence_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm: str) -> None:
    repo, home, names = build(tmp_path)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    REPLY["mode"] = "keep"
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.pages.refresh(["conventions"], reason="test")
        page = bank.pages.get("conventions")
        assert "rewritten: Tooling" in page.changed
        assert page.sections[1].text.startswith("In short: Linter: ruff (`pyproject.toml`) [1]")
        names["repo"].write("z.py", "Z = 1\n")
        names["repo"].commit("z")
        bank.history.ingest()
        bank.pages.refresh(["conventions"], reason="test")
        v2 = bank.pages.get("conventions")
    assert v2.version == 2 and v2.changed == ["changed: Commit style",
                                              "rewritten: Commit style"]
    assert v2.sections[1].text == page.sections[1].text  # evidence unchanged: text kept
