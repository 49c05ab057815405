"""Where banks live and how a repository maps to a bank id.

* ``HINDSIGHT_HOME`` (default ``~/.hindsight``) holds ``banks/<bank-file>.db``.
* Bank ids are resolved by :mod:`hindsight.config.banks` (layered config, template
  ``coding-agent::{gitProject}``, name clashes disambiguated).
"""

from __future__ import annotations

import hashlib
import os
import re

from hindsight.errors import ConfigError


def hindsight_home() -> str:
    """Absolute path of ``HINDSIGHT_HOME`` (default ``~/.hindsight``); not created here."""
    home = os.environ.get("HINDSIGHT_HOME") or os.path.join(os.path.expanduser("~"), ".hindsight")
    return os.path.abspath(os.path.expanduser(home))


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


def bank_key(bank_id: str) -> str:
    """The file-name form of ``bank_id`` (the bank file's name without ``.db``), for the
    bank's locks and spool: as injective as :func:`bank_file`."""
    return os.path.basename(bank_file(bank_id))[:-3]


def bank_file(bank_id: str) -> str:
    """Database path of ``bank_id`` under ``HINDSIGHT_HOME/banks``: the id with every run of
    other characters than ``A-Za-z0-9._-`` made ``_``, then, when that changed anything,
    ``-`` and 8 hex of sha1(id), so that two ids never share a file (``foo bar`` and
    ``foo_bar``; ids in other scripts)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", bank_id)
    if safe != bank_id:
        safe += "-" + hashlib.sha1(bank_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return os.path.join(hindsight_home(), "banks", safe + ".db")
