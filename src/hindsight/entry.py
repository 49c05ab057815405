"""The ``hindsight`` console script. Like :mod:`hindsight.app` for the services, this is
where the interface packages meet (they never import each other): it passes the commands of
the agent integrations (``hook``, ``install``/``uninstall``, ``import claude-code|codex``,
``mcp``, the ``agents`` part of ``status``) and the control plane (``ui``) to
:func:`hindsight.cli.app.build_cli`, which builds the one command tree."""

from __future__ import annotations

# the team server (``serve``, ``token``) mounts this MCP server at /mcp, imported by name
MCP_FACTORY = "hindsight.mcp.server:build_mcp_server"


def isolate() -> list[str]:
    """Drop from ``sys.path`` what the user's environment put there — the ``PYTHONPATH``
    entries and, without ``-P``, the working directory — unless it holds this hindsight,
    so that a repository's own modules (a ``click/`` under ``src`` with
    ``PYTHONPATH=src``) are never imported in place of our dependencies: opening a
    repository must not import its code. Returns the entries dropped."""
    import os
    import sys

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cwd = os.getcwd()
    foreign = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
               if p}
    if not sys.flags.safe_path:
        foreign.add(cwd)
    keep: list[str] = []
    dropped: list[str] = []
    for p in sys.path:
        full = os.path.abspath(p or cwd)
        (dropped if full in foreign and full != here else keep).append(p)
    sys.path[:] = keep
    return dropped


def main() -> None:
    """Console-script entry point. ``hook EVENT`` takes a fast path that does not load the
    CLI (see :mod:`hindsight.hooks.fast`). :func:`isolate` runs first."""
    import sys

    isolate()

    if sys.argv[1:2] == ["hook"]:
        from hindsight.hooks.fast import fast_main

        rc = fast_main(sys.argv[2:])
        if rc is not None:
            from hindsight.hooks.fast import leave

            leave(rc)
    from hindsight.cli.app import build_cli, run
    from hindsight.hooks.command import commands as hook_commands
    from hindsight.hooks.command import import_sources
    from hindsight.hooks.install_cmd import commands as install_commands
    from hindsight.mcp.command import command as mcp_command
    from hindsight.server.command import commands as server_commands
    from hindsight.ui.command import command as ui_command

    run(build_cli([*hook_commands(), *install_commands(), mcp_command(), ui_command(),
                   *server_commands(mcp_factory=MCP_FACTORY)], import_sources(),
                  {"agents": _agent_surfaces}))


def _agent_surfaces(root: str) -> object:
    """``hooks.surfaces.agent_surfaces``, imported when ``status`` asks (~30 ms of
    imports every other command does not pay)."""
    from hindsight.hooks.surfaces import agent_surfaces

    return agent_surfaces(root)


if __name__ == "__main__":
    main()
