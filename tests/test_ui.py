"""``hindsight ui`` over HTTP, as a real subprocess: the address line, the token on every
route, the Host guard (DNS rebinding), cross-site form checks, forget/restore, the views'
content and the vendored assets. The browser flow is in test_ui_browser.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
import uiutil
from conftest import git, make_repo, write

from hindsight.ui import security

REPO = {
    "svc/__init__.py": "",
    "svc/auth.py": ("def check(user):\n    return bool(user)\n\n\n"
                    "def login(user):\n    \"\"\"Log a user in.\"\"\"\n    if check(user):\n"
                    "        return session(user)\n\n\ndef session(user):\n    return token()\n\n\n"
                    "def token():\n    return 'x'\n"),
    "svc/api.py": "from svc.auth import login\n\n\ndef handle(req):\n    return login(req)\n",
}
HOMES: dict[Path, dict[str, str]] = {}  # a module-wide fixture's own HINDSIGHT_HOME
VENDOR = Path(__file__).resolve().parent.parent / "src" / "hindsight" / "ui" / "static" / "vendor"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``hindsight ARGS`` in ``cwd``, in the home of the repository's fixture."""
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing", **HOMES.get(cwd, {})}
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def fixture_bank(root: Path) -> Path:
    """A git repository with two commits, indexed and ingested, and three memories (one
    holding markup) retained through the CLI."""
    repo = make_repo(root, REPO)
    write(repo, {"svc/auth.py": REPO["svc/auth.py"].replace("bool(user)", "user is not None")})
    git(repo, "commit", "-qam", "fix: check treats empty names as users")
    for args in (["index"], ["ingest"],
                 ["retain", "We decided <script>alert('x')</script> login checks the user first",
                  "--symbol", "svc/auth.py::login", "--tag", "auth", "--kind", "decision"],
                 ["retain", "Lesson: the session token cache went stale after deploys",
                  "--symbol", "svc/auth.py::session", "--kind", "lesson", "--tag", "cache"],
                 ["retain", "A private note about tokens", "--visibility", "private",
                  "--agent", "bot"]):
        r = cli(*args, cwd=repo)
        assert r.returncode == 0, r.stderr
    return repo


@pytest.fixture(scope="module")
def module_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fixture bank for this module, in its own home (tests leave it as they found
    it: a memory forgotten is restored)."""
    base = tmp_path_factory.mktemp("ui")
    repo = base / "proj"
    HOMES[repo] = {"HINDSIGHT_HOME": str(base / "home")}
    return fixture_bank(repo)


@pytest.fixture(scope="module")
def served(module_repo: Path) -> Iterator[tuple[uiutil.Server, Path]]:
    srv = uiutil.start(module_repo, env=HOMES[module_repo])
    yield srv, module_repo
    srv.stop()


def test_address_line_token_and_cookie(served: tuple[uiutil.Server, Path]) -> None:
    srv, _repo = served
    assert srv.base == f"http://127.0.0.1:{srv.port}" and srv.port != 8765
    assert len(srv.token) == 32
    status, _h, body = srv.get("/", token=False)
    assert status == 403 and "token required" in body
    status, _h, _b = srv.get("/", token=False, headers={"X-Hindsight-Token": "x" * 32})
    assert status == 403
    # the token in the address once: a cookie (HttpOnly, SameSite=Strict) and a redirect
    # to the same address without it
    status, h, _b = srv.get(f"/memories?kind=lesson&token={srv.token}", token=False)
    assert status == 303 and h["location"] == "/memories?kind=lesson"
    cookie = h["set-cookie"]
    assert cookie.startswith(f"hindsight_ui={srv.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    status, h, body = srv.get("/memories?kind=lesson", token=False,
                              headers={"Cookie": f"hindsight_ui={srv.token}"})
    assert status == 200 and "session token cache went stale" in body
    assert "login checks the user first" not in body  # filtered to lessons
    assert "script-src 'self'" in h["content-security-policy"]
    assert h["x-frame-options"] == "DENY" and h["referrer-policy"] == "same-origin"
    assert re.fullmatch(r"app;dur=\d+\.\d", h["server-timing"])


def test_every_route_needs_the_token(served: tuple[uiutil.Server, Path]) -> None:
    from hindsight.ui.state import UiState
    from hindsight.ui.web import build_app

    srv, _repo = served
    app = build_app(UiState("t"))
    paths = [getattr(r, "path", "") for r in app.app.routes]
    assert {"/", "/memories", "/recall", "/code", "/symbol", "/api/graph", "/hotspots",
            "/pages", "/events/memories", "/static"} <= set(paths)
    for p in paths:
        path = (p.replace("{mid:int}", "1").replace("{action:str}", "forget")
                .replace("/static", "/static/app.js"))
        for method in ("GET", "POST"):
            status, _h, body = srv.get(path, token=False, method=method,
                                       data=b"" if method == "POST" else None)
            assert status == 403 and "token required" in body, (method, path, status)


def test_host_guard_refuses_other_names(served: tuple[uiutil.Server, Path]) -> None:
    srv, _repo = served
    for host in ("evil.example", f"evil.example:{srv.port}", "127.0.0.1.nip.io", "10.0.0.1"):
        status, _h, body = srv.get("/", headers={"Host": host})
        assert status == 403 and "refused" in body, host
    for host in (f"localhost:{srv.port}", f"127.0.0.1:{srv.port}", f"[::1]:{srv.port}"):
        status, _h, _b = srv.get("/memories", headers={"Host": host})
        assert status == 200, host


def test_host_option_warns_and_lifts_the_guard(module_repo: Path) -> None:
    srv = uiutil.start(module_repo, "--host", "0.0.0.0", env=HOMES[module_repo])
    try:
        assert srv.base.startswith("http://127.0.0.1:")
        status, _h, _b = srv.get("/memories", headers={"Host": f"devbox.lan:{srv.port}"})
        assert status == 200
    finally:
        err = srv.stop()
    assert "warning: serving on 0.0.0.0" in err


def test_port_in_use_is_a_clear_error(module_repo: Path) -> None:
    repo = module_repo
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = cli("ui", "--port", str(port), cwd=repo)
    assert r.returncode == 2 and r.stdout == ""
    assert f"port {port} on 127.0.0.1" in r.stderr and "--port 0" in r.stderr


def _form(srv: uiutil.Server, path: str, fields: dict[str, str],
          headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    return srv.get(path, token=False, method="POST", data=urlencode(fields).encode(),
                   headers={"Content-Type": "application/x-www-form-urlencoded",
                            "Cookie": f"hindsight_ui={srv.token}", **headers})


def test_forms_refuse_cross_site_requests(served: tuple[uiutil.Server, Path]) -> None:
    srv, repo = served
    own = {"Origin": srv.base}
    ok = {"token": srv.token, "reason": "superseded by the new check"}
    for headers, fields in (({"Origin": "http://evil.example"}, ok),
                            ({"Origin": "null"}, ok),
                            ({**own, "Sec-Fetch-Site": "cross-site"}, ok),
                            ({**own, "Sec-Fetch-Site": "same-site"}, ok),
                            (own, {"reason": "no token in the form"}),
                            (own, {"token": "x" * 32, "reason": "a wrong token"})):
        status, _h, _b = _form(srv, "/memory/1/forget", fields, headers)
        assert status == 403, (headers, fields)
    assert json.loads(cli("memories", "--status", "forgotten", "--json", cwd=repo).stdout
                      )["count"] == 0
    status, h, _b = _form(srv, "/memory/1/forget", ok, {**own, "Sec-Fetch-Site": "same-origin"})
    assert status == 303 and h["location"] == "/memory/1"
    gone = json.loads(cli("memories", "--status", "forgotten", "--json", cwd=repo).stdout)
    assert [m["id"] for m in gone["memories"]] == [1]
    status, _h, body = srv.get("/memory/1")
    assert "superseded by the new check" in body and ">Restore memory #1<" in body
    status, _h, _b = _form(srv, "/memory/1/restore", {"token": srv.token, "reason": "it holds"},
                           own)
    shown = json.loads(cli("show", "1", "--json", cwd=repo).stdout)
    assert status == 303 and shown["status"] == "active"
    assert shown["history"][-1]["detail"] == "restored: it holds"
    # forgetting needs a reason: the service's error, shown as a page
    status, _h, body = _form(srv, "/memory/2/forget", {"token": srv.token, "reason": " "}, own)
    assert status == 400 and "forget needs a reason" in body


def test_views_show_the_bank(served: tuple[uiutil.Server, Path]) -> None:
    srv, repo = served
    status, _h, body = srv.get("/")
    assert status == 200 and "coding-agent::proj" in body and "3 active" in body
    assert "2 commits" in body
    status, _h, body = srv.get("/memories?tag=auth")
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in body and "<script>alert" not in body
    assert "session token cache" not in body
    _s, _h, body = srv.get("/memories?visibility=private")
    assert "A private note about tokens" in body and "login checks" not in body
    _s, _h, body = srv.get("/memories?anchor=svc/auth.py::session")
    assert "session token cache" in body and "login checks" not in body
    _s, _h, body = srv.get("/memories?since=2000-01-01&until=2000-01-02")
    assert "No memories match." in body
    status, _h, body = srv.get("/memories?kind=nonsense")
    assert status == 400 and "kind &#39;nonsense&#39;: one of" in body
    status, _h, body = srv.get("/memories?since=not-a-time")
    assert status == 400 and "since" in body
    _s, _h, body = srv.get("/code?q=log")
    assert 'href="/symbol?q=svc/auth.py%3A%3Alogin"' in body or \
        'href="/symbol?q=svc/auth.py::login"' in body
    status, _h, body = srv.get("/symbol?q=login")
    assert status == 200 and "def login(user):" in body
    assert "fix: check treats empty names as users" not in body  # check changed, not login
    assert "init" in body and "login checks the user first" in body
    _s, _h, body = srv.get("/symbol?q=check")
    assert "fix: check treats empty names as users" in body
    status, _h, body = srv.get("/api/graph?q=svc/auth.py::session&depth=2")
    g = json.loads(body)
    assert g["center"] == "svc/auth.py::session"
    assert {(n["id"], n["side"], n["depth"]) for n in g["nodes"]} == {
        ("svc/auth.py::session", "center", 0), ("svc/auth.py::login", "caller", 1),
        ("svc/api.py::handle", "caller", 2), ("svc/auth.py::token", "callee", 1)}
    assert {(e["source"], e["target"]) for e in g["edges"]} == {
        ("svc/auth.py::login", "svc/auth.py::session"),
        ("svc/api.py::handle", "svc/auth.py::login"),
        ("svc/auth.py::session", "svc/auth.py::token")}
    status, _h, body = srv.get("/api/graph?q=nothing_like_this")
    assert status == 400 and "no symbol named" in json.loads(body)["error"]
    status, _h, body = srv.get("/symbol?q=nothing_like_this")
    assert status == 404 and "no symbol named" in body
    _s, _h, body = srv.get("/hotspots")
    assert "svc/auth.py" in body and "<svg" in body
    _s, _h, body = srv.get("/recall?q=login+checks&dense=off")
    assert 'data-channel="bm25">1 · ' in body and "#1</a>" in body
    assert "dense" not in re.findall(r'data-channel="(\w+)">\d', body)
    _s, _h, body = srv.get("/pages")
    assert 'id="no-pages"' in body
    assert repo.exists()


def test_pages_view_renders_the_pages_shape() -> None:
    """The one integration point with the pages service and the template that shows its
    JSON shape (issue 13 part 1): text and citations escaped, memory and symbol citations
    linked."""
    from hindsight.ui.code_views import pages_of
    from hindsight.ui.state import UiState
    from hindsight.ui.web import Ui

    class Pages:
        def list(self) -> list[dict[str, object]]:
            return [{"name": "conventions", "title": "Conventions", "version": 3,
                     "updated_at": "2026-03-10T08:30:00+00:00",
                     "sections": [{"heading": "Tests", "text": "pytest <b>only</b>",
                                   "citations": [{"kind": "memory", "ref": "7"},
                                                 {"kind": "symbol", "ref": "a.py::f"},
                                                 {"kind": "commit", "ref": "abc123"}]}]}]

    class WithPages:
        pages = Pages()

    assert pages_of(object()) is None
    got = pages_of(WithPages())
    assert got is not None and got[0]["name"] == "conventions"
    html = Ui(UiState("t")).fragment("pages.html", pages=got, active="pages", nav=())
    assert "pytest &lt;b&gt;only&lt;/b&gt;" in html and 'href="/memory/7"' in html
    assert 'href="/symbol?q=a.py%3A%3Af"' in html and "commit abc123" in html
    empty = Ui(UiState("t")).fragment("pages.html", pages=None, active="pages", nav=())
    assert "No pages yet" in empty


@pytest.mark.parametrize(("header", "name"), [("127.0.0.1:8765", "127.0.0.1"),
                                             ("LOCALHOST", "localhost"), ("[::1]:80", "::1"),
                                             ("::1", "::1"), ("evil.example:1", "evil.example")])
def test_host_name(header: str, name: str) -> None:
    assert security.host_name(header) == name


def test_vendored_assets_match_their_notice() -> None:
    notice = (VENDOR / "NOTICE").read_text()
    for name in ("htmx.min.js", "cytoscape.min.js"):
        digest = hashlib.sha256((VENDOR / name).read_bytes()).hexdigest()
        assert f"sha256 {digest}" in notice, name
    assert "Zero-Clause BSD" in (VENDOR / "htmx.LICENSE").read_text()
    assert "MIT" in (VENDOR / "cytoscape.LICENSE").read_text() or \
        "Permission is hereby granted" in (VENDOR / "cytoscape.LICENSE").read_text()


def test_walk_limit_keeps_the_first_hits(module_repo: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The graph and the symbol page ask for at most N callers: the first N of the full
    walk, nearest first, and whether some were left out."""
    from hindsight.app import open_bank
    from hindsight.ui.code_views import graph

    monkeypatch.setenv("HINDSIGHT_HOME", HOMES[module_repo]["HINDSIGHT_HOME"])
    with open_bank(str(module_repo), create=False) as bank:
        _t, full, _d, cut = bank.code.walk("callers", "token", 3)
        assert [h.qname for h in full] == ["svc/auth.py::session", "svc/auth.py::login",
                                           "svc/api.py::handle"] and not cut
        for n in (1, 2, 3):
            _t, got, _d, cut = bank.code.walk("callers", "token", 3, limit=n)
            assert [h.qname for h in got] == [h.qname for h in full[:n]]
            assert cut is (n < 3)
        g = graph(bank, "svc/auth.py::session", 2, 3)
        assert g["truncated"] and len(g["nodes"]) == 3
        assert {n["id"] for n in g["nodes"]} == {
            "svc/auth.py::session", "svc/auth.py::login", "svc/auth.py::token"}


def test_switch_bank_and_open(module_repo: Path, tmp_path: Path) -> None:
    """The Banks view lists every bank of the home and switches the one the other views
    show (a cookie); ``--open`` hands the address to the browser ($BROWSER here)."""
    other = make_repo(tmp_path / "other", {"lib.py": "def helper():\n    return 1\n"})
    HOMES[other] = HOMES[module_repo]
    for args in (["index"], ["retain", "The other repository keeps its own notes"]):
        assert cli(*args, cwd=other).returncode == 0
    opened = tmp_path / "opened.txt"
    browser = f"{sys.executable} -c \"import sys; open({str(opened)!r}, 'w').write(sys.argv[1])\" %s"
    srv = uiutil.start(module_repo, "--open", env={**HOMES[module_repo], "BROWSER": browser})
    try:
        status, _h, body = srv.get("/")
        assert status == 200 and "coding-agent::proj" in body and "coding-agent::other" in body
        assert body.index("coding-agent::proj") < body.index("coding-agent::other")  # current
        status, h, _b = srv.get("/banks/switch", method="POST", data=urlencode(
            {"token": srv.token, "root": str(other)}).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": srv.base})
        assert status == 303 and h["set-cookie"].startswith("hindsight_bank=")
        cookie = h["set-cookie"].split(";")[0]
        _s, _h, body = srv.get("/memories", headers={"Cookie": cookie})
        assert "keeps its own notes" in body and "login checks" not in body
        assert "Bank <strong>coding-agent::other</strong>" in body
        _s, _h, body = srv.get("/memories")  # no cookie: the default bank
        assert "login checks" in body
        status, _h, _b = srv.get("/banks/switch", method="POST", data=urlencode(
            {"token": srv.token, "root": "/etc"}).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": srv.base})
        assert status == 400
        for _ in range(50):
            if opened.exists():
                break
            time.sleep(0.1)
        assert opened.read_text() == srv.first_line.removeprefix("hindsight ui: ")
    finally:
        srv.stop()


def test_pages_written_by_the_cli_show_with_numbered_evidence(
        served: tuple[uiutil.Server, Path]) -> None:
    """The knowledge pages service behind the /pages view (issue 13 part 1): after
    ``hindsight pages --refresh`` the view shows each page, its sections, the claims' [n]
    marks and the evidence they number, memories and symbols linked."""
    srv, repo = served
    r = cli("pages", "--refresh", "--json", cwd=repo)
    assert r.returncode == 0, r.stderr
    pages = json.loads(r.stdout)["pages"]
    _s, _h, body = srv.get("/pages")
    assert 'id="no-pages"' not in body
    for p in pages:
        assert f'<article id="page-{p["name"]}" class="page">' in body
        assert f"<h2>{p['title']}</h2>" in body
        for s in p["sections"]:
            assert f"<h3>{s['heading']}</h3>" in body
    hot = next(p for p in pages if p["name"] == "hotspots")
    files = hot["sections"][0]
    assert files["citations"][0] == {"kind": "file", "ref": "svc/auth.py"}
    assert "svc/auth.py" in files["text"] and "[1]" in files["text"]
    assert "[1] <span class=\"tag\">file svc/auth.py</span>" in body
    conv = next(p for p in pages if p["name"] == "conventions")["sections"][0]
    mid = next(c["ref"] for c in conv["citations"] if c["kind"] == "memory")
    assert f'href="/memory/{mid}">memory {mid}</a>' in body
    assert "&lt;script&gt;alert" in body and "<script>alert" not in body
    assert 'href="/symbol?q=svc/auth.py%3A%3A' in body
