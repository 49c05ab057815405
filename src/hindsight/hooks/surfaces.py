"""Which agents hindsight is installed for, at which scope, and which of the four surfaces
(session briefing, per-prompt recall, edit trace, transcript write-back) and the MCP server
are live for each: the ``agents`` part of ``hindsight status`` (README: Agents, the agent ×
surface table).

An entry counts when an uninstall would remove it (the same parse of the agent's files,
nothing written). A surface is *live* when the entries it needs are there (at either
scope) and no setting turns it off (``disabled``, ``disableHooks``, Cursor's
``cursorPromptContext``); one the agent cannot have is reported with how the agent gets it
instead (``live`` None).
"""

from __future__ import annotations

import os
from typing import Any

from hindsight.errors import ConfigError, HindsightError
from hindsight.hooks.configfiles import JSON, TOML, Format, Mutator, plan_edit
from hindsight.hooks.install import (
    _remove_hooks,
    _remove_server,
    claude_code_paths,
    codex_home_dir,
)

SURFACES = ("brief", "recall", "edits", "write-back", "mcp")
WB = "=write-back"  # edits seen in the transcript: live when the write-back is
MCP = "mcpServers.hindsight"
# agent -> surface -> (alternatives, how): an alternative is one entry label or labels
# joined by "+" (all needed); no alternative: the agent has no such surface
Spec = dict[str, tuple[tuple[str, ...], str]]
_CLAUDE: Spec = {
    "brief": (("hooks.SessionStart",), "SessionStart hook → additionalContext"),
    "recall": (("hooks.UserPromptSubmit",), "UserPromptSubmit hook → additionalContext"),
    "edits": (("hooks.PostToolUse", WB), "tool calls, at write-back"),
    "write-back": (("hooks.Stop", "hooks.PreCompact", "hooks.SessionEnd"),
                   "Stop, PreCompact, SessionEnd hooks + transcript_path"),
    "mcp": ((MCP,), "MCP server")}
SPECS: dict[str, Spec] = {
    "claude-code": _CLAUDE,
    "codex": {
        "brief": ((), "none: Codex hooks give no context (MCP tools)"),
        "recall": ((), "none (MCP tools)"),
        "edits": (("hooks.PostToolUse", WB), "PostToolUse hook on apply_patch; tool "
                  "calls in the rollout, at write-back"),
        "write-back": (("hooks.Stop", "hooks.SessionEnd"), "Stop, SessionEnd hooks"),
        "mcp": (("mcp_servers.hindsight",), "MCP server (config.toml)")},
    "cursor": {
        "brief": (("hooks.sessionStart",), "sessionStart hook → additional_context"),
        "recall": (("hooks.beforeSubmitPrompt",), "beforeSubmitPrompt hook → "
                   "additional_context (undocumented)"),
        "edits": (("hooks.afterFileEdit",), "afterFileEdit hook"),
        "write-back": (("hooks.stop", "hooks.sessionEnd"), "stop, sessionEnd hooks"),
        "mcp": ((MCP,), "MCP server")},
    "copilot": {
        "brief": (("hooks.sessionStart",), "sessionStart hook → additionalContext"),
        "recall": (("hooks.userPromptTransformed",), "userPromptTransformed hook → "
                   "modifiedTransformedPrompt"),
        "edits": (("hooks.postToolUse",), "postToolUse hook"),
        "write-back": (("hooks.agentStop", "hooks.sessionEnd"), "agentStop, sessionEnd hooks"),
        "mcp": ((MCP,), "MCP server")},
    "gemini": {
        "brief": (("hooks.SessionStart",), "SessionStart hook → additionalContext"),
        "recall": (("hooks.BeforeAgent",), "BeforeAgent hook → additionalContext"),
        "edits": (("hooks.AfterTool",), "AfterTool hook (write_file|replace)"),
        "write-back": (("hooks.AfterAgent", "hooks.PreCompress", "hooks.SessionEnd"),
                       "AfterAgent, PreCompress, SessionEnd hooks"),
        "mcp": ((MCP,), "MCP server")},
    "antigravity": {
        "brief": (("hindsight",), "first PreInvocation → injectSteps (third-party)"),
        "recall": ((), "none: no prompt in the payload (briefing + MCP tools)"),
        "edits": ((WB,), "tool calls, at write-back"),
        "write-back": (("hindsight",), "Stop hook (fullyIdle)"),
        "mcp": ((MCP,), "MCP server")},
    "windsurf": {
        "brief": ((f"hindsight block+{MCP}", f"hindsight.md+{MCP}"),
                  "rule → the MCP tools (hooks cannot inject)"),
        "recall": ((), "none: hooks cannot inject (rule + MCP tools)"),
        "edits": (("hooks.post_write_code",), "post_write_code hook"),
        "write-back": (("hooks.post_cascade_response_with_transcript",),
                       "post_cascade_response_with_transcript hook"),
        "mcp": ((MCP,), "MCP server")},
    "cline": {
        "brief": (("TaskStart", "TaskResume"), "TaskStart/TaskResume hooks → "
                  "contextModification (the CLI: rules file + MCP tools)"),
        "recall": (("UserPromptSubmit",), "UserPromptSubmit hook → contextModification"),
        "edits": (("PostToolUse",), "PostToolUse hook"),
        "write-back": (("TaskComplete", "TaskCancel", "PreCompact"),
                       "TaskComplete, TaskCancel, PreCompact hooks + task history"),
        "mcp": ((MCP,), "MCP server")},
    "opencode": {
        "brief": (("hindsight.js",), "plugin: first chat.message → system prompt"),
        "recall": (("hindsight.js",), "plugin: chat.message → system prompt"),
        "edits": (("hindsight.js",), "plugin: tool.execute.after"),
        "write-back": (("hindsight.js",), "plugin: session.idle messages"),
        "mcp": (("mcp.hindsight",), "MCP server")},
}
SPECS["kilo"] = {k: (tuple(f"{a}+plugin" if a == "hindsight.js" else a for a in alts), how)
                 for k, (alts, how) in SPECS["opencode"].items()}
# surfaces (besides the MCP server) that do not run through hindsight's hooks
HOOKLESS = frozenset({("windsurf", "brief")})


def _edits(agent: str, scope: str, project: str) -> list[tuple[str, Format, Mutator]]:
    """The uninstall edits of ``agent`` at ``scope`` (what an uninstall would look at)."""
    from hindsight.hooks import install_agents as ia
    from hindsight.hooks import install_more as im

    if agent == "claude-code":
        settings, mcp = claude_code_paths(scope, project)
        return [(settings, JSON, _remove_hooks), (mcp, JSON, _remove_server("mcpServers"))]
    if agent == "codex":
        if scope != "user":
            return []
        home = codex_home_dir()
        return [(os.path.join(home, "config.toml"), TOML, _remove_server("mcp_servers")),
                (os.path.join(home, "hooks.json"), JSON, _remove_hooks)]
    if agent in ("cursor", "copilot"):
        hooks, mcp = (ia.cursor_paths if agent == "cursor" else ia.copilot_paths)(scope,
                                                                                  project)
        key = "command" if agent == "cursor" else "bash"
        return [(hooks, ia.HOOKS_JSON, ia._strip_flat(key)),
                (mcp, JSON, _remove_server("mcpServers"))]
    if agent == "gemini":
        return [(ia.gemini_settings(scope, project), JSON,
                 ia._both(_remove_hooks, _remove_server("mcpServers")))]
    if agent == "antigravity":
        hooks, maybe = ia.antigravity_paths(scope, project)
        return [(hooks, JSON, ia._remove_bundle)] + (
            [(maybe, JSON, _remove_server("mcpServers"))] if maybe else [])
    if agent == "windsurf":
        return im._windsurf_edits("uninstall", scope, project, None)
    if agent == "cline":
        return im._cline_edits("uninstall", scope, project, None)
    return im._opencode_edits(agent, "uninstall", scope, project, None)


def _entries(agent: str, scope: str, project: str) -> tuple[list[str], str]:
    """``(labels of our entries present, error)`` of ``agent`` at ``scope``."""
    try:
        edits = _edits(agent, scope, project)
        return [label for path, fmt, mutate in edits
                for action, label in plan_edit(path, fmt, mutate).changes
                if action == "removed"], ""
    except (ConfigError, OSError) as e:
        return [], str(e)


def _gates(agent: str) -> tuple[str, str]:
    """``(why hooks are off, why per-prompt recall is off)``, "" when they are not."""
    from hindsight.config.settings import load

    try:
        s = load(agent)
    except HindsightError as e:
        return f"settings: {e}", ""
    off = "disabled" if s["disabled"] else "disableHooks" if s["disableHooks"] else ""
    prompt = "cursorPromptContext is off" if agent == "cursor" and not \
        s["cursorPromptContext"] else ""
    return off, prompt


def agent_surfaces(project: str) -> list[dict[str, Any]]:
    """One record per agent hindsight integrates: ``{"agent", "installed": [scope…],
    "scopes": {"user": [entry…], "project": [entry…]}, "surfaces": {surface: {"live":
    bool | None, "how": str}}, "notes": [str]}`` -- surfaces in :data:`SURFACES` order,
    ``live`` None when the agent has no such surface (``how`` says what stands in for
    it); ``project``: the repository whose project-scope files are read. Reads the files
    the agents read (user scope: ``~``, ``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``,
    ``$COPILOT_HOME``, ``$XDG_CONFIG_HOME``); writes nothing."""
    out = []
    for agent, spec in SPECS.items():
        scopes, notes = {}, []
        for scope in ("user", "project"):
            scopes[scope], err = _entries(agent, scope, project)
            if err:
                notes.append(err)
        have = set(scopes["user"]) | set(scopes["project"])
        hooks_off, prompt_off = _gates(agent)
        surfaces: dict[str, dict[str, Any]] = {}
        for name in ("brief", "recall", "write-back", "edits", "mcp"):  # edits may need WB
            alts, how = spec[name]
            if not alts:
                surfaces[name] = {"live": None, "how": how}
                continue
            live = any(all(part in have or (part == WB and surfaces["write-back"]["live"])
                           for part in alt.split("+")) for alt in alts)
            if live and (agent, name) not in HOOKLESS and name != "mcp" and hooks_off:
                live, how = False, f"{how} ({hooks_off} is on)"
            if live and name == "recall" and prompt_off:
                live, how = False, f"{how} ({prompt_off})"
            surfaces[name] = {"live": live, "how": how}
        out.append({"agent": agent, "installed": [s for s in scopes if scopes[s]],
                    "scopes": scopes, "surfaces": {k: surfaces[k] for k in SURFACES},
                    "notes": notes})
    return out
