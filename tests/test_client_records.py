"""Client mode sends execution records to the team server (issue 11: on the server live
memories, execution records and knowledge pages): ``hindsight run`` in a checkout whose
``apiUrl`` names a real ``hindsight serve`` subprocess stores the record locally and on the
server; with the server down the record is spooled and arrives once when it is back."""

from __future__ import annotations

import json
import shlex
import sqlite3
import time
from pathlib import Path
from typing import Any

from serverutil import call, cli, token
from serverutil import start as serve
from test_client import BANK, _client_env, _clone, _free_port, _run

FAIL = shlex.join(["python3", "-c", "raise SystemExit(3)"])  # as the record keeps it
OK = shlex.join(["python3", "-c", "print('ok')"])


def _server_commands(home: Path) -> list[tuple[str, str, int]]:
    """(command, agent, exit code) of every record in the server's bank file."""
    out: list[tuple[str, str, int]] = []
    for db in (home / "banks").glob("*.db"):
        c = sqlite3.connect(db)
        if c.execute("SELECT value FROM meta WHERE key='bank_id'").fetchone() == (BANK,):
            out += c.execute("SELECT command, agent, exit_code FROM exec_records "
                             "ORDER BY id").fetchall()
        c.close()
    return out


def test_run_records_reach_the_server_once_even_when_it_was_down(tmp_path: Path) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    srv_home = tmp_path / "server"
    srv = serve(srv_home, "--port", str(port))
    tok = token(srv_home, "alice", "--role", "write")
    try:
        repo = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        env = _client_env(tmp_path, "alice", url, tok)
        r = _run(env, repo.path, "run", "--", "python3", "-c", "raise SystemExit(3)")
        assert r.returncode == 3, r.stderr
        assert _server_commands(srv_home) == [(FAIL, "alice", 3)]
    finally:
        srv.stop()
    r = _run(env, repo.path, "run", "--", "python3", "-c", "print('ok')")
    assert r.returncode == 0, r.stderr
    spool = next((tmp_path / "alice" / "hs" / "spool").rglob("remote"))
    jobs = [json.loads(p.read_text()) for p in spool.glob("*.json")]
    assert [j["record"]["exit_code"] for j in jobs] == [0] and "agent" not in jobs[0]["record"]
    srv = serve(srv_home, "--port", str(port))
    try:
        r = _run(env, repo.path, "status", "--json")  # the first read replays the spool
        assert json.loads(r.stdout)["spooled"] == 0, r.stdout
        got = _server_commands(srv_home)
        assert got == [(FAIL, "alice", 3), (OK, "alice", 0)]
        status, body = call(url, "GET", f"/v1/attempts?bank={BANK}&symbol=test_x", tok=tok)
        assert (status, body["type"]) == (404, "NotFound")  # no record names it (as the CLI)
        r = _run(env, repo.path, "status", "--json")
        assert _server_commands(srv_home) == got  # replayed once, nothing twice
    finally:
        srv.stop()


def test_attempts_in_client_mode_show_a_teammates_attempts_once(tmp_path: Path) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    srv_home = tmp_path / "server"
    srv = serve(srv_home, "--port", str(port))
    try:
        alice_repo = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
        bob_repo = _clone(tmp_path, "shop-bob", "https://github.com/org/shop")
        bob_tok = token(srv_home, "bob", "--role", "write")
        alice = _client_env(tmp_path, "alice", url, token(srv_home, "alice", "--role", "write"))
        bob = _client_env(tmp_path, "bob", url, bob_tok)
        for env, repo in ((alice, alice_repo), (bob, bob_repo)):
            assert _run(env, repo.path, "index").returncode == 0

        def change(repo: Any, n: int) -> None:  # a change of charge: runs record it
            repo.write("pay.py", (repo.path / "pay.py").read_text().replace(
                "refund()", f"refund()\n    x = {n}", 1))

        def attempts(env: dict[str, str], repo: Any, *more: str) -> dict[str, Any]:
            r = _run(env, repo.path, "attempts", "charge", "--json", *more)
            assert r.returncode == 0, r.stderr
            return dict(json.loads(r.stdout))

        def seen(res: dict[str, Any]) -> list[tuple[str, str, Any]]:
            return [(a["command"], a["outcome"], a.get("agent")) for a in res["attempts"]]

        change(alice_repo, 1)
        r = _run(alice, alice_repo.path, "run", "--", "python3", "-c", "raise SystemExit(3)")
        assert r.returncode == 3, r.stderr
        mine = attempts(alice, alice_repo)
        assert seen(mine) == [(FAIL, "failure", None)] and mine["total"] == 1  # once
        theirs = attempts(bob, bob_repo)
        assert seen(theirs) == [(FAIL, "failure", "alice")]  # whose, from the server
        assert theirs["attempts"][0]["server"] is True
        assert (theirs["total"], theirs["truncated"]) == (1, False)
        change(bob_repo, 2)
        time.sleep(1.1)  # attempts show their start to the second: bob's comes later
        r = _run(bob, bob_repo.path, "run", "--", "python3", "-c", "print('ok')")
        assert r.returncode == 0, r.stderr
        both = attempts(bob, bob_repo)
        assert seen(both) == [(OK, "success", None), (FAIL, "failure", "alice")]
        assert (both["total"], both["truncated"]) == (2, False)
        page = attempts(bob, bob_repo, "--limit", "1", "--offset", "1")
        assert seen(page) == [(FAIL, "failure", "alice")]
        assert (page["total"], page["truncated"]) == (2, False)
        first = attempts(bob, bob_repo, "--limit", "1")
        assert seen(first) == [(OK, "success", None)] and first["truncated"] is True
        assert seen(attempts(alice, alice_repo)) == [(OK, "success", "bob"),
                                                     (FAIL, "failure", None)]
        cli(srv_home, "token", "revoke", bob_tok.split("_")[1])
        r = _run(bob, bob_repo.path, "attempts", "charge", "--json")
        assert r.returncode != 0 and "server:" in r.stderr  # refused: said, as recall says
    finally:
        srv.stop()
    r = _run(alice, alice_repo.path, "attempts", "charge", "--json")  # server down: local
    assert r.returncode == 0 and seen(json.loads(r.stdout)) == [(FAIL, "failure", None)]


def test_a_sessions_records_go_in_one_batch_spooled_then_once(tmp_path: Path) -> None:
    """A write-back's several records are one ``POST /v1/records/batch`` (one spool job
    while the server is down), stored in order once when it is back."""
    from ccfixture import Transcript
    from hookutil import hook
    from recordutil import claude_bash

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    srv_home = tmp_path / "server"
    srv = serve(srv_home, "--port", str(port))
    tok = token(srv_home, "alice", "--role", "write")
    srv.stop()
    repo = _clone(tmp_path, "shop", "git@github.com:org/shop.git")
    env = _client_env(tmp_path, "alice", url, tok)
    env["HINDSIGHT_HOOK_SYNC"] = "1"
    t = Transcript(tmp_path / "t" / "s1.jsonl", "s1", str(repo.path))
    t.user("run the checks")
    claude_bash(t, "python3 -c 'raise SystemExit(1)'", 1, "boom\n")
    claude_bash(t, "python3 -c 'print(1)'", 0, "1\n")
    stop = {"session_id": "s1", "transcript_path": str(t.write()), "cwd": str(repo.path),
            "hook_event_name": "Stop", "stop_hook_active": False}
    r = hook("stop", stop, env, cwd=repo.path)
    assert (r.returncode, r.stdout) == (0, ""), r.stderr
    spool = next((tmp_path / "alice" / "hs" / "spool").rglob("remote"))
    jobs = [json.loads(p.read_text()) for p in spool.glob("*.json")]
    batches = [j["records"] for j in jobs if "records" in j]
    assert [[x["command"] for x in b] for b in batches] == [
        ["python3 -c 'raise SystemExit(1)'", "python3 -c 'print(1)'"]]
    srv = serve(srv_home, "--port", str(port))
    try:
        r = _run(env, repo.path, "status", "--json")  # the first read replays the spool
        assert json.loads(r.stdout)["spooled"] == 0, r.stdout
        got = _server_commands(srv_home)
        assert [(c, a, x) for c, a, x in got if c.startswith("python3")] == [
            ("python3 -c 'raise SystemExit(1)'", "alice", 1),
            ("python3 -c 'print(1)'", "alice", 0)]
        _run(env, repo.path, "status", "--json")
        assert _server_commands(srv_home) == got  # nothing twice
        status, body = call(url, "POST", "/v1/records/batch", {"bank": BANK, "records": []},
                            tok=tok)
        assert (status, body["field"]) == (422, "records")
    finally:
        srv.stop()
