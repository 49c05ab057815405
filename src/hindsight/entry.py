"""The ``hindsight`` console script: the CLI plus the commands of the agent integrations
(``hook``, ``import``, ``install``/``uninstall``, ``mcp``). Composition, like app.py: the
interface packages never import each other, so they meet here."""

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
    from hindsight.cli.main import app
    from hindsight.cli.main import main as cli_main
    from hindsight.hooks.command import commands as hook_commands
    from hindsight.hooks.install_cmd import commands as install_commands
    from hindsight.mcp.command import command as mcp_command

    for c in [*hook_commands(), *install_commands(), mcp_command()]:
        app.add_command(c)
    cli_main()


if __name__ == "__main__":
    main()
