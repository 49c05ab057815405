"""Knowledge pages (issue 13 part 1) on a fixture repository with history and memories:
the golden pages (each section and its citations, tests/golden/pages.json; regenerate
after a reviewed change with ``HINDSIGHT_UPDATE_GOLDEN=1`` and read the diff), the delta
refresh after two commits, the deterministic ``H`` schedule, the triggers, the LLM rewrite
that must keep every citation, the session briefing's map, the CLI's JSON shape and the
MCP tool."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from histutil import BASE, git
from pagesutil import FILES, build

from hindsight.app import open_bank

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "pages.json"
KINDS = {"file", "symbol", "commit", "memory", "attempt"}

@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, dict]]:
    with pytest.MonkeyPatch.context() as mp:
        base = tmp_path_factory.mktemp("pages")
        mp.setenv("HINDSIGHT_HOME", str(base / "home"))
        got = build(base)
        with open_bank(repo_root_path=str(got[0])) as bank:
            bank.pages.refresh(reason="test")
        yield got


@pytest.fixture
def bank(fixture: tuple[Path, Path, dict], monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("HINDSIGHT_HOME", str(fixture[1]))
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    with open_bank(repo_root_path=str(fixture[0])) as b:
        yield b


def sections(bank: Any) -> dict[str, list[dict[str, Any]]]:
    return {p.name: [s.as_dict() for s in p.sections] for p in bank.pages.list()}


def cites(bank: Any, page: str, heading: str) -> list[tuple[str, str]]:
    p = bank.pages.get(page)
    s = next(s for s in p.sections if s.heading == heading)
    return [(c.kind, c.ref) for c in s.citations]


def claim(bank: Any, page: str, heading: str, needle: str) -> tuple[str, list[tuple[str, str]]]:
    """The claim line of a section containing ``needle`` and what it cites."""
    s = next(s for s in bank.pages.get(page).sections if s.heading == heading)
    line = next(ln for ln in s.text.splitlines() if needle in ln)
    return line, [(s.citations[int(n) - 1].kind, s.citations[int(n) - 1].ref)
                  for n in re.findall(r"\[(\d+)\]", line)]


def test_golden_pages(bank: Any) -> None:
    got = sections(bank)
    if os.environ.get("HINDSIGHT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert got == json.loads(GOLDEN.read_text())


def test_every_claim_cites_evidence_that_exists(bank: Any, fixture: tuple) -> None:
    """Each section's marks are exactly its citations 1..n; each citation names a file,
    symbol, commit or memory of this bank."""
    ids = set(fixture[2]["ids"].values())
    for p in bank.pages.list():
        assert [s.heading for s in p.sections]
        for s in p.sections:
            marks = {int(n) for n in re.findall(r"\[(\d+)\]", s.text)}
            assert marks == set(range(1, len(s.citations) + 1)), (p.name, s.heading)
            for c in s.citations:
                assert c.kind in KINDS
                if c.kind == "file":
                    assert (fixture[0] / c.ref.split(":")[0]).exists(), c.ref
                elif c.kind == "symbol":
                    assert bank.code.resolve(c.ref).qname == c.ref
                elif c.kind == "commit":
                    assert bank.history.store.commit(c.ref) is not None or \
                        git(fixture[0], "cat-file", "-t", c.ref).strip() == "commit"
                else:
                    assert int(c.ref) in ids - {fixture[2]["ids"]["private"]}


def test_each_page_says_what_its_evidence_shows(bank: Any, fixture: tuple) -> None:
    shas, ids = fixture[2]["shas"], fixture[2]["ids"]
    line, ev = claim(bank, "architecture", "Parts", "`shop/`")
    assert "Shop: orders and payments." in line and ev == [("file", "shop/__init__.py:1")]
    _line, ev = claim(bank, "architecture", "Parts", "`web/`")
    assert ev == [("file", "web/app.py:1")]
    line, ev = claim(bank, "architecture", "Dependencies between parts", "`web` uses")
    assert "`shop` (1)" in line and ev == [("file", "web/app.py:5")]
    _line, ev = claim(bank, "architecture", "Entry points", "script `shop`")
    assert ev == [("file", "pyproject.toml:5")]
    line, ev = claim(bank, "architecture", "Entry points", "HTTP routes")
    assert "`GET /orders`" in line and "`POST /orders`" in line
    assert ev == [("file", "web/app.py:10"), ("file", "web/app.py:15")]
    _line, ev = claim(bank, "architecture", "Entry points", "CLI (argparse)")
    assert ev == [("file", "shop/cli.py:9")]
    line, ev = claim(bank, "architecture", "Exported APIs", "`shop` exports")
    assert "`place`, `charge`" in line and ev == [("file", "shop/__init__.py:3")]
    assert ("memory", str(ids["convention"])) in cites(bank, "conventions",
                                                       "Recorded conventions and decisions")
    assert ("memory", str(ids["private"])) not in cites(bank, "conventions",
                                                        "Recorded conventions and decisions")
    _line, ev = claim(bank, "conventions", "Tooling", "Linter: ruff")
    assert ev == [("file", "pyproject.toml:7")]
    _line, ev = claim(bank, "conventions", "Tooling", "Type checker: mypy")
    assert ev == [("file", "pyproject.toml:10")]
    line, _ev = claim(bank, "conventions", "Commit style", "Conventional Commits")
    assert line.startswith("- 3 of the last 4 commits")
    line, ev = claim(bank, "hotspots", "Files", "`shop/payments.py`")
    assert "3 commits, 2 fixes" in line and "1 memory anchored" in line
    assert ev == [("file", "shop/payments.py"), ("commit", shas["fix2"]),
                  ("commit", shas["fix"])]
    assert cites(bank, "hotspots", "Fix commits") == [("commit", shas["fix2"]),
                                                      ("commit", shas["fix"])]
    assert cites(bank, "hotspots", "Stale memories") == [("memory", str(ids["lesson"]))]
    line, ev = claim(bank, "in-flight", "Branches", "`feature/refunds`")
    assert "1 ahead of and 0 behind `main`" in line and ev == [("commit", shas["feature"])]
    assert cites(bank, "in-flight", "Unresolved failures") == [("memory", str(ids["failure"]))]
    assert cites(bank, "hotspots", "Failed attempts") == []  # no run recorded yet


def test_a_delta_refresh_after_two_commits_changes_only_the_affected_sections(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, home, names = build(tmp_path)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    with open_bank(repo_root_path=str(repo)) as bank:
        first = bank.pages.refresh(reason="test")
        assert first is not None and {p["version"] for p in first["pages"]} == {1}
        before = {p.name: p for p in bank.pages.list()}
        r = names["repo"]
        r.write("shop/orders.py", FILES["shop/orders.py"] + "\n\ndef total(order):\n"
                "    return order\n")
        r.commit("orders: total of an order")
        r.write("docs/notes.md", "notes\n")
        r.commit("docs: notes")
        bank.code.index()
        bank.history.ingest()
        res = bank.pages.refresh(reason="test")
        assert res is not None
        changed = {p["name"]: p["changed"] for p in res["pages"]}
        assert changed == {
            "architecture": ["changed: Parts"],  # shop/ has 4 more lines
            "conventions": ["changed: Commit style"],
            "hotspots": ["changed: Files", "changed: Symbols"],
            "in-flight": ["changed: Branches", "changed: Recent work"]}
        after = {p.name: p for p in bank.pages.list()}
    for name, page in after.items():
        assert page.version == 2 and page.changed == changed[name]
        for old, new in zip(before[name].sections, page.sections, strict=True):
            same = f"changed: {new.heading}" not in changed[name]
            assert (old.as_dict() == new.as_dict()) is same, (name, new.heading)
    assert "`shop/orders.py::total`" in after["hotspots"].sections[1].text
    assert after["in-flight"].sections[1].text.count("orders: total of an order") == 1


def test_the_h_schedule_is_deterministic_per_bank_and_page() -> None:
    from hindsight.pages.schedule import minute, next_run

    t0 = BASE  # 2025-06-15T15:06:40Z
    got = {(b, p): next_run("H * * * *", b, p, t0) for b in ("coding-agent::a", "x::b")
           for p in ("architecture", "conventions", "hotspots", "in-flight")}
    for (b, p), ts in got.items():
        assert ts is not None and t0 < ts <= t0 + 3600
        assert int(ts) % 3600 // 60 == minute(b, p) and int(ts) % 60 == 0
        assert next_run("H * * * *", b, p, t0) == ts  # the same every time
        assert next_run("H * * * *", b, p, ts) == ts + 3600  # hourly after that
    assert len({int(ts) % 3600 // 60 for ts in got.values()}) >= 4  # spread over the hour
    code = ("from hindsight.pages.schedule import next_run; "
            f"print(next_run('H * * * *', 'x::b', 'hotspots', {t0}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "123"}, check=True)
    assert float(out.stdout) == got[("x::b", "hotspots")]  # not Python's salted hash
    assert next_run("", "x::b", "hotspots", t0) is None
    from hindsight.errors import ConfigError

    with pytest.raises(ConfigError, match="pageTriggerCron"):
        next_run("H 99 * * *", "x::b", "hotspots", t0)


def test_triggers_first_commits_and_schedule(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo, home, names = build(tmp_path)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    monkeypatch.setenv("HINDSIGHT_SURVEY_REFRESH_COMMITS", "2")
    monkeypatch.setenv("HINDSIGHT_NOW", "2026-03-10T08:30:00+00:00")  # no hour passes
    with open_bank(repo_root_path=str(repo)) as bank:
        assert bank.pages.due() == dict.fromkeys(
            ("architecture", "conventions", "hotspots", "in-flight"), "first")
        res = bank.pages.refresh_due()
        assert res is not None and res["reason"] == "first"
        assert bank.pages.due() == {} and bank.pages.refresh_due() is None
        state = json.loads(bank.stores.raw.execute(
            "SELECT value FROM meta WHERE key='pages:state'").fetchone()[0])
        at = state["due"]["hotspots"]
        assert bank.pages.due(now=at - 1) == {n: "schedule" for n, t in state["due"].items()
                                              if t <= at - 1}
        assert bank.pages.due(now=at) == {n: "schedule" for n, t in state["due"].items()
                                          if t <= at}
        assert "hotspots" in bank.pages.due(now=at)
        r = names["repo"]
        r.write("a.py", "A = 1\n")
        r.commit("one")
        bank.history.ingest()
        assert bank.pages.due() == {}  # 1 commit of 2
        r.write("b.py", "B = 1\n")
        r.commit("two")
        bank.history.ingest()
        assert set(bank.pages.due().values()) == {"commits"}
        monkeypatch.setenv("HINDSIGHT_PAGE_TRIGGER_CRON", "")
        monkeypatch.setenv("HINDSIGHT_SURVEY_REFRESH_COMMITS", "0")
    with open_bank(repo_root_path=str(repo)) as bank:
        assert bank.pages.due(now=at + 10 * 86_400) == {}  # no schedule, no commit trigger


def test_bad_trigger_settings_are_one_line_errors(tmp_path: Path) -> None:
    from hindsight.config.settings import load
    from hindsight.errors import ConfigError

    for env, msg in ((("HINDSIGHT_PAGE_TRIGGER_CRON", "H * *"), "five fields expected"),
                     (("HINDSIGHT_PAGE_TRIGGER_CRON", "H 25 * * *"), "not a valid cron"),
                     (("HINDSIGHT_SURVEY_REFRESH_COMMITS", "-1"), "out of range")):
        with pytest.raises(ConfigError, match=msg) as e:
            load("", env=dict([env]))
        assert "\n" not in str(e.value)
    assert load("", env={"HINDSIGHT_PAGE_TRIGGER_CRON": "H 3 * * 1-5"}).page_trigger_cron \
        == "H 3 * * 1-5"


@pytest.mark.parametrize(("language", "text", "want"), [
    ("python", 'import click\n\n@click.command()\ndef main():\n    pass\n',
     [("cli", "click/typer command", 3, "")]),
    ("python", '@router.delete("/items/{id}")\nasync def rm(id): ...\n',
     [("route", "HTTP route", 1, "DELETE /items/{id}")]),
    ("javascript", "const app = express()\napp.get('/users', list)\nrouter.post(`/u`, f)\n",
     [("route", "HTTP route", 2, "GET /users"), ("route", "HTTP route", 3, "POST /u")]),
    ("typescript", "import { Command } from 'commander'\n",
     [("cli", "commander", 1, "")]),
    ("go", 'var root = &cobra.Command{Use: "x"}\nfunc main() {\n\thttp.HandleFunc("/health", h)\n}\n',
     [("cli", "cobra", 1, ""), ("route", "HTTP route", 3, "ANY /health")]),
    ("rust", "#[derive(Parser, Debug)]\nstruct Args {}\n#[get(\"/hello\")]\nasync fn hello() {}\n",
     [("cli", "clap", 1, ""), ("route", "HTTP route", 3, "GET /hello")]),
    ("java", '@GetMapping("/orders")\npublic List<Order> all() {}\n',
     [("route", "HTTP route", 1, "GET /orders")]),
    ("python", "x = {}.get('/not/a/route')\n", []),
])
def test_scan_finds_entry_points_in_each_language(language: str, text: str,
                                                  want: list[tuple[str, str, int, str]]
                                                  ) -> None:
    from hindsight.pages.scan import scan_text

    assert [tuple(f) for f in scan_text(text, language)] == want


@pytest.mark.parametrize(("language", "text", "want"), [
    ("python", '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""Parse things.\n\nMore."""\n',
     ("Parse things.", 3)),
    ("go", "// Package shop sells things.\n// It is small.\npackage shop\n",
     ("Package shop sells things. It is small.", 1)),
    ("rust", "//! The engine.\n//! Fast.\nuse std::io;\n", ("The engine. Fast.", 1)),
    ("javascript", "/**\n * HTTP client helpers.\n */\nexport function get() {}\n",
     ("HTTP client helpers.", 1)),
    ("javascript", "/* Copyright 2020 X */\nexport const a = 1\n", ("", 0)),
    ("python", "import os\n", ("", 0)),
])
def test_doc_comments_per_language(language: str, text: str, want: tuple[str, int]) -> None:
    from hindsight.pages.scan import doc_of

    assert doc_of(text, language) == want


def test_tool_configuration_and_manifests_are_read_line_by_line(tmp_path: Path) -> None:
    from hindsight.pages.configs import declared, tool_settings

    (tmp_path / "package.json").write_text(json.dumps(
        {"name": "web", "bin": {"webctl": "bin/cli.js"}, "main": "index.js",
         "devDependencies": {"eslint": "9", "prettier": "3", "vitest": "2"}}, indent=2))
    (tmp_path / "go.mod").write_text("module example.com/x\n\ngo 1.22\n")
    (tmp_path / ".editorconfig").write_text("root = true\n\n[*]\nindent_style = space\n")
    got = [(s.role, s.tool, s.path, s.line) for s in tool_settings(str(tmp_path))]
    assert got == [("editor", "EditorConfig", ".editorconfig", 3),
                   ("formatter", "prettier", "package.json", 9),
                   ("linter", "eslint", "package.json", 8),
                   ("tests", "vitest", "package.json", 10),
                   ("formatter", "gofmt (Go's standard format)", "go.mod", 1),
                   ("tests", "go test", "go.mod", 1)]
    assert [(d.kind, d.name, d.target, d.line) for d in declared(str(tmp_path))] == [
        ("bin", "webctl", "bin/cli.js", 4), ("main", "web", "index.js", 6)]


def test_a_readme_linked_out_of_the_repository_is_not_quoted(tmp_path: Path) -> None:
    from hindsight.pages.scan import read_text, readme

    outside = tmp_path / "secret.md"
    outside.write_text("Top secret paragraph that must stay out of the pages.\n")
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "README.md").symlink_to(outside)
    (repo / "pkg" / "inside.md").write_text("Inside.\n")
    (repo / "README.md").symlink_to(repo / "pkg" / "inside.md")
    assert readme(str(repo), "pkg") == ("", "", 0)
    assert read_text(str(repo), "pkg/README.md") is None
    assert readme(str(repo), "") == ("README.md", "Inside.", 1)  # a link inside is fine


def test_failed_attempts_are_cited_on_the_hotspots_page(bank: Any) -> None:
    out = "FAILED tests/test_pay.py::test_charge - assert 9 == 10\n1 failed, 2 passed in 0.1s\n"
    rec = bank.records.record("pytest -q tests/test_pay.py", exit_code=1, output=out)
    assert rec.outcome == "failure"
    bank.pages.refresh()
    line, cited = claim(bank, "hotspots", "Failed attempts", "pytest -q tests/test_pay.py")
    assert cited == [("attempt", str(rec.id))]
    assert "1 failed, 2 passed" in line and "tests/test_pay.py::test_charge" in line


def test_in_flight_lists_only_failures_no_later_run_resolved(bank: Any) -> None:
    # fresh-user report (stop 20): a failure fixed by a later passing run of the same suite
    # was still listed among the in-flight page's failed attempts
    bad = "FAILED tests/test_pay.py::test_charge - assert 9 == 10\n1 failed, 2 passed in 0.1s\n"
    first = bank.records.record("pytest -q", exit_code=1, output=bad)
    bank.pages.refresh()
    s = next(s for s in bank.pages.get("in-flight").sections
             if s.heading == "Failed attempts on this branch")
    assert str(first.id) in [c.ref for c in s.citations]  # with the module's earlier ones
    bank.records.record("pytest -q", exit_code=0, output="3 passed in 0.1s\n")
    bank.pages.refresh()
    s = next(s for s in bank.pages.get("in-flight").sections
             if s.heading == "Failed attempts on this branch")
    assert s.citations == [] and "No failed attempts recorded." in s.text  # the suite passed
