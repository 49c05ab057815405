"""The hook entry that skips the CLI: ``hindsight hook EVENT [--harness NAME]`` is parsed
here by hand (the agent waits on every hook; click and the CLI's modules cost about 80 ms to
import)."""

from __future__ import annotations

import os
from typing import Any


def _truthy(v: str | None) -> bool:
    return (v or "").strip().lower() in ("1", "true", "yes", "on")


EVENTS = ("session-start", "user-prompt-submit", "stop", "pre-compact", "session-end")


def run_event(event: str, harness: str) -> int:
    """Run hook ``event`` for ``harness`` on this process's stdin; returns 0 always."""
    from hindsight.hooks import handlers
    from hindsight.hooks.runtime import Diag, guarded, read_stdin

    if _truthy(os.environ.get("HINDSIGHT_DISABLE_HOOKS")):
        d = Diag(event, harness)
        d.set(skipped="HINDSIGHT_DISABLE_HOOKS")
        d.write()
        return 0
    data = read_stdin()
    fn = {"session-start": handlers.session_start,
          "user-prompt-submit": handlers.user_prompt_submit}.get(event, handlers.writeback)

    def run(diag: Any) -> str:
        if "_warning" in data:
            diag.set(warning=data["_warning"])
        ev = handlers.Event.from_payload(event, harness, data)
        diag.set(session=ev.session)
        return fn(ev, diag)

    return guarded(event, harness, run)


def fast_main(args: list[str]) -> int | None:
    """``hook EVENT [--harness NAME]`` without loading the CLI (the agent waits on every
    hook, and click plus the CLI's modules cost ≈ 80 ms to import). Returns None when
    ``args`` are anything else, so that the full CLI answers (help, errors)."""
    if len(args) == 1:
        harness = "claude-code"
    elif len(args) == 3 and args[1] == "--harness" and args[2] in ("claude-code", "codex"):
        harness = args[2]
    elif len(args) == 2 and args[1] in ("--harness=claude-code", "--harness=codex"):
        harness = args[1].split("=", 1)[1]
    else:
        return None
    return run_event(args[0], harness) if args[0] in EVENTS else None
