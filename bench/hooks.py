"""Hook latency (issue #5): wall time of each `hindsight hook <event>` as a subprocess,
process start included, on a warm bank with 10,000 memories and an indexed repository
(a clone of this repository) and 2,000 execution records (``--records``), plus the stop
hook's background work on a 2 MB transcript;
and every agent's hooks side by side (issue 16: Claude Code, Cursor, GitHub Copilot CLI,
Gemini CLI, Antigravity CLI, Windsurf, Cline and opencode take turns in one loop; Kilo runs
opencode's code path under another name), with their payloads (tests/fixtures/agents) and
transcripts in their own places.

Baseline: the bare interpreter start (`python -c pass`), the floor any Python hook pays;
the ratio says how much hindsight adds on top.

With ``--client`` the same hooks run in client mode (issue 11): the memories live on a
``hindsight serve --embedded-postgres`` on 127.0.0.1 (preloaded with synthetic vectors, as
bench/server_load.py does), the code index and records stay in the local bank; results in
``results/hooks_client.json`` (the agents' side-by-side loop is skipped).

    python bench/hooks.py [--memories 10000] [--runs 30] [--client]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from agentutil import (  # noqa: E402
    AgyTranscript,
    ClineHistory,
    CopilotEvents,
    CursorTranscript,
    GeminiChat,
    WindsurfTranscript,
    payload,
)
from ccfixture import Transcript  # noqa: E402
from common import machine, pct, summary_ms, write  # noqa: E402
from recall_scale import DEFAULT  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CODE_PROMPTS = ["why does the drain lock the spool directory", "fix the flaky retry in the "
                "parser worker", "add a timeout to the git hooks", "rename the recall channel "
                "weights", "the session briefing is too long, cap it", "where is redaction of "
                "aws keys done", "speed up the symbol index for large repositories",
                "make ingest resume after a crash", "update the config loader for harnesses",
                "the mcp server should return partial results"]
KINDS = ["convention", "decision", "lesson", "experience"]
CLIENT_BANK = "bench::hooks-client"


def base_texts(path: Path) -> list[str]:
    """The conversation turns of the LoCoMo dev file at ``path`` (text for 10,000 memories
    and for prompts), or 2,000 random 12-word texts when it cannot be read. (Kept here:
    recall_scale.py no longer has it since the lexical engine's merge.)"""
    try:
        data = json.loads(path.read_text())
        return [t["text"] for c in data for k, v in c["conversation"].items()
                if k.startswith("session_") and isinstance(v, list) for t in v]
    except (OSError, ValueError, KeyError, TypeError):
        words = ["parser", "index", "recall", "drain", "spool", "lock", "hook", "memory",
                 "symbol", "graph", "commit", "retry", "timeout", "config"]
        rnd = random.Random(1)
        return [" ".join(rnd.choice(words) for _ in range(12)) for _ in range(2000)]


def hook(event: str, payload: dict[str, Any], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "hindsight", "hook", event],
                       input=json.dumps(payload), capture_output=True, text=True, env=env,
                       timeout=120)
    return time.perf_counter() - t0, r.stdout


def build(work: Path, n: int, env: dict[str, str], records: int = 2000) -> Path:
    from hindsight.app import open_bank
    from hindsight.models import MemoryItem as Item

    repo = work / "hindsight-clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    texts = base_texts(DEFAULT)
    rnd = random.Random(5)
    os.environ.update(env)
    with open_bank(str(repo), harness="claude-code") as b:
        b.code.index()
        b.history.ingest(limit=300)
        items = [Item(**d) for d in memory_items(n, rnd, texts)]
        if items:
            b.memory.retain_batch(items, embed=False)
        b.stores.memory.set_meta({"seed_state": json.dumps({"state": "synced"})})
        add_records(b, records, rnd)
    return repo


def memory_items(n: int, rnd: random.Random, texts: list[str]) -> list[dict[str, Any]]:
    """``n`` memories (MemoryItem fields): every fifth a convention, decision, lesson or
    experience about this repository, the rest conversation turns."""
    items: list[dict[str, Any]] = []
    for i in range(n):
        if i % 5 == 0:
            words = " ".join(rnd.sample(CODE_PROMPTS, 2))
            items.append({"text": f"{rnd.choice(['Always', 'Never', 'We decided to'])} "
                                  f"{words} ({i})", "kind": KINDS[i % 4], "source": "import",
                          "outcome": "success" if KINDS[i % 4] == "experience" else ""})
        else:
            items.append({"text": f"{rnd.choice(texts)} {rnd.choice(texts)} ({i})",
                          "kind": "conversation", "source": "import"})
    return items


def serve_for_hooks(work: Path, env: dict[str, str], n: int
                    ) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Client mode (issue 11, item 6): ``hindsight serve --embedded-postgres`` on
    127.0.0.1 with its own home, bank ``CLIENT_BANK`` preloaded with ``n`` memories like
    the local bank's (synthetic 384-d vectors, written in process as
    bench/server_load.py does), and the hooks' environment pointed at it (``apiUrl``,
    ``apiToken``, ``bankId``). The server embeds queries with MiniLM."""
    import server_load as sl

    work.chmod(0o755)  # the embedded PostgreSQL runs as its own user
    shome = work / "server-home"
    senv = {**env, "HINDSIGHT_HOME": str(shome), "PYTHONPATH": str(ROOT / "src")}
    proc, port = sl.start(shome, senv, ["--embedded-postgres", str(work / "pg")])
    tok = json.loads(subprocess.run(
        [sys.executable, "-m", "hindsight", "token", "create", "--agent", "bench", "--role",
         "write", "--json"], env=senv, capture_output=True, text=True, check=True).stdout
    )["token"]
    dsn = json.loads((shome / "server.json").read_text())["database_url"]
    saved = dict(os.environ)
    sl.preload_direct(shome, dsn, 0, random.Random(0), CLIENT_BANK,
                      memory_items(n, random.Random(5), base_texts(DEFAULT)))
    os.environ.clear()
    os.environ.update(saved)
    return proc, {**env, "HINDSIGHT_API_URL": f"http://127.0.0.1:{port}",
                  "HINDSIGHT_API_TOKEN": tok, "HINDSIGHT_BANK_ID": CLIENT_BANK}


def add_records(b: Any, n: int, rnd: random.Random) -> None:
    """``n`` execution records over the last three days, in sessions of 50 (60 % failing,
    1-3 real test ids each, linked through the index), so that the prompt, edit and
    session-start hooks look for failed attempts in a bank that has them."""
    from hindsight.records.service import Draft

    files = b.code.store.load_files()
    tests = [s for p in files if p.startswith("tests/test_")
             for s in b.code.store.file_symbols(p) if s.name.startswith("test_")]
    t0 = time.time() - 3 * 86400
    for start in range(0, n, 50):
        drafts = []
        for k in range(start, min(n, start + 50)):
            picked = rnd.sample(tests, rnd.randint(1, 3))
            ids = [f"{s.path}::{s.local.replace('.', '::')}" for s in picked]
            fail = rnd.random() < 0.6
            out = ("".join(f"FAILED {i} - AssertionError: expected {k}\n" for i in ids) +
                   f"{len(ids)} failed, 3 passed in 0.5s\n") if fail else "7 passed in 0.4s\n"
            drafts.append(Draft(f"python -m pytest -q {picked[0].path}", "Bash", out,
                                1 if fail else 0, False, t0 + k * 3 * 86400 / n, 900,
                                f"bench-{start // 50}", "claude-code", str(b.root), "main",
                                (), "", f"r{k}", []))
        b.records.record_drafts(drafts)


def big_transcript(path: Path, cwd: str, target: int = 2 << 20) -> Path:
    t = Transcript(path, "big-session", cwd)
    texts = base_texts(DEFAULT)
    rnd = random.Random(9)
    i = 0
    while True:
        t.user(f"{rnd.choice(texts)} (prompt {i})")
        t.tool("Bash", {"command": f"pytest -q tests/test_{i % 40}.py"}, "x" * 1500)
        t.say(f"{rnd.choice(texts)} {rnd.choice(texts)}")
        i += 1
        if i % 50 == 0 and sum(len(json.dumps(x)) for x in t.lines) > target:
            break
    return t.write()


def wait_drain(diag: Path, transcript: str, timeout: float = 120) -> dict[str, Any] | None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if diag.exists():
            for line in diag.read_text().splitlines():
                d = json.loads(line)
                if d["event"] == "drain" and d.get("result", {}).get("path") == transcript:
                    return d
        time.sleep(0.05)
    return None


def measure(repo: Path, env: dict[str, str], runs: int, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        t.append(time.perf_counter() - t0)
    out["python_start"] = summary_ms(t)
    lat, sizes = [], []
    for i in range(runs):
        s, o = hook("session-start", {"session_id": f"b{i}", "cwd": str(repo),
                                      "source": "startup"}, env)
        lat.append(s)
        sizes.append(len(json.loads(o)["hookSpecificOutput"]["additionalContext"]) if o else 0)
    time.sleep(3)  # let the detached refreshes finish
    out["session-start"] = {**summary_ms(lat), "briefing_chars": max(sizes)}
    texts = base_texts(DEFAULT)
    prompts = CODE_PROMPTS + [texts[i * 7] for i in range(max(0, runs - len(CODE_PROMPTS)))]
    lat, injected = [], 0
    for i, p in enumerate(prompts[:runs]):
        s, o = hook("user-prompt-submit", {"session_id": f"p{i}", "cwd": str(repo),
                                           "prompt": p}, env)
        lat.append(s)
        injected += bool(o)
    out["user-prompt-submit"] = {**summary_ms(lat), "prompts_with_injection": injected}
    diag = Path(env["HINDSIGHT_DIAG_FILE"])
    for event in ("stop", "pre-compact", "session-end"):
        lat = []
        for i in range(max(5, runs // 3)):
            tr = Transcript(work / "t" / f"{event}-{i}.jsonl", f"{event}-{i}", str(repo))
            tr.user(f"small session {i} about the parser")
            tr.say("ok")
            path = tr.write()
            s, _ = hook(event, {"session_id": f"{event}-{i}", "transcript_path": str(path),
                                "cwd": str(repo)}, env)
            lat.append(s)
            wait_drain(diag, str(path))
        out[event] = summary_ms(lat)
    big = big_transcript(work / "t" / "big.jsonl", str(repo))
    t0 = time.perf_counter()
    s, _ = hook("stop", {"session_id": "big-session", "transcript_path": str(big),
                         "cwd": str(repo)}, env)
    d = wait_drain(diag, str(big))
    done = time.perf_counter() - t0
    out["stop_2mb"] = {"transcript_bytes": big.stat().st_size, "return_ms": round(s * 1000, 1),
                       "background_done_s": round(done, 2),
                       "memories_retained": d["result"]["retained"] if d else None,
                       "drain_searchable_s": d["result"]["ms"]["searchable"] / 1000 if d
                       else None,
                       "drain_embedded_s": d["result"]["ms"]["embedded"] / 1000 if d else None}
    return out


def agent_hook(event: str, harness: str, data: dict[str, Any], env: dict[str, str]
               ) -> tuple[float, str]:
    t0 = time.perf_counter()
    args = [] if harness == "claude-code" else ["--harness", harness]
    r = subprocess.run([sys.executable, "-m", "hindsight", "hook", event, *args],
                       input=json.dumps(data), capture_output=True, text=True, env=env,
                       timeout=120)
    return time.perf_counter() - t0, r.stdout


AGENT_TARGETS = {"session-start": 1000, "user-prompt-submit": 300, "stop": 500,
                 "edit": 300, "edit (other tool)": 300}
HARNESSES = ("claude-code", "cursor", "copilot", "gemini", "antigravity", "windsurf", "cline",
             "opencode")
SESSION_KEY = {"claude-code": "session_id", "cursor": "conversation_id",
               "copilot": "sessionId", "gemini": "session_id", "antigravity": "conversationId",
               "windsurf": "trajectory_id", "cline": "taskId", "opencode": "session_id"}
# which agents have which hook (Windsurf cannot inject; agy has no prompt or edit hook)
BRIEFS = ("claude-code", "cursor", "copilot", "gemini", "antigravity", "cline", "opencode")
PROMPTS = ("claude-code", "cursor", "copilot", "gemini", "cline", "opencode")
EDITS = ("cursor", "copilot", "gemini", "windsurf", "cline", "opencode")
FIXTURE = {"windsurf": {"session-start": "user-prompt-submit"}}


def _payload(harness: str, event: str, repo: Path, session: str, **extra: Any
             ) -> dict[str, Any]:
    if harness == "claude-code":
        return {"session_id": session, "cwd": str(repo), "source": "startup", **extra}
    name = FIXTURE.get(harness, {}).get(event, event)
    data = payload(harness, name, repo, **{SESSION_KEY[harness]: session})
    if harness == "cline" and "prompt" in extra:
        data["userPromptSubmit"]["prompt"] = extra.pop("prompt")
    return {**data, **extra}


def _edit(h: str, data: dict[str, Any], target: Path) -> None:
    """Point an edit payload of ``h`` at ``target``."""
    if h == "cursor":
        data["file_path"] = str(target)
    elif h == "copilot":
        data["toolArgs"] = {"path": str(target)}
    elif h == "windsurf":
        data["tool_info"] = {"file_path": str(target)}
    elif h == "cline":
        data["postToolUse"]["parameters"]["path"] = str(target)
    elif h == "opencode":
        data["file_path"] = str(target)
    else:
        data["tool_input"] = {"file_path": str(target)}


def _transcript(harness: str, repo: Path, env: dict[str, str], work: Path, session: str,
                i: int) -> tuple[str, dict[str, Any]]:
    """A small session of ``harness`` in its own format and place: ``(its path, what the
    stop payload adds)``."""
    home = Path(env["HOME"])
    text = f"small session {i} about the parser"
    if harness == "cursor":
        t = CursorTranscript(home, repo, session)
        t.user(text)
        t.say("ok")
        return str(t.write()), {}
    if harness == "copilot":
        c = CopilotEvents(Path(env["COPILOT_HOME"]), session, repo)
        c.user(text)
        c.say("ok")
        return str(c.write()), {"transcriptPath": str(c.path)}
    if harness == "gemini":
        g = GeminiChat(home / ".gemini", repo, session)
        g.user(text)
        g.say("ok")
        return str(g.write()), {"transcript_path": str(g.path)}
    if harness == "antigravity":
        a = AgyTranscript(home, session)
        a.user(text)
        a.say("ok")
        return str(a.write()), {"transcriptPath": str(a.path)}
    if harness == "windsurf":
        w = WindsurfTranscript(home, session)
        w.user(text)
        w.say("ok")
        return str(w.write()), {"tool_info": {"transcript_path": str(w.path)}}
    if harness == "cline":
        c2 = ClineHistory(home / ".cline" / "data", session, repo)
        c2.task(text)
        c2.say("ok")
        return str(c2.write()), {}
    if harness == "opencode":
        msgs = [{"info": {"id": f"m{i}a", "role": "user", "time": {"created": 1}},
                 "parts": [{"type": "text", "text": text}]},
                {"info": {"id": f"m{i}b", "role": "assistant", "time": {"created": 2,
                                                                        "completed": 3}},
                 "parts": [{"type": "text", "text": "ok"}]}]
        from hindsight.config.paths import Home

        return Home(env["HINDSIGHT_HOME"]).transcript_file("opencode", session), {
            "messages": msgs}
    tr = Transcript(work / "t" / f"{session}.jsonl", session, str(repo))
    tr.user(text)
    tr.say("ok")
    return str(tr.write()), {"transcript_path": str(tr.path)}


def measure_agents(repo: Path, env: dict[str, str], runs: int, work: Path
                   ) -> dict[str, Any]:
    """Per agent and event: p50/p95 of the hook with process start, against the Claude
    Code targets (edit: the prompt's, as it runs inside the agent's turn). The agents take
    turns within each run (:data:`HARNESSES`, each with the hooks it has), so a change in
    the machine's load hits them alike; ``x_claude_p50`` compares each to Claude Code's hook
    measured in the same loop."""
    lat: dict[str, dict[str, list[float]]] = {h: {} for h in HARNESSES}
    texts = base_texts(DEFAULT)
    prompts = CODE_PROMPTS + [texts[i * 7] for i in range(max(0, runs - len(CODE_PROMPTS)))]
    target = repo / "src" / "hindsight" / "errors.py"
    original = target.read_text()
    diag = Path(env["HINDSIGHT_DIAG_FILE"])
    hits: dict[str, int] = dict.fromkeys(HARNESSES, 0)

    def run(h: str, event: str, data: dict[str, Any], label: str = "") -> str:
        s, out = agent_hook(event, h, data, env)
        lat[h].setdefault(label or event, []).append(s)
        return out

    def drains() -> int:
        return sum('"event": "drain"' in x for x in diag.read_text().splitlines()) \
            if diag.exists() else 0

    def settle(before: int, timeout: float = 60) -> None:
        """Wait for the detached drain an edit started (as the stop loop does)."""
        deadline = time.time() + timeout
        while drains() <= before and time.time() < deadline:
            time.sleep(0.05)

    for i in range(runs):
        for h in BRIEFS:
            run(h, "session-start", _payload(h, "session-start", repo, f"{h}-b{i}"))
    time.sleep(3)  # let the detached refreshes finish
    for i, p in enumerate(prompts[:runs]):
        for h in PROMPTS:
            extra = {"transformedPrompt": p} if h == "copilot" else {}
            out = run(h, "user-prompt-submit", _payload(h, "user-prompt-submit", repo,
                                                       f"{h}-p{i}", prompt=p, **extra))
            hits[h] += any(k in out for k in ("additional_context", "additionalContext",
                                               "modifiedTransformedPrompt",
                                               "contextModification"))
    for i in range(runs):
        for h in (*EDITS, "claude-code"):  # Claude Code's: PostToolUse, failed attempts
            target.write_text(original + f"\n# edit {h} {i}\n")
            data = _payload(h, "edit", repo, f"{h}-e{i}")
            _edit(h, data, target)
            if h == "claude-code":
                data.update(hook_event_name="PostToolUse", tool_name="Edit")
            before = drains()
            run(h, "edit", data)
            settle(before)
        run("copilot", "edit", _payload("copilot", "edit", repo, "copilot-e", toolName="bash",
                                        toolArgs={"command": "ls"}), "edit (other tool)")
    target.write_text(original)
    for i in range(max(5, runs // 3)):
        for h in HARNESSES:
            session = f"{h}-stop-{i}"
            path, extra = _transcript(h, repo, env, work, session, i)
            run(h, "stop", {**_payload(h, "stop", repo, session), **extra})
            wait_drain(diag, path)
    out: dict[str, Any] = {}
    for h in HARNESSES:
        res: dict[str, Any] = {}
        for ev, samples in lat[h].items():
            x = summary_ms(samples)
            x["target_p95_ms"] = AGENT_TARGETS[ev]
            x["met"] = x["p95_ms"] <= AGENT_TARGETS[ev]
            if ev in lat["claude-code"]:
                x["x_claude_p50"] = round(x["p50_ms"] / pct([v * 1000 for v in
                                                            lat["claude-code"][ev]], 50), 2)
            if ev == "user-prompt-submit":
                x["prompts_with_injection"] = hits[h]
            res[ev] = x
        out[h] = res
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--records", type=int, default=2000,
                    help="execution records in the bank (issue 12)")
    ap.add_argument("--client", action="store_true",
                    help="client mode: the memories on a local hindsight serve "
                    "--embedded-postgres, hooks with apiUrl (results/hooks_client.json)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hs-bench-hooks-") as tmp:
        work = Path(tmp)
        # bytecode is written and read as in an installed package (a PYTHONDONTWRITEBYTECODE
        # in the caller's environment made every hook compile its modules again)
        env = {**{k: v for k, v in os.environ.items()
                  if not k.startswith("HINDSIGHT_") and k != "PYTHONDONTWRITEBYTECODE"},
               "HINDSIGHT_HOME": str(work / "home"), "HINDSIGHT_DIAG_FILE": str(work / "d.log"),
               "HINDSIGHT_EMBEDDER": "minilm", "CLAUDE_CONFIG_DIR": str(work / "claude"),
               "HOME": str(work / "home"), "COPILOT_HOME": str(work / "home" / ".copilot")}
        t0 = time.perf_counter()
        if args.client:  # memories on the server; code index and records stay local
            repo = build(work, 0, env, args.records)
            server, env = serve_for_hooks(work, env, args.memories)
            setup_s = time.perf_counter() - t0
            try:
                res = measure(repo, env, args.runs, work)
            finally:
                server.send_signal(2)
                server.wait(60)
        else:
            repo = build(work, args.memories, env, args.records)
            setup_s = time.perf_counter() - t0
            res = measure(repo, env, args.runs, work)
            res["agents"] = measure_agents(repo, env, args.runs, work)
    targets = {"user-prompt-submit": 300, "session-start": 1000, "stop": 500}
    for ev, lim in targets.items():
        res[ev]["target_p95_ms"] = lim
        res[ev]["met"] = res[ev]["p95_ms"] <= lim
    res["stop_2mb"]["target_s"] = 10
    res["stop_2mb"]["met"] = (res["stop_2mb"]["background_done_s"] or 99) <= 10
    base = res["python_start"]["p50_ms"]
    for ev in ("session-start", "user-prompt-submit", "stop", "pre-compact", "session-end"):
        res[ev]["x_python_start_p50"] = round(res[ev]["p50_ms"] / base, 2)
    data = {"machine": machine(), "memories": args.memories, "records": args.records,
            "runs": args.runs,
            "setup_s": round(setup_s, 1), "results": res,
            "mode": "client (serve --embedded-postgres on 127.0.0.1)" if args.client
            else "local"}
    path = write("hooks_client" if args.client else "hooks", data)
    print(json.dumps(res, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
