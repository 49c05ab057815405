"""Keep memories tied to the code: stale anchors and ``@hindsight:`` comments.

After every index run:

- **Stale anchors.** An anchor records the symbol's ast hash when the memory was retained.
  If the symbol's hash is now different, the memory is flagged stale ("symbol changed").
  If the symbol (or its file) is gone but exactly one symbol with the same hash and name
  exists elsewhere (for a constant, the same qualified name: another enum's member of that
  name is no move), the anchor is re-pointed there (a rename or move) and the memory stays
  fresh; otherwise it is flagged stale ("symbol removed" / "file deleted or renamed").
  A file anchor goes stale only when its file is gone; when it recorded the file's content
  hash and exactly one indexed file now has that hash, it is re-pointed there (a rename).
  Implicit anchors (found in the text, :mod:`hindsight.memory.implicit`) follow the same
  rules.
  A file outside a sparse checkout (tracked, not checked out; the ``outside`` callback says
  which) is neither: its anchors are left as they are, since nothing can be checked.
- **Identity migration.** When a new version of symbol extraction names definitions
  apart that used to share a name (a getter and its setter, overloads, an ``@overload``
  stub and its implementation), the rebuilt index leaves a snapshot of the old repeated
  symbols (code meta ``identity_migration``). Before anything is flagged, each anchor to
  one of them is re-pointed to the new identity with the same ast hash (``C.p`` → its
  setter ``C.p:setter``, ``C.m`` → ``C.m(int)``); an anchor to a stub that is no longer a
  symbol stays on the name, now the implementation, with the implementation's hash as it
  was (so only a change of the implementation flags it). A name no longer a symbol
  because it now carries a role (a subclass's ``@Base.p.setter``: ``Sub.p`` →
  ``Sub.p:setter``) follows it in its file, stale only if its code changed. The change of
  names never makes a memory stale.
- **Code comments.** ``# @hindsight: …`` / ``// @hindsight: …`` comments become memories
  (source ``code_comment``, confidence 1.0) anchored to the enclosing symbol — or, for a
  comment on the lines right above a definition, to that definition. A comment that changes
  or disappears retires its memory (archived, reason given) and a changed one makes a new
  memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hindsight.memory.clock import iso, now_ts
from hindsight.models import Symbol, base_local
from hindsight.store.base import CodeStore, MemoryStore

ABOVE = 3  # a comment this many lines above a definition belongs to it


def migrate_identities(mem: MemoryStore, code: CodeStore) -> int:
    """Re-point anchors after an identity change (see the module doc); returns how many
    anchors were re-pointed or re-hashed. Clears the snapshot it reads."""
    raw = code.get_meta("identity_migration")
    if not raw:
        return 0
    old: dict[tuple[str, str], list[list[Any]]] = {}
    for path, local, h, start, end, chash in json.loads(raw):
        old.setdefault((path, local), []).append([h, start, end, chash])
    now = iso(now_ts())
    done = 0
    for mid, path, sym, h, _was_stale in mem.anchors_all():
        copies = old.get((path, sym))
        if not copies:
            continue
        o = next((c for c in copies if c[0] == h), None) if h else copies[0]
        if o is None:  # the code changed since the anchor was made: check_anchors judges
            continue
        syms = code.file_symbols(path)
        name = base_local(sym).rpartition(".")[2]
        same = [s for s in syms if s.ast_hash == o[0] and s.name == name]
        if len(same) > 1:
            same = [s for s in same if s.start_line == o[1]] or same[:1]
        if same:
            if same[0].local != sym:
                mem.repoint(mid, (path, sym), (path, same[0].local), now)
                done += 1
            continue
        impl = [s for s in syms if s.local == sym]
        if len(impl) == 1 and impl[0].ast_hash != h:  # a stub folded into its implementation:
            # the implementation's hash as it was (the last copy, after its stubs), so
            # an implementation changed since is flagged by check_anchors
            was = [c[0] for c in copies if c[0] == impl[0].ast_hash] or \
                [max(copies, key=lambda c: c[1])[0]]
            mem.repoint(mid, (path, sym), (path, sym), now, ast_hash=was[0])
            done += 1
    code.set_meta({"identity_migration": ""})
    return done


def check_anchors(mem: MemoryStore, code: CodeStore,
                  outside: Callable[[list[str]], set[str]] | None = None) -> dict[str, int]:
    """Flag or re-point anchors; returns counts {stale, repointed, fresh, migrated,
    outside}. :func:`migrate_identities` runs first. ``outside(paths)``: which of the
    anchored paths missing from the index lie outside a sparse checkout (their anchors
    are not checked)."""
    migrated = migrate_identities(mem, code)
    rows = mem.anchors_all()
    if not rows:
        return {"stale": 0, "repointed": 0, "fresh": 0, "migrated": migrated, "outside": 0}
    files = code.load_files()
    missing = sorted({r[1] for r in rows if r[1] and r[1] not in files})
    away = outside(missing) if outside is not None and missing else set()
    rows = [r for r in rows if r[1] not in away]
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
            took = _name_taken(code, path, sym, h) if not same else None
            if took is not None and (mid, path, took) not in held:
                mem.repoint(mid, (path, sym), (path, took), now)
                held.add((mid, path, took))
                repointed += 1
            elif not same and not was_stale:
                stale.append((mid, path, sym, "symbol changed"))
            elif same and was_stale:
                fresh.append((mid, path, sym))  # the edit was undone
            continue
        role = _role_taken(code, path, sym)
        if role is not None and (mid, path, role.local) not in held:
            mem.repoint(mid, (path, sym), (path, role.local), now)
            held.add((mid, path, role.local))
            repointed += 1
            if h and role.ast_hash != h and not was_stale:
                stale.append((mid, path, role.local, "symbol changed"))
            continue
        # a constant (an enum's member: one token, `Quit`) moves only under its own
        # qualified name: another enum's `Cmd.Quit` has its hash too (break-it, session 30)
        cands = [c for c in (code.symbols_with_hash(h, sym) if h else [])
                 if c.kind != "constant" or c.local == sym]
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
    return {"stale": len(stale), "repointed": repointed, "fresh": len(fresh),
            "migrated": migrated, "outside": len(away)}


def _role_taken(code: CodeStore, path: str, sym: str) -> Symbol | None:
    """When ``sym`` is no longer a symbol of ``path`` because its definition is now named
    with a role or trait (a subclass's ``@Base.p.setter``: ``Sub.p`` → ``Sub.p:setter``,
    extraction version 9), the one symbol of the file named ``sym`` plus that suffix;
    else None. Its hash decides whether the memory is stale, as for any anchor."""
    cands = [s for s in code.file_symbols(path) if s.local != sym and base_local(s.local) == sym]
    return cands[0] if len(cands) == 1 else None


def _name_taken(code: CodeStore, path: str, sym: str, h: str) -> str | None:
    """When the anchored code kept its text but not its name because another definition
    took the name (a Rust inherent method added beside a trait's: ``Y.name`` becomes
    ``Y.name:Named``; an overload added: ``C.m`` becomes ``C.m(int)``), the one symbol of
    the file with the same base name and the anchored hash ``h``; else None."""
    if not h:
        return None
    base = base_local(sym)
    cands = [s for s in code.file_symbols(path)
             if s.ast_hash == h and s.local != sym and base_local(s.local) == base]
    return cands[0].local if len(cands) == 1 else None


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
