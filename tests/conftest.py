"""Shared fixtures: an isolated HINDSIGHT_HOME per test and helpers to make git repos."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True, scope="session")
def _fallback_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Whatever a test does to its environment, nothing reaches the real home: the
    session's own environment points at a temporary one too."""
    os.environ["HINDSIGHT_HOME"] = str(tmp_path_factory.mktemp("session-home"))


@pytest.fixture(autouse=True)
def hindsight_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
                   ) -> Path:
    home = tmp_path_factory.mktemp("hhome")
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    return home


WATCHDOG_S = float(os.environ.get("HINDSIGHT_TEST_WATCHDOG_S", "600"))
_running: list[tuple[str, float]] = []


def _watch(config: pytest.Config) -> None:
    import faulthandler
    import sys
    import time

    while True:
        time.sleep(5)
        if _running and time.monotonic() - _running[0][1] > WATCHDOG_S:
            capman = config.pluginmanager.getplugin("capturemanager")
            if capman is not None:  # fd 2 back to the terminal or CI's log
                capman.suspend_global_capture(in_=False)
            sys.__stderr__.write(f"\ntest watchdog: {_running[0][0]} ran over {WATCHDOG_S:.0f} s;"
                                 " every thread's stack:\n")
            faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
            sys.__stderr__.flush()
            os._exit(3)


@pytest.fixture(autouse=True)
def _watchdog(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that hangs ends the run within ``HINDSIGHT_TEST_WATCHDOG_S`` (600 s) with
    every thread's stack, instead of CI's own limit ending it silently (stop 36). A Python
    thread, not ``faulthandler.dump_traceback_later``: that C watchdog's state is copied
    into forked children, whose own watchdog calls then wait for a thread they lack."""
    import threading
    import time

    if not any(t.name == "hindsight-test-watchdog" for t in threading.enumerate()):
        threading.Thread(target=_watch, args=(request.config,), name="hindsight-test-watchdog",
                         daemon=True).start()
    _running[:] = [(request.node.nodeid, time.monotonic())]
    yield
    _running.clear()


@pytest.fixture(autouse=True)
def _no_resident_parser() -> Iterator[None]:
    """Each test starts and ends without this process's resident parse worker
    (codeindex/resident.py): one forked under another test's patches would keep them."""
    from hindsight.codeindex import resident

    resident.stop()
    yield
    resident.stop()


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c",
                          "protocol.file.allow=always", *args], cwd=cwd, env=env,
                         capture_output=True, check=True)
    return out.stdout.decode()


def make_repo(path: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    """Create a git repository at ``path`` with ``files`` (and one commit)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    write(path, files)
    if commit and files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "init")
    return path


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_bytes(content.encode("utf-8"))


def copy_fixture(name: str, dest: Path) -> Path:
    shutil.copytree(FIXTURES / name, dest)
    return dest


@pytest.fixture(scope="session")
def pg_server() -> object:
    """One embedded PostgreSQL (with pgvector) for the whole session, in a directory the
    ``postgres`` user can reach when the tests run as root; stopped and removed at the end."""
    import tempfile

    from hindsight.store.postgres.embedded import EmbeddedPostgres

    base = Path(tempfile.mkdtemp(prefix="hindsight-pg-"))
    base.chmod(0o755)
    server = EmbeddedPostgres(base / "data")
    server.start()
    yield server
    server.stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_dsn(pg_server: object) -> object:
    """A fresh, empty database (with the ``vector`` extension) on the session's server;
    its DSN. Dropped after the test."""
    import uuid

    import psycopg

    from hindsight.store.postgres.embedded import EmbeddedPostgres

    assert isinstance(pg_server, EmbeddedPostgres)
    name = "t_" + uuid.uuid4().hex[:12]
    admin = pg_server.dsn.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = admin.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    yield dsn
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
