"""One thin adapter per coding agent: its hook payload → the one :class:`Event` the handlers
(:mod:`hindsight.hooks.handlers`) work on, and the handlers' text → exactly what that agent's
hook contract accepts on stdout.

Our event names (``hindsight hook <event> --harness <agent>``): ``session-start`` (brief),
``user-prompt-submit`` (per-prompt recall), ``edit`` (edit trace), ``stop``, ``pre-compact``,
``session-end`` (transcript write-back). Which agent event runs which, and the sources, are in
``docs/agent-formats.md``; where a contract is undocumented it says so below.

* **Claude Code** (documented): ``session_id``, ``transcript_path``, ``cwd``, ``prompt``,
  ``source``, PostToolUse ``tool_name``/``tool_input``; context as ``{"hookSpecificOutput":
  {"hookEventName", "additionalContext"}}`` for SessionStart, UserPromptSubmit and
  PostToolUse (failed attempts on the file just edited), nothing otherwise. **Codex**
  shares this contract; its edit tool is ``apply_patch``, whose PostToolUse (Codex 0.124+,
  openai/codex PR #18391) carries the whole patch in ``tool_input.command``: the files are
  its ``*** Update File:``, ``*** Add File:`` and ``*** Move to:`` lines.
* **Cursor** (cursor.com/docs/hooks): snake_case, ``conversation_id`` (= ``session_id``),
  ``workspace_roots`` (no common ``cwd``), ``transcript_path`` (null in
  the CLI), ``prompt``, ``file_path``. stdout must be one JSON object or empty (plain text is
  dropped). ``sessionStart`` → ``{"additional_context": …}`` (documented).
  ``beforeSubmitPrompt`` → ``{"continue": true, "additional_context": …}``: only
  ``continue``/``user_message`` are documented; ``additional_context`` is accepted by the
  3.20.17 client (read in its validator by ponytail, 2026-09-14) -- *undocumented and
  version-dependent*, so it sits behind the setting ``cursorPromptContext`` (on), and the
  briefing and MCP tools work without it. Everything else prints ``{}``.
  Cursor also runs Claude Code's hooks (``~/.claude/settings.json`` …, "third-party skills"):
  a Claude Code hook started by Cursor (``CURSOR_VERSION`` set, or a Cursor payload) is
  handled as Cursor's, and Cursor sessions are deduplicated (:attr:`Adapter.dedupe`), so one
  session is briefed, injected and written back once.
* **GitHub Copilot CLI** (docs.github.com, CLI hooks reference): camelCase (``sessionId``,
  ``cwd``, ``prompt``, ``transformedPrompt``, ``transcriptPath``, ``toolName``, ``toolArgs``);
  the VS Code-compatible snake_case spelling is read too. ``sessionStart`` →
  ``{"additionalContext": …}`` (the hooks reference of 2026-07 documents it; earlier CLI
  versions ignored sessionStart output, *version-dependent*). ``userPromptTransformed`` →
  ``{"modifiedTransformedPrompt": <memories> + the prompt as transformed}`` (documented; it
  replaces the model-facing prompt, so it is only written when the payload carries
  ``transformedPrompt``, and the transcript reader strips our fence). Everything else ``{}``.
* **Gemini CLI** (``docs/hooks`` and ``hooks/types.ts`` of google-gemini/gemini-cli):
  Claude Code's field names (``session_id``, ``transcript_path``, ``cwd``, ``prompt``,
  ``source``; ``AfterTool`` ``tool_name``/``tool_input.file_path``). Context as
  ``{"hookSpecificOutput": {"hookEventName": "SessionStart"|"BeforeAgent",
  "additionalContext": …}}`` (documented); every other answer is ``{}``, since plain stdout
  would be shown to the user as a system message.
* **Antigravity CLI** (``agy``; entireio/cli captures of agy 1.0.14/1.0.15 and third-party
  hooks -- *no documentation read*): camelCase ``conversationId``, ``transcriptPath``,
  ``workspacePaths``; ``PreInvocation`` runs before every model call (``invocationNum``
  0-based) and carries no prompt, so it briefs once per conversation, at its first
  invocation, as ``{"injectSteps": [{"ephemeralMessage": …}]}`` (*third-party only*);
  ``Stop`` (``fullyIdle``) writes back once the agent is idle. No per-prompt recall: the
  briefing and the MCP tools.

Windsurf, Cline, opencode and Kilo: :mod:`hindsight.hooks.agents_more`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

CLAUDE_EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit",
                      "stop": "Stop", "pre-compact": "PreCompact", "session-end": "SessionEnd",
                      "subagent-stop": "SubagentStop", "edit": "PostToolUse"}
CLAUDE_EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")  # PostToolUse matcher
CODEX_PATCH_TOOL = "apply_patch"  # Codex's edit tool; "Edit"/"Write" match it as aliases
_PATCH_FILE = re.compile(r"^\*\*\* (Update File|Add File|Move to): *(\S.*?)\s*$", re.M)


def _text(v: str) -> str:
    """``v`` with lone surrogates (valid in JSON, not in UTF-8 or SQLite) replaced."""
    return v.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _str(data: dict[str, Any], *keys: str) -> str:
    """The first of ``keys`` whose value is a non-empty string, else ``""``."""
    for key in keys:
        v = data.get(key)
        if isinstance(v, str) and v:
            return v
    return ""


@dataclass
class Event:
    """One hook call, whatever the agent: ``name`` (our event name), ``harness`` (the agent
    whose contract applies), ``session``, ``transcript`` (path, "" when not given),
    ``cwd``, ``prompt``, ``source`` (SessionStart's startup/resume/…), ``files`` (paths an
    edit event names), ``extra`` (fields only the agent's output needs), ``skip`` (why no
    work is needed, "" otherwise), ``agent`` (its :class:`Adapter`), ``data`` (what the
    write-back job carries as is: the messages opencode's and Kilo's plugin send)."""

    name: str
    harness: str
    session: str = ""
    transcript: str = ""
    cwd: str = ""
    prompt: str = ""
    source: str = ""
    files: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    skip: str = ""  # why this call needs no work (the adapter saw it in the payload)
    agent: Adapter | None = field(default=None, repr=False)
    data: Any = field(default=None, repr=False)  # what the write-back gets as is (messages)

    @classmethod
    def from_payload(cls, name: str, harness: str, data: dict[str, Any]) -> Event:
        """The event of a Claude Code (or Codex) payload."""
        return CLAUDE.event(name, data, harness)


@dataclass(frozen=True)
class Adapter:
    """What differs between agents. ``name``: the harness name (settings layer
    ``harnesses.<name>``, diagnostics, the ``agent`` of stored memories). ``dedupe``: another
    integration may run the same event for the same session (claims in the spool, see
    :func:`hindsight.hooks.handlers.claim`). ``locates_transcript``: write-back may find the
    transcript from the session id when the payload has no path; ``transcript_wait_s``:
    seconds the write-back waits for a transcript the agent writes after the hook.
    ``prompt_setting``: a boolean setting that must be on for per-prompt recall."""

    name: str
    label: str
    dedupe: bool = False
    locates_transcript: bool = False
    transcript_wait_s: float = 0.0
    prompt_setting: str = ""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        """The :class:`Event` of ``data`` (any JSON object; wrong types read as absent)."""
        ev = Event(name, harness or self.name, _text(_str(data, "session_id")),
                   _str(data, "transcript_path"), _str(data, "cwd") or os.getcwd(),
                   _text(_str(data, "prompt")), _str(data, "source"))
        ev.agent = self
        if name == "edit" and self.name in ("claude-code", "codex"):  # PostToolUse
            inp = data.get("tool_input")
            path = (inp.get("file_path") or inp.get("notebook_path")) \
                if isinstance(inp, dict) else None
            tool = _str(data, "tool_name")
            if tool in CLAUDE_EDIT_TOOLS and isinstance(path, str) and path:
                ev.files = (path if os.path.isabs(path) else os.path.join(ev.cwd, path),)
            elif tool == CODEX_PATCH_TOOL and isinstance(inp, dict):
                ev.files = tuple(p if os.path.isabs(p) else os.path.join(ev.cwd, p)
                                 for p in patch_files(inp.get("command")))
        return ev

    def render(self, ev: Event, text: str) -> str:
        """What to print for ``ev`` given the handler's ``text`` ("" = nothing to say);
        PostToolUse (``edit``) takes ``additionalContext`` like the prompt."""
        if not text or ev.name not in ("session-start", "user-prompt-submit", "edit"):
            return ""
        return _dump({"hookSpecificOutput": {"hookEventName": CLAUDE_EVENT_NAMES[ev.name],
                                             "additionalContext": text}})


def patch_files(patch: object) -> list[str]:
    """The files a Codex ``apply_patch`` patch writes, in order, each once: the paths of its
    ``*** Update File:`` and ``*** Add File:`` lines, an updated file that a ``*** Move
    to:`` line renames under its new path (a deleted or moved-away file is not an edit to
    trace). ``patch``: the patch text, or an argv list whose last item is it
    (``["apply_patch", "*** Begin Patch…"]``); anything else gives ``[]``."""
    if isinstance(patch, list) and patch and isinstance(patch[-1], str):
        patch = patch[-1]
    if not isinstance(patch, str):
        return []
    out: list[str] = []
    for m in _PATCH_FILE.finditer(patch):
        if m.group(1) == "Move to" and out:
            out[-1] = m.group(2)
        else:
            out.append(m.group(2))
    return list(dict.fromkeys(out))


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


class CursorAdapter(Adapter):
    """Cursor's payloads and outputs (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        from hindsight.config.agents import cursor_project_dir

        roots = data.get("workspace_roots")
        root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) \
            else ""
        ev = Event(name, self.name, _text(_str(data, "conversation_id", "session_id")),
                   _str(data, "transcript_path"),
                   root or _str(data, "cwd") or cursor_project_dir() or os.getcwd(),
                   _text(_str(data, "prompt")), _str(data, "source"))
        if name == "edit":
            path = _str(data, "file_path")
            ev.files = (path,) if path else ()
        ev.agent = self
        return ev

    def render(self, ev: Event, text: str) -> str:
        if ev.name == "session-start" and text:
            return _dump({"additional_context": text})
        if ev.name == "user-prompt-submit":
            return _dump({"continue": True, "additional_context": text} if text
                         else {"continue": True})
        return "{}\n"


COPILOT_EDIT_TOOLS = ("create", "edit", "str_replace_editor", "write", "apply_patch")


class CopilotAdapter(Adapter):
    """GitHub Copilot CLI's payloads and outputs (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        ev = Event(name, self.name, _text(_str(data, "sessionId", "session_id")),
                   _str(data, "transcriptPath", "transcript_path"),
                   _str(data, "cwd") or os.getcwd(), "", _str(data, "source"))
        transformed = data.get("transformedPrompt", data.get("transformed_prompt"))
        if name == "user-prompt-submit" and isinstance(transformed, str):
            # without the transformed prompt our output would erase it: no recall then
            ev.prompt = _text(_str(data, "prompt") or transformed)
            ev.extra["transformed"] = transformed
        if name == "edit":
            ev.files = _copilot_files(data)
        ev.agent = self
        return ev

    def render(self, ev: Event, text: str) -> str:
        if ev.name == "session-start" and text:
            return _dump({"additionalContext": text})
        if ev.name == "user-prompt-submit" and text and "transformed" in ev.extra:
            return _dump({"modifiedTransformedPrompt": f"{text}\n\n{ev.extra['transformed']}"})
        return "{}\n"


def _copilot_files(data: dict[str, Any]) -> tuple[str, ...]:
    """The file a ``postToolUse`` of an edit tool names (``toolArgs.path``; ``toolArgs`` may
    be a JSON string), as an absolute path when ``cwd`` is given."""
    if _str(data, "toolName", "tool_name") not in COPILOT_EDIT_TOOLS:
        return ()
    args = data.get("toolArgs", data.get("tool_input"))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except (ValueError, RecursionError):
            return ()
    path = args.get("path") if isinstance(args, dict) else None
    if not isinstance(path, str) or not path:
        return ()
    cwd = _str(data, "cwd")
    return (path if os.path.isabs(path) or not cwd else os.path.join(cwd, path),)


GEMINI_EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "BeforeAgent"}
GEMINI_EDIT_TOOLS = ("write_file", "replace")


class GeminiAdapter(Adapter):
    """Gemini CLI's payloads and outputs (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        ev = Adapter.event(self, name, data, self.name)
        tool_input = data.get("tool_input")
        path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
        if name == "edit" and _str(data, "tool_name") in GEMINI_EDIT_TOOLS and \
                isinstance(path, str) and path:
            ev.files = (path if os.path.isabs(path) else os.path.join(ev.cwd, path),)
        return ev

    def render(self, ev: Event, text: str) -> str:
        if text and ev.name in GEMINI_EVENT_NAMES:
            return _dump({"hookSpecificOutput": {"hookEventName": GEMINI_EVENT_NAMES[ev.name],
                                                 "additionalContext": text}})
        return "{}\n"


class AntigravityAdapter(Adapter):
    """Antigravity CLI's payloads and outputs (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        roots = data.get("workspacePaths")
        root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) \
            else ""
        ev = Event(name, self.name, _text(_str(data, "conversationId")),
                   _str(data, "transcriptPath"), root or os.getcwd())
        n = data.get("invocationNum")
        if name == "session-start" and isinstance(n, int) and not isinstance(n, bool) and n:
            ev.skip = f"model invocation {n} of a turn: the briefing goes with the first"
        if name == "stop" and data.get("fullyIdle") is False:
            ev.skip = "not fully idle: background tasks still run"
        ev.agent = self
        return ev

    def render(self, ev: Event, text: str) -> str:
        if ev.name == "session-start" and text:
            return _dump({"injectSteps": [{"ephemeralMessage": text}]})
        return "{}\n"


CLAUDE = Adapter("claude-code", "Claude Code")
CODEX = Adapter("codex", "Codex")
CURSOR = CursorAdapter("cursor", "Cursor", dedupe=True, locates_transcript=True,
                       transcript_wait_s=5.0, prompt_setting="cursorPromptContext")
COPILOT = CopilotAdapter("copilot", "GitHub Copilot CLI", locates_transcript=True)
GEMINI = GeminiAdapter("gemini", "Gemini CLI")
# agy writes its transcript after the Stop hook, "sometimes seconds later" (entireio/cli)
ANTIGRAVITY = AntigravityAdapter("antigravity", "Antigravity CLI", dedupe=True,
                                 transcript_wait_s=15.0)
ADAPTERS: dict[str, Adapter] = {a.name: a for a in (CLAUDE, CODEX, CURSOR, COPILOT, GEMINI,
                                                    ANTIGRAVITY)}


def for_hook(harness: str, data: dict[str, Any]) -> Adapter:
    """The adapter for a hook run with ``--harness harness`` on payload ``data``: a Claude
    Code hook that Cursor started (``CURSOR_VERSION`` in the environment, or a payload with
    Cursor's ``cursor_version`` / ``conversation_id``) is handled as Cursor's. The agents of
    :mod:`hindsight.hooks.agents_more` are looked up there. Unknown names get Claude Code's
    (the hook command's default)."""
    from hindsight.config.agents import hook_host
    from hindsight.hooks.agents_more import MORE

    adapter = ADAPTERS.get(harness) or MORE.get(harness, CLAUDE)
    if adapter is CLAUDE and (hook_host() == "cursor" or isinstance(
            data.get("cursor_version"), str) or isinstance(data.get("conversation_id"), str)):
        return CURSOR
    return adapter
