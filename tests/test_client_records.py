"""Client mode sends execution records to the team server (issue 11: on the server live
memories, execution records and knowledge pages): ``hindsight run`` in a checkout whose
``apiUrl`` names a real ``hindsight serve`` subprocess stores the record locally and on the
server; with the server down the record is spooled and arrives once when it is back."""

from __future__ import annotations

import json
import shlex
import sqlite3
from pathlib import Path

from serverutil import call, token
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
        alice = _client_env(tmp_path, "alice", url, token(srv_home, "alice", "--role", "write"))
        bob = _client_env(tmp_path, "bob", url, token(srv_home, "bob", "--role", "write"))
        for env, repo in ((alice, alice_repo), (bob, bob_repo)):
            assert _run(env, repo.path, "index").returncode == 0
        # alice changes charge and her run fails: the record names pay.py::charge
        alice_repo.write("pay.py", (alice_repo.path / "pay.py").read_text().replace(
            "refund()", "refund()\n    return 1", 1))
        r = _run(alice, alice_repo.path, "run", "--", "python3", "-c", "raise SystemExit(3)")
        assert r.returncode == 3, r.stderr
        mine = json.loads(_run(alice, alice_repo.path, "attempts", "charge", "--json").stdout)
        assert [(a["command"], a["outcome"]) for a in mine["attempts"]] == [(FAIL, "failure")]
        assert mine["total"] == 1  # her own record, not counted again from the server
        r = _run(bob, bob_repo.path, "attempts", "charge", "--json")
        theirs = json.loads(r.stdout)
        assert [(a["command"], a["outcome"]) for a in theirs["attempts"]] == \
            [(FAIL, "failure")], r.stderr
        assert (theirs["total"], theirs["truncated"]) == (1, False)
    finally:
        srv.stop()
    r = _run(bob, bob_repo.path, "attempts", "charge", "--json")  # server down: local only
    assert r.returncode == 0 and json.loads(r.stdout)["attempts"] == [], r.stderr
