"""The ``/v1`` routes of execution records and knowledge pages (issue 11: on the server live
memories, execution records and knowledge pages). Same tokens as the memory routes: a
record needs the ``write`` role and is stored with the token's agent; reads need ``read``.

Pages are written by a checkout (they need its code index and history) into the bank's
database; a page line citing a memory the token may not see is left out (the visibility
of memories, item 5), so a page never shows another team's private or team memory.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as FPath

from hindsight.server.routes import BankId, Caller, MemoryId, _state
from hindsight.server.schemas import ForgetBody, RecordBody, RecordsBody

router = APIRouter()
PageName = Annotated[str, FPath(min_length=1, max_length=40, description="Page name.")]


@router.post("/v1/records", tags=["records"])
def record(request: Request, body: RecordBody, who: Caller) -> dict[str, Any]:
    """Store one execution record a checkout made (``hindsight run``, hooks, the MCP tool
    ``record_attempt`` in client mode); a retry with the same fingerprint stores nothing
    new (``created`` false)."""
    sc = _state(request).scoped(who, body.bank, "write")
    with sc.lock:
        rec, created = sc.bank.records.accept(body.model_dump(exclude={"bank"}), who.agent)
    sc._log("record", None, f"record {rec.id}{'' if created else ' (again)'}")
    return {"bank": body.bank, "id": rec.id, "created": created,
            "attempt": rec.attempt_dict()}


@router.post("/v1/records/batch", tags=["records"])
def records(request: Request, body: RecordsBody, who: Caller) -> dict[str, Any]:
    """Store up to 1,000 records a checkout made, in order (a session's write-back: one
    request instead of one per record); each answer as ``/v1/records`` gives it, without
    the attempt."""
    sc = _state(request).scoped(who, body.bank, "write")
    out = []
    with sc.lock:
        for r in body.records:
            rec, created = sc.bank.records.accept(r.model_dump(), who.agent)
            out.append({"id": rec.id, "created": created})
    sc._log_many([("record", None, f"record {r['id']}{'' if r['created'] else ' (again)'}")
                  for r in out])
    return {"bank": body.bank, "results": out}


@router.get("/v1/attempts", tags=["records"])
def attempts(request: Request, who: Caller, bank: BankId,
             symbol: Annotated[str, Query(min_length=1, max_length=2000)],
             file: Annotated[str | None, Query(max_length=2000)] = None,
             outcome: Literal["success", "failure", "interrupted", "unknown"] | None = None,
             limit: Annotated[int, Query(ge=1, le=1000)] = 20,
             offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0) -> dict[str, Any]:
    """The attempts that changed or exercised ``symbol`` (``path::name``, or a bare name),
    newest first: ``hindsight attempts``'s answer with its filters."""
    sc = _state(request).scoped(who, bank)
    with sc.lock:
        res = sc.bank.records.attempts(symbol, file=file, outcome=outcome, limit=limit,
                                       offset=offset)
        recs = sc.bank.records.store.get_records([a["id"] for a in res["attempts"]],
                                                 links=False)
    for a in res["attempts"]:  # whose attempt it was: the token that sent it
        a["agent"] = recs[a["id"]].agent if a["id"] in recs else ""
    return {"bank": bank, **res}


def visible_pages(sc: Any, pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``pages`` (``Page.as_dict``) without the lines citing memories ``sc``'s token may
    not see."""
    cited = {int(c["ref"]) for p in pages for s in p["sections"] for c in s["citations"]
             if c["kind"] == "memory" and str(c["ref"]).isdigit()}
    if not cited or sc.who.role == "admin":
        return pages
    with sc.lock:
        seen = set(sc.bank.memory.store.get(sorted(cited), sc.who.viewer))
    return list(sc.bank.pages.without_memories(pages, cited - seen))


@router.get("/v1/pages", tags=["pages"])
def pages(request: Request, who: Caller, bank: BankId) -> dict[str, Any]:
    """The newest version of every knowledge page written for the bank."""
    sc = _state(request).scoped(who, bank)
    with sc.lock:
        got = [p.as_dict() for p in sc.bank.pages.list()]
    got = visible_pages(sc, got)
    return {"bank": bank, "pages": got, "count": len(got)}


@router.get("/v1/pages/{name}", tags=["pages"])
def page(request: Request, name: PageName, who: Caller, bank: BankId) -> dict[str, Any]:
    """One page, newest version (404 when not written yet, 422 for an unknown name)."""
    sc = _state(request).scoped(who, bank)
    with sc.lock:
        got = sc.bank.pages.get(name).as_dict()
    return {"bank": bank, "page": visible_pages(sc, [got])[0]}


@router.post("/v1/memories/{memory_id}/purge", tags=["memories"])
def purge(request: Request, memory_id: MemoryId, body: ForgetBody, who: Caller
          ) -> dict[str, Any]:
    """Delete a memory for real (``forget --purge``; admin tokens only, a reason needed):
    its row, vector, anchors and postings, its text in its neighbours' contexts and in
    the pages' cited lines; the audit records the token's agent."""
    return _state(request).scoped(who, body.bank, "admin").purge(memory_id, body.reason)
