"""The write-back spool of client mode (:class:`Spool`, a base of
:class:`hindsight.remote.service.RemoteMemoryService`): batches and records the server did
not take wait under ``spool/<bank key>/remote/`` (0700), one JSON file each with its
idempotency key, and are replayed oldest first; a file is claimed by renaming it, so two
processes replaying at once never send it twice (see that module's doc)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

from hindsight.errors import HindsightError, Unreachable
from hindsight.models import Retained

REPLAY_S = 1.0  # at most this long replaying the spool before a write
REPLAY_READ_S = 0.3  # and before the first read of a process (a hook's budget is short)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (0: no)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Spool:
    """Spooling and replay; the subclass gives ``spool`` (the directory), ``_replayed``
    (False until the first read of the process replayed) and ``_post(job)`` (send one
    job; raises Unreachable when the server does not answer)."""

    spool: str
    _replayed: bool

    def _post(self, job: dict[str, Any]) -> list[Retained]:
        raise NotImplementedError

    def _spool_job(self, job: dict[str, Any]) -> None:
        os.makedirs(self.spool, mode=0o700, exist_ok=True)
        os.chmod(self.spool, 0o700)
        name = os.path.join(self.spool, f"{time.time_ns():020d}-{job['key']}.json")
        tmp = name + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(job, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, name)

    def spooled(self) -> list[str]:
        """Spool files waiting, oldest first. A file claimed by a process that has died
        (a hook ended at its budget while sending) is put back first."""
        try:
            names = os.listdir(self.spool)
        except FileNotFoundError:
            return []
        for n in names:
            if n.endswith(".sending"):
                base, pid = n[:-len(".sending")].rsplit(".", 1)
                if not _alive(int(pid) if pid.isdigit() else 0):
                    with contextlib.suppress(OSError):
                        os.rename(os.path.join(self.spool, n), os.path.join(self.spool, base))
        return sorted(os.path.join(self.spool, n) for n in os.listdir(self.spool)
                      if n.endswith(".json"))

    def replay(self, within_s: float = 30.0) -> dict[str, int]:
        """Send spooled batches, oldest first, for at most ``within_s`` seconds; a batch
        the server refuses (4xx) is kept as ``*.json.refused``. Returns ``{"sent",
        "refused", "left"}``. A file is claimed by renaming it first, so two processes
        replaying at once never send it twice. Raises Unreachable when the server does not
        answer."""
        sent = refused = 0
        end = time.monotonic() + within_s
        files = self.spooled()
        for path in files:
            if time.monotonic() > end:
                break
            mine = f"{path}.{os.getpid()}.sending"  # claimed: another process skips it
            try:
                os.rename(path, mine)
            except OSError:
                continue
            try:
                with open(mine, encoding="utf-8") as fh:
                    job = json.load(fh)
                self._post(job)
            except (ValueError, OSError, HindsightError) as e:
                if isinstance(e, Unreachable):
                    os.rename(mine, path)
                    raise
                os.replace(mine, path + ".refused")
                refused += 1
                continue
            os.unlink(mine)
            sent += 1
        return {"sent": sent, "refused": refused, "left": len(self.spooled())}

    def _replay_once(self) -> None:
        """Before the first read of this process: replay a waiting spool briefly."""
        if not self._replayed:
            self._replayed = True
            if self.spooled():
                with contextlib.suppress(Unreachable):
                    self.replay(REPLAY_READ_S)
