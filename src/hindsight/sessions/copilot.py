"""GitHub Copilot CLI's session events (``events.jsonl``): where they are and
:func:`read_copilot`, which turns the lines after a byte offset into the same
:class:`~hindsight.sessions.transcripts.Turn` values as the Claude Code reader.

Facts (``../shared/AGENT_FORMATS_MORE.md`` §4; the Copilot SDK's generated session-event
types; third-party readers of ``~/.copilot/session-state/`` -- *not a documented file
format*, the hook payload's ``transcriptPath`` is the documented pointer to it):

* ``$COPILOT_HOME`` (default ``~/.copilot``) ``/session-state/<sessionId>/events.jsonl``, with
  ``workspace.yaml`` (``cwd:``) beside it; older builds wrote ``session-state/<id>.jsonl``.
* One event per line: ``{"type", "id", "parentId", "timestamp", "data"}``. ``session.start``
  (``data.sessionId``, ``data.context.cwd``/``branch``), ``user.message`` (``data.content``:
  what the user typed; a hook's ``modifiedTransformedPrompt`` may stand in the history, so
  hindsight's fence is stripped on read), ``assistant.message`` (``data.content``,
  ``data.toolRequests[{toolCallId, name, arguments}]``), ``tool.execution_complete``
  (``toolCallId``, ``success``, ``result``), ``assistant.reasoning``, ``abort``,
  ``session.snapshot_rewind`` (``data.upToEventId``) and many more (ignored).
* Rewind: ``session.snapshot_rewind`` is taken to remove the event ``upToEventId`` and every
  later one, as Gemini's ``$rewindTo`` does (the SDK names the fields, not their meaning:
  *uncertain*). Within one read the removed turns are dropped; turns stored by an earlier
  read stay stored.

Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from hindsight.sessions.locations import by_mtime, head_event
from hindsight.sessions.transcripts import (
    ReadResult,
    ReadState,
    Turn,
    block_text,
    clean_text,
    clean_user_text,
    error_line,
    lookbehind,
    scan_jsonl,
    shell_error,
    tool_action,
)

SHELL_TOOLS = frozenset({"bash", "powershell", "shell"})
# edit tools of the CLI (``create``: path + file_text, ``edit``: path + old_str/new_str; the
# older ``str_replace_editor`` with a ``command``) -- docs.github.com CLI hooks reference,
# "Tool names for hook matching"
EDIT_TOOLS = frozenset({"create", "edit", "str_replace_editor", "write", "apply_patch"})


def transcript_path(session: str, copilot_home: str) -> str:
    """``<copilot_home>/session-state/<session>/events.jsonl``, or the older
    ``session-state/<session>.jsonl`` when only that exists."""
    state = os.path.join(copilot_home, "session-state")
    new = os.path.join(state, session, "events.jsonl")
    old = os.path.join(state, f"{session}.jsonl")
    return old if not os.path.exists(new) and os.path.isfile(old) else new


def sessions(copilot_home: str) -> list[str]:
    """Every session file under ``<copilot_home>/session-state`` (both layouts), oldest
    first ([] if none)."""
    state = os.path.join(copilot_home, "session-state")
    try:
        names = sorted(os.listdir(state))
    except OSError:
        return []
    found = [os.path.join(state, n) for n in names if n.endswith(".jsonl")]
    found += [os.path.join(state, n, "events.jsonl") for n in names
              if os.path.isfile(os.path.join(state, n, "events.jsonl"))]
    return by_mtime(found)


def session_cwd(path: str) -> str:
    """The working directory of the session file ``path``: ``cwd:`` of the
    ``workspace.yaml`` beside it, else ``data.context.cwd`` of a ``session.start`` in its
    first 20 lines, else ``""``. Raises FileNotFoundError when ``path`` is missing."""
    yaml = os.path.join(os.path.dirname(path), "workspace.yaml")
    if os.path.basename(path) == "events.jsonl" and os.path.isfile(yaml):
        with open(yaml, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("cwd:"):
                    value = line[4:].strip().strip("'\"")
                    if value:
                        return value
    obj = head_event(path, "session.start")
    return _context(obj).get("cwd", "") if obj else ""


def _context(obj: dict[str, Any]) -> dict[str, str]:
    data = obj.get("data")
    ctx = data.get("context") if isinstance(data, dict) else None
    return {k: v for k, v in ctx.items() if isinstance(v, str)} if isinstance(ctx, dict) \
        else {}


@dataclass
class _State(ReadState):
    seen: set[str] = field(default_factory=set)  # event ids read (this read and before)
    at: dict[str, int] = field(default_factory=dict)  # event id → turns before it


def read_copilot(path: str, offset: int = 0, *, max_text: int = 8000,
                 final: bool = False) -> ReadResult:
    """Read the Copilot CLI session file ``path`` from byte ``offset`` (0-based).

    ``user.message`` → "user" (injected context and hindsight's fence removed);
    ``assistant.message`` → "assistant" (its ``content``) and one "action" per tool request
    (``<tool>: <target>``; ``files`` for :data:`EDIT_TOOLS`); ``tool.execution_complete``
    only sets its action's ``error`` (``success: false``; shell tools by
    :func:`~hindsight.sessions.transcripts.shell_error`); reasoning, tool output and events
    of sub-agents (``data.parentToolCallId``) are dropped; an event id seen before (in this
    read or the 64 KiB before it) is skipped; ``session.snapshot_rewind`` drops the turns
    from ``upToEventId`` on (see the module doc). A tool call whose result has not arrived is
    left, with all after it, for the next read unless ``final`` (as in
    :func:`~hindsight.sessions.transcripts.read_claude`). Never raises on bad content;
    raises FileNotFoundError when ``path`` does not exist."""
    items, base, warnings = scan_jsonl(path, offset)
    st = _State(max_text)
    for obj in lookbehind(path, base) if base else ():
        _line(obj, 0, st)  # only to remember ids and the session's metadata
    st.sink.turns, st.sink.starts, st.sink.pending, st.at = [], [], {}, {}
    for start, _end, obj in items:
        if obj is not None:
            _line(obj, start, st)
    if not st.session_id and os.path.basename(path) == "events.jsonl":
        st.session_id = os.path.basename(os.path.dirname(path))
    turns, next_offset, lines = st.sink.finish(items, base, final)
    return ReadResult(turns, next_offset, st.session_id, st.cwd, st.git_branch, warnings, lines)


def _s(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _line(obj: dict[str, Any], start: int, st: _State) -> None:
    kind, data = obj.get("type"), obj.get("data")
    data = data if isinstance(data, dict) else {}
    event_id, stamp = _s(obj, "id"), _s(obj, "timestamp")
    if event_id:
        if event_id in st.seen:
            return
        st.seen.add(event_id)
        st.at[event_id] = len(st.sink.turns)
    if data.get("parentToolCallId"):
        return  # a sub-agent's side chain
    if kind == "session.start":
        ctx = _context(obj)
        st.session_id = st.session_id or _s(data, "sessionId")
        st.cwd, st.git_branch = ctx.get("cwd") or st.cwd, ctx.get("branch") or st.git_branch
    elif kind == "user.message":
        st.sink.expire()
        _add(st, Turn("user", clean_user_text(block_text(data.get("content"))), stamp), start)
    elif kind == "assistant.message":
        _add(st, Turn("assistant", block_text(data.get("content")).strip(), stamp), start)
        for req in data.get("toolRequests") or []:
            if isinstance(req, dict):
                st.sink.add(copilot_action(req, st.cwd, stamp), start,
                            _s(req, "toolCallId"))
    elif kind == "tool.execution_complete":
        _result(data, st)
    elif kind == "abort":
        st.sink.expire()
    elif kind == "session.snapshot_rewind":
        _rewind(_s(data, "upToEventId"), st)


def _add(st: _State, turn: Turn, start: int) -> None:
    text = clean_text(turn.text, st.max_text)
    if text:
        st.sink.add(turn.evolve(text=text), start)


def _arguments(req: dict[str, Any]) -> dict[str, Any]:
    args = req.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            args = {}
    return args if isinstance(args, dict) else {}


def copilot_action(req: dict[str, Any], cwd: str, stamp: str = "") -> Turn:
    """The action turn of a tool request ``{name, arguments}``: ``<name>: <target>`` as for
    Claude Code's tools (paths relative to ``cwd``); ``files`` = ``arguments.path`` for
    :data:`EDIT_TOOLS`."""
    name, args = _s(req, "name"), _arguments(req)
    turn = tool_action(name, args, cwd, ("action", stamp, ""))
    path = args.get("path") if isinstance(args.get("path"), str) else ""
    if name in EDIT_TOOLS and path and args.get("command") not in ("view", "undo_edit"):
        turn = turn.evolve(files=(path if os.path.isabs(path) or not cwd
                                  else os.path.join(cwd, path),))
    return turn


def _result(data: dict[str, Any], st: _State) -> None:
    call_id = _s(data, "toolCallId")
    if call_id not in st.sink.pending:
        return
    action = st.sink.turns[st.sink.pending[call_id]]
    result, err = data.get("result"), data.get("error")
    text = block_text(result.get("content")) if isinstance(result, dict) else block_text(result)
    if isinstance(err, dict):
        text = _s(err, "message") or text
    elif isinstance(err, str):
        text = err or text
    failed = data.get("success") is False
    if action.tool in SHELL_TOOLS:
        st.sink.resolve(call_id, shell_error(text, failed, action.target))
    else:
        st.sink.resolve(call_id, error_line(text[:20_000]) if failed else "")


def _rewind(event_id: str, st: _State) -> None:
    keep = st.at.get(event_id)
    if keep is None:
        return  # rewound to an event of an earlier read: what was stored stays
    st.sink.turns, st.sink.starts = st.sink.turns[:keep], st.sink.starts[:keep]
    st.sink.pending = {c: i for c, i in st.sink.pending.items() if i < keep}
    st.at = {e: min(n, keep) for e, n in st.at.items()}
