"""Where banks live and how a repository maps to a bank id.

* ``HINDSIGHT_HOME`` (default ``~/.hindsight``) holds ``banks/<bank-file>.db``.
* Bank id (issue #2; the full rules come with the agent-integration issue):
  ``coding-agent::<main worktree dir name>-<first 8 hex of sha1(main worktree path)>``.
  The main worktree is found with ``git rev-parse --git-common-dir`` so linked worktrees
  share their repository's bank; outside git the directory itself is used.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess

from hindsight.errors import ConfigError


def hindsight_home() -> str:
    """Absolute path of ``HINDSIGHT_HOME`` (default ``~/.hindsight``); not created here."""
    home = os.environ.get("HINDSIGHT_HOME") or os.path.join(os.path.expanduser("~"), ".hindsight")
    return os.path.abspath(home)


def repo_root(path: str) -> str:
    """Absolute root of the repository containing ``path``: the git work tree top, or
    ``path`` itself outside git. Raises :class:`ConfigError` if ``path`` is not a directory."""
    p = os.path.abspath(path)
    if not os.path.isdir(p):
        raise ConfigError(f"{path}: not a directory")
    if ".git" in p.split(os.sep):
        raise ConfigError(f"{path}: inside a .git directory; run from the work tree")
    from hindsight.codeindex.files import git_toplevel

    return git_toplevel(p) or p


def main_worktree(root: str) -> str:
    """The main worktree of ``root`` (itself unless ``root`` is a linked worktree)."""
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "--path-format=absolute",
                              "--git-common-dir"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return root
    if out.returncode != 0:
        return root
    common = os.fsdecode(out.stdout.strip())
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    return root


def bank_id_for(root: str) -> str:
    """Bank id for repository ``root`` (absolute path)."""
    main = main_worktree(root) if os.path.exists(os.path.join(root, ".git")) else root
    name = os.path.basename(main.rstrip("/")) or "root"
    digest = hashlib.sha1(os.fsencode(main)).hexdigest()[:8]
    return f"coding-agent::{name}-{digest}"


def bank_file(bank_id: str) -> str:
    """Database path of ``bank_id`` under ``HINDSIGHT_HOME/banks``."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", bank_id)
    return os.path.join(hindsight_home(), "banks", safe + ".db")
