"""Readers of Codex CLI rollout files (JSONL), pure functions over files.

A rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``; each line is
``{"timestamp", "type", "payload"}`` with ``type`` ∈ session_meta, turn_context,
response_item, event_msg, compacted (newer kinds are ignored). :func:`read_codex` maps the
items onto the same :class:`~hindsight.sessions.transcripts.Turn` values as the Claude Code
reader, with the same rules (see ``docs/agent-formats.md`` §4).

``event_msg`` vs ``response_item``: Codex records a user prompt and an assistant message
twice, as a ``response_item`` ``message`` and as an ``event_msg`` ``user_message`` /
``agent_message``, in either order. The ``response_item`` is preferred: an ``event_msg``
gives a turn only when no ``response_item`` message of the same role with the same text
(whitespace-normalised) is in the same read or in the 64 KiB before it — so rollouts that
only carry events still yield their prompts. An event stays pending (like an unanswered
call) until a ``response_item`` message, another message event, a turn_context or a
compacted line follows, so that a pair is never split across two reads. Standard library
only; nothing happens at import time.
"""

from __future__ import annotations

import glob
import json
import os
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from hindsight.sessions.locations import by_mtime, head_event
from hindsight.sessions.transcripts import (
    Proto,
    ReadResult,
    ReadState,
    Turn,
    TurnSink,
    block_text,
    clean_text,
    clean_user_text,
    error_line,
    lookbehind,
    one_line,
    rel_path,
    scan_jsonl,
    shell_error,
    tool_action,
)

_WRAPPERS = ("<environment_context", "<user_instructions", "# AGENTS.md instructions",
             "<INSTRUCTIONS>", "<user_shell_command", "<turn_aborted", "<permissions",
             "<skill")
_SHELL_TOOLS = frozenset({"shell", "container.exec", "local_shell", "shell_command",
                          "exec_command"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update File|Add File|Move to): (.+?)\s*$", re.M)


@dataclass
class _State(ReadState):
    items: set[tuple[str, str]] = field(default_factory=set)  # (role, text) of messages
    events: dict[int, tuple[str, str]] = field(default_factory=dict)  # turn index → key
    event_ids: list[str] = field(default_factory=list)  # pending ids of event turns


def read_codex(path: str, offset: int = 0, *, max_text: int = 8000,
               final: bool = False) -> ReadResult:
    """Read the Codex rollout ``path`` from byte ``offset`` (0-based).

    ``session_meta`` gives the session id, cwd and ``git.branch`` (``turn_context`` the cwd
    when no session_meta was read). ``response_item``: ``message`` role user → "user" (minus
    developer messages and environment/instruction wrappers such as
    ``<environment_context>``, ``<user_instructions>``, AGENTS.md instructions), role
    assistant → "assistant"; ``function_call``/``custom_tool_call``/``local_shell_call`` →
    "action" (``Shell: <command>`` — a ``bash -lc`` wrapper is unwrapped —, ``apply_patch:
    <files>``, else ``<name>: <target>``); their outputs only set the action's ``error``
    (exit code ≠ 0 in the output or its metadata, ``success: false``, or the error text
    signals of :func:`~hindsight.sessions.transcripts.shell_error` for shell and apply_patch);
    ``reasoning`` dropped. ``compacted`` → "summary". ``event_msg``: see the module doc.
    Offsets, truncated/corrupt lines, pending calls and ``final`` behave as in
    :func:`~hindsight.sessions.transcripts.read_claude` (a call stays pending until its
    output, the next user message, turn_context or compacted line). Never raises on bad
    content; raises FileNotFoundError when ``path`` does not exist.
    """
    items, base, warnings = scan_jsonl(path, offset)
    st = _State(max_text)
    for obj in lookbehind(path, base) if base else ():
        if isinstance(obj.get("payload"), dict):
            _line(obj, obj["payload"], 0, st)  # only to remember messages and metadata
    st.sink, st.events, st.event_ids = TurnSink(), {}, []
    for start, _end, obj in items:
        if obj is not None and isinstance(obj.get("payload"), dict):
            _line(obj, obj["payload"], start, st)
    turns, next_offset, lines = st.sink.finish(items, base, final)
    turns = [t for i, t in enumerate(turns) if st.events.get(i) not in st.items]
    return ReadResult(turns, next_offset, st.session_id, st.cwd, st.git_branch, warnings, lines)


def _s(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _line(obj: dict[str, Any], payload: dict[str, Any], start: int, st: _State) -> None:
    kind = obj.get("type")
    stamp = _s(obj, "timestamp")
    if kind == "session_meta":
        st.session_id = st.session_id or _s(payload, "id")
        st.cwd = _s(payload, "cwd") or st.cwd
        git = payload.get("git")
        st.git_branch = (_s(git, "branch") if isinstance(git, dict) else "") or st.git_branch
    elif kind == "turn_context":
        st.cwd = st.cwd or _s(payload, "cwd")
        st.sink.expire()
    elif kind == "compacted":
        st.sink.expire()
        _add(st, ("summary", stamp, ""), _s(payload, "message"), start)
    elif kind == "response_item":
        _response_item(payload, stamp, start, st)
    elif (kind == "event_msg" and payload.get("type") in ("user_message", "agent_message")
          and payload.get("kind") in (None, "plain")):
        _event(payload, stamp, start, st)


def _event(payload: dict[str, Any], stamp: str, start: int, st: _State) -> None:
    role = "user" if payload.get("type") == "user_message" else "assistant"
    if role == "user":
        st.sink.expire()
    _settle_events(st)
    text = _message(role, _s(payload, "message"))
    key, event_id = (role, _norm(text)), f"event@{start}"
    if key not in st.items and _add(st, (role, stamp, ""), text, start,
                                    event_id):
        st.events[len(st.sink.turns) - 1] = key
        st.event_ids.append(event_id)


def _settle_events(st: _State) -> None:
    for event_id in st.event_ids:
        st.sink.resolve(event_id, "")
    st.event_ids.clear()


def _add(st: _State, proto: Proto, text: str, start: int, call_id: str = "") -> bool:
    text = clean_text(text, st.max_text)
    if text:
        st.sink.add(Turn(proto[0], text, proto[1], proto[2]), start, call_id)
    return bool(text)


def _norm(text: str) -> str:
    """The key two copies of one message share: whitespace and the placeholders of
    attachments (only the ``response_item`` copy carries ``[image]``) do not count."""
    return " ".join(text.replace("[image]", " ").replace("[binary]", " ").split())


def _message(role: str, text: str) -> str:
    if role == "user":
        return "" if text.lstrip().startswith(_WRAPPERS) else clean_user_text(text)
    return text.strip()


def _response_item(payload: dict[str, Any], stamp: str, start: int, st: _State) -> None:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role == "user":
            st.sink.expire()
        if role not in ("user", "assistant"):
            return
        _settle_events(st)
        text = _content_text(role, payload.get("content"))
        if _add(st, (role, stamp, ""), text, start):
            st.items.add((role, _norm(text)))
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = _s(payload, "call_id") or _s(payload, "id")
        turn = codex_action(payload, st.cwd, ("action", stamp, ""))
        st.sink.add(turn, start, call_id)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        call_id = _s(payload, "call_id")
        if call_id in st.sink.pending:
            action = st.sink.turns[st.sink.pending[call_id]]
            detail = output_detail(payload.get("output"), stamp) \
                if action.tool in ("Shell", "apply_patch") else None
            st.sink.resolve(call_id, output_error(payload.get("output"), action), detail)


def _content_text(role: str, content: Any) -> str:
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    parts = []
    for item in content if isinstance(content, list) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in ("input_text", "output_text", "text") and isinstance(item.get("text"), str):
            part = _message(role, item["text"])
            if part:
                parts.append(part)
        elif kind == "input_image":
            parts.append("[image]")
    return "\n\n".join(parts)


def _arguments(payload: dict[str, Any]) -> Any:
    raw = payload.get("arguments")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return {}
    return raw


def _shell_text(command: Any) -> str:
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(w, str) for w in command):
        return ""
    if (len(command) == 3 and os.path.basename(command[0]) in _SHELLS
            and command[1].startswith("-") and command[1].endswith("c")):
        return command[2]
    return shlex.join(command)


def codex_action(payload: dict[str, Any], cwd: str, proto: Proto) -> Turn:
    """The action turn of a ``function_call``/``custom_tool_call``/``local_shell_call``
    payload: ``Shell: <command>``, ``apply_patch: <files relative to cwd>`` (``files`` from the
    patch's ``*** Update File:``/``*** Add File:``/``*** Move to:`` lines, joined to ``cwd``
    when relative and ``cwd`` is known), or ``<name>: <target>`` as for Claude Code tools."""
    name = _s(payload, "name")
    args = _arguments(payload)
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        name, args = "shell", action if isinstance(action, dict) else {}
    if payload.get("type") == "custom_tool_call":
        args = {"input": payload.get("input")}
    if name in _SHELL_TOOLS and isinstance(args, dict):
        command = _shell_text(args.get("command", args.get("cmd")))
        words = command.split(None, 1)
        if not (words and words[0] == "apply_patch" and "*** Begin Patch" in command):
            workdir = args.get("workdir")
            return _action(proto, "Shell", one_line(command), (), {
                "command": command, "workdir": workdir if isinstance(workdir, str) else ""})
        name, args = "apply_patch", {"input": words[1] if len(words) > 1 else ""}
    if name == "apply_patch":
        patch = args.get("input") or args.get("patch") if isinstance(args, dict) else args
        patch = patch if isinstance(patch, str) else ""
        files = _patch_files(patch, cwd)
        target = one_line(", ".join(rel_path(f, cwd) for f in files))
        return _action(proto, "apply_patch", target, files, {"patch": patch, "cwd": cwd})
    return tool_action(name, args, cwd, proto)


def _action(proto: Proto, tool: str, target: str, files: tuple[str, ...],
            detail: dict[str, Any] | None = None) -> Turn:
    text = f"{tool}: {target}" if target else tool
    return Turn("action", text, proto[1], proto[2], tool, target, "", files, detail)


def _patch_files(patch: str, cwd: str) -> tuple[str, ...]:
    found = (m.strip().strip("'\"") for m in _PATCH_FILE.findall(patch))
    return tuple(dict.fromkeys(
        posixpath.normpath(posixpath.join(cwd, f)) if cwd and not f.startswith("/") else f
        for f in found if f))


def output_error(output: Any, action: Turn) -> str:
    """Error line (≤ 300 chars) of a call output for ``action``, "" if it did not fail.

    ``output``: a string (possibly the JSON ``{"output": str, "metadata": {"exit_code":
    int}}``), a ``{"content", "success"}`` object, or a list of text items. An exit code in
    the metadata decides; else ``success: false`` or, for Shell and apply_patch, the rules
    of :func:`~hindsight.sessions.transcripts.shell_error`.
    """
    success = None
    if isinstance(output, dict):
        success = output.get("success")
        output = output.get("content", output.get("output"))
    text = block_text(output)
    code = None
    if text.startswith("{") and '"metadata"' in text[:200_000]:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            meta = parsed.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            text = block_text(parsed.get("output"))
    if isinstance(code, int) and not isinstance(code, bool):
        return error_line(text[:40_000], code) if code != 0 else ""
    if action.tool in ("Shell", "apply_patch"):
        return shell_error(text, success is False, action.target if action.tool == "Shell"
                           else "")
    return error_line(text[:20_000]) if success is False else ""


def output_detail(output: Any, stamp: str) -> dict[str, Any]:
    """What an execution record needs of a call output: ``output`` (the text, clipped),
    ``exit_code`` (the metadata's, else ``Exit code N`` / ``Process exited with code N`` in
    the text, else None), ``duration_ms`` (the metadata's ``duration_seconds``) and ``done``
    (the line's time)."""
    import re

    from hindsight.sessions.transcripts import clip_output

    success = output.get("success") if isinstance(output, dict) else None
    if isinstance(output, dict):
        output = output.get("content", output.get("output"))
    text, meta = block_text(output), None
    if text.startswith("{") and '"metadata"' in text[:200_000]:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            meta = parsed.get("metadata") if isinstance(parsed.get("metadata"), dict) else None
            text = block_text(parsed.get("output"))
    code = meta.get("exit_code") if meta else None
    if not isinstance(code, int) or isinstance(code, bool):
        m = re.search(r"^(?:Exit code:?|Process exited with code) (-?\d+)", text, re.M)
        code = int(m.group(1)) if m else (1 if success is False else None)
    secs = meta.get("duration_seconds") if meta else None
    return {"output": clip_output(text), "exit_code": code, "done": stamp,
            "duration_ms": round(secs * 1000) if isinstance(secs, int | float) else None}


def codex_rollouts(codex_home: str | None = None) -> list[str]:
    """Absolute paths of ``<codex_home>/sessions/**/rollout-*.jsonl`` (``codex_home`` default:
    ``$CODEX_HOME``, else ``~/.codex``), oldest first by modification time ([] if none)."""
    root = codex_home or os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
    pattern = os.path.join(glob.escape(os.path.abspath(root)), "sessions", "**",
                           "rollout-*.jsonl")
    return by_mtime(glob.glob(pattern, recursive=True))


def rollout_cwd(path: str) -> str:
    """The ``cwd`` of the first ``session_meta`` line of the rollout ``path`` ("" if none in
    its first 20 lines or unreadable content). Raises FileNotFoundError if missing."""
    obj = head_event(path, "session_meta")
    payload = obj.get("payload") if obj else None
    return _s(payload, "cwd") if isinstance(payload, dict) else ""
