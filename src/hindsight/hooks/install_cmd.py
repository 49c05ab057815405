"""``hindsight install|uninstall <agent>`` (claude-code, codex, cursor, copilot, gemini,
antigravity, windsurf, cline, opencode, kilo) and ``hindsight install --detect``: click commands over :mod:`hindsight.hooks.install` and
:mod:`hindsight.hooks.install_agents`.

:func:`commands` returns the ``install`` and ``uninstall`` groups for the main CLI to
register. For a standalone run: ``python -m hindsight.hooks.install_cmd install claude-code``.
Errors (:class:`hindsight.errors.HindsightError`) print one line on stderr and exit with the
error's ``exit_code`` (2 for a config file that cannot be parsed).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

_AGENTS = {"claude-code": "Claude Code", "codex": "Codex", "cursor": "Cursor",
           "copilot": "GitHub Copilot CLI", "gemini": "Gemini CLI",
           "antigravity": "Antigravity CLI", "windsurf": "Windsurf", "cline": "Cline",
           "opencode": "opencode", "kilo": "Kilo Code"}
_MORE = ("windsurf", "cline", "opencode", "kilo")  # in hooks.install_more
_HINTS = {"windsurf": "Windsurf reloads hooks.json; open a new Cascade conversation (and "
                      "refresh the MCP servers in Cascade's settings).",
          "cline": "Start a new Cline task (hooks need Cline's \"Enable Hooks\" setting; "
                   "macOS and Linux only).",
          "opencode": "Restart opencode (it loads plugins and MCP servers at start).",
          "kilo": "Restart Kilo (it loads plugins and MCP servers at start)."}


def _restart_hint(report: dict[str, Any]) -> str:
    if report["agent"] == "codex":
        if report["action"] != "install":
            return "Restart Codex."
        return ("Restart Codex; new hooks wait for your review in /hooks, and Codex runs "
                "them only once trusted.")
    if report["agent"] == "cursor":
        return ("Cursor reloads hooks.json on save; open a new chat (and restart Cursor for the "
                "MCP server).")
    if report["agent"] == "copilot":
        return "Start a new Copilot CLI session."
    if report["agent"] == "gemini":
        return "Start a new Gemini CLI session (/hooks lists the hooks it loaded)."
    if report["agent"] == "antigravity":
        return "Start a new agy conversation."
    if report["agent"] in _HINTS:
        return _HINTS[report["agent"]]
    hint = "Restart Claude Code (running sessions keep their old hooks and MCP servers)."
    if report["scope"] == "project" and report["action"] == "install":
        hint += " Claude Code asks once to approve the project's .mcp.json server."
    return hint


def _summary(report: dict[str, Any]) -> str:
    """A few lines for people: what each file went through, backups, what to restart."""
    agent = _AGENTS[report["agent"]]
    scope = f" ({report['scope']} scope)" if report["scope"] else ""
    verb = "Installed" if report["action"] == "install" else "Uninstalled"
    if not report["changed"]:
        state = "already installed" if report["action"] == "install" else "not installed"
        lines = [f"hindsight is {state} for {agent}{scope}: nothing changed."]
    else:
        lines = [f"{verb} hindsight for {agent}{scope}:"]
    for f in report["files"]:
        entries = ", ".join(c["entry"] for c in f["changes"]) or "no hindsight entries"
        lines.append(f"  {f['status']:<9} {f['path']}  [{entries}]")
        if f["backup"]:
            lines.append(f"            backup: {f['backup']}")
    if report.get("pinned"):
        lines.append("  the entries use " + ", ".join(
            f"{k}={v}" for k, v in report["pinned"].items()) + " (as set for this install)")
    lines += [f"  note: {n}" for n in report["notes"]]
    if report["changed"]:
        lines.append(_restart_hint(report))
    return "\n".join(lines)


def _execute(fn: Callable[[], dict[str, Any]], as_json: bool) -> None:
    """Run an install/uninstall and print its report (errors are mapped once, by the
    command line's root group)."""
    report = fn()
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(_summary(report) + "\n")


_json_opt = click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
_scope_opt = click.option("--scope", type=click.Choice(["user", "project"]), default="user",
                          show_default=True,
                          help="user: ~/.claude (or $CLAUDE_CONFIG_DIR); project: "
                               "<project>/.claude/settings.json and <project>/.mcp.json.")
_project_opt = click.option("--project", "project", default=None, metavar="PATH",
                            type=click.Path(file_okay=False),
                            help="Project directory for --scope project (default: cwd).")


# verb -> (group help, claude-code help, codex help)
_HELP = {
    "install": ("Register hindsight's hooks and MCP server with a coding agent.",
                "Add hindsight's hooks and MCP server to Claude Code's settings (idempotent; "
                "backups are written next to each changed file).",
                "Add hindsight's MCP server and Stop/SessionEnd hooks to Codex ($CODEX_HOME)."),
    "uninstall": ("Remove hindsight's hooks and MCP server from a coding agent's settings.",
                  "Remove only hindsight's entries; a file unchanged since install gets its "
                  "original bytes back.",
                  "Remove hindsight's MCP server and hooks from Codex ($CODEX_HOME)."),
}


def _detect_text(found: list[dict[str, Any]]) -> str:
    lines = ["Coding agents on this machine (their user directory, their command on PATH):"]
    for d in found:
        state = {True: "hindsight installed", False: "hindsight not installed",
                 None: "its config cannot be read"}[d["installed"]]
        where = ", ".join(d["evidence"]) if d["found"] else "not found"
        lines.append(f"  {d['agent']:<12} {where}  [{state}]")
    todo = [d["agent"] for d in found if d["found"] and d["installed"] is False]
    if todo:
        lines.append("Install with: " + "; ".join(f"hindsight install {a}" for a in todo))
    return "\n".join(lines)


def _agent_command(verb: str, agent: str) -> click.Command:
    """``<verb> cursor|copilot|gemini|antigravity`` (``--scope``, ``--project``,
    ``--json``)."""
    label = _AGENTS[agent]
    what = {"windsurf": "hooks, rule", "cline": "hook scripts, rules file",
            "opencode": "plugin", "kilo": "plugin"}.get(agent, "hooks")
    helps = {"install": f"Add hindsight's {what} and MCP server to {label} (idempotent; "
                        "backups are written next to each changed file).",
             "uninstall": f"Remove only hindsight's entries from {label}; a file unchanged "
                          "since install gets its original bytes back."}

    @click.command(agent, help=helps[verb])
    @click.option("--scope", type=click.Choice(["user", "project"]), default="user",
                  show_default=True, help="user: your home directory's files; project: the "
                  "repository's (see README, Agents).")
    @_project_opt
    @_json_opt
    def cmd(scope: str, project: str | None, as_json: bool) -> None:
        from hindsight.hooks import install_agents, install_more

        fn = getattr(install_more if agent in _MORE else install_agents, f"{verb}_{agent}")
        _execute(lambda: fn(scope, project or os.getcwd()), as_json)

    return cmd


def _group(verb: str) -> click.Group:
    """``install`` or ``uninstall``: subcommands calling ``<verb>_<agent>`` of
    :mod:`hindsight.hooks.install` (claude-code, codex) and
    :mod:`hindsight.hooks.install_agents` (cursor, copilot); ``install --detect``."""
    group_help, cc_help, codex_help = _HELP[verb]
    if verb == "install":
        @click.group(verb, help=group_help, invoke_without_command=True)
        @click.option("--detect", is_flag=True, help="List the coding agents found on this "
                      "machine (user directory, command on PATH) and whether hindsight is "
                      "installed for each; changes nothing.")
        @_json_opt
        @click.pass_context
        def group(ctx: click.Context, detect: bool, as_json: bool) -> None:
            if ctx.invoked_subcommand is not None:
                return
            if not detect:
                click.echo(ctx.get_help())
                return
            from hindsight.hooks.install_agents import detect as find

            found = find()
            sys.stdout.write(json.dumps(found, indent=2) + "\n" if as_json
                             else _detect_text(found) + "\n")
    else:
        group = click.Group(verb, help=group_help)
    for agent in ("cursor", "copilot", "gemini", "antigravity", *_MORE):
        group.add_command(_agent_command(verb, agent))

    @group.command("claude-code", help=cc_help)
    @_scope_opt
    @_project_opt
    @_json_opt
    def claude_code(scope: str, project: str | None, as_json: bool) -> None:
        from hindsight.hooks import install

        fn = getattr(install, f"{verb}_claude_code")
        _execute(lambda: fn(scope, project or os.getcwd()), as_json)

    @group.command("codex", help=codex_help)
    @_json_opt
    def codex(as_json: bool) -> None:
        from hindsight.hooks import install

        _execute(getattr(install, f"{verb}_codex"), as_json)

    return group


def commands() -> list[click.Command]:
    """The ``install`` and ``uninstall`` click groups, each with ``claude-code``, ``cursor``
    and ``copilot`` (``--scope user|project``, ``--project PATH``, ``--json``) and ``codex``
    (``--json``); ``install --detect [--json]``."""
    return [_group("install"), _group("uninstall")]
