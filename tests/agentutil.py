"""Cursor, GitHub Copilot CLI, Gemini CLI and Antigravity CLI, as the hook tests see them:
transcript writers in each agent's format (docs/agent-formats.md §5-§8), payload fixtures from
``tests/fixtures/agents/<agent>/<event>.json`` (``@REPO@``/``@TRANSCRIPT@`` filled in), and
``hindsight hook <event> --harness <agent>`` as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "agents"


def agent_env(env: dict[str, str], home: Path) -> dict[str, str]:
    """``env`` with a private ``HOME`` (Cursor's ``~/.cursor``) and ``COPILOT_HOME``."""
    return {**env, "HOME": str(home), "COPILOT_HOME": str(home / ".copilot")}


def payload(agent: str, event: str, repo: Path, transcript: str | None = None,
            **changes: Any) -> dict[str, Any]:
    text = (FIXTURES / agent / f"{event}.json").read_text(encoding="utf-8")
    text = text.replace("@REPO@", str(repo))
    data: dict[str, Any] = json.loads(text)
    if transcript is not None:
        for obj in (data, data.get("tool_info") or {}):
            for key in ("transcript_path", "transcriptPath"):
                if key in obj:
                    obj[key] = transcript
    data.update(changes)
    return data


def run_hook(event: str, harness: str | None, data: Any, env: dict[str, str],
             cwd: Path) -> subprocess.CompletedProcess[str]:
    text = data if isinstance(data, str) else json.dumps(data)
    args = [sys.executable, "-m", "hindsight", "hook", event]
    if harness:
        args += ["--harness", harness]
    return subprocess.run(args, input=text, capture_output=True, text=True, env=env,
                          timeout=120, cwd=cwd)


def cursor_project(root: Path) -> str:
    """Cursor's folder name for a workspace root."""
    import re

    return re.sub(r"[^A-Za-z0-9]", "-", str(root).lstrip("/"))


class CursorTranscript:
    """Lines of Cursor's agent-transcripts JSONL (no ids; ``<user_query>`` wrappers)."""

    def __init__(self, home: Path, root: Path, conversation: str) -> None:
        self.path = (home / ".cursor" / "projects" / cursor_project(root) / "agent-transcripts"
                     / f"{conversation}.jsonl")
        self.lines: list[str] = []

    def user(self, text: str) -> None:
        self.lines.append(json.dumps({"role": "user", "message": {"content": [
            {"type": "text", "text": "<timestamp>Sunday, Nov 29, 2026, 10:00</timestamp>\n"
             f"<user_query>\n{text}\n</user_query>"}]}}))

    def say(self, text: str, *tools: tuple[str, dict[str, Any]]) -> None:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks += [{"type": "tool_use", "name": n, "input": i} for n, i in tools]
        self.lines.append(json.dumps({"role": "assistant", "message": {"content": blocks}}))

    def tool_output(self, text: str) -> None:
        self.lines.append(json.dumps({"role": "tool", "message": {"content": [
            {"type": "tool_result", "content": text}]}}))

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, tail: str = "") -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(x + "\n" for x in self.lines) + tail, encoding="utf-8")
        return self.path


class CopilotEvents:
    """Lines of Copilot CLI's ``session-state/<id>/events.jsonl`` (+ ``workspace.yaml``)."""

    def __init__(self, copilot_home: Path, session: str, cwd: Path) -> None:
        self.dir = copilot_home / "session-state" / session
        self.path = self.dir / "events.jsonl"
        self.session, self.cwd = session, str(cwd)
        self.lines: list[str] = []
        self.n = 0
        self.event("session.start", {"sessionId": session, "version": 1,
                                     "producer": "copilot-agent", "copilotVersion": "1.0.80",
                                     "startTime": "2026-11-29T11:00:00.000Z",
                                     "context": {"cwd": self.cwd, "branch": "main"}})

    def event(self, kind: str, data: dict[str, Any], event_id: str | None = None) -> str:
        self.n += 1
        eid = event_id or f"ev-{self.n:04d}"
        self.lines.append(json.dumps({"type": kind, "data": data, "id": eid,
                                      "timestamp": f"2026-11-29T11:00:{self.n:02d}.000Z",
                                      "parentId": None}))
        return eid

    def user(self, text: str) -> str:
        return self.event("user.message", {"content": text, "attachments": []})

    def say(self, text: str, *tools: tuple[str, dict[str, Any], str, bool]) -> None:
        reqs = [{"toolCallId": f"call_{self.n}_{i}", "name": n, "arguments": a,
                 "type": "function"} for i, (n, a, _, _) in enumerate(tools)]
        self.event("assistant.message", {"messageId": f"m{self.n}", "content": text,
                                         "toolRequests": reqs})
        for req, (_, _, out, ok) in zip(reqs, tools, strict=True):
            self.event("tool.execution_complete", {"toolCallId": req["toolCallId"],
                                                   "success": ok, "result": {"content": out}})

    def write(self, tail: str = "") -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "workspace.yaml").write_text(f"id: {self.session}\ncwd: {self.cwd}\n",
                                                 encoding="utf-8")
        self.path.write_text("".join(x + "\n" for x in self.lines) + tail, encoding="utf-8")
        return self.path


class GeminiChat:
    """Lines of a Gemini CLI chat recording (``~/.gemini/tmp/<slug>/chats/session-….jsonl``,
    the project folder marked by ``.project_root``)."""

    def __init__(self, gemini_home: Path, root: Path, session: str, slug: str = "") -> None:
        folder = gemini_home / "tmp" / (slug or root.name)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".project_root").write_text(str(root), encoding="utf-8")
        self.path = folder / "chats" / f"session-2026-11-29T12-00-{session[:8]}.jsonl"
        self.lines = [json.dumps({"sessionId": session, "projectHash": "x" * 64,
                                  "startTime": "2026-11-29T12:00:00.000Z",
                                  "lastUpdated": "2026-11-29T12:00:00.000Z",
                                  "kind": "main"})]
        self.n = 0

    def record(self, kind: str, content: Any, record_id: str | None = None,
               **extra: Any) -> str:
        self.n += 1
        rid = record_id or f"m{self.n}"
        self.lines.append(json.dumps({"id": rid, "timestamp":
                                      f"2026-11-29T12:00:{self.n:02d}.000Z", "type": kind,
                                      "content": content, **extra}))
        return rid

    def user(self, text: str) -> str:
        return self.record("user", [{"text": text}])

    def say(self, text: str, *calls: tuple[str, dict[str, Any], str, str],
            record_id: str | None = None) -> str:
        tool_calls = [{"id": f"call-{self.n}-{i}", "name": n, "args": a,
                       "result": [{"functionResponse": {"response": {"output": r}}}],
                       "status": st, "timestamp": "2026-11-29T12:00:00.000Z"}
                      for i, (n, a, r, st) in enumerate(calls)]
        extra = {"toolCalls": tool_calls} if tool_calls else {}
        return self.record("gemini", text, record_id, thoughts=[
            {"subject": "plan", "description": "THINKING-TEXT"}], model="gemini-3", **extra)

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, tail: str = "") -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(x + "\n" for x in self.lines) + tail, encoding="utf-8")
        return self.path


class AgyTranscript:
    """Steps of an Antigravity CLI transcript
    (``~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript_full.jsonl``);
    tool arguments JSON-encoded a second time, as agy writes them."""

    def __init__(self, home: Path, conversation: str) -> None:
        self.path = (home / ".gemini" / "antigravity-cli" / "brain" / conversation
                     / ".system_generated" / "logs" / "transcript_full.jsonl")
        self.lines: list[str] = []
        self.n = 0

    def step(self, kind: str, source: str = "MODEL", status: str = "DONE",
             **fields: Any) -> None:
        self.lines.append(json.dumps({"step_index": self.n, "source": source, "type": kind,
                                      "status": status,
                                      "created_at": f"2026-11-29T13:00:{self.n:02d}Z",
                                      **fields}))
        self.n += 1

    def user(self, text: str) -> None:
        self.step("USER_INPUT", "USER_EXPLICIT", content=f"<USER_REQUEST>\n{text}\n"
                  "</USER_REQUEST>\n<ADDITIONAL_METADATA>\nThe current local time is: "
                  "2026-11-29T13:00:00Z.\n</ADDITIONAL_METADATA>")

    def say(self, text: str, *calls: tuple[str, dict[str, Any]]) -> None:
        tool_calls = [{"name": n, "args": {k: json.dumps(v) for k, v in a.items()}}
                      for n, a in calls]
        fields: dict[str, Any] = {"thinking": "**Plan**\nTHINKING-TEXT"}
        if text:
            fields["content"] = text
        if tool_calls:
            fields["tool_calls"] = tool_calls
        self.step("PLANNER_RESPONSE", **fields)

    def result(self, kind: str, text: str, status: str = "DONE") -> None:
        self.step(kind, status=status, content="Created At: 2026-11-29T13:00:00Z\n"
                  f"Completed At: 2026-11-29T13:00:01Z\n{text}")

    def write(self, tail: str = "") -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(x + "\n" for x in self.lines) + tail, encoding="utf-8")
        return self.path


class WindsurfTranscript:
    """Steps of a Windsurf transcript (``~/.windsurf/transcripts/<trajectory_id>.jsonl``),
    each kind's body under its own key (the reader's assumed schema: sessions/windsurf.py)."""

    def __init__(self, home: Path, trajectory: str) -> None:
        self.path = home / ".windsurf" / "transcripts" / f"{trajectory}.jsonl"
        self.lines: list[str] = []
        self.n = 0

    def step(self, kind: str, status: str = "done", **body: Any) -> None:
        self.lines.append(json.dumps({"step_index": self.n, "type": kind, "status": status,
                                      "created_at": f"2026-11-29T14:00:{self.n:02d}Z",
                                      kind: body}))
        self.n += 1

    def user(self, text: str) -> None:
        self.step("user_input", user_response=text)

    def say(self, text: str) -> None:
        self.step("planner_response", response=text, thinking="THINKING-TEXT")

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, tail: str = "") -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(x + "\n" for x in self.lines) + tail, encoding="utf-8")
        return self.path


class ClineHistory:
    """A Cline task's ``api_conversation_history.json`` (one JSON array, written compact as
    ``JSON.stringify`` does) under ``<data>/tasks/<task>/``."""

    def __init__(self, data_dir: Path, task: str, cwd: Path) -> None:
        self.path = data_dir / "tasks" / task / "api_conversation_history.json"
        self.cwd = str(cwd)
        self.messages: list[Any] = []

    def env(self) -> str:
        return (f"<environment_details>\n# VSCode Visible Files\npay.py\n\n"
                f"# Current Working Directory ({self.cwd}) Files\npay.py\n"
                "</environment_details>")

    def task(self, text: str) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "text", "text": f"<task>\n{text}\n</task>"},
            {"type": "text", "text": self.env()}]})

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "text", "text": f"<feedback>\n{text}\n</feedback>"},
            {"type": "text", "text": self.env()}]})

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})

    def result(self, tool: str, text: str) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "text", "text": f"[{tool}] Result:"}, {"type": "text", "text": text},
            {"type": "text", "text": self.env()}]})

    def text(self) -> str:
        return json.dumps(self.messages, separators=(",", ":"), ensure_ascii=False)

    def write(self, text: str | None = None) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.text() if text is None else text, encoding="utf-8")
        return self.path
