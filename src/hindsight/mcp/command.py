"""``hindsight mcp``: serve the repository's bank to MCP clients, over stdio (default) or
streamable HTTP on the loopback interface (``--http PORT``, endpoint ``/mcp``).

The command line registers :func:`command`; ``python -m hindsight.mcp.command`` runs it
alone. stdout carries only JSON-RPC in stdio mode; messages go to stderr.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from hindsight.app import Bank

HOST = "127.0.0.1"


def _opener(repo_root: str | None) -> Bank:
    """Open the bank the server serves (called at the first tool call). Raises what
    :func:`hindsight.app.open_bank` raises (ConfigError, StorageError)."""
    from hindsight.app import open_bank

    return open_bank(".", repo_root_path=repo_root, harness="mcp")


@click.command("mcp", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--http", "port", type=click.IntRange(1, 65535), default=None, metavar="PORT",
              help="Serve streamable HTTP on http://127.0.0.1:PORT/mcp (loopback only) "
              "instead of stdio.")
@click.option("--repo-root", "repo_root", default=None, metavar="PATH",
              type=click.Path(exists=True, file_okay=False),
              help="Repository root (default: the git work tree containing the current "
              "directory).")
def mcp_command(port: int | None, repo_root: str | None) -> None:
    """Serve this repository's memory and code knowledge as MCP tools (stdio by default)."""
    from hindsight.mcp.server import build_mcp_server

    server = build_mcp_server(functools.partial(_opener, repo_root))
    try:
        if port is None:
            server.run("stdio")
        else:
            sys.stderr.write(f"hindsight: MCP over streamable HTTP on http://{HOST}:{port}/mcp\n")
            server.run("streamable-http", host=HOST, port=port)
    except KeyboardInterrupt:
        pass


def command() -> click.Command:
    """The ``mcp`` click command, for the ``hindsight`` group to register."""
    return mcp_command


if __name__ == "__main__":
    command()(prog_name="hindsight mcp")
