"""Windsurf (Cascade) transcripts: where they are and :func:`read_windsurf`, which turns the
steps after a byte offset into the same :class:`~hindsight.sessions.transcripts.Turn` values
as the Claude Code reader (human prompts, assistant text, one action line per tool call; no
tool output, no thinking, no injected context).

Facts (``../shared/AGENT_FORMATS_MORE.md`` §4; docs.windsurf.com, Cascade hooks):

* The ``post_cascade_response_with_transcript`` hook (documented) writes the conversation
  as JSONL, one step a line, under ``~/.windsurf/transcripts/`` (``<trajectory_id>.jsonl``)
  and passes its path as ``tool_info.transcript_path``. Written again after every
  response; steps already read are recognised by their ``step_index`` (or ``id``).
* The step schema is **not documented where we could read it**. Third-party readers name
  the kinds ``user_input``, ``planner_response`` and tool or code steps (PromptHub,
  FR-AGENT-040); Antigravity, which descends from Windsurf, writes ``USER_INPUT`` and
  ``PLANNER_RESPONSE`` with ``content`` and ``tool_calls``. This reader takes both: a
  step's kind is its ``type`` (any case); its body is the object under that kind
  (``{"type": "user_input", "user_input": {"user_response": …}}``) or the step itself.
  *Uncertain*: check against a real transcript before relying on more than prompts and
  replies.

Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import os
from typing import Any

from hindsight.sessions.locations import by_mtime
from hindsight.sessions.transcripts import (
    ReadResult,
    ReadState,
    Turn,
    clean_text,
    clean_user_text,
    error_line,
    lookbehind,
    scan_jsonl,
    tool_action,
)

# step kinds and tools that write a file (Cascade's tool names as Antigravity spells them)
EDIT_KINDS = frozenset({"code_action", "write_to_file", "replace_file_content",
                        "multi_replace_file_content", "edit_file", "write_file"})
_USER_KEYS = ("user_response", "text", "content", "prompt")
_REPLY_KEYS = ("response", "text", "content", "modified_response")
_PATH_KEYS = ("path", "file_path", "absolute_path_uri", "absolute_path", "target_file",
              "TargetFile", "uri")
# argument names -> the keys the common action line reads
_ARG_KEYS = {"command_line": "command", "CommandLine": "command", "TargetFile": "file_path",
             "AbsolutePath": "path", "DirectoryPath": "path", "SearchPath": "path",
             "Query": "query", "Url": "url", "absolute_path_uri": "path",
             "directory_path_uri": "path", "target_file": "file_path"}
_DROPPED = frozenset({"output", "content", "new_content", "diff", "result", "stdout",
                      "stderr", "toolAction", "toolSummary", "instruction"})


def transcripts(transcripts_dir: str) -> list[str]:
    """Every ``*.jsonl`` directly in ``transcripts_dir``, oldest first ([] if none)."""
    try:
        names = os.listdir(transcripts_dir)
    except OSError:
        return []
    return by_mtime([os.path.join(transcripts_dir, n) for n in names if n.endswith(".jsonl")])


def _uri_path(value: str) -> str:
    return value[7:] if value.startswith("file://") else value


def _str(body: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _kind_body(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    raw = obj.get("type")
    kind = raw.lower() if isinstance(raw, str) else ""
    body = obj.get(kind) if kind else None
    if not isinstance(body, dict) and isinstance(raw, str):
        body = obj.get(raw)
    return kind, body if isinstance(body, dict) else obj


def windsurf_action(kind: str, args: Any, cwd: str, stamp: str = "") -> Turn:
    """The action turn of a tool call or tool step ``kind`` with arguments ``args``:
    ``<kind>: <target>`` as for Claude Code's tools (file URIs made paths, relative to
    ``cwd``; outputs and file contents never read); ``files`` = the written path for
    :data:`EDIT_KINDS`."""
    raw = args if isinstance(args, dict) else {}
    mapped = {_ARG_KEYS.get(k, k): (_uri_path(v) if isinstance(v, str) else v)
              for k, v in raw.items() if k not in _DROPPED}
    turn = tool_action(kind, mapped, cwd, ("action", stamp, ""))
    if kind.lower() in EDIT_KINDS:
        target = _str({k: _uri_path(v) if isinstance(v, str) else v for k, v in raw.items()},
                      _PATH_KEYS)
        if target:
            turn = turn.evolve(files=(target if os.path.isabs(target) or not cwd
                                      else os.path.join(cwd, target),))
    return turn


def read_windsurf(path: str, offset: int = 0, *, max_text: int = 8000,
                  final: bool = False, cwd: str = "") -> ReadResult:
    """Read the Windsurf transcript ``path`` from byte ``offset`` (0-based).

    ``user_input`` steps → "user" (injected context and hindsight's fence removed);
    ``planner_response`` → "assistant" (its reply text) and one "action" per entry of
    ``tool_calls``; any other step with a body → one "action" (:func:`windsurf_action`),
    failed when its ``status`` is an error; thinking, tool output and file contents are
    dropped. A ``step_index`` (or ``id``) seen before (this read, or the 64 KiB before
    ``offset``) is skipped. The session id is the file's name (the trajectory id). Only
    complete lines are consumed; corrupt lines are skipped with a warning. ``final`` is
    accepted for the common reader signature. Never raises on bad content; raises
    FileNotFoundError when ``path`` does not exist."""
    items, base, warnings = scan_jsonl(path, offset)
    st = ReadState(max_text, cwd=cwd)
    st.session_id = os.path.basename(path).removesuffix(".jsonl")
    seen = {_step_key(o) for o in (lookbehind(path, base) if base else ())} - {None}
    for start, _end, obj in items:
        if obj is None:
            continue
        key = _step_key(obj)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        _step(obj, start, st)
    turns, next_offset, lines = st.sink.finish(items, base, True)
    return ReadResult(turns, next_offset, st.session_id, cwd, "", warnings, lines)


def _step_key(obj: dict[str, Any]) -> Any:
    for key in ("step_index", "id"):
        value = obj.get(key)
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            return (key, value)
    return None


def _step(obj: dict[str, Any], start: int, st: ReadState) -> None:
    kind, body = _kind_body(obj)
    stamp = next((v for v in (obj.get("created_at"), obj.get("timestamp"))
                  if isinstance(v, str)), "")
    if kind == "user_input":
        text = clean_text(clean_user_text(_str(body, _USER_KEYS)), st.max_text)
        if text:
            st.sink.add(Turn("user", text, stamp), start)
        return
    if kind in ("planner_response", "modified_response"):
        text = clean_text(_str(body, _REPLY_KEYS), st.max_text)
        if text:
            st.sink.add(Turn("assistant", text, stamp), start)
        calls = body.get("tool_calls") or obj.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                st.sink.add(windsurf_action(call["name"], call.get("args"), st.cwd, stamp),
                            start)
        return
    if not kind or body is obj or kind in ("checkpoint", "system_message", "ephemeral_message",
                                           "conversation_history", "error_message"):
        return  # a step without a body of its own: metadata, not a tool call
    turn = windsurf_action(kind, body, st.cwd, stamp)
    status = str(obj.get("status", body.get("status", ""))).lower()
    if "error" in status or "fail" in status:
        detail = body.get("error") or body.get("output") or status
        turn = turn.evolve(error=error_line(str(detail)[-20_000:]) or "failed")
    st.sink.add(turn, start)
