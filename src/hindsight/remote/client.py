"""A small HTTP client of a ``hindsight serve`` ``/v1`` API.

``http://`` requests are written on a plain ``socket`` (HTTP/1.1, ``Connection: close``;
the answer's body by ``Content-Length``, chunked, or up to the close); ``https://`` ones
go through the stdlib ``http.client``, imported then. The reason is the hooks' budget:
importing ``http.client`` (it imports ``ssl`` and ``email.parser``) cost 18 ms more than
``socket`` in a fresh process (``import json, http.client`` p50 37.6 ms against ``import
json, socket`` 19.6 ms, 25 processes each, 2 shared cores), paid by every hook of a
client-mode agent.

The token is ``apiToken``, else the first line of ``apiTokenFile`` (read again after a 401,
so a rotated token is picked up without a restart). Every request has a timeout
(``apiTimeoutS``, seconds). Errors: a refused connection, a timeout or a 5xx answer raise
:class:`hindsight.errors.Unreachable` (the caller may spool); 401 raises Unauthorized, 403
Forbidden, 404 NotFound, 409/422 ConfigError, each with the server's one-line message.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any
from urllib.parse import urlencode, urlsplit

from hindsight.errors import ConfigError, Forbidden, NotFound, Unauthorized, Unreachable

API_MAJOR = 1  # the /v1 major version this client speaks (server/api.py API_VERSION)


def idempotency_key() -> str:
    """A new idempotency key: 128 random bits in hex (``uuid`` is not imported for it:
    it imports ``platform``, ≈ 2 ms of a hook's start)."""
    import os

    return os.urandom(16).hex()


class ServerClient:
    """Requests to the server at ``url`` (``http://`` or ``https://``, no path) with
    ``token`` or the token in ``token_file``; ``timeout_s`` seconds per request, and none
    past :attr:`deadline` when it is set."""

    def __init__(self, url: str, *, token: str = "", token_file: str = "",
                 timeout_s: float = 2.0) -> None:
        u = urlsplit(url.rstrip("/"))
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ConfigError(f"apiUrl {url!r}: must be http(s)://host[:port]",
                              option="apiUrl", value=url)
        self.url = f"{u.scheme}://{u.netloc.rsplit('@', 1)[-1]}"
        self._u = u
        self._token = token
        self._token_file = token_file
        self.timeout_s = timeout_s
        # time.monotonic() after which no request is made and none waits longer (a hook
        # sets it inside its budget); None: only timeout_s bounds a request
        self.deadline: float | None = None

    def token(self, reread: bool = False) -> str:
        """The bearer token (``""`` when none is configured)."""
        if self._token_file and (reread or not self._token):
            try:
                with open(self._token_file, encoding="utf-8") as fh:
                    self._token = fh.readline().strip()
            except OSError as e:
                raise ConfigError(f"apiTokenFile {self._token_file}: {e.strerror}",
                                  option="apiTokenFile", path=self._token_file) from None
        return self._token

    def request(self, method: str, path: str, body: Any = None, *,
                query: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                timeout_s: float | None = None, text: bool = False) -> Any:
        """The JSON answer of ``method path`` (the body text with ``text``); after a 401
        the token file is read again and the request made once more."""
        for attempt in (0, 1):
            wait = timeout_s or self.timeout_s
            if self.deadline is not None:
                wait = min(wait, self.deadline - time.monotonic())
                if wait <= 0:
                    raise Unreachable(f"{self.url}: not asked ({path}): the hook's time "
                                      "budget is spent")
            status, data = self._once(method, path, body, query, headers, wait,
                                      reread=attempt == 1)
            if status == 401 and attempt == 0 and self._token_file:
                continue
            break
        if status < 300:
            if text:
                return data
            try:
                return json.loads(data)
            except ValueError:
                raise Unreachable(f"{self.url}: not a hindsight server ({method} {path} "
                                  f"answered {status} without JSON)") from None
        try:
            err = json.loads(data)
            msg = str(err["error"]) if isinstance(err, dict) and "type" in err else ""
        except (ValueError, KeyError):
            msg = ""
        if not msg:  # no {"error", "type"}: a web server or proxy answered, not hindsight
            raise Unreachable(f"{self.url}: not a hindsight server ({method} {path} "
                              f"answered {status} without a hindsight error)")
        msg = " ".join(msg.split())
        if status >= 500:
            raise Unreachable(f"{self.url}: {status} {msg}")
        if status == 401:  # what to set, for a CLI user (the server speaks HTTP)
            msg += ("; set HINDSIGHT_API_TOKEN (apiToken) or apiTokenFile to a token from "
                    "`hindsight token create`" if not self.token() else
                    "; the configured token (HINDSIGHT_API_TOKEN, apiToken or apiTokenFile) "
                    "was refused")
        raise {401: Unauthorized, 403: Forbidden, 404: NotFound}.get(status, ConfigError)(
            f"server: {msg}")

    def _once(self, method: str, path: str, body: Any, query: dict[str, Any] | None,
              headers: dict[str, str] | None, timeout_s: float, reread: bool
              ) -> tuple[int, str]:
        h = {"Content-Type": "application/json", **(headers or {})}
        tok = self.token(reread)
        if tok:
            h["Authorization"] = f"Bearer {tok}"
        if query:
            path += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        data = json.dumps(body).encode() if body is not None else None
        if self._u.scheme == "https":
            return self._https(method, path, data, h, timeout_s)
        try:
            status, raw = plain_request(self._u.hostname or "", self._u.port or 80, method,
                                        path, data, h, timeout_s)
        except (OSError, ValueError) as e:  # TimeoutError is an OSError
            raise Unreachable(f"{self.url}: {e.__class__.__name__}: {e}") from None
        return status, raw.decode("utf-8", "replace")

    def _https(self, method: str, path: str, data: bytes | None, h: dict[str, str],
               timeout_s: float) -> tuple[int, str]:
        import http.client

        conn = http.client.HTTPSConnection(self._u.hostname or "", self._u.port,
                                           timeout=timeout_s)
        try:
            conn.request(method, path, body=data, headers=h)
            resp = conn.getresponse()
            return resp.status, resp.read().decode("utf-8", "replace")
        except (TimeoutError, OSError, http.client.HTTPException) as e:
            raise Unreachable(f"{self.url}: {e.__class__.__name__}: {e}") from None
        finally:
            conn.close()

    def version(self) -> dict[str, Any]:
        """The server's ``{version, api}``; raises Unreachable naming both versions when
        its API major is not :data:`API_MAJOR`."""
        v = dict(self.request("GET", "/v1/version"))
        if v.get("api") != API_MAJOR:
            raise Unreachable(f"{self.url}: server API {v.get('api')} (release "
                              f"{v.get('version')}); this client speaks API {API_MAJOR}")
        return v


MAX_HEAD = 64 << 10  # bytes of status line and headers an answer may have


def plain_request(host: str, port: int, method: str, path: str, data: bytes | None,
                  headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
    """One HTTP/1.1 request on a new TCP connection (``Connection: close``): ``(status,
    body bytes)``. ``timeout_s`` seconds bound the whole exchange (connect, send, read).
    The body is read by ``Content-Length``, by chunks (``Transfer-Encoding: chunked``) or
    to the connection's close. Raises TimeoutError when the time is up, OSError when the
    connection fails or closes early, ValueError when the answer is not HTTP/1.x."""
    end = time.monotonic() + timeout_s
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address
    lines = [f"{method} {path} HTTP/1.1", f"Host: {shown}:{port}", "Connection: close",
             "Accept-Encoding: identity", f"Content-Length: {len(data or b'')}"]
    lines += [f"{k}: {v}" for k, v in headers.items() if not set(f"{k}{v}") & {"\r", "\n"}]
    with socket.create_connection((host, port), timeout=timeout_s) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (data or b""))
        reader = _Reader(sock, end)
        head = reader.until(b"\r\n\r\n", MAX_HEAD).decode("latin-1").split("\r\n")
        parts = head[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ValueError(f"not an HTTP/1.x answer: {head[0][:80]!r}")
        fields = {k.strip().lower(): v.strip() for k, _, v in
                  (ln.partition(":") for ln in head[1:] if ln)}
        if "chunked" in fields.get("transfer-encoding", "").lower():
            return int(parts[1]), reader.chunked()
        if "content-length" in fields:
            return int(parts[1]), reader.exactly(int(fields["content-length"]))
        return int(parts[1]), reader.rest()


class _Reader:
    """Buffered reads of ``sock`` that give up at ``end`` (``time.monotonic``)."""

    def __init__(self, sock: socket.socket, end: float) -> None:
        self.sock, self.end, self.buf = sock, end, b""

    def _more(self, eof_ok: bool = False) -> bool:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        self.sock.settimeout(left)
        got = self.sock.recv(65536)
        if not got and not eof_ok:
            raise ConnectionError("the server closed the connection mid-answer")
        self.buf += got
        return bool(got)

    def until(self, sep: bytes, cap: int) -> bytes:
        """The bytes before ``sep`` (consumed with it)."""
        while (i := self.buf.find(sep)) < 0:
            if len(self.buf) > cap:
                raise ValueError(f"answer head over {cap} bytes")
            self._more()
        out, self.buf = self.buf[:i], self.buf[i + len(sep):]
        return out

    def exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def chunked(self) -> bytes:
        out: list[bytes] = []
        while True:
            size = int(self.until(b"\r\n", 1024).split(b";", 1)[0].strip() or b"x", 16)
            if size == 0:
                return b"".join(out)  # trailers, if any, are not read
            out.append(self.exactly(size))
            self.exactly(2)  # the CRLF after the chunk

    def rest(self) -> bytes:
        while self._more(eof_ok=True):
            pass
        return self.buf
