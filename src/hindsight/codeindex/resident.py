"""A parse worker kept alive across the small parses of one process (issue 14: a one-file
re-index within 100 ms).

A small parse (an incremental re-index: :func:`hindsight.codeindex.pool.run_small`) runs
in a forked child, so that a grammar that never returns or crashes cannot take the caller
with it. In a process with a large heap one fork costs ~20 ms (page tables copied, pages
copied on write by the child, torn down when it exits), and long-lived processes
(``hindsight watch``, the MCP server, an agent loop using the Python API) re-index often.
So the first small parse forks one worker that stays: each later parse is one request on
a pipe, answered in the time the parse itself takes.

The worker runs the same guarded job as every parser child
(:func:`hindsight.codeindex.pool._job`: a C-level watchdog per file, the file's path in
``<scratch>/<pid>.cur``), so a file that runs over its time limit or crashes the grammar
ends the worker: the caller sees the pipe close, drops the worker (the next parse forks a
new one) and blames the culprit from the scratch directory as for any dead child. The
worker exits when its request pipe closes: when the process that made it exits or drops
it. Frames on both pipes: an 8-byte little-endian length, then a pickle.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import threading
from collections.abc import Callable
from typing import Any

from hindsight.codeindex import lifetime

_FRAME = struct.Struct("<Q")


class Died(Exception):
    """The resident worker ended while it had a request (a crash or the watchdog)."""

_lock = threading.Lock()
_worker: _Worker | None = None


class _Worker:
    def __init__(self, job: Callable[[Any], Any]) -> None:
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = lifetime.fork()  # no collection of this process's objects in the worker
        if pid == 0:  # the worker: never returns
            code = 0
            try:
                os.close(req_w)
                os.close(res_r)
                _serve(req_r, res_w, job)
            except BaseException:  # noqa: BLE001 - any failure ends the worker, seen as EOF
                code = 70
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(res_w)
        self.pid, self.owner = pid, os.getpid()
        self.wfd, self.rfd = req_w, res_r

    def ask(self, request: Any) -> Any:
        """The answer to ``request``; raises OSError or EOFError when the worker is gone."""
        data = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(self.wfd, _FRAME.pack(len(data)) + data)
        return pickle.loads(_read_frame(self.rfd))

    def alive(self) -> bool:
        """False once the worker has exited (it is then reaped)."""
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def close(self) -> None:
        for fd in (self.wfd, self.rfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.owner == os.getpid():  # EOF ends it; reap it (a crashed one too)
            with contextlib.suppress(OSError):  # ChildProcessError: reaped already
                os.waitpid(self.pid, 0)


def _serve(rfd: int, wfd: int, job: Callable[[Any], Any]) -> None:
    """Answer requests until the request pipe closes."""
    while True:
        try:
            request = pickle.loads(_read_frame(rfd))
        except EOFError:
            return
        data = pickle.dumps(job(request), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(wfd, _FRAME.pack(len(data)) + data)


def _read_exact(fd: int, n: int) -> bytes:
    parts: list[bytes] = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError("the resident parse worker closed its pipe")
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _read_frame(fd: int) -> bytes:
    (n,) = _FRAME.unpack(_read_exact(fd, _FRAME.size))
    return _read_exact(fd, n)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def run(job: Callable[[Any], Any], request: Any) -> Any | None:
    """``job(request)`` run by this process's resident worker (made on first use with
    ``job``: pass the same function every time), or ``None`` when there is none to ask
    (no ``fork``, or another thread is using it: the caller forks its own child). Raises
    :class:`Died` when the worker ended on this request (it is dropped; the next call
    makes a new one)."""
    global _worker
    if not hasattr(os, "fork") or not _lock.acquire(blocking=False):
        return None
    try:
        if _worker is not None and _worker.owner != os.getpid():
            _worker = None  # made by the process this one was forked from: not ours
        if _worker is not None and not _worker.alive():  # ended between requests (killed)
            _worker.close()
            _worker = None
        if _worker is None:
            _worker = _Worker(job)
        try:
            return _worker.ask(request)
        except (OSError, EOFError, pickle.UnpicklingError) as e:
            _worker.close()
            _worker = None
            raise Died(str(e)) from None
    finally:
        _lock.release()


def pid() -> int | None:
    """The process id of this process's resident worker (``None``: none)."""
    w = _worker
    return w.pid if w is not None and w.owner == os.getpid() else None


def stop() -> None:
    """End this process's resident worker, if any (it also ends when this process does)."""
    global _worker
    with _lock:
        if _worker is not None and _worker.owner == os.getpid():
            _worker.close()
        _worker = None
