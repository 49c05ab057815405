"""Helpers of the team-server tests: a real ``hindsight serve`` subprocess (or a uvicorn
thread) on 127.0.0.1, a plain HTTP client (http.client), and tokens made by the real
``hindsight token create`` command."""

from __future__ import annotations

import http.client
import json
import os
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from histutil import sigint_default

ROOT = Path(__file__).resolve().parent.parent


def env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a server or CLI child: its own home, the hashing embedder."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    e.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDER="hashing",
             PYTHONPATH=str(ROOT / "src"), **extra)
    return e


def cli(home: Path, *args: str, check: bool = True, **extra: str
        ) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([sys.executable, "-m", "hindsight", *args], env=env(home, **extra),
                         capture_output=True, text=True, timeout=180)
    if check:
        assert res.returncode == 0, res.stderr
    return res


def token(home: Path, agent: str, *args: str) -> str:
    """A token made by ``hindsight token create --json`` (its text)."""
    out = cli(home, "token", "create", "--agent", agent, *args, "--json").stdout
    data = json.loads(out)
    return str(data["token"])


class Served:
    """A ``hindsight serve`` child: ``url``, ``proc``; :meth:`stop` ends it."""

    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url

    def stop(self, kill: bool = False) -> None:
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                self.proc.send_signal(2)  # SIGINT, as Ctrl-C
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start(home: Path, *args: str, timeout: float = 120, **extra: str) -> Served:
    """Start ``hindsight serve --port 0 ARGS`` and wait for its one line on stdout."""
    proc = subprocess.Popen([sys.executable, "-m", "hindsight", "serve", "--port", "0",
                             *args], env=env(home, **extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while not sel.select(timeout=0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"serve did not start: {proc.communicate()[1][-2000:]}")
    line = proc.stdout.readline()
    assert line.startswith("hindsight serve: http"), line
    return Served(proc, line.split(": ", 1)[1].strip())


@contextmanager
def served(home: Path, *args: str, **extra: str) -> Iterator[Served]:
    s = start(home, *args, **extra)
    try:
        yield s
    finally:
        s.stop()


def call(url: str, method: str, path: str, body: Any = None, tok: str | None = None,
         headers: dict[str, str] | None = None, raw: bytes | None = None,
         timeout: float = 60) -> tuple[int, Any]:
    """One request; (status, the body as JSON when it says it is JSON, else text)."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    h = {"Content-Type": "application/json", **(headers or {})}
    if tok is not None:
        h["Authorization"] = f"Bearer {tok}"
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                        else None)
    try:
        conn.request(method, path, body=data, headers=h)
        resp = conn.getresponse()
        text = resp.read().decode("utf-8", "replace")
    finally:
        conn.close()
    if not (resp.getheader("content-type") or "").startswith("application/json"):
        return resp.status, text
    try:
        return resp.status, json.loads(text)
    except ValueError:
        return resp.status, text


@contextmanager
def thread_server(state: Any, mcp: Any = None) -> Iterator[str]:
    """The app over ``state`` served by uvicorn in a thread on a real loopback socket."""
    import socket

    import uvicorn

    from hindsight.server.api import build_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(build_app(state, mcp), log_level="warning",
                                          lifespan="on"))
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and t.is_alive(), "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        t.join(timeout=30)
        sock.close()
