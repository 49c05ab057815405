"""Seeding a bank (code index, git history, earlier sessions) and importing transcripts.

Seeding runs detached from the session-start hook, under the lock ``seed-<bank>`` so two
sessions never seed twice; its state is kept in bank meta ``seed_state`` as JSON:
``{"state": "running"|"synced"|"failed", "started", "finished", "steps": {name: result},
"errors": [...]}`` (times ISO 8601 UTC). A step that fails is recorded and the next one
still runs. A bank already synced is refreshed the same way (incremental index, new
commits) without importing transcripts again.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from hindsight.config.jsontext import loads
from hindsight.config.paths import file_lock


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def seed_state(bank: Any) -> dict[str, Any]:
    """The stored seeding state (``{}`` when the bank was never seeded)."""
    try:
        return dict(json.loads(bank.memory.get_meta("seed_state") or "{}"))
    except ValueError:
        return {}


def _save(bank: Any, state: dict[str, Any]) -> None:
    bank.memory.set_meta({"seed_state": json.dumps(state)})


def import_claude(bank: Any, project: str | None = None, *, config_dir: str | None = None
                  ) -> dict[str, Any]:
    """Retain the Claude Code transcripts of ``project`` (default: the bank's root and its
    main worktree). Idempotent. Returns ``{"files", "retained", "duplicates", "errors",
    "looked_in"}``."""
    from hindsight.sessions.locations import claude_transcripts, project_dir_name
    from hindsight.sessions.transcripts import read_claude

    projects = [os.path.abspath(p) for p in ([project] if project else list(dict.fromkeys(
        [bank.root, getattr(bank.resolution, "main", bank.root) or bank.root])))]
    paths: list[str] = []
    skipped: list[str] = []
    for p in projects:
        for t in claude_transcripts(p, config_dir):
            # Claude Code's folder name is not unique ("a b", "a-b" and "a_b" share one):
            # keep only sessions whose own working directory is this project
            cwd = transcript_cwd(t)
            if cwd and any(cwd == q or cwd.startswith(q.rstrip(os.sep) + os.sep)
                           for q in projects):
                paths.append(t)
            else:
                skipped.append(f"{t}: its session ran in {cwd or 'an unknown directory'}, "
                               "not in this project; skipped")
    base = config_dir or os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude")
    out = _import(bank, paths, read_claude, "claude-code")
    out["errors"] = skipped + out["errors"]
    out["looked_in"] = [os.path.join(base, "projects", project_dir_name(os.path.abspath(p)))
                        for p in projects]
    return out


def transcript_cwd(path: str, limit: int = 1 << 20) -> str:
    """The first ``cwd`` recorded in the first ``limit`` bytes of a Claude Code transcript,
    or ``""``."""
    try:
        with open(path, "rb") as f:
            head = f.read(limit)
    except OSError:
        return ""
    for n, line in enumerate(head.split(b"\n")):
        try:
            obj = loads(line, first=n == 0, errors="replace")
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and isinstance(obj.get("cwd"), str) and obj["cwd"]:
            return str(obj["cwd"])
    return ""


def import_codex(bank: Any, *, codex_home: str | None = None) -> dict[str, Any]:
    """Retain the Codex rollouts whose working directory resolves to this bank.
    Idempotent. Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.config.banks import resolve
    from hindsight.sessions.codex import codex_rollouts, read_codex, rollout_cwd

    mine: list[str] = []
    errors: list[str] = []
    for path in codex_rollouts(codex_home):
        try:
            cwd = rollout_cwd(path)
            if cwd and resolve(cwd, "codex").bank_id == bank.bank_id:
                mine.append(path)
        except Exception as e:  # noqa: BLE001 - one rollout must not stop the rest
            errors.append(f"{path}: {e}")
    out = _import(bank, mine, read_codex, "codex")
    out["errors"] = errors + out["errors"]
    home = codex_home or os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
    out["looked_in"] = [os.path.join(home, "sessions")]
    return out


def _import(bank: Any, paths: list[str], reader: Any, agent: str) -> dict[str, Any]:
    from hindsight.sessions.writeback import retain_transcript

    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    for path in paths:
        try:
            r = retain_transcript(bank, path, reader, agent, edits=False, final=True)
        except Exception as e:  # noqa: BLE001 - one transcript must not stop the rest
            out["errors"].append(f"{path}: {type(e).__name__}: {e}")
            continue
        out["files"] += 1
        out["retained"] += r["retained"]
        out["duplicates"] += r["duplicates"]
        out["errors"] += [f"{path}: {w}" for w in r["warnings"][:3]]
    return out


def _step(state: dict[str, Any], name: str, fn: Any) -> None:
    t0 = time.perf_counter()
    try:
        res = fn()
        state["steps"][name] = {"ok": True, "ms": round((time.perf_counter() - t0) * 1000),
                                "result": res}
    except Exception as e:  # noqa: BLE001 - record and go on with the next step
        msg = f"{name}: {type(e).__name__}: {e}".splitlines()[0][:300]
        state["steps"][name] = {"ok": False, "error": msg}
        state["errors"].append(msg)


def seed(bank: Any, settings: Any) -> dict[str, Any] | None:
    """Seed or refresh ``bank`` now (blocking). Returns the final state, or ``None`` when
    another process holds the seeding lock."""
    from hindsight.config.paths import bank_key

    with file_lock(f"seed-{bank_key(bank.bank_id)}") as held:
        if not held:
            return None
        first = seed_state(bank).get("state") != "synced"
        state: dict[str, Any] = {"state": "running", "started": _now(), "finished": "",
                                 "steps": {}, "errors": [], "first": first}
        _save(bank, state)

        def index() -> dict[str, Any]:
            st = bank.code.index(workers=max(1, min(2, os.cpu_count() or 1)))
            return {"files": st.files_seen, "parsed": st.files_parsed, "symbols": st.symbols}

        def ingest() -> dict[str, Any]:
            if not os.path.exists(os.path.join(bank.root, ".git")):
                return {"skipped": "not a git repository"}
            st = bank.history.ingest(limit=int(settings["seedHistoryLimit"]))
            return {"commits": st.ingested, "partial": st.partial}

        _step(state, "index", index)
        _step(state, "ingest", ingest)
        if first and settings["importTranscripts"]:
            _step(state, "import-claude-code", lambda: import_claude(bank))
            _step(state, "import-codex", lambda: import_codex(bank))
            from hindsight.sessions.imports import (
                import_antigravity,
                import_copilot,
                import_cursor,
                import_gemini,
            )

            _step(state, "import-cursor", lambda: import_cursor(bank))
            _step(state, "import-copilot", lambda: import_copilot(bank))
            _step(state, "import-gemini", lambda: import_gemini(bank))
            _step(state, "import-antigravity", lambda: import_antigravity(bank))
        state["state"] = "synced" if state["steps"]["index"]["ok"] else "failed"
        state["finished"] = _now()
        _save(bank, state)
        return state
