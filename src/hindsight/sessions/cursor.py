"""Cursor's agent transcripts (JSONL): where they are and :func:`read_cursor`, which turns the
lines after a byte offset into the same :class:`~hindsight.sessions.transcripts.Turn` values
as the Claude Code reader, with the same rules (human prompts, assistant text, one action line
per tool call; no tool output, no thinking, no injected context).

Facts (``../shared/AGENT_FORMATS_MORE.md`` §1.5; source: entireio/cli ``cursor.go``, Cursor
CLI 2026.02.13 probed 2026-03-02, transcript re-verified 2026-08-24 -- a third party's reading
of the shipped client, *not a documented contract*):

* The CLI writes ``~/.cursor/projects/<name>/agent-transcripts/<conversation_id>.jsonl``,
  ``<name>`` = the workspace root without its leading ``/``, every character outside
  ``[A-Za-z0-9]`` made ``-`` (``/home/a/x.y`` → ``home-a-x-y``); the IDE variant nests it as
  ``<conversation_id>/<conversation_id>.jsonl``. Written asynchronously: it may appear a few
  seconds after the hook that names it.
* One object per line, no ids: ``{"role": "user", "message": {"content": [{"type": "text",
  "text": "<timestamp>…</timestamp><user_query>…</user_query>"}]}}``; assistant lines carry
  ``text`` and ``tool_use`` (``name``, ``input``; no id) blocks. Older builds wrote the content
  as a plain string. Tool results, when a line carries them (role ``tool`` or ``tool_result``
  blocks), are dropped.
* IDE chats without a transcript file live in Cursor's ``state.vscdb`` (SQLite, undocumented,
  locked while Cursor runs): not read.

Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import os
import re
from typing import Any

from hindsight.sessions.locations import by_mtime
from hindsight.sessions.transcripts import (
    ReadResult,
    ReadState,
    Turn,
    clean_text,
    clean_user_text,
    scan_jsonl,
    tool_action,
)

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")
_QUERY = re.compile(r"<user_query>(.*?)(?:</user_query>|\Z)", re.S)
_TIMESTAMP = re.compile(r"<timestamp>.*?</timestamp>", re.S)
# Cursor's edit tools (``Write``: path + contents, ``StrReplace``: path + old/new string; the
# others by name) and the keys that name the file
EDIT_TOOLS = frozenset({"Write", "StrReplace", "Edit", "MultiEdit", "Delete", "EditNotebook",
                        "ApplyPatch", "search_replace", "write", "edit_file"})
_FILE_KEYS = ("path", "file_path", "target_file", "target_notebook")


def project_name(root: str) -> str:
    """Cursor's folder name for the workspace ``root``: the leading ``/`` dropped, every
    character outside ``[A-Za-z0-9]`` made ``-``."""
    return _NON_ALNUM.sub("-", root.lstrip("/"))


def transcripts_dir(root: str, cursor_home: str) -> str:
    """``<cursor_home>/projects/<project_name(root)>/agent-transcripts``."""
    return os.path.join(cursor_home, "projects", project_name(root), "agent-transcripts")


def transcript_path(root: str, conversation: str, cursor_home: str) -> str:
    """The transcript of ``conversation`` in workspace ``root``: the CLI's flat
    ``<id>.jsonl``, or the IDE's nested ``<id>/<id>.jsonl`` when only that exists (the flat
    path when neither does yet)."""
    folder = transcripts_dir(root, cursor_home)
    flat = os.path.join(folder, f"{conversation}.jsonl")
    nested = os.path.join(folder, conversation, f"{conversation}.jsonl")
    return nested if not os.path.exists(flat) and os.path.isfile(nested) else flat


def workspace_of(path: str, roots: list[str]) -> str:
    """The one of ``roots`` whose Cursor folder holds the transcript ``path``, else ``""``."""
    parts = os.path.abspath(path).split(os.sep)
    folder = parts[parts.index("agent-transcripts") - 1] if "agent-transcripts" in parts[1:] \
        else ""
    return next((r for r in roots if folder and project_name(r) == folder), "")


def transcripts(root: str, cursor_home: str) -> list[str]:
    """Every transcript of workspace ``root`` (flat and nested), oldest first ([] if none)."""
    folder = transcripts_dir(root, cursor_home)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = [os.path.join(folder, n) for n in names if n.endswith(".jsonl")]
    found += [os.path.join(folder, n, f"{n}.jsonl") for n in names
              if os.path.isfile(os.path.join(folder, n, f"{n}.jsonl"))]
    return by_mtime(found)


def read_cursor(path: str, offset: int = 0, *, max_text: int = 8000,
                final: bool = False, cwd: str = "") -> ReadResult:
    """Read the Cursor transcript ``path`` from byte ``offset`` (0-based).

    User lines → "user" turns: the text inside ``<user_query>`` when present (else the text
    without ``<timestamp>`` blocks), injected context removed
    (:func:`~hindsight.sessions.transcripts.clean_user_text`, which drops hindsight's fence);
    lines holding only tool results give nothing. Assistant ``text`` blocks → "assistant";
    ``tool_use`` blocks → "action" (``files``: the path of an edit tool, see
    :data:`EDIT_TOOLS`); thinking and tool output are dropped. ``cwd``: the workspace root
    (the file records none), against which paths are shown and relative paths resolved. The
    session id is the file's name (``<conversation_id>.jsonl``). Only complete lines are consumed; corrupt lines are
    skipped with a warning (:func:`~hindsight.sessions.transcripts.scan_jsonl`). ``final`` is
    accepted for the common reader signature (Cursor's calls have no ids, so none waits for
    its result). Never raises on bad content; raises FileNotFoundError when ``path`` does
    not exist."""
    items, base, warnings = scan_jsonl(path, offset)
    st = ReadState(max_text, cwd=cwd)
    st.session_id = os.path.basename(path).removesuffix(".jsonl")
    for start, _end, obj in items:
        if obj is not None:
            _line(obj, start, st)
    turns, next_offset, lines = st.sink.finish(items, base, final)
    return ReadResult(turns, next_offset, st.session_id, cwd, "", warnings, lines)


def _blocks(obj: dict[str, Any]) -> list[Any]:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else obj.get("content",
                                                                       obj.get("text"))
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _line(obj: dict[str, Any], start: int, st: ReadState) -> None:
    role = obj.get("role") or obj.get("type")
    if role not in ("user", "assistant"):
        return  # tool results, system lines, unknown kinds
    for block in _blocks(obj):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            text = _user_text(block["text"]) if role == "user" else block["text"]
            text = clean_text(text, st.max_text)
            if text:
                st.sink.add(Turn(role, text), start)
        elif kind == "tool_use" and role == "assistant":
            st.sink.add(cursor_action(block.get("name"), block.get("input"), st.cwd), start)


def _user_text(text: str) -> str:
    queries = _QUERY.findall(text)
    if queries:
        text = "\n\n".join(q.strip() for q in queries)
    return clean_user_text(_TIMESTAMP.sub("", text))


def cursor_action(name: Any, tool_input: Any, cwd: str = "") -> Turn:
    """The action turn of a Cursor ``tool_use`` block: ``<name>: <target>`` as for Claude
    Code's tools (:func:`~hindsight.sessions.transcripts.tool_action`, paths shown relative
    to ``cwd``), with ``files`` = the edited path for :data:`EDIT_TOOLS` (joined to ``cwd``
    when relative)."""
    name = name if isinstance(name, str) else ""
    turn = tool_action(name, tool_input, cwd, ("action", "", ""))
    inp = tool_input if isinstance(tool_input, dict) else {}
    if name in EDIT_TOOLS:
        path = next((inp[k] for k in _FILE_KEYS if isinstance(inp.get(k), str) and inp[k]),
                    "")
        if path and cwd and not os.path.isabs(path):
            path = os.path.join(cwd, path)
        turn = turn.evolve(files=(path,) if path else ())
    return turn
