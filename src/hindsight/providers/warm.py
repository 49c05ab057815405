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


def _read_line(conn: socket.socket, limit: int) -> bytes:
    buf = b""
    while b"\n" not in buf:
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
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout_s)
            conn.connect(path)
            conn.sendall(req.encode("utf-8") + b"\n")
            reply = json.loads(_read_line(conn, 1 << 24) or b"{}")
    except (OSError, ValueError) as e:
        raise ProviderError(f"warm embedder at {path}: {e}") from e
    if not isinstance(reply, dict) or not isinstance(reply.get("vectors"), list):
        why = reply.get("error", "no vectors") if isinstance(reply, dict) else "bad reply"
        raise ProviderError(f"warm embedder: {why}")
    if reply.get("model") != model_id:
        raise ProviderError(f"warm embedder serves {reply.get('model')!r}, not {model_id!r}")
    if len(reply["vectors"]) != len(texts):
        raise ProviderError("warm embedder: not one vector per text")
    return [[float(x) for x in v] for v in reply["vectors"]]


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
        try:
            return ask(self._path, self.model_id, texts, self.timeout_s)
        except ProviderError:
            if self.autostart and not os.path.exists(self._path):
                self.autostart = False  # once per process
                spawn(self.home_root)
            raise

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
    to ``logs/embed-server.log``), unless one holds its lock; its process id, or 0 when
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
    how many were answered, or -1 when another server
    holds the lock. The model is loaded (one embedding) before listening, so a client
    never waits on loading it."""
    from hindsight.config.paths import Home, file_lock

    home = Home(home_root)
    with file_lock(LOCK, home=home) as mine:
        if not mine:
            return -1
        embedder.embed_batch(["warm"])  # load the model before anyone can connect
        path = socket_path(home)
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
