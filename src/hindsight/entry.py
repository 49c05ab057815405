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
    import click

    from hindsight.cli import memory as _memory  # noqa: F401  (registers `import FILE`)
    from hindsight.cli.main import app
    from hindsight.cli.main import main as cli_main
    from hindsight.hooks.command import commands as hook_commands
    from hindsight.hooks.install_cmd import commands as install_commands
    from hindsight.mcp.command import command as mcp_command

    file_import = app.commands["import"]
    for c in [*hook_commands(), *install_commands(), mcp_command()]:
        app.add_command(c)
    group = app.commands["import"]
    assert isinstance(group, click.Group)
    group.__class__ = _make_import_group()
    file_import.hidden = True
    group.add_command(file_import, _FILE)
    cli_main()


_FILE = "file"


def _make_import_group() -> type:
    import click

    class ImportGroup(click.Group):
        """`import claude-code`, `import codex`, and `import FILE` (memories exported by
        `hindsight export`): anything that is not a subcommand is the FILE form."""

        def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
            if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
                args = [_FILE, *args]
            return super().parse_args(ctx, args)

    return ImportGroup


if __name__ == "__main__":
    main()
