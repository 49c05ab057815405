"""What the ``in-flight`` page reads from git directly (read-only commands built by
:func:`hindsight.config.paths.git_cmd`, so none takes ``.git/index.lock``): local branches
with their tips and how far each is from the main branch, the current branch, and the
files changed on it or not yet committed."""

from __future__ import annotations

import subprocess
from typing import NamedTuple

from hindsight.config.paths import git_cmd

MAIN_NAMES = ("main", "master", "trunk", "develop")


class Branch(NamedTuple):
    """A local branch: ``name``, tip ``sha``, tip ``date`` (committer, ISO 8601),
    ``subject``, commits ``ahead``/``behind`` the main branch (0 for the main branch or
    when there is none), ``current``."""

    name: str
    sha: str
    date: str
    subject: str
    ahead: int
    behind: int
    current: bool


def _git(root: str, *args: str) -> str:
    try:
        p = subprocess.run(git_cmd(root, *args), capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else ""


def current_branch(root: str) -> str:
    """The checked-out branch ("" when detached or not a repository)."""
    return _git(root, "symbolic-ref", "--quiet", "--short", "HEAD").strip()


def head(root: str) -> str:
    """HEAD's sha ("" when there is none)."""
    return _git(root, "rev-parse", "--verify", "--quiet", "HEAD").strip()


def main_branch(root: str, names: list[str]) -> str:
    """The branch others are measured against: the first of :data:`MAIN_NAMES` that
    exists among ``names``, "" when none does."""
    return next((n for n in MAIN_NAMES if n in names), "")


def branches(root: str, limit: int = 8) -> tuple[list[Branch], int, str]:
    """The ``limit`` most recently committed local branches (newest first), the number of
    local branches, and the main branch's name."""
    out = _git(root, "for-each-ref", "--sort=-committerdate",
               "--format=%(refname:short)%00%(objectname)%00%(committerdate:iso-strict)%00"
               "%(subject)", "refs/heads")
    rows = [ln.split("\0") for ln in out.splitlines() if ln.count("\0") == 3]
    names = [r[0] for r in rows]
    base = main_branch(root, names)
    cur = current_branch(root)
    shown = []
    for name, sha, date, subject in rows[:limit]:
        ahead = behind = 0
        if base and name != base:
            counts = _git(root, "rev-list", "--left-right", "--count",
                          f"refs/heads/{base}...refs/heads/{name}").split()
            if len(counts) == 2:
                behind, ahead = int(counts[0]), int(counts[1])
        shown.append(Branch(name, sha, date, subject, ahead, behind, name == cur))
    return shown, len(rows), base


def changed_files(root: str, base: str) -> tuple[list[str], list[str]]:
    """``(files changed on the current branch since it left ``base``, files with changes
    not committed)``, root-relative, sorted; both ``[]`` on any git failure."""
    on_branch: set[str] = set()
    cur = current_branch(root)
    if base and cur and cur != base:
        mb = _git(root, "merge-base", "HEAD", f"refs/heads/{base}").strip()
        if mb:
            on_branch.update(f for f in _git(root, "diff", "--name-only", "-z", mb, "HEAD")
                             .split("\0") if f)
    dirty = {e[3:] for e in _git(root, "status", "--porcelain", "-z", "--no-renames",
                                 "--untracked-files=no").split("\0") if len(e) > 3}
    return sorted(on_branch), sorted(dirty)
