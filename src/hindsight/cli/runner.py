"""Run one command for ``hindsight run`` the way a shell would, and keep what is needed to
record it: its exit status, whether a signal stopped it, and its output (the first 4,000
and last 64 KiB bytes; parsed into the record's observation, never stored).

- **Through a terminal** when stdout is one: the child gets a new pseudo-terminal
  (:func:`pty.fork`: its own session, the pty as its controlling terminal), so colours and
  progress bars look as usual. Our terminal is put in raw mode and every key goes to the
  child (Ctrl-C reaches it as the byte it is and becomes SIGINT there); the window size
  follows ours (``SIGWINCH``).
- **Through pipes** otherwise: stdout and stderr stay apart and are streamed as they come.
  The child gets its own process group when stdin is not a terminal, so that a signal
  reaches it once, from us.
- **Signals** we receive (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are forwarded to the child (to
  the pty's foreground process group); when stdin is a terminal and the child shares our
  process group, SIGINT and SIGQUIT are not forwarded, as the terminal already sent them
  to it. A child that a signal N ended gives exit status 128 + N, as POSIX shells report.
- A command that is not found gives 127, one that cannot be executed 126 (POSIX shell
  exit statuses), with one line on stderr.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

HEAD = 4000  # bytes of output kept from the start
TAIL = 64 << 10  # bytes kept from the end (test runners print their summary last)
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


@dataclass
class Outcome:
    """How a run ended: ``code`` (the exit status we exit with), ``signal`` (the one that
    ended the child, 0 if none), ``interrupted`` (a signal ended it or was forwarded to
    it), ``output`` (head and tail, decoded as UTF-8 with replacement), ``started``
    (Unix seconds), ``duration_ms``."""

    code: int
    signal: int = 0
    interrupted: bool = False
    output: str = ""
    started: float = 0.0
    duration_ms: int = 0


@dataclass
class _Capture:
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, data: bytes) -> None:
        with self.lock:
            room = HEAD - len(self.head)
            if room > 0:
                self.head += data[:room]
                data = data[room:]
            self.tail += data
            if len(self.tail) > TAIL:
                del self.tail[:len(self.tail) - TAIL]

    def text(self) -> str:
        sep = b"\n...\n" if self.tail and len(self.head) == HEAD else b""
        return (bytes(self.head) + sep + bytes(self.tail)).decode("utf-8", "replace")


def missing(argv: list[str]) -> int:
    """127 when ``argv[0]`` is not found, 126 when it is not executable, else 0."""
    name = argv[0]
    if "/" not in name:
        return 0 if shutil.which(name) else 127
    if not os.path.exists(name):
        return 127
    return 0 if os.path.isfile(name) and os.access(name, os.X_OK) else 126


def run(argv: list[str]) -> Outcome:
    """Run ``argv`` (see the module doc) and return how it ended."""
    started = time.time()
    t0 = time.monotonic()
    bad = missing(argv)
    if bad:
        what = "command not found" if bad == 127 else (
            "is a directory" if os.path.isdir(argv[0]) else "permission denied (not executable)")
        sys.stderr.write(f"hindsight: {argv[0]}: {what}\n")
        return Outcome(bad, output=f"{argv[0]}: {what}", started=started)
    cap = _Capture()
    out = _pty(argv, cap) if sys.stdout.isatty() else _pipes(argv, cap)
    out.output, out.started = cap.text(), started
    out.duration_ms = round((time.monotonic() - t0) * 1000)
    return out


def _status(status: int, forwarded: bool) -> Outcome:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return Outcome(128 + sig, sig, True)
    return Outcome(os.WEXITSTATUS(status), 0, forwarded)


def _install(forward: object) -> dict[int, object]:
    old: dict[int, object] = {}
    for sig in FORWARDED:
        old[sig] = signal.signal(sig, forward)  # type: ignore[arg-type]
    return old


def _restore(old: dict[int, object]) -> None:
    for sig, handler in old.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]


def _pipes(argv: list[str], cap: _Capture) -> Outcome:
    own_group = not sys.stdin.isatty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            process_group=0 if own_group else None)
    sent: list[int] = []

    def forward(sig: int, _frame: object) -> None:
        if own_group or sig not in (signal.SIGINT, signal.SIGQUIT):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig) if own_group else proc.send_signal(sig)
        sent.append(sig)

    def pump(src: int, dst: object) -> None:
        fd = dst.fileno()  # type: ignore[attr-defined]
        while chunk := os.read(src, 65536):
            cap.add(chunk)
            with contextlib.suppress(OSError):  # our output closed: keep reading anyway
                os.write(fd, chunk)

    old = _install(forward)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        threads = [threading.Thread(target=pump, args=(p.fileno(), d), daemon=True)
                   for p, d in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
        for t in threads:
            t.start()
        _pid, status = os.waitpid(proc.pid, 0)
        for t in threads:
            t.join(timeout=5)
        proc.returncode = 0  # reaped above
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    finally:
        _restore(old)
    return _status(status, bool(sent))


def _pty(argv: list[str], cap: _Capture) -> Outcome:
    import pty
    import select
    import termios
    import tty

    pid, master = pty.fork()
    if pid == 0:  # the child: never returns into our code
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, f"hindsight: {argv[0]}: {e.strerror}\n".encode())
            os._exit(127 if e.errno == errno.ENOENT else 126)
    sent: list[int] = []

    def size(*_a: object) -> None:
        try:
            import fcntl

            fcntl.ioctl(master, termios.TIOCSWINSZ, fcntl.ioctl(
                sys.stdout.fileno(), termios.TIOCGWINSZ, b"\0" * 8))
        except OSError:
            pass

    def forward(sig: int, _frame: object) -> None:
        try:
            os.killpg(os.tcgetpgrp(master), sig)
        except OSError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        sent.append(sig)

    size()
    old = _install(forward)
    old_winch = signal.signal(signal.SIGWINCH, size)
    stdin = sys.stdin.fileno()
    raw = sys.stdin.isatty()
    saved = termios.tcgetattr(stdin) if raw else None
    if raw:
        tty.setraw(stdin)
    watch = [master, stdin]
    try:
        while True:
            try:
                ready, _w, _x = select.select(watch, [], [])
            except InterruptedError:
                continue
            if master in ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    data = b""
                if not data:
                    break
                cap.add(data)
                with contextlib.suppress(OSError):  # our terminal went away: keep reading
                    os.write(sys.stdout.fileno(), data)
            if stdin in ready:
                data = os.read(stdin, 4096)
                if data:
                    os.write(master, data)
                else:
                    watch.remove(stdin)  # end of our input: the child gets end of file
                    os.write(master, b"\x04")
        _pid, status = os.waitpid(pid, 0)
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        _restore(old)
        signal.signal(signal.SIGWINCH, old_winch)
        os.close(master)
    return _status(status, bool(sent))
