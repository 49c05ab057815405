"""Child processes that end with their parent (break24: parse workers of a killed ``index``
lived on for ever, holding the bank's index lock they inherited and the dead process's
stdout).

Every process the code index forks (the parse pool's workers, the resident parse worker,
the forked parser and resolver children) calls :func:`die_with_parent` first: on Linux,
``prctl(PR_SET_PDEATHSIG, SIGKILL)`` has the kernel kill it when the thread that forked it
ends (see prctl(2)); if that parent is already gone the child exits at once. Elsewhere it
does nothing (the children then end when their pipes close, as before).

A child forked by :func:`fork` (or inside :func:`frozen_heap`) also never runs the
parent's garbage collection: the parent's objects are frozen (``gc.freeze()``) across the
fork and the child's collector is off. Collecting them in the child ran destructors that
wait for threads existing only in the parent — an ONNX Runtime inference session left in
a reference cycle by a recall hangs ``gc.collect()`` in a forked child for ever (seen: the
resident parse worker of a test process, which re-enabled its collector after each job,
hung ``index`` in CI, 2026-12).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Have this (forked) process killed when ``parent`` (the pid that forked it) ends;
    exits at once (status 0) when it has ended already."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(0)


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Freeze the collector's view of this process's objects (``gc.freeze()``) while
    children are forked in the block (a fork-context process pool's workers): their
    collectors never see the parent's objects. Only the process that entered unfreezes."""
    me = os.getpid()
    gc.freeze()
    try:
        yield
    finally:
        if os.getpid() == me:
            gc.unfreeze()


def fork() -> int:
    """``os.fork()`` for a worker child: returns the child's pid in the parent and 0 in the
    child, which has its collector off, the parent's objects frozen and
    :func:`die_with_parent` armed. Raises OSError as ``os.fork`` does."""
    parent = os.getpid()
    with frozen_heap():
        pid = os.fork()
    if pid == 0:
        gc.disable()
        die_with_parent(parent)
    return pid
