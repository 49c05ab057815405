"""The control plane in a real headless Chromium (Debian's ``chromium``, driven by
Playwright for Python), end to end in one browser session: open the address the server
printed, find a symbol, see its callers graph and walk it by a click, open a memory and
forget it, see it gone from recall, read the channel ranks in the recall debugger, and see
a memory retained from the CLI appear without a reload. Stored markup must render as text.
Screenshots go to tests/artifacts/ui/ (git-ignored).

The browser is required: when it is missing the test fails (it never skips); the README's
test command installs it when run as root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import uiutil
from test_ui import HOMES, cli, fixture_bank

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "ui"


def _browser_or_fail() -> None:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: the UI tests need Debian's chromium "
                    "(apt-get install -y chromium; bash scripts/test.sh does it as root)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("playwright is missing: pip install -e '.[dev]'")


def test_control_plane_end_to_end(tmp_path: Path) -> None:
    _browser_or_fail()
    from playwright.sync_api import expect, sync_playwright

    repo = tmp_path / "proj"
    HOMES[repo] = {"HINDSIGHT_HOME": str(tmp_path / "home")}
    fixture_bank(repo)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    srv = uiutil.start(repo, env=HOMES[repo])
    dialogs: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))

            # the printed address: the token becomes a cookie, the address loses it
            page.goto(srv.first_line.removeprefix("hindsight ui: "))
            assert page.url == srv.base + "/"
            expect(page.get_by_role("heading", name="Banks")).to_be_visible()
            expect(page.locator(".card.current")).to_contain_text("3 active")
            page.screenshot(path=str(ARTIFACTS / "banks.png"), full_page=True)

            # keyboard: the first Tab reaches the skip link, then the views
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.textContent") == "Skip to content"
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.textContent") == "Banks"

            # code: find a symbol as you type (htmx), open it, see its callers graph
            page.get_by_role("link", name="Code").click()
            page.get_by_role("textbox", name="Symbol", exact=True).fill("sess")
            link = page.locator("#results a", has_text="session")
            expect(link).to_be_visible()
            link.click()
            expect(page.locator("#symbol-title")).to_contain_text("session")
            graph = page.locator("#graph[data-ready='1']")
            expect(graph).to_have_attribute("data-nodes", "3")
            expect(page.locator("#callers-list")).to_contain_text("login")
            expect(page.locator("#graph-status")).to_contain_text("3 nodes, 2 edges")
            page.screenshot(path=str(ARTIFACTS / "symbol.png"), full_page=True)
            # click the caller node in the graph: walk to it
            box = page.locator("#graph").bounding_box()
            assert box is not None
            pos = page.evaluate("(() => { const n = window.hindsightGraph"
                                ".getElementById('svc/auth.py::login').renderedPosition();"
                                " return [n.x, n.y]; })()")
            page.mouse.click(box["x"] + pos[0], box["y"] + pos[1])
            expect(page.locator("#symbol-title")).to_contain_text("login")
            expect(page.locator("#callers-list")).to_contain_text("handle")
            # the memory anchored to login, with its markup shown as text
            row = page.locator("tr", has_text="login checks the user first")
            expect(row).to_contain_text("<script>alert('x')</script>")

            # open the memory, forget it with a reason
            row.get_by_role("link").click()
            expect(page.locator("#memory-text")).to_have_text(
                "We decided <script>alert('x')</script> login checks the user first")
            assert page.evaluate("[...document.scripts].every(s => !s.text.includes('alert'))")
            page.get_by_label("Reason").fill("replaced by the token check")
            page.get_by_role("button", name="Forget memory #1").click()
            expect(page.locator("#memory-status")).to_have_text("forgotten")
            expect(page.locator(".audit")).to_contain_text("replaced by the token check")
            page.goto(f"{srv.base}/memories?status=forgotten")
            expect(page.locator("#memory-1 td.text")).to_have_text(
                "We decided <script>alert('x')</script> login checks the user first")

            # the recall debugger: channel ranks; the forgotten memory is gone
            page.get_by_role("link", name="Recall").click()
            page.get_by_label("Query").fill("login checks user session token")
            page.get_by_role("button", name="Recall").click()
            hits = page.locator("#recall-hits")
            expect(hits).to_contain_text("session token cache went stale")
            expect(hits).not_to_contain_text("login checks the user first")
            expect(page.locator("#recall-timing")).to_contain_text("ms")
            ranks = page.locator("#recall-hits td[data-channel='bm25']").all_inner_texts()
            assert ranks and ranks[0].startswith("1 · "), ranks
            page.screenshot(path=str(ARTIFACTS / "recall.png"), full_page=True)

            # live: a memory retained from the CLI appears without a reload
            page.get_by_role("link", name="Memories").click()
            expect(page.locator("#memory-rows tr")).to_have_count(2)
            page.evaluate("window.__notReloaded = true")
            page.wait_for_timeout(300)  # the event stream is open
            r = cli("retain", "Agents must run the linter before committing <b>bold</b>",
                    "--kind", "convention", "--agent", "claude-code", "--session", "s-42",
                    cwd=repo)
            assert r.returncode == 0, r.stderr
            new = page.locator("#memory-rows tr").first
            expect(new).to_contain_text("run the linter before committing <b>bold</b>",
                                        timeout=10_000)
            expect(new).to_contain_text("claude-code")
            expect(page.locator("#live-status")).to_contain_text("arrived")
            assert page.evaluate("window.__notReloaded === true")
            page.screenshot(path=str(ARTIFACTS / "memories.png"), full_page=True)

            # a narrow window: nothing wider than the page but the scrolled tables
            page.set_viewport_size({"width": 400, "height": 800})
            page.reload()
            assert page.evaluate("document.documentElement.scrollWidth") <= 401
            page.screenshot(path=str(ARTIFACTS / "memories-narrow.png"), full_page=True)
            # every control has a label
            unlabelled = page.evaluate(
                "[...document.querySelectorAll('input:not([type=hidden]), select, button')]"
                ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')"
                " && !e.textContent.trim()).map(e => e.outerHTML)")
            assert unlabelled == []
            assert errors == []
            browser.close()
    finally:
        srv.stop()
    assert dialogs == []

