"""Keep memories tied to the code: stale anchors and ``@hindsight:`` comments.

After every index run:

- **Stale anchors.** An anchor records the symbol's ast hash when the memory was retained.
  If the symbol's hash is now different, the memory is flagged stale ("symbol changed").
  If the symbol (or its file) is gone but exactly one symbol with the same hash and name
  exists elsewhere, the anchor is re-pointed there (a rename or move) and the memory stays
  fresh; otherwise it is flagged stale ("symbol removed" / "file deleted or renamed").
  A file anchor goes stale only when its file is gone; when it recorded the file's content
  hash and exactly one indexed file now has that hash, it is re-pointed there (a rename).
  Implicit anchors (found in the text, :mod:`hindsight.memory.implicit`) follow the same
  rules.
- **Code comments.** ``# @hindsight: …`` / ``// @hindsight: …`` comments become memories
  (source ``code_comment``, confidence 1.0) anchored to the enclosing symbol — or, for a
  comment on the lines right above a definition, to that definition. A comment that changes
  or disappears retires its memory (archived, reason given) and a changed one makes a new
  memory.
"""

from __future__ import annotations

from typing import Any

from hindsight.memory.clock import iso, now_ts
from hindsight.store.base import CodeStore, MemoryStore

ABOVE = 3  # a comment this many lines above a definition belongs to it


def check_anchors(mem: MemoryStore, code: CodeStore) -> dict[str, int]:
    """Flag or re-point anchors; returns counts {stale, repointed}."""
    rows = mem.anchors_all()
    if not rows:
        return {"stale": 0, "repointed": 0, "fresh": 0}
    files = code.load_files()
    stale: list[tuple[int, str, str, str]] = []
    fresh: list[tuple[int, str, str]] = []
    repointed = 0
    now = iso(now_ts())
    by_hash: dict[str, list[str]] | None = None
    held = {(mid, path, sym) for mid, path, sym, _h, _s in rows}  # never two equal anchors
    for mid, path, sym, h, was_stale in rows:
        if not sym:
            if path in files:
                if was_stale:
                    fresh.append((mid, path, sym))
                continue
            if h and by_hash is None:
                by_hash = {}
                for p, fr in files.items():
                    by_hash.setdefault(fr.content_hash, []).append(p)
            moved = (by_hash or {}).get(h, []) if h else []
            if len(moved) == 1 and (mid, moved[0], "") not in held:  # renamed as it was
                mem.repoint(mid, (path, sym), (moved[0], ""), now)
                held.add((mid, moved[0], ""))
                repointed += 1
            elif not was_stale:
                stale.append((mid, path, sym, "file deleted or renamed"))
            continue
        found = code.symbols_by_qname([f"{path}::{sym}"])
        if found:
            same = not h or any(s.ast_hash == h for s in found)
            if not same and not was_stale:
                stale.append((mid, path, sym, "symbol changed"))
            elif same and was_stale:
                fresh.append((mid, path, sym))  # the edit was undone
            continue
        cands = code.symbols_with_hash(h, sym) if h else []
        if len(cands) == 1 and (mid, cands[0].path, cands[0].local) not in held:  # moved
            mem.repoint(mid, (path, sym), (cands[0].path, cands[0].local), now)
            held.add((mid, cands[0].path, cands[0].local))
            repointed += 1
            continue
        if not was_stale:
            stale.append((mid, path, sym, "symbol removed" if path in files
                          else "file deleted or renamed"))
    if stale:
        mem.mark_stale(stale, now)
    if fresh:
        mem.clear_stale(fresh, now)
    return {"stale": len(stale), "repointed": repointed, "fresh": len(fresh)}


def sync_comments(mem: MemoryStore, code: CodeStore, embedder: Any) -> dict[str, int]:
    """Make ``@hindsight:`` comments memories; returns counts {added, retired}."""
    from hindsight.memory.retain import Item, fingerprint, retain
    from hindsight.redact import clean

    notes = code.notes()
    current = mem.list_memories(source="code_comment", limit=1_000_000)
    if not notes and not current:
        return {"added": 0, "retired": 0}
    items: list[Item] = []
    by_file: dict[str, list[Any]] = {}
    for path, src, line, raw_text in notes:
        text = clean(raw_text).strip()
        if not text:
            continue  # the marker with nothing after it
        owner = src
        if not owner:
            syms = by_file.setdefault(path, code.file_symbols(path))
            below = [s for s in syms if line < s.start_line <= line + ABOVE]
            owner = min(below, key=lambda s: s.start_line).local if below else ""
        h = ""
        if owner:
            got = code.symbols_by_qname([f"{path}::{owner}"])
            h = got[0].ast_hash if got else ""
        items.append(Item(text=text, kind="", source="code_comment", confidence=1.0,
                          ref=f"{path}:{line}", anchors=[(path, owner, h)]))
    from hindsight.memory import extract

    want = {}
    for it in items:
        it.kind = extract.classify(it.text) if extract.classify(it.text) != "fact" \
            else "convention"
        want[fingerprint(it.text, it.kind, it.anchors)] = it
    have = {m.fingerprint: m.id for m in current}
    retire = [mid for fp, mid in have.items() if fp not in want]
    new = [it for fp, it in want.items() if fp not in have]
    if retire:
        mem.archive_many(retire, "its @hindsight comment changed or was removed", iso(now_ts()))
    if new:
        retain(mem, embedder, new, batch=True)
    return {"added": len(new), "retired": len(retire)}
