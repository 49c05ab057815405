"""The whole ``hindsight`` command tree, built in one place.

:func:`build_cli` makes the root group from this package's commands (code index, history,
memory, config) plus the commands the console script (:mod:`hindsight.entry`) passes in
from the agent-integration packages (``hook``, ``install``/``uninstall``, ``mcp``, and the
sources of ``import``). No command registers itself by being imported; errors of every
command are mapped once, by :mod:`hindsight.cli.errors`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import click

from hindsight.cli.errors import handled

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
FILE = "file"


class RootGroup(click.Group):
    """The root group: every command runs inside the CLI's one error mapping."""

    def invoke(self, ctx: click.Context) -> Any:
        with handled():
            return super().invoke(ctx)


class OldName(click.Group):
    """A group kept under its old name for one release: says the new one on stderr."""

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.invoked_subcommand != "run-git":  # installed git hooks still call it
            sys.stderr.write("hindsight: `hooks` is now `git-hooks`; the old name goes in "
                             "the next release\n")
        return super().invoke(ctx)


class ImportGroup(click.Group):
    """``import claude-code``, ``import codex`` and ``import FILE`` (memories exported by
    ``hindsight export``): a first argument that is not a subcommand is the FILE form."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = [FILE, *args]
        return super().parse_args(ctx, args)


def build_cli(extra: Iterable[click.Command] = (),
              import_sources: Iterable[click.Command] = (),
              status_sections: Mapping[str, Callable[[str], Any]] | None = None
              ) -> click.Group:
    """The root group with every command; ``extra`` are added as they are, and
    ``import_sources`` become subcommands of ``import`` beside its FILE form.
    ``status_sections``: name → function of the repository root whose answer ``status``
    shows under that name (``agents``: the agent integrations' surfaces)."""
    from hindsight.cli import config_cmd, context_cmd, history, main, memory, records
    from hindsight.cli.pages import pages

    root = RootGroup("hindsight", context_settings={
        **CONTEXT, "obj": {"status_sections": dict(status_sections or {})}},
                     help="Persistent, per-repository memory for coding agents.")
    click.version_option(package_name="hindsight-code", prog_name="hindsight")(root)
    for cmd in (main.init, main.index, main.symbols, main.callers, main.callees, main.trace,
                main.debug, main.status, history.ingest, history.history, history.why,
                history.impact, history.hotspots, history.trace_log, history.watch,
                history.git_hooks, memory.retain, memory.recall, memory.forget,
                memory.memories, memory.show, memory.gc, memory.export_cmd, memory.reembed,
                memory.push, memory.reflect, records.run, records.attempts, pages,
                config_cmd.config,
                context_cmd.context, context_cmd.search):
        root.add_command(cmd)
    alias = OldName("hooks", commands=dict(history.git_hooks.commands), hidden=True,
                    help="Old name of git-hooks (kept for one release).")
    root.add_command(alias)
    imports = ImportGroup("import", help="Import earlier agent sessions into this "
                          "repository's bank (idempotent), or, as `hindsight import FILE`, "
                          "memories exported by `hindsight export`.")
    file_cmd = memory.import_cmd
    file_cmd.hidden = True
    imports.add_command(file_cmd, FILE)
    for cmd in import_sources:
        imports.add_command(cmd)
    root.add_command(imports)
    for cmd in extra:
        root.add_command(cmd)
    return root


def run(cli: click.Group) -> None:
    """Run ``cli`` on ``sys.argv`` after the checks every command needs: arguments that
    are valid UTF-8 and a current directory that still exists (exit 2 otherwise)."""
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    for arg in sys.argv[1:]:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            sys.stderr.write(f"hindsight: argument {shown!r} is not valid UTF-8\n")
            sys.exit(2)
    try:
        if sys.argv[1:2] != ["hook"]:  # hooks handle a vanished directory themselves
            os.getcwd()
    except OSError as e:
        sys.stderr.write(f"hindsight: the current directory is gone ({e.strerror}); cd "
                         "somewhere else\n")
        sys.exit(2)
    from hindsight.app import locks, notices

    locks.lock_wait_notice = _notice
    notices.sink = _notice
    cli(prog_name="hindsight")


def _notice(line: str) -> None:
    sys.stderr.write(f"hindsight: {line}\n")


def main() -> None:
    """The CLI alone (``python -m hindsight.cli.app``), without the agent integrations."""
    run(build_cli())


if __name__ == "__main__":
    main()
