"""Bad inputs found by the break-it pass of stop 20 (each with its exact right value):
a transcript line over the read cap, near-duplicates that differ in a number, unreadable
JUnit files, a directory given as the command of ``hindsight run``."""

from __future__ import annotations

from pathlib import Path

import pytest
from ccfixture import Transcript
from conftest import make_repo

from hindsight.app import open_bank


def test_session_end_reads_past_a_line_over_the_read_cap(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    import hindsight.sessions.transcripts as tr

    monkeypatch.setattr(tr, "READ_CAP", 4096)
    repo = make_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n"})
    t = Transcript(tmp_path / "t.jsonl", "sess-huge", str(repo))
    t.user("the pelican deployment uses blue green switching")
    t.say("x" * 20_000)  # one assistant line five times the read cap
    t.user("the ostrich migration must run before the release")
    t.say("noted, the ostrich migration runs first")
    path = t.write()
    with open_bank(str(repo), harness="claude-code") as bank:
        out = bank.sessions.write_back(str(path), "claude-code", final=True)
        texts = [m.text for m in bank.memory.memories(limit=50)]
    assert out["to"] == path.stat().st_size
    assert any("pelican" in x for x in texts) and any("ostrich" in x for x in texts)
    assert any("skipped (over 4,096)" in w for w in out["warnings"])


def test_near_duplicates_that_differ_in_a_number_are_both_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n"})
    with open_bank(str(repo)) as bank:
        first = bank.memory.retain("The staging API listens on port 8080")
        second = bank.memory.retain("The staging API listens on port 9090")
        again = bank.memory.retain("The staging API listens on port 9090.")
        texts = sorted(m.text for m in bank.memory.memories(limit=10))
    assert (first.action, second.action) == ("created", "created")
    assert again.action in ("merged", "duplicate") and again.id == second.id
    assert texts == ["The staging API listens on port 8080",
                     "The staging API listens on port 9090"]


def test_a_bare_repository_is_named_as_such(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}
    for cmd in ("index", "ingest"):
        r = subprocess.run([sys.executable, "-m", "hindsight", cmd], cwd=bare, env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert (r.returncode, r.stderr) == (8, f"hindsight: {bare}: a bare git repository "
                                               "(no work tree); run hindsight in a clone of "
                                               "it\n")
    assert not (tmp_path / "home" / "banks").exists() or \
        not list((tmp_path / "home" / "banks").iterdir())


def test_the_repositorys_modules_never_shadow_ours(tmp_path: Path) -> None:
    # a user runs `PYTHONPATH=src hindsight run -- pytest` in a checkout of click: the
    # checkout's click must not be imported by hindsight itself (fresh-user report, stop 20)
    import os
    import subprocess
    import sys

    repo = make_repo(tmp_path / "r", {"src/click/__init__.py": "raise RuntimeError('bad')\n",
                                      "click/__init__.py": "raise RuntimeError('bad')\n"})
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(["src", *filter(None, [
               os.environ.get("PYTHONPATH")])])}
    child = "import os; print(os.environ['PYTHONPATH'].split(os.pathsep)[0])"
    r = subprocess.run([sys.executable, "-m", "hindsight", "run", "--", sys.executable, "-c",
                        child], cwd=repo, env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert (r.returncode, r.stdout) == (0, "src\n"), r.stderr
    assert "RuntimeError" not in r.stderr


def test_a_read_only_home_is_named_in_the_error(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # root ignores mode bits, so the read-only mount of the report is stood in for by
    # os.access and the error sqlite gives there
    import os
    import sqlite3

    from hindsight.errors import StorageError
    from hindsight.store.sqlite import db

    banks = tmp_path / "banks"
    banks.mkdir()

    def refuse(*a: object, **k: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(db.sqlite3, "connect", refuse)
    monkeypatch.setattr(os, "access", lambda p, mode: mode != os.W_OK)
    with pytest.raises(StorageError) as e:
        db.connect(str(banks / "b.db"))
    assert str(e.value).endswith(
        f"cannot open bank database: unable to open database file ({banks} is read-only: "
        "hindsight writes its banks there; point HINDSIGHT_HOME at a writable directory)")


def test_a_named_symbol_is_found_among_many_anchors_named_like_word_pieces(
        tmp_path: Path) -> None:
    # fresh-user report (stop 20): "change Context.invoke so it forwards params" injected
    # nothing; fifty memories anchored to symbols named like pieces of the prompt's words
    # ("it" in "edit", "for" in "forwards") filled the gate's candidate list first
    from hindsight.sessions.gate import named_ids

    src = "".join(f"def {n}():\n    return 1\n\n\n" for n in ("it", "fo", "ward", "par"))
    src += "class Context:\n    def invoke(self):\n        return 2\n"
    repo = make_repo(tmp_path / "r", {"core.py": src})
    with open_bank(str(repo)) as bank:
        bank.code.index()
        for i in range(60):
            bank.memory.retain(f"note {i} about helper number {i}",
                               symbols=[["core.py::it", "core.py::fo", "core.py::ward",
                                         "core.py::par"][i % 4]])
        want = bank.memory.retain("Context.invoke must keep forwarding defaults",
                                  symbols=["core.py::Context.invoke"]).id
        got = named_ids(bank.memory, "change Context.invoke so it forwards params")
    assert want in got
    assert len(got) == 16  # the 15 anchored to `it` (a whole word there) and the one named


def test_a_command_that_never_ran_is_not_a_failed_attempt(tmp_path: Path) -> None:
    # fresh-user report (stop 20): `hindsight run -- nosuchcmd` showed in the next
    # briefing among the failed attempts
    repo = make_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n"})
    with open_bank(str(repo)) as bank:
        typo = bank.records.record("nosuchcmd", exit_code=127, output="nosuchcmd: not found")
        real = bank.records.record("pytest -q", exit_code=1,
                                   output="FAILED tests/test_a.py::test_f\n1 failed in 0.1s\n")
        assert (typo.outcome, real.outcome) == ("failure", "failure")  # both recorded
        assert [r.id for r in bank.records.failures()] == [real.id]
        assert [r.id for r in bank.records.failures(unresolved=True)] == [real.id]


def test_symbols_says_when_a_dotted_name_matched_on_its_last_part(tmp_path: Path) -> None:
    # fresh-user report (stop 20): "4 prefix match(es) for 'Nonexistent.parse_args'"
    import os
    import subprocess
    import sys

    repo = make_repo(tmp_path / "r", {"m.py": "class Command:\n    def parse_args(self):\n"
                                               "        pass\n"})
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home"), "COLUMNS": "200"}

    def hs(*args: str) -> str:
        r = subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=repo, env=env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        return " ".join(r.stdout.split("┏")[0].split())  # the title, unwrapped

    hs("index")
    assert hs("symbols", "Nonexistent.parse_args") == (
        "1 prefix match(es) for 'parse_args' (no exact match for 'Nonexistent.parse_args'; "
        "matched on its last part)")
    assert hs("symbols", "parse_ar") == "1 prefix match(es) for 'parse_ar'"


def test_a_nul_byte_past_the_binary_check_keeps_the_symbols_after_it(tmp_path: Path) -> None:
    """A stray NUL on line 6 of a text file whose first 8 KiB have none (break-it
    finding): it is read as a space, so ``after`` is kept, and the file's error names
    line 6, not the line where the grammar stopped."""
    src = "#" * 8300 + "\n\ndef before():\n    pass\n\nX = '\0'\n\n\ndef after():\n    pass\n"
    repo = make_repo(tmp_path / "r", {"nul.py": src})
    with open_bank(str(repo)) as bank:
        bank.code.index(workers=1)
        syms = [(s.name, s.start_line) for s in bank.stores.code.file_symbols("nul.py")]
        errors = {f.path: f.error for f in bank.stores.code.load_files().values()}
    assert syms == [("before", 3), ("X", 6), ("after", 9)]
    assert errors["nul.py"] == "NUL byte at line 6 (read as a space)"
