"""What every hook shares: the diagnostics log, the time budget, locks and detached workers.

A hook never breaks the agent: :func:`guarded` runs the handler in a thread, waits at most
the event's budget, prints only what the handler returned (when it finished in time),
appends one JSONL diagnostic line and exits 0 whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, TextIO

# Seconds a hook may take before it gives up and prints nothing; each is below the timeout
# written by ``hindsight install claude-code`` (hooks/install.py) for the same event, and for
# agents whose timeout is not written (Cursor) it is the only bound.
BUDGET_S = {"session-start": 8.0, "user-prompt-submit": 2.0, "stop": 25.0,
            "pre-compact": 25.0, "session-end": 25.0, "subagent-stop": 25.0, "edit": 4.0}


# How hindsight starts itself, wherever a command is written or a process started for later
# (the hooks and MCP entries of ``install``, detached workers; history/githooks.py writes the
# same form into git hooks): ``<absolute python> -P -m hindsight``. Plain ``-m`` puts the
# working directory first on sys.path, and agents run hooks and MCP servers in the user's
# repository: a cloned repository's top-level ``hindsight/`` ran as our code, and its
# ``types.py`` (imported by runpy after that insertion) made every hook exit 1. ``-P``
# (Python 3.11, this package's floor) keeps the working directory off sys.path altogether,
# so neither our package nor a standard module imported later can be shadowed from it
# (tests/test_isolation.py runs the written commands in such a repository). Chosen over
# the ``hindsight`` console script by absolute path: the interpreter that ran ``install``
# exists in every kind of installation (a venv, ``--user``, a source checkout on
# PYTHONPATH), a console script not always, or one of another installation.
SELF_ARGS = ("-P", "-m", "hindsight")


def python() -> str:
    """The running interpreter's absolute path (``python3`` when Python cannot tell)."""
    return sys.executable or "python3"


def self_argv(*args: str) -> list[str]:
    """``[<python>, "-P", "-m", "hindsight", *args]``."""
    return [python(), *SELF_ARGS, *args]


def shell_command(args: list[str], env: dict[str, str] | None = None) -> str:
    """``self_argv(*args)`` as one shell command line, every word quoted; ``env`` (e.g.
    :func:`hindsight.config.paths.pinned_env`) becomes an ``env NAME=value …`` prefix."""
    import shlex

    words = self_argv(*args)
    if env:
        words = ["env", *(f"{k}={v}" for k, v in env.items()), *words]
    return " ".join(shlex.quote(w) for w in words)


def diag_file() -> str:
    """``$HINDSIGHT_DIAG_FILE`` (setting ``diagFile``), else
    ``$HINDSIGHT_HOME/logs/hooks.jsonl`` (``logs/`` created mode 0700 when missing; raises
    OSError when it cannot be)."""
    from hindsight.config.paths import Home
    from hindsight.config.settings import env_value

    try:
        given = env_value("diagFile")
    except Exception:  # noqa: BLE001 - a bad value must not stop the diagnostics
        given = None
    return given or Home.current().log_file("hooks.jsonl")


def write_diag(record: dict[str, Any], path: str | None = None) -> None:
    """Append ``record`` as one JSON line (one ``write`` on an ``O_APPEND`` descriptor, so
    lines of concurrent hooks do not interleave). A symlink at the path is not followed
    (the line is dropped). Never raises."""
    line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8",
                                                                               "replace")
    try:
        target = path or diag_file()
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        pass


class Diag:
    """The diagnostic record of one hook run: ``event``, ``harness``, ``bank``, ``session``,
    ``ms`` (named timings in ms), ``injected`` (the exact text injected), ``error``."""

    def __init__(self, event: str, harness: str) -> None:
        self.t0 = time.perf_counter()
        self.rec: dict[str, Any] = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                    "event": event, "harness": harness, "bank": None,
                                    "session": "", "pid": os.getpid(), "ms": {},
                                    "injected": "", "error": ""}
        self.path: str | None = None
        self.empty = ""  # the agent's "nothing to add" answer, printed on a timeout

    def mark(self, name: str) -> None:
        self.rec["ms"][name] = round((time.perf_counter() - self.t0) * 1000, 1)

    def set(self, **kw: Any) -> None:
        self.rec.update(kw)

    def write(self) -> None:
        self.mark("total")
        write_diag(self.rec, self.path)


def guarded(event: str, harness: str, handler: Callable[[Diag], str],
            out: TextIO | None = None) -> int:
    """Run ``handler(diag)`` within ``BUDGET_S[event]``; print its output (if any, and only
    if it finished in time; on a timeout ``diag.empty``, the agent's empty answer, when the
    handler set it); write the diagnostic line; return 0 always."""
    diag = Diag(event, harness)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["out"] = handler(diag)
        except BaseException as e:  # noqa: BLE001 - a hook must never fail the agent
            result["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:500]
            result["trace"] = traceback.format_exc(limit=6)[-2000:]

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(BUDGET_S.get(event, 10.0))
    if th.is_alive():
        diag.set(error=f"timeout after {BUDGET_S.get(event, 10.0)} s; nothing injected",
                 injected="")
        diag.write()
        with contextlib.suppress(Exception):
            if diag.empty and out is not None:
                out.write(diag.empty)
                out.flush()
            elif diag.empty and sys.stdout is not None:
                sys.stdout.buffer.write(diag.empty.encode("utf-8"))
            sys.stdout.flush()
        os._exit(0)  # the worker thread may hold a lock or a slow query: leave now
    if "error" in result:
        diag.set(error=result["error"], trace=result["trace"], injected="")
    text = result.get("out") or ""
    if text:
        try:
            if out is not None:
                out.write(text)
                out.flush()
            elif sys.stdout is not None:  # UTF-8 whatever the locale: the agent reads JSON
                sys.stdout.buffer.write(text.encode("utf-8"))
                sys.stdout.buffer.flush()
            else:
                diag.set(error="stdout is closed; nothing printed")
        except (OSError, ValueError, AttributeError) as e:
            diag.set(error=f"stdout: {e}")
    diag.write()
    return 0


def spawn(args: list[str], log_name: str = "hooks-worker.log") -> int:
    """Start ``<python> -P -m hindsight <args>`` (:func:`self_argv`: the working directory,
    which is the user's repository, stays off sys.path) detached (own session, no stdin,
    output appended to ``$HINDSIGHT_HOME/logs/<log_name>``); returns its pid. Raises OSError
    when the process cannot be started."""
    from hindsight.config.paths import Home

    with open(Home.current().log_file(log_name), "ab") as log:
        p = subprocess.Popen(self_argv(*args),
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             start_new_session=True, close_fds=True)
    return p.pid


def read_stdin(limit: int = 64 << 20) -> dict[str, Any]:
    """The hook payload: stdin parsed as a JSON object; ``{}`` when stdin is empty, a tty,
    not JSON, or not an object (the caller logs ``warning``)."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return {}
        raw = sys.stdin.buffer.read(limit)
    except (OSError, ValueError):
        return {}
    if not raw.strip():
        return {}
    try:
        from hindsight.config.jsontext import loads

        data = loads(raw, errors="replace")  # a BOM or CRLF from a Windows tool is fine
    except (ValueError, RecursionError):
        return {"_warning": "stdin is not valid JSON (or nested too deeply)"}
    return data if isinstance(data, dict) else {"_warning": "stdin is not a JSON object"}
