"""Write a session back into its bank: transcript turns → conversation memories, extracted
experiences and edit-trace events (issue #5, stop / pre-compact / session-end, imports).

Each transcript is read from the byte offset where the previous read ended (bank meta
``transcript:<path>``), so a retry reads nothing new; memories are also deduplicated by
fingerprint, so even a lost offset stores nothing twice. Conversation memories are one per
exchange: a human prompt with the assistant's text and one compact line per tool call.
Compaction summaries are not stored (they restate turns already stored).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from typing import Any

from hindsight.config.paths import git_cmd

MAX_EXCHANGE = 4000  # characters of one conversation memory
MAX_ACTIONS = 25  # action lines kept per exchange
# A conversation memory's vector is of its first characters only (the start of the human
# prompt, about 45-50 word pieces): on 2 cores the int8 MiniLM embeds ≈ 22 such exchanges/s
# at 600 characters, ≈ 50/s at 300 and ≈ 87/s at 200, and a 2 MB transcript (410
# exchanges, bench/hooks.py) must be done within 10 s; the full text stays in the
# full-text index.
EMBED_CHARS = 200


def exchanges(turns: list[Any]) -> list[tuple[str, str, list[str]]]:
    """``[(text, timestamp, files edited)]``: one per human prompt and what followed it, at
    most :data:`MAX_EXCHANGE` characters each."""
    out: list[tuple[str, str, list[str]]] = []
    cur: dict[str, Any] | None = None

    def flush() -> None:
        if cur and (cur["user"] or cur["assistant"]):
            parts = []
            if cur["user"]:
                parts.append("User: " + "\n".join(cur["user"]))
            if cur["assistant"]:
                parts.append("Assistant: " + "\n".join(cur["assistant"]))
            if cur["actions"]:
                acts = cur["actions"][:MAX_ACTIONS]
                more = len(cur["actions"]) - len(acts)
                parts.append("Actions: " + "; ".join(acts) + (f"; … {more} more" if more else ""))
            text = "\n".join(parts)
            if len(text) > MAX_EXCHANGE:
                text = text[:MAX_EXCHANGE - 1] + "…"
            out.append((text, cur["ts"], list(dict.fromkeys(cur["files"]))))

    for t in turns:
        if t.role == "summary":
            continue
        if t.role == "user" or cur is None:
            flush()
            cur = {"user": [], "assistant": [], "actions": [], "files": [],
                   "ts": t.timestamp}
        if t.role == "user":
            cur["user"].append(t.text)
        elif t.role == "assistant":
            cur["assistant"].append(t.text)
        elif t.role == "action":
            cur["actions"].append(t.text + (" (failed)" if t.error else ""))
            cur["files"] += list(t.files)
    flush()
    return out


def _rel(root: str, path: str) -> str | None:
    p = os.path.realpath(path if os.path.isabs(path) else os.path.join(root, path))
    r = os.path.realpath(root)
    return os.path.relpath(p, r) if p.startswith(r + os.sep) else None


def _head_text(root: str, rel: str) -> bytes | None:
    try:
        p = subprocess.run(git_cmd(root, "cat-file", "blob", f"HEAD:{rel}"), capture_output=True,
                           timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def record_session_edits(bank: Any, turns: list[Any], session: str, agent: str,
                         warn: Callable[[str], None]) -> int:
    """Edit-trace events for the files the agent edited in ``turns`` (actor ``agent``, this
    session); see :func:`record_file_edits`."""
    return record_file_edits(bank, [f for t in turns for f in t.files], session, agent, warn)


def record_file_edits(bank: Any, files: list[str], session: str, agent: str,
                      warn: Callable[[str], None], *, refresh_index: bool = True) -> int:
    """Edit-trace events for ``files`` (absolute, or relative to the bank's root; others
    are ignored) edited by ``agent`` in ``session``: the change from the file at HEAD to the
    file now, once per file content (bank meta ``edit:<session>:<path>`` holds the content
    hash recorded last), so a hook and the later write-back never record one content twice.
    ``refresh_index``: bring the code index up to date first (when the repository is
    indexed). Returns the number of events stored."""
    import xxhash

    rels = [r for r in (_rel(bank.root, f) for f in dict.fromkeys(files)) if r]
    if not rels:
        return 0
    if refresh_index and bank.code.is_indexed():
        bank.code.index()
    store, n = bank.memory, 0
    for rel in rels:
        try:
            with open(os.path.join(bank.root, rel), "rb") as f:
                new: bytes | None = f.read()
        except FileNotFoundError:
            new = None
        except OSError as e:
            warn(f"{rel}: {e.strerror}")
            continue
        key = f"edit:{session}:{rel}"
        digest = xxhash.xxh3_64_hexdigest(new) if new is not None else "deleted"
        if store.get_meta(key) == digest:
            continue
        try:
            ev = bank.history.record_edit(rel, _head_text(bank.root, rel), new, actor=agent,
                                          session=session, refresh_index=False)
        except Exception as e:  # noqa: BLE001 - one file must not stop the rest
            warn(f"{rel}: {e}")
            continue
        store.set_meta({key: digest})
        n += ev is not None
    return n


def _head(path: str, upto: int) -> str:
    """xxh3 of the file's first ``min(upto, 4096)`` bytes: tells a transcript that was
    rewritten from one that was appended to."""
    import xxhash

    try:
        with open(path, "rb") as f:
            return xxhash.xxh3_64_hexdigest(f.read(min(upto, 4096)))
    except OSError:
        return ""


def _when(ts: str) -> str:
    """``ts`` when it is an ISO 8601 time, else ``""`` (retain then uses now): one bad
    timestamp must not stop the session from being stored."""
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
        datetime.fromtimestamp(dt.timestamp()).astimezone()  # what retain stores
    except (ValueError, TypeError, OverflowError, OSError):
        return ""
    return ts


def _anchors(bank: Any, files: Any) -> list[tuple[str, str, str]]:
    """File anchors (path, "", "") for the files under the root that still exist."""
    rels = [r for r in (_rel(bank.root, f) for f in files) if r]
    return [(r, "", "") for r in dict.fromkeys(rels)
            if os.path.isfile(os.path.join(bank.root, r))]


def _items(bank: Any, res: Any, agent: str) -> tuple[list[Any], list[Any]]:
    """(conversation items, experience items) of a read."""
    from hindsight.models import MemoryItem as Item
    from hindsight.sessions.experience import extract

    conv = [Item(text=text, kind="conversation", source="conversation",
                 session=res.session_id, agent=agent, occurred=_when(ts),
                 anchors=_anchors(bank, files))
            for text, ts, files in exchanges(res.turns)]
    items = []
    last = next((t.timestamp for t in reversed(res.turns) if t.timestamp), "")
    for e in extract(res.turns):
        probe = e.text.removeprefix("User correction: ")[:60]
        when = next((t.timestamp for t in res.turns
                     if t.role == "user" and t.timestamp and probe in t.text), last)
        items.append(Item(text=e.text, kind=e.kind, outcome=e.outcome, source="conversation",
                          session=res.session_id, agent=agent,
                          anchors=_anchors(bank, e.files), occurred=_when(when),
                          tags=[f"session:{res.session_id[:8]}"] if res.session_id else []))
    return conv, items


READS_PER_CALL = 16  # reads of at most READ_CAP bytes each one write-back may chain


def retain_transcript(bank: Any, path: str, reader: Callable[..., Any], agent: str,
                      *, session: str = "", edits: bool = True, final: bool = False
                      ) -> dict[str, Any]:
    """:func:`retain_once` again while a read stopped before the end of the file (a read
    takes at most ``READ_CAP`` bytes, a line over it is skipped alone) and still advanced,
    at most :data:`READS_PER_CALL` reads, so a session-end drain reads past a huge line to
    the end. Same result shape as :func:`retain_once`, counts summed over the reads."""
    out = retain_once(bank, path, reader, agent, session=session, edits=edits, final=final)
    for _ in range(READS_PER_CALL - 1):
        if out["to"] >= os.path.getsize(path) or out["to"] <= out["last_from"]:
            break
        nxt = retain_once(bank, path, reader, agent, session=session, edits=edits,
                          final=final)
        for k in ("turns", "retained", "duplicates", "edits", "records"):
            out[k] += nxt[k]
        out["warnings"] = (out["warnings"] + nxt["warnings"])[:20]
        out["ms"] = {k: out["ms"][k] + nxt["ms"][k] for k in out["ms"]}
        out["to"], out["last_from"] = nxt["to"], nxt["from"]
    del out["last_from"]
    return out


def retain_once(bank: Any, path: str, reader: Callable[..., Any], agent: str,
                *, session: str = "", edits: bool = True, final: bool = False
                ) -> dict[str, Any]:
    """Read ``path`` with ``reader(path, offset)`` from the stored offset and retain what is
    new: conversation memories are written (searchable) first, then experiences, edits,
    execution records (:mod:`hindsight.sessions.attempts`) and the new offset, and the
    conversation vectors last. Returns ``{"path", "from", "to", "turns", "retained",
    "duplicates", "edits", "records", "warnings", "ms": {"searchable", "embedded"}}`` (byte offsets; ms since the read). Raises FileNotFoundError (no
    transcript) and StorageError. ``final``: the session has ended (session-end, imports),
    so a tool call still waiting for its result is read too."""
    import stat

    from hindsight.errors import ConfigError

    st = os.stat(path)  # FileNotFoundError for a missing transcript
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{path}: not a regular file")
    store = bank.memory
    key = f"transcript:{os.path.abspath(path)}"
    state = json.loads(store.get_meta(key) or "{}")
    start = int(state.get("offset", 0))
    if start > st.st_size or (start and state.get("head") != _head(path, start)):
        start = 0  # the file was rewritten (shorter, or longer with other content)
    res = reader(path, start, final=final)
    if session and not res.session_id:
        res.session_id = session
    res.session_id = res.session_id.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    warnings = list(res.warnings)
    import time

    t0 = time.perf_counter()
    conv, exps = _items(bank, res, agent)
    retained = bank.memory.retain_batch(conv, embed=False) if conv else []
    if exps:  # one by one: a convention said again in a later session merges into the first
        retained += bank.memory.retain_items(exps)
    n_new = sum(1 for r in retained if r.action == "created")
    n_edits = record_session_edits(bank, res.turns, res.session_id, agent, warnings.append) \
        if edits else 0
    from hindsight.sessions.attempts import record_turns

    n_records = record_turns(bank, res, agent, warnings.append)
    store.set_meta({key: json.dumps({"offset": res.offset, "session": res.session_id,
                                     "head": _head(path, res.offset)})})
    searchable = time.perf_counter() - t0
    new_ids = [r.id for r in retained[:len(conv)] if r.action == "created"]
    rows = bank.memory.get_many(new_ids)
    from hindsight.errors import ProviderError

    try:
        bank.memory.embed_missing([(i, rows[i].text[:EMBED_CHARS]) for i in new_ids
                                   if i in rows])
    except ProviderError as e:  # searchable by text now; `hindsight reembed` adds vectors
        warnings.append(f"stored without vectors (the embedding model failed: {e})")
    ms = {"searchable": round(searchable * 1000), "embedded": round(
        (time.perf_counter() - t0) * 1000)}
    return {"path": path, "from": start, "to": res.offset, "turns": len(res.turns),
            "retained": n_new, "duplicates": len(retained) - n_new, "edits": n_edits,
            "records": n_records, "warnings": warnings[:20], "ms": ms, "last_from": start}
