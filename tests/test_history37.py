"""Fresh-user run of session 37 (issue 14, history honesty): every incremental ``hindsight
ingest`` after the first (also the post-commit git hook's) left the history marked
``partial: interrupted`` for good: the run marks the bank interrupted while it reads, and
the end of an incremental run read that mark back as the history's state. Now a finished
run leaves what the history lacked before it (nothing, ``limited`` or ``shallow``), and an
interrupted run still says so until a later one finishes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo, fn

from hindsight.app import open_bank
from hindsight.history import ingest as ingest_mod


def _commit(r: Repo, i: int) -> None:
    r.write("a.py", fn("old") + fn("f", f"return {i}"))
    r.commit(f"f returns {i}")


def test_incremental_ingests_leave_a_complete_history_complete(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.py", fn("old") + fn("f"))
    r.commit("add old and f")
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        bank.history.ingest()
        assert bank.history.status()["partial"] == ""
    for i in (2, 3):
        _commit(r, i)
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
        out = subprocess.run([sys.executable, "-m", "hindsight", "ingest", "--repo-root",
                              str(r.path)], capture_output=True, text=True, env=env)
        assert out.returncode == 0 and "partial" not in out.stdout + out.stderr, out.stdout
    with open_bank(repo_root_path=str(r.path)) as bank:
        st = bank.history.status()
        assert (st["commits"], st["partial"]) == (3, "")
        res = bank.history.history("a.py::f")
        assert res["partial"] == "" and len(res["entries"]) == 3


def test_a_limited_history_stays_limited_and_an_interrupt_still_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.py", fn("old") + fn("f"))
    r.commit("add old and f")
    for i in (2, 3):
        _commit(r, i)
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        bank.history.ingest(limit=2)  # the two newest of three
        assert bank.history.status()["partial"] == "limited"
        _commit(r, 4)
        bank.history.ingest()  # the new commit: older history is still missing
        assert (bank.history.status()["commits"], bank.history.status()["partial"]) == (
            3, "limited")
        for i in (5, 6):
            _commit(r, i)
        monkeypatch.setattr(ingest_mod, "CHUNK", 1)

        def stop(phase: str, done: int, total: int) -> None:
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            bank.history.ingest(progress=stop)
        assert bank.history.status()["partial"] == "interrupted"
        bank.history.ingest()  # finishes the run: back to what it lacked before
        assert (bank.history.status()["commits"], bank.history.status()["partial"]) == (
            5, "limited")
