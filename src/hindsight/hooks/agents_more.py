"""Adapters of the agents added after the first six (see :mod:`hindsight.hooks.agents` for the
contract every adapter keeps): their payload → the one :class:`~hindsight.hooks.agents.Event`,
and the handlers' text → what the agent reads on stdout.

* **Windsurf** (Cascade hooks, docs.windsurf.com; payload fields as typed by
  CorridorSecurity/hookshot ``cascade/types.go``): ``agent_action_name``,
  ``trajectory_id`` (the conversation), ``execution_id``, ``timestamp``, ``tool_info``.
  ``post_write_code`` → ``edit`` (``tool_info.file_path``); ``post_cascade_response_with_
  transcript`` → ``stop`` (``tool_info.transcript_path``). The payload names no workspace:
  the hook runs in it (the hook's default working directory), and an edit's file says
  where it is. Cascade hooks have **no documented output that reaches the model**, so
  nothing is printed (exit 0, empty stdout); the briefing and recall come through the
  rules file ``install`` writes and the MCP tools.
* **Cline** (docs.cline.bot, Hooks and the hook reference; ``proto/cline/hooks.proto`` and
  ``src/core/hooks`` of cline/cline): one executable per event; camelCase ``clineVersion``,
  ``hookName``, ``timestamp``, ``taskId`` (the session), ``workspaceRoots``, ``userId`` and
  one object named after the event (``taskStart.taskMetadata``, ``userPromptSubmit.prompt``,
  ``postToolUse.{toolName, parameters, result, success}``). Output: ``{"cancel": false,
  "contextModification": …}`` (documented; ``contextModification`` is added to the
  conversation). A third party reports that the CLI passes it to the model only from the
  tool hooks, so there the briefing rests on the rules file and the MCP tools. No
  transcript path is given: write-back finds ``tasks/<taskId>/api_conversation_history.json``
  (:func:`hindsight.config.agents.cline_data_dirs`).
* **opencode** and **Kilo** (an opencode fork): no shell hooks; hindsight's plugin
  (``hooks/plugins/opencode.js``, written by ``install``) runs ``hook <event> --harness
  opencode|kilo`` with a payload of its own making: ``session_id``, ``cwd`` (the plugin's
  ``directory``), ``prompt`` (user-prompt-submit), ``file_path`` (edit) and ``messages``
  (stop: the session's finished messages, ``[{info, parts}]``, which the write-back keeps as
  the session's transcript, :mod:`hindsight.sessions.opencode`). Output: ``{"additional_
  context": …}`` for the briefing and recall (the plugin pushes it into the system prompt
  through ``experimental.chat.system.transform``), ``{}`` otherwise.
"""

from __future__ import annotations

import os
from typing import Any

from hindsight.hooks.agents import Adapter, Event, _dump, _str, _text


def _obj(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


class WindsurfAdapter(Adapter):
    """Windsurf's payloads (see the module doc); it prints nothing."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        info = _obj(data, "tool_info")
        ev = Event(name, self.name, _text(_str(data, "trajectory_id")),
                   _str(info, "transcript_path"), _str(info, "cwd") or os.getcwd())
        if name in ("session-start", "user-prompt-submit"):
            ev.skip = "Windsurf hooks cannot inject context (rules and MCP tools instead)"
        if name == "edit":
            path = _str(info, "file_path")
            path = path[7:] if path.startswith("file://") else path
            if path:
                path = path if os.path.isabs(path) else os.path.join(ev.cwd, path)
                ev.files = (path,)
                ev.cwd = os.path.dirname(path)  # the repository the edited file is in
        ev.agent = self
        return ev

    def render(self, ev: Event, text: str) -> str:
        return ""


CLINE_EDIT_TOOLS = ("write_to_file", "replace_in_file", "apply_patch", "new_file", "edit_file")


class ClineAdapter(Adapter):
    """Cline's payloads and outputs (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        roots = data.get("workspaceRoots")
        root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) \
            else ""
        ev = Event(name, self.name, _text(_str(data, "taskId")), "", root or os.getcwd())
        if name == "user-prompt-submit":
            ev.prompt = _text(_str(_obj(data, "userPromptSubmit"), "prompt"))
        if name == "session-start" and (data.get("hookName") == "TaskResume"
                                        or "taskResume" in data):
            ev.source = "resume"
        if name == "edit":
            use = _obj(data, "postToolUse")
            path = _str(_obj(use, "parameters"), "path", "file_path")
            if _str(use, "toolName") in CLINE_EDIT_TOOLS and path:
                ev.files = (path if os.path.isabs(path) else os.path.join(ev.cwd, path),)
        ev.agent = self
        return ev

    def render(self, ev: Event, text: str) -> str:
        if text and ev.name in ("session-start", "user-prompt-submit"):
            return _dump({"cancel": False, "contextModification": text})
        return _dump({"cancel": False})


class OpencodeAdapter(Adapter):
    """The payloads of hindsight's opencode/Kilo plugin (see the module doc)."""

    def event(self, name: str, data: dict[str, Any], harness: str = "") -> Event:
        ev = Adapter.event(self, name, data, self.name)
        if name == "edit":
            path = _str(data, "file_path")
            ev.files = (path if os.path.isabs(path) else os.path.join(ev.cwd, path),) \
                if path else ()
        messages = data.get("messages")
        if name in ("stop", "pre-compact", "session-end") and isinstance(messages, list):
            ev.data = messages
        return ev

    def render(self, ev: Event, text: str) -> str:
        if text and ev.name in ("session-start", "user-prompt-submit"):
            return _dump({"additional_context": text})
        return "{}\n"


WINDSURF = WindsurfAdapter("windsurf", "Windsurf")
# Cline saves the task's history as the turn goes; the hook may come first
CLINE = ClineAdapter("cline", "Cline", locates_transcript=True, transcript_wait_s=2.0)
# the write-back finds the transcript hindsight keeps for the session (Home.transcript_file)
OPENCODE = OpencodeAdapter("opencode", "opencode", locates_transcript=True)
KILO = OpencodeAdapter("kilo", "Kilo Code", locates_transcript=True)
MORE: dict[str, Adapter] = {a.name: a for a in (WINDSURF, CLINE, OPENCODE, KILO)}
