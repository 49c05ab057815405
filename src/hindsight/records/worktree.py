"""The work tree as a record's change when no agent edits are known (``hindsight run``,
the Python API and the MCP tool): what changed since the previous record of the same
session, from the uncommitted files.

The bank keeps, per session (``""`` for people and CI), the text of each uncommitted file
at its last record (meta ``records:tree:<session>``; files over :data:`MAX_FILE` bytes
are not kept and compare against HEAD). A record's change is every file whose text now
differs from that snapshot (or from HEAD when the snapshot does not hold it). Git is read
with :func:`hindsight.config.paths.git_cmd` (no lock taken, no repository program run).
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from hindsight.config.paths import git_cmd

MAX_FILE = 256 << 10  # bytes of one file kept in the snapshot
MAX_SNAPSHOT = 4 << 20  # bytes of one snapshot
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


def window(store: Any, root: str, session: str) -> list[tuple[str, str | None, str | None,
                                                            bool]]:
    """The change since the session's last snapshot, as ``(path, before, after, True)``
    per changed file, and store the new snapshot."""
    key = f"records:tree:{session}"
    try:
        snap: dict[str, str] = json.loads(store.get_meta(key) or "{}")
    except ValueError:
        snap = {}
    now = dirty(root)
    out = []
    for rel in sorted(set(now) | set(snap)):
        after = disk_text(root, rel)
        before = snap[rel] if rel in snap else head_text(root, rel)
        if before != after:
            out.append((rel, before, after, True))
    new: dict[str, str] = {}
    used = 0
    for rel in now:
        text = disk_text(root, rel)
        if text is not None and len(text) <= MAX_FILE and used + len(text) <= MAX_SNAPSHOT:
            new[rel] = text
            used += len(text)
    store.set_meta({key: json.dumps(new)})  # ASCII: no lone surrogate reaches SQLite
    return out
