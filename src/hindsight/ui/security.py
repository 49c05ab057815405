"""The control plane's guard: one ASGI middleware in front of every route.

- **Token.** Every request carries the run's token: as the ``token`` query parameter once
  (answered with a cookie and a redirect to the same address without it, so the token
  does not stay in the address bar or the history), then as the cookie
  (``HttpOnly; SameSite=Strict``), or as the ``X-Hindsight-Token`` header (other clients).
- **Host.** A request whose ``Host`` is not a loopback name (``127.0.0.1``,
  ``localhost``, ``[::1]``) is refused unless the server was started with ``--host``: a
  web page on another site cannot reach the server by pointing its own DNS name at
  127.0.0.1 (DNS rebinding).
- **Cross-site forms.** A request that is not GET/HEAD is refused when its ``Origin`` is
  not this server or ``Sec-Fetch-Site`` says another site; the forms also carry the token
  (checked by :func:`form_ok`).
- Every answer gets ``Content-Security-Policy`` (scripts only from this server),
  ``X-Frame-Options: DENY``, ``Referrer-Policy: same-origin`` (``no-referrer`` would make
  Chromium send ``Origin: null`` with the forms) and ``Server-Timing: app;dur=<ms>`` (the
  server time of the view, in milliseconds, read by bench/ui.py).
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

COOKIE = "hindsight_ui"
HEADER = "x-hindsight-token"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
       "form-action 'self'; base-uri 'none'")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    """A random token for one run (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


def host_name(host_header: str) -> str:
    """The name part of a ``Host`` header: ``127.0.0.1:8765`` → ``127.0.0.1``, ``[::1]:80``
    → ``::1``; lower case."""
    h = host_header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def host_allowed(host_header: str, any_host: bool) -> bool:
    """True for a loopback ``Host`` (or any, with ``any_host``: started with ``--host``)."""
    return any_host or host_name(host_header) in LOOPBACK


def same_origin(headers: dict[str, str]) -> bool:
    """True unless the request says it comes from another site: an ``Origin`` whose host
    and port differ from ``Host`` (``Origin: null`` counts as another site), or
    ``Sec-Fetch-Site`` other than ``same-origin`` or ``none``."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == headers.get("host", "").lower()


def token_equal(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def form_ok(form: Any, headers: Any, token: str) -> bool:
    """The token of a submitted form (field ``token``) or of the header matches."""
    return token_equal(form.get("token"), token) or token_equal(headers.get(HEADER), token)


class Guard:
    """ASGI middleware applying the rules of this module to ``app``; ``any_host`` is true
    when the server was started with ``--host``."""

    def __init__(self, app: App, token: str, any_host: bool = False) -> None:
        self.app = app
        self.token = token
        self.any_host = any_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                          keep_blank_values=True)
        if scope["method"] in ("GET", "HEAD") and any(k == "token" for k, _v in query):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            where = scope.get("path", "/") + (f"?{rest}" if rest else "")
            await _plain(send, 303, "", [(b"location", where.encode("latin-1")),
                                         (b"set-cookie", self._cookie())])
            return

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - t0) * 1000
                cache = _STATIC_CACHE if scope.get("path", "").startswith("/static/") \
                    else _NO_STORE
                message["headers"] = [*message.get("headers", []), *_SECURITY, cache,
                                      (b"server-timing", f"app;dur={ms:.1f}".encode())]
            await send(message)

        await self.app(scope, receive, timed_send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if not host_allowed(host, self.any_host):
            return 403, (f"hindsight ui: Host {host!r} refused: only 127.0.0.1, localhost "
                         "and [::1] are served (start with --host to allow other names)")
        if not self._has_token(scope, headers):
            return 403, ("hindsight ui: token required: open the address `hindsight ui` "
                         "printed (…/?token=…)")
        if scope["method"] not in ("GET", "HEAD") and not same_origin(headers):
            return 403, "hindsight ui: cross-site request refused"
        return None

    def _has_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        if token_equal(headers.get(HEADER), self.token):
            return True
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no token
            return False
        if COOKIE in cookie and token_equal(cookie[COOKIE].value, self.token):
            return True
        if scope["method"] in ("GET", "HEAD"):
            qs = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
            return any(k == "token" and token_equal(v, self.token) for k, v in qs)
        return False

    def _cookie(self) -> bytes:
        return f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()


_SECURITY = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
             (b"referrer-policy", b"same-origin"), (b"x-content-type-options", b"nosniff")]
_NO_STORE = (b"cache-control", b"no-store")
_STATIC_CACHE = (b"cache-control", b"private, max-age=3600")


async def _plain(send: Send, status: int, text: str,
                 extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (text + "\n").encode() if text else b""
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *_SECURITY,
                            _NO_STORE, *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
