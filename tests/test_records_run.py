"""``hindsight run [--junit PATH] -- CMD …`` (issue 12, item 2), as real subprocesses: the
output is streamed, the exit status passed through (128+N after signal N, 127/126), the
run recorded; a failure to record is one line on stderr; secrets never reach the bank."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from histutil import sigint_default
from hookutil import AWS, GH, db_file, make_env
from recordutil import FIXED, shop

from hindsight.app import open_bank

PY = sys.executable


def hs(args: list[str], env: dict[str, str], cwd: Path, **kw: Any
       ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "hindsight", *args], env=env, cwd=cwd, text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL, **kw)


def rows(env: dict[str, str]) -> list[dict[str, Any]]:
    con = sqlite3.connect(db_file(env))
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM exec_records ORDER BY id")]
    finally:
        con.close()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return make_env(tmp_path)


@pytest.fixture
def repo(tmp_path: Path, env: dict[str, str]) -> Path:
    r = shop(tmp_path)
    os.environ["HINDSIGHT_HOME"] = env["HINDSIGHT_HOME"]  # the conftest's is per test
    with open_bank(repo_root_path=str(r.path)) as b:
        b.code.index(workers=1)
    return r.path


def test_pytest_failing_then_fixed(env: dict[str, str], repo: Path) -> None:
    cmd = ["run", "--", PY, "-m", "pytest", "-p", "no:cacheprovider", "-q",
           "tests/test_stock.py"]
    first = hs(cmd, env, repo)
    assert first.returncode == 1 and first.stderr == ""
    assert "FAILED tests/test_stock.py::test_deduct - assert 2 == 1" in first.stdout
    (repo / "shop/stock.py").write_text(FIXED)
    second = hs(cmd, env, repo)
    assert second.returncode == 0 and "2 passed" in second.stdout
    a, b = rows(env)
    assert (a["tool"], a["agent"], a["outcome"], a["exit_code"], a["verified"]) == (
        "run", "cli", "failure", 1, 0)
    assert json.loads(a["observation"])["failed"] == ["tests/test_stock.py::test_deduct"]
    assert a["command"] == f"{PY} -m pytest -p no:cacheprovider -q tests/test_stock.py"
    assert (b["outcome"], b["exit_code"], b["verified"], b["diff_summary"]) == (
        "success", 0, 1, "shop/stock.py +1 -1 (deduct_stock)")
    assert b["duration_ms"] > 0 and b["started_ts"] >= a["started_ts"]
    shown = hs(["attempts", "deduct_stock", "--json"], env, repo)
    got = json.loads(shown.stdout)
    assert [(x["outcome"], x["verified"]) for x in got["attempts"]] == [
        ("success", True), ("failure", False)]
    assert (got["symbol"], got["total"], got["truncated"]) == (
        "shop/stock.py::deduct_stock", 2, False)
    failed = json.loads(hs(["attempts", "deduct_stock", "--outcome", "failure", "--limit",
                            "1", "--json"], env, repo).stdout)
    assert [x["id"] for x in failed["attempts"]] == [a["id"]] and failed["total"] == 1


def test_junit_file_and_junitxml_in_the_command(env: dict[str, str], repo: Path,
                                                tmp_path: Path) -> None:
    xml = Path(__file__).resolve().parent / "fixtures/observations/junit_maven.xml"
    r = hs(["run", "--junit", str(xml), "--", PY, "-c", "raise SystemExit(4)"], env, repo)
    assert r.returncode == 4
    (row,) = rows(env)
    obs = json.loads(row["observation"])
    assert (obs["parser"], obs["failed"]) == ("junit", ["com.shop.StockTest.deductsConcurrently"])
    out = tmp_path / "j.xml"
    r = hs(["run", "--", PY, "-m", "pytest", "-p", "no:cacheprovider", "-q",
            f"--junitxml={out}", "tests/test_stock.py"], env, repo)
    assert r.returncode == 1 and out.exists()
    obs = json.loads(rows(env)[-1]["observation"])
    assert (obs["parser"], obs["failed"], obs["passed"]) == (
        "junit", ["tests.test_stock.test_deduct"], ["tests.test_stock.test_add"])


def test_not_found_and_not_executable(env: dict[str, str], repo: Path) -> None:
    r = hs(["run", "--", "no-such-command-xyz", "--flag"], env, repo)
    assert (r.returncode, r.stdout) == (127, "")
    assert r.stderr == "hindsight: no-such-command-xyz: command not found\n"
    script = repo / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    r = hs(["run", "--", "./script.sh"], env, repo)
    assert r.returncode == 126
    assert r.stderr == "hindsight: ./script.sh: permission denied (not executable)\n"
    (repo / "adir").mkdir()
    r = hs(["run", "--", "./adir"], env, repo)
    assert (r.returncode, r.stderr) == (126, "hindsight: ./adir: is a directory\n")
    a, b, _ = rows(env)
    assert (a["outcome"], a["exit_code"], b["outcome"], b["exit_code"]) == (
        "failure", 127, "failure", 126)
    assert json.loads(a["observation"])["summary"] == \
        "no-such-command-xyz: command not found"


SLEEPER = ("import os, sys, time\nprint('ready', os.getpid(), flush=True)\n"
           "time.sleep(60)\n")


def _start(env: dict[str, str], repo: Path) -> tuple[subprocess.Popen[str], int]:
    p = subprocess.Popen([PY, "-m", "hindsight", "run", "--", PY, "-c", SLEEPER], env=env,
                         cwd=repo, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, preexec_fn=sigint_default)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert line.startswith("ready "), line
    return p, int(line.split()[1])


@pytest.mark.parametrize("target", ["hindsight", "child"])
def test_ctrl_c_is_passed_through(env: dict[str, str], repo: Path, target: str) -> None:
    """SIGINT to ``hindsight run`` is forwarded to the command; SIGINT to the command
    itself ends it the same way. Either way: exit status 130 and an interrupted record."""
    p, child = _start(env, repo)
    os.kill(p.pid if target == "hindsight" else child, signal.SIGINT)
    _out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "KeyboardInterrupt" in err  # the child's own traceback, streamed
    (row,) = rows(env)
    assert (row["outcome"], row["exit_code"]) == ("interrupted", 130)


def test_sigterm_gives_128_plus_15(env: dict[str, str], repo: Path) -> None:
    p, _child = _start(env, repo)
    time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=60)
    assert p.returncode == 143
    assert rows(env)[0]["outcome"] == "interrupted"


def test_a_failure_to_record_never_changes_the_exit_status(env: dict[str, str],
                                                          repo: Path) -> None:
    r = hs(["run", "--", PY, "-c", "print('out'); raise SystemExit(3)"],
           {**env, "HINDSIGHT_DISABLED": "1"}, repo)
    assert (r.returncode, r.stdout) == (3, "out\n")
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith("hindsight: the run was not recorded: ")


def test_secrets_in_output_never_reach_the_database(env: dict[str, str], repo: Path) -> None:
    (repo / "tests/test_secret.py").write_text(
        f"def test_token():\n    token = '{GH}'\n    assert token == 'x', f'AWS {AWS}'\n")
    r = hs(["run", "--", PY, "-m", "pytest", "-p", "no:cacheprovider", "-q",
            "tests/test_secret.py", f"--password={GH}"], env, repo)
    assert r.returncode != 0 and GH in r.stdout + r.stderr  # the user still sees it all
    (row,) = rows(env)
    assert "[REDACTED:" in row["observation"] + row["command"]
    db = db_file(env)
    for path in (db, Path(f"{db}-wal")):
        if path.exists():
            data = path.read_bytes()
            assert GH.encode() not in data and AWS.encode() not in data


def test_through_a_terminal(env: dict[str, str], repo: Path) -> None:
    """With stdout on a terminal the command gets a terminal too (colours stay on)."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes hindsight run
        os.chdir(repo)
        os.execve(PY, [PY, "-m", "hindsight", "run", "--", PY, "-c",
                       "import sys; print('tty', sys.stdout.isatty()); sys.exit(5)"], env)
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    _pid, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 5
    assert b"tty True" in data
    (row,) = rows(env)
    assert (row["exit_code"], row["outcome"]) == (5, "failure")


def test_an_unreadable_junit_file_is_said_in_one_line(env: dict[str, str], repo: Path
                                                      ) -> None:
    (repo / "bad.xml").write_text("this is not xml <")
    r = hs(["run", "--junit", "bad.xml", "--", sys.executable, "-c", "raise SystemExit(1)"],
           env, repo)
    assert r.returncode == 1
    assert r.stderr == ("hindsight: --junit bad.xml: not a readable JUnit XML file; the run "
                        "was recorded from its output\n")
    r = hs(["run", "--junit", "missing.xml", "--", sys.executable, "-c", "pass"], env, repo)
    assert (r.returncode, r.stderr) == (0, "hindsight: --junit missing.xml: no such file; "
                                           "the run was recorded from its output\n")
    assert [x["outcome"] for x in rows(env)] == ["failure", "success"]


def test_a_secret_in_the_command_is_cut_from_the_output_too(env: dict[str, str], repo: Path
                                                             ) -> None:
    # break-it round 2 (stop 20): the command's secret was redacted, the same value echoed
    # by the command was stored as the observation's summary
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    r = hs(["run", "--", "env", f"AWS_SECRET_ACCESS_KEY={key}", sys.executable, "-c",
            "import os, sys; print(os.environ['AWS_SECRET_ACCESS_KEY']); sys.exit(1)"],
           env, repo)
    assert r.returncode == 1 and key in r.stdout  # the user still sees the output
    row = rows(env)[-1]
    assert key not in row["command"] and key not in row["observation"]
    assert json.loads(row["observation"])["summary"] == "[REDACTED:known]"
    assert key.encode() not in db_file(env).read_bytes()
