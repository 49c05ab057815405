"""Cline's task histories: where they are and :func:`read_cline`, which turns the messages
after a byte offset into the same :class:`~hindsight.sessions.transcripts.Turn` values as the
Claude Code reader (human prompts, assistant text, one action line per tool call; no tool
output, no thinking, no environment details, no injected context).

Facts (cline/cline ``src/core/storage/disk.ts``, ``src/core/prompts``; the Cline CLI's data
folder is a third-party report):

* ``<data>/tasks/<taskId>/api_conversation_history.json`` -- one JSON array of Anthropic
  messages (``{"role", "content": str | [blocks]}``), rewritten whole by
  ``JSON.stringify`` as the task goes on, so a longer file starts with the same bytes and a
  byte offset after a message stays valid. ``<data>`` is the CLI's ``~/.cline/data`` or the
  editor extension's global storage (:func:`hindsight.config.agents.cline_data_dirs`).
* User messages carry the prompt wrapped as ``<task>…</task>`` (``<feedback>``,
  ``<answer>``, ``<user_message>`` later), tool results as a text block
  ``[<tool> for '…'] Result:`` followed by the output's blocks (or ``tool_result``
  blocks), and an
  ``<environment_details>`` block whose ``# Current Working Directory (<path>)`` names
  the workspace. Assistant messages carry text with XML tool calls
  (``<write_to_file><path>…</path><content>…</content></write_to_file>``) and
  ``<thinking>``, or native ``tool_use`` blocks.

Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from hindsight.sessions.locations import by_mtime
from hindsight.sessions.transcripts import (
    READ_CAP,
    ReadResult,
    ReadState,
    Turn,
    clean_text,
    clean_user_text,
    error_line,
    tool_action,
)

HISTORY = "api_conversation_history.json"
EDIT_TOOLS = frozenset({"write_to_file", "replace_in_file", "apply_patch", "new_file",
                        "edit_file"})
# the tools whose parameter is what the assistant says to the user
_SAY = {"attempt_completion": "result", "ask_followup_question": "question",
        "plan_mode_respond": "response", "act_mode_respond": "response"}
_TOOLS = ("read_file", "write_to_file", "replace_in_file", "execute_command", "search_files",
          "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
          "access_mcp_resource", "load_mcp_documentation", "web_fetch", "new_task",
          "new_rule", "condense", "summarize_task", "report_bug", "apply_patch", *_SAY)
_TOOL_RE = re.compile(rf"<({'|'.join(_TOOLS)})>(.*?)(?:</\1>|\Z)", re.S)
_PARAM_RE = re.compile(r"<(\w+)>(.*?)</\1>", re.S)
_THINKING = re.compile(r"<thinking>.*?(?:</thinking>|\Z)", re.S)
_ENV = re.compile(r"<environment_details>.*?(?:</environment_details>|\Z)", re.S)
_CWD = re.compile(r"# Current Working Directory \((.+?)\)")
_WRAPPERS = re.compile(r"</?(?:task|feedback|answer|user_message)>")
_RESULT = re.compile(r"^\s*\[[^\]\n]+\] Result:")
_FEEDBACK = re.compile(r"<feedback>\s*(.*?)\s*</feedback>", re.S)
_ERROR = re.compile(r"<error>\s*(.*?)\s*(?:</error>|\Z)", re.S)
_BULKY = frozenset({"content", "diff", "arguments", "result", "question", "response"})
_KEYS = {"regex": "pattern", "file_pattern": "glob"}


def task_history(task: str, data_dirs: list[str]) -> str:
    """The history file of task ``task``: the first of ``<data>/tasks/<task>/`` (``data`` in
    ``data_dirs`` order) that has one, else the path in the first folder."""
    paths = [os.path.join(d, "tasks", task, HISTORY) for d in data_dirs]
    return next((p for p in paths if os.path.isfile(p)), paths[0] if paths else "")


def histories(data_dirs: list[str]) -> list[str]:
    """Every task history under the ``tasks/`` of ``data_dirs``, oldest first."""
    found = []
    for d in data_dirs:
        try:
            names = os.listdir(os.path.join(d, "tasks"))
        except OSError:
            continue
        found += [os.path.join(d, "tasks", n, HISTORY) for n in names]
    return by_mtime(found)


def task_cwd(path: str, limit: int = 1 << 20) -> str:
    """The workspace a task ran in: the first ``# Current Working Directory (<path>)`` of
    its history (first ``limit`` bytes), else ``""``. Raises FileNotFoundError when ``path``
    is missing."""
    with open(path, "rb") as f:
        head = f.read(limit).decode("utf-8", "replace")
    m = _CWD.search(head)
    if not m:
        return ""
    try:  # the path as written inside a JSON string
        return str(json.loads(f'"{m.group(1)}"'))
    except ValueError:
        return m.group(1)


def read_cline(path: str, offset: int = 0, *, max_text: int = 8000, final: bool = False,
               cwd: str = "") -> ReadResult:
    """Read the Cline task history ``path`` from byte ``offset`` (0-based; 0 or the end of
    a message read before: when the bytes there do not follow a message, the history was
    rewritten, as a checkpoint restore does, and it is read from the start -- the
    write-back's fingerprints keep what was stored from being stored twice).

    User text → "user" (unwrapped from ``<task>``/``<feedback>``/…; environment details,
    tool results and injected context removed); assistant text → "assistant" (thinking
    removed; ``attempt_completion``'s result, a follow-up question and a plan-mode reply
    count as text) and one "action" per tool call (XML or ``tool_use``; ``files`` for
    :data:`EDIT_TOOLS`); a tool result that reports ``<error>`` marks its action failed.
    A message that does not parse is skipped with a warning when the array is complete
    later on, or left for the next read when it is the unfinished end of the file. The
    session id is the task folder's name; ``cwd`` defaults to the history's working
    directory. ``final`` is accepted for the common reader signature. Never raises on bad
    content; raises FileNotFoundError when ``path`` does not exist."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        base = max(0, min(int(offset), size))
        f.seek(base)
        data = f.read(READ_CAP)
        if base and data.lstrip()[:1] not in (b",", b"]"):
            base = 0  # not the end of a message: the history was rewritten (a rewind)
            f.seek(0)
            data = f.read(READ_CAP)
    text = data.decode("utf-8", "replace")
    st = ReadState(max_text, cwd=cwd or (task_cwd(path) if base else ""))
    st.session_id = os.path.basename(os.path.dirname(os.path.abspath(path)))
    messages, consumed, warnings = _split(text, base == 0, path)
    for start, msg in messages:
        _message(msg, base + len(text[:start].encode("utf-8")), st)
    end = base + len(text[:consumed].encode("utf-8"))
    return ReadResult(st.sink.turns, end, st.session_id, st.cwd, "", warnings,
                      len(messages))


def _split(text: str, first: bool, path: str) -> tuple[list[tuple[int, Any]], int, list[str]]:
    """``([(char start, message)], chars consumed, warnings)`` of a JSON array's elements
    in ``text`` (the array's ``[`` when ``first``, else the ``,``/``]`` after an element)."""
    dec = json.JSONDecoder()
    pos = 0
    out: list[tuple[int, Any]] = []
    warnings: list[str] = []
    consumed = 0
    complete = text.rstrip().endswith("]")
    if first:
        pos = text.find("[")
        if pos < 0:
            return [], 0, []
        pos += 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return out, consumed, warnings
        try:
            obj, end = dec.raw_decode(text, pos)
        except (ValueError, RecursionError):
            nxt = text.find(',{"role"', pos + 1)
            if not complete or nxt < 0:
                return out, consumed, warnings  # the unfinished end: read it next time
            warnings.append(f"{path}: message at character {pos} is not valid JSON; skipped")
            pos = consumed = nxt
            continue
        if isinstance(obj, dict):
            out.append((pos, obj))
        pos = consumed = end


def _message(msg: dict[str, Any], start: int, st: ReadState) -> None:
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else \
        [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if msg.get("role") == "user":
        _user(blocks, start, st)
    elif msg.get("role") == "assistant":
        for b in blocks:
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                _assistant_text(b["text"], start, st)
            elif b.get("type") == "tool_use":
                st.sink.add(cline_action(str(b.get("name", "")), b.get("input"), st.cwd),
                            start)


def _user(blocks: list[dict[str, Any]], start: int, st: ReadState) -> None:
    """A user message: its prompt text; after a ``[…] Result:`` block, the blocks are the
    tool's output (dropped) except the user's ``<feedback>`` inside them."""
    texts, in_result = [], False
    for b in blocks:
        if b.get("type") == "tool_result":
            if b.get("is_error"):
                _fail_last(st, str(b.get("content", "")))
            continue
        text = b.get("text")
        if b.get("type") != "text" or not isinstance(text, str):
            continue
        if not st.cwd and (m := _CWD.search(text)):
            st.cwd = m.group(1)
        if _RESULT.match(text):
            in_result = True
        if in_result:
            if m := _ERROR.search(text):
                _fail_last(st, m.group(1))
            texts += _FEEDBACK.findall(text)
            continue
        texts.append(_WRAPPERS.sub("", _ENV.sub("", text)))
    text = clean_text(clean_user_text("\n".join(texts)), st.max_text)
    if text:
        st.sink.add(Turn("user", text), start)


def _fail_last(st: ReadState, detail: str) -> None:
    for i in range(len(st.sink.turns) - 1, -1, -1):
        turn = st.sink.turns[i]
        if turn.role == "action":
            if not turn.error:
                st.sink.turns[i] = turn.evolve(error=error_line(detail[-20_000:]) or "failed")
            return


def _assistant_text(text: str, start: int, st: ReadState) -> None:
    text = _THINKING.sub("", text)
    said: list[str] = []
    calls: list[Turn] = []
    for m in _TOOL_RE.finditer(text):
        params = {k: v.strip() for k, v in _PARAM_RE.findall(m.group(2))}
        if m.group(1) in _SAY:
            said.append(params.get(_SAY[m.group(1)], ""))
        else:
            calls.append(cline_action(m.group(1), params, st.cwd))
    rest = clean_text("\n".join([_TOOL_RE.sub("", text).strip(), *said]).strip(), st.max_text)
    if rest:
        st.sink.add(Turn("assistant", rest), start)
    for turn in calls:
        st.sink.add(turn, start)


def cline_action(name: str, params: Any, cwd: str) -> Turn:
    """The action turn of a Cline tool call: ``<tool>: <target>`` as for Claude Code's tools
    (file contents, diffs and tool arguments never shown), ``files`` = the written path for
    :data:`EDIT_TOOLS` (joined to ``cwd`` when relative)."""
    raw = params if isinstance(params, dict) else {}
    inp = {_KEYS.get(k, k): v for k, v in raw.items() if k not in _BULKY}
    if name == "use_mcp_tool":
        inp = {"query": f"{raw.get('server_name', '')}.{raw.get('tool_name', '')}"}
    turn = tool_action(name, inp, cwd, ("action", "", ""))
    path = raw.get("path")
    if name in EDIT_TOOLS and isinstance(path, str) and path:
        turn = turn.evolve(files=(path if os.path.isabs(path) or not cwd
                                  else os.path.join(cwd, path),))
    return turn
