"""The hook entry that skips the CLI: ``hindsight hook EVENT [--harness NAME]`` is parsed
here by hand (the agent waits on every hook; click and the CLI's modules cost about 80 ms to
import)."""

from __future__ import annotations

from typing import Any

EVENTS = ("session-start", "user-prompt-submit", "edit", "stop", "pre-compact", "session-end")
# the names of hooks.agents.ADAPTERS
HARNESSES = ("claude-code", "codex", "cursor", "copilot", "gemini", "antigravity", "windsurf",
             "cline", "opencode", "kilo")


def run_event(event: str, harness: str) -> int:
    """Run hook ``event`` for ``harness`` on this process's stdin: the agent's adapter
    (:mod:`hindsight.hooks.agents`) reads the payload and prints the handler's answer in the
    agent's contract. Returns 0 always."""
    from hindsight.config.settings import env_flag
    from hindsight.hooks import handlers
    from hindsight.hooks.agents import for_hook
    from hindsight.hooks.runtime import Diag, guarded, read_stdin

    if env_flag("disableHooks"):  # environment only, before any file is read
        d = Diag(event, harness)
        d.set(skipped="HINDSIGHT_DISABLE_HOOKS")
        d.write()
        return 0
    fn = {"session-start": handlers.session_start, "edit": handlers.edit,
          "user-prompt-submit": handlers.user_prompt_submit}.get(event, handlers.writeback)

    def run(diag: Any) -> str:
        data = read_stdin()  # inside the budget: an agent may leave stdin open
        if "_warning" in data:
            diag.set(warning=data["_warning"])
        adapter = for_hook(harness, data)
        if adapter.name != harness:
            diag.set(harness=adapter.name, via=harness)
        ev = adapter.event(event, data)
        diag.empty = adapter.render(ev, "")  # what a timeout prints
        diag.set(session=ev.session)
        if ev.skip:
            diag.set(skipped=ev.skip)
            return adapter.render(ev, "")
        return adapter.render(ev, fn(ev, diag))

    return guarded(event, harness, run)


def fast_main(args: list[str]) -> int | None:
    """``hook EVENT [--harness NAME]`` without loading the CLI (the agent waits on every
    hook, and click plus the CLI's modules cost ≈ 80 ms to import). Returns None for help
    and the internal workers (the full CLI answers); any other argument list is a hook the
    agent ran with arguments we do not know: it is logged and exits 0, since an agent reads
    exit code 2 as "block" (Claude Code erases the prompt)."""
    if not args or args[0] in ("-h", "--help") or args[0].startswith("_") or "-h" in args \
            or "--help" in args:
        return None
    rc = _parse(args)
    if rc is None:
        from hindsight.hooks.runtime import Diag

        d = Diag(args[0][:40], "")
        d.set(error=f"unknown hook arguments: {' '.join(args)[:200]}; nothing done")
        d.write()
        return 0
    return rc


def _parse(args: list[str]) -> int | None:
    if len(args) == 1:
        harness = "claude-code"
    elif len(args) == 3 and args[1] == "--harness" and args[2] in HARNESSES:
        harness = args[2]
    elif len(args) == 2 and args[1].startswith("--harness=") and \
            args[1].split("=", 1)[1] in HARNESSES:
        harness = args[1].split("=", 1)[1]
    else:
        return None
    return run_event(args[0], harness) if args[0] in EVENTS else None


def leave(rc: int) -> None:
    """End the hook process now with ``rc``: stdout and stderr flushed, then
    ``os._exit``, without the interpreter's teardown of its modules (the agent waits on
    it: 28 ms of a client-mode prompt hook's p50 of 173 ms, 15 runs on 2 shared cores).
    Safe here because a hook has nothing left to finish by then: the diagnostic line is
    written with ``os.write``, the bank is closed, files are closed by their ``with``
    blocks, and its only threads are daemons (detached workers are other processes)."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(rc)
