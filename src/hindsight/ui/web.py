"""The control plane's application: routes, templates and the one error page.

:func:`build_app` makes the Starlette application (imported here, never at package import)
behind :class:`hindsight.ui.security.Guard`. Views call the bank's services only
(``bank.code``, ``bank.history``, ``bank.memory``, ``bank.sessions``), holding the bank's
lock (:mod:`hindsight.ui.state`); templates are Jinja2 with autoescaping on, so stored text
is always shown as text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hindsight.errors import Ambiguous, ConfigError, HindsightError, NotFound
from hindsight.ui.state import Served, UiState

BANK_COOKIE = "hindsight_bank"
NAV = (("banks", "/", "Banks"), ("memories", "/memories", "Memories"),
       ("recall", "/recall", "Recall"), ("code", "/code", "Code"),
       ("hotspots", "/hotspots", "Hot spots"), ("pages", "/pages", "Pages"))
STATUS = {"ConfigError": 400, "NotFound": 404, "Ambiguous": 409, "NotIndexed": 409,
          "BankNotFound": 404, "GitError": 409, "Busy": 503, "StorageError": 503}


class Ui:
    """What the views share: the :class:`UiState` and the template environment."""

    def __init__(self, state: UiState) -> None:
        from jinja2 import Environment, PackageLoader, select_autoescape

        self.state = state
        self.env = Environment(loader=PackageLoader("hindsight.ui", "templates"),
                               autoescape=select_autoescape(default=True,
                                                            default_for_string=True),
                               trim_blocks=True, lstrip_blocks=True)
        self.env.filters["when"] = _when
        self.env.filters["short"] = _short
        self.env.globals["nav"] = NAV

    def served(self, request: Any) -> Served:
        """The bank this browser chose (cookie), else the default one."""
        return self.state.served(request.cookies.get(BANK_COOKIE))

    def page(self, request: Any, name: str, active: str, status: int = 200,
             **ctx: Any) -> Any:
        """The template ``name`` as an HTML response, with the token (for forms), the
        current bank and the active navigation entry."""
        from starlette.responses import HTMLResponse

        return HTMLResponse(self.fragment(name, active=active, token=self.state.token,
                                          **ctx), status_code=status)

    def fragment(self, name: str, **ctx: Any) -> str:
        return self.env.get_template(name).render(**ctx)

    def error(self, request: Any, e: HindsightError, active: str = "") -> Any:
        """The error page: the message, the candidates of an ambiguous name (as links to
        the symbol page) and the command that fixes it."""
        fix = ""
        action = getattr(e, "action", None)
        root = getattr(e, "root", None)
        if action:
            fix = f"hindsight {action}" + (f" --repo-root {root}" if root else "")
        cands = list(e.candidates) if isinstance(e, Ambiguous) else []
        return self.page(request, "error.html", active, STATUS.get(type(e).__name__, 500),
                         message=str(e), fix=fix, candidates=cands, bank=None)


def view(ui: Ui, active: str, fn: Callable[[Any, Served], dict[str, Any]],
         template: str) -> Callable[[Any], Any]:
    """A GET endpoint (run in a worker thread by Starlette): ``fn(request, served)`` gives
    the template's context while the bank's lock is held; service errors become the error
    page."""

    def endpoint(request: Any) -> Any:
        try:
            served = ui.served(request)
            t0 = time.perf_counter()
            with served.lock:
                ctx = fn(request, served)
            ctx.setdefault("server_ms", (time.perf_counter() - t0) * 1000)
            return ui.page(request, template, active, bank=_bank_line(served), **ctx)
        except HindsightError as e:
            return ui.error(request, e, active)
    return endpoint


def _bank_line(served: Served) -> dict[str, str]:
    return {"id": served.bank.bank_id, "root": served.root}


def build_app(state: UiState, *, any_host: bool = False) -> Any:
    """The ASGI application of one ``hindsight ui`` run: every route behind the guard
    (token, Host, cross-site checks); ``any_host`` when started with ``--host``."""
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from hindsight.ui import code_views, memory_views
    from hindsight.ui.security import Guard

    ui = Ui(state)
    routes = [*memory_views.routes(ui), *code_views.routes(ui),
              Mount("/static", StaticFiles(packages=[("hindsight.ui", "static")]),
                    name="static"),
              Route("/favicon.ico", lambda r: _empty())]
    app = Starlette(routes=routes, exception_handlers={404: _not_found(ui)})
    return Guard(app, state.token, any_host=any_host)


def _empty() -> Any:
    from starlette.responses import Response

    return Response(status_code=204)


def _not_found(ui: Ui) -> Callable[..., Any]:
    def handler(request: Any, exc: Exception) -> Any:
        return ui.error(request, NotFound(f"{request.url.path}: no such page"))
    return handler


def _when(ts: Any) -> str:
    """An instant as people read it (the reader's zone with its offset)."""
    from hindsight.app import time_shown

    if ts in (None, "", 0):
        return ""
    return time_shown(ts)


def _short(text: str, n: int = 160) -> str:
    t = " ".join(str(text).split())
    return t if len(t) <= n else t[:n - 1] + "…"


def int_arg(request: Any, name: str, default: int, lo: int, hi: int) -> int:
    """An integer query parameter within [lo, hi]. Raises ConfigError naming it."""
    raw = request.query_params.get(name, "")
    if raw == "":
        return default
    try:
        v = int(raw)
    except ValueError:
        raise ConfigError(f"{name} {raw!r}: a whole number from {lo} to {hi}",
                          option=name, value=raw) from None
    if not lo <= v <= hi:
        raise ConfigError(f"{name} {v}: from {lo} to {hi}", option=name, value=v)
    return v

