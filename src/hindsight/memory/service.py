"""Experience memory of one bank as a service: retain, recall, forget/restore, gc,
reflect, export/import and re-embedding.

:class:`MemoryService` sees storage only through :class:`hindsight.store.base.MemoryStore`;
the code index reaches it as two callbacks (``anchors`` resolves user-given files and
symbols, ``neighbours`` gives call-graph proximity for the anchor channel), so memory never
imports the code index. Providers (embedder, LLM, reranker) are made lazily by the
factories the composition root passes in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hindsight.errors import ConfigError, NotFound
from hindsight.models import Memory, MemoryItem, RecallResult, Retained
from hindsight.store.base import CodeStore, MemoryStore, Viewer

# Only the start of a long query is used: a 100,000-character query froze recall for
# minutes (the file-name pattern of the neighbour lookup is quadratic on one long token).
QUERY_CHARS = 10_000
AnchorFn = Callable[[list[str], list[str], bool], list[tuple[str, str, str]]]
STATUSES = ("active", "archived", "forgotten", "superseded", "all")
VISIBILITY = ("team", "public", "private")
NeighbourFn = Callable[[str, list[str], list[tuple[str, str]]],
                       tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]]


class MemoryService:
    """Memories of one bank. ``anchors(files, symbols, must_exist)`` → (path, symbol, ast
    hash) triples (raises NotFound/Ambiguous/NotIndexed; files must exist only with
    ``must_exist``: a recall may ask about a deleted file); ``neighbours(text, files, symbols)``
    → (files, symbols, near) for the anchor channel; ``code()`` → the code index of this
    machine when the repository is indexed, else None (implicit anchors,
    :mod:`hindsight.memory.implicit`); ``embedder()``, ``llm()`` and ``reranker()`` make
    providers on first use (``llm``/``reranker`` may give None)."""

    def __init__(self, store: MemoryStore, *, anchors: AnchorFn, neighbours: NeighbourFn,
                 embedder: Callable[[], Any], llm: Callable[[], Any] = lambda: None,
                 reranker: Callable[[], Any] = lambda: None,
                 code: Callable[[], CodeStore | None] = lambda: None) -> None:
        self.store = store
        self._anchors = anchors
        self._neighbours = neighbours
        self._code = code
        self._make_embedder = embedder
        self._make_llm = llm
        self._make_reranker = reranker
        self._embedder: Any = None
        self._llm: Any = False  # not made yet
        self.on_purge: list[Callable[[int, list[str]], object]] = []  # (id, fragments)

    @property
    def embedder(self) -> Any:
        """The embedding provider (made on first use). Raises ConfigError, ProviderError."""
        if self._embedder is None:
            self._embedder = self._make_embedder()
        return self._embedder

    @property
    def llm(self) -> Any:
        """The optional LLM (made on first use), or None."""
        if self._llm is False:
            self._llm = self._make_llm()
        return self._llm

    # --- retain -------------------------------------------------------------------------
    def retain(self, text: str, *, kind: str = "", tags: list[str] | None = None,
               files: list[str] | None = None, symbols: list[str] | None = None,
               outcome: str = "", supersedes: int | None = None, source: str = "api",
               viewer: Viewer | None = None, **fields: Any) -> Retained:
        """Retain one memory; see :mod:`hindsight.memory.retain`. ``files`` (root-relative
        or absolute) and ``symbols`` (names as for ``symbols``) become anchors with the
        symbol's ast hash now. ``viewer`` (who writes): its agent and team become the
        memory's ``owner`` and ``team`` (and ``agent`` unless given); only an admin may
        name another owner or team. Raises ConfigError, NotFound/Ambiguous (symbol),
        ProviderError, StorageError."""
        from hindsight.memory.retain import retain

        item = MemoryItem(text=text, kind=kind, tags=list(tags or []), outcome=outcome,
                          supersedes=supersedes, source=source,
                          anchors=self._anchors(list(files or []), list(symbols or []), True),
                          **fields)
        item = self._as_written_by(item, viewer)
        return retain(self.store, self.embedder, [item], llm=self.llm,
                      implicit=self._implicit())[0]

    def retain_batch(self, items: list[MemoryItem], embed: bool = True,
                     viewer: Viewer | None = None) -> list[Retained]:
        """Retain many items at once: written (and searchable) first, embedded after
        (unless ``embed`` is false). No near-duplicate check. ``viewer`` as for
        :meth:`retain`, for every item (checked before anything is written)."""
        from hindsight.memory.retain import retain

        items = [self._as_written_by(it, viewer) for it in items]
        return retain(self.store, self.embedder, items, batch=True, embed=embed,
                      implicit=self._implicit())

    def _as_written_by(self, item: MemoryItem, viewer: Viewer | None) -> MemoryItem:
        """``item`` with its owner and team from ``viewer`` (the writer). Raises
        ConfigError when a non-admin names another owner or team, when a private memory
        has no owner, or when ``supersedes`` names a memory the writer cannot see."""
        import dataclasses

        if viewer is not None:
            for name, mine in (("owner", viewer.agent), ("team", viewer.team)):
                given = getattr(item, name)
                if given and given != mine and not viewer.admin:
                    raise ConfigError(f"{name} {given!r}: a memory's {name} is its writer's "
                                      f"({mine!r}); only an admin may set another",
                                      option=name, value=given)
            item = dataclasses.replace(item, owner=item.owner or viewer.agent,
                                       team=item.team or viewer.team,
                                       agent=item.agent or viewer.agent)
            if item.supersedes is not None and not self.store.get([item.supersedes], viewer):
                raise ConfigError(f"supersedes {item.supersedes}: no such memory",
                                  option="supersedes", value=item.supersedes)
        if item.visibility == "private" and not item.owner:
            raise ConfigError("a private memory needs its owner (the agent)", option="agent")
        return item

    def retain_items(self, items: list[MemoryItem]) -> list[Retained]:
        """Retain items one by one, each checked for a near duplicate."""
        from hindsight.memory.retain import retain

        return retain(self.store, self.embedder, items, implicit=self._implicit())

    def _implicit(self) -> Callable[[str, list[tuple[str, str, str]]],
                                    list[tuple[str, str, str]]] | None:
        """The implicit-anchor resolver over this machine's code index, or None when the
        repository is not indexed (the next index pass resolves them). A failed lookup
        gives no anchors: the memory is kept and the next index pass tries again."""
        from hindsight.errors import HindsightError
        from hindsight.memory.implicit import resolve

        code = self._code()
        if code is None:
            return None

        def implicit(text: str, have: list[tuple[str, str, str]]
                     ) -> list[tuple[str, str, str]]:
            try:
                return resolve(code, text, have)
            except HindsightError:
                return []
        return implicit

    def embed_missing(self, todo: list[tuple[int, str]]) -> int:
        """Embed ``(id, text)`` pairs now; returns how many were embedded."""
        from hindsight.memory.retain import embed_missing

        return embed_missing(self.store, self.embedder, todo)

    # --- recall -------------------------------------------------------------------------
    def recall(self, text: str, *, touch: bool = True, files: list[str] | None = None,
               symbols: list[str] | None = None, embed: bool = True,
               viewer: Viewer | None = None, **kw: Any) -> RecallResult:
        """Recall memories for ``text`` that ``viewer`` may see (None: all; filtered in the
        store's queries before any list is cut, so ``k`` visible hits come back when
        they exist); keyword arguments are the fields of
        :class:`hindsight.memory.recall.Query` (``since``/``until`` Unix seconds);
        ``files`` root-relative, ``symbols`` as names; only the first ``QUERY_CHARS``
        (10,000) characters of ``text`` are used; ``embed`` false skips the dense channel
        (no model load). Recalled memories count as accessed unless ``touch`` is false. An
        empty bank answers at once with no hits. Raises ConfigError, ProviderError,
        StorageError."""
        from hindsight.memory.recall import Query, recall

        text = text[:QUERY_CHARS]
        from hindsight.memory.extract import KINDS

        bad = [k for k in kw.get("kinds") or () if k not in KINDS]
        if bad:
            raise ConfigError(f"kind {bad[0]!r}: one of {', '.join(KINDS)}", option="kind",
                              value=bad[0], choices=KINDS)
        if kw.get("fusion", "zscore") not in ("zscore", "rrf"):
            raise ConfigError(f"fusion {kw['fusion']!r}: one of zscore, rrf", option="fusion",
                              value=kw["fusion"], choices=("zscore", "rrf"))
        since, until = kw.get("since"), kw.get("until")
        if since is not None and until is not None and since >= until:
            raise ConfigError("since: the range is empty (it does not start before until)",
                              option="since", value=since)
        syms = [(p, s) for p, s, _h in self._anchors([], list(symbols or []), False)]
        fs = [p for p, _s, _h in self._anchors(list(files or []), [], False)]
        q = Query(text=text, files=fs, symbols=syms, viewer=viewer, **kw)
        if not self.store.has_active():
            return RecallResult()
        reranker = self._make_reranker() if q.rerank else None
        res = recall(self.store, self.embedder if embed else None, q, self._neighbours,
                     reranker=reranker)
        if touch and res.hits:
            import contextlib

            from hindsight.errors import StorageError
            from hindsight.memory.clock import now_ts

            # bookkeeping: a read-only or busy bank still answers
            with contextlib.suppress(StorageError):
                self.store.touch([h.memory.id for h in res.hits], now_ts())
        return res

    def touch(self, ids: list[int]) -> None:
        """Count an access of each memory (now)."""
        from hindsight.memory.clock import now_ts

        self.store.touch(ids, now_ts())

    # --- lifecycle ----------------------------------------------------------------------
    def forget(self, mid: int, reason: str, viewer: Viewer | None = None) -> dict[str, Any]:
        """Soft-delete; ``{"id", "status", "was"}``; with a ``viewer`` the audit row says
        who (``… (by agent)``). Raises NotFound (also for a memory the viewer may not
        see), ConfigError."""
        from hindsight.memory.lifecycle import forget

        if viewer is not None:
            self.get(mid, viewer)
        return forget(self.store, mid, reason, _by(viewer))

    def restore(self, mid: int, reason: str = "", viewer: Viewer | None = None
                ) -> dict[str, Any]:
        """Make a memory active again (``reason`` kept in the audit log, with who when a
        ``viewer`` is given); ``{"id", "status", "was"}``. Raises NotFound."""
        from hindsight.memory.lifecycle import restore

        if viewer is not None:
            self.get(mid, viewer)
        return restore(self.store, mid, reason, _by(viewer))

    def purge(self, mid: int, reason: str, viewer: Viewer | None = None) -> dict[str, Any]:
        """Delete memory ``mid`` for real on any backend (``forget --purge``: a leaked
        secret must be removable everywhere): its row, vector, anchors, audit rows and
        postings; one audit row ``purged`` names who (``viewer``'s agent, else ``local``)
        and why; its text leaves its neighbours' contexts, and each of ``on_purge`` is
        called with ``(id, fragments)`` after (the bank scrubs its pages).
        ``{"id", "purged": True}``. Raises ConfigError (no reason; a viewer that is not an
        admin), NotFound."""
        from hindsight.memory.lifecycle import purge

        if viewer is not None and not viewer.admin:
            raise ConfigError("purge: only an admin may delete a memory for real",
                              option="viewer", value=viewer.agent)
        return purge(self.store, mid, reason, viewer.agent if viewer else "local",
                     self.on_purge)

    def gc(self, **kw: Any) -> dict[str, Any]:
        """Archive idle and over-capacity memories; see :func:`memory.lifecycle.gc`."""
        from hindsight.memory.lifecycle import gc

        return gc(self.store, **kw)

    def get(self, mid: int, viewer: Viewer | None = None) -> Memory:
        """One memory ``viewer`` may see. Raises NotFound (the same for one it may not
        see: nothing tells the two apart)."""
        row = self.store.get([mid], viewer).get(mid)
        if row is None:
            raise NotFound(f"no memory {mid}", value=mid)
        return row

    def get_many(self, ids: list[int], viewer: Viewer | None = None) -> dict[int, Memory]:
        """The memories of ``ids`` that exist and ``viewer`` may see."""
        return self.store.get(ids, viewer)

    def audit(self, mid: int, viewer: Viewer | None = None) -> list[dict[str, Any]]:
        """The memory's audit rows ``{"at", "action", "detail"}``, oldest first. With a
        ``viewer``: raises NotFound for a memory it may not see."""
        if viewer is not None:
            self.get(mid, viewer)
        return self.store.audit(mid)

    def memories(self, *, status: str = "active", kind: str | None = None,
                 stale: bool = False, limit: int = 100, tag: str | None = None,
                 visibility: str | None = None, since: float | None = None,
                 until: float | None = None, anchor: str | None = None, after_id: int = 0,
                 offset: int = 0, order: str = "occurred", viewer: Viewer | None = None
                 ) -> list[Memory]:
        """Memories ``viewer`` may see, newest first (``order="id"``: latest stored first); ``status`` ``all``
        for every status. ``anchor`` is a root-relative file (any anchor in it) or
        ``path::local`` (that symbol); ``since``/``until`` Unix seconds of the occurred
        time; the other filters as :meth:`MemoryStore.list_memories`. Raises ConfigError
        (an unknown status, visibility or order)."""
        from hindsight.models import split_qname

        for option, value, allowed in (
                ("status", status, STATUSES), ("visibility", visibility or "team", VISIBILITY),
                ("order", order, ("occurred", "id"))):
            if value not in allowed:
                raise ConfigError(f"{option} {value!r}: one of {', '.join(allowed)}",
                                  option=option, value=value, choices=list(allowed))
        where = None
        if anchor:
            where = split_qname(anchor) or (anchor, "")
        return self.store.list_memories(status=status, kind=kind, stale=stale, limit=limit,
                                        tag=tag, visibility=visibility, since=since,
                                        until=until, anchor=where, after_id=after_id,
                                        offset=offset, order=order, viewer=viewer)

    def memories_many(self, queries: list[dict[str, Any]]) -> list[list[Memory]]:
        """:meth:`memories` of each keyword set in ``queries``, in order (one after another
        here; client mode asks the server all at once)."""
        return [self.memories(**q) for q in queries]

    def anchored(self, files: list[str], viewer: Viewer | None = None) -> list[int]:
        """Ids of active memories ``viewer`` may see anchored to one of ``files``."""
        return sorted({m for m, _p, _s in self.store.anchored(files, [], viewer)}) \
            if files else []

    def counts(self) -> dict[str, int]:
        """Memories per status, plus ``stale`` (active and stale)."""
        return self.store.status_counts()

    def after_index(self, code: Any, outside: Any = None) -> list[str]:
        """Memories follow the code: anchors are checked, ``@hindsight:`` comments synced,
        and memories retained since the last pass get their implicit anchors
        (:func:`hindsight.memory.implicit.resolve_pending`). ``outside(paths)``: the paths
        outside a sparse checkout, whose anchors are left unchecked (see
        :func:`hindsight.memory.anchors.check_anchors`). Returns warnings (a failure here
        never fails the index)."""
        from hindsight.errors import HindsightError
        from hindsight.memory.anchors import check_anchors, sync_comments
        from hindsight.memory.clock import iso, now_ts
        from hindsight.memory.implicit import resolve_pending

        try:
            check_anchors(self.store, code, outside)
            if code.notes() or self.store.count(None):
                sync_comments(self.store, code, self.embedder)
            resolve_pending(self.store, code, iso(now_ts()))
        except HindsightError as e:
            return [f"memories not updated after indexing: {e}"]
        return []

    # --- transfer -----------------------------------------------------------------------
    def export_lines(self, viewer: Viewer | None = None) -> Iterator[str]:
        """The bank's memories ``viewer`` may see as JSONL lines (see
        :mod:`hindsight.memory.transfer`)."""
        from hindsight.memory.transfer import export_lines

        yield from export_lines(self.store, viewer)

    def import_lines(self, lines: Iterable[str], viewer: Viewer | None = None
                     ) -> dict[str, int]:
        """Import exported JSONL; ``{"imported", "skipped"}``. With a ``viewer`` that is
        not an admin, every memory is imported as its own (owner and team). Raises
        ConfigError."""
        from hindsight.memory.transfer import import_lines

        return import_lines(self.store, lines, viewer)

    def reembed(self) -> dict[str, Any]:
        """Embed every memory that has no vector from the current model (after a model
        change, or when embedding failed); records the model in ``meta``. Returns
        ``{"model", "embedded", "seconds"}``."""
        from hindsight.memory.retain import embed_missing

        t0 = time.perf_counter()
        todo = self.store.missing_vectors(self.embedder.model_id)
        n = embed_missing(self.store, self.embedder, todo)
        self.store.set_meta({"embedding_model": self.embedder.model_id})
        return {"model": self.embedder.model_id, "embedded": n,
                "seconds": round(time.perf_counter() - t0, 3)}

    def reflect(self, question: str, k: int = 20, viewer: Viewer | None = None
                ) -> dict[str, Any]:
        """A digest of the best evidence for ``question`` among the memories ``viewer``
        may see: the top ``k`` grouped by kind and by anchor, each line with its id and
        date; with an LLM configured also a synthesised ``answer`` citing memory ids
        (``None`` and a ``fallback`` reason when there is no LLM, it failed, timed out or
        cited notes it was not given)."""
        from hindsight.memory.clock import shown

        res = self.recall(question, k=k, touch=False, viewer=viewer)
        by_kind: dict[str, list[str]] = {}
        by_anchor: dict[str, list[str]] = {}
        for h in res.hits:
            m = h.memory
            line = f"[#{m.id} {shown(m.occurred_ts)}] {' '.join(m.text.split())}" + (
                " (stale)" if m.stale else "")
            by_kind.setdefault(m.kind, []).append(line)
            for a in m.anchors:
                key = a.path + (f"::{a.symbol}" if a.symbol else "")
                by_anchor.setdefault(key, []).append(f"#{m.id}")
        out: dict[str, Any] = {"question": question, "by_kind": by_kind,
                               "by_anchor": by_anchor, "memories": len(res.hits),
                               "answer": None, "fallback": "no llm configured"}
        llm = self.llm
        if llm is not None and res.hits:
            from hindsight.memory.llm import answer

            out["answer"], out["fallback"] = answer(llm, question, list(res.hits),
                                                    llm.timeout)
        return out

    def get_meta(self, key: str) -> str | None:
        return self.store.get_meta(key)

    def set_meta(self, values: dict[str, str]) -> None:
        self.store.set_meta(values)


def _by(viewer: Viewer | None) -> str:
    """Who acts, for an audit row: ``agent`` of ``viewer`` (``""``: local use)."""
    return viewer.agent if viewer is not None else ""
