"""Views of banks and memories: the Banks overview (switch bank), the Memories list with
its filters and live updates (server-sent events), one memory with forget / restore, and
the recall debugger (each channel's rank and score per hit, as ``recall --explain``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from hindsight.errors import ConfigError, HindsightError
from hindsight.ui.security import form_ok
from hindsight.ui.state import Served
from hindsight.ui.web import BANK_COOKIE, Ui, int_arg, view

KINDS = ("experience", "decision", "convention", "fact", "lesson", "conversation")
STATUSES = ("active", "archived", "forgotten", "superseded", "all")
VISIBILITY = ("team", "public", "private")
CHANNELS = ("bm25", "prf", "dense", "anchor", "recency", "lesson", "adjacent")
PAGE = 50
LIVE_POLL_S = 0.5  # how often the live list asks the bank for new memories
LIVE_BATCH = 50


def routes(ui: Ui) -> list[Any]:
    from starlette.routing import Route

    return [Route("/", view(ui, "banks", _banks(ui), "banks.html")),
            Route("/banks/switch", _switch(ui), methods=["POST"]),
            Route("/memories", view(ui, "memories", _memories, "memories.html")),
            Route("/memory/{mid:int}", view(ui, "memories", _memory, "memory.html")),
            Route("/memory/{mid:int}/{action:str}", _lifecycle(ui), methods=["POST"]),
            Route("/events/memories", _events(ui)),
            Route("/recall", view(ui, "recall", _recall, "recall.html"))]


# --- banks -------------------------------------------------------------------------------
def _banks(ui: Ui) -> Any:
    def ctx(request: Any, served: Served) -> dict[str, Any]:
        rows = []
        for root, bank_id in ui.state.known():
            row: dict[str, Any] = {"root": root, "id": bank_id,
                                   "current": root == served.root}
            try:
                other = served if row["current"] else ui.state.served(root)
                if other is served:
                    row["status"] = served.bank.status()
                else:
                    with other.lock:
                        row["status"] = other.bank.status()
            except HindsightError as e:
                row["error"] = str(e)
            rows.append(row)
        rows.sort(key=lambda r: (not r["current"], r["id"]))
        return {"banks": rows}
    return ctx


def _switch(ui: Ui) -> Any:
    async def endpoint(request: Any) -> Any:
        from starlette.responses import PlainTextResponse, RedirectResponse

        form = await request.form()
        if not form_ok(form, request.headers, ui.state.token):
            return PlainTextResponse("hindsight ui: form token missing or wrong\n", 403)
        root = str(form.get("root", ""))
        if root not in {r for r, _b in ui.state.known()}:
            return PlainTextResponse(f"hindsight ui: {root!r}: not a known bank\n", 400)
        resp = RedirectResponse("/", status_code=303)
        resp.set_cookie(BANK_COOKIE, root, httponly=True, samesite="strict")
        return resp
    return endpoint


# --- memories ----------------------------------------------------------------------------
def filters(request: Any) -> dict[str, Any]:
    """The memory filters of the query string, checked: ``status``, ``kind``, ``tag``,
    ``anchor`` (file or ``path::local``), ``stale`` (``on``), ``visibility``, ``since``,
    ``until`` (the CLI's time grammar). Raises ConfigError naming the field."""
    from hindsight.app import time_bound

    q = request.query_params
    status = q.get("status") or "active"
    kind = q.get("kind") or None
    vis = q.get("visibility") or None
    for name, value, allowed in (("status", status, STATUSES), ("kind", kind, KINDS),
                                 ("visibility", vis, VISIBILITY)):
        if value is not None and value not in allowed:
            raise ConfigError(f"{name} {value!r}: one of {', '.join(allowed)}",
                              option=name, value=value, choices=list(allowed))
    out: dict[str, Any] = {"status": status, "kind": kind, "visibility": vis,
                           "tag": (q.get("tag") or "").strip() or None,
                           "anchor": (q.get("anchor") or "").strip() or None,
                           "stale": q.get("stale") == "on"}
    since, until = (q.get("since") or "").strip(), (q.get("until") or "").strip()
    out["since"] = time_bound(since, option="since") if since else None
    out["until"] = time_bound(until, end=True, option="until") if until else None
    return out


def _memories(request: Any, served: Served) -> dict[str, Any]:
    f = filters(request)
    offset = int_arg(request, "offset", 0, 0, 10_000_000)
    mem = served.bank.memory
    rows = mem.memories(limit=PAGE + 1, offset=offset, **f)
    newest = mem.memories(status="all", order="id", limit=1)
    q = request.query_params
    form = {k: q.get(k, "") for k in ("status", "kind", "tag", "anchor", "visibility",
                                      "since", "until", "stale")}
    query = "&".join(f"{k}={_q(v)}" for k, v in form.items() if v)
    return {"rows": rows[:PAGE], "more": len(rows) > PAGE, "offset": offset, "page": PAGE,
            "form": form, "query": query, "kinds": KINDS, "statuses": STATUSES,
            "visibilities": VISIBILITY, "after": newest[0].id if newest else 0}


def _q(v: str) -> str:
    from urllib.parse import quote

    return quote(v, safe="")


def _memory(request: Any, served: Served) -> dict[str, Any]:
    mid = int(request.path_params["mid"])
    m = served.bank.memory.get(mid)
    return {"m": m, "audit": served.bank.memory.audit(mid)}


def _lifecycle(ui: Ui) -> Any:
    async def endpoint(request: Any) -> Any:
        from starlette.concurrency import run_in_threadpool
        from starlette.responses import PlainTextResponse, RedirectResponse

        form = await request.form()
        if not form_ok(form, request.headers, ui.state.token):
            return PlainTextResponse("hindsight ui: form token missing or wrong\n", 403)
        mid, action = int(request.path_params["mid"]), request.path_params["action"]
        reason = str(form.get("reason", ""))
        if action not in ("forget", "restore"):
            return PlainTextResponse(f"hindsight ui: {action!r}: forget or restore\n", 404)

        def act() -> None:
            served = ui.served(request)
            with served.lock:
                if action == "forget":
                    served.bank.memory.forget(mid, reason)
                else:
                    served.bank.memory.restore(mid, reason)
        try:
            await run_in_threadpool(act)
        except HindsightError as e:
            return ui.error(request, e, "memories")
        return RedirectResponse(f"/memory/{mid}", status_code=303)
    return endpoint


def _events(ui: Ui) -> Any:
    """Server-sent events for the Memories list: one ``memory`` event per memory stored
    after the id ``after`` that matches the list's filters, its data the table row (HTML,
    escaped like the page)."""
    async def endpoint(request: Any) -> Any:
        from sse_starlette.sse import EventSourceResponse
        from starlette.concurrency import run_in_threadpool

        try:
            f = filters(request)
            after = int_arg(request, "after", 0, 0, 2**62)
            served = await run_in_threadpool(ui.served, request)
        except HindsightError as e:
            return ui.error(request, e, "memories")

        def fetch(last: int) -> list[Any]:
            with served.lock:
                return list(served.bank.memory.memories(after_id=last, order="id",
                                                        limit=LIVE_BATCH, **f))

        async def stream() -> Any:
            last = after
            while not await request.is_disconnected():
                rows = await run_in_threadpool(fetch, last)
                for m in reversed(rows):  # oldest first: each lands on top of the list
                    last = max(last, m.id)
                    yield {"event": "memory", "id": str(m.id),
                           "data": ui.fragment("_memory_row.html", m=m, live=True)}
                await asyncio.sleep(LIVE_POLL_S)
        return EventSourceResponse(stream(), ping=15)
    return endpoint


# --- recall debugger ---------------------------------------------------------------------
def _recall(request: Any, served: Served) -> dict[str, Any]:
    from hindsight.app import time_bound

    q = request.query_params
    text = (q.get("q") or "").strip()
    form = {k: q.get(k, "") for k in ("q", "kind", "tag", "since", "until", "agent",
                                      "k", "rerank", "dense")}
    ctx: dict[str, Any] = {"form": form, "kinds": KINDS, "result": None,
                           "submitted": "q" in q}
    if not text:
        return ctx
    kind = q.get("kind") or ""
    if kind and kind not in KINDS:
        raise ConfigError(f"kind {kind!r}: one of {', '.join(KINDS)}", option="kind",
                          value=kind, choices=list(KINDS))
    k = int_arg(request, "k", 10, 1, 200)
    since, until = (q.get("since") or "").strip(), (q.get("until") or "").strip()
    t0 = time.perf_counter()
    res = served.bank.memory.recall(
        text, k=k, kinds=[kind] if kind else [], touch=False,
        tags=[t.strip() for t in (q.get("tag") or "").split(",") if t.strip()],
        since=time_bound(since, option="since") if since else None,
        until=time_bound(until, end=True, option="until") if until else None,
        agent=(q.get("agent") or "").strip(), rerank=q.get("rerank") == "on",
        embed=q.get("dense", "on") == "on")  # the form sends "off" then "on" if ticked
    wall = (time.perf_counter() - t0) * 1000
    used = [c for c in CHANNELS if c in res.channels or any(c in h.explain for h in res.hits)]
    used += sorted({c for h in res.hits for c in h.explain} - set(used))
    ctx.update(result=res, channels=used, recall_ms=wall)
    return ctx
