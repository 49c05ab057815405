"""Experience-memory operations of a bank; mixed into :class:`hindsight.app.Bank`."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hindsight.appbase import _storage
from hindsight.errors import ConfigError, NotFound
from hindsight.models import IndexStats

# Only the start of a long query is used: the file-name pattern in ``_neighbours`` is
# quadratic on one long token, and a 100,000-character query froze recall for minutes.
QUERY_CHARS = 10_000
NEIGHBOUR_CHARS = 2_000


class MemoryMixin:
    """retain, recall, forget, gc, reflect, export/import, reembed."""

    if TYPE_CHECKING:  # provided by Bank
        root: str
        path: str
        conn: sqlite3.Connection
        code: Any
        history_store: Any
        _require_index: Callable[[], Any]
        is_indexed: Callable[[], bool]
        rel: Callable[[str | None], str | None]
        index: Callable[..., IndexStats]
        _user_file: Callable[[str], str]
        _rel_in_root: Callable[[str], str]
        _mem: Any
        _embedder: Any

    # --- experience memory ------------------------------------------------------------
    @property
    def memory_store(self) -> Any:
        if self._mem is None:
            from hindsight.store.sqlite.memory import SqliteMemoryStore

            self._mem = SqliteMemoryStore(self.conn)
        return self._mem

    @property
    def llm(self) -> Any:
        """The optional OpenAI-compatible LLM (``HINDSIGHT_LLM_URL``), or None."""
        from hindsight.providers.openai_compat import OpenAICompatLLM

        return OpenAICompatLLM.from_env()

    @property
    def embedder(self) -> Any:
        """The embedding provider: ``HINDSIGHT_EMBEDDER`` = ``minilm`` (default: local
        all-MiniLM-L6-v2, ONNX int8), ``hashing`` (feature hashing; tests, or no model) or
        ``openai`` (an OpenAI-compatible endpoint, see
        :mod:`hindsight.providers.openai_compat`)."""
        if self._embedder is None:
            res = getattr(self, "resolution", None)
            name = (res.settings["embedder"] if res is not None
                    else os.environ.get("HINDSIGHT_EMBEDDER", "minilm"))
            if name == "hashing":
                from hindsight.providers.hashing import HashingEmbedder

                self._embedder = HashingEmbedder()
            elif name == "minilm":
                from hindsight.providers.local_minilm import MiniLMEmbedder

                self._embedder = MiniLMEmbedder()
            elif name == "openai":
                from hindsight.providers.openai_compat import OpenAICompatEmbedder

                self._embedder = OpenAICompatEmbedder.from_env()
            else:
                raise ConfigError(f"embedder {name!r} (HINDSIGHT_EMBEDDER or config): minilm, "
                                  "hashing or openai")
        return self._embedder

    def _resolve_anchors(self, files: list[str], symbols: list[str]
                         ) -> list[tuple[str, str, str]]:
        out: list[tuple[str, str, str]] = []
        for f in files:
            rel = self._user_file(f)
            if not os.path.exists(os.path.join(self.root, rel)):
                raise NotFound(f"{f}: no such file under {self.root}")
            out.append((rel, "", ""))
        for spec in symbols:
            from hindsight.codeindex.query import resolve_one

            sym = resolve_one(self._require_index(), spec)[0]
            out.append((sym.path, sym.local, sym.ast_hash))
        return out

    @_storage
    def retain(self, text: str, *, kind: str = "", tags: list[str] | None = None,
               files: list[str] | None = None, symbols: list[str] | None = None,
               outcome: str = "", supersedes: int | None = None, source: str = "api",
               **fields: Any) -> Any:
        """Retain one memory; see :mod:`hindsight.memory.retain`. ``files`` (root-relative
        or absolute) and ``symbols`` (names as for ``symbols``) become anchors with the
        symbol's ast hash now. Returns a :class:`~hindsight.memory.retain.Retained`.
        Raises ConfigError, NotFound/Ambiguous (symbol), ProviderError, StorageError."""
        from hindsight.memory.retain import Item, retain

        if fields.get("visibility") == "private" and not fields.get("owner"):
            raise ConfigError("a private memory needs its owner: --agent NAME")
        item = Item(text=text, kind=kind, tags=list(tags or []), outcome=outcome,
                    supersedes=supersedes, source=source,
                    anchors=self._resolve_anchors(list(files or []), list(symbols or [])),
                    **fields)
        return retain(self.memory_store, self.embedder, [item], llm=self.llm)[0]

    @_storage
    def retain_batch(self, items: list[Any], embed: bool = True) -> list[Any]:
        """Retain many :class:`~hindsight.memory.retain.Item` at once: written (and
        searchable) first, embedded after."""
        from hindsight.memory.retain import retain

        return retain(self.memory_store, self.embedder, items, batch=True, embed=embed)

    def _neighbours(self, text: str, files: list[str], syms: list[tuple[str, str]]
                    ) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
        """Files and symbols named in ``text`` and the call-graph neighbours of all of
        them, for the anchor channel (empty without a code index)."""
        if not self.is_indexed():
            return [], [], []
        import re

        text = text[:NEIGHBOUR_CHARS]
        code = self.code
        known = code.load_files()
        extra_f = [w for w in re.findall(r"[\w./-]+\.\w+", text) if w in known]
        extra_s: list[tuple[str, str]] = []
        for w in re.findall(r"[A-Za-z_][\w.:/]*[\w]", text)[:40]:
            if not ("_" in w or "." in w or "::" in w or re.search(r"[a-z][A-Z]", w)):
                continue
            hits = code.find_symbols(w.rpartition("::")[2] if "::" in w else w, None,
                                     w.partition("::")[0] if "::" in w else None, 5)
            extra_s += [(h.path, h.local) for h in hits[:3]]
        near: list[tuple[str, str]] = []
        from hindsight.codeindex.query import callees, callers

        for p, loc in (syms + extra_s)[:10]:
            for fn in (callers, callees):
                try:
                    _t, hits = fn(code, f"{p}::{loc}", 1)
                except Exception:  # noqa: BLE001 - a neighbour lookup must not fail recall
                    continue
                near += [(h.symbol.path, h.symbol.local) for h in hits if h.symbol]
        return extra_f, extra_s, near

    @_storage
    def recall(self, text: str, **kw: Any) -> dict[str, Any]:
        """Recall memories for ``text``; keyword arguments are the fields of
        :class:`hindsight.memory.recall.Query` (``files`` root-relative, ``symbols`` as
        names); only the first ``QUERY_CHARS`` (10,000) characters of ``text`` are used.
        An empty bank answers at once with no hits. Raises ConfigError, ProviderError,
        StorageError."""
        from hindsight.memory.recall import Query, recall

        text = text[:QUERY_CHARS]
        touch = kw.pop("touch", True)
        files = [self._user_file(f) for f in kw.pop("files", []) or []]
        syms = [(p, s) for p, s, _h in self._resolve_anchors([], kw.pop("symbols", []) or [])]
        q = Query(text=text, files=files, symbols=syms, **kw)
        store = self.memory_store
        if not store.has_active():
            return {"hits": [], "channels": {}, "reranked_by": "", "tokens": 0, "ms": 0.0}
        reranker = None
        if q.rerank:
            from hindsight.providers.local_reranker import OnnxCrossEncoder

            reranker = OnnxCrossEncoder.from_env()
        res = recall(store, self.embedder, q, self._neighbours, reranker=reranker)
        if touch and res["hits"]:
            from hindsight.memory.clock import now_ts

            store.touch([h["id"] for h in res["hits"]], now_ts())
        return res

    @_storage
    def forget(self, mid: int, reason: str) -> dict[str, Any]:
        from hindsight.memory.lifecycle import forget

        return forget(self.memory_store, mid, reason)

    @_storage
    def restore(self, mid: int) -> dict[str, Any]:
        from hindsight.memory.lifecycle import restore

        return restore(self.memory_store, mid)

    @_storage
    def gc(self, **kw: Any) -> dict[str, Any]:
        from hindsight.memory.lifecycle import gc

        return gc(self.memory_store, **kw)

    @_storage
    def memory(self, mid: int) -> dict[str, Any]:
        """One memory with its anchors and audit history. Raises NotFound."""
        row = self.memory_store.get([mid]).get(mid)
        if row is None:
            raise NotFound(f"no memory {mid}")
        row["history"] = self.memory_store.audit(mid)
        return row

    def export_memories(self) -> Any:
        """Yield the bank's memories as JSONL lines (see :mod:`hindsight.memory.transfer`);
        sqlite errors surface while iterating."""
        from hindsight.memory.transfer import export_lines

        yield from export_lines(self.memory_store)

    @_storage
    def import_memories(self, lines: Any) -> dict[str, int]:
        from hindsight.memory.transfer import import_lines

        return import_lines(self.memory_store, lines)

    @_storage
    def reembed(self) -> dict[str, Any]:
        """Embed every memory that has no vector from the current model (after a model
        change, or when embedding failed); records the model in ``meta``."""
        import time as _time

        from hindsight.memory.retain import embed_missing

        t0 = _time.perf_counter()
        todo = self.memory_store.missing_vectors(self.embedder.model_id)
        n = embed_missing(self.memory_store, self.embedder, todo)
        self.memory_store.set_meta({"embedding_model": self.embedder.model_id})
        return {"model": self.embedder.model_id, "embedded": n,
                "seconds": round(_time.perf_counter() - t0, 3)}

    @_storage
    def reflect(self, question: str, k: int = 20) -> dict[str, Any]:
        """A digest of the best evidence for ``question``: the top ``k`` memories grouped by
        kind and by anchor, each line with its id and date; with an LLM configured also a
        synthesised ``answer`` citing memory ids (``None`` and a ``fallback`` reason when
        there is no LLM, it failed, timed out or cited notes it was not given)."""
        res = self.recall(question, k=k, touch=False)
        by_kind: dict[str, list[str]] = {}
        by_anchor: dict[str, list[str]] = {}
        for h in res["hits"]:
            line = f"[#{h['id']} {h['occurred_at'][:10]}] {' '.join(h['text'].split())}" + (
                " (stale)" if h["stale"] else "")
            by_kind.setdefault(h["kind"], []).append(line)
            for a in h["anchors"]:
                key = a["path"] + (f"::{a['symbol']}" if a["symbol"] else "")
                by_anchor.setdefault(key, []).append(f"#{h['id']}")
        out: dict[str, Any] = {"question": question, "by_kind": by_kind,
                               "by_anchor": by_anchor, "memories": len(res["hits"]),
                               "answer": None, "fallback": "no llm configured"}
        llm = self.llm
        if llm is not None and res["hits"]:
            from hindsight.memory.llm import answer

            out["answer"], out["fallback"] = answer(llm, question, res["hits"], llm.timeout)
        return out

    @_storage
    def memories(self, *, status: str = "active", kind: str | None = None,
                 stale: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        where, args = ["1=1"], []
        if status != "all":
            where.append("status=?")
            args.append(status)
        if kind:
            where.append("kind=?")
            args.append(kind)
        if stale:
            where.append("stale=1")
        return self.memory_store.listing(" AND ".join(where), args, limit)


