"""The MCP server at ``/mcp`` of ``hindsight serve`` behind the same tokens, TLS and the
loopback rule, and the visibility property over HTTP and MCP (issue 11, items 2 and 5)."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import subprocess
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from serverutil import call, cli, served, thread_server, token


def _mcp(url: str, tok: str | None, bank: str, calls: list[tuple[str, dict[str, Any]]]
         ) -> list[tuple[bool, Any]]:
    """Call MCP tools over streamable HTTP; (is_error, JSON or text) per call."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    out: list[tuple[bool, Any]] = []

    async def main() -> None:
        headers = {"Authorization": f"Bearer {tok}"} if tok else {}
        async with create_mcp_http_client(headers=headers) as hc, Client(
                streamable_http_client(f"{url}/mcp?bank={bank}", http_client=hc)) as c:
            for name, args in calls:
                r = await c.call_tool(name, args)
                text = r.content[0].text if r.content else ""
                try:
                    out.append((bool(r.is_error), json.loads(text)))
                except ValueError:
                    out.append((bool(r.is_error), text))

    anyio.run(main)
    return out


def test_mcp_over_http_uses_the_tokens(tmp_path: Path) -> None:
    home = tmp_path / "hs"
    with served(home) as s:
        # one team: the memory is retained with visibility "team" (the default)
        w = token(home, "alice", "--role", "write", "--bank", "team::*", "--team", "core")
        r = token(home, "reader", "--role", "read", "--bank", "team::app", "--team", "core")
        status, err = call(s.url, "POST", "/mcp?bank=team::app", {"jsonrpc": "2.0", "id": 1,
                                                                 "method": "tools/list"})
        assert status == 401 and err["type"] == "Unauthorized"
        status, err = call(s.url, "POST", "/mcp?bank=other", {"jsonrpc": "2.0", "id": 1,
                                                             "method": "tools/list"}, tok=w)
        assert status == 403
        res = _mcp(s.url, w, "team::app", [
            ("retain", {"text": "the release branch is cut on Thursdays", "kind": "fact"}),
            ("recall", {"text": "release branch"})])
        assert res[0][0] is False and res[0][1]["action"] == "created"
        assert res[1][1]["hits"][0]["text"] == "the release branch is cut on Thursdays"
        mid = res[0][1]["id"]
        status, shown = call(s.url, "GET", f"/v1/memories/{mid}?bank=team::app", tok=w)
        assert (shown["memory"]["owner"], shown["memory"]["agent"]) == ("alice", "alice")
        # what MCP retains and recalls counts in /metrics as the REST routes' (fresh-user
        # run 38: it counted none)
        _s, text = call(s.url, "GET", "/metrics", tok=w)
        values = {ln.split(" ")[0]: float(ln.split(" ")[1]) for ln in text.splitlines()
                  if ln.startswith("hindsight_") and " " in ln}
        assert values['hindsight_retain_total{outcome="success"}'] == 1
        assert (values["hindsight_recall_total"], values["hindsight_recall_hits_total"]) == (1, 1)
        # a read token: recall works, retain and forget are tool errors; no bank needed in
        # the URL when its glob names one bank
        res = _mcp(s.url, r, "", [("recall", {"text": "release"}),
                                  ("retain", {"text": "sneaky write"}),
                                  ("forget", {"memory_id": mid, "reason": "x"})])
        assert res[0][0] is False and len(res[0][1]["hits"]) == 1
        assert res[1] == (True, res[1][1]) and "role is read" in res[1][1]
        assert res[2][0] is True and "role is read" in res[2][1]
        # the code tools: a server's bank holds memories only, and says so
        res = _mcp(s.url, w, "team::app", [("callers", {"symbol": "main"})])
        assert res[0][0] is True
        assert res[0][1].endswith("this bank has no code index: a team server's banks hold "
                                  "memories; the code tools answer from a checkout's own "
                                  "`hindsight mcp`")


def _cert(tmp: Path) -> tuple[str, str]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


def test_tls_and_the_loopback_rule(tmp_path: Path) -> None:
    home = tmp_path / "hs"
    res = cli(home, "serve", "--host", "0.0.0.0", "--port", "0", check=False)
    assert res.returncode == 2 and "needs TLS" in res.stderr and res.stdout == ""
    res = cli(home, "serve", "--ssl-certfile", "/nonexistent.pem", "--port", "0", check=False)
    assert res.returncode == 2 and "both --ssl-certfile and --ssl-keyfile" in res.stderr
    cert, key = _cert(tmp_path)
    with served(home, "--host", "0.0.0.0", "--ssl-certfile", cert, "--ssl-keyfile", key) as s:
        assert s.url.startswith("https://0.0.0.0:")
        port = int(s.url.rsplit(":", 1)[1])
        ctx = ssl.create_default_context(cafile=cert)
        ctx.check_hostname = False
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
                ctx.wrap_socket(raw) as tls:
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := tls.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and b'"ok":true' in reply
        # plain HTTP on the TLS port gets no answer
        status = None
        with contextlib.suppress(OSError, http.client.HTTPException):  # closed: expected
            status, _ = call(f"http://127.0.0.1:{port}", "GET", "/healthz", timeout=5)
        assert status != 200
    with served(home, "--host", "0.0.0.0", "--insecure") as s:
        port = int(s.url.rsplit(":", 1)[1])
        assert call(f"http://127.0.0.1:{port}", "GET", "/healthz")[0] == 200
    assert s.proc.returncode == 0 and s.proc.stdout is not None
    assert s.proc.stdout.read() == ""  # the address line was the only one


# --- visibility: no route shows a memory its caller may not see --------------------------
AGENTS = {"ann": "red", "bob": "red", "cyd": "blue", "dee": ""}
VIS = ("private", "team", "public")


def visible(reader: str, admin: bool, owner: str, vis: str) -> bool:
    """Issue 11, item 5: private → its owner; team → the owner's team; public → all."""
    if admin or owner == reader or vis == "public":
        return True
    return vis == "team" and AGENTS[reader] != "" and AGENTS[reader] == AGENTS[owner]


@pytest.fixture(scope="module")
def vis_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import os

    from hindsight.app import open_token_store
    from hindsight.mcp.server import build_mcp_server
    from hindsight.server.state import ServerState
    from hindsight.server.tokens import new_token

    home = tmp_path_factory.mktemp("vis-home")
    old = {k: os.environ.get(k) for k in ("HINDSIGHT_HOME", "HINDSIGHT_EMBEDDER")}
    os.environ.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDER="hashing")
    state = ServerState(open_token_store(""))
    toks: dict[tuple[str, bool], str] = {}
    for agent, team in AGENTS.items():
        for admin in (False, True):
            row, text = new_token(agent, team=team, role="admin" if admin else "write")
            state.tokens.add_token(row)
            toks[(agent, admin)] = text
    with thread_server(state, build_mcp_server) as url:
        yield url, toks
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


memories_st = st.lists(st.tuples(st.sampled_from(sorted(AGENTS)), st.sampled_from(VIS)),
                       min_size=1, max_size=6)


@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(mems=memories_st, reader=st.sampled_from(sorted(AGENTS)), admin=st.booleans())
@example(mems=[("ann", "team"), ("ann", "private")], reader="cyd", admin=False)
def test_no_route_returns_a_memory_its_caller_may_not_see(
        vis_server: Any, mems: list[tuple[str, str]], reader: str, admin: bool) -> None:
    url, toks = vis_server
    bank = f"vis::{uuid.uuid4().hex[:10]}"
    owner_of: dict[int, tuple[str, str]] = {}
    for n, (agent, vis) in enumerate(mems):
        status, res = call(url, "POST", "/v1/retain", {
            "bank": bank, "text": f"zebra crossing note {n} {uuid.uuid4().hex}",
            "visibility": vis}, tok=toks[(agent, False)])
        assert status == 200, res
        owner_of[res["id"]] = (agent, vis)
        status, shown = call(url, "GET", f"/v1/memories/{res['id']}?bank={bank}",
                             tok=toks[(agent, False)])
        assert shown["memory"]["owner"] == agent  # a write never claims another owner
    tok = toks[(reader, admin)]
    seen: dict[str, set[int]] = {}
    _s, rec = call(url, "POST", "/v1/recall", {"bank": bank, "text": "zebra crossing",
                                               "k": 50, "dense": False}, tok=tok)
    seen["recall"] = {h["id"] for h in rec["hits"]}
    _s, listed = call(url, "GET", f"/v1/memories?bank={bank}&limit=100", tok=tok)
    seen["list"] = {m["id"] for m in listed["memories"]}
    seen["show"] = {mid for mid in owner_of
                    if call(url, "GET", f"/v1/memories/{mid}?bank={bank}", tok=tok)[0] == 200}
    _s, text = call(url, "GET", f"/v1/export?bank={bank}", tok=tok)
    seen["export"] = {json.loads(ln)["id"] for ln in text.splitlines() if ln.strip()}
    _s, ref = call(url, "POST", "/v1/reflect", {"bank": bank, "question": "zebra crossing"},
                   tok=tok)
    seen["reflect"] = {int(w.strip("[#").split()[0]) for lines in ref["by_kind"].values()
                       for w in lines}
    mcp = _mcp(url, tok, bank, [("recall", {"text": "zebra crossing", "k": 50})])
    seen["mcp recall"] = {h["id"] for h in mcp[0][1]["hits"]}
    allowed = {mid for mid, (owner, vis) in owner_of.items()
               if visible(reader, admin, owner, vis)}
    leaks = {route: sorted(ids - allowed) for route, ids in seen.items() if ids - allowed}
    assert not leaks, f"{reader} (admin={admin}) saw {leaks} of {owner_of}"
    assert seen["list"] == allowed and seen["show"] == allowed
