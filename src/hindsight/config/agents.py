"""Where other coding agents keep their files, and which agent runs a hook: the environment
variables of other tools that hindsight reads, read here and nowhere else (the layer test
keeps environment reads inside ``config/``).

* ``COPILOT_HOME`` moves GitHub Copilot CLI's ``~/.copilot`` (hooks, ``mcp-config.json``,
  ``session-state/``) -- docs.github.com, Copilot CLI configuration.
* ``CURSOR_VERSION`` is set by Cursor for the processes of its hooks only (not for its
  terminals), also when it runs Claude Code's hooks; ``CURSOR_PROJECT_DIR`` names the
  workspace. Source: the Cursor 3.20.17 client's hook environment builder, as read by
  DietrichGebert/ponytail ``docs/cursor-hooks.md`` (2026-09-14): a client fact, not a
  documented contract.
* ``~/.cursor`` has no documented override; the user's home is ``$HOME`` (through
  :func:`os.path.expanduser`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def user_home() -> str:
    """The user's home directory (``~``, absolute)."""
    return os.path.abspath(os.path.expanduser("~"))


def cursor_dir(home: str | None = None) -> str:
    """Cursor's per-user directory: ``<home or ~>/.cursor`` (absolute)."""
    return os.path.join(os.path.abspath(home) if home else user_home(), ".cursor")


def copilot_dir(home: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """GitHub Copilot CLI's per-user directory: ``$COPILOT_HOME`` when set (and no ``home``
    is given), else ``<home or ~>/.copilot`` (absolute)."""
    given = None if home else _env(env).get("COPILOT_HOME")
    if given:
        return os.path.abspath(os.path.expanduser(given))
    return os.path.join(os.path.abspath(home) if home else user_home(), ".copilot")


def hook_host(env: Mapping[str, str] | None = None) -> str:
    """The agent that started this hook process when the environment tells: ``"cursor"``
    when ``CURSOR_VERSION`` is set (Cursor sets it for hook processes only), else ``""``."""
    return "cursor" if _env(env).get("CURSOR_VERSION") else ""


def cursor_project_dir(env: Mapping[str, str] | None = None) -> str:
    """``$CURSOR_PROJECT_DIR`` (the workspace Cursor runs a hook for), ``""`` when unset."""
    return _env(env).get("CURSOR_PROJECT_DIR", "")


def gemini_dir(home: str | None = None) -> str:
    """Gemini CLI's per-user directory: ``<home or ~>/.gemini`` (absolute)."""
    return os.path.join(os.path.abspath(home) if home else user_home(), ".gemini")


def antigravity_dir(home: str | None = None) -> str:
    """Antigravity CLI's (``agy``) data directory: ``<home or ~>/.gemini/antigravity-cli``."""
    return os.path.join(gemini_dir(home), "antigravity-cli")


def antigravity_config_dir(home: str | None = None) -> str:
    """Antigravity CLI's user configuration: ``<home or ~>/.gemini/config`` (``hooks.json``,
    ``mcp_config.json``)."""
    return os.path.join(gemini_dir(home), "config")
