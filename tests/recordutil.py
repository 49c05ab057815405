"""Shared by the execution record tests: a small shop repository with a stock module and
its tests, real pytest runs in it, and agent transcripts (Claude Code, Codex) written the
way those agents write them (docs/agent-formats.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ccfixture import Transcript
from histutil import Repo

BUGGY = "def deduct_stock(stock, n):\n    return stock - n + 1\n\n\n" \
        "def add_stock(stock, n):\n    return stock + n\n"
FIXED = BUGGY.replace("stock - n + 1", "stock - n")
TESTS = ("from shop.stock import add_stock, deduct_stock\n\n\n"
         "def test_deduct():\n    assert deduct_stock(3, 2) == 1\n\n\n"
         "def test_add():\n    assert add_stock(1, 2) == 3\n")
PYTEST = "python -m pytest -p no:cacheprovider -q tests/test_stock.py"


def shop(tmp: Path) -> Repo:
    """The repository with the bug committed."""
    r = Repo(tmp / "shop")
    r.write("shop/__init__.py", "")
    r.write("shop/stock.py", BUGGY)
    r.write("tests/test_stock.py", TESTS)
    r.commit("stock")
    return r


def pytest_run(root: Path) -> tuple[int, str]:
    """A real pytest run in ``root``: (exit code, output)."""
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                        "tests/test_stock.py"], cwd=root, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout + p.stderr


def claude_bash(t: Transcript, command: str, code: int, output: str) -> None:
    """A Bash call and its result as Claude Code writes them (a failed command's result
    starts with ``Exit code N`` and is flagged ``is_error``)."""
    tid = f"toolu_{t.n:04d}"
    t.assistant({"type": "tool_use", "id": tid, "name": "Bash",
                 "input": {"command": command, "description": "run the tests"}})
    content = f"Exit code {code}\n{output}" if code else output
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if code:
        block["is_error"] = True
    t.user([block], toolUseResult={"stdout": output, "stderr": "", "interrupted": False,
                                   "isImage": False} if not code else f"Error: {content}")


def claude_edit(t: Transcript, path: str, old: str, new: str, original: str) -> None:
    """An Edit call and its result, with the ``originalFile`` Claude Code records."""
    tid = f"toolu_{t.n:04d}"
    t.assistant({"type": "tool_use", "id": tid, "name": "Edit",
                 "input": {"file_path": path, "old_string": old, "new_string": new}})
    t.user([{"type": "tool_result", "tool_use_id": tid,
             "content": f"The file {path} has been updated."}],
           toolUseResult={"filePath": path, "oldString": old, "newString": new,
                          "originalFile": original, "structuredPatch": [],
                          "userModified": False, "replaceAll": False})


class Rollout:
    """A Codex rollout file: ``{"timestamp", "type", "payload"}`` lines."""

    def __init__(self, path: Path, session: str, cwd: str) -> None:
        self.path, self.n = path, 0
        self.lines: list[dict[str, Any]] = []
        self.add("session_meta", {"id": session, "cwd": cwd, "originator": "codex_cli_rs",
                                  "cli_version": "0.50.0", "git": {"branch": "main"}})

    def add(self, kind: str, payload: dict[str, Any]) -> None:
        self.n += 1
        self.lines.append({"timestamp": f"2026-11-29T10:00:{self.n:02d}.000Z", "type": kind,
                           "payload": payload})

    def user(self, text: str) -> None:
        self.add("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]})

    def shell(self, command: str, code: int, output: str, cwd: str) -> None:
        cid = f"call_{self.n}"
        self.add("response_item", {"type": "function_call", "name": "shell", "call_id": cid,
                                   "arguments": json.dumps({"command": ["bash", "-lc", command],
                                                            "workdir": cwd})})
        self.add("response_item", {"type": "function_call_output", "call_id": cid,
                                   "output": json.dumps({"output": output, "metadata": {
                                       "exit_code": code, "duration_seconds": 0.9}})})

    def patch(self, patch: str) -> None:
        cid = f"call_{self.n}"
        self.add("response_item", {"type": "custom_tool_call", "name": "apply_patch",
                                   "call_id": cid, "input": patch, "status": "completed"})
        self.add("response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                   "output": json.dumps({"output": "Success. Updated the "
                                                         "following files:\nM shop/stock.py\n",
                                                         "metadata": {"exit_code": 0}})})

    def write(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(json.dumps(x) + "\n" for x in self.lines))
        return self.path
