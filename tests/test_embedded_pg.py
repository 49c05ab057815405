"""The embedded PostgreSQL launcher: a real server from the wheel, pgvector inside, data
kept across a restart, a clear error for an unusable data directory."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from hindsight.errors import ConfigError
from hindsight.store.postgres.embedded import EmbeddedPostgres, default_data_dir


def test_fresh_database_has_vector(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn) as conn:
        row = conn.execute("SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector").fetchone()
    assert row is not None and 0 < float(row[0]) < 0.01


def test_data_survives_restart(tmp_path_factory: pytest.TempPathFactory) -> None:
    import tempfile
    base = Path(tempfile.mkdtemp(prefix="hindsight-pgr-"))
    base.chmod(0o755)
    server = EmbeddedPostgres(base / "data")
    try:
        dsn = server.start()
        with psycopg.connect(dsn) as conn:
            conn.execute("CREATE TABLE kept (x int)")
            conn.execute("INSERT INTO kept VALUES (42)")
        server.stop()
        assert not server.running()
        server.port = 0  # a new port on restart: the data directory is what persists
        dsn = server.start()
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT x FROM kept").fetchall() == [(42,)]
    finally:
        server.stop()


@pytest.mark.skipif(os.geteuid() != 0, reason="the unreachable-parent rule applies to root")
def test_root_refuses_unreachable_parent(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    with pytest.raises(ConfigError, match="not reachable"):
        EmbeddedPostgres(closed / "data").start()


def test_default_data_dir_outside_roots_home(tmp_path: Path) -> None:
    got = default_data_dir(tmp_path)
    if os.geteuid() == 0:
        assert got == Path("/var/lib/hindsight/postgres")
    else:
        assert got == tmp_path / "postgres"
