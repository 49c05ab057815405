"""The ``hindsight`` console script. Like :mod:`hindsight.app` for the services, this is
where the interface packages meet (they never import each other): it passes the commands of
the agent integrations (``hook``, ``install``/``uninstall``, ``import claude-code|codex``,
``mcp``, the ``agents`` part of ``status``) and the control plane (``ui``) to
:func:`hindsight.cli.app.build_cli`, which builds the one command tree."""

from __future__ import annotations


def main() -> None:
    """Console-script entry point. ``hook EVENT`` takes a fast path that does not load the
    CLI (see :mod:`hindsight.hooks.fast`)."""
    import sys

    if sys.argv[1:2] == ["hook"]:
        from hindsight.hooks.fast import fast_main

        rc = fast_main(sys.argv[2:])
        if rc is not None:
            sys.exit(rc)
    from hindsight.cli.app import build_cli, run
    from hindsight.hooks.command import commands as hook_commands
    from hindsight.hooks.command import import_sources
    from hindsight.hooks.install_cmd import commands as install_commands
    from hindsight.hooks.surfaces import agent_surfaces
    from hindsight.mcp.command import command as mcp_command
    from hindsight.ui.command import command as ui_command

    run(build_cli([*hook_commands(), *install_commands(), mcp_command(), ui_command()],
                  import_sources(), {"agents": agent_surfaces}))


if __name__ == "__main__":
    main()
