"""A warm embedding process for the prompt hook: the bank's embedding model (MiniLM) kept
loaded in one background process per ``HINDSIGHT_HOME``, asked for a prompt's vector over
a Unix socket, so that the hook gets the full model's vector without ever loading it.

Protocol: the client connects to ``locks/embed.sock`` (the directory is created 0700, so
only this user can connect), sends one JSON line ``{"model": <model id>, "texts": [<text>, …]}``
(at most :data:`MAX_TEXTS`) and reads one JSON line back: ``{"model": <id>, "vectors":
[[floats], …]}`` (unit length, one per text) or ``{"error": <message>}``. The server answers one request per connection, in order.

The server (``python -m hindsight.providers.warm <home>``) holds the flock
``locks/embed-server.lock`` for its whole life, so at most one runs per home; it exits
after :data:`IDLE_S` seconds without a request. :func:`ask` never waits for it to start:
when nothing listens it starts one detached (:func:`spawn`; only when no other holds the
lock) and raises ProviderError at once, so the hook falls back to its static embedder for
that prompt.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

from hindsight.errors import ProviderError

SOCKET = "embed.sock"      # in the home's locks/ directory
LOCK = "embed-server"      # the flock the server holds (locks/embed-server.lock)
IDLE_S = 1800.0            # the server exits after this long without a request
ASK_TIMEOUT_S = 0.25       # the hook's wait for one vector (MiniLM ≈ 10-40 ms a prompt)
MAX_TEXT = 2000            # characters of a text embedded (the gate's prompt cut)
MAX_TEXTS = 64             # texts in one request
MAX_REQUEST = MAX_TEXTS * MAX_TEXT * 4 + 1024  # bytes of one request line


def socket_path(home: Any) -> str:
    """``locks/embed.sock`` of ``home`` (a :class:`~hindsight.config.paths.Home`), the
    directory created 0700."""
    return os.path.join(home.ensure(home.locks, private=True), SOCKET)


SUN_PATH_MAX = 107  # bytes of a Unix socket path (sun_path is 108 on Linux, NUL included)


def _read_line(conn: socket.socket, limit: int, deadline: float | None = None) -> bytes:
    buf = b""
    while b"\n" not in buf:
        if deadline is not None:  # one deadline for the whole reply, not per recv
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no whole reply in time")
            conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        buf += chunk
        if len(buf) > limit:
            raise ProviderError(f"warm embedder: message over {limit} bytes")
    return buf.split(b"\n", 1)[0]


def ask(path: str, model_id: str, texts: list[str], timeout_s: float = ASK_TIMEOUT_S
        ) -> list[list[float]]:
    """The unit vectors of ``texts`` (at most :data:`MAX_TEXTS`) from the warm process
    listening at ``path``, which must serve ``model_id``. Raises ProviderError when nothing
    listens there, it serves another model, it answers an error, or not within
    ``timeout_s`` seconds."""
    if len(texts) > MAX_TEXTS:
        raise ProviderError(f"warm embedder: at most {MAX_TEXTS} texts a request")
    req = json.dumps({"model": model_id, "texts": [t[:MAX_TEXT] for t in texts]})
    deadline = time.monotonic() + timeout_s
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout_s)
            conn.connect(path)
            conn.sendall(req.encode("utf-8") + b"\n")
            reply = json.loads(_read_line(conn, MAX_REPLY, deadline) or b"{}")
    except (OSError, ValueError) as e:
        raise ProviderError(f"warm embedder at {path}: {e}") from e
    if not isinstance(reply, dict) or not isinstance(reply.get("vectors"), list):
        why = reply.get("error", "no vectors") if isinstance(reply, dict) else "bad reply"
        raise ProviderError(f"warm embedder: {why}")
    if reply.get("model") != model_id:
        raise ProviderError(f"warm embedder serves {reply.get('model')!r}, not {model_id!r}")
    if len(reply["vectors"]) != len(texts):
        raise ProviderError("warm embedder: not one vector per text")
    return [_unit(v) for v in reply["vectors"]]


MAX_REPLY = MAX_TEXTS * 384 * 24 + 1024  # bytes of one reply line (384-d, JSON floats)


def _unit(v: Any) -> list[float]:
    """A reply's vector checked: a list of finite numbers of unit length (±1e-3), else
    ProviderError (a reply that is not the model's is no answer)."""
    import math

    if not isinstance(v, list) or not v or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in v):
        raise ProviderError("warm embedder: a vector is not a list of numbers")
    out = [float(x) for x in v]
    norm = math.fsum(x * x for x in out)
    if not math.isfinite(norm) or abs(norm - 1.0) > 1e-3:
        raise ProviderError("warm embedder: a vector is not of unit length")
    return out


class WarmEmbedder:
    """The embedder interface of the prompt gate's caches (``model_id``, ``dim``,
    ``embed_one``, ``embed_batch``) over the warm process of the home at ``home_root``,
    serving ``model_id`` (``dim``-d). Each call raises ProviderError as :func:`ask` does;
    the first one that finds nothing listening also starts the process (:func:`spawn`,
    detached, not waited for), unless ``autostart`` is false."""

    remote = True  # a request per call: callers batch texts

    def __init__(self, home_root: str, model_id: str, dim: int, *,
                 timeout_s: float = ASK_TIMEOUT_S, autostart: bool = True) -> None:
        self.home_root, self.model_id, self.dim = home_root, model_id, dim
        self.timeout_s, self.autostart = timeout_s, autostart
        self._path = ""

    def _ask(self, texts: list[str]) -> list[list[float]]:
        if not self._path:
            from hindsight.config.paths import Home

            try:
                self._path = socket_path(Home(self.home_root))
            except OSError as e:
                raise ProviderError(f"warm embedder: {e}") from e
        if len(os.fsencode(self._path)) > SUN_PATH_MAX:  # no server could listen there
            self.autostart = False
            raise ProviderError(f"warm embedder: socket path over {SUN_PATH_MAX} bytes "
                                f"({self._path}); a shorter HINDSIGHT_HOME enables it")
        try:
            got = ask(self._path, self.model_id, texts, self.timeout_s)
        except ProviderError as e:
            # nothing listens (no socket, or one left by a server that was killed: refused;
            # spawn starts one only when no server holds the lock)
            stale = isinstance(e.__cause__, FileNotFoundError | ConnectionRefusedError)
            if self.autostart and stale:
                self.autostart = False  # once per process
                spawn(self.home_root)
            raise
        if any(len(v) != self.dim for v in got):
            raise ProviderError(f"warm embedder: vectors are not {self.dim}-d")
        return got

    def listening(self) -> bool:
        """Whether the process's socket exists (it may still be loading or have died)."""
        from hindsight.config.paths import Home

        return os.path.exists(os.path.join(Home(self.home_root).locks, SOCKET))

    def embed_one(self, text: str) -> list[float]:
        return self._ask([text])[0]

    def embed_batch(self, texts: list[str]) -> Any:
        import numpy as np

        out: list[list[float]] = []
        for k in range(0, len(texts), MAX_TEXTS):
            out += self._ask(texts[k:k + MAX_TEXTS])
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)


def spawn(home_root: str) -> int:
    """Start the server for the home at ``home_root`` detached (its own session, output
    to ``logs/embed-server``), unless one holds its lock; its process id, or 0 when
    none was started. Never waits for it to load."""
    from hindsight.config.paths import Home, file_lock

    home = Home(home_root)
    try:
        with file_lock(LOCK, home=home) as free:
            if not free:
                return 0
    except OSError:
        return 0
    log = open(home.log_file("embed-server"), "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen([sys.executable, "-m", "hindsight.providers.warm", home_root],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True, close_fds=True)
    except OSError:
        return 0
    finally:
        log.close()
    return proc.pid


def _answer(conn: socket.socket, embedder: Any) -> None:
    try:
        conn.settimeout(10.0)
        req = json.loads(_read_line(conn, MAX_REQUEST) or b"{}")
        texts = req.get("texts") if isinstance(req, dict) else None
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts) or \
                len(texts) > MAX_TEXTS:
            raise ProviderError(f'request must be {{"model": id, "texts": [str, …]}}, '
                                f"at most {MAX_TEXTS} texts")
        vecs = embedder.embed_batch([t[:MAX_TEXT] for t in texts]) if texts else []
        reply: dict[str, Any] = {"model": embedder.model_id,
                                 "vectors": [[round(float(x), 6) for x in v] for v in vecs]}
    except (OSError, ValueError, ProviderError) as e:
        reply = {"error": str(e)}
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(reply).encode("utf-8") + b"\n")


def serve(home_root: str, embedder: Any, idle_s: float = IDLE_S) -> int:
    """Listen at the home's socket and answer requests with ``embedder`` until ``idle_s``
    seconds pass without one, or the socket file is gone (its home was removed); returns
    how many were answered, or -1 when another server holds the lock or the socket path
    is too long for a Unix socket. The model is loaded (one embedding) before listening, so a client
    never waits on loading it."""
    from hindsight.config.paths import Home, file_lock

    home = Home(home_root)
    with file_lock(LOCK, home=home) as mine:
        if not mine:
            return -1
        path = socket_path(home)
        if len(os.fsencode(path)) > SUN_PATH_MAX:
            return -1  # no socket can be bound there: do not load the model for nothing
        embedder.embed_batch(["warm"])  # load the model before anyone can connect
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # left by a server that died (we hold the lock)
        served = 0
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as srv:
            srv.bind(path)
            os.chmod(path, 0o600)
            srv.listen(16)
            srv.settimeout(1.0)
            last = time.monotonic()
            try:
                while time.monotonic() - last < idle_s:
                    try:
                        conn, _ = srv.accept()
                    except TimeoutError:
                        if not os.path.exists(path):  # the home was removed (a test, a
                            break                     # bench): nobody can reach us
                        continue
                    with conn:
                        _answer(conn, embedder)
                    served += 1
                    last = time.monotonic()
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        return served


def main(argv: list[str]) -> int:
    """``python -m hindsight.providers.warm HOME [IDLE_S]``: serve the embedder of the
    settings (``embedder``) for that home."""
    from hindsight.config.settings import load
    from hindsight.providers.factory import make_embedder

    home_root = argv[0]
    idle = float(argv[1]) if len(argv) > 1 else IDLE_S
    return 0 if serve(home_root, make_embedder(load()), idle) >= 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
