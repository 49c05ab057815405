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
"""

from __future__ import annotations

import os
from typing import Any

from hindsight.hooks.agents import Adapter, Event, _str, _text


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


WINDSURF = WindsurfAdapter("windsurf", "Windsurf")
MORE: dict[str, Adapter] = {a.name: a for a in (WINDSURF,)}
