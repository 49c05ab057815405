"""Register hindsight with Cursor, GitHub Copilot CLI, Gemini CLI and Antigravity CLI, undo
it, and find which agents are
on this machine. Same machinery and guarantees as :mod:`hindsight.hooks.install` (every
file parsed before any is written, timestamped backups, original bytes restored, only our
entries removed, commands ``<python> -P -m hindsight …`` carrying the install's
``HINDSIGHT_HOME``/``HINDSIGHT_CONFIG``).

* **Cursor** (cursor.com/docs/hooks, …/docs/context/mcp): hooks in ``~/.cursor/hooks.json``
  (user) or ``<project>/.cursor/hooks.json``, ``{"version": 1, "hooks": {"<event>":
  [{"command": "…"}]}}``; no ``timeout`` is written (its unit is not documented; every hook
  bounds itself, :data:`hindsight.hooks.runtime.BUDGET_S`). MCP in ``~/.cursor/mcp.json`` or
  ``<project>/.cursor/mcp.json``, ``{"mcpServers": {"hindsight": {"command", "args",
  "env"}}}``.
* **GitHub Copilot CLI** (docs.github.com, CLI hooks reference; "Add MCP servers"): a hook
  file of our own, ``$COPILOT_HOME/hooks/hindsight.json`` (user, default ``~/.copilot``) or
  ``<project>/.github/hooks/hindsight.json``, ``{"version": 1, "hooks": {"<event>":
  [{"type": "command", "bash": "…", "timeoutSec": N}]}}`` (camelCase events, so payloads
  are camelCase). MCP in ``$COPILOT_HOME/mcp-config.json`` or ``<project>/.github/mcp.json``
  (``{"mcpServers": {"hindsight": {"type": "local", "command", "args", "env", "tools":
  ["*"]}}}``; ``.github/mcp.json`` rather than ``.mcp.json``, which Claude Code's project
  install writes with ``type: stdio``). Copilot runs repository hooks only in folders the
  user trusts.
* **Gemini CLI** (``docs/hooks``, ``docs/tools/mcp-server.md`` of google-gemini/gemini-cli):
  hooks and MCP servers in one ``settings.json``, ``~/.gemini/settings.json`` (user) or
  ``<project>/.gemini/settings.json``: ``{"hooks": {"<Event>": [{"matcher": "…", "hooks":
  [{"type": "command", "command": "…", "timeout": <milliseconds>}]}]}, "mcpServers":
  {"hindsight": {"command", "args", "env"}}}`` (Claude Code's nesting, but ``timeout`` in
  milliseconds: ``hookRunner.ts``). Project hooks are fingerprinted: Gemini asks to trust
  new or changed ones.
* **Antigravity CLI** (``agy``; entireio/cli ``agent/antigravity/hooks.go``, agy 1.0.x, and
  the peer memory tool's installer -- *third-party, not documented*): hooks under a bundle
  key of their own in ``~/.gemini/config/hooks.json`` (user) or
  ``<project>/.agents/hooks.json``: ``{"hindsight": {"PreInvocation": [{"type": "command",
  "command": "…"}], "Stop": [...]}}``; MCP in ``~/.gemini/config/mcp_config.json``
  (``mcpServers``; user scope only).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from hindsight.config.agents import (
    antigravity_config_dir,
    antigravity_dir,
    copilot_dir,
    cursor_dir,
    gemini_dir,
    user_home,
)
from hindsight.errors import ConfigError
from hindsight.hooks.configfiles import JSON, Changes, Format, Mutator, plan_edit
from hindsight.hooks.install import (
    MCP_NAME,
    _add_hooks,
    _mcp_entry,
    _remove_hooks,
    _remove_server,
    _run,
    _server_state,
    _sub,
    claude_code_paths,
    codex_home_dir,
    hook_command,
    is_our_command,
)

# agent event -> (our event, seconds or None: no timeout written)
CURSOR_EVENTS: dict[str, tuple[str, int | None]] = {
    "sessionStart": ("session-start", None),
    "beforeSubmitPrompt": ("user-prompt-submit", None),
    "afterFileEdit": ("edit", None),
    "stop": ("stop", None),
    "sessionEnd": ("session-end", None),
}
COPILOT_EVENTS: dict[str, tuple[str, int | None]] = {
    "sessionStart": ("session-start", 10),
    "userPromptTransformed": ("user-prompt-submit", 5),
    "postToolUse": ("edit", 5),
    "agentStop": ("stop", 30),
    "sessionEnd": ("session-end", 30),
}
HOOK_FILE = "hindsight.json"  # Copilot's hook file of ours
# Gemini event -> (our event, matcher or None, timeout in milliseconds)
GEMINI_EVENTS: dict[str, tuple[str, str | None, int]] = {
    "SessionStart": ("session-start", None, 10_000),
    "BeforeAgent": ("user-prompt-submit", None, 5_000),
    "AfterTool": ("edit", "write_file|replace", 5_000),
    "AfterAgent": ("stop", None, 30_000),
    "PreCompress": ("pre-compact", None, 30_000),
    "SessionEnd": ("session-end", None, 30_000),
}


def _versioned_bare(doc: Any) -> bool:
    return not {k: v for k, v in doc.items() if k != "version"}


HOOKS_JSON = Format(JSON.parse, JSON.dump, _versioned_bare)


def _flat_hooks(spec: dict[str, tuple[str, int | None]], harness: str, key: str,
                base: dict[str, Any], timeout_key: str, versioned: bool = True) -> Mutator:
    """Add our entries to a flat ``{"version": 1, "hooks": {event: [entry]}}`` file
    (``versioned`` False: no ``version`` key is written or checked): ``entry`` = ``base`` +
    ``{key: command}`` (+ ``{timeout_key: seconds}``)."""
    def mutate(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
        if not versioned:
            pass
        elif "version" not in doc:
            doc = {"version": 1, **doc}
        elif doc["version"] != 1:
            raise ConfigError(f"{path}: 'version' is {doc['version']!r}; hindsight writes "
                              "version 1 hooks only")
        hooks = _sub(doc, "hooks", path, dict)
        if hooks is None:
            hooks = doc["hooks"] = {}
        out: Changes = []
        for event, (name, timeout) in spec.items():
            entries = _sub(hooks, event, path, list) or []
            want = {**base, key: hook_command(name, harness)}
            if timeout is not None:
                want[timeout_key] = timeout
            ours = [e for e in entries if isinstance(e, dict) and is_our_command(e.get(key))]
            if ours == [want]:
                out.append(("present", f"hooks.{event}"))
                continue
            hooks[event] = [e for e in entries if not any(e is o for o in ours)] + [want]
            out.append(("updated" if ours else "added", f"hooks.{event}"))
        return doc, out
    return mutate


def _strip_flat(key: str) -> Mutator:
    """Remove our entries (``is_our_command(entry[key])``) from a flat hooks file."""
    def mutate(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
        hooks = _sub(doc, "hooks", path, dict)
        out: Changes = []
        for event in list(hooks or {}):
            entries = hooks[event]
            if not isinstance(entries, list):
                continue
            rest = [e for e in entries if not (isinstance(e, dict)
                                               and is_our_command(e.get(key)))]
            if len(rest) < len(entries):
                out.append(("removed", f"hooks.{event}"))
                if rest:
                    hooks[event] = rest
                else:
                    del hooks[event]
        if out and not hooks:
            del doc["hooks"]
        return doc, out
    return mutate


def _add_mcp(extra_first: dict[str, str], extra_last: dict[str, Any]) -> Mutator:
    """Add our server to ``mcpServers``: ``extra_first`` + command/args/env +
    ``extra_last``."""
    def mutate(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
        label = f"mcpServers.{MCP_NAME}"
        want = {**_mcp_entry(**extra_first), **extra_last}
        state = _server_state(_sub(doc, "mcpServers", path, dict), want, label)
        if state:
            return doc, [state]
        doc, old = _remove_server("mcpServers")(doc, path)
        doc.setdefault("mcpServers", {})[MCP_NAME] = want
        return doc, [("updated" if old else "added", label)]
    return mutate


def _both(first: Mutator, second: Mutator) -> Mutator:
    """One mutator doing ``first`` then ``second`` (two edits of one file)."""
    def mutate(doc: Any, path: str) -> tuple[Any, Changes]:
        doc, a = first(doc, path)
        doc, b = second(doc, path)
        return doc, a + b
    return mutate


def _project(scope: str, project: str | None) -> str | None:
    if scope not in ("user", "project"):
        raise ConfigError(f"unknown scope {scope!r} (expected 'user' or 'project')")
    return os.path.abspath(project or os.getcwd()) if scope == "project" else None


def cursor_paths(scope: str, project: str | None = None, *, home: str | None = None
                 ) -> tuple[str, str]:
    """``(hooks.json, mcp.json)`` Cursor reads for ``scope``: ``<home or ~>/.cursor/…``
    (user) or ``<project or cwd>/.cursor/…`` (project). Raises ConfigError for another
    scope."""
    root = _project(scope, project)
    folder = os.path.join(root, ".cursor") if root else cursor_dir(home)
    return os.path.join(folder, "hooks.json"), os.path.join(folder, "mcp.json")


def copilot_paths(scope: str, project: str | None = None, *, home: str | None = None
                  ) -> tuple[str, str]:
    """``(our hook file, MCP file)`` of Copilot CLI for ``scope``:
    ``<copilot dir>/hooks/hindsight.json`` and ``<copilot dir>/mcp-config.json`` (user;
    ``$COPILOT_HOME`` or ``<home or ~>/.copilot``), or ``<project>/.github/hooks/
    hindsight.json`` and ``<project>/.github/mcp.json``. Raises ConfigError for another
    scope."""
    root = _project(scope, project)
    if root:
        return (os.path.join(root, ".github", "hooks", HOOK_FILE),
                os.path.join(root, ".github", "mcp.json"))
    folder = copilot_dir(home)
    return os.path.join(folder, "hooks", HOOK_FILE), os.path.join(folder, "mcp-config.json")


def install_cursor(scope: str = "user", project: str | None = None, *,
                   home: str | None = None) -> dict[str, Any]:
    """Add our hooks (sessionStart, beforeSubmitPrompt, afterFileEdit, stop, sessionEnd,
    each ``… hook <event> --harness cursor``) and the ``hindsight`` MCP server to Cursor's
    files for ``scope`` (:func:`cursor_paths`). Idempotent. Returns the report of
    :func:`hindsight.hooks.install.install_claude_code`; raises ConfigError (nothing
    written) for invalid JSON or an unexpected structure."""
    hooks, mcp = cursor_paths(scope, project, home=home)
    return _run("install", "cursor", scope, [
        (hooks, HOOKS_JSON, _flat_hooks(CURSOR_EVENTS, "cursor", "command", {}, "timeout")),
        (mcp, JSON, _add_mcp({}, {}))])


def uninstall_cursor(scope: str = "user", project: str | None = None, *,
                     home: str | None = None) -> dict[str, Any]:
    """Remove only our hooks and MCP server from Cursor's files for ``scope``; same restore
    rules, report and errors as :func:`hindsight.hooks.install.uninstall_claude_code`."""
    hooks, mcp = cursor_paths(scope, project, home=home)
    return _run("uninstall", "cursor", scope, [
        (hooks, HOOKS_JSON, _strip_flat("command")), (mcp, JSON, _remove_server("mcpServers"))])


def install_copilot(scope: str = "user", project: str | None = None, *,
                    home: str | None = None) -> dict[str, Any]:
    """Write our hook file (sessionStart, userPromptTransformed, postToolUse, agentStop,
    sessionEnd, each ``… hook <event> --harness copilot``) and the ``hindsight`` MCP server
    for Copilot CLI's ``scope`` (:func:`copilot_paths`). Idempotent; report and errors as
    :func:`install_cursor`."""
    hooks, mcp = copilot_paths(scope, project, home=home)
    report = _run("install", "copilot", scope, [
        (hooks, HOOKS_JSON, _flat_hooks(COPILOT_EVENTS, "copilot", "bash",
                                        {"type": "command"}, "timeoutSec")),
        (mcp, JSON, _add_mcp({"type": "local"}, {"tools": ["*"]}))])
    if scope == "project":
        report["notes"].append("Copilot CLI runs a repository's hooks only in a folder you "
                               "trust")
    return report


def uninstall_copilot(scope: str = "user", project: str | None = None, *,
                      home: str | None = None) -> dict[str, Any]:
    """Remove our hooks and MCP server from Copilot CLI's files for ``scope`` (our hook
    file is deleted when nothing else is in it); as :func:`uninstall_cursor`."""
    hooks, mcp = copilot_paths(scope, project, home=home)
    return _run("uninstall", "copilot", scope, [
        (hooks, HOOKS_JSON, _strip_flat("bash")), (mcp, JSON, _remove_server("mcpServers"))])


def gemini_settings(scope: str, project: str | None = None, *, home: str | None = None
                    ) -> str:
    """The ``settings.json`` Gemini CLI reads for ``scope``: ``<home or ~>/.gemini/…``
    (user) or ``<project or cwd>/.gemini/…``. Raises ConfigError for another scope."""
    root = _project(scope, project)
    folder = os.path.join(root, ".gemini") if root else gemini_dir(home)
    return os.path.join(folder, "settings.json")


def _gemini_notes(path: str) -> list[str]:
    from hindsight.config.jsontext import loads
    from hindsight.hooks.configfiles import read_bytes

    try:
        conf = loads(read_bytes(path) or b"{}")
    except (ValueError, ConfigError):
        return []
    cfg = conf.get("hooksConfig") if isinstance(conf, dict) else None
    if isinstance(cfg, dict) and cfg.get("enabled") is False:
        return [f"{path}: hooksConfig.enabled is false: our hooks will not run"]
    return []


def install_gemini(scope: str = "user", project: str | None = None, *,
                   home: str | None = None) -> dict[str, Any]:
    """Add our hooks (SessionStart, BeforeAgent, AfterTool on write_file|replace,
    AfterAgent, PreCompress, SessionEnd, each ``… hook <event> --harness gemini``, timeouts
    in milliseconds) and the ``hindsight`` MCP server to the Gemini CLI ``settings.json``
    of ``scope`` (:func:`gemini_settings`). Idempotent; report and errors as
    :func:`install_cursor`, plus a note when hooks are switched off there."""
    settings = gemini_settings(scope, project, home=home)
    report = _run("install", "gemini", scope, [
        (settings, JSON, _both(_add_hooks(GEMINI_EVENTS, "gemini"), _add_mcp({}, {})))])
    report["notes"] += _gemini_notes(settings)
    if scope == "project":
        report["notes"].append("Gemini CLI asks you to trust new or changed project hooks")
    return report


def uninstall_gemini(scope: str = "user", project: str | None = None, *,
                     home: str | None = None) -> dict[str, Any]:
    """Remove our hooks and MCP server from Gemini CLI's ``settings.json`` of ``scope``;
    as :func:`uninstall_cursor`."""
    return _run("uninstall", "gemini", scope, [
        (gemini_settings(scope, project, home=home), JSON,
         _both(_remove_hooks, _remove_server("mcpServers")))])


ANTIGRAVITY_EVENTS = {"PreInvocation": "session-start", "Stop": "stop"}
BUNDLE = "hindsight"  # our key in agy's hooks.json


def _bundle_entry() -> dict[str, Any]:
    return {event: [{"type": "command", "command": hook_command(name, "antigravity")}]
            for event, name in ANTIGRAVITY_EVENTS.items()}


def _is_our_bundle(value: Any) -> bool:
    return isinstance(value, dict) and any(
        isinstance(h, dict) and is_our_command(h.get("command"))
        for handlers in value.values() if isinstance(handlers, list) for h in handlers)


def _add_bundle(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
    want, cur = _bundle_entry(), doc.get(BUNDLE)
    if cur == want:
        return doc, [("present", BUNDLE)]
    if cur is not None and not _is_our_bundle(cur):
        return doc, [("conflict", BUNDLE)]
    doc[BUNDLE] = want
    return doc, [("updated" if cur is not None else "added", BUNDLE)]


def _remove_bundle(doc: dict[str, Any], path: str) -> tuple[Any, Changes]:
    if not _is_our_bundle(doc.get(BUNDLE)):
        return doc, []
    del doc[BUNDLE]
    return doc, [("removed", BUNDLE)]


def antigravity_paths(scope: str, project: str | None = None, *, home: str | None = None
                      ) -> tuple[str, str | None]:
    """``(hooks.json, MCP file or None)`` of Antigravity CLI for ``scope``:
    ``<home or ~>/.gemini/config/hooks.json`` and ``…/mcp_config.json`` (user), or
    ``<project>/.agents/hooks.json`` and no MCP file (no project-level one is known).
    Raises ConfigError for another scope."""
    root = _project(scope, project)
    if root:
        return os.path.join(root, ".agents", "hooks.json"), None
    folder = antigravity_config_dir(home)
    return os.path.join(folder, "hooks.json"), os.path.join(folder, "mcp_config.json")


def install_antigravity(scope: str = "user", project: str | None = None, *,
                        home: str | None = None) -> dict[str, Any]:
    """Add our bundle (``PreInvocation`` → ``… hook session-start --harness antigravity``,
    ``Stop`` → ``… hook stop --harness antigravity``) to agy's ``hooks.json`` and, for the
    user scope, the ``hindsight`` server to its ``mcp_config.json``
    (:func:`antigravity_paths`). Idempotent; report and errors as :func:`install_cursor`."""
    hooks, mcp = antigravity_paths(scope, project, home=home)
    edits: list[tuple[str, Format, Mutator]] = [(hooks, JSON, _add_bundle)]
    if mcp:
        edits.append((mcp, JSON, _add_mcp({}, {})))
    report = _run("install", "antigravity", scope, edits)
    if not mcp:
        report["notes"].append("the MCP server goes in ~/.gemini/config/mcp_config.json: "
                               "hindsight install antigravity (user scope)")
    return report


def uninstall_antigravity(scope: str = "user", project: str | None = None, *,
                          home: str | None = None) -> dict[str, Any]:
    """Remove our bundle and MCP server from agy's files for ``scope``; as
    :func:`uninstall_cursor`."""
    hooks, mcp = antigravity_paths(scope, project, home=home)
    edits: list[tuple[str, Format, Mutator]] = [(hooks, JSON, _remove_bundle)]
    if mcp:
        edits.append((mcp, JSON, _remove_server("mcpServers")))
    return _run("uninstall", "antigravity", scope, edits)


def _installed(edits: list[tuple[str, Format, Mutator]]) -> bool | None:
    """Whether an uninstall would remove something (True), nothing (False), or the files
    cannot be read (None). Writes nothing."""
    try:
        return any(a == "removed" for path, fmt, mutate in edits
                   for a, _ in plan_edit(path, fmt, mutate).changes)
    except ConfigError:
        return None


def detect(*, home: str | None = None) -> list[dict[str, Any]]:
    """The coding agents found on this machine, one ``{"agent", "label", "found",
    "evidence": [str], "installed": bool | None}`` per agent hindsight integrates. Checked:
    the agent's user directory (``~/.claude`` or ``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME`` or
    ``~/.codex``, ``~/.cursor``, ``$COPILOT_HOME`` or ``~/.copilot``, ``~/.gemini``,
    ``~/.gemini/antigravity-cli``, and those of :func:`hindsight.hooks.install_more.
    detect_rows`) and its command on ``PATH`` (``claude``, ``codex``,
    ``cursor-agent``/``cursor``, ``copilot``, ``gemini``, ``agy``, …).
    ``installed``: hindsight's entries are in the user-scope files (None: unreadable)."""
    h = home or user_home()
    settings, claude_mcp = claude_code_paths("user", home=h)
    codex = codex_home_dir()
    c_hooks, c_mcp = cursor_paths("user", home=h)
    p_hooks, p_mcp = copilot_paths("user", home=home)
    table: list[tuple[str, str, str, tuple[str, ...], list[Any]]] = [
        ("claude-code", "Claude Code", os.path.dirname(settings), ("claude",),
         [(settings, JSON, _remove_hooks), (claude_mcp, JSON, _remove_server("mcpServers"))]),
        ("codex", "Codex", codex, ("codex",),
         [(os.path.join(codex, "hooks.json"), JSON, _remove_hooks)]),
        ("cursor", "Cursor", os.path.dirname(c_hooks), ("cursor-agent", "cursor"),
         [(c_hooks, HOOKS_JSON, _strip_flat("command")),
          (c_mcp, JSON, _remove_server("mcpServers"))]),
        ("copilot", "GitHub Copilot CLI", os.path.dirname(os.path.dirname(p_hooks)),
         ("copilot",), [(p_hooks, HOOKS_JSON, _strip_flat("bash")),
                        (p_mcp, JSON, _remove_server("mcpServers"))]),
        ("gemini", "Gemini CLI", gemini_dir(h), ("gemini",),
         [(gemini_settings("user", home=h), JSON, _both(_remove_hooks,
                                                        _remove_server("mcpServers")))]),
        ("antigravity", "Antigravity CLI", antigravity_dir(h), ("agy",),
         [(os.path.join(antigravity_config_dir(h), "hooks.json"), JSON, _remove_bundle)]),
    ]
    from hindsight.hooks.install_more import detect_rows

    table += detect_rows(h)
    out = []
    for agent, label, folder, commands, edits in table:
        evidence = [f"{folder}/"] if os.path.isdir(folder) else []
        evidence += [w for w in (shutil.which(c) for c in commands) if w]
        out.append({"agent": agent, "label": label, "found": bool(evidence),
                    "evidence": evidence, "installed": _installed(edits)})
    return out
