"""Views of the code: symbol search, a symbol's page (definition and snippet, callers and
callees as an interactive graph, its history on a timeline, the memories anchored to it),
the call-graph neighbourhood as JSON for the graph, hot spots as a chart, and the
knowledge pages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hindsight.errors import ConfigError, HindsightError
from hindsight.ui.state import Served
from hindsight.ui.web import Ui, int_arg, view

SYMBOL_KINDS = ("function", "method", "constructor", "class", "interface", "struct", "enum",
                "trait", "type", "constant", "module", "namespace", "macro", "object",
                "property")
GRAPH_MAX = 400  # nodes in one graph answer at most (the page asks for 250)
LIST_MAX = 200  # callers and callees listed on a symbol page at most
TIMELINE_W = 900  # width of the timeline drawing (SVG user units)


def routes(ui: Ui) -> list[Any]:
    from starlette.routing import Route

    return [Route("/code", view(ui, "code", _code, "code.html")),
            Route("/symbol", view(ui, "code", _symbol, "symbol.html")),
            Route("/api/graph", _graph_endpoint(ui)),
            Route("/hotspots", view(ui, "hotspots", _hotspots, "hotspots.html")),
            Route("/pages", view(ui, "pages", _pages, "pages.html"))]


def _code(request: Any, served: Served) -> dict[str, Any]:
    q = (request.query_params.get("q") or "").strip()
    kind = request.query_params.get("kind") or None
    if kind and kind not in SYMBOL_KINDS:
        raise ConfigError(f"kind {kind!r}: one of {', '.join(SYMBOL_KINDS)}", option="kind",
                          value=kind, choices=list(SYMBOL_KINDS))
    how, syms = ("", [])
    if q:
        how, syms = served.bank.code.symbols(q, kind, limit=100)
    return {"q": q, "kind": kind or "", "how": how, "symbols": syms, "kinds": SYMBOL_KINDS}


def _symbol(request: Any, served: Served) -> dict[str, Any]:
    bank = served.bank
    q = (request.query_params.get("q") or "").strip()
    if not q:
        raise ConfigError("q: give a symbol (name, Class.method or path::local)", option="q")
    depth = int_arg(request, "depth", 1, 1, 3)
    cap = int_arg(request, "max", 250, 1, GRAPH_MAX)
    sym = bank.code.resolve(q)
    step = bank.code.trace(sym.qname, depth=0)
    _t, callers, _d, more_callers = bank.code.walk("callers", sym.qname, 1, limit=LIST_MAX)
    _t, callees, _d, more_callees = bank.code.walk("callees", sym.qname, 1, limit=LIST_MAX)
    ctx: dict[str, Any] = {"more_callers": more_callers, "more_callees": more_callees,
                           "list_max": LIST_MAX,"sym": sym, "snippet": step.snippet, "depth": depth,
                           "graph_max": cap, "callers": callers,
                           "callees": callees, "history": [], "history_note": ""}
    try:
        ctx["history"] = bank.history.history(sym.qname)["entries"]
    except HindsightError as e:
        ctx["history_note"] = str(e)
    edits = bank.history.trace_log(file=sym.path, symbol=sym.local, limit=100)
    ctx["edits"] = edits
    ctx["timeline"] = timeline(ctx["history"], edits)
    ctx["memories"] = bank.memory.memories(status="all", anchor=sym.qname, limit=100)
    return ctx


def timeline(entries: list[Any], edits: list[dict[str, Any]]) -> dict[str, Any]:
    """Points for the history timeline: each commit (author date) and live edit (its
    time) at ``x`` in [20, TIMELINE_W - 20] by time, oldest left; ``{"points": [{x, kind:
    commit|edit, label, ts}], "first", "last"}`` (Unix seconds)."""
    pts: list[dict[str, Any]] = []
    for e in entries:
        try:
            ts = datetime.fromisoformat(e.date).timestamp()
        except ValueError:
            continue
        pts.append({"ts": ts, "kind": "commit",
                    "label": f"{e.sha[:10]} {e.change}: {e.subject} ({e.author})"})
    for ev in edits:
        ts = float(ev.get("ts_unix") or 0)
        if ts:
            pts.append({"ts": ts, "kind": "edit",
                        "label": f"{ev.get('action', 'edit')} by {ev.get('actor') or '?'}"})
    if not pts:
        return {"points": [], "first": None, "last": None}
    lo, hi = min(p["ts"] for p in pts), max(p["ts"] for p in pts)
    span = (hi - lo) or 1.0
    for p in pts:
        p["x"] = round(20 + (p["ts"] - lo) / span * (TIMELINE_W - 40), 1)
    pts.sort(key=lambda p: p["ts"])
    return {"points": pts, "first": lo, "last": hi}


def graph(bank: Any, spec: str, depth: int, max_nodes: int) -> dict[str, Any]:
    """The call-graph neighbourhood of ``spec``: callers and callees to ``depth`` levels,
    at most ``max_nodes`` nodes (the nearest first). ``{"center", "nodes": [{id, label,
    qname, kind, path, line, side: center|caller|callee, depth, resolved}], "edges":
    [{source, target}], "truncated"}``; an unresolved callee's id is ``?name``. Raises
    NotIndexed, NotFound, Ambiguous."""
    target, callers, _d, cut_callers = bank.code.walk("callers", spec, depth,
                                                      limit=max_nodes)
    _t, callees, _d, cut_callees = bank.code.walk("callees", target.qname, depth,
                                                  limit=max_nodes)
    nodes: dict[str, dict[str, Any]] = {target.qname: _node(
        target.qname, target.name, target.kind, target.path, target.start_line, "center", 0,
        True)}
    edges: set[tuple[str, str]] = set()
    truncated = cut_callers or cut_callees
    hits = sorted([("caller", h) for h in callers] + [("callee", h) for h in callees],
                  key=lambda sh: sh[1].depth)
    for side, h in hits:
        nid = h.edge_src if side == "caller" else h.edge_dst
        if nid not in nodes:
            if len(nodes) >= max_nodes:
                truncated = True
                continue
            nodes[nid] = _node(h.qname if h.resolved else "", h.name, h.kind, h.path, h.line,
                               side, h.depth, h.resolved, nid)
        if h.edge_src in nodes and h.edge_dst in nodes:
            edges.add((h.edge_src, h.edge_dst))
    return {"center": target.qname, "nodes": list(nodes.values()),
            "edges": [{"source": s, "target": t} for s, t in sorted(edges)],
            "truncated": truncated}


def _node(qname: str, name: str, kind: str, path: str, line: int, side: str, depth: int,
          resolved: bool, nid: str | None = None) -> dict[str, Any]:
    return {"id": nid or qname, "label": name.rsplit(".", 1)[-1] or name, "qname": qname,
            "kind": kind, "path": path, "line": line, "side": side, "depth": depth,
            "resolved": resolved}


def _graph_endpoint(ui: Ui) -> Any:
    def endpoint(request: Any) -> Any:
        from starlette.responses import JSONResponse

        try:
            q = (request.query_params.get("q") or "").strip()
            if not q:
                raise ConfigError("q: give a symbol", option="q")
            depth = int_arg(request, "depth", 1, 1, 5)
            cap = int_arg(request, "max", 250, 1, GRAPH_MAX)
            served = ui.served(request)
            with served.lock:
                return JSONResponse(graph(served.bank, q, depth, cap))
        except HindsightError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
    return endpoint


def _hotspots(request: Any, served: Served) -> dict[str, Any]:
    days = int_arg(request, "days", 90, 1, 36_500)
    limit = int_arg(request, "limit", 20, 1, 200)
    ctx: dict[str, Any] = {"days": days, "limit": limit, "data": None, "note": ""}
    try:
        data = served.bank.history.hotspots(days, limit)
    except HindsightError as e:
        ctx["note"] = str(e)
        return ctx
    for key in ("files", "symbols"):
        top = max((r["score"] for r in data[key]), default=0) or 1
        for r in data[key]:
            r["bar"] = round(r["score"] / top * 100, 1)
    ctx["data"] = data
    return ctx


def pages_of(bank: Any) -> list[dict[str, Any]] | None:
    """The bank's knowledge pages in the shape of ``hindsight pages --json`` (``[{"name",
    "title", "version", "updated_at", "sections": [{"heading", "text", "citations":
    [{"kind", "ref"}]}]}]``), or ``None`` when this build has no pages service. The one
    place the control plane meets the pages service (``bank.pages``, issue 13 part 1):
    it asks ``bank.pages.list()`` for the pages (each a dict of that shape or a record
    with ``as_dict()``)."""
    svc = getattr(bank, "pages", None)
    if svc is None or not callable(getattr(svc, "list", None)):
        return None
    return [p.as_dict() if hasattr(p, "as_dict") else dict(p) for p in svc.list()]


def _pages(request: Any, served: Served) -> dict[str, Any]:
    return {"pages": pages_of(served.bank)}
