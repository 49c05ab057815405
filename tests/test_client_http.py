"""The client's plain-socket HTTP (:func:`hindsight.remote.client.plain_request`) against
real servers on 127.0.0.1: a body by Content-Length, by chunks and up to the close; a
server that answers too slowly, refuses, or answers something that is not HTTP; and the
errors :class:`ServerClient` makes of them (Unreachable, so that the caller spools)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import pytest

from hindsight.errors import ConfigError, NotFound, Unreachable
from hindsight.remote.client import ServerClient, plain_request


@contextmanager
def raw_server(answer: Callable[[socket.socket, bytes], None]
               ) -> Iterator[tuple[int, list[bytes]]]:
    """A one-thread TCP server: every connection's request head (and body, by its
    Content-Length) is recorded, then ``answer(conn, request)`` writes what it wants."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    seen: list[bytes] = []

    def loop() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    got = conn.recv(65536)
                    if not got:
                        break
                    data += got
                head, _, body = data.partition(b"\r\n\r\n")
                n = next((int(ln.split(b":")[1]) for ln in head.split(b"\r\n")
                          if ln.lower().startswith(b"content-length:")), 0)
                while len(body) < n:
                    body += conn.recv(65536)
                seen.append(head + b"\r\n\r\n" + body)
                with suppress(OSError):  # the client gave up first
                    answer(conn, head + b"\r\n\r\n" + body)

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    try:
        yield srv.getsockname()[1], seen
    finally:
        srv.close()


def test_a_post_is_sent_whole_and_a_content_length_body_read() -> None:
    def answer(conn: socket.socket, req: bytes) -> None:
        body = req.split(b"\r\n\r\n", 1)[1]
        out = json.dumps({"echo": json.loads(body)}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + str(len(out)).encode() + b"\r\n\r\n" + out +
                     b"junk after the body is not read")

    with raw_server(answer) as (port, seen):
        c = ServerClient(f"http://127.0.0.1:{port}", token="hst_t", timeout_s=5)
        got = c.request("POST", "/v1/recall", {"text": "ünïcode " * 2000}, query={"a": 1})
    assert got == {"echo": {"text": "ünïcode " * 2000}}
    head = seen[0].split(b"\r\n\r\n")[0].decode()
    assert head.splitlines()[0] == "POST /v1/recall?a=1 HTTP/1.1"
    assert f"Host: 127.0.0.1:{port}" in head and "Authorization: Bearer hst_t" in head
    assert "Connection: close" in head


def test_a_chunked_body_and_a_body_up_to_the_close() -> None:
    def chunked(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"5\r\n{\"a\":\r\n3;ext=1\r\n 12\r\n1\r\n}\r\n0\r\n\r\n")

    def to_close(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"HTTP/1.0 200 OK\r\n\r\n{\"b\": ")
        time.sleep(0.05)
        conn.sendall(b"[1, 2]}")

    with raw_server(chunked) as (port, _):
        assert plain_request("127.0.0.1", port, "GET", "/x", None, {}, 5) == (200, b'{"a": 12}')
    with raw_server(to_close) as (port, _):
        assert ServerClient(f"http://127.0.0.1:{port}").request("GET", "/x") == {"b": [1, 2]}


def test_a_slow_server_is_unreachable_within_the_timeout() -> None:
    """The timeout bounds the whole answer, not each read: a server that trickles a
    byte every 0.1 s is given up on after 0.5 s."""
    def trickle(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
        for _ in range(100):
            conn.sendall(b" ")
            time.sleep(0.1)

    with raw_server(trickle) as (port, _):
        c = ServerClient(f"http://127.0.0.1:{port}", timeout_s=0.5)
        t0 = time.monotonic()
        with pytest.raises(Unreachable, match=r"TimeoutError: timed out"):
            c.request("GET", "/v1/version")
        assert time.monotonic() - t0 < 1.5


def test_refused_not_http_and_cut_short_are_unreachable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(Unreachable, match="ConnectionRefusedError"):
        ServerClient(f"http://127.0.0.1:{port}").request("GET", "/v1/version")

    def smtp(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"220 mail.example.com ESMTP\r\n\r\n")

    def cut(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"half\":")

    with raw_server(smtp) as (port, _), \
            pytest.raises(Unreachable, match="not an HTTP/1.x answer: '220 mail"):
        ServerClient(f"http://127.0.0.1:{port}").request("GET", "/v1/version")
    with raw_server(cut) as (port, _), \
            pytest.raises(Unreachable, match="closed the connection mid-answer"):
        ServerClient(f"http://127.0.0.1:{port}").request("GET", "/v1/version")


def test_status_codes_become_the_errors_they_were() -> None:
    answers = iter([(503, b'{"error": "database\\n down", "type": "StorageError"}'),
                    (404, b'{"error": "no such", "type": "NotFound"}'),
                    (422, b'{"error": "k: too small", "type": "ValidationError"}'),
                    (422, b"plain words"), (404, b"<!DOCTYPE HTML><html>nope</html>"),
                    (404, b""), (200, b"<html>hello</html>")])

    def answer(conn: socket.socket, _req: bytes) -> None:
        st, body = next(answers)
        conn.sendall(f"HTTP/1.1 {st} X\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)

    with raw_server(answer) as (port, _):
        c = ServerClient(f"http://127.0.0.1:{port}")
        with pytest.raises(Unreachable, match=r": 503 database down$"):
            c.request("GET", "/a")
        with pytest.raises(NotFound, match="^server: no such$"):
            c.request("GET", "/b")
        with pytest.raises(ConfigError, match="^server: k: too small$"):
            c.request("GET", "/c")
        # a web server that is not hindsight (apiUrl pointed elsewhere): one line, exit 12
        for path, status in (("/d", 422), ("/e", 404), ("/f", 404)):
            with pytest.raises(Unreachable) as e:
                c.request("GET", path)
            assert str(e.value) == (f"http://127.0.0.1:{port}: not a hindsight server (GET "
                                    f"{path} answered {status} without a hindsight error)")
        with pytest.raises(Unreachable, match=r"not a hindsight server \(GET /g answered "
                           r"200 without JSON\)$"):
            c.request("GET", "/g")


def test_header_values_with_line_breaks_are_not_sent() -> None:
    def answer(conn: socket.socket, _req: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    with raw_server(answer) as (port, seen):
        ServerClient(f"http://127.0.0.1:{port}", token="a\r\nX-Evil: 1").request("GET", "/")
    assert b"X-Evil" not in seen[0] and b"Authorization" not in seen[0]
