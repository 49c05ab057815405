"""The optional OpenAI-compatible LLM and embedding endpoint, against a stub model server
on loopback: structured retain, cited reflect, and the deterministic fallback on garbage,
errors and timeouts."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hindsight.app import open_bank

REPLY: dict[str, Any] = {"content": "", "delay": 0.0, "status": 200}
SEEN: list[dict[str, Any]] = []


class Stub(BaseHTTPRequestHandler):
    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        SEEN.append({"path": self.path, "body": body})
        time.sleep(REPLY["delay"])
        if self.path.endswith("/embeddings"):
            data = {"data": [{"index": i, "embedding": [float(len(t)), 1.0, 0.5]}
                             for i, t in enumerate(body["input"])]}
        else:
            data = {"choices": [{"message": {"content": REPLY["content"]}}]}
        raw = json.dumps(data).encode()
        self.send_response(REPLY["status"])
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    base = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    monkeypatch.setenv("HINDSIGHT_LLM_URL", base)
    monkeypatch.setenv("HINDSIGHT_LLM_MODEL", "stub")
    monkeypatch.setenv("HINDSIGHT_LLM_TIMEOUT_S", "1")
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    REPLY.update(content="", delay=0.0, status=200)
    SEEN.clear()
    yield base
    srv.shutdown()


def test_llm_structures_a_retain(server: str, tmp_path: Path) -> None:
    REPLY["content"] = json.dumps({"kind": "lesson", "scene": "CI on 2 cores",
                                   "problem": "flaky timeout", "solution": "raised the limit",
                                   "outcome": "success", "tags": ["CI", "flaky"]})
    with open_bank(str(tmp_path)) as b:
        r = b.memory.retain("The CI timeout was flaky; raising it to 20 s fixed it. key sk-"
                     + "a" * 30)
        m = b.memory.get(r.id)
    assert r.structured == "llm"
    assert (m.kind, m.scene, m.problem, m.solution, m.outcome, m.tags) == (
        "lesson", "CI on 2 cores", "flaky timeout", "raised the limit", "success",
        ("ci", "flaky"))
    sent = SEEN[0]["body"]["messages"][1]["content"]
    assert "sk-" + "a" * 30 not in sent and "[REDACTED:api_key]" in sent  # redacted first


@pytest.mark.parametrize("content,delay,status,why", [
    ("not json at all", 0.0, 200, "llm output is not a JSON object"),
    (json.dumps({"kind": "poem", "outcome": ""}), 0.0, 200, "llm output failed validation"),
    ("{}", 2.0, 200, "llm error"),
    ("{}", 0.0, 500, "llm error"),
])
def test_llm_failures_fall_back_to_rules(server: str, tmp_path: Path, content: str,
                                         delay: float, status: int, why: str) -> None:
    REPLY.update(content=content, delay=delay, status=status)
    with open_bank(str(tmp_path)) as b:
        t0 = time.perf_counter()
        r = b.memory.retain("We decided to pin numpy below 3")
        assert time.perf_counter() - t0 < 5
        assert r.structured.startswith(f"rules ({why}")
        assert b.memory.get(r.id).kind == "decision"  # from the deterministic rules


def test_reflect_with_llm_cites_only_given_ids(server: str, tmp_path: Path) -> None:
    with open_bank(str(tmp_path)) as b:
        a = b.memory.retain("Decided: retries use exponential backoff", kind="decision").id
        REPLY["content"] = f"Retries back off exponentially [#{a}]."
        res = b.memory.reflect("how do retries work")
        assert (res["answer"], res["fallback"]) == (f"Retries back off exponentially [#{a}].", "")
        REPLY["content"] = "Made up [#999]."
        res = b.memory.reflect("how do retries work")
        assert (res["answer"], res["fallback"]) == (None, "llm cited notes it was not given")
        assert res["by_kind"]["decision"][0].startswith(f"[#{a} ")


def test_openai_compatible_embedder(server: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "openai")
    monkeypatch.setenv("HINDSIGHT_EMBED_URL", server)
    monkeypatch.setenv("HINDSIGHT_EMBED_MODEL", "stub-embed")
    monkeypatch.delenv("HINDSIGHT_LLM_URL")
    with open_bank(str(tmp_path)) as b:
        r = b.memory.retain("short", kind="fact")
        assert b.memory.embedder.model_id == "openai:stub-embed"
        row = b.stores.raw.execute("SELECT model, length(vector) FROM memories WHERE id=?",
                                   (r.id,)).fetchone()
        assert row == ("openai:stub-embed", 12)  # 3 float32
        assert [h.memory.id for h in b.memory.recall("short").hits] == [r.id]
