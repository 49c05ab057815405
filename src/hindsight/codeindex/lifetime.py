"""Child processes that end with their parent (break24: parse workers of a killed ``index``
lived on for ever, holding the bank's index lock they inherited and the dead process's
stdout).

Every process the code index forks (the parse pool's workers, the resident parse worker,
the forked parser and resolver children) calls :func:`die_with_parent` first: on Linux,
``prctl(PR_SET_PDEATHSIG, SIGKILL)`` has the kernel kill it when the thread that forked it
ends (see prctl(2)); if that parent is already gone the child exits at once. Elsewhere it
does nothing (the children then end when their pipes close, as before).
"""

from __future__ import annotations

import os
import signal
import sys

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
