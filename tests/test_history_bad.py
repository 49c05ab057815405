"""Bad input for history: no git on PATH, odd commit encodings, an interrupted ingest,
wrong arguments — each a clear error or a complete result, nothing stored lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from histutil import Repo, fn, git

from hindsight.app import open_bank
from hindsight.errors import ConfigError
from hindsight.history import ingest as H

CLI = [sys.executable, "-m", "hindsight"]


def three(tmp: Path) -> Repo:
    r = Repo(tmp / "r")
    for i in range(1, 6):
        r.write("a.py", fn("f", f"return {i}"))
        r.commit(f"c{i}")
    return r


def test_missing_git_is_one_clear_line(tmp_path: Path) -> None:
    r = three(tmp_path)
    env = {**os.environ, "PATH": str(tmp_path / "nowhere")}
    p = subprocess.run([*CLI, "ingest"], cwd=r.path, env=env, capture_output=True, text=True)
    assert p.returncode == 8
    assert p.stderr.strip().endswith("git is not installed (or not on PATH); history "
                                     "needs git")
    assert len(p.stderr.strip().splitlines()) == 1


def test_latin1_commit_message_and_binary_files(tmp_path: Path) -> None:
    r = Repo(tmp_path / "enc")
    (r.path / "a.py").write_text(fn("f"))
    (r.path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    msg = tmp_path / "msg"
    msg.write_bytes("Größe geändert\n".encode("latin-1"))
    git(r.path, "add", "-A")
    git(r.path, "-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-F", str(msg), n=1)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        (subject, n_files), = b.stores.raw.execute("SELECT subject, n_files FROM commits").fetchall()
        assert (subject, n_files) == ("Größe geändert", 2)
        rows = b.stores.raw.execute("SELECT path, added, deleted FROM commit_files ORDER BY path"
                              ).fetchall()
        assert rows == [("a.py", 4, 0), ("blob.bin", -1, -1)]


def test_interrupted_ingest_resumes_without_duplicates(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    r = three(tmp_path)
    monkeypatch.setattr(H, "CHUNK", 2)
    calls = {"n": 0}
    real = H._ingest_chunk

    def flaky(*a, **k):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    with open_bank(str(r.path)) as b:
        b.code.index()
        monkeypatch.setattr(H, "_ingest_chunk", flaky)
        with pytest.raises(KeyboardInterrupt):
            b.history.ingest()
        assert b.stores.history.commit_count() == 2  # the first chunk (newest two) stayed
        monkeypatch.setattr(H, "_ingest_chunk", real)
        st = b.history.ingest()
        assert st.ingested == 3
        assert b.stores.raw.execute("SELECT count(*), count(DISTINCT sha) FROM commits"
                              ).fetchone() == (5, 5)
        assert [e.subject for e in b.history.history("f")["entries"]] == ["c5", "c4", "c3", "c2",
                                                                  "c1"]


def test_cli_errors_and_json(tmp_path: Path) -> None:
    r = three(tmp_path)
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    p = subprocess.run([*CLI, "history", "f"], cwd=r.path, capture_output=True, text=True)
    assert p.returncode == 5 and "no git history in this bank yet" in p.stderr
    p = subprocess.run([*CLI, "ingest", "--json"], cwd=r.path, capture_output=True, text=True,
                       check=True)
    data = json.loads(p.stdout)
    assert (data["ingested"], data["expanded"], data["mode"], data["partial"]) == (5, 5, "full",
                                                                                   "")
    for args, code, text in [
        (["why", "a.py"], 2, "expected FILE:LINE"),
        (["why", "nope.py:3"], 6, "nope.py: no such file"),
        (["why", "a.py:0"], 2, "lines are 1-based"),
        (["history", "nosuch"], 6, "no symbol named 'nosuch'"),
        (["ingest", "--limit", "0"], 2, "0"),
        (["impact", "f", "--depth", "0"], 2, "depth"),
    ]:
        p = subprocess.run([*CLI, *args], cwd=r.path, capture_output=True, text=True)
        assert (p.returncode, text in p.stderr) == (code, True), (args, p.stderr)
    p = subprocess.run([*CLI, "why", "a.py:2", "--json"], cwd=r.path, capture_output=True,
                       text=True, check=True)
    res = json.loads(p.stdout)
    assert (res["symbol"]["qname"], res["last"]["subject"], len(res["earlier"])) == (
        "a.py::f", "c5", 4)
    p = subprocess.run([*CLI, "hotspots", "--json"], cwd=r.path, capture_output=True,
                       text=True, check=True)
    assert json.loads(p.stdout)["files"][0]["path"] == "a.py"


def test_outside_git_history_says_git_not_ingest(tmp_path: Path) -> None:
    d = tmp_path / "plain"
    d.mkdir()
    (d / "m.py").write_text(fn("a"))
    subprocess.run([*CLI, "index"], cwd=d, check=True, capture_output=True)
    for args in (["history", "a"], ["why", "m.py:1"], ["hotspots"]):
        p = subprocess.run([*CLI, *args], cwd=d, capture_output=True, text=True)
        assert p.returncode == 8 and "not a git repository" in p.stderr, (args, p.stderr)


def test_why_past_the_end(tmp_path: Path) -> None:
    r = three(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        with pytest.raises(ConfigError, match=r"a.py:99: past the end of the file \(4 lines\)"):
            b.history.why("a.py", 99)
        assert b.history.why("a.py", 4)["symbol"] is None  # the blank line after f


def test_amended_commit_keeps_its_added_entry_when_asked(tmp_path: Path) -> None:
    r = three(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        r.write("b.py", fn("fresh"))
        r.commit("add fresh")
        b.history.ingest()
        old = r.shas[6]
        r.write("b.py", fn("fresh", "return 'amended'"))
        git(r.path, "add", "-A")
        git(r.path, "commit", "-q", "--amend", "-m", "add fresh (amended)", n=7)
        new = git(r.path, "rev-parse", "HEAD").strip()
        b.code.index()
        assert b.history.ingest().unreachable_marked == 1
        assert [(e.sha, e.reachable) for e in b.history.history("fresh")["entries"]] == [(new, True)]
        got = b.history.history("fresh", include_unreachable=True)["entries"]
        assert [(e.sha, e.change, e.reachable) for e in got] == [(new, "added", True),
                                                                 (old, "added", False)]


def test_secrets_in_commit_messages_are_redacted(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    r.write("a.py", fn("a"))
    key, token = "AKIAIOSFODNN7EXAMPLE", "ghp_" + "x1Y2z3" * 6
    r.commit(f"add creds {key}\n\nsee https://u:hunter3pass@example.com/ and {token}")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        entry = b.history.history("a")["entries"][0]
        raw = Path(b.path).read_bytes() + (Path(b.path + "-wal").read_bytes()
                                           if Path(b.path + "-wal").exists() else b"")
    assert entry.subject == "add creds [REDACTED:aws_access_key]"
    for secret in (key, token, "hunter3pass"):
        assert secret.encode() not in raw


def test_why_on_a_line_older_than_the_ingested_history_names_the_way(tmp_path: Path
                                                                      ) -> None:
    # fresh-user report (stop 20): 47% of click's lines got "no commit found" after the
    # default ingest of 300 commits, with nothing saying how to reach further back
    r = Repo(tmp_path / "r")
    r.write("b.py", "# the header comment\n")
    first = r.commit("c0")
    for i in range(1, 4):
        r.write("a.py", fn("f", f"return {i}"))
        r.commit(f"c{i}")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(limit=2)
        got = b.history.why("b.py", 1)
        assert (got["source"], got["last"]) == ("blame", None)
        assert got["notes"] == [f"git blame names {first[:10]}, older than the ingested "
                                "history: `hindsight ingest --all` reads all of it"]
        # the CLI says it once (fresh-user report, stop 24: it printed the note twice)
        p = subprocess.run([*CLI, "why", "b.py:1"], cwd=r.path, capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        assert p.stdout.count(f"git blame names {first[:10]}") == 1, p.stdout
        b.history.ingest(all_=True)
        assert b.history.why("b.py", 1)["last"]["sha"] == first
