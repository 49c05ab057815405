"""``impact``: what may break if a symbol changes (its callers, and what changed together
with it in history), split from :mod:`hindsight.history.queries`."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hindsight.codeindex.query import walk
from hindsight.history.queries import Entry, ImpactItem, partial_note, symbol_entries
from hindsight.store.base import CodeStore, HistoryStore


def impact(code: CodeStore, hs: HistoryStore, spec: str, depth: int = 2,
           file: str | None = None, limit: int = 30, min_support: int = 2,
           stop: Callable[[], bool] | None = None, root: str | None = None
           ) -> dict[str, Any]:
    """What may break if ``spec`` changes: its callers to ``depth`` (call graph) and the
    symbols and files that changed in the same commits (co-change over reachable, non-huge,
    non-merge commits; an item needs ``min_support`` shared commits, default 2: one shared commit is
    no evidence of coupling).
    Returns ``{"symbol", "commits", "history_level", "count", "total", "truncated", "items":
    [ImpactItem…], "gone", "history_partial", "notes"}`` (``history_level``: ``symbol``, or
    ``file`` when no commit changed the symbol and its file's commits were read; ``count``
    listed of ``total`` found; ``gone``: co-changed
    symbols and files left out because they no longer exist at HEAD, as ``hotspots``
    does), callers first (by depth),
    then by co-change count; with ``stop`` (asked before each caller level after the
    first) also ``"levels"`` done and ``"cut"``. Raises NotIndexed, NotFound, Ambiguous."""
    sym, hits, levels, cut = walk(code, "callers", spec, depth, file, stop=stop, root=root)
    items: dict[str, ImpactItem] = {}
    for h in hits:
        it = items.setdefault(h.qname, ImpactItem(h.qname, "symbol", depth=h.depth))
        verb = "inherits from it" if h.via == "inherits" else {
            "read": "reads it", "write": "sets it"}.get(h.via, "calls it")
        if not any(r.startswith(verb + " (") for r in it.reasons):  # (its nearest depth:
            it.reasons.append(f"{verb} (depth {h.depth})")  # not also through others)
    shas: list[str] = []
    entries: list[Entry] = []
    if hs.commit_count():
        entries = symbol_entries(hs, sym.path, sym.local)
        shas = [e.sha for e in entries] or [r["sha"] for r in hs.file_commits(sym.path)]
        noise = hs.noise_shas(shas)
        shas = [s for s in dict.fromkeys(shas) if s not in noise]
    n = len(shas)
    need = min_support
    own_paths = {sym.path} | {p for e in entries for p in (e.path, e.old_path) if p}
    own = {(sym.path, sym.local)} | {(e.old_path, e.old_local) for e in entries
                                     if e.old_path}
    head = _at_head(hs)  # a renamed or moved symbol or file counts under its name at HEAD
    co: dict[tuple[str, str], int] = {}
    for p, loc, _kind, cnt in hs.cochanged_symbols(shas):
        key = head(p, loc)  # (both names in one commit: the larger count, never more)
        co[key] = max(co.get(key, 0), cnt)
    live = {s.qname for s in code.symbols_by_qname([f"{p}::{loc}" for p, loc in co])}
    gone = 0  # what no longer exists at HEAD (a deleted symbol or file) is left out
    for (path, local), cnt in co.items():
        q = f"{path}::{local}"
        if cnt < need or (path, local) in own or any(
                p == path and (local.startswith(loc + ".") or loc.startswith(local + "."))
                for p, loc in own):
            continue
        if q not in live:
            gone += 1
            continue
        it = items.setdefault(q, ImpactItem(q, "symbol"))
        it.cochanges = cnt
        it.reasons.append(f"changed together in {cnt} of {n} commits")
    files: dict[str, int] = {}
    for fp, cnt in hs.cochanged_files(shas):
        fkey = head(fp, "")[0]
        files[fkey] = max(files.get(fkey, 0), cnt)
    for path, cnt in files.items():
        if cnt < need or path in own_paths:
            continue
        if root is not None and not os.path.lexists(os.path.join(root, path)):
            gone += 1
            continue
        it = items.setdefault(path, ImpactItem(path, "file"))
        it.cochanges = cnt
        it.reasons.append(f"file changed together in {cnt} of {n} commits")
    ranked = sorted(items.values(), key=lambda i: (i.depth == 0, i.depth, -i.cochanges,
                                                   i.kind, i.target))
    kind = hs.get_meta("history_partial_kind") or ""
    level = "symbol" if entries or not n else "file"
    notes = [f"co-change counts read a {partial_note(kind)}"] if kind else []
    if level == "file":  # (fresh-user run of session 35: read as the symbol's own commits)
        notes.append(f"no ingested commit changed {sym.local} itself: the {n} commits are "
                     f"those of its file {sym.path}")
    out = {"symbol": sym.as_dict(), "commits": n, "history_level": level,
           "count": len(ranked[:limit]), "total": len(ranked), "truncated": len(ranked) > limit,
           "items": ranked[:limit], "gone": gone, "history_partial": kind, "notes": notes}
    return {**out, "levels": levels, "cut": cut} if stop is not None else out


def _at_head(hs: HistoryStore) -> Callable[[str, str], tuple[str, str]]:
    """``(path, local)`` → the name it has at HEAD, following the renames and moves of
    history (``local`` ``""``: a file; a symbol in a renamed file moves with it)."""
    fwd: dict[tuple[str, str], tuple[str, str]] = {}
    for op, ol, np, nl in hs.renames():
        fwd[(op, ol)] = (np, nl)

    def head(path: str, local: str) -> tuple[str, str]:
        seen: set[tuple[str, str]] = set()
        while (path, local) in fwd and (path, local) not in seen:
            seen.add((path, local))
            nxt = fwd[(path, local)]
            if bool(nxt[1]) != bool(local):
                break  # a symbol never becomes a file, nor a file a symbol
            path, local = nxt
        if local and (path, "") in fwd:  # its file renamed later, the symbol not recorded
            return head(path, "")[0], local
        return path, local

    return head
