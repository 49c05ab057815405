"""The team server's ASGI application: FastAPI routes under ``/v1``, ``/healthz``,
``/metrics``, ``/openapi.json``, and the MCP server over streamable HTTP at ``/mcp``.

:func:`build_app` makes it (FastAPI is imported there, never at package import). Every
request passes :class:`BodyLimit` first (a body over the limit is answered 413 before it
is read whole). Every ``/v1`` route but ``/v1/version`` and every ``/mcp`` request needs
``Authorization: Bearer <token>`` (401 without a valid one). Errors are one JSON object
``{"error": message, "field": the argument at fault or null, "type": error class}`` with
the status of :data:`STATUS`; a body that is not JSON, or whose fields do not fit the
schema, is answered 422 naming the field (``body`` for a body that does not parse). A
database that cannot be reached answers 503 at once (the token lookup fails fast) and the
next request after it is back succeeds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hindsight.errors import HindsightError

if TYPE_CHECKING:
    from hindsight.server.state import ServerState

API_VERSION = 1  # the major version of /v1; a client of another major says so
STATUS = {"ConfigError": 422, "ParseError": 422, "NotFound": 404, "BankNotFound": 404,
          "Ambiguous": 409, "NotIndexed": 409, "Forbidden": 403, "Unauthorized": 401,
          "Busy": 503, "StorageError": 503, "ProviderError": 503}


def error_body(e: HindsightError) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of a hindsight error (one line of message)."""
    return STATUS.get(type(e).__name__, 500), {
        "error": " ".join(e.message.split()), "field": e.option, "type": type(e).__name__}


async def send_json(send: Any, status: int, body: dict[str, Any],
                    headers: list[tuple[bytes, bytes]] = ()) -> None:  # type: ignore[assignment]
    """Send a whole JSON response on a raw ASGI ``send``."""
    data = json.dumps(body, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()), *headers]})
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """ASGI middleware: a request whose ``Content-Length`` or streamed body exceeds
    ``limit`` bytes gets 413 (nothing of it reaches the application)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = {"error": f"request body over {self.limit:,} bytes", "field": "body",
                   "type": "TooLarge"}
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await send_json(send, 413, too_big)
            return
        chunks, size = [], 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                break
            size += len(msg.get("body", b""))
            if size > self.limit:
                await send_json(send, 413, too_big)
                return
            chunks.append(msg.get("body", b""))
            if not msg.get("more_body"):
                break
        body, done = b"".join(chunks), False

        async def replay() -> Any:
            nonlocal done
            if not done:
                done = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class Dispatch:
    """``/mcp`` to the MCP mount, everything else to the FastAPI application."""

    def __init__(self, api: Any, mcp: Any) -> None:
        self.api = api
        self.mcp = mcp

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if self.mcp is not None and scope["type"] == "http" and (
                path == "/mcp" or path.startswith("/mcp/")):
            await self.mcp(scope, receive, send)
        else:
            await self.api(scope, receive, send)


def build_app(state: ServerState, mcp_factory: Callable[..., Any] | None = None) -> Any:
    """The ASGI application over ``state``; ``mcp_factory(open_bank)`` builds the MCP
    server of one bank (:func:`hindsight.mcp.server.build_mcp_server`; None: no ``/mcp``).
    The application closes ``state`` when it shuts down."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    from hindsight.server.routes import router

    mount = None
    if mcp_factory is not None:
        from hindsight.server.mcp_mount import McpMount

        mount = McpMount(state, mcp_factory)

    @asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        try:
            if mount is None:
                yield
            else:
                async with mount.running():
                    yield
        finally:
            state.close()

    app = FastAPI(title="hindsight", version=_version(), lifespan=lifespan,
                  description="Team memory for coding agents: retain, recall, reflect, "
                  "forget over one bank per repository. Every /v1 route but /v1/version "
                  "needs Authorization: Bearer <token> (hindsight token create).")
    app.state.hs = state

    @app.exception_handler(HindsightError)
    async def hindsight_error(_r: Request, e: HindsightError) -> Any:
        status, body = error_body(e)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(body, status_code=status, headers=headers)

    from starlette.exceptions import HTTPException

    @app.exception_handler(HTTPException)
    async def http_error(r: Request, e: HTTPException) -> Any:
        if e.status_code == 400:  # FastAPI could not decode the body (bytes, depth)
            return JSONResponse({"error": "body: not valid JSON (undecodable bytes, or "
                                 "nested too deep)", "field": "body",
                                 "type": "ValidationError"}, status_code=422)
        # every error in the house shape (an unknown path, a wrong method): one line that
        # names the path, a type; FastAPI's ``detail`` kept for clients that read it
        kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(e.status_code, "HTTPError")
        return JSONResponse({"error": f"{r.method} {r.url.path}: {e.detail}", "type": kind,
                             "detail": e.detail}, status_code=e.status_code,
                            headers=getattr(e, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(_r: Request, e: RequestValidationError) -> Any:
        errs = list(e.errors())
        first = errs[0] if errs else {"loc": ("body",), "msg": "invalid"}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
        field = ".".join(loc) if loc else "body"
        if first.get("type") == "json_invalid":
            field = "body"
        msg = f"{field}: {first.get('msg', 'invalid')}"
        detail = [{"loc": [str(p) for p in x.get("loc", ())], "msg": str(x.get("msg", "")),
                   "type": str(x.get("type", ""))} for x in errs[:20]]
        return JSONResponse({"error": msg, "field": field, "type": "ValidationError",
                             "detail": detail}, status_code=422)

    @app.get("/healthz", tags=["server"])
    def healthz() -> Any:
        """200 when the server database answers, else 503 with the error."""
        try:
            state.tokens.ping()
        except HindsightError as e:
            return JSONResponse({"ok": False, "database": state.database,
                                 "error": error_body(e)[1]["error"]}, status_code=503)
        return {"ok": True, "database": state.database}

    from hindsight.server.federation import router as peers
    from hindsight.server.work_routes import router as work

    app.include_router(router)
    app.include_router(work)
    app.include_router(peers)
    return BodyLimit(Dispatch(app, mount), state.max_body)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hindsight-code")
    except PackageNotFoundError:
        return "0.0.0"
