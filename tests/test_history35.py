"""Findings of the fresh-user run of session 35 (issue 14): an ingest stopped
before it read every commit it planned (Ctrl-C, a kill) leaves a history that says it is
partial (``interrupted``) until a later ingest finishes (``history``, ``status`` and
``hotspots`` say so); ``impact`` says when its commits are its file's; an index waiting for
the bank's lock says who holds it; ``touch`` alone leaves the index fresh."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo, fn

from hindsight.app import open_bank
from hindsight.history import ingest as ingest_mod
from hindsight.history.queries import partial_note


def _repo(tmp: Path) -> Repo:
    r = Repo(tmp / "r")
    r.write("a.py", fn("old") + fn("f"))
    r.commit("add old and f")  # 1: the only commit that touches `old`
    for i in range(2, 5):
        r.write("a.py", fn("old") + fn("f", f"return {i}"))
        r.commit(f"f returns {i}")  # 2-4
    return r


def test_an_interrupted_ingest_says_the_history_is_partial(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _repo(tmp_path)
    monkeypatch.setattr(ingest_mod, "CHUNK", 1)  # one commit per transaction

    def stop(phase: str, done: int, total: int) -> None:
        if done == 2:  # two chunks (the two newest commits) are stored
            raise KeyboardInterrupt

    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        with pytest.raises(KeyboardInterrupt):
            bank.history.ingest(progress=stop)
        st = bank.history.status()
        assert (st["commits"], st["partial"]) == (2, "interrupted")
        res = bank.history.history("a.py::old")
        assert res["partial"] == "interrupted" and res["entries"] == []
        assert any("partial (interrupted)" in n and "hindsight ingest reads" in n
                   for n in res["notes"])
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "status", "--repo-root",
                          str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "partial: interrupted" in out.stdout, out.stdout + out.stderr
    out = subprocess.run([sys.executable, "-m", "hindsight", "hotspots", "--repo-root",
                          str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "counted over a partial history (interrupted)" in " ".join(out.stdout.split())
    js = subprocess.run([sys.executable, "-m", "hindsight", "hotspots", "--json",
                         "--repo-root", str(r.path)], capture_output=True, text=True, env=env)
    assert json.loads(js.stdout)["history_partial"] == "interrupted"
    with open_bank(repo_root_path=str(r.path)) as bank:  # the next ingest finishes it
        bank.history.ingest()
        st = bank.history.status()
        assert (st["commits"], st["partial"]) == (4, "")
        assert [e.subject for e in bank.history.history("a.py::old")["entries"]] == [
            "add old and f"]


def test_impact_says_when_its_commits_are_the_files(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.py", fn("f") + fn("g"))
    r.write("b.py", fn("h"))
    r.commit("add f, g, h")
    r.write("a.py", fn("f", "return 2") + fn("g"))
    r.write("b.py", fn("h", "return 2"))
    r.commit("f and h")
    r.write("a.py", fn("f", "return 3") + fn("g"))
    r.write("b.py", fn("h", "return 3"))
    r.commit("f and h again")
    r.write("a.py", fn("f", "return 3") + fn("g") + fn("k"))  # k: added in the newest
    r.commit("add k")
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        bank.history.ingest(limit=3)  # the three newest: g's own commit is not read
        f = bank.history.impact("a.py::f")
        assert (f["commits"], f["history_level"]) == (2, "symbol")
        assert f["notes"] == [f"co-change counts read a {partial_note('limited')}"]
        g = bank.history.impact("a.py::g")
        assert (g["commits"], g["history_level"]) == (3, "file")
        assert g["notes"][1:] == ["no ingested commit changed g itself: the 3 commits are "
                                  "those of its file a.py"]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "impact", "a.py::g",
                          "--repo-root", str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "3 commits of its file" in out.stdout, out.stdout


def test_an_index_waiting_for_the_lock_says_who_holds_it(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        with bank.history._lock("ingest"):  # as a long `ingest --all` holds it
            p = subprocess.Popen([sys.executable, "-m", "hindsight", "index", "--repo-root",
                                  str(r.path)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            assert p.stderr is not None
            line = p.stderr.readline()  # said before it waits, not after
            assert line.startswith("hindsight: waiting for this bank's index lock, held by "
                                   f"ingest (pid {os.getpid()}, since "), line
            assert p.poll() is None  # still waiting
        assert p.wait(timeout=120) == 0


def test_touch_alone_keeps_the_index_fresh(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        assert (bank.code.status()["changed_since"], bank.code.status()["fresh"]) == (0, True)
        a = r.path / "a.py"
        st = a.stat()
        os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # `touch`
        assert (bank.code.status()["changed_since"], bank.code.status()["fresh"]) == (0, True)
        a.write_text(a.read_text().replace("return 4", "return 5"))  # same size, new text
        assert (bank.code.status()["changed_since"], bank.code.status()["fresh"]) == (1, False)


def test_context_names_the_piece_of_a_word_that_matched() -> None:
    from hindsight.context.reasons import _shown

    assert [_shown("7q", "7q"), _shown("7", "7q"), _shown("q", "7q"),
            _shown("pars", "parsing"), _shown("config", "Config")] == [
        "7q", "7 (of 7q)", "q (of 7q)", "parsing", "Config"]


def test_git_hooks_that_cannot_be_written_are_a_storage_error(tmp_path: Path) -> None:
    r = _repo(tmp_path)
    hooks = r.path / ".git" / "hooks"
    import shutil

    shutil.rmtree(hooks, ignore_errors=True)
    hooks.write_text("not a directory")  # as unwritable as a read-only one, even for root
    env = {**os.environ, "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "git-hooks", "install-git",
                          "--repo-root", str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 4, out.stderr  # storage, not 2 ("bad argument")
    assert f"{hooks}: cannot install git hooks" in out.stderr


def test_the_history_table_says_how_to_read_the_rest(tmp_path: Path) -> None:
    """Fresh-user run 38: `history` of a limited ingest said "partial history (limited)"
    in its title only, not what reads the rest (`why` did); `hotspots` showed its start as
    raw ISO 8601, unlike every other time in a table."""
    r = _repo(tmp_path)
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index(full=True, workers=1)
        bank.history.ingest(limit=2)
        assert bank.history.history("a.py::f")["partial"] == "limited"
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "TZ": "UTC"}
    out = subprocess.run([sys.executable, "-m", "hindsight", "history", "a.py::f",
                          "--repo-root", str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert partial_note("limited") in " ".join(out.stdout.split())
    out = subprocess.run([sys.executable, "-m", "hindsight", "hotspots", "--repo-root",
                          str(r.path)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    import re

    assert re.search(r"files since \d{4}-\d\d-\d\d \d\d:\d\d [+-]\d\d:\d\d", out.stdout), \
        out.stdout
