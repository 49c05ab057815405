"""Where banks live and how a repository maps to a bank id.

* ``HINDSIGHT_HOME`` (default ``~/.hindsight``) holds ``banks/<bank-file>.db``.
* Bank ids are resolved by :mod:`hindsight.config.banks` (layered config, template
  ``coding-agent::{gitProject}``, name clashes disambiguated).
"""

from __future__ import annotations

import os
import re

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


def bank_file(bank_id: str) -> str:
    """Database path of ``bank_id`` under ``HINDSIGHT_HOME/banks``."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", bank_id)
    return os.path.join(hindsight_home(), "banks", safe + ".db")
