"""``hindsight ui``: serve the control plane on the loopback interface.

The first line on stdout (flushed) is ``hindsight ui: http://127.0.0.1:PORT/?token=T``:
the address with this run's token, reusable by every tab and client until the server
stops. ``--port 0`` picks a free port. ``--host`` serves another interface, with a warning
on stderr, and lifts the check that the ``Host`` header names this machine (the guard
against DNS rebinding). The web stack (Starlette, uvicorn, Jinja2) is imported only here,
when the command runs.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import click

HOST = "127.0.0.1"
PORT = 8765


def _shown_host(host: str) -> str:
    """The host to print in the address: the loopback address for a wildcard bind."""
    if host in ("0.0.0.0", ""):
        return HOST
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (0: a free port); see
    :func:`hindsight.config.listen.bind`. Raises ConfigError."""
    from hindsight.config.listen import bind as listen

    return listen(host, port)


def serve(app: Any, sock: socket.socket) -> None:
    """Run ``app`` with uvicorn on the bound ``sock`` until interrupted."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=2, access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


@click.command("ui", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--port", type=click.IntRange(0, 65535), default=PORT, show_default=True,
              help="TCP port; 0 picks a free one.")
@click.option("--host", default=None, metavar="HOST",
              help="Serve on this interface instead of 127.0.0.1 (warns: anyone who can "
              "reach it and has the token sees the bank).")
@click.option("--open", "open_browser", is_flag=True, help="Open the address in a browser.")
@click.option("--repo-root", "repo_root", default=None, metavar="PATH",
              type=click.Path(exists=True, file_okay=False),
              help="Repository root (default: the git work tree containing the current "
              "directory).")
def ui_command(port: int, host: str | None, open_browser: bool, repo_root: str | None) -> None:
    """Serve the web control plane of this repository's bank (and the other banks this
    machine knows) on http://127.0.0.1:PORT, with a token printed on the first line."""
    import os

    from hindsight.ui.security import LOOPBACK, host_name, new_token
    from hindsight.ui.state import UiState
    from hindsight.ui.web import build_app

    where = host or HOST
    other = host_name(where) not in LOOPBACK
    if other:
        sys.stderr.write(f"hindsight ui: warning: serving on {where}, not only this machine: "
                         "anyone who can reach it and has the token sees and changes the "
                         "bank's memories\n")
    sock = bind(where, port)
    token = new_token()
    state = UiState(token, os.path.abspath(repo_root) if repo_root else None)
    app = build_app(state, any_host=other)
    url = f"http://{_shown_host(where)}:{sock.getsockname()[1]}/?token={token}"
    sys.stdout.write(f"hindsight ui: {url}\n")
    sys.stdout.flush()
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        serve(app, sock)
    except KeyboardInterrupt:
        pass
    finally:
        state.close()


def command() -> click.Command:
    """The ``ui`` click command, for the ``hindsight`` group to register."""
    return ui_command
