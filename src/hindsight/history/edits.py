"""The live edit trace: one event per observed change of a file, with the symbols it
touched and who made it.

An event holds: ``ts`` (ISO 8601 with the local UTC offset) and ``ts_unix`` (seconds),
``path`` (repository-relative; ``old_path`` for a rename), ``action`` (create, modify,
delete, rename), ``old_hash``/``new_hash`` (xxh3-128 of the raw bytes, the identity used by
the code index; ``""`` when absent), ``ranges`` (unified-diff hunks ``[old_start,
old_count, new_start, new_count]``, 1-based, as ``diff -U0`` would print them), the symbol
changes (added/modified/moved/removed with old and new ast hash), ``actor`` (``human`` or
an agent name), ``session`` (the agent's session id or ``""``), ``branch`` (``""`` when
detached) and ``head`` (the HEAD commit at the time).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from hindsight.codeindex.languages import language_for
from hindsight.codeindex.worker import content_hash
from hindsight.errors import ConfigError, GitError
from hindsight.history import gitread as G
from hindsight.history.blobparse import parse_versions
from hindsight.history.symdiff import compare_file, hunks, pair_moves, pair_renames
from hindsight.models import SymbolChange, SymState
from hindsight.store.base import HistoryStore

ACTIONS = ("create", "modify", "delete", "rename")


def as_bytes(text: str | bytes | None, what: str = "text") -> bytes | None:
    """``text`` as bytes (str is UTF-8; lone surrogates are kept as their code units).
    Raises ConfigError for any other type."""
    if text is None or isinstance(text, bytes):
        return text
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    raise ConfigError(f"{what} must be str, bytes or None, not {type(text).__name__}")


def _git_state(root: str) -> tuple[str, str]:
    try:
        return G.branch(root), G.head(root)
    except GitError:
        return "", ""


def build_event(root: str, path: str, old: bytes | None, new: bytes | None,
                old_states: list[SymState] | None, new_states: list[SymState] | None,
                *, actor: str = "human", session: str = "", old_path: str = "",
                ts: float | None = None) -> tuple[dict[str, Any], list[SymbolChange]]:
    """An event and its symbol changes for one file change (nothing stored). ``old`` is
    ``None`` for a created file, ``new`` ``None`` for a deleted one."""
    if old is None and new is None:
        raise ConfigError(f"{path}: an edit needs an old or a new text")
    if not actor:
        raise ConfigError("actor must be 'human' or an agent name")
    action = "create" if old is None else "delete" if new is None else \
        "rename" if old_path and old_path != path else "modify"
    when = time.time() if ts is None else ts
    branch, head = _git_state(root)
    ranges = hunks(old, new)
    same_file = old is not None and new is not None and not old_path
    syms = compare_file(old_path or path, old_states, path, new_states,
                        old.splitlines() if same_file and old else None,
                        new.splitlines() if same_file and new else None) \
        if old_states is not None or new_states is not None else []
    if old and new and old_states is not None and new_states is not None:
        syms = pair_renames(syms, old.splitlines(), new.splitlines())
    syms = pair_moves(syms)
    event = {"ts": datetime.fromtimestamp(when).astimezone().isoformat(timespec="milliseconds"),
             "ts_unix": when, "path": path, "old_path": old_path if action == "rename" else "",
             "action": action, "old_hash": content_hash(old) if old is not None else "",
             "new_hash": content_hash(new) if new is not None else "",
             "ranges": ranges, "actor": actor, "session": session,
             "branch": branch, "head": head}
    return event, syms


def parse_pair(path: str, old_path: str, old: bytes | None, new: bytes | None
               ) -> tuple[list[SymState] | None, list[SymState] | None]:
    """Symbols of the two texts (``None`` for an absent side, an unsupported language or a
    text that could not be parsed)."""
    versions = []
    lo = language_for(old_path or path)
    ln = language_for(path)
    if old is not None and lo:
        versions.append(("old", old_path or path, lo, old))
    if new is not None and ln:
        versions.append(("new", path, ln, new))
    got = parse_versions(versions)
    return got.get("old"), got.get("new")


def record_edit(hs: HistoryStore, root: str, path: str, old: str | bytes | None,
                new: str | bytes | None, *, actor: str = "human", session: str = "",
                old_path: str = "", ts: float | None = None) -> dict[str, Any] | None:
    """Record one edit of ``path`` (repository-relative) from ``old`` to ``new`` text (str
    is UTF-8 encoded; ``None`` = absent) and return the stored event with its ``id`` and
    ``symbols`` (``None``, and nothing stored, when the two texts are equal). Symbols are compared by parsing both texts. Raises ConfigError for an edit
    with neither text, StorageError when the bank cannot be written."""
    ob, nb = as_bytes(old, "old text"), as_bytes(new, "new text")
    if ob is not None and ob == nb and not (old_path and old_path != path):
        return None  # nothing changed: no event
    os_, ns_ = parse_pair(path, old_path, ob, nb)
    event, syms = build_event(root, path, ob, nb, os_, ns_, actor=actor, session=session,
                              old_path=old_path, ts=ts)
    event["id"] = hs.add_trace_event(event, syms)
    event["symbols"] = [s._asdict() for s in syms]
    return event


def event_json(e: dict[str, Any]) -> dict[str, Any]:
    """The JSONL form of a stored event: one flat object, symbols as qualified names;
    ``ts`` in the reader's zone with its offset (README: Times)."""
    from hindsight.models import local_iso

    return {"id": e["id"], "ts": local_iso(e.get("ts_unix"), e["ts"], "milliseconds"), "file": e["path"], "old_file": e["old_path"],
            "action": e["action"], "old_hash": e["old_hash"], "new_hash": e["new_hash"],
            "ranges": e["ranges"], "actor": e["actor"], "session": e["session"],
            "branch": e["branch"], "head": e["head"],
            "symbols": [{"qname": f"{s['path']}::{s['local']}", "kind": s["kind"],
                         "change": s["change"], "old_hash": s["old_hash"],
                         "new_hash": s["new_hash"], "start_line": s["start_line"],
                         "end_line": s["end_line"]} for s in e["symbols"]]}
