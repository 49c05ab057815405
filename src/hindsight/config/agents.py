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
* ``CLINE_DATA_DIR`` moves the Cline CLI's ``~/.cline/data`` (third-party report);
  ``XDG_CONFIG_HOME`` / ``XDG_DATA_HOME`` move opencode's and Kilo's ``~/.config`` and
  ``~/.local/share``, and ``OPENCODE_DB`` names opencode's database (opencode docs, CLI).
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


def windsurf_dir(home: str | None = None) -> str:
    """Windsurf's per-user configuration: ``<home or ~>/.codeium/windsurf`` (``hooks.json``,
    ``mcp_config.json``, ``memories/global_rules.md``) -- docs.windsurf.com, Cascade hooks,
    MCP, Memories & Rules."""
    return os.path.join(os.path.abspath(home) if home else user_home(), ".codeium", "windsurf")


def windsurf_transcripts_dir(home: str | None = None) -> str:
    """Where Cascade's ``post_cascade_response_with_transcript`` hook writes transcripts:
    ``<home or ~>/.windsurf/transcripts`` (third-party inventories; the hook payload's
    ``tool_info.transcript_path`` is the pointer hindsight relies on)."""
    return os.path.join(os.path.abspath(home) if home else user_home(), ".windsurf",
                        "transcripts")


def cline_documents_dir(home: str | None = None) -> str:
    """Cline's global folder: ``<home or ~>/Documents/Cline`` (``Hooks/``, ``Rules/``) --
    docs.cline.bot, Hooks and Rules (the XDG documents folder is not looked up)."""
    return os.path.join(os.path.abspath(home) if home else user_home(), "Documents", "Cline")


def cline_data_dirs(home: str | None = None, env: Mapping[str, str] | None = None
                    ) -> list[str]:
    """The folders where Cline keeps ``tasks/<taskId>/api_conversation_history.json``, in
    the order they are searched: the CLI's ``$CLINE_DATA_DIR`` (default ``~/.cline/data``),
    then the VS Code extension's global storage ``saoudrizwan.claude-dev`` of VS Code, VS
    Code Insiders, VSCodium, Cursor and Windsurf (``~/.config/<app>/User/globalStorage`` on
    Linux, ``~/Library/Application Support/<app>/User/globalStorage`` on macOS). Source:
    Cline's ``src/core/storage/disk.ts`` (``globalStorageFsPath``/``tasks``) -- the CLI
    location is a third-party report."""
    h = os.path.abspath(home) if home else user_home()
    given = None if home else _env(env).get("CLINE_DATA_DIR")
    dirs = [os.path.abspath(os.path.expanduser(given)) if given
            else os.path.join(h, ".cline", "data")]
    for base in (os.path.join(h, ".config"), os.path.join(h, "Library", "Application Support")):
        for app in ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"):
            dirs.append(os.path.join(base, app, "User", "globalStorage",
                                     "saoudrizwan.claude-dev"))
    return dirs


def xdg_config_dir(home: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """``$XDG_CONFIG_HOME`` (when set and no ``home`` is given), else ``<home or ~>/.config``:
    where opencode (``opencode/``) and Kilo (``kilo/``) keep their user configuration."""
    given = None if home else _env(env).get("XDG_CONFIG_HOME")
    if given:
        return os.path.abspath(os.path.expanduser(given))
    return os.path.join(os.path.abspath(home) if home else user_home(), ".config")


def opencode_db(home: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """opencode's session database: ``$OPENCODE_DB`` when set (and no ``home`` is given),
    else ``<$XDG_DATA_HOME or <home or ~>/.local/share>/opencode/opencode.db`` (opencode 1.2
    and later; a third party's reading, tuiboard #17)."""
    e = {} if home else _env(env)
    if e.get("OPENCODE_DB"):
        return os.path.abspath(os.path.expanduser(e["OPENCODE_DB"]))
    data = e.get("XDG_DATA_HOME") or os.path.join(
        os.path.abspath(home) if home else user_home(), ".local", "share")
    return os.path.join(os.path.abspath(os.path.expanduser(data)), "opencode", "opencode.db")
