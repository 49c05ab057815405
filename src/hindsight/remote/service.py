"""The memory service of a bank in client mode: the same interface as
:class:`hindsight.memory.service.MemoryService`, with the memories on a ``hindsight serve``.

Only :mod:`hindsight.app` makes one (when ``apiUrl`` is set); the CLI, hooks and MCP server
do not know. What stays on this machine: the code index (anchors are resolved here and sent
as ``[path, symbol, ast_hash]``), staleness (computed here at read time against this
checkout's index: a symbol anchor is stale when its ast hash differs from the indexed one,
a file anchor when the file is gone), the anchor expansion of a recall (files and symbols
near the query, sent with it), and bookkeeping (``get_meta``/``set_meta``).

Write-back that cannot reach the server (refused, timed out, 5xx) is spooled under
``spool/<bank key>/remote/`` (mode 0700), one JSON file per batch with its idempotency key,
and replayed before the next write, before the first read of a process (for 0.3 s) and
by :meth:`RemoteMemoryService.replay`: a batch the
server stored but did not acknowledge is answered from the server's idempotency record,
so nothing is stored twice. A spooled item answers ``Retained(id=0, action="spooled")``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC
from typing import Any

from hindsight.errors import ConfigError, HindsightError, Unreachable
from hindsight.memory.service import AnchorFn, MemoryService, NeighbourFn
from hindsight.models import ChannelRank, Hit, Memory, MemoryItem, RecallResult, Retained
from hindsight.remote.client import ServerClient, idempotency_key
from hindsight.remote.spool import REPLAY_S, Spool
from hindsight.store.base import CodeStore, MemoryStore, Viewer

FIELDS = ("kind", "tags", "outcome", "supersedes", "source", "session", "occurred",
          "context", "visibility", "confidence", "commit_sha", "ref")
SOURCES = ("human", "api", "conversation", "commit", "tool")
PARALLEL = 8  # requests :meth:`RemoteMemoryService.memories_many` has open at once


def memory_from(d: dict[str, Any]) -> Memory:
    """A :class:`Memory` from its JSON shape (``Memory.as_dict``)."""
    return Memory.from_row(d, list(d.get("anchors") or []))


def item_body(it: MemoryItem) -> dict[str, Any]:
    """A :class:`MemoryItem` as a ``/v1/retain`` item (owner and agent are the token's)."""
    body: dict[str, Any] = {"text": it.text, "anchors": [list(a) for a in it.anchors]}
    for f in FIELDS:
        body[f] = getattr(it, f)
    if body["source"] not in SOURCES:
        body["source"] = "api"
    return body


class RemoteMemoryService(Spool, MemoryService):
    """Memories of bank ``bank_id`` on the server ``client`` talks to; ``store`` is this
    machine's bank (bookkeeping only), ``spool`` the spool directory, ``code()`` this
    checkout's code index or None, ``root`` the checkout. Raises what :class:`ServerClient` raises."""

    remote = True

    def __init__(self, store: MemoryStore, client: ServerClient, bank_id: str, spool: str, *,
                 anchors: AnchorFn, neighbours: NeighbourFn,
                 code: Callable[[], CodeStore | None] = lambda: None, root: str = "") -> None:
        super().__init__(store, anchors=anchors, neighbours=neighbours,
                         embedder=lambda: None, code=code)
        self.client = client
        self.bank_id = bank_id
        self.spool = spool
        self.root = root
        self._replayed = False
        self._listed: dict[int, Memory] = {}  # rows anchored() listed, for get_many()

    # --- staleness against this checkout ------------------------------------------------
    def _fresh(self, rows: list[Memory]) -> list[Memory]:
        code = self._code()
        base = self.root
        if not rows:
            return rows
        qn = {f"{a.path}::{a.symbol}" for m in rows for a in m.anchors if a.symbol}
        now = {s.qname: s.ast_hash for s in code.symbols_by_qname(sorted(qn))} \
            if code is not None and qn else {}
        out = []
        for m in rows:
            anchors = []
            for a in m.anchors:
                why = ""
                if a.symbol and code is not None:
                    h = now.get(f"{a.path}::{a.symbol}")
                    why = "symbol gone" if h is None else (
                        "symbol changed" if a.ast_hash and h != a.ast_hash else "")
                elif not a.symbol and base and not os.path.exists(os.path.join(base, a.path)):
                    why = "file gone"
                anchors.append(dataclasses.replace(a, stale=bool(why), reason=why))
            stale = [a for a in anchors if a.stale]
            out.append(dataclasses.replace(
                m, anchors=tuple(anchors), stale=bool(stale),
                stale_reason=stale[0].reason if stale else ""))
        return out

    # --- retain ---------------------------------------------------------------------------
    def retain(self, text: str, *, kind: str = "", tags: list[str] | None = None,
               files: list[str] | None = None, symbols: list[str] | None = None,
               outcome: str = "", supersedes: int | None = None, source: str = "api",
               **fields: Any) -> Retained:
        """Retain one memory on the server (spooled when it does not answer)."""
        fields.pop("owner", None)
        fields.pop("agent", None)
        item = MemoryItem(text=text, kind=kind, tags=list(tags or []), outcome=outcome,
                          supersedes=supersedes, source=source,
                          anchors=self._anchors(list(files or []), list(symbols or []), True),
                          **fields)
        item.check()
        return self._send([item])[0]

    def retain_batch(self, items: list[MemoryItem], embed: bool = True,
                     viewer: Viewer | None = None) -> list[Retained]:
        """Retain ``items`` in batches of 1,000 (the server embeds)."""
        out: list[Retained] = []
        for i in range(0, len(items), 1000):
            out += self._send(items[i:i + 1000])
        return out

    retain_items = retain_batch

    def _send(self, items: list[MemoryItem]) -> list[Retained]:
        job = {"key": f"hs-{idempotency_key()}", "bank": self.bank_id,
               "items": [item_body(it) for it in items]}
        with contextlib.suppress(Unreachable):
            self.replay(REPLAY_S)
        try:
            return self._post(job)
        except Unreachable as e:
            self._spool_job(job)
            why = f"{e.message}; kept in the spool, sent when the server answers"
            return [Retained(0, "spooled", [], warning=why) for _ in items]

    def send_record(self, wire: dict[str, Any]) -> None:
        """Send one execution record this checkout stored (``RecordService.forward``) to
        ``POST /v1/records``; spooled like a retain when the server does not answer (its
        fingerprint makes a replay store it once)."""
        job = {"key": f"hs-{idempotency_key()}", "bank": self.bank_id, "record": wire}
        with contextlib.suppress(Unreachable):
            self.replay(REPLAY_S)
        try:
            self._post(job)
        except Unreachable:
            self._spool_job(job)

    def send_records(self, wires: list[dict[str, Any]]) -> None:
        """Send records this checkout stored, in order, 500 per ``POST /v1/records/batch``
        (``RecordService.forward_many``: a session's write-back); spooled as
        :meth:`send_record` spools one."""
        with contextlib.suppress(Unreachable):
            self.replay(REPLAY_S)
        for lo in range(0, len(wires), 500):
            job = {"key": f"hs-{idempotency_key()}", "bank": self.bank_id,
                   "records": wires[lo:lo + 500]}
            try:
                self._post(job)
            except Unreachable:
                self._spool_job(job)

    def team_attempts(self, symbol: str, file: str | None, outcome: str | None,
                      limit: int) -> tuple[list[dict[str, Any]], int] | None:
        """The server's attempts on ``symbol`` (``GET /v1/attempts``: the records every
        teammate's checkout sent), newest first, at most ``limit``, and how many it holds;
        None when the server does not answer or knows no attempt of that name
        (``RecordService.team``). Raises what the server refuses with (a token that
        expired, another bank's token), as every client-mode read does."""
        from hindsight.errors import NotFound

        query: dict[str, Any] = {"bank": self.bank_id, "symbol": symbol, "limit": limit}
        query.update({k: v for k, v in (("file", file), ("outcome", outcome)) if v})
        try:
            res = self.client.request("GET", "/v1/attempts", query=query)
        except (Unreachable, NotFound):  # local ones only
            return None
        got = [a for a in res.get("attempts") or () if isinstance(a, dict)]
        return got, int(res.get("total") or len(got))

    def _post(self, job: dict[str, Any]) -> list[Retained]:
        """Send one batch; a replayed answer (the server had it) says ``duplicate``. A
        record job goes to ``/v1/records`` (answers nothing)."""
        if "record" in job:
            self.client.request("POST", "/v1/records", {"bank": job["bank"], **job["record"]})
            return []
        if "records" in job:
            self.client.request("POST", "/v1/records/batch", {"bank": job["bank"],
                                                              "records": job["records"]})
            return []
        res = self.client.request("POST", "/v1/retain/batch",
                                  {"bank": job["bank"], "items": job["items"],
                                   "idempotency_key": job["key"]})
        again = bool(res.get("replayed"))
        return [Retained(int(r["id"]), "duplicate" if again else str(r["action"]), list(r.get("redacted") or []),
                         str(r.get("structured") or ""), str(r.get("warning") or ""))
                for r in res["results"]]

    def embed_missing(self, todo: list[tuple[int, str]]) -> int:
        """The server embeds what it stores: nothing to do here."""
        return 0

    def touch(self, ids: list[int]) -> None:
        """The server counts accesses when it recalls."""

    # --- recall and reads ---------------------------------------------------------------
    def recall(self, text: str, *, touch: bool = True, files: list[str] | None = None,
               symbols: list[str] | None = None, embed: bool = True,
               **kw: Any) -> RecallResult:
        """Recall on the server with this checkout's anchor expansion; hits' staleness as
        this checkout's index says. ``channels`` without ``dense`` skips the dense channel;
        ``since``/``until`` Unix seconds."""
        from datetime import datetime

        fs = [p for p, _s, _h in self._anchors(list(files or []), [], False)]
        syms = [f"{p}::{s}" for p, s, _h in self._anchors([], list(symbols or []), False)]
        if fs or syms or text:
            with contextlib.suppress(HindsightError):
                nf, ns, _near = self._neighbours(text, fs, [tuple(s.split("::", 1))  # type: ignore[misc]
                                                             for s in syms])
                fs = list(dict.fromkeys([*fs, *nf]))[:200]
                syms = list(dict.fromkeys([*syms, *(f"{p}::{s}" for p, s in ns)]))[:200]
        body: dict[str, Any] = {"bank": self.bank_id, "text": text[:10_000], "files": fs,
                                "symbols": syms, "dense": embed and "dense" in
                                kw.get("channels", ("dense",))}
        for f in ("scene", "kinds", "tags", "k", "budget", "rerank", "fusion"):
            if kw.get(f) is not None:
                body[f] = list(kw[f]) if f in ("kinds", "tags") else kw[f]
        for f in ("since", "until"):
            if kw.get(f) is not None:
                body[f] = datetime.fromtimestamp(kw[f], UTC).isoformat()
        self._replay_once()
        res = self.client.request("POST", "/v1/recall", body)
        rows = self._fresh([memory_from(h) for h in res["hits"]])
        hits = tuple(Hit(m, float(h["score"]), {n: ChannelRank(int(c["rank"]), float(c["score"]))
                                                  for n, c in (h.get("explain") or {}).items()})
                     for m, h in zip(rows, res["hits"], strict=True))
        return RecallResult(hits, dict(res.get("channels") or {}), res.get("reranked_by", ""),
                            int(res.get("tokens", 0)), float(res.get("ms", 0.0)),
                            bool(res.get("partial", False)), str(res.get("note", "")))

    def status(self) -> dict[str, Any]:
        """``mode`` client, ``server`` {url, answers, version or error}, ``spooled`` batches
        waiting, and ``memories`` (counts, empty when the server does not answer)."""
        from hindsight.errors import HindsightError

        server: dict[str, Any] = {"url": self.client.url, "answers": False}
        out: dict[str, Any] = {"mode": "client", "server": server, "memories": {}}
        try:
            server["version"] = self.client.version()["version"]
            server["answers"] = True
            with contextlib.suppress(HindsightError):
                self.replay(5.0)
            out["memories"] = self.counts()
        except HindsightError as e:
            server["error"] = " ".join(e.message.split())
        out["spooled"] = len(self.spooled())
        return out

    def memories(self, *, status: str = "active", kind: str | None = None,
                 stale: bool = False, limit: int = 100, tag: str | None = None,
                 visibility: str | None = None, since: float | None = None,
                 until: float | None = None, anchor: str | None = None, after_id: int = 0,
                 offset: int = 0, order: str = "occurred", viewer: Viewer | None = None
                 ) -> list[Memory]:
        """Memories from the server newest first (``viewer`` is the server's: its token);
        ``stale`` filters by this checkout's staleness (among the newest 1,000)."""
        q = self._list_query(status=status, kind=kind, stale=stale, limit=limit, tag=tag,
                             visibility=visibility, since=since, until=until,
                             anchor=anchor, offset=offset, order=order)
        self._replay_once()
        return self._listed_rows(self._fetch(q), stale=stale, limit=limit, after_id=after_id)

    def _list_query(self, *, status: str = "active", kind: str | None = None,
                    stale: bool = False, limit: int = 100, tag: str | None = None,
                    visibility: str | None = None, since: float | None = None,
                    until: float | None = None, anchor: str | None = None,
                    offset: int = 0, order: str = "occurred") -> dict[str, Any]:
        """The ``GET /v1/memories`` query of :meth:`memories`' filters."""
        from datetime import datetime

        def iso(t: float | None) -> str | None:
            return None if t is None else datetime.fromtimestamp(t, UTC).isoformat()

        return {"bank": self.bank_id, "status": status, "kind": kind, "tag": tag,
                "visibility": visibility, "since": iso(since), "until": iso(until),
                "anchor": anchor, "order": order, "offset": offset,
                "limit": 1000 if stale else min(max(limit, 1), 10_000)}

    def _fetch(self, q: dict[str, Any]) -> list[dict[str, Any]]:
        """The memories' JSON of one list query (HTTP only: safe in a worker thread)."""
        return list(self.client.request("GET", "/v1/memories", query=q)["memories"])

    def _listed_rows(self, data: list[dict[str, Any]], *, stale: bool, limit: int,
                     after_id: int = 0) -> list[Memory]:
        """A list's memories, stale as this checkout's index (its SQLite) says."""
        # only an anchored memory can be stale: the others are not built (the briefing's
        # list reads the newest 1,000)
        rows = self._fresh([memory_from(d) for d in data if not stale or d.get("anchors")])
        if after_id:
            rows = [m for m in rows if m.id > after_id]
        return [m for m in rows if m.stale][:limit] if stale else rows

    def memories_many(self, queries: list[dict[str, Any]]) -> list[list[Memory]]:
        """:meth:`memories` of each keyword set in ``queries``, asked of the server at once
        (at most :data:`PARALLEL` requests; the threads only make them, this checkout's
        index is read here). Raises what the first failing request raised."""
        if len(queries) < 2:
            return [self.memories(**q) for q in queries]
        from concurrent.futures import ThreadPoolExecutor

        asked = [self._list_query(**{k: v for k, v in q.items()
                                     if k not in ("after_id", "viewer")}) for q in queries]
        self._replay_once()  # here, not in each thread
        with ThreadPoolExecutor(min(PARALLEL, len(queries))) as ex:
            got = list(ex.map(self._fetch, asked))
        return [self._listed_rows(data, stale=bool(q.get("stale")),
                                  limit=int(q.get("limit", 100)),
                                  after_id=int(q.get("after_id", 0)))
                for q, data in zip(queries, got, strict=True)]

    def get(self, mid: int, viewer: Viewer | None = None) -> Memory:
        res = self.client.request("GET", f"/v1/memories/{int(mid)}",
                                  query={"bank": self.bank_id})
        return self._fresh([memory_from(res["memory"])])[0]

    def get_many(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, Memory]:
        """``ids``' memories this token may see (those :meth:`anchored` listed: kept)."""
        out = {i: self._listed[i] for i in ids if i in self._listed}
        for i in ids:
            if i not in out:
                with contextlib.suppress(HindsightError):
                    out[i] = self.get(i)
        return out

    def audit(self, mid: int, viewer: Viewer | None = None) -> list[dict[str, Any]]:
        res = self.client.request("GET", f"/v1/memories/{int(mid)}",
                                  query={"bank": self.bank_id})
        return list(res["audit"])

    def anchored(self, files: list[str], viewer: Viewer | None = None) -> list[int]:
        """Ids anchored to ``files`` (the first 20, asked at once); the rows are kept for
        :meth:`get_many`."""
        ids: set[int] = set()
        for rows in self.memories_many([{"anchor": f, "limit": 100} for f in files[:20]]):
            self._listed.update((m.id, m) for m in rows)
            ids.update(m.id for m in rows)
        return sorted(ids)

    def counts(self) -> dict[str, int]:
        """Memories per status on the server (the newest 10,000 of each), ``stale`` as
        this checkout says."""
        out: dict[str, int] = {}
        for st in ("active", "archived", "forgotten", "superseded"):
            res = self.client.request("GET", "/v1/memories", query={
                "bank": self.bank_id, "status": st, "limit": 10_000})
            out[st] = int(res["count"])
        out["stale"] = len(self.memories(stale=True, limit=10_000))
        return out

    def forget(self, mid: int, reason: str, viewer: Viewer | None = None) -> dict[str, Any]:
        return dict(self.client.request("POST", f"/v1/memories/{int(mid)}/forget",
                                         {"bank": self.bank_id, "reason": reason}))

    def restore(self, mid: int, reason: str = "", viewer: Viewer | None = None
                ) -> dict[str, Any]:
        return dict(self.client.request("POST", f"/v1/memories/{int(mid)}/restore",
                                        {"bank": self.bank_id, "reason": reason}))

    def purge(self, mid: int, reason: str, viewer: Viewer | None = None) -> dict[str, Any]:
        """``forget --purge`` on the server (its token must be an admin's)."""
        return dict(self.client.request("POST", f"/v1/memories/{int(mid)}/purge",
                                        {"bank": self.bank_id, "reason": reason}))

    def reflect(self, question: str, k: int = 20, viewer: Viewer | None = None
                ) -> dict[str, Any]:
        return dict(self.client.request("POST", "/v1/reflect",
                                        {"bank": self.bank_id, "question": question, "k": k}))

    def export_lines(self, viewer: Viewer | None = None) -> Iterator[str]:
        text = self.client.request("GET", "/v1/export", query={"bank": self.bank_id},
                                   text=True, timeout_s=max(self.client.timeout_s, 60.0))
        yield from (ln for ln in str(text).splitlines() if ln.strip())

    def import_lines(self, lines: Iterable[str], viewer: Viewer | None = None
                     ) -> dict[str, int]:
        total: dict[str, int] = {}
        chunk: list[str] = []

        def send() -> None:
            res = self.client.request("POST", "/v1/import",
                                      {"bank": self.bank_id, "lines": chunk},
                                      timeout_s=max(self.client.timeout_s, 60.0))
            for k, v in res.items():
                if isinstance(v, int):
                    total[k] = total.get(k, 0) + v
            chunk.clear()
        for ln in lines:
            chunk.append(ln)
            if len(chunk) >= 1000:
                send()
        if chunk:
            send()
        return total

    def push(self, source: MemoryStore | None = None) -> dict[str, int]:
        """Copy a bank of this machine (``source``, default this one's store: its active memories, with their given anchors) to the
        server as the token's agent, in batches of 500 whose idempotency key is the hash of
        their fingerprints: pushing again stores nothing new. Returns ``{"local", "created",
        "duplicates"}``. Raises Unreachable, Forbidden."""
        import hashlib

        rows: list[Memory] = []
        while True:
            page = (source or self.store).list_memories(status="active", limit=1000, offset=len(rows),
                                            order="id")
            rows += page
            if len(page) < 1000:
                break
        rows.sort(key=lambda m: m.id)
        created = dup = 0
        for i in range(0, len(rows), 500):
            part = rows[i:i + 500]
            items = [MemoryItem(
                text=m.text, kind=m.kind, tags=list(m.tags), outcome=m.outcome,
                source=m.source, session=m.session, commit_sha=m.commit_sha, ref=m.ref,
                occurred=m.occurred_at, context=m.context, visibility=m.visibility,
                confidence=m.confidence,
                anchors=[(a.path, a.symbol, a.ast_hash) for a in m.anchors if not a.implicit])
                for m in part]
            digest = hashlib.sha256("\n".join(m.fingerprint for m in part).encode())
            job = {"key": f"push-{digest.hexdigest()[:40]}", "bank": self.bank_id,
                   "items": [item_body(it) for it in items]}
            for r in self._post(job):
                created += r.action == "created"
                dup += r.action != "created"
        return {"local": len(rows), "created": created, "duplicates": dup}

    def after_index(self, code: Any, outside: Any = None) -> list[str]:
        """Staleness is computed at read time in client mode: nothing to mark."""
        return []

    def gc(self, **kw: Any) -> dict[str, Any]:
        raise ConfigError("gc runs on the server in client mode (hindsight serve's host)",
                          option="apiUrl")

    def reembed(self) -> dict[str, Any]:
        raise ConfigError("reembed runs on the server in client mode", option="apiUrl")

