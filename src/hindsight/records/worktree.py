"""The work tree as a record's change when no agent edits are known (``hindsight run``,
the Python API and the MCP tool): what changed since the previous record of the same
session, from the uncommitted files.

The bank keeps, per session (``""`` for people and CI), the state of each uncommitted file
at its last record (meta ``records:tree:<session>``: its symbols' ast hashes and a hash
per line, never its text; :class:`~hindsight.records.change.State`). A record's change is
every file whose version now differs from that snapshot (or from HEAD when the snapshot
does not hold it). Git is read
with :func:`hindsight.config.paths.git_cmd` (no lock taken, no repository program run).
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from hindsight.config.paths import git_cmd

MAX_SNAPSHOT = 4 << 20  # bytes of one snapshot's JSON
GIT_TIMEOUT_S = 10


def _git(root: str, *args: str) -> bytes | None:
    try:
        p = subprocess.run(git_cmd(root, *args), capture_output=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def head_text(root: str, rel: str) -> str | None:
    """The file ``rel`` at HEAD (None when absent or not a git repository)."""
    out = _git(root, "cat-file", "blob", f"HEAD:{rel}")
    return out.decode("utf-8", "surrogateescape") if out is not None else None


def disk_text(root: str, rel: str) -> str | None:
    """The file ``rel`` now (None when absent or unreadable)."""
    try:
        with open(os.path.join(root, rel), "rb") as f:
            return f.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def dirty(root: str) -> list[str]:
    """Uncommitted files (modified, added, deleted, untracked and not ignored),
    root-relative; [] outside git."""
    out = _git(root, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all")
    if out is None:
        return []
    return sorted({e[3:].decode("utf-8", "surrogateescape") for e in out.split(b"\0")
                   if len(e) > 3})


def git_state(root: str) -> tuple[str, str]:
    """(branch, HEAD commit); ``""`` for each that cannot be read."""
    br = _git(root, "symbolic-ref", "-q", "--short", "HEAD")
    hd = _git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return ((br or b"").decode("utf-8", "replace").strip(),
            (hd or b"").decode().strip())


def window(store: Any, root: str, session: str
           ) -> tuple[list[tuple[str, Any, str | None, bool]], list[str]]:
    """``(change, uncommitted files)``: the change since the session's last snapshot as
    ``(path, before, after, True)`` per candidate file (before: the snapshot's
    :class:`~hindsight.records.change.State`, else the text at HEAD; after: the text now;
    files whose versions turn out equal are dropped by
    :func:`hindsight.records.change.changes`). Store the new snapshot with :func:`save`."""
    from hindsight.records.change import State

    try:
        snap = json.loads(store.get_meta(f"records:tree:{session}") or "{}")
    except ValueError:
        snap = {}
    now = dirty(root)
    out = []
    for rel in sorted(set(now) | set(snap)):
        before = State.from_json(snap[rel]) if rel in snap else head_text(root, rel)
        out.append((rel, before, disk_text(root, rel), True))
    return out, now


def save(store: Any, session: str, now: list[str], after: dict[str, Any]) -> None:
    """Keep the states (``after``: path → State) of the uncommitted files ``now`` as the
    session's snapshot (at most :data:`MAX_SNAPSHOT` bytes of JSON; a file left out
    compares against HEAD next time)."""
    new: dict[str, Any] = {}
    used = 0
    for rel in now:
        st = after.get(rel)
        if st is None:
            continue
        item = st.to_json()
        size = len(json.dumps(item))
        if used + size <= MAX_SNAPSHOT:
            new[rel] = item
            used += size
    store.set_meta({f"records:tree:{session}": json.dumps(new)})
