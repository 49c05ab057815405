"""Claude Code transcript lines, written the way the CLI writes them
(docs/agent-formats.md §2): user/assistant lines with uuid/parentUuid chains,
tool_use blocks in assistant lines, tool_result blocks in the next user line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Transcript:
    def __init__(self, path: Path, session: str, cwd: str) -> None:
        self.path, self.session, self.cwd = path, session, cwd
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        self.n += 1
        uid = f"{self.session[:4]}-{self.n:04d}"
        line = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                "cwd": self.cwd, "sessionId": self.session, "version": "2.1.30",
                "gitBranch": "main", "type": kind, "message": message, "uuid": uid,
                "timestamp": f"2026-11-29T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
                **extra}
        self.parent = uid
        self.lines.append(line)
        return line

    def user(self, text: str | list[dict[str, Any]], **extra: Any) -> None:
        self._line("user", {"role": "user", "content": text}, **extra)

    def assistant(self, *blocks: dict[str, Any], **extra: Any) -> None:
        self._line("assistant", {"id": f"msg_{self.n}", "type": "message",
                                 "role": "assistant", "model": "claude-x",
                                 "content": list(blocks), "stop_reason": "tool_use",
                                 "usage": {"input_tokens": 1, "output_tokens": 1}},
                   requestId=f"req_{self.n}", **extra)

    def say(self, text: str) -> None:
        self.assistant({"type": "text", "text": text})

    def tool(self, name: str, inp: dict[str, Any], result: str, error: bool = False) -> None:
        tid = f"toolu_{self.n:04d}"
        self.assistant({"type": "tool_use", "id": tid, "name": name, "input": inp})
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": result}
        if error:
            block["is_error"] = True
        self.user([block], toolUseResult={"stdout": result})

    def raw(self, obj: dict[str, Any]) -> None:
        self.lines.append(obj)

    def write(self, extra: str = "") -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(json.dumps(x) + "\n" for x in self.lines) + extra,
                             encoding="utf-8")
        return self.path
