"""One served bank as one principal may use it: the memory operations of the HTTP routes
and of the MCP tools, with the token's rules applied in one place.

Writes take their owner, agent and team from the token, never from the request (only an
admin may keep the owners of imported memories); every write and every forget/restore is
recorded in the server's audit log with the token and agent. Reads pass the token's
:class:`hindsight.app.Viewer` to the memory service (the store filters by it, issue 11,
item 5): :func:`scoped` adds ``viewer=`` to a service call that takes it.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hindsight.errors import ConfigError, NotFound
from hindsight.models import Memory, MemoryItem, RecallResult, Retained

if TYPE_CHECKING:
    from hindsight.app import ServedBank, TokenStore
    from hindsight.server.tokens import Principal

_ACCEPTS: dict[Any, bool] = {}
ITEM_FIELDS = frozenset(f.name for f in dataclasses.fields(MemoryItem))


def scoped(fn: Callable[..., Any], viewer: Any) -> dict[str, Any]:
    """``{"viewer": viewer}`` when the service method ``fn`` takes a ``viewer`` argument,
    else ``{}`` (the memory service before visibility filtering moved into the store)."""
    key = getattr(fn, "__func__", fn)
    if key not in _ACCEPTS:
        _ACCEPTS[key] = "viewer" in inspect.signature(fn).parameters
    return {"viewer": viewer} if _ACCEPTS[key] else {}


class Scoped:
    """``bank`` (a served bank, used under ``lock``) as ``who`` may use it; ``audit`` is
    the server's token store (its audit log). With ``parallel_reads`` (the bank's memories
    are on PostgreSQL, whose store takes a pooled connection per call) reads do not take
    the lock but one of ``readers`` (a bound on reads at once); writes always take the
    lock, so one process's writes of a bank take turns.
    ``touched(ids)``, when given, counts the accesses of a recall's hits later (off the
    request) instead of in the recall; ``embed_later()``, when given, embeds a batch's
    memories after the answer (they are searchable by text at once)."""

    def __init__(self, bank: ServedBank, lock: threading.Lock, who: Principal,
                 audit: TokenStore, parallel_reads: bool = False,
                 touched: Callable[[list[int]], None] | None = None,
                 embed_later: Callable[[], None] | None = None,
                 readers: threading.BoundedSemaphore | None = None) -> None:
        self.bank = bank
        self.bank_id = bank.bank_id
        self.lock = lock
        self.who = who
        self._audit = audit
        self.parallel_reads = parallel_reads
        self._touched = touched
        self._embed_later = embed_later
        self._readers = readers

    @contextmanager
    def held(self, write: bool = True) -> Iterator[Any]:
        """The bank's memory service while this thread holds the bank (a read of a bank
        with ``parallel_reads`` holds nothing)."""
        if not write and self.parallel_reads:
            if self._readers is None:
                yield self.bank.memory
                return
            with self._readers:  # at most ServerState's PARALLEL_READS at once
                yield self.bank.memory
            return
        with self.lock:
            yield self.bank.memory

    def _log(self, action: str, memory_id: int | None, detail: str = "") -> None:
        self._log_many([(action, memory_id, detail)])

    def _log_many(self, items: list[tuple[str, int | None, str]]) -> None:
        """Audit ``(action, memory id, detail)`` rows as this token, in one write."""
        now = time.time()
        # PostgreSQL text cannot hold NUL: kept visible as \0
        self._audit.add_audits([(now, self.who.token, self.who.agent, action, self.bank_id,
                                 mid, detail[:500].replace("\0", "\\0"))
                                for action, mid, detail in items])

    # --- writes ---------------------------------------------------------------------
    def item(self, text: str, anchors: list[tuple[str, str, str]] | None = None,
             files: Iterable[str] = (), symbols: Iterable[str] = (), **fields: Any
             ) -> MemoryItem:
        """A memory item owned by the token's agent (and team, where memories have one);
        ``files``/``symbols`` become anchors as :meth:`ServedBank._anchors` takes them."""
        self.who.require(self.bank_id, "write")
        given = [(self.bank.relative(a[0], "anchors"), *a[1:]) for a in anchors or []] + \
            self.bank._anchors(list(files), list(symbols), False)
        own = {"agent": self.who.agent, "owner": self.who.agent}
        if "team" in ITEM_FIELDS:
            own["team"] = self.who.team
        return MemoryItem(text=text, anchors=given, **{**fields, **own})

    def retain(self, items: list[MemoryItem], batch: bool) -> list[Retained]:
        """Retain ``items`` (all checked first by ``memory.retain``, which names a bad
        item of several as ``items.N``: a bad one stores nothing); a batch is written
        in one transaction, an exact duplicate is never stored twice (the fingerprint is
        unique), so a retried batch stores each item once."""
        self.who.require(self.bank_id, "write")
        later = batch and self._embed_later is not None
        with self.held() as mem:
            out = mem.retain_batch(items, embed=not later) if batch else \
                mem.retain_items(items)
        if later and self._embed_later is not None:
            self._embed_later()
        self._log_many([("retain", r.id, r.action) for r in out])
        return list(out)

    def forget(self, mid: int, reason: str, restore: bool = False) -> dict[str, Any]:
        """Forget (or restore) a memory this principal may see; recorded with its agent."""
        self.who.require(self.bank_id, "write")
        self.get(mid)  # NotFound unless visible
        with self.held() as mem:
            res = mem.restore(mid, reason) if restore else mem.forget(mid, reason)
        self._log("restore" if restore else "forget", mid, reason)
        return {**res, "by": self.who.agent}

    def purge(self, mid: int, reason: str) -> dict[str, Any]:
        """Delete a memory for real (admin only; ``MemoryService.purge``: no copy stays
        behind); recorded in the audit log with the agent."""
        self.who.require(self.bank_id, "admin")
        with self.held() as mem:
            res = mem.purge(mid, reason, **scoped(mem.purge, self.who.viewer))
        self._log("purge", mid, reason)
        return {**res, "by": self.who.agent}

    def import_lines(self, lines: list[str]) -> dict[str, int]:
        """Import exported JSONL. Owner, agent (and team) of every line become the
        token's, unless the token is an admin's."""
        self.who.require(self.bank_id, "write")
        if self.who.role != "admin":
            lines = [self._own(ln) for ln in lines if ln.strip()]
        with self.held() as mem:
            res = mem.import_lines(lines)
        self._log("import", None, json.dumps(res))
        return dict(res)

    def _own(self, line: str) -> str:
        try:
            d = json.loads(line)
        except ValueError:
            raise ConfigError("import: a line is not JSON", option="lines") from None
        if not isinstance(d, dict):
            raise ConfigError("import: every line must be a JSON object", option="lines")
        d["owner"] = d["agent"] = self.who.agent
        if "team" in d or "team" in ITEM_FIELDS:
            d["team"] = self.who.team
        return json.dumps(d, ensure_ascii=False)

    # --- reads ----------------------------------------------------------------------
    def recall(self, text: str, **kw: Any) -> RecallResult:
        self.who.require(self.bank_id)
        with self.held(write=False) as mem:
            v = scoped(mem.recall, self.who.viewer)
            agent = {} if v or self.who.role == "admin" else {"agent": self.who.agent}
            later = self._touched is not None and kw.get("touch", True)
            if later:  # the access counts are written after the answer (ServerState)
                kw["touch"] = False
            res: RecallResult = mem.recall(text, **kw, **agent, **v)
        if later and self._touched is not None:
            self._touched([h.memory.id for h in res.hits])
        return res

    def reflect(self, question: str, k: int = 20) -> dict[str, Any]:
        self.who.require(self.bank_id)
        with self.held(write=False) as mem:
            return dict(mem.reflect(question, k, **scoped(mem.reflect, self.who.viewer)))

    def get(self, mid: int) -> Memory:
        self.who.require(self.bank_id)
        with self.held(write=False) as mem:
            m = mem.get(mid, **scoped(mem.get, self.who.viewer))
        if not isinstance(m, Memory):
            raise NotFound(f"no memory {mid}", value=mid)
        return m

    def audit(self, mid: int) -> list[dict[str, Any]]:
        self.get(mid)
        with self.held(write=False) as mem:
            return list(mem.audit(mid))

    def memories(self, **kw: Any) -> list[Memory]:
        self.who.require(self.bank_id)
        with self.held(write=False) as mem:
            return list(mem.memories(**kw, **scoped(mem.memories, self.who.viewer)))

    def export_lines(self) -> list[str]:
        self.who.require(self.bank_id)
        with self.held(write=False) as mem:
            return list(mem.export_lines(**scoped(mem.export_lines, self.who.viewer)))

    def touch(self, ids: list[int]) -> None:
        with self.held() as mem:
            mem.touch(ids)
