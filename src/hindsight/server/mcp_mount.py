"""The MCP server at ``/mcp`` (streamable HTTP, stateless, JSON answers) behind the
server's tokens.

A request names its bank with the query parameter ``bank`` or the header
``X-Hindsight-Bank`` (a token whose bank glob has no wildcard may leave it out). Each
(token, bank) pair gets its own MCP server, made by the factory the command line passes in
(:func:`hindsight.mcp.server.build_mcp_server`), whose tools see the bank through
:class:`hindsight.server.views.Scoped`: retain is owned by the token's agent, a read-only
token's retain and forget are tool errors, and reads carry the token's viewer. At most
:data:`MAX_SERVERS` are kept; the oldest is stopped first.
"""

from __future__ import annotations

import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from hindsight.errors import ConfigError, HindsightError
from hindsight.server.api import error_body, send_json

if TYPE_CHECKING:
    from hindsight.server.metrics import Metrics
    from hindsight.server.state import ServerState
    from hindsight.server.views import Scoped

MAX_SERVERS = 64
WILDCARDS = frozenset("*?[")


class _Memory:
    """The memory service as the MCP tools call it, through :class:`Scoped`; retains and
    recalls count in the server's ``metrics`` as the REST routes' do."""

    def __init__(self, sc: Scoped, metrics: Metrics) -> None:
        self.sc = sc
        self.metrics = metrics

    def retain(self, text: str, **kw: Any) -> Any:
        files, symbols = kw.pop("files", []), kw.pop("symbols", [])
        try:
            item = self.sc.item(text, None, files, symbols, **kw)
            got = self.sc.retain([item], batch=False)[0]
        except HindsightError:
            self.metrics.retain.labels("failure").inc()
            raise
        self.metrics.retain.labels("success").inc()
        return got

    def recall(self, text: str, **kw: Any) -> Any:
        t0 = time.perf_counter()
        res = self.sc.recall(text, **kw)
        if kw.get("channels") is None:  # (not the quick lexical pass before the full one:
            # one MCP recall counts once, mcp/server.py _ranking)
            self.metrics.recalled(time.perf_counter() - t0, len(res.hits))
        return res

    def reflect(self, question: str, k: int = 20) -> Any:
        return self.sc.reflect(question, k)

    def get(self, mid: int) -> Any:
        return self.sc.get(mid)

    def forget(self, mid: int, reason: str) -> Any:
        return self.sc.forget(mid, reason)

    def touch(self, ids: list[int]) -> None:
        self.sc.touch(ids)


class _Records:
    """The execution records as the MCP tools ``attempts`` and ``record_attempt`` call
    them: a record needs the ``write`` role and is the token's agent's."""

    def __init__(self, sc: Scoped) -> None:
        self.sc = sc

    def attempts(self, symbol: str, **kw: Any) -> Any:
        self.sc.who.require(self.sc.bank_id)
        with self.sc.lock:
            return self.sc.bank.records.attempts(symbol, **kw)

    def record(self, command: str, **kw: Any) -> Any:
        self.sc.who.require(self.sc.bank_id, "write")
        kw.pop("agent", None)
        kw.pop("cwd", None)
        with self.sc.lock:
            return self.sc.bank.records.record_served(command, agent=self.sc.who.agent,
                                                      **kw)


class _Shown:
    """A page as a token may see it (``as_dict`` only)."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d

    def as_dict(self) -> dict[str, Any]:
        return self.d


class _Pages:
    """The knowledge pages as the MCP tool ``pages`` reads them, without the lines citing
    memories the token may not see (:func:`hindsight.server.work_routes.visible_pages`)."""

    def __init__(self, sc: Scoped) -> None:
        self.sc = sc

    def _shown(self, pages: list[Any]) -> list[_Shown]:
        from hindsight.server.work_routes import visible_pages

        return [_Shown(d) for d in visible_pages(self.sc, [p.as_dict() for p in pages])]

    def list(self) -> list[_Shown]:
        self.sc.who.require(self.sc.bank_id)
        with self.sc.lock:
            got = self.sc.bank.pages.list()
        return self._shown(got)

    def get(self, name: str) -> _Shown:
        self.sc.who.require(self.sc.bank_id)
        with self.sc.lock:
            got = self.sc.bank.pages.get(name)
        return self._shown([got])[0]


class _BankView:
    """What the MCP tools see as the bank: its memory through :class:`_Memory`, its
    records and pages through :class:`_Records` and :class:`_Pages`; the code and history
    tools answer that this server has no code index."""

    def __init__(self, sc: Scoped, metrics: Metrics) -> None:
        self.memory = _Memory(sc, metrics)
        self.records = _Records(sc)
        self.pages = _Pages(sc)
        self.code = sc.bank.code
        self.history = sc.bank.history
        self.bank_id = sc.bank_id
        self._sc = sc

    def status(self) -> dict[str, Any]:
        with self._sc.held() as mem:
            return {"bank": self.bank_id, "memories": dict(mem.counts()),
                    "agent": self._sc.who.agent, "role": self._sc.who.role}

    def close(self) -> None:
        """The server keeps the bank open; nothing to do."""


class McpMount:
    """The ASGI application of ``/mcp``; :meth:`running` is entered by the server's
    lifespan and stops every MCP server when it ends."""

    def __init__(self, state: ServerState, factory: Callable[..., Any]) -> None:
        self.state = state
        self.factory = factory
        self._servers: OrderedDict[tuple[str, str], tuple[Any, Any]] = OrderedDict()
        self._tg: Any = None
        self._making: Any = None  # an anyio.Lock while running

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        import anyio

        async with anyio.create_task_group() as tg:
            self._tg, self._making = tg, anyio.Lock()
            try:
                yield
            finally:
                self._tg = None
                for _app, stop in self._servers.values():
                    stop.set()
                self._servers.clear()
                tg.cancel_scope.cancel()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from anyio import to_thread

        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers") or []}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            who = await to_thread.run_sync(self.state.principal, headers.get("authorization"))
            bank = (query.get("bank") or [headers.get("x-hindsight-bank", "")])[0]
            if not bank and not WILDCARDS & set(who.bank):
                bank = who.bank
            if not bank:
                raise ConfigError("bank: name the bank (?bank=ID or X-Hindsight-Bank)",
                                  option="bank")
            # a token that may write may also make the bank (its first retain does)
            role = "read" if who.role == "read" else "write"
            sc = await to_thread.run_sync(self.state.scoped, who, bank, role)
            app = await self._server(who.token, sc)
        except HindsightError as e:
            status, body = error_body(e)
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            await send_json(send, status, body, extra)
            return
        await app(scope, receive, send)

    async def _server(self, token: str, sc: Scoped) -> Any:
        key = (token, sc.bank_id)
        if self._tg is None or self._making is None:
            raise ConfigError("the server is shutting down")
        async with self._making:
            if key in self._servers:
                self._servers.move_to_end(key)
                return self._servers[key][0]
            return await self._start(key, sc)

    async def _start(self, key: tuple[str, str], sc: Scoped) -> Any:
        import anyio
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
        from mcp.server.transport_security import TransportSecuritySettings

        view = _BankView(sc, self.state.metrics)
        server = self.factory(lambda: view)
        # tokens guard this endpoint; the SDK's Host check would refuse a server bound to
        # another interface than loopback
        server.streamable_http_app(stateless_http=True, json_response=True,
                                   transport_security=TransportSecuritySettings(
                                       enable_dns_rebinding_protection=False))
        manager = server.session_manager
        stop = anyio.Event()

        async def run(*, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
            async with manager.run():
                task_status.started()
                await stop.wait()

        await self._tg.start(run)
        app = StreamableHTTPASGIApp(manager)
        self._servers[key] = (app, stop)
        while len(self._servers) > MAX_SERVERS:
            _k, (_a, old) = self._servers.popitem(last=False)
            old.set()
        return app
