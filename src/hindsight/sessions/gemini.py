"""Gemini CLI's chat recordings (JSONL): where they are and :func:`read_gemini`, which turns
the lines after a byte offset into the same :class:`~hindsight.sessions.transcripts.Turn`
values as the Claude Code reader.

Facts (``google-gemini/gemini-cli`` @``5411f11``, ``services/chatRecording*.ts``,
``config/projectRegistry.ts``, ``config/storage.ts`` -- read in the agent's source; the hook
payload's ``transcript_path`` is the documented pointer to the file):

* ``~/.gemini/tmp/<project id>/chats/session-<time>-<8 chars of the id>.jsonl``; sub-agents
  in ``chats/<parent id>/<id>.jsonl`` (not imported). ``<project id>`` is a short slug: the
  folder holds a ``.project_root`` file with the project's absolute path, and
  ``~/.gemini/projects.json`` maps paths to slugs (``{"projects": {path: slug}}``); older
  builds used ``sha256(path)`` in hex. Older builds wrote one ``session-*.json`` object
  (not read).
* Line 1 is metadata (``sessionId``, ``projectHash``, ``startTime``, ``kind``), then message
  records ``{id, timestamp, type: user|gemini|info|error|warning, content,
  displayContent?}`` (``content``: a string, a part ``{text}`` or a list of parts); ``gemini``
  records add ``toolCalls[{id, name, args, result, status, …}]``, ``thoughts``, ``tokens``.
  Control lines: ``{"$set": {…}}`` (metadata; ``$set.messages`` replaces every message) and
  ``{"$rewindTo": "<id>"}`` (that message and all after it are gone). A record appended
  again with the same ``id`` replaces the earlier one.
* Hook context the CLI adds to a prompt is wrapped in ``<hook_context>…</hook_context>``.

Incremental reads: a record with a tool call not yet finished (status other than
``success``, ``error``, ``cancelled``) is left, with all after it, for the next read unless
``final``; ids seen by an earlier read (the 64 KiB before the offset) are not read again, and
a rewind or ``$set.messages`` can only drop what this read holds (turns stored earlier stay).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any

from hindsight.sessions.locations import by_mtime
from hindsight.sessions.transcripts import (
    ReadResult,
    Turn,
    block_text,
    clean_text,
    clean_user_text,
    error_line,
    lookbehind,
    scan_jsonl,
    tool_action,
)

DONE = frozenset({"success", "error", "cancelled"})
EDIT_TOOLS = frozenset({"write_file", "replace", "edit"})
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?(?:</hook_context>|\Z)", re.S)


def project_dirs(root: str, gemini_home: str) -> list[str]:
    """The ``<gemini_home>/tmp/<project id>`` folders of the project at ``root``: the ones
    whose ``.project_root`` names it, the slug ``projects.json`` gives it, and the older
    ``sha256(root)`` folder (those that exist)."""
    tmp = os.path.join(gemini_home, "tmp")
    found = []
    try:
        names = sorted(os.listdir(tmp))
    except OSError:
        return []
    for name in names:
        try:
            with open(os.path.join(tmp, name, ".project_root"), encoding="utf-8") as f:
                if os.path.abspath(f.read().strip()) == os.path.abspath(root):
                    found.append(name)
        except OSError:
            continue
    try:
        with open(os.path.join(gemini_home, "projects.json"), encoding="utf-8") as f:
            slug = (json.load(f).get("projects") or {}).get(os.path.abspath(root))
        if isinstance(slug, str) and slug:
            found.append(slug)
    except (OSError, ValueError, AttributeError):
        pass
    found.append(hashlib.sha256(os.path.abspath(root).encode()).hexdigest())
    return [os.path.join(tmp, n) for n in dict.fromkeys(found)
            if os.path.isdir(os.path.join(tmp, n))]


def chats(root: str, gemini_home: str) -> list[str]:
    """The main-session recordings (``chats/session-*.jsonl``) of the project at ``root``,
    oldest first."""
    out = []
    for folder in project_dirs(root, gemini_home):
        d = os.path.join(folder, "chats")
        try:
            out += [os.path.join(d, n) for n in os.listdir(d)
                    if n.startswith("session-") and n.endswith(".jsonl")]
        except OSError:
            continue
    return by_mtime(out)


def read_gemini(path: str, offset: int = 0, *, max_text: int = 8000, final: bool = False,
                cwd: str = "") -> ReadResult:
    """Read the Gemini CLI recording ``path`` from byte ``offset`` (0-based).

    ``user`` records → "user" (``displayContent`` when present, else ``content``; hook
    context and hindsight's fence removed); ``gemini`` records → "assistant" (their text)
    and one "action" per tool call (``<name>: <target>``, paths relative to ``cwd``;
    ``files`` for :data:`EDIT_TOOLS`; ``error`` from a call with status ``error``); tool
    results, thoughts and info/error/warning records are dropped. Control lines, replaced
    ids, corrupt and truncated lines: see the module doc. Never raises on bad content;
    raises FileNotFoundError when ``path`` does not exist."""
    items, base, warnings = scan_jsonl(path, offset)
    session = ""
    prior: set[str] = set()
    for obj in lookbehind(path, base) if base else ():
        session = session or _s(obj, "sessionId")
        if _s(obj, "id") and "type" in obj:
            prior.add(obj["id"])
    records: dict[str, list[Any]] = {}  # id → [line start, record], in order
    for start, _end, obj in items:
        if obj is None:
            continue
        if "$rewindTo" in obj:
            _rewind(records, _s(obj, "$rewindTo"))
        elif isinstance(obj.get("$set"), dict):
            update = obj["$set"]
            session = session or _s(update, "sessionId")
            if isinstance(update.get("messages"), list):
                records = {m["id"]: [start, m] for m in update["messages"]
                           if isinstance(m, dict) and _s(m, "id") and m["id"] not in prior}
        elif _s(obj, "id") and "type" in obj:
            if obj["id"] in prior:
                continue
            if obj["id"] in records:
                records[obj["id"]][1] = obj
            else:
                records[obj["id"]] = [start, obj]
        else:
            session = session or _s(obj, "sessionId")
    end = items[-1][1] if items else base
    if not final:
        end = next((s for s, r in records.values() if _unfinished(r)), end)
    turns = [t for s, r in records.values() if s < end for t in _turns(r, cwd, max_text)]
    lines = sum(1 for _, e, _ in items if e <= end)
    return ReadResult(turns, end, session, cwd, "", warnings, lines)


def _s(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _rewind(records: dict[str, list[Any]], target: str) -> None:
    if target not in records:
        return  # rewound to a message of an earlier read: what was stored stays
    ids = list(records)
    for rid in ids[ids.index(target):]:
        del records[rid]


def _unfinished(record: dict[str, Any]) -> bool:
    calls = record.get("toolCalls")
    return record.get("type") == "gemini" and isinstance(calls, list) and any(
        isinstance(c, dict) and c.get("status") not in DONE for c in calls)


def _text(content: Any) -> str:
    if isinstance(content, dict):
        content = [content]
    return block_text(content)


def _turns(record: dict[str, Any], cwd: str, max_text: int) -> list[Turn]:
    kind, stamp = record.get("type"), _s(record, "timestamp")
    if kind == "user":
        shown = record.get("displayContent")
        raw = _text(shown if shown is not None else record.get("content"))
        text = clean_text(clean_user_text(_HOOK_CONTEXT.sub("", raw)), max_text)
        return [Turn("user", text, stamp)] if text else []
    if kind != "gemini":
        return []
    out = []
    text = clean_text(_text(record.get("content")), max_text)
    if text:
        out.append(Turn("assistant", text, stamp))
    for call in record.get("toolCalls") or []:
        if isinstance(call, dict):
            out.append(gemini_action(call, cwd, stamp))
    return out


def gemini_action(call: dict[str, Any], cwd: str, stamp: str = "") -> Turn:
    """The action turn of a tool call record: ``<name>: <target>`` as for Claude Code's
    tools; ``files`` = ``args.file_path`` of :data:`EDIT_TOOLS`; ``error`` when its status
    is ``error`` (the first line of its result)."""
    name = _s(call, "name")
    raw = call.get("args")
    args: dict[str, Any] = raw if isinstance(raw, dict) else {}
    turn = tool_action(name, args, cwd, ("action", stamp, ""))
    path = args.get("file_path") if isinstance(args.get("file_path"), str) else ""
    if name in EDIT_TOOLS and path:
        turn = turn.evolve(files=(path if os.path.isabs(path) or not cwd
                                  else os.path.join(cwd, path),))
    if call.get("status") == "error":
        turn = turn.evolve(error=error_line(_text(call.get("result"))[:20_000]))
    return turn
