"""Antigravity CLI (``agy``) transcripts: where they are and :func:`read_antigravity`, which
turns the steps after a byte offset into the same :class:`~hindsight.sessions.transcripts.Turn`
values as the Claude Code reader.

Facts (entireio/cli ``agent/antigravity/AGENT.md`` and its captured fixtures, agy
1.0.14/1.0.15 -- a third party's reading of the client, *not documented*):

* ``~/.gemini/antigravity-cli/brain/<conversationId>/.system_generated/logs/
  transcript_full.jsonl`` (the hook payload's ``transcriptPath``); written *after* the Stop
  hook, sometimes seconds later.
* One step a line: ``step_index``, ``source`` (``USER_EXPLICIT``/``MODEL``/``SYSTEM``),
  ``type`` (``USER_INPUT``, ``PLANNER_RESPONSE``, ``RUN_COMMAND``, ``CODE_ACTION``,
  ``LIST_DIRECTORY``, …), ``status`` (``DONE``, ``ERROR``, ``RUNNING``), ``created_at``,
  ``content``, ``thinking``, ``tool_calls[{name, args}]``. A user step's text is wrapped as
  ``<USER_REQUEST>…</USER_REQUEST>`` beside ``<ADDITIONAL_METADATA>`` and settings notes.
  Tool argument values may arrive JSON-encoded a second time (``"\\"a.txt\\""``).
* Steps after a planner response are the tool's results: dropped, but one with status
  ``ERROR`` marks the call before it as failed.
"""

from __future__ import annotations

import json
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
    error_line,
    lookbehind,
    scan_jsonl,
    tool_action,
)

EDIT_TOOLS = frozenset({"write_to_file", "replace_file_content", "multi_replace_file_content"})
_REQUEST = re.compile(r"<USER_REQUEST>(.*?)(?:</USER_REQUEST>|\Z)", re.S)
# agy's argument names -> the keys the common action line reads
_ARG_KEYS = {"CommandLine": "command", "TargetFile": "file_path", "AbsolutePath": "path",
             "DirectoryPath": "path", "SearchPath": "path", "Query": "query", "Url": "url"}


def brain_dir(antigravity_home: str) -> str:
    """``<antigravity_home>/brain`` (``antigravity_home``: ``~/.gemini/antigravity-cli``)."""
    return os.path.join(antigravity_home, "brain")


def transcripts(antigravity_home: str) -> list[str]:
    """Every ``brain/<id>/.system_generated/logs/transcript_full.jsonl``, oldest first."""
    brain = brain_dir(antigravity_home)
    try:
        names = os.listdir(brain)
    except OSError:
        return []
    return by_mtime([os.path.join(brain, n, ".system_generated", "logs",
                                  "transcript_full.jsonl") for n in names])


def mentions(path: str, root: str, limit: int = 4 << 20) -> bool:
    """Whether the transcript ``path`` names a path under ``root`` in a tool call (its
    ``Cwd``, ``TargetFile``, …) in its first ``limit`` bytes: agy records no working
    directory, so this is how an import tells a repository's conversations."""
    esc = json.dumps(os.path.abspath(root).rstrip("/") or "/")[1:-1]  # as written in JSON
    try:
        with open(path, "rb") as f:
            head = f.read(limit).decode("utf-8", "replace")
    except OSError:
        return False
    return any(esc + end in head for end in ("/", '\\"', '"'))


def _decode(value: Any) -> Any:
    """A value agy may have JSON-encoded twice (``"\\"x\\""``, ``"true"``) decoded once."""
    if isinstance(value, str) and value[:1] in ('"', "[", "{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def antigravity_action(call: dict[str, Any], cwd: str, stamp: str = "") -> Turn:
    """The action turn of a ``tool_calls`` entry: ``<name>: <target>`` as for Claude Code's
    tools (agy's ``CommandLine``/``TargetFile``/… read as command/file_path/…; arguments
    decoded once more when JSON-encoded); ``files`` = ``TargetFile`` of :data:`EDIT_TOOLS`."""
    given = call.get("name")
    name: str = given if isinstance(given, str) else ""
    raw = call.get("args")
    args = {k: _decode(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    mapped = {_ARG_KEYS.get(k, k): v for k, v in args.items()
              if k not in ("toolAction", "toolSummary")}
    turn = tool_action(name, mapped, cwd, ("action", stamp, ""))
    target = mapped.get("file_path")
    if name in EDIT_TOOLS and isinstance(target, str) and target:
        turn = turn.evolve(files=(target if os.path.isabs(target) or not cwd
                                  else os.path.join(cwd, target),))
    return turn


def read_antigravity(path: str, offset: int = 0, *, max_text: int = 8000,
                     final: bool = False, cwd: str = "") -> ReadResult:
    """Read the agy transcript ``path`` from byte ``offset`` (0-based).

    ``USER_INPUT`` steps → "user" (the ``<USER_REQUEST>`` text; injected context and
    hindsight's fence removed); ``PLANNER_RESPONSE`` → "assistant" (its ``content``) and one
    "action" per tool call (:func:`antigravity_action`); result steps only mark their call
    failed (status ``ERROR``); thinking, system steps and tool output are dropped. A
    ``step_index`` seen before (this read, or the 64 KiB before ``offset``) is skipped. The
    session id is the conversation folder's name. ``final`` is accepted for the common reader
    signature. Never raises on bad content; raises FileNotFoundError when ``path`` does not
    exist."""
    items, base, warnings = scan_jsonl(path, offset)
    st = ReadState(max_text, cwd=cwd)
    parts = os.path.abspath(path).split(os.sep)
    st.session_id = parts[-4] if len(parts) > 4 and parts[-3] == ".system_generated" else ""
    seen = {o["step_index"] for o in (lookbehind(path, base) if base else ())
            if isinstance(o.get("step_index"), int)}
    last_action = -1
    for start, _end, obj in items:
        if obj is None:
            continue
        step = obj.get("step_index")
        if isinstance(step, int):
            if step in seen:
                continue
            seen.add(step)
        last_action = _step(obj, start, st, last_action)
    turns, next_offset, lines = st.sink.finish(items, base, True)
    return ReadResult(turns, next_offset, st.session_id, cwd, "", warnings, lines)


def _step(obj: dict[str, Any], start: int, st: ReadState, last_action: int) -> int:
    kind, stamp = obj.get("type"), obj.get("created_at")
    stamp = stamp if isinstance(stamp, str) else ""
    raw = obj.get("content")
    content: str = raw if isinstance(raw, str) else ""
    if kind == "USER_INPUT" and obj.get("source") == "USER_EXPLICIT":
        found = _REQUEST.findall(content)
        text = "\n\n".join(q.strip() for q in found) if found else content
        text = clean_text(clean_user_text(text), st.max_text)
        if text:
            st.sink.add(Turn("user", text, stamp), start)
        return -1
    if kind == "PLANNER_RESPONSE":
        text = clean_text(content, st.max_text)
        if text:
            st.sink.add(Turn("assistant", text, stamp), start)
        for call in obj.get("tool_calls") or []:
            if isinstance(call, dict):
                st.sink.add(antigravity_action(call, st.cwd, stamp), start)
                last_action = len(st.sink.turns) - 1
        return last_action
    if obj.get("status") == "ERROR" and 0 <= last_action < len(st.sink.turns):
        turn = st.sink.turns[last_action]
        body = "\n".join(line for line in content[-20_000:].splitlines()
                         if not line.startswith(("Created At:", "Completed At:")))
        if not turn.error:
            st.sink.turns[last_action] = turn.evolve(error=error_line(body))
    return last_action
