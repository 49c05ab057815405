"""The listening socket of the local servers (``hindsight serve`` and ``hindsight ui``):
one place for binding, its errors and its hint."""

from __future__ import annotations

import socket

from hindsight.errors import ConfigError


def bind(host: str, port: int, backlog: int = 128) -> socket.socket:
    """A listening, inheritable TCP socket on ``host``:``port`` (0: a free port; an IPv6
    host may be bracketed). ``backlog``: the ``listen()`` queue length. Raises ConfigError
    when the address cannot be used (in use, not this machine's, not a host)."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise ConfigError(f"host {host!r}: {e.strerror}", option="host", value=host) from None
    family, _t, _p, _c, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(backlog)
    except OSError as e:
        sock.close()
        hint = "; --port 0 picks a free one" if port else ""
        raise ConfigError(f"port {port} on {host}: {e.strerror}{hint}", option="port",
                          value=port) from None
    sock.set_inheritable(True)
    return sock
