"""Deployment files (issue 11, item 8). Docker is not available here: the compose file and
the Dockerfile are parsed and checked for what they must name, and the container's entry
command runs outside Docker against the embedded PostgreSQL."""

from __future__ import annotations

import json
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from histutil import sigint_default
from serverutil import call, env

ROOT = Path(__file__).resolve().parent.parent


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")


def _instr(name: str) -> list[str]:
    """The arguments of every ``NAME`` instruction (continuation lines joined)."""
    text = re.sub(r"\\\n\s*", " ", _dockerfile())
    return [ln.split(None, 1)[1] for ln in text.splitlines()
            if ln.strip().upper().startswith(name + " ")]


def test_compose_names_postgres_with_pgvector_and_the_server() -> None:
    c = _compose()
    db, hs = c["services"]["db"], c["services"]["hindsight"]
    assert db["image"].startswith("pgvector/pgvector:")
    assert hs["build"] == "." and hs["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert "/healthz" in " ".join(hs["healthcheck"]["test"])
    # named volumes, declared at the top level and mounted
    assert set(c["volumes"]) == {"pgdata", "hindsight-home"}
    assert db["volumes"] == ["pgdata:/var/lib/postgresql/data"]
    assert hs["volumes"] == ["hindsight-home:/var/lib/hindsight"]
    # one user-defined network, both services on it
    assert set(c["networks"]) == {"backend"}
    assert db["networks"] == hs["networks"] == ["backend"]
    url = hs["environment"]["HINDSIGHT_DATABASE_URL"]
    assert url.startswith("postgresql://") and "@db:5432/" in url


def test_compose_secrets_come_from_env_and_env_example_names_them_all() -> None:
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{([A-Z_]+)", text))
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    given = {ln.split("=", 1)[0] for ln in example.splitlines()
             if ln and not ln.startswith("#")}
    assert used and used <= given, used - given
    db_env = _compose()["services"]["db"]["environment"]
    assert db_env["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")  # required
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_dockerfile_runs_serve_as_a_user_with_a_healthcheck() -> None:
    assert _instr("USER") == ["hindsight"]
    cmd = json.loads(_instr("CMD")[-1])
    assert cmd[:2] == ["hindsight", "serve"]
    hc = _instr("HEALTHCHECK")[0]
    assert "http://127.0.0.1:8888/healthz" in hc
    envs = dict(kv.split("=", 1) for kv in " ".join(_instr("ENV")).split())
    assert envs["HINDSIGHT_SERVE_PORT"] == "8888" and envs["HINDSIGHT_HOME"] == \
        "/var/lib/hindsight"


def test_entry_command_serves_against_embedded_postgres(pg_dsn: str, tmp_path: Path) -> None:
    """The image's CMD with its ENV (port 0, home in tmp) and the compose file's
    HINDSIGHT_DATABASE_URL pointing at the embedded PostgreSQL: the server starts, its
    healthcheck command (the Dockerfile's, on the chosen port) exits 0."""
    cmd = json.loads(_instr("CMD")[-1])
    envs = dict(kv.split("=", 1) for kv in " ".join(_instr("ENV")).split())
    envs.pop("HINDSIGHT_HOME")
    e = env(tmp_path / "home", **{**envs, "HINDSIGHT_SERVE_PORT": "0",
                                  "HINDSIGHT_DATABASE_URL": pg_dsn})
    proc = subprocess.Popen([sys.executable, "-m", "hindsight", *cmd[1:]], env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 120
        while not sel.select(timeout=0.5):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"serve did not start: {proc.communicate()[1][-2000:]}")
        line = proc.stdout.readline()
        assert line.startswith("hindsight serve: http://"), line
        url = line.split(": ", 1)[1].strip()
        port = url.rsplit(":", 1)[1]
        hc = json.loads(_instr("HEALTHCHECK")[0].split("CMD", 1)[1].strip())
        probe = [sys.executable, *hc[1:-1], hc[-1].replace(":8888/", f":{port}/")]
        assert subprocess.run(probe, timeout=30).returncode == 0
        st, body = call(url.replace("0.0.0.0", "127.0.0.1"), "GET", "/healthz")
        assert (st, body["ok"]) == (200, True)
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
