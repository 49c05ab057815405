"""Questions answered from the git history and the edit trace: ``history`` (the commits
that touched a symbol, following it across moves and file renames), ``why`` (blame lifted
to the enclosing symbol) and ``impact`` (callers plus what historically changes with it);
``hotspots`` lives in :mod:`hindsight.history.hotspots`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from hindsight.codeindex.query import resolve_one
from hindsight.errors import Ambiguous, GitError, NotFound, NotIndexed
from hindsight.history import gitread as G
from hindsight.history.stubs import overload_signature, overload_stub
from hindsight.history.symdiff import base_key
from hindsight.models import Symbol, innermost, split_qname
from hindsight.store.base import CodeStore, HistoryStore


@dataclass
class Entry:
    """One commit in a symbol's history. ``date`` is the author date (ISO 8601 with its UTC
    offset); ``change`` is added/modified/moved/removed, ``merged`` (a merge brought in a
    change made on its branch) or ``file`` (only file-level history exists);
    ``path``/``local`` name the symbol after the change; ``pure_move``: moved without any
    change to its content; ``merge``: the commit is a merge (several parents)."""

    sha: str
    date: str
    author: str
    subject: str
    change: str
    path: str
    local: str
    old_path: str = ""
    old_local: str = ""
    reachable: bool = True
    pure_move: bool = False
    merge: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def require_history(hs: HistoryStore, root: str) -> None:
    """Raises GitError when ``root`` is not a git repository (or git fails), NotIndexed
    when the bank holds no commit yet."""
    if hs.commit_count() == 0:
        if not G.is_repo(root):
            raise GitError(f"{root}: not a git repository; history needs git", path=root)
        if not G.head(root):  # (fresh-user run of session 35: "run hindsight ingest",
            raise NotIndexed(f"{root}: the repository has no commits yet; history starts "
                             "with the first commit", root=root)  # which had nothing to read)
        raise NotIndexed("no git history in this bank yet", action="ingest", root=root)


def _entry(r: dict[str, Any], change: str | None = None) -> Entry:
    return Entry(r["sha"], r["author_date"], r["author_name"], r["subject"],
                 change or r["change"], r["path"], r.get("local", ""),
                 r.get("old_path") or "", r.get("old_local") or "", bool(r["reachable"]),
                 r.get("change") == "moved" and r.get("old_hash") == r.get("new_hash"),
                 " " in (r.get("parents") or ""))


def collapse_merges(entries: list[Entry]) -> tuple[list[Entry], int]:
    """``entries`` without those of merges that only brought in what their branch's own
    commits did (``merged``, or any merge in a file-level history), and how many were
    left out. A merge that changed the symbol itself (a conflict resolved into code no
    parent had) stays."""
    kept = [e for e in entries if not (e.merge and e.change in ("merged", "file"))]
    return kept, len(entries) - len(kept)


def symbol_entries(hs: HistoryStore, path: str, local: str,
                   include_unreachable: bool = False) -> list[Entry]:
    """The history of the symbol now at ``path``/``local``, newest first. A ``moved`` entry
    continues with the symbol's earlier identity, up to the commit of the move."""
    out: list[Entry] = []
    seen: set[tuple[str, str, str]] = set()
    todo: list[tuple[str, str, int | None]] = [(path, local, None)]
    visited: set[tuple[str, str]] = set()
    rows: list[dict[str, Any]] = []
    while todo:
        p, loc, before = todo.pop()
        if (p, loc) in visited or len(visited) > 50:
            continue
        visited.add((p, loc))
        born = False
        found = hs.symbol_changes(p, loc, before, include_unreachable)
        copies = _copied_adds(found)
        landed = {r["sha"] for r in found if r["change"] != "removed"}
        for r in found:
            if r["change"] == "removed" and ((p, loc) != (path, local) or r["sha"] in landed):
                continue  # the old identity's removal is the move itself (or another copy
                # of the name took its `#n` key in that commit)
            renumbered = r["old_path"] == r["path"] and r["old_local"] not in ("", r["local"])
            if renumbered and r["change"] == "moved" and r["old_hash"] == r["new_hash"] and \
                    base_key(r["old_local"]) == base_key(r["local"]):
                todo.append((r["old_path"], r["old_local"], r["seq"]))
                born = born or r["reachable"]  # older rows of the key: another copy's
                continue  # a copy of a name renumbered by one added above it: not a change
            if born and r["reachable"]:
                continue  # older live entries belong to an earlier symbol of that name
            if id(r) in copies:
                continue
            key = (r["sha"], r["path"], r["local"])
            if key in seen:
                continue
            seen.add(key)
            rows.append(r)
            if r["change"] == "moved" or (r["old_path"] and r["old_path"] != r["path"]) or \
                    renumbered:
                todo.append((r["old_path"], r["old_local"], r["seq"]))
                born = born or (renumbered and r["reachable"])
            if r["change"] == "added" and r["reachable"]:
                born = True  # (rewritten-away commits may still follow, when asked for)
    rows.sort(key=lambda r: r["seq"], reverse=True)
    out = [_entry(r) for r in rows]
    return out


def _copied_adds(rows: list[dict[str, Any]]) -> set[int]:
    """``id`` of the ``added`` rows (newest first) that only add again, on another branch,
    the very code the symbol already had by the next older row, which is no removal (a
    side branch that copied the code in before merging): ``git blame`` follows the first
    parent through the merge to the older commits, and so does the history."""
    out: set[int] = set()
    for i, r in enumerate(rows):
        if r["change"] != "added" or not r["reachable"]:
            continue
        older = next((o for o in rows[i + 1:] if o["reachable"]), None)
        if older is not None and older["change"] != "removed" and \
                older["new_hash"] == r["new_hash"]:
            out.add(id(r))
    return out


Expand = Callable[[set[str]], tuple[int, int, str]]


def attributed_entries(hs: HistoryStore, path: str, local: str,
                       include_unreachable: bool = False, expand: Expand | None = None
                       ) -> tuple[list[Entry], list[str]]:
    """:func:`symbol_entries`, after ``expand(paths)`` (see :mod:`hindsight.history.lazy`)
    computed the symbol changes of the huge commits that touched the symbol's files: its
    file and the files of its earlier identities (a renamed file moves every symbol, so
    its old name is one of them; again for files found that way, at most 3 rounds).
    Returns the entries and notes for the reader (huge commits left for a later question;
    why the history is empty)."""
    entries = symbol_entries(hs, path, local, include_unreachable)
    notes: list[str] = []
    waiting = 0
    blocked = ""
    asked: set[str] = set()
    for _round in range(3):
        if expand is None:
            break
        paths = {path, *(p for e in entries for p in (e.path, e.old_path) if p)}
        if paths <= asked:
            break
        asked |= paths
        done, waiting, blocked = expand(paths)
        if done:
            entries = symbol_entries(hs, path, local, include_unreachable)
    if waiting:  # (break-it 40: a locked bank read as "not examined yet")
        notes.append(f"{waiting} more huge commit{'' if waiting == 1 else 's'} touched "
                     f"this symbol's files and {'was' if waiting == 1 else 'were'} not "
                     + (f"examined: {blocked}; ask again later" if blocked else
                        "examined yet; ask again to examine the next ones"))
    if not entries and not waiting:
        partial = hs.get_meta("history_partial_kind") or ""
        notes.append("no ingested commit changed this symbol" + (
            f"; the ingested history is partial ({partial}): " + (
                "hindsight ingest reads the missing commits" if partial == "interrupted"
                else "`git fetch --unshallow`, then `hindsight ingest --all`, reads the older "
                "commits" if partial == "shallow"
                else "hindsight ingest --all reads the older commits") if partial else ""))
    return entries, notes


def on_head(hs: HistoryStore, root: str, entries: list[Entry]) -> tuple[list[Entry], int]:
    """``entries`` without the commits HEAD does not contain (ingested while another
    branch was checked out, and not merged into this one): ``git blame`` and ``git log
    -L`` on HEAD never name them. Returns the entries kept and how many were left out. A
    git failure keeps every entry."""
    try:
        heads = json.loads(hs.get_meta("history_heads") or "[]")
    except ValueError:
        heads = []
    tips = tuple(h for h in heads if isinstance(h, str) and len(h) >= 40)
    if not entries or not tips:
        return entries, 0
    now = time.monotonic()
    hit = _AWAY.get((root, tips))
    if hit is not None and now - hit[0] < AWAY_TTL_S:
        away = hit[1]
    else:
        try:
            away = G.not_on_head(root, list(tips))
        except GitError:
            away = set()
        _AWAY[(root, tips)] = (now, away)
    kept = [e for e in entries if e.sha not in away]
    return kept, len(entries) - len(kept)


AWAY_TTL_S = 1.0
"""How long (s) a process reuses the commits found off HEAD for one bank's heads: a burst
of questions (an agent's, the MCP server's) costs one ``git rev-list``."""
_AWAY: dict[tuple[str, tuple[str, ...]], tuple[float, set[str]]] = {}


def _away_note(n: int) -> list[str]:
    return [f"{n} change{'' if n == 1 else 's'} on branches not merged into HEAD left "
            "out"] if n else []


def _target(code: CodeStore, hs: HistoryStore, spec: str, file: str | None
            ) -> tuple[str, str, Symbol | None]:
    """(path, local, current symbol or None) for a symbol name, qualified name or a
    ``path::local`` that exists only in history."""
    try:
        sym = resolve_one(code, spec, file)[0]
        return sym.path, sym.local, sym
    except NotFound:
        sp = split_qname(spec)
        if sp is not None:
            p, loc = sp
            if hs.symbol_changes(p, loc, None, True):
                return p, loc, None
        cands = [c for c in hs.locals_named(sp[1] if sp else spec)
                 if not file or c[0] == file or c[0].startswith(file.rstrip("/") + "/")]
        if len(cands) > 1:  # one symbol moved from file to file: its newest name
            moves = hs.renames()
            olds = {(r[0], r[1]) for r in moves}
            newest = [c for c in cands if c not in olds and (c[0], "") not in olds]
            cands = newest if len(newest) == 1 else cands
        if len(cands) == 1:
            return cands[0][0], cands[0][1], None
        if len(cands) > 1:
            raise Ambiguous(f"{spec!r} is not in the index and matches "
                            f"{len(cands)} symbols in history; give one of them",
                            [f"{p}::{loc}" for p, loc in cands[:20]]) from None
        raise


def history(code: CodeStore, hs: HistoryStore, root: str, spec: str,
            file: str | None = None, include_unreachable: bool = False,
            merges: bool = False, expand: Expand | None = None) -> dict[str, Any]:
    """The commits that touched symbol ``spec``, newest first, as ``{"symbol": Symbol
    dict (None when it exists only in history), "qname", "count", "level":
    "symbol"|"file", "partial": ""|"shallow"|"limited", "merges_hidden": n, "entries":
    [Entry…], "notes": [str…]}``. Merges that only brought in their branch's changes are
    left out unless ``merges`` (:func:`collapse_merges`; ``merges_hidden`` counts them).
    ``expand``: computes the symbol changes of huge commits first (see
    :func:`attributed_entries`, which also writes the notes). Without
    per-symbol history (``message`` or ``none`` mode) the commits touching its file are
    given with ``level`` = ``file``. Raises NotIndexed (no history), GitError (not a git
    repository), NotFound, Ambiguous."""
    require_history(hs, root)
    path, local, _sym = _target(code, hs, spec, file)
    full = (hs.get_meta("history_mode") or '"full"') == '"full"'
    entries, notes = attributed_entries(hs, path, local, include_unreachable,
                                        expand if full else None)
    level = "symbol"
    if not entries and not full:
        level, notes = "file", []
        rows = {r["sha"]: r for p in file_lineage(hs, path)
                for r in hs.file_commits(p, include_unreachable)}
        entries = [_entry({**r, "local": ""}, "file") for r in sorted(
            rows.values(), key=lambda r: r["seq"], reverse=True)]
    if not include_unreachable:
        entries, away = on_head(hs, root, entries)
        notes += _away_note(away)
    hidden = 0
    if not merges:
        entries, hidden = collapse_merges(entries)
    partial = hs.get_meta("history_partial_kind") or ""
    if partial and not any("partial" in n for n in notes):  # (and what reads the rest)
        notes.append(partial_note(partial))
    notes += unreadable_note(hs)
    copies = sorted(code.symbols_by_qname([_sym.qname]), key=lambda s: (
        s.start_line, s.end_line)) if _sym is not None else []
    if len(copies) > 1:  # (break-it 40: `int get(int) const` and `int get(int)`)
        notes.append(f"{len(copies)} definitions in {path} share the name {local} (lines "
                     f"{', '.join(str(c.start_line) for c in copies)}): this is the history "
                     f"of the first; `{local}#2`" + (" …" if len(copies) > 2 else "")
                     + " names the next")
    return {"symbol": _sym.as_dict() if _sym is not None else None,
            "qname": f"{path}::{local}", "level": level, "count": len(entries),
            "partial": partial, "merges_hidden": hidden, "entries": entries, "notes": notes}


def history_key(code: CodeStore, sym: Symbol) -> str:
    """The local name history stores ``sym`` under: its own, or ``local#N`` when it is
    the Nth definition (in source order) of a local name repeated in its file (see
    :func:`hindsight.history.symdiff.keyed`)."""
    same = sorted(code.symbols_by_qname([sym.qname]), key=lambda s: (s.start_line,
                                                                      s.end_line))
    i = next((k for k, s in enumerate(same)
              if (s.start_line, s.end_line) == (sym.start_line, sym.end_line)), 0)
    return sym.local if i == 0 else f"{sym.local}#{i + 1}"


_BODIES = frozenset({"class", "struct", "interface", "enum", "trait", "impl", "namespace",
                     "module", "object", "record"})


def _enclosing(code: CodeStore, path: str, line: int) -> Symbol | None:
    return innermost(code.file_symbols(path), line)


def why(code: CodeStore, hs: HistoryStore, root: str, path: str, line: int,
        merges: bool = False, expand: Expand | None = None) -> dict[str, Any]:
    """Why is ``path``:``line`` (1-based) the way it is: ``{"file", "line", "symbol"
    (Symbol dict or None), "source": "symbol"|"blame", "last": commit dict or None,
    "earlier": [Entry…] (older than ``last``), "since": [Entry…] (newer than ``last``
    without changing its content: pure moves, and merges when shown), "merges_hidden",
    "live": [trace events on this symbol/file after the last commit],
    "history_partial": ""|"shallow"|"limited" (``partial`` of :func:`history`; MCP's
    ``partial`` means a time limit), "notes"}`` (a partial history adds a note, and so do
    uncommitted changes to ``path``). The symbol is
    the innermost one enclosing the line; without symbol history, or for a line in a
    class body outside its methods (not its first line), the line's own ``git blame``
    answers. Merges are left out as in :func:`history` unless ``merges``;
    ``expand`` and ``notes`` as there. Raises NotIndexed (no history), GitError."""
    require_history(hs, root)
    sym = _enclosing(code, path, line)
    out: dict[str, Any] = {"file": path, "line": line,
                           "symbol": sym.as_dict() if sym else None,
                           "source": "symbol", "last": None, "earlier": [], "since": [],
                           "merges_hidden": 0, "live": [], "notes": []}
    key = history_key(code, sym) if sym else ""
    entries: list[Entry] = []
    if sym and sym.kind in _BODIES and line != sym.start_line:
        # a line of a class body outside its methods (an attribute, an `@overload` stub:
        # a fresh-user trial): the class's history is every method's, git blame is the line's
        stub = overload_stub(root, path, line, sym)
        impl = None if stub else overload_signature(root, path, line, sym,
                                                    code.file_symbols(path))
        where = f"in an @overload stub of {sym.local}.{stub}" if stub else \
            f"in an overload signature of {impl.local} (implementation: lines " \
            f"{impl.start_line}-{impl.end_line})" if impl else \
            f"in the body of {sym.local}, outside its methods"
        out["notes"].append(f"line {line} is {where}: git blame answers for the line")
    elif sym:
        full = (hs.get_meta("history_mode") or '"full"') == '"full"'
        entries, notes = attributed_entries(hs, sym.path, key,
                                            expand=expand if full else None)
        out["notes"] = [n for n in notes if not n.startswith("no ingested commit")]
        entries, away = on_head(hs, root, entries)
        out["notes"] += _away_note(away)
    else:  # (break-it 40: a TypeScript overload signature line had no word)
        impl = overload_signature(root, path, line, None, code.file_symbols(path))
        if impl is not None:
            kind = "an @overload stub" if impl.language == "python" else \
                "an overload signature"
            out["notes"].append(f"line {line} is in {kind} of {impl.local} (implementation:"
                                f" lines {impl.start_line}-{impl.end_line}): git blame "
                                "answers for the line")
    if entries and not merges:
        entries, out["merges_hidden"] = collapse_merges(entries)
    if entries:
        # the last change of content: a pure move (same ast hash) does not explain a line,
        # and a merge only brought in what its branch's commits did
        at = next((i for i, e in enumerate(entries)
                   if not e.pure_move and e.change != "merged"), 0)
        pick = entries[at]
        last = hs.commit(pick.sha) or {}
        out["last"] = {**_commit_view(last), "change": pick.change}
        out["since"], out["earlier"] = entries[:at], entries[at + 1:]
    else:
        out["source"] = "blame"
        sha = G.blame_line(root, path, line)
        if sha and sha in G.shallow_boundary(root):  # (break-it 40: blame stops there)
            out["notes"].append(
                f"git blame reaches {sha[:10]}, the first commit of this shallow clone: the "
                "line was last changed there or in an older commit the clone does not "
                "have; `git fetch --unshallow`, then `hindsight ingest --all`, tells")
            sha = ""
        c = hs.commit(sha) if sha else None
        if c is not None:
            out["last"] = {**_commit_view(c), "change": "line"}
        elif sha:  # git knows the commit; the ingested history does not reach back to it
            out["notes"].append(f"git blame names {sha[:10]}, older than the ingested "
                                "history: `hindsight ingest --all` reads all of it")
    if G.uncommitted(root, path):  # (a fresh user's trial: `why` read as the whole truth)
        out["notes"].append(f"{path} has uncommitted changes (git diff HEAD): they are in "
                            "no commit above; edits through an agent hook are the edit trace")
    out["history_partial"] = hs.get_meta("history_partial_kind") or ""
    if out["history_partial"] and out["source"] == "symbol":  # (blame reads all history)
        out["notes"].append(partial_note(out["history_partial"]))
    if out["source"] == "symbol":
        out["notes"] += unreadable_note(hs)
    last_ts = _ts(out["last"]["committer_date"]) if out["last"] else None
    events = hs.trace_events(path=path, local=key if sym else None,
                             since_unix=last_ts, limit=20)
    out["live"] = events
    return out


def unreadable_note(hs: HistoryStore) -> list[str]:
    """A note when the last full ingest met commits git could not diff or file versions it
    could not read (missing objects: those changes are in no symbol's history), else
    nothing."""
    n = int(hs.get_meta("history_unreadable") or 0)
    b = int(hs.get_meta("history_missing_blobs") or 0)
    what = [f"{n} ingested commit(s) could not be diffed"] if n else []
    what += [f"{b} file version(s) could not be read"] if b else []
    return [f"{' and '.join(what)} by git (missing objects; git fsck lists them): their "
            "changes are not in this history"] if what else []


def partial_note(kind: str) -> str:
    """What a partial history (``shallow`` clone, ``limited`` ingest or an ingest
    ``interrupted`` before it read its last commit) leaves out."""
    if kind == "interrupted":
        return ("partial history (interrupted): an ingest stopped before it read every "
                "commit it planned; `hindsight ingest` again finishes it")
    if kind == "shallow":
        return ("partial history (shallow clone): changes older than its first commit are "
                "not known; `git fetch --unshallow`, then `hindsight ingest --all`, reads them")
    return ("partial history (limited): only the newest commits were ingested, so earlier "
            "changes are missing; `hindsight ingest --all` reads all of it")


def _ts(iso: str) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return None


def _commit_view(c: dict[str, Any]) -> dict[str, Any]:
    """A commit as every answer shows it: the keys of a history entry (``sha``, ``date``
    = author date, ``author``, ``subject``), then the rest of the commit."""
    return {"sha": c.get("sha"), "date": c.get("author_date"), "author": c.get("author_name"),
            "subject": c.get("subject"),
            **{k: c.get(k) for k in ("author_name", "author_email", "author_date",
                                     "committer_date", "message")}}


@dataclass
class ImpactItem:
    """Something that may break: a symbol (``qname``) or a file (``path``) with every
    reason found (``calls it (depth 1)``, ``changed together in 3 of 4 commits``)."""

    target: str
    kind: str
    reasons: list[str] = field(default_factory=list)
    depth: int = 0
    cochanges: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def file_lineage(hs: HistoryStore, path: str) -> list[str]:
    """``path`` and the names it had before, newest first (file renames in history)."""
    prev = {}
    for op, ol, np, nl in hs.renames():
        if not ol and not nl:
            prev[np] = op
    out = [path]
    while out[-1] in prev and prev[out[-1]] not in out:
        out.append(prev[out[-1]])
    return out
