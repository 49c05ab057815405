"""The session briefing in client mode (issue 11) against a real ``hindsight serve``
behind a proxy on 127.0.0.1 that holds every connection 0.3 s and records the request
lines: the briefing's lists are asked at once (overlapping), the memories anchored to the
branch's files are not asked again one by one, this checkout's index is read in the
caller's thread only, and the text is the one the lists make."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from histutil import Repo, fn, git
from hookutil import make_env
from serverutil import served, token

DELAY_S = 0.3


@contextmanager
def slow_proxy(upstream_port: int) -> Iterator[tuple[int, list[str], list[int]]]:
    """A TCP proxy to ``upstream_port``: each connection waits :data:`DELAY_S`, then its
    bytes are passed both ways. Yields ``(port, request lines, [most connections open at
    once])``."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(32)
    lines: list[str] = []
    peak = [0]
    open_now = [0]
    lock = threading.Lock()

    def pump(a: socket.socket, b: socket.socket, first: list[bytes] | None) -> None:
        with suppress(OSError):
            while data := a.recv(65536):
                if first is not None and not first:
                    first.append(data)
                    with lock:
                        lines.append(data.split(b"\r\n", 1)[0].decode())
                b.sendall(data)
        with suppress(OSError):
            b.shutdown(socket.SHUT_WR)

    def serve(conn: socket.socket) -> None:
        with lock:
            open_now[0] += 1
            peak[0] = max(peak[0], open_now[0])
        time.sleep(DELAY_S)
        with conn, socket.create_connection(("127.0.0.1", upstream_port)) as up:
            back = threading.Thread(target=pump, args=(up, conn, None))
            back.start()
            pump(conn, up, [])
            back.join()
        with lock:
            open_now[0] -= 1

    def loop() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    try:
        yield srv.getsockname()[1], lines, peak
    finally:
        srv.close()


def _run(env: dict[str, str], cwd: Path, *args: str) -> str:
    r = subprocess.run([sys.executable, "-m", "hindsight", *args], capture_output=True,
                       text=True, env=env, timeout=120, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_briefing_lists_are_asked_at_once(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repo(tmp_path / "shop")
    repo.write("pay.py", fn("charge") + fn("refund"))
    repo.commit("add payments")
    git(repo.path, "remote", "add", "origin", "git@github.com:org/shop.git")
    git(repo.path, "checkout", "-q", "-b", "feature")
    with served(tmp_path / "server") as srv:
        tok = token(tmp_path / "server", "alice", "--role", "write")
        env = make_env(tmp_path / "alice")
        env.update(HINDSIGHT_API_URL=srv.url, HINDSIGHT_API_TOKEN=tok)
        _run(env, repo.path, "index")
        _run(env, repo.path, "retain", "Money amounts are integer cents.", "--kind",
             "convention")
        _run(env, repo.path, "retain", "We chose the ledger over direct refunds.", "--kind",
             "decision")
        _run(env, repo.path, "retain", "refund() must be idempotent: it ran twice once.",
             "--kind", "lesson", "--file", "pay.py", "--symbol", "pay.py::refund")
        repo.write("pay.py", fn("charge") + fn("refund") + "# changed on the branch\n")
        port = srv.url.rsplit(":", 1)[1]
        with slow_proxy(int(port)) as (pport, lines, peak):
            for k, v in env.items():
                monkeypatch.setenv(k, v)
            monkeypatch.setenv("HINDSIGHT_API_URL", f"http://127.0.0.1:{pport}")
            monkeypatch.setenv("HINDSIGHT_API_TIMEOUT_S", "10")
            from hindsight.app import open_bank

            with open_bank(str(repo.path), harness="claude-code") as bank:
                code = bank.stores.code  # this checkout's index: read in this thread only
                readers: set[str] = set()
                for name in ("symbols_by_qname", "get_meta"):
                    real = getattr(code, name)
                    monkeypatch.setattr(code, name, lambda *a, _f=real: readers.add(
                        threading.current_thread().name) or _f(*a))
                t0 = time.monotonic()
                text, ids = bank.sessions.briefing(max_chars=8000)
                took = time.monotonic() - t0
    assert "Money amounts are integer cents." in text
    assert "We chose the ledger over direct refunds." in text
    branch = text.split("## Lessons about files changed on this branch\n", 1)[1]
    assert branch.split("\n", 1)[0].endswith(
        "[pay.py, pay.py::refund]: refund() must be idempotent: it ran twice once.")
    assert len(ids) == 3
    assert readers == {threading.current_thread().name}
    lists = [ln for ln in lines if ln.startswith("GET /v1/memories?")]
    assert len(lists) == 6, lines  # five lists and the one anchored file
    assert not [ln for ln in lines if ln.startswith("GET /v1/memories/")], lines
    assert peak[0] >= 3  # the five lists overlapped
    # one after another they would take 6 × 0.3 s; at once about two delays
    assert took < 4 * DELAY_S + 1.0, took
