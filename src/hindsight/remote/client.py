"""A small HTTP client of a ``hindsight serve`` ``/v1`` API (stdlib ``http.client``: no
import cost in hooks).

The token is ``apiToken``, else the first line of ``apiTokenFile`` (read again after a 401,
so a rotated token is picked up without a restart). Every request has a timeout
(``apiTimeoutS``, seconds). Errors: a refused connection, a timeout or a 5xx answer raise
:class:`hindsight.errors.Unreachable` (the caller may spool); 401 raises Unauthorized, 403
Forbidden, 404 NotFound, 409/422 ConfigError, each with the server's one-line message.
"""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlencode, urlsplit

from hindsight.errors import ConfigError, Forbidden, NotFound, Unauthorized, Unreachable

API_MAJOR = 1  # the /v1 major version this client speaks (server/api.py API_VERSION)


class ServerClient:
    """Requests to the server at ``url`` (``http://`` or ``https://``, no path) with
    ``token`` or the token in ``token_file``; ``timeout_s`` seconds per request."""

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
            status, data = self._once(method, path, body, query, headers,
                                      timeout_s or self.timeout_s, reread=attempt == 1)
            if status == 401 and attempt == 0 and self._token_file:
                continue
            break
        if status < 300:
            if text:
                return data
            try:
                return json.loads(data)
            except ValueError:
                raise Unreachable(f"{self.url}: answered {path} with no JSON") from None
        try:
            msg = str(json.loads(data).get("error") or data)
        except (ValueError, AttributeError):
            msg = data[:200]
        msg = " ".join(msg.split())
        if status >= 500:
            raise Unreachable(f"{self.url}: {status} {msg}")
        raise {401: Unauthorized, 403: Forbidden, 404: NotFound}.get(status, ConfigError)(
            f"server: {msg}")

    def _once(self, method: str, path: str, body: Any, query: dict[str, Any] | None,
              headers: dict[str, str] | None, timeout_s: float, reread: bool
              ) -> tuple[int, str]:
        cls = (http.client.HTTPSConnection if self._u.scheme == "https"
               else http.client.HTTPConnection)
        conn = cls(self._u.hostname or "", self._u.port, timeout=timeout_s)
        h = {"Content-Type": "application/json", **(headers or {})}
        tok = self.token(reread)
        if tok:
            h["Authorization"] = f"Bearer {tok}"
        if query:
            path += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        data = json.dumps(body).encode() if body is not None else None
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
