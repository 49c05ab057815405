"""opencode and Kilo sessions: the transcript hindsight keeps for them, :func:`read_opencode`
(its lines → the same :class:`~hindsight.sessions.transcripts.Turn` values as the Claude Code
reader) and the read of opencode's own database for ``hindsight import opencode``.

opencode keeps its sessions in SQLite, not in a file an agent hook names, so hindsight's
plugin (``hooks/plugins/opencode.js``) sends the finished messages of a session at each
``session.idle`` and :func:`append_messages` adds the ones not yet kept to
``$HINDSIGHT_HOME/transcripts/<opencode|kilo>/<sessionID>.jsonl``, one message a line.

Facts (``../shared/AGENT_FORMATS_MORE.md`` §3; ``packages/plugin/src/index.ts`` and the SDK's
message types of anomalyco/opencode): a message is ``{"info": {"id", "sessionID", "role",
"time": {"created", "completed"?}, …}, "parts": [{"type": "text", "text", "synthetic"?} |
{"type": "tool", "tool", "state": {"status", "input", "output", "error"}} | {"type":
"reasoning"} | …]}``. The database (opencode 1.2 and later: tables ``session`` with
``directory``, ``message`` and ``part`` with a JSON ``data`` column) is known from a third
party's reading (tuiboard #17, opencode 1.18): *not a documented format*.

Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Any

from hindsight.sessions.transcripts import (
    ReadResult,
    ReadState,
    Turn,
    clean_text,
    clean_user_text,
    error_line,
    scan_jsonl,
    tool_action,
)

EDIT_TOOLS = frozenset({"edit", "write", "patch", "multiedit"})


def _id(msg: Any) -> str:
    info = msg.get("info") if isinstance(msg, dict) else None
    value = info.get("id") if isinstance(info, dict) else None
    return value if isinstance(value, str) else ""


def append_messages(path: str, messages: list[Any]) -> int:
    """Append to the transcript ``path`` (created, with its folder, when missing) each of
    ``messages`` whose ``info.id`` is not in it yet, one compact JSON line each; entries
    that are not objects with an id are ignored. Returns the number appended. Raises
    OSError when the file cannot be written."""
    seen: set[str] = set()
    try:
        with open(path, "rb") as f:
            for raw in f:
                try:
                    seen.add(_id(json.loads(raw)))
                except (ValueError, RecursionError):
                    continue
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = []
    for msg in messages:
        mid = _id(msg)
        if mid and mid not in seen:
            seen.add(mid)
            lines.append(json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n")
    if lines:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write("".join(lines))
    return len(lines)


def _stamp(info: dict[str, Any]) -> str:
    created = (info.get("time") or {}).get("created") if isinstance(info.get("time"),
                                                                     dict) else None
    if isinstance(created, (int, float)) and not isinstance(created, bool):
        try:
            return datetime.fromtimestamp(created / 1000, UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return ""
    return ""


def read_opencode(path: str, offset: int = 0, *, max_text: int = 8000, final: bool = False,
                  cwd: str = "") -> ReadResult:
    """Read the opencode/Kilo transcript ``path`` (see the module doc) from byte ``offset``.

    User text parts → "user" (synthetic and ignored parts, and injected context, dropped);
    assistant text parts → "assistant"; each tool part → one "action" (``<tool>: <target>``
    from its input; ``files`` for :data:`EDIT_TOOLS`, failed when its state is ``error``);
    reasoning, tool output and other parts are dropped. Only complete lines are consumed;
    corrupt lines are skipped with a warning. The session id is the messages'
    ``sessionID`` (else the file's name). ``final`` is accepted for the common reader
    signature. Never raises on bad content; raises FileNotFoundError when ``path`` does not
    exist."""
    items, base, warnings = scan_jsonl(path, offset)
    st = ReadState(max_text, cwd=cwd)
    st.session_id = os.path.basename(path).removesuffix(".jsonl")
    for start, _end, obj in items:
        info = obj.get("info") if isinstance(obj, dict) else None
        parts = obj.get("parts") if isinstance(obj, dict) else None
        if not isinstance(info, dict) or not isinstance(parts, list):
            continue
        if isinstance(info.get("sessionID"), str) and info["sessionID"]:
            st.session_id = info["sessionID"]
        _message(info, [p for p in parts if isinstance(p, dict)], start, st)
    turns, next_offset, lines = st.sink.finish(items, base, True)
    return ReadResult(turns, next_offset, st.session_id, cwd, "", warnings, lines)


def _message(info: dict[str, Any], parts: list[dict[str, Any]], start: int,
             st: ReadState) -> None:
    role, stamp = info.get("role"), _stamp(info)
    texts = [p["text"] for p in parts if p.get("type") == "text" and isinstance(
        p.get("text"), str) and not p.get("synthetic") and not p.get("ignored")]
    if role == "user":
        text = clean_text(clean_user_text("\n".join(texts)), st.max_text)
        if text:
            st.sink.add(Turn("user", text, stamp), start)
        return
    if role != "assistant":
        return
    text = clean_text("\n".join(texts), st.max_text)
    if text:
        st.sink.add(Turn("assistant", text, stamp), start)
    for p in parts:
        if p.get("type") == "tool" and isinstance(p.get("tool"), str):
            st.sink.add(opencode_action(p, st.cwd, stamp), start)


def opencode_action(part: dict[str, Any], cwd: str, stamp: str = "") -> Turn:
    """The action turn of a tool part: ``<tool>: <target>`` from ``state.input``
    (``filePath`` read as the path; file contents and patches never shown), ``files`` for
    :data:`EDIT_TOOLS`, ``error`` from a state of status ``error``."""
    found = part.get("state")
    state: dict[str, Any] = found if isinstance(found, dict) else {}
    given = state.get("input")
    raw: dict[str, Any] = given if isinstance(given, dict) else {}
    inp = {("file_path" if k == "filePath" else k): v for k, v in raw.items()
           if k not in ("content", "oldString", "newString", "patchText", "edits")}
    name = str(part.get("tool"))
    turn = tool_action(name, inp, cwd, ("action", stamp, ""))
    path = raw.get("filePath")
    if name in EDIT_TOOLS and isinstance(path, str) and path:
        turn = turn.evolve(files=(path if os.path.isabs(path) or not cwd
                                  else os.path.join(cwd, path),))
    if state.get("status") == "error":
        turn = turn.evolve(error=error_line(str(state.get("error") or "failed")) or "failed")
    return turn


def db_sessions(db: str, roots: list[str]) -> list[tuple[str, list[dict[str, Any]]]]:
    """``[(session id, messages)]`` of opencode's database ``db`` (opened read-only) for
    the sessions whose ``directory`` is one of ``roots`` or below one, oldest first; each
    message ``{"info": data + id + sessionID, "parts": [part data…]}`` in creation order.
    Raises OSError when ``db`` is missing and ValueError when its tables are not the ones
    described in the module doc."""
    import sqlite3

    if not os.path.isfile(db):
        raise FileNotFoundError(2, "no opencode database", db)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute("SELECT id, directory FROM session ORDER BY time_created").fetchall()
        mine = [sid for sid, d in rows if isinstance(d, str) and any(
            os.path.abspath(d) == r or os.path.abspath(d).startswith(r + os.sep)
            for r in roots)]
        out = []
        for sid in mine:
            msgs = con.execute("SELECT id, data FROM message WHERE session_id = ? ORDER BY "
                               "time_created, id", (sid,)).fetchall()
            parts: dict[str, list[Any]] = {}
            for mid, data in con.execute("SELECT message_id, data FROM part WHERE "
                                         "session_id = ? ORDER BY id", (sid,)):
                parts.setdefault(mid, []).append(_json(data))
            out.append((sid, [{"info": {**_json(data), "id": mid, "sessionID": sid},
                               "parts": [p for p in parts.get(mid, []) if p]}
                              for mid, data in msgs]))
        return out
    except sqlite3.Error as e:
        raise ValueError(f"{db}: not the opencode database this reader knows ({e})") from None
    finally:
        con.close()


def _json(data: Any) -> dict[str, Any]:
    try:
        obj = json.loads(data) if isinstance(data, (str, bytes)) else None
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}
