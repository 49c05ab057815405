"""The ``/v1`` routes. Every one names its bank (``bank`` in the body or the query: bank
ids may hold ``/`` and ``::``), checks the caller's token (:mod:`hindsight.server.tokens`)
and calls the bank's memory service through :class:`hindsight.server.views.Scoped`.
Shapes are those of the CLI's ``--json`` (memories as ``Memory.as_dict``, recall as
``RecallResult.as_dict``); times in requests are ISO 8601 with an offset.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi import Path as FPath
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict

from hindsight.errors import ConfigError, HindsightError
from hindsight.server.schemas import (
    BankOnly,
    Batch,
    ForgetBody,
    ImportBody,
    RecallBody,
    ReflectBody,
    RetainBody,
)
from hindsight.server.state import MAX_BATCH, ServerState
from hindsight.server.tokens import Principal

router = APIRouter()
BankId = Annotated[str, Query(min_length=1, max_length=200, description="Bank id.")]
MemoryId = Annotated[int, FPath(ge=1, le=2**62, description="Memory id.")]


def _state(request: Request) -> ServerState:
    st: ServerState = request.app.state.hs
    return st


def caller(request: Request,
           authorization: Annotated[str | None, Header(include_in_schema=False)] = None
           ) -> Principal:
    """The request's principal (a dependency of every authenticated route)."""
    return _state(request).principal(authorization)


Caller = Annotated[Principal, Depends(caller)]


class Version(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: str
    api: int


@router.get("/metrics", tags=["server"], response_class=Response)
def metrics(request: Request, who: Caller) -> Any:
    """Prometheus text format (see :mod:`hindsight.server.metrics`): the per-bank series
    of the banks the token may use only."""
    from prometheus_client import CONTENT_TYPE_LATEST

    from hindsight.server.metrics import only_banks

    return Response(only_banks(_state(request).metrics.render(), who.may_use),
                    media_type=CONTENT_TYPE_LATEST)


@router.get("/v1/version", tags=["server"], response_model=Version)
def version() -> dict[str, Any]:
    """The server's release and API major version (clients of another major refuse)."""
    from hindsight.server.api import API_VERSION, _version

    return {"version": _version(), "api": API_VERSION}


@router.get("/v1/banks", tags=["banks"])
def banks(request: Request, who: Caller) -> dict[str, Any]:
    """Banks on this server that the token may use, with the token's own rights."""
    ids = [b for b in _state(request).bank_ids() if who.may_use(b)]
    return {"banks": ids, "count": len(ids), "agent": who.agent, "team": who.team,
            "role": who.role, "bank_glob": who.bank}


def _anchors(given: list[list[str]]) -> list[tuple[str, str, str]]:
    return [(a[0], a[1], a[2]) for a in given]


def _item_fields(it: RetainBody) -> dict[str, Any]:
    return {"kind": it.kind, "tags": list(it.tags), "outcome": it.outcome,
            "supersedes": it.supersedes, "source": it.source, "session": it.session,
            "occurred": it.occurred, "context": it.context, "visibility": it.visibility,
            "confidence": it.confidence, "commit_sha": it.commit_sha, "ref": it.ref}


@router.post("/v1/retain", tags=["memories"])
def retain(request: Request, body: RetainBody, who: Caller) -> dict[str, Any]:
    """Retain one memory. Owner and agent are the token's."""
    st = _state(request)
    sc = st.scoped(who, body.bank, "write")
    try:
        item = sc.item(body.text, _anchors(body.anchors), body.files, body.symbols,
                       **_item_fields(body))
        res = sc.retain([item], batch=False)[0]
    except HindsightError:
        st.metrics.retain.labels("failure").inc()
        raise
    st.metrics.retain.labels("success").inc()
    return dict(res.as_dict())


@router.post("/v1/retain/batch", tags=["memories"])
def retain_batch(request: Request, body: Batch, who: Caller,
                 idempotency_key: Annotated[str | None, Header(
                     max_length=200, pattern=r"^[\x21-\x7e]+$")] = None) -> dict[str, Any]:
    """Retain up to 1,000 memories in one transaction. With an idempotency key (body
    ``idempotency_key`` or header ``Idempotency-Key``) a retry returns the first answer;
    without its record (the server died after storing) every item is found by its
    fingerprint and stored once all the same."""
    st = _state(request)
    key = body.idempotency_key or idempotency_key
    if len(body.items) > MAX_BATCH:
        raise ConfigError(f"items: at most {MAX_BATCH} per batch", option="items")
    sc = st.scoped(who, body.bank, "write")
    digest = hashlib.sha256(body.model_dump_json(exclude={"idempotency_key"}).encode()
                            ).hexdigest()
    if key:
        kept = st.tokens.idem_get(key, who.agent)
        if kept is not None:
            if kept[0] != digest:
                raise ConfigError("idempotency_key: used before for another batch",
                                  option="idempotency_key", value=key)
            return {**json.loads(kept[1]), "replayed": True}
    try:
        items = [sc.item(it.text, _anchors(it.anchors), it.files, it.symbols,
                         **_item_fields(it)) for it in body.items]
        res = sc.retain(items, batch=True)
    except HindsightError:
        st.metrics.retain.labels("failure").inc()
        raise
    st.metrics.retain.labels("success").inc(len(res))
    out = {"bank": body.bank, "results": [r.as_dict() for r in res], "count": len(res)}
    if key:
        st.tokens.idem_put(key, who.agent, digest, json.dumps(out), time.time())
    return {**out, "replayed": False}


@router.post("/v1/recall", tags=["memories"])
def recall(request: Request, body: RecallBody, who: Caller) -> dict[str, Any]:
    """Memories relevant to ``text``: the CLI's recall with all its filters."""
    from hindsight.app import time_iso

    st = _state(request)
    sc = st.scoped(who, body.bank)
    since = time_iso(body.since, option="since") if body.since else None
    until = time_iso(body.until, option="until") if body.until else None
    t0 = time.perf_counter()
    res = sc.recall(body.text, scene=body.scene, files=body.files, symbols=body.symbols,
                    kinds=body.kinds, tags=body.tags, since=since, until=until, k=body.k,
                    budget=body.budget, rerank=body.rerank, fusion=body.fusion,
                    embed=body.dense)
    st.metrics.recalled(time.perf_counter() - t0, len(res.hits))
    out = res.as_dict()
    if not body.explain:
        for h in out["hits"]:
            h.pop("explain", None)
    return {"bank": body.bank, **out}


@router.post("/v1/reflect", tags=["memories"])
def reflect(request: Request, body: ReflectBody, who: Caller) -> dict[str, Any]:
    """A digest of the best evidence for ``question`` (and an answer with an LLM)."""
    return _state(request).scoped(who, body.bank).reflect(body.question, body.k)


@router.post("/v1/memories/{memory_id}/forget", tags=["memories"])
def forget(request: Request, memory_id: MemoryId, body: ForgetBody, who: Caller
           ) -> dict[str, Any]:
    """Forget a memory (soft delete); the audit records the token's agent."""
    return _state(request).scoped(who, body.bank, "write").forget(memory_id, body.reason)


@router.post("/v1/memories/{memory_id}/restore", tags=["memories"])
def restore(request: Request, memory_id: MemoryId, body: ForgetBody, who: Caller
            ) -> dict[str, Any]:
    """Make a forgotten or archived memory active again (audited with the agent)."""
    return _state(request).scoped(who, body.bank, "write").forget(memory_id, body.reason,
                                                                   restore=True)


@router.get("/v1/memories", tags=["memories"])
def memories(request: Request, who: Caller, bank: BankId,
             status: Literal["active", "archived", "forgotten", "superseded", "all"] = "active",
             kind: Annotated[str | None, Query(max_length=40)] = None, stale: bool = False,
             limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
             offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
             tag: Annotated[str | None, Query(max_length=200)] = None,
             visibility: Literal["private", "team", "public"] | None = None,
             since: Annotated[str | None, Query(max_length=64)] = None,
             until: Annotated[str | None, Query(max_length=64)] = None,
             anchor: Annotated[str | None, Query(max_length=2000)] = None,
             order: Literal["occurred", "id"] = "occurred") -> dict[str, Any]:
    """Memories newest first, with the CLI's filters."""
    from hindsight.app import time_iso

    rows = _state(request).scoped(who, bank).memories(
        status=status, kind=kind, stale=stale, limit=limit, offset=offset, tag=tag,
        visibility=visibility, since=time_iso(since, option="since") if since else None,
        until=time_iso(until, option="until") if until else None, anchor=anchor,
        order=order)
    return {"bank": bank, "memories": [m.as_dict() for m in rows], "count": len(rows)}


@router.get("/v1/memories/{memory_id}", tags=["memories"])
def show(request: Request, memory_id: MemoryId, who: Caller, bank: BankId) -> dict[str, Any]:
    """One memory with its audit rows."""
    sc = _state(request).scoped(who, bank)
    m = sc.get(memory_id)
    return {"bank": bank, "memory": m.as_dict(), "audit": sc.audit(memory_id)}


@router.get("/v1/export", tags=["transfer"], response_class=PlainTextResponse)
def export(request: Request, who: Caller, bank: BankId) -> Any:
    """The memories the token may see as JSONL (``hindsight import`` reads it)."""
    lines = _state(request).scoped(who, bank).export_lines()
    return PlainTextResponse("".join(ln + "\n" for ln in lines),
                             media_type="application/x-ndjson")


@router.post("/v1/import", tags=["transfer"])
def import_(request: Request, body: ImportBody, who: Caller) -> dict[str, Any]:
    """Import exported JSONL lines; owners become the token's agent unless it is admin."""
    return _state(request).scoped(who, body.bank, "write").import_lines(body.lines)


@router.post("/v1/banks/check", tags=["banks"])
def check_bank(request: Request, body: BankOnly, who: Caller) -> dict[str, Any]:
    """Whether the token may read and write ``bank`` (no bank is created)."""
    from hindsight.server.tokens import ROLES

    ok = who.may_use(body.bank)
    return {"bank": body.bank, "read": ok,
            "write": ok and ROLES.index(who.role) >= ROLES.index("write")}
