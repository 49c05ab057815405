"""Running ``hindsight serve``: the database it uses, ``server.json``, the bound socket and
uvicorn.

``$HINDSIGHT_HOME/server.json`` records what the last ``serve`` used: ``database``
(``postgresql`` or ``sqlite``), ``database_url`` (the DSN; a password is never written),
``embedded`` (``{"data_dir", "port"}`` of the private PostgreSQL, or null), ``url`` and
``pid``. The ``token`` commands read it to reach the same database (starting the embedded
PostgreSQL briefly when ``serve`` is not running), and so do extra server processes
(``serveWorkers``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
from collections.abc import Iterator
from typing import Any

from hindsight.errors import ConfigError

LOOPBACK_NAMES = ("localhost", "ip6-localhost")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and addresses in 127.0.0.0/8 or ``::1``."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_tls(host: str, certfile: str | None, keyfile: str | None, insecure: bool) -> bool:
    """Whether to serve TLS. Raises ConfigError for one of the two files without the
    other, a file that cannot be read, or a bind outside loopback without TLS and without
    ``insecure``."""
    if bool(certfile) != bool(keyfile):
        raise ConfigError("TLS needs both --ssl-certfile and --ssl-keyfile",
                          option="ssl_certfile" if not certfile else "ssl_keyfile")
    for opt, path in (("ssl_certfile", certfile), ("ssl_keyfile", keyfile)):
        if path and not os.access(path, os.R_OK):
            raise ConfigError(f"{path}: cannot be read", option=opt, path=path)
    if certfile:
        return True
    if not is_loopback(host) and not insecure:
        raise ConfigError(f"host {host}: serving beyond this machine needs TLS "
                          "(--ssl-certfile and --ssl-keyfile) or an explicit --insecure",
                          option="host", value=host)
    return False


def shown_host(host: str) -> str:
    """The host as an address shows it (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` with a backlog of 512 (0: a free port);
    see :func:`hindsight.config.listen.bind`. Raises ConfigError."""
    from hindsight.config.listen import bind as listen

    return listen(host, port, 512)


# --- server.json ---------------------------------------------------------------------------
def record_path() -> str:
    from hindsight.config.paths import Home

    return Home.current().server_json


def read_record() -> dict[str, Any]:
    """``server.json`` (``{}`` when missing). Raises ConfigError when it is not JSON."""
    path = record_path()
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: {e}", path=path) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a JSON object", path=path)
    return data


def write_record(data: dict[str, Any]) -> None:
    """Write ``server.json`` atomically, mode 0600."""
    from hindsight.config.paths import Home

    path = record_path()
    Home.ensure(os.path.dirname(path), private=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


@contextlib.contextmanager
def recorded_database() -> Iterator[str]:
    """The DSN of the database ``server.json`` names ("" for the SQLite one), with the
    embedded PostgreSQL started for the duration when it is not running (and stopped
    again after)."""
    from hindsight.app import embedded_postgres

    rec = read_record()
    emb = rec.get("embedded")
    if not isinstance(emb, dict):
        yield str(rec.get("database_url") or "")
        return
    pg = embedded_postgres(str(emb.get("data_dir") or ""), int(emb.get("port") or 0))
    if pg.running():
        yield str(rec.get("database_url") or pg.dsn)
        return
    pg.port = 0
    dsn = pg.start()
    try:
        yield dsn
    finally:
        pg.stop()
