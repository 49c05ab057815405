"""Start ``hindsight ui`` as a real subprocess and talk to it over HTTP (tests and bench)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from histutil import sigint_default

FIRST_LINE = re.compile(r"^hindsight ui: (http://([^/]+):(\d+))/\?token=([A-Za-z0-9_-]{20,})$")


@dataclass
class Server:
    proc: subprocess.Popen[str]
    base: str
    port: int
    token: str
    first_line: str

    def get(self, path: str, *, token: bool = True, headers: dict[str, str] | None = None,
            data: bytes | None = None, method: str | None = None) -> tuple[int, dict[str, str],
                                                                           str]:
        """(status, headers, body) of one request; redirects are not followed."""
        h = dict(headers or {})
        if token:
            h.setdefault("X-Hindsight-Token", self.token)
        req = urllib.request.Request(self.base + path, data=data, headers=h, method=method)
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(req, timeout=60) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, \
                    r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()

    def stop(self) -> str:
        """Stop the server (SIGINT, then SIGKILL after 10 s); its stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.stderr.read() if self.proc.stderr else ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kw: Any) -> None:
        return None


def start(cwd: Path, *args: str, env: dict[str, str] | None = None,
          timeout: float = 60.0) -> Server:
    """Run ``python -m hindsight ui --port 0 ARGS`` in ``cwd`` and parse its first stdout
    line. Raises AssertionError (with stderr) when no such line comes within ``timeout``."""
    e = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing", **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "hindsight", "ui", "--port", "0", *args],
                            cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL, preexec_fn=sigint_default)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline() if proc.stdout
                                                        else ""), daemon=True)
    reader.start()
    reader.join(timeout)
    line = got[0].rstrip("\n") if got else ""
    m = FIRST_LINE.match(line)
    if m is None:
        proc.kill()
        raise AssertionError(f"no address line from hindsight ui: {line!r}; stderr: "
                             f"{proc.stderr.read() if proc.stderr else ''}")
    return Server(proc, m.group(1), int(m.group(3)), m.group(4), line)
