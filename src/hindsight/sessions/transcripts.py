"""Readers of Claude Code session transcripts (JSONL): :func:`read_claude` turns the lines of
``~/.claude/projects/<project_dir_name(cwd)>/<id>.jsonl`` after a byte offset into
:class:`Turn` values. The line scanner and text helpers are shared with
:mod:`hindsight.sessions.codex`. Standard library only; nothing happens at import time."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from hindsight.config.jsontext import json_text

FENCE_TAG = "hindsight-memory"  # fence around injected memory: fenced text is never read back

TARGET_CAP = 200
ERROR_CAP = 300
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
_BAD = object()  # marker of a line that is not valid JSON
READ_CAP = 32 << 20  # bytes read from a transcript per call
Proto = tuple[str, str, str]  # (role, timestamp, uuid) of the turns a line will give


@dataclass(frozen=True)
class Turn:
    """One kept item: ``role`` "user" (a real human prompt), "assistant" (assistant text),
    "action" (one tool call, ``text`` = ``"<tool>: <target>"``) or "summary" (compaction).
    ``timestamp`` ISO-8601 and ``uuid`` from the line ("" if absent). Actions only: ``tool``,
    ``target`` (≤ 200 chars, paths relative to the session cwd), ``files`` edited/created (as
    absolute paths when the agent or cwd allows), ``error`` (≤ 300 chars; "" if the call did
    not fail or its result was not seen)."""

    role: str
    text: str
    timestamp: str = ""
    uuid: str = ""
    tool: str = ""
    target: str = ""
    error: str = ""
    files: tuple[str, ...] = ()
    # actions only, for execution records (never stored as such): the tool's input (edits)
    # and its result (``output`` capped by clip_output, ``is_error``, ``result``, ``done``)
    detail: Any = field(default=None, compare=False, hash=False, repr=False)

    def evolve(self, **changes: Any) -> Turn:
        """A copy with ``changes`` (a fast ``dataclasses.replace``)."""
        return Turn(**{**self.__dict__, **changes})


@dataclass
class ReadResult:
    """One read: ``offset`` = byte offset (0-based) where the next read starts; ``lines`` =
    complete lines consumed; ``warnings`` = ``"<path>:line N: invalid JSON"`` (N 1-based from
    the read's start offset); ``session_id``/``cwd``/``git_branch`` "" when no line had them."""

    turns: list[Turn]
    offset: int
    session_id: str = ""
    cwd: str = ""
    git_branch: str = ""
    warnings: list[str] = field(default_factory=list)
    lines: int = 0


def scan_jsonl(path: str, offset: int) -> tuple[list[tuple[int, int, Any]], int, list[str]]:
    """``(items, base, warnings)`` for the complete lines after byte ``offset`` (clamped to
    ``[0, size]`` → ``base``): ``items`` = ``(start, end, obj)`` byte spans in file order,
    ``obj`` a dict or None (blank, non-object, corrupt). A last line without newline, or a
    last line that is not valid JSON (it may be completed later), is not returned; corrupt
    lines before it get a warning. At most :data:`READ_CAP` bytes are read per call (the
    rest waits for the next read); one line longer than that is skipped with a warning.
    Raises FileNotFoundError/OSError if unreadable."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        base = max(0, min(int(offset), size))
        f.seek(base)
        data = f.read(READ_CAP)
        if len(data) == READ_CAP and b"\n" not in data:
            return _skip_long_line(f, path, base)
    raw_items: list[tuple[int, int, Any]] = []
    pos = 0
    while (nl := data.find(b"\n", pos)) >= 0:
        raw_items.append((base + pos, base + nl + 1, _parse(data[pos:nl], base + pos == 0)))
        pos = nl + 1
    if raw_items and raw_items[-1][2] is _BAD:
        raw_items.pop()
    warnings = [f"{path}:line {n}: invalid JSON"
                for n, item in enumerate(raw_items, 1) if item[2] is _BAD]
    return [(s, e, None if o is _BAD else o) for s, e, o in raw_items], base, warnings


def _skip_long_line(f: Any, path: str, base: int
                    ) -> tuple[list[tuple[int, int, Any]], int, list[str]]:
    """One line longer than :data:`READ_CAP` from ``base``: skipped once it is complete."""
    pos = base + READ_CAP
    while chunk := f.read(1 << 20):
        nl = chunk.find(b"\n")
        if nl >= 0:
            end = pos + nl + 1
            return [(base, end, None)], base, [
                f"{path}: a line of {end - base:,} bytes at byte {base:,} skipped (over "
                f"{READ_CAP:,})"]
        pos += len(chunk)
    return [], base, []


def lookbehind(path: str, base: int, window: int = 65_536) -> list[dict[str, Any]]:
    """The JSON objects of the complete lines in the ``window`` bytes before byte ``base``:
    what the previous read saw last, so that repeats are recognised across reads."""
    with open(path, "rb") as f:
        f.seek(start := max(0, base - window))
        lines = f.read(base - start).split(b"\n")[1 if start else 0:]
    return [o for o in (_parse(raw, False) for raw in lines) if isinstance(o, dict)]


def _parse(raw: bytes, first: bool) -> Any:
    text = json_text(raw, first=first, errors="replace")
    if not text.strip():
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return _BAD
    return obj if isinstance(obj, dict) else None


class TurnSink:
    """Turns with their line's byte offset. Calls stay *pending* until their result (may set
    ``error``) or :meth:`expire`; :meth:`finish` leaves the first pending call's line and all
    after it for the next read: a later result still reaches its action, no turn repeats."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.starts: list[int] = []
        self.pending: dict[str, int] = {}

    def add(self, turn: Turn, start: int, call_id: str = "") -> None:
        """Append ``turn`` of the line starting at byte ``start`` (pending if ``call_id``)."""
        if call_id:
            self.pending[call_id] = len(self.turns)
        self.turns.append(turn)
        self.starts.append(start)

    def resolve(self, call_id: str, error: str, detail: dict[str, Any] | None = None) -> None:
        """Close the call ``call_id``; a non-empty ``error`` is stored on its action, and
        ``detail`` (its result) merged into the action's."""
        idx = self.pending.pop(call_id, None)
        if idx is not None and (error or detail):
            turn = self.turns[idx]
            extra = {"detail": {**(turn.detail or {}), **detail}} if detail else {}
            self.turns[idx] = turn.evolve(**({"error": error} if error else {}), **extra)

    def expire(self) -> None:
        """Forget pending calls: their results will not come."""
        self.pending.clear()

    def finish(self, items: list[tuple[int, int, Any]], base: int,
               final: bool) -> tuple[list[Turn], int, int]:
        """Return ``(turns, next_offset, lines_consumed)``."""
        end = items[-1][1] if items else base
        if self.pending and not final:
            end = self.starts[min(self.pending.values())]
        keep = sum(1 for s in self.starts if s < end)
        return self.turns[:keep], end, sum(1 for _, e, _ in items if e <= end)


_DROP_TAGS = ("system-reminder", "command-name", "command-message", "command-args",
              "command-contents", "local-command-stdout", "local-command-stderr",
              "local-command-caveat", "user-prompt-submit-hook", "session-start-hook",
              FENCE_TAG)
_TAGS_RE = "|".join(re.escape(t) for t in _DROP_TAGS)
_DROP_BLOCK = re.compile(rf"<({_TAGS_RE})(?:\s[^>]*)?>.*?</\1\s*>", re.S)
_DROP_OPEN = re.compile(rf"<(?:{_TAGS_RE})(?:\s[^>]*)?>.*", re.S)
_INTERRUPTED = re.compile(r"\[Request interrupted by user[^\]]*\]")
_B64 = re.compile(r"data:[\w.+-]+/[\w.+-]+;base64,[A-Za-z0-9+/=]*"
                  r"|(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{256,}={0,2}")


def clean_text(text: str, max_text: int) -> str:
    """Replace base64 payloads (data URIs, runs of ≥ 256 base64 chars) by ``[binary]``,
    strip, and cap at ``max_text`` chars with ``… [truncated N chars]``."""
    long_word = len(text) >= 256 and max(map(len, text.split()), default=0) >= 256
    if long_word or "base64," in text:
        text = _B64.sub("[binary]", text)
    text = text.strip()
    if len(text) > max_text:
        text = f"{text[:max_text]}… [truncated {len(text) - max_text} chars]"
    return text


def clean_user_text(text: str) -> str:
    """Drop injected context from a user text: ``<system-reminder>``, the hindsight fence
    (``<hindsight-memory …>…</hindsight-memory>``, or an unclosed one up to the end), slash
    command and local command wrappers, hook output, ``[Request interrupted by user…]``."""
    if "<" in text:
        text = _DROP_OPEN.sub("", _DROP_BLOCK.sub("", text))
    return (_INTERRUPTED.sub("", text) if "[Request interrupted" in text else text).strip()


def one_line(text: str, cap: int = TARGET_CAP) -> str:
    """Collapse whitespace and cap at ``cap`` chars (ending with ``…`` when cut)."""
    text = " ".join(text[: cap * 4].split()) if len(text) > cap * 4 else " ".join(text.split())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def rel_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when it lies under it, else unchanged."""
    root = cwd.rstrip("/")
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


_CD_PREFIX = re.compile(r"^\s*cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*")
_ENV_PREFIX = re.compile(r"^\s*[A-Za-z_]\w*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+")
_READ_ONLY = frozenset({"grep", "egrep", "rg", "ag", "ack", "cat", "head", "tail", "less",
                        "more", "ls", "find", "echo", "printf", "wc", "diff", "tree"})
_GIT_READ_ONLY = frozenset({"log", "show", "diff", "grep", "status", "blame"})


def command_words(command: str) -> list[str]:
    """Words of a shell command after dropping leading ``cd DIR &&``/``cd DIR;`` and
    ``VAR=value`` prefixes (whitespace split, no shell parsing)."""
    while (stripped := _ENV_PREFIX.sub("", _CD_PREFIX.sub("", command))) != command:
        command = stripped
    return command.split()


_EXIT_CODE = re.compile(r"^(?:Exit code:?|Process exited with code) (-?\d+)", re.M)
_TRACEBACK = "Traceback (most recent call last)"
_EXC_LINE = re.compile(r"[ \t]*(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)"
                       r"\b(?::.*)?$")
_SIGNAL_LINE = re.compile(r"^[ \t]*(?:FAILED\b|(?:error|fatal)(?:\[\w+\])?:|npm ERR!|E {2,}\S)"
                          r".*$|^[^\n:]*:\d+(?::\d+)?: (?:fatal )?error:.*$", re.M)
_META_LINE = re.compile(r"^(?:Exit code|Wall time|Output|Chunk ID|Process exited with code|"
                        r"Original token count)\b")


def error_line(text: str, code: int | None = None) -> str:
    """The most telling line of a failed output, ≤ 300 chars: after a Python traceback its
    last exception line; else the first signal line (see :func:`shell_error`); else the
    first non-empty line that is not shell metadata; else ``exit code N`` or ``error``."""
    text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "")
    if _TRACEBACK in text:
        for line in reversed(text[text.index(_TRACEBACK):].splitlines()):
            if _EXC_LINE.match(line):
                return one_line(line, ERROR_CAP)
    m = _SIGNAL_LINE.search(text)
    if m:
        return one_line(m.group(0), ERROR_CAP)
    for line in text.splitlines():
        if line.strip() and not _META_LINE.match(line.strip()):
            return one_line(line, ERROR_CAP)
    return f"exit code {code}" if code else "error"


def shell_error(output: str, flagged: bool, command: str) -> str:
    """Error line of a shell call's ``output``, "" if the call did not fail.

    Deterministic order: an exit code stated in the output (``Exit code N``, ``Exit code:
    N``, ``Process exited with code N``) decides; else ``flagged`` (the agent marked the
    result as an error) means failure; else text signals — a Python traceback, or a line
    starting with ``FAILED``, ``error:``, ``error[E…]:``, ``fatal:``, ``npm ERR!``, pytest's
    ``E   …``, or a compiler-style ``file:line[:col]: error:`` — except after inspection
    commands that may quote errors (grep, rg, cat, head, tail, ls, find, echo, diff, git
    log/show/diff/grep/status/blame…). Only the first and last 20,000 chars are examined.
    """
    if len(output) > 40_000:
        output = output[:20_000] + "\n" + output[-20_000:]
    m = _EXIT_CODE.search(output)
    code = int(m.group(1)) if m else None
    words = command_words(command) or [""]
    head = words[0].rsplit("/", 1)[-1]
    quoting = (len(words) > 1 and words[1] in _GIT_READ_ONLY) if head == "git" else (
        head in _READ_ONLY)
    failed = code != 0 if code is not None else flagged or (not quoting and (
        _TRACEBACK in output or _SIGNAL_LINE.search(output) is not None))
    return error_line(output, code) if failed else ""


@dataclass
class ReadState:
    """What every transcript reader tracks while reading: the cap, the turns so far and the
    session's id, directory and branch."""

    max_text: int
    sink: TurnSink = field(default_factory=TurnSink)
    session_id: str = ""
    cwd: str = ""
    git_branch: str = ""


@dataclass
class _State(ReadState):
    seen_uuids: set[str] = field(default_factory=set)
    seen_blocks: set[tuple[str, str]] = field(default_factory=set)
    pending_msg: str = ""


def read_claude(path: str, offset: int = 0, *, max_text: int = 8000,
                final: bool = False) -> ReadResult:
    """Read the Claude Code transcript ``path`` from byte ``offset`` (0-based).

    Keeps real human prompts (not ``isMeta``, not tool-result-only lines, injected context
    removed by :func:`clean_user_text`), assistant ``text`` blocks (not the CLI's
    ``<synthetic>`` ones), one action per ``tool_use``, a summary turn per ``summary`` line or
    ``isCompactSummary`` user line. Drops thinking, tool results, ``isSidechain`` lines,
    repeats (same uuid, or message id + block, in this read or the 64 KiB before) and
    unknown types. Images → ``[image]``, documents and base64 → ``[binary]``; texts capped
    at ``max_text`` chars.
    Only complete lines are consumed (:func:`scan_jsonl`); a tool call whose result has not
    arrived (and that no later prompt or new assistant message closed) is left, with all
    after it, for the next read unless ``final``. Never raises on bad content; raises
    FileNotFoundError when ``path`` does not exist.
    """
    items, base, warnings = scan_jsonl(path, offset)
    st = _State(max_text)
    for obj in lookbehind(path, base) if base else ():
        _claude_line(obj, 0, st)  # only to remember what was seen
    st.sink = TurnSink()
    for start, _end, obj in items:
        if obj is not None:
            _claude_line(obj, start, st)
    turns, next_offset, lines = st.sink.finish(items, base, final)
    return ReadResult(turns, next_offset, st.session_id, st.cwd, st.git_branch, warnings, lines)


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _claude_line(obj: dict[str, Any], start: int, st: _State) -> None:
    st.session_id = st.session_id or _str(obj, "sessionId")
    st.cwd = st.cwd or _str(obj, "cwd")
    st.git_branch = _str(obj, "gitBranch") or st.git_branch
    uuid = _str(obj, "uuid")
    if obj.get("isSidechain") is True or (uuid and uuid in st.seen_uuids):
        return
    if uuid:
        st.seen_uuids.add(uuid)
    kind, stamp = obj.get("type"), _str(obj, "timestamp")
    msg = obj["message"] if isinstance(obj.get("message"), dict) else {}
    if kind == "summary":
        _add_text(st, ("summary", stamp, uuid), _str(obj, "summary"), start)
    elif kind == "user":
        _claude_user(obj, _blocks(msg.get("content")), (stamp, uuid), start, st)
    elif kind == "assistant" and msg.get("model") != "<synthetic>":
        _claude_assistant(msg, ("assistant", stamp, uuid), start, st)


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _claude_user(obj: dict[str, Any], blocks: list[Any], meta: tuple[str, str], start: int,
                 st: _State) -> None:
    if obj.get("isCompactSummary") is True:
        _add_text(st, ("summary", *meta), _blocks_text(blocks, False), start)
        return
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            _claude_result(block, st, obj.get("toolUseResult"), meta[0])
    if obj.get("isMeta") is True:
        return
    if _add_text(st, ("user", *meta), _blocks_text(blocks, clean=True), start):
        st.sink.expire()


def _add_text(st: _State, proto: Proto, text: str, start: int) -> bool:
    text = clean_text(text, st.max_text)
    if text:
        st.sink.add(Turn(proto[0], text, proto[1], proto[2]), start)
    return bool(text)


def block_text(content: Any) -> str:
    """The text of a str, or the joined ``text`` fields of a list of dict blocks."""
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return content if isinstance(content, str) else ""


def _blocks_text(blocks: list[Any], clean: bool) -> str:
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            part = clean_user_text(block["text"]) if clean else block["text"].strip()
            if part:
                parts.append(part)
        elif kind == "image":
            parts.append("[image]")
        elif kind == "document":
            parts.append("[binary]")
    return "\n\n".join(parts)


def _claude_result(block: dict[str, Any], st: _State, result: Any = None,
                   stamp: str = "") -> None:
    call_id = _str(block, "tool_use_id")
    if call_id not in st.sink.pending:
        return
    action = st.sink.turns[st.sink.pending[call_id]]
    output, flagged = block_text(block.get("content")), block.get("is_error") is True
    detail = {"output": clip_output(output), "is_error": flagged, "done": stamp,
              "result": result if isinstance(result, dict) else None}
    if action.tool == "Bash":
        st.sink.resolve(call_id, shell_error(output, flagged, action.target), detail)
    else:
        st.sink.resolve(call_id, error_line(output[:20_000]) if flagged else "",
                        detail if action.tool in EDIT_TOOLS else None)


def clip_output(text: str, head: int = 4000, tail: int = 16_000) -> str:
    """A tool's output kept for parsing (test summaries sit at its end): its first
    ``head`` and last ``tail`` characters."""
    return text if len(text) <= head + tail else f"{text[:head]}\n…\n{text[-tail:]}"


def _claude_assistant(msg: dict[str, Any], proto: Proto, start: int, st: _State) -> None:
    msg_id = _str(msg, "id")
    if st.sink.pending and msg_id != st.pending_msg:
        st.sink.expire()
    for block in _blocks(msg.get("content")):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            text = clean_text(block["text"], st.max_text)
            if text and _first_time(st, (msg_id, "t:" + text)):
                st.sink.add(Turn("assistant", text, proto[1], proto[2]), start)
        elif kind == "tool_use":
            call_id = _str(block, "id")
            if _first_time(st, (msg_id, "u:" + call_id) if call_id else ("", "")):
                turn = tool_action(_str(block, "name"), block.get("input"), st.cwd, proto)
                st.sink.add(turn, start, call_id)
                st.pending_msg = msg_id


def _first_time(st: _State, key: tuple[str, str]) -> bool:
    seen = key[0] != "" and key in st.seen_blocks
    st.seen_blocks.add(key)
    return not seen


TARGET_KEYS = ("command", "file_path", "notebook_path", "pattern", "path", "url", "query",
               "description", "prompt", "skill", "subagent_type", "name")
_PATH_KEYS = frozenset({"file_path", "notebook_path", "path"})


def tool_action(name: str, tool_input: Any, cwd: str, proto: Proto) -> Turn:
    """The action turn of a ``tool_use`` (``name``, ``tool_input``). Target: the first
    non-empty string among :data:`TARGET_KEYS` (``pattern`` + `` in <path>`` when a path is
    given), else the input as compact JSON; paths shown relative to ``cwd``. ``files``: the
    path edited by Edit, MultiEdit, Write, NotebookEdit, as given (absolute in Claude Code)."""
    inp = tool_input if isinstance(tool_input, dict) else {}
    target = ""
    for key in TARGET_KEYS:
        value = inp.get(key)
        if isinstance(value, str) and value.strip():
            target = rel_path(value, cwd) if key in _PATH_KEYS else value
            where = inp.get("path")
            if key == "pattern" and isinstance(where, str) and where:
                target += " in " + rel_path(where, cwd)
            break
    else:
        if inp:
            target = json.dumps(inp, sort_keys=True, ensure_ascii=False)[: TARGET_CAP * 4]
    target = one_line(clean_text(target, TARGET_CAP * 4))
    files: tuple[str, ...] = ()
    if name in EDIT_TOOLS:
        edited = inp.get("file_path") or inp.get("notebook_path")
        files = (edited,) if isinstance(edited, str) and edited else ()
    name = name or "tool"
    text = f"{name}: {target}" if target else name
    detail = {"input": inp} if name in EDIT_TOOLS or name == "Bash" else None
    return Turn("action", text, proto[1], proto[2], name, target, "", files, detail)
