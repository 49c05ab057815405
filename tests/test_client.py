"""Client mode (issue 11, item 6): the CLI and the Claude Code hooks of a checkout keep
their memories on a real ``hindsight serve`` subprocess; the bank id comes from the
normalised ``origin`` URL; write-back that cannot reach the server is spooled and replayed
once."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from ccfixture import Transcript
from histutil import Repo, fn, git
from hookutil import FRAME, convention_session, hook, make_env, start
from serverutil import call, served, token
from serverutil import start as serve

from hindsight.config.banks import normalise_remote

BANK = "coding-agent::github.com/org/shop"


@pytest.mark.parametrize("url", [
    "git@github.com:org/shop.git", "git@github.com:org/shop",
    "ssh://git@github.com/org/shop.git", "ssh://git@GitHub.com:22/org/shop/",
    "https://github.com/org/shop.git", "https://alice:s3cret@github.com/org/shop.git",
    "https://ghp_abc@github.com/org/shop"])
def test_remote_urls_normalise_the_same(url: str) -> None:
    assert normalise_remote(url) == "github.com/org/shop"


def test_normalised_remote_never_shows_credentials() -> None:
    got = normalise_remote("https://bob:hunter2@gitlab.example.com:8443/team/app.git")
    assert got == "gitlab.example.com/team/app" and "hunter2" not in got


def _clone(tmp: Path, name: str, origin: str) -> Repo:
    r = Repo(tmp / name)
    r.write("pay.py", fn("charge", calls="refund()") + fn("refund"))
    r.commit("add payments")
    git(r.path, "remote", "add", "origin", origin)
    return r


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=cwd)


def _client_env(tmp: Path, who: str, url: str, tok: str) -> dict[str, str]:
    env = make_env(tmp / who)
    (tmp / who).mkdir(parents=True, exist_ok=True)
    tokfile = tmp / who / "token"
    tokfile.write_text(tok + "\n")
    env.update(HINDSIGHT_API_URL=url, HINDSIGHT_API_TOKEN_FILE=str(tokfile))
    return env


def _server_texts(url: str, tok: str) -> list[str]:
    st, body = call(url, "GET", f"/v1/memories?bank={BANK}&limit=1000", tok=tok)
    assert st == 200, body
    return [m["text"] for m in body["memories"]]


def test_two_clones_in_differently_named_folders_share_one_bank(tmp_path: Path) -> None:
    with served(tmp_path / "server") as srv:
        # teammates: memories are retained with visibility "team" (the default)
        tok_a = token(tmp_path / "server", "alice", "--team", "core", "--role", "write")
        tok_b = token(tmp_path / "server", "bob", "--team", "core", "--role", "write")
        a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        b = _clone(tmp_path, "checkout-2", "https://bob:pw@github.com/org/shop.git")
        ea = _client_env(tmp_path, "alice", srv.url, tok_a)
        eb = _client_env(tmp_path, "bob", srv.url, tok_b)
        r = _run(ea, a.path, "retain", "Refunds go through the ledger, never direct.",
                 "--kind", "convention")
        assert r.returncode == 0, r.stderr
        r = _run(eb, b.path, "recall", "refunds ledger", "--json")
        assert r.returncode == 0, r.stderr
        hits = json.loads(r.stdout)["hits"]
        assert [h["text"] for h in hits] == ["Refunds go through the ledger, never direct."]
        assert hits[0]["agent"] == "alice"
        st = json.loads(_run(eb, b.path, "status", "--json").stdout)
        assert (st["bank"], st["mode"], st["server"]["answers"]) == (BANK, "client", True)
        assert st["memories"]["active"] == 1
        shown = _run(eb, b.path, "config", "show", "--json").stdout
        assert tok_b not in shown and "pw@" not in shown
        # nothing went to the local banks
        assert _server_texts(srv.url, tok_a) == ["Refunds go through the ledger, never direct."]


def test_status_says_when_the_server_does_not_answer(tmp_path: Path) -> None:
    a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
    env = _client_env(tmp_path, "alice", f"http://127.0.0.1:{_free_port()}", "x")
    r = _run(env, a.path, "status")
    assert r.returncode == 0, r.stderr
    assert "client of http://127.0.0.1:" in r.stdout and "does not answer" in r.stdout
    st = json.loads(_run(env, a.path, "status", "--json").stdout)
    assert (st["bank"], st["server"]["answers"], st["memories"]) == (BANK, False, {})


def test_claude_session_with_the_server_down_then_up(tmp_path: Path) -> None:
    """Hooks as real subprocesses: the server is down for the whole session (every hook
    exits 0 within its budget, the write-back is spooled 0700), then comes up: the next
    session's start replays it, the memory arrives once, and a second replay adds
    nothing."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    srv_home = tmp_path / "server"
    srv = serve(srv_home, "--port", str(port))
    tok = token(srv_home, "alice", "--role", "write")
    srv.stop()
    repo = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
    env = _client_env(tmp_path, "alice", url, tok)
    r = hook("session-start", start("s1", repo.path), env, cwd=repo.path)
    assert r.returncode == 0, r.stderr
    r = hook("user-prompt-submit", {"session_id": "s1", "cwd": str(repo.path),
                                    "prompt": "use pathlib here"}, env, cwd=repo.path)
    assert (r.returncode, r.stdout) == (0, "")
    t = Transcript(tmp_path / "t" / "s1.jsonl", "s1", str(repo.path))
    convention_session(t)
    stop = {"session_id": "s1", "transcript_path": str(t.write()), "cwd": str(repo.path),
            "hook_event_name": "Stop", "stop_hook_active": False}
    r = hook("stop", stop, env, cwd=repo.path)
    assert (r.returncode, r.stdout) == (0, "")
    spool = [p for p in (tmp_path / "alice" / "hs" / "spool").rglob("remote")]
    assert len(spool) == 1 and stat.S_IMODE(os.stat(spool[0]).st_mode) == 0o700
    assert len(list(spool[0].glob("*.json"))) >= 1
    srv = serve(srv_home, "--port", str(port))
    try:
        r = hook("session-start", start("s2", repo.path), env, cwd=repo.path)
        assert r.returncode == 0, r.stderr
        # each hook replays for at most 0.3 s (its budget is short): on a loaded machine
        # the spool may take a few hooks to drain
        for _ in range(10):
            if not list(spool[0].glob("*.json")):
                break
            r = hook("user-prompt-submit", {"session_id": "s2", "cwd": str(repo.path),
                                            "prompt": "hello"}, env, cwd=repo.path)
            assert r.returncode == 0
        assert list(spool[0].glob("*.json")) == []
        texts = _server_texts(url, tok)
        assert texts.count("Always use pathlib, never os.path, in this repo.") == 1
        n = len(texts)
        r = hook("stop", stop, env, cwd=repo.path)  # the same transcript again
        assert r.returncode == 0
        assert len(_server_texts(url, tok)) == n
        # the briefing of a later session comes from the server
        r = hook("session-start", start("s3", repo.path), env, cwd=repo.path)
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert text.startswith('<hindsight-memory kind="session-briefing">\n' + FRAME)
        assert "Always use pathlib, never os.path, in this repo." in text
    finally:
        srv.stop()


def test_push_copies_the_local_bank_once(tmp_path: Path) -> None:
    with served(tmp_path / "server") as srv:
        tok = token(tmp_path / "server", "alice", "--role", "write")
        a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        env = _client_env(tmp_path, "alice", srv.url, tok)
        local = {k: v for k, v in env.items() if not k.startswith("HINDSIGHT_API")}
        for text in ("Money is kept in integer cents.", "Refunds need a ticket id."):
            r = _run(local, a.path, "retain", text, "--kind", "convention", "--file", "pay.py")
            assert r.returncode == 0, r.stderr
        r = _run(env, a.path, "push", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == {"from": "coding-agent::shop", "local": 2,
                                        "created": 2, "duplicates": 0}
        r = _run(env, a.path, "push", "--json")
        assert json.loads(r.stdout)["created"] == 0
        assert sorted(_server_texts(srv.url, tok)) == ["Money is kept in integer cents.",
                                                       "Refunds need a ticket id."]
        st, body = call(srv.url, "GET", f"/v1/memories?bank={BANK}", tok=tok)
        assert {m["agent"] for m in body["memories"]} == {"alice"}
        assert [a["path"] for m in body["memories"] for a in m["anchors"]] == ["pay.py"] * 2
        r = _run(local, a.path, "push")
        assert r.returncode != 0 and "client mode" in r.stderr


def test_token_file_is_read_again_after_a_401(tmp_path: Path) -> None:
    from hindsight.remote.client import ServerClient

    with served(tmp_path / "server") as srv:
        tok = token(tmp_path / "server", "alice", "--role", "write")
        f = tmp_path / "tok"
        f.write_text("hst_1_not-a-valid-token\n")
        c = ServerClient(srv.url, token_file=str(f), timeout_s=10)
        assert c.token() == "hst_1_not-a-valid-token"
        f.write_text(tok + "\n")  # rotated while the client runs
        assert c.request("GET", "/v1/banks")["agent"] == "alice"
        f.write_text("hst_1_still-wrong\n")
        c2 = ServerClient(srv.url, token_file=str(f), timeout_s=10)
        from hindsight.errors import Unauthorized

        with pytest.raises(Unauthorized, match="server: ") as e:
            c2.request("GET", "/v1/banks")
        assert str(e.value).endswith("; the configured token (HINDSIGHT_API_TOKEN, apiToken "
                                     "or apiTokenFile) was refused")
        # none configured: say what to set (fresh-user trial, stop 24)
        with pytest.raises(Unauthorized) as e:
            ServerClient(srv.url, timeout_s=10).request("GET", "/v1/banks")
        assert str(e.value) == (
            "server: no token: send Authorization: Bearer <token>; set HINDSIGHT_API_TOKEN "
            "(apiToken) or apiTokenFile to a token from `hindsight token create`")


def test_a_server_of_another_api_major_is_said_in_one_line(tmp_path: Path) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from hindsight.errors import Unreachable
    from hindsight.remote.client import ServerClient

    class Future(BaseHTTPRequestHandler):  # a server speaking API 2
        def do_GET(self) -> None:
            data = b'{"version": "9.0.0", "api": 2}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Future)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        with pytest.raises(Unreachable) as e:
            ServerClient(url).version()
        assert str(e.value) == (f"{url}: server API 2 (release 9.0.0); this client speaks "
                                "API 1")
        a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        env = _client_env(tmp_path, "alice", url, "x")
        r = _run(env, a.path, "status")
        assert f"does not answer ({url}: server API 2 (release 9.0.0); this client " \
               "speaks API 1)" in r.stdout
    finally:
        httpd.shutdown()


def test_a_batch_claimed_by_a_dead_process_is_sent_again(tmp_path: Path) -> None:
    """A hook that ended while sending leaves ``*.json.<pid>.sending``: the next replay
    puts it back and sends it; the server keeps one copy (idempotency key)."""
    with served(tmp_path / "server") as srv:
        tok = token(tmp_path / "server", "alice", "--role", "write")
        a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        env = _client_env(tmp_path, "alice", srv.url, tok)
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout.strip()
        _run(env, a.path, "status", "--json")  # makes the bank's spool directory
        d = next((tmp_path / "alice" / "hs" / "spool").iterdir()) / "remote"
        d.mkdir(mode=0o700)
        job = {"key": "hs-test-1", "bank": BANK, "items": [
            {"text": "Claimed batches come back.", "anchors": [], "kind": "fact",
             "tags": [], "outcome": "", "supersedes": None, "source": "api", "session": "",
             "occurred": "", "context": "", "visibility": "team", "confidence": 1.0,
             "commit_sha": "", "ref": ""}]}
        (d / f"0001-hs-test-1.json.{dead}.sending").write_text(json.dumps(job))
        r = _run(env, a.path, "status", "--json")
        assert json.loads(r.stdout)["spooled"] == 0
        assert _server_texts(srv.url, tok) == ["Claimed batches come back."]
        assert list(d.iterdir()) == []


def test_a_spooled_retain_says_why_and_counts_as_spooled(tmp_path: Path) -> None:
    a = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
    port = _free_port()
    env = _client_env(tmp_path, "alice", f"http://127.0.0.1:{port}", "x")
    r = _run(env, a.path, "retain", "Refunds go through the ledger.")
    assert (r.returncode, r.stdout) == (0, "memory spooled: sent when the server answers\n")
    assert r.stderr.startswith(f"hindsight: http://127.0.0.1:{port}") and r.stderr.endswith(
        "; kept in the spool, sent when the server answers\n")
    r = subprocess.run([sys.executable, "-m", "hindsight", "retain", "-"], input=
                       '{"text": "a"}\n{"text": "b"}\n', capture_output=True, text=True,
                       env=env, timeout=120, cwd=a.path)
    assert (r.returncode, r.stdout) == (0, "2 items: 0 created, 0 duplicates, 2 spooled\n")
