"""Scripted git histories for the history tests: every commit gets its own fixed date so
that order and dates are exact."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BASE = 1_750_000_000  # 2025-06-15T15:06:40Z


def git(cwd: Path, *args: str, n: int = 0, tz: str = "+0000") -> str:
    date = f"@{BASE + n * 3600} {tz}"
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ann Author", "GIT_AUTHOR_EMAIL": "ann@example.com",
           "GIT_COMMITTER_NAME": "Cy Committer", "GIT_COMMITTER_EMAIL": "cy@example.com",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c",
                          "protocol.file.allow=always", "-c", "core.hooksPath=", *args],
                         cwd=cwd, env=env, capture_output=True)
    if out.returncode != 0:
        raise AssertionError(f"git {args}: {out.stderr.decode()}")
    return out.stdout.decode()


class Repo:
    """A repository built commit by commit; ``shas[i]`` is commit number i (1-based)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q")
        self.shas: dict[int, str] = {}
        self.n = 0

    def write(self, rel: str, text: str) -> None:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")

    def rm(self, rel: str) -> None:
        git(self.path, "rm", "-q", rel)

    def mv(self, a: str, b: str) -> None:
        git(self.path, "mv", a, b)

    def commit(self, msg: str, tz: str = "+0000") -> str:
        self.n += 1
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", msg, n=self.n, tz=tz)
        sha = git(self.path, "rev-parse", "HEAD").strip()
        self.shas[self.n] = sha
        return sha


def fn(name: str, body: str = "return 1", calls: str = "") -> str:
    extra = f"    {calls}\n" if calls else ""
    return f"def {name}():\n{extra}    {body}\n\n\n"


def sigint_default() -> None:
    """``preexec_fn`` of a child the test stops with SIGINT: the disposition and mask a
    terminal user's process has (default, unblocked). A child inherits ignored signals
    and the signal mask: a suite run as a background job ignores SIGINT (POSIX), and in
    the full suite SIGINT was found blocked in the pytest process, so the child ran on."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def fixture_bank(tmp: Path, home: Path, name: str, rel: str, shas: list[str]) -> Repo:
    """The repository a ``tests/fixtures/banks/make_<name>.py`` script built (file
    ``rel`` of ``<name>/v1`` then ``<name>/v2``, one commit each, the same shas: checked
    against ``shas``) and its bank ``<name>.db`` copied into ``home``'s banks. The caller
    sets ``HINDSIGHT_BANK_ID`` to ``name``."""
    import shutil

    src = Path(__file__).resolve().parent / "fixtures" / "banks"
    r = Repo(tmp / "repo")
    for version in ("v1", "v2"):
        r.write(rel, (src / name / version / rel).read_text(encoding="utf-8"))
        r.commit(f"{version} of {rel}")
    assert [r.shas[1], r.shas[2]] == shas
    banks = home / "banks"
    banks.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / f"{name}.db", banks / f"{name}.db")
    return r
