"""Claude Code transcript lines for the reader tests, one JSON object per line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CWD = "/home/dev/proj"


def user_line(n: int, content: Any, **extra: Any) -> str:
    row = {"parentUuid": None, "isSidechain": False, "type": "user", "cwd": CWD,
           "sessionId": "s-1", "gitBranch": "main", "uuid": f"u-{n}",
           "timestamp": "2025-10-02T10:00:00.000Z",
           "message": {"role": "user", "content": content}, **extra}
    return json.dumps(row) + "\n"


def asst_line(n: int, msg_id: str, blocks: list[Any], **extra: Any) -> str:
    row = {"parentUuid": None, "isSidechain": False, "type": "assistant", "cwd": CWD,
           "sessionId": "s-1", "uuid": f"u-{n}", "timestamp": "2025-10-02T10:00:00.000Z",
           "message": {"id": msg_id, "role": "assistant", "model": "m", "content": blocks},
           **extra}
    return json.dumps(row) + "\n"


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines))
    return path
