"""Register hindsight with coding agents by editing their config files, and undo it.

Where each agent reads what (documentation pages):

* Claude Code hooks: ``settings.json`` -- user ``~/.claude/settings.json``, project
  ``<project>/.claude/settings.json``; ``{"hooks": {"<Event>": [{"matcher": "...", "hooks":
  [{"type": "command", "command": "...", "timeout": <seconds>}]}]}}``, matcher optional for
  events without one (https://code.claude.com/docs/en/settings, …/docs/en/hooks).
  ``CLAUDE_CONFIG_DIR`` replaces ``~/.claude``, and ``.claude.json`` moves into it too
  (https://code.claude.com/docs/en/claude-directory; anthropics/claude-code#24479).
* Claude Code MCP: user scope = top-level ``mcpServers`` of ``~/.claude.json``; project
  scope = ``<project>/.mcp.json`` ``{"mcpServers": {"<name>": {"type": "stdio", "command":
  …, "args": […]}}}`` (https://code.claude.com/docs/en/mcp, installation scopes).
* Codex CLI: ``$CODEX_HOME/config.toml`` (default ``~/.codex``) ``[mcp_servers.<name>]``
  ``command``/``args`` (https://developers.openai.com/codex/mcp, …/codex/config-reference);
  lifecycle hooks in ``hooks.json`` next to a config layer, same event -> matcher group ->
  handler shape, timeout in seconds, on by default, reviewed by the user in ``/hooks``
  (https://developers.openai.com/codex/hooks). ``notify`` is deprecated in favour of these
  hooks (openai/codex PR #20524) and never written.

A run parses all its files before writing any (invalid JSON/TOML raises ConfigError and
changes nothing). A file that changes first gets a backup
``<file>.hindsight-backup-<UTC yyyymmddThhmmss>`` (never overwriting one); the first install
keeps ``<file>.hindsight-orig``, whose bytes come back when an uninstall leaves the file
semantically equal to it; a file that held only our entries is deleted (no backup).
Writes are atomic (temp file + ``os.replace``) and keep the file's mode.

Every command written is ``<absolute python> -P -m hindsight …`` (why ``-P``:
:data:`hindsight.hooks.runtime.SELF_ARGS`), run from the user's repository without that
repository on ``sys.path``. ``HINDSIGHT_HOME`` and ``HINDSIGHT_CONFIG``, when set for the
install, are written into each entry (an ``env NAME=value`` prefix of hook commands, the
``env`` table of MCP servers) so that the agent's processes use the same home; when unset,
nothing is written for them. Entries of the previous release (``<python> -m hindsight …``)
are still recognised as ours: install replaces them, uninstall removes them.
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

import tomlkit

from hindsight.config.paths import pinned_env
from hindsight.errors import ConfigError
from hindsight.hooks.configfiles import (  # noqa: F401  (BACKUP_INFIX, ORIG_SUFFIX: API)
    BACKUP_INFIX,
    JSON,
    ORIG_SUFFIX,
    TOML,
    Changes,
    Format,
    Mutator,
    commit,
    decode,
    parse_toml,
    plain,
    plan_edit,
    read_bytes,
)
from hindsight.hooks.runtime import SELF_ARGS, python, shell_command

# agent event -> (our event name, matcher or None, timeout in seconds)
CLAUDE_EVENTS: dict[str, tuple[str, str | None, int]] = {
    "SessionStart": ("session-start", "startup|resume|clear|compact", 10),
    "UserPromptSubmit": ("user-prompt-submit", None, 5),
    "PostToolUse": ("edit", "Edit|MultiEdit|Write|NotebookEdit", 5),
    "Stop": ("stop", None, 30),
    "PreCompact": ("pre-compact", None, 30),
    "SessionEnd": ("session-end", None, 30),
}
# Codex, run as ``hook <e> --harness codex``: the edit trace on ``apply_patch`` (Codex
# 0.124+; "Edit|Write" are its aliases there, openai/codex PR #18391), the turn-complete and
# session-end write-back
CODEX_EVENTS: dict[str, tuple[str, str | None, int]] = {
    "PostToolUse": ("edit", "apply_patch|Edit|Write", 5),
    "Stop": ("stop", None, 30),
    "SessionEnd": ("session-end", None, 30),
}
MCP_NAME = "hindsight"
MCP_ARGS = (*SELF_ARGS, "mcp")  # after the interpreter: ("-P", "-m", "hindsight", "mcp")
_MCP_TAIL = ["-m", "hindsight", "mcp"]  # how our server's args end, in every release


def hook_command(event: str, harness: str | None = None,
                 env: dict[str, str] | None = None) -> str:
    """The shell command an agent runs for ``event`` (e.g. ``"session-start"``):
    ``"<python> -P -m hindsight hook <event>"`` with the running interpreter shell-quoted, so
    it works without the venv on PATH and never imports from the working directory;
    ``harness`` (e.g. ``"codex"``) appends ``--harness <harness>`` (the hook command's
    default is claude-code). ``env`` (default :func:`~hindsight.config.paths.pinned_env`,
    the install's ``HINDSIGHT_HOME``/``HINDSIGHT_CONFIG``) becomes an ``env NAME=value``
    prefix, each word shell-quoted."""
    args = ["hook", event, *(["--harness", harness] if harness else [])]
    return shell_command(args, pinned_env() if env is None else env)


def is_our_command(command: object) -> bool:
    """True for a hook command hindsight installed: ``… -m hindsight hook …`` (with or
    without ``-P`` and an ``env …`` prefix; the previous release wrote ``<python> -m
    hindsight hook …``) or ``hindsight hook …``."""
    return isinstance(command, str) and (
        " -m hindsight hook " in command or command.startswith("hindsight hook "))


def _is_our_mcp(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    words = [str(a) for a in args] if isinstance(args, list) else []
    return words[-3:] == _MCP_TAIL or (
        os.path.basename(str(entry.get("command", ""))) == "hindsight" and words[:1] == ["mcp"])


def _mcp_entry(**extra: str) -> dict[str, Any]:
    """Our MCP server entry: ``extra`` (e.g. ``type="stdio"``), ``command``, ``args`` and,
    when the install pins any variable, ``env``."""
    entry: dict[str, Any] = {**extra, "command": python(), "args": list(MCP_ARGS)}
    env = pinned_env()
    if env:
        entry["env"] = env
    return entry


def _sub(doc: Any, key: str, path: str, kind: type) -> Any:
    value = doc.get(key)
    if value is not None and not isinstance(value, kind):
        raise ConfigError(f"{path}: expected {'an object' if kind is dict else 'a list'} at "
                          f"{key!r}, found {type(value).__name__}")
    return value


def _strip_hooks(groups: list[Any]) -> int:
    """Remove our handlers from an event's matcher groups in place, dropping the groups we
    emptied. Returns how many handlers were removed."""
    removed, kept = 0, []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            kept.append(group)
            continue
        rest = [h for h in handlers
                if not (isinstance(h, dict) and is_our_command(h.get("command")))]
        removed += len(handlers) - len(rest)
        if rest and len(rest) < len(handlers):
            group["hooks"] = rest
        if rest:
            kept.append(group)
    groups[:] = kept
    return removed


def _has_exactly(groups: list[Any], handler: dict[str, Any], matcher: str | None) -> bool:
    found = [(g, h) for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
             for h in g["hooks"] if isinstance(h, dict) and is_our_command(h.get("command"))]
    return len(found) == 1 and found[0][1] == handler and found[0][0].get("matcher") == matcher


def _add_hooks(spec: dict[str, tuple[str, str | None, int]], harness: str | None) -> Mutator:
    def mutate(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
        hooks = _sub(doc, "hooks", path, dict)
        if hooks is None:
            hooks = doc["hooks"] = {}
        out = []
        for event, (name, matcher, timeout) in spec.items():
            groups = _sub(hooks, event, path, list)
            want = {"type": "command", "command": hook_command(name, harness), "timeout": timeout}
            if groups and _has_exactly(groups, want, matcher):
                out.append(("present", f"hooks.{event}"))
                continue
            old = _strip_hooks(groups) if groups else 0
            group: dict[str, Any] = {"matcher": matcher} if matcher else {}
            group["hooks"] = [want]
            hooks.setdefault(event, []).append(group)
            out.append(("updated" if old else "added", f"hooks.{event}"))
        return doc, out
    return mutate


def _remove_hooks(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
    hooks = _sub(doc, "hooks", path, dict)
    out = []
    for event in list(hooks or {}):
        groups = hooks[event]
        if isinstance(groups, list) and _strip_hooks(groups):
            out.append(("removed", f"hooks.{event}"))
            if not groups:
                del hooks[event]
    if out and not hooks:
        del doc["hooks"]
    return doc, out


def _server_state(servers: Any, want: dict[str, Any], label: str) -> tuple[str, str] | None:
    """``("present"|"conflict", label)`` when nothing may be written, else None."""
    cur = plain(servers.get(MCP_NAME)) if servers is not None else None
    if cur == want:
        return ("present", label)
    if cur is not None and not _is_our_mcp(cur):
        return ("conflict", label)
    return None


def _remove_server(key: str) -> Mutator:
    def mutate(doc: Any, path: str) -> tuple[Any, Changes]:
        servers = _sub(doc, key, path, dict)
        if not servers or not _is_our_mcp(plain(servers.get(MCP_NAME))):
            return doc, []
        del servers[MCP_NAME]
        if plain(servers) == {}:
            del doc[key]
        return doc, [("removed", f"{key}.{MCP_NAME}")]
    return mutate


def _add_mcp_json(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
    label = f"mcpServers.{MCP_NAME}"
    want = _mcp_entry(type="stdio")
    state = _server_state(_sub(doc, "mcpServers", path, dict), want, label)
    if state:
        return doc, [state]
    doc, old = _remove_server("mcpServers")(doc, path)
    doc.setdefault("mcpServers", {})[MCP_NAME] = want
    return doc, [("updated" if old else "added", label)]


def _add_mcp_toml(doc: Any, path: str) -> tuple[Any, Changes]:
    label = f"mcp_servers.{MCP_NAME}"
    want = _mcp_entry()
    state = _server_state(_sub(doc, "mcp_servers", path, dict), want, label)
    if state:
        return doc, [state]
    doc, old = _remove_server("mcp_servers")(doc, path)
    # our table goes at the end, as text: the user's layout and comments stay as they are;
    # ``env`` as an inline table, inside ours (a nested table would start a header of its own)
    body = tomlkit.document()
    for key, value in want.items():
        if isinstance(value, dict):
            table = tomlkit.inline_table()
            table.update(value)
            value = table
        body[key] = value
    text = tomlkit.dumps(doc)
    sep = "\n" * max(0, 2 - (len(text) - len(text.rstrip("\n")))) if text.strip() else ""
    new_text = f"{text}{sep}[{label}]\n{tomlkit.dumps(body)}"
    try:
        ok = tomllib.loads(new_text).get("mcp_servers", {}).get(MCP_NAME) == want
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:  # e.g. an inline ``mcp_servers = {…}`` cannot be extended by a [header]
        raise ConfigError(f"{path}: cannot add [{label}] where 'mcp_servers' is written "
                          "as it is in this file; add it by hand")
    return parse_toml(new_text, path), [("updated" if old else "added", label)]


def _run(action: str, agent: str, scope: str | None,
         edits: list[tuple[str, Format, Mutator]]) -> dict[str, Any]:
    """Plan every edit (all files parsed first), then write them; returns the report."""
    plans = [plan_edit(path, fmt, mutate) for path, fmt, mutate in edits]
    try:
        files = [commit(p, action == "install") for p in plans]
    except OSError as e:
        raise ConfigError(f"{e.filename or 'config file'}: cannot write: {e.strerror}") from None

    def entries(*actions: str) -> list[str]:
        return [f"{f['path']}: {c['entry']}" for f in files for c in f["changes"]
                if c["action"] in actions]

    return {"action": action, "agent": agent, "scope": scope, "files": files,
            "pinned": pinned_env() if action == "install" else {},
            "changed": [f["path"] for f in files if f["status"] != "unchanged"],
            "backups": [f["backup"] for f in files if f["backup"]],
            "added": entries("added", "updated"), "removed": entries("removed"),
            "already_present": entries("present"),
            "notes": [f"{e}: a different server of that name is configured; left untouched"
                      for e in entries("conflict")]}


def claude_code_paths(scope: str, project: str | None = None, *, config_dir: str | None = None,
                      home: str | None = None) -> tuple[str, str]:
    """``(settings.json, MCP file)`` that Claude Code reads for ``scope``.

    ``"user"``: ``<dir>/settings.json`` and ``<dir>/.claude.json`` when a config dir is
    given (``config_dir``, else ``$CLAUDE_CONFIG_DIR``), otherwise
    ``<home>/.claude/settings.json`` and ``<home>/.claude.json`` (home defaults to ``~``).
    ``"project"``: ``<project>/.claude/settings.json`` and ``<project>/.mcp.json`` (project
    defaults to the current directory). Raises ConfigError for any other scope."""
    if scope == "project":
        root = os.path.abspath(project or os.getcwd())
        return os.path.join(root, ".claude", "settings.json"), os.path.join(root, ".mcp.json")
    if scope != "user":
        raise ConfigError(f"unknown scope {scope!r} (expected 'user' or 'project')")
    cfg = config_dir or os.environ.get("CLAUDE_CONFIG_DIR")
    if cfg:
        cfg = os.path.abspath(os.path.expanduser(cfg))
        return os.path.join(cfg, "settings.json"), os.path.join(cfg, ".claude.json")
    home = home or os.path.expanduser("~")
    return os.path.join(home, ".claude", "settings.json"), os.path.join(home, ".claude.json")


def install_claude_code(scope: str = "user", project: str | None = None, *,
                        config_dir: str | None = None, home: str | None = None
                        ) -> dict[str, Any]:
    """Add our hooks (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd) to the
    scope's ``settings.json`` and the ``hindsight`` stdio MCP server to its MCP file (see
    :func:`claude_code_paths`). Idempotent: an older entry of ours is replaced, never doubled.

    Returns ``{"action", "agent", "scope", "files": [{"path", "status", "backup", "changes":
    [{"action", "entry"}]}], "pinned": {variable: value written into the entries},
    "changed": [path], "backups": [path], "added": ["path: entry"], "removed": [...],
    "already_present": [...], "notes": [str]}``. Raises ConfigError
    (nothing written) for invalid JSON, an unexpected structure or an unreadable file."""
    settings, mcp = claude_code_paths(scope, project, config_dir=config_dir, home=home)
    return _run("install", "claude-code", scope, [
        (settings, JSON, _add_hooks(CLAUDE_EVENTS, None)), (mcp, JSON, _add_mcp_json)])


def uninstall_claude_code(scope: str = "user", project: str | None = None, *,
                          config_dir: str | None = None, home: str | None = None
                          ) -> dict[str, Any]:
    """Remove only our hook handlers and MCP server entry from the scope's files: a file
    left semantically equal to its pristine copy gets its original bytes back, a file we
    created that is now empty is deleted, anything else is written as 2-space JSON in its
    key order. Same report and errors as :func:`install_claude_code`."""
    settings, mcp = claude_code_paths(scope, project, config_dir=config_dir, home=home)
    return _run("uninstall", "claude-code", scope, [
        (settings, JSON, _remove_hooks), (mcp, JSON, _remove_server("mcpServers"))])


def codex_home_dir(codex_home: str | None = None) -> str:
    """``codex_home``, else ``$CODEX_HOME``, else ``~/.codex`` (absolute)."""
    return os.path.abspath(os.path.expanduser(
        codex_home or os.environ.get("CODEX_HOME") or os.path.join("~", ".codex")))


def _codex_notes(config_path: str) -> list[str]:
    data = read_bytes(config_path)
    try:
        conf = tomllib.loads(decode(data, config_path)) if data else {}
    except (tomllib.TOMLDecodeError, ConfigError):
        return []
    features = conf.get("features")
    off = isinstance(features, dict) and False in (features.get("hooks"),
                                                   features.get("codex_hooks"))
    return [f"{config_path}: {note}" for cond, note in (
        (conf.get("notify"), "your 'notify' program was left as it is"),
        (off, "hooks are off in [features]: our PostToolUse/Stop/SessionEnd hooks will not "
         "run"),
        (isinstance(conf.get("hooks"), dict),
         "has inline [hooks] too; Codex warns when a layer also has hooks.json")) if cond]


def install_codex(*, codex_home: str | None = None) -> dict[str, Any]:
    """Add ``[mcp_servers.hindsight]`` to ``<codex home>/config.toml`` (tomlkit, the rest of
    the file kept byte for byte) and our PostToolUse (``apply_patch``), Stop and SessionEnd
    hooks (``… hook <event> --harness codex``) to ``<codex home>/hooks.json``; codex home per :func:`codex_home_dir`.
    Same report as :func:`install_claude_code` (scope None), plus notes about an existing
    ``notify`` (left alone) or hooks switched off. Raises ConfigError, having written
    nothing, for invalid TOML/JSON."""
    home = codex_home_dir(codex_home)
    config = os.path.join(home, "config.toml")
    report = _run("install", "codex", None, [
        (config, TOML, _add_mcp_toml),
        (os.path.join(home, "hooks.json"), JSON, _add_hooks(CODEX_EVENTS, "codex"))])
    report["notes"].extend(_codex_notes(config))
    return report


def uninstall_codex(*, codex_home: str | None = None) -> dict[str, Any]:
    """Remove our ``[mcp_servers.hindsight]`` and hooks from the codex home; same restore
    rules, report and errors as :func:`uninstall_claude_code`."""
    home = codex_home_dir(codex_home)
    return _run("uninstall", "codex", None, [
        (os.path.join(home, "config.toml"), TOML, _remove_server("mcp_servers")),
        (os.path.join(home, "hooks.json"), JSON, _remove_hooks)])
