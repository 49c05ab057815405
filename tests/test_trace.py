"""The live edit trace: record_edit, ``hindsight watch`` in a real subprocess, trace-log,
and the git hooks (install twice, keep the user's hook, uninstall restores it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from histutil import Repo, fn, git, sigint_default

from hindsight.app import open_bank
from hindsight.errors import ConfigError

CLI = [sys.executable, "-m", "hindsight"]


def small_repo(tmp: Path) -> Repo:
    r = Repo(tmp / "repo")
    r.write("a.py", fn("f") + fn("g"))
    r.write("notes.txt", "hello\n")
    r.commit("one")
    return r


def test_record_edit_symbols_ranges_actor(tmp_path: Path) -> None:
    r = small_repo(tmp_path)
    old = fn("f") + fn("g")
    new = fn("f", "return 10") + fn("k")
    (r.path / "a.py").write_text(new)
    with open_bank(str(r.path)) as b:
        b.code.index()
        ev = b.history.record_edit(str(r.path / "a.py"), old, new, actor="claude-code",
                           session="s-123")
        assert (ev["path"], ev["action"], ev["actor"], ev["session"], ev["branch"],
                ev["head"]) == ("a.py", "modify", "claude-code", "s-123", "main", r.shas[1])
        assert ev["ranges"] == [[2, 1, 2, 1], [5, 1, 5, 1]]
        assert [(s["local"], s["change"], s["start_line"]) for s in ev["symbols"]] == [
            ("f", "modified", 1), ("k", "moved", 5)]  # g renamed to k: the same body
        assert ev["ts"][-6] in "+-" and ev["old_hash"] != ev["new_hash"] != ""
        # the index was refreshed first: symbol queries see k, not g
        assert [s.local for s in b.code.symbols("k")[1]] == ["k"]
        assert b.code.symbols("g")[0] == "none"
        # create, delete, rename
        c = b.history.record_edit("b.py", None, fn("made"), actor="human")
        assert (c["action"], [(s["local"], s["change"]) for s in c["symbols"]]) == (
            "create", [("made", "added")])
        d = b.history.record_edit("b.py", fn("made"), None)
        assert (d["action"], d["new_hash"], d["ranges"]) == ("delete", "", [[1, 4, 0, 0]])
        m = b.history.record_edit("z.py", new, new, old_path="a.py")
        assert (m["action"], m["old_path"]) == ("rename", "a.py")
        assert {(s["local"], s["change"]) for s in m["symbols"]} == {("f", "moved"),
                                                                     ("k", "moved")}
        with pytest.raises(ConfigError):
            b.history.record_edit("q.py", None, None)
        with pytest.raises(ConfigError, match="not a file inside the repository"):
            b.history.record_edit("../elsewhere.py", "", "x = 1\n")
        log = b.history.trace_log(symbol="k")
        assert [e["action"] for e in log] == ["rename", "modify"]
        assert [e["action"] for e in b.history.trace_log(file="b.py")] == ["delete", "create"]


def test_trace_log_jsonl_and_since(tmp_path: Path) -> None:
    r = small_repo(tmp_path)
    with open_bank(str(r.path)) as b:
        b.history.record_edit("a.py", fn("f"), fn("f", "return 3"), actor="codex", session="x",
                      refresh_index=False)
    out = subprocess.run([*CLI, "trace-log", "--format", "jsonl"], cwd=r.path,
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert len(lines) == 1
    obj = json.loads(lines[0])
    assert (obj["file"], obj["action"], obj["actor"], obj["session"]) == ("a.py", "modify",
                                                                          "codex", "x")
    assert obj["symbols"] == [{"qname": "a.py::f", "kind": "function", "change": "modified",
                               "old_hash": obj["symbols"][0]["old_hash"],
                               "new_hash": obj["symbols"][0]["new_hash"], "start_line": 1,
                               "end_line": 2}]
    later = subprocess.run([*CLI, "trace-log", "--since", "2099-01-01", "--json"], cwd=r.path,
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(later) == {"events": [], "count": 0}
    bad = subprocess.run([*CLI, "trace-log", "--since", "last tuesday"], cwd=r.path,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "since 'last tuesday': not a time" in bad.stderr


def _wait_for(pred, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_watch_subprocess_records_events(tmp_path: Path) -> None:
    r = small_repo(tmp_path)
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    proc = subprocess.Popen([*CLI, "watch", "--actor", "aider", "--session", "w1",
                             "--debounce-ms", "100"], cwd=r.path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    try:
        assert proc.stderr is not None and proc.stdout is not None
        notice = proc.stderr.readline()
        assert "watch indexes untracked (not ignored) files too" in notice, notice
        line = proc.stderr.readline()
        assert "watching" in line, line
        (r.path / "a.py").write_text(fn("f", "return 7") + fn("g"))
        assert "modify a.py (modified f)" in proc.stdout.readline()
        (r.path / "new.py").write_text(fn("born"))
        assert "create new.py (added born)" in proc.stdout.readline()
        os.rename(r.path / "new.py", r.path / "moved.py")
        assert "rename moved.py (moved born)" in proc.stdout.readline()
        (r.path / "moved.py").unlink()
        assert "delete moved.py (removed born)" in proc.stdout.readline()
        (r.path / "notes.txt").write_text("not code\n")  # unsupported: no event
        (r.path / "a.py").write_text(fn("f", "return 7") + fn("g", "return 8"))
        assert "modify a.py (modified g)" in proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "stopped; 5 events recorded" in err
    log = subprocess.run([*CLI, "trace-log", "--format", "jsonl"], cwd=r.path,
                         capture_output=True, text=True, check=True).stdout
    events = [json.loads(x) for x in log.splitlines()][::-1]
    assert [(e["action"], e["file"], e["old_file"], e["actor"], e["session"]) for e in events
            ] == [("modify", "a.py", "", "aider", "w1"), ("create", "new.py", "", "aider", "w1"),
                  ("rename", "moved.py", "new.py", "aider", "w1"),
                  ("delete", "moved.py", "", "aider", "w1"),
                  ("modify", "a.py", "", "aider", "w1")]
    assert events[0]["ranges"] == [[2, 1, 2, 1]]
    # the index followed the edits: g is at its new hash, born is gone
    sym = subprocess.run([*CLI, "symbols", "born", "--json"], cwd=r.path,
                         capture_output=True, text=True)
    assert json.loads(sym.stdout)["symbols"] == []


HOOK_USER = "#!/bin/sh\necho \"user hook $1\" >> \"$(git rev-parse --show-toplevel)/hook.log\"\n"


def test_git_hooks_install_twice_keep_user_hook_uninstall_restores(tmp_path: Path) -> None:
    r = small_repo(tmp_path)
    hooks = r.path / ".git" / "hooks"
    user = hooks / "post-commit"
    user.write_text(HOOK_USER)
    user.chmod(0o755)
    env = {**os.environ, "HINDSIGHT_DISABLE_HOOKS": ""}
    first = subprocess.run([*CLI, "hooks", "install-git"], cwd=r.path, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert "post-commit: kept your hook as post-commit.hindsight-orig" in first
    second = subprocess.run([*CLI, "hooks", "install-git"], cwd=r.path, env=env,
                            capture_output=True, text=True, check=True).stdout
    assert "post-commit: already installed (updated)" in second
    names = sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample"))
    assert names == ["post-checkout", "post-commit", "post-commit.hindsight-orig",
                     "post-merge", "post-rewrite"]
    assert user.read_text().count("hindsight-managed git hook") == 1
    # a commit runs the user's hook and, in the background, index + ingest
    (r.path / "a.py").write_text(fn("f", "return 2") + fn("g"))
    env_git = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "commit", "-qam", "two"], cwd=r.path, env=env_git, check=True)
    assert (r.path / "hook.log").read_text() == "user hook \n"
    log = Path(os.environ["HINDSIGHT_HOME"]) / "logs" / "git-hooks.log"
    _wait_for(lambda: log.exists() and '"outcome": "ok"' in log.read_text())
    rec = json.loads(log.read_text().splitlines()[-1])
    assert (rec["event"], rec["outcome"], rec["commits"]) == ("post-commit", "ok", 2)
    with open_bank(str(r.path)) as b:
        assert [e.subject for e in b.history.history("f")["entries"]] == ["two", "one"]
    out = subprocess.run([*CLI, "hooks", "uninstall-git"], cwd=r.path, capture_output=True,
                         text=True, check=True).stdout
    assert "post-commit: removed; your original hook is back" in out
    assert user.read_text() == HOOK_USER
    names = sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample"))
    assert names == ["post-commit"]


def test_git_hooks_disabled_by_env_and_hook_failure_never_breaks_git(tmp_path: Path) -> None:
    r = small_repo(tmp_path)
    subprocess.run([*CLI, "hooks", "install-git"], cwd=r.path, check=True,
                   capture_output=True)
    env_git = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@e", "HINDSIGHT_DISABLE_HOOKS": "1"}
    (r.path / "a.py").write_text(fn("f", "return 2"))
    subprocess.run(["git", "commit", "-qam", "two"], cwd=r.path, env=env_git, check=True)
    time.sleep(0.5)
    assert not (Path(os.environ["HINDSIGHT_HOME"]) / "logs" / "git-hooks.log").exists()
    # a broken bank home: the hook logs nothing useful but git still succeeds
    env_git["HINDSIGHT_DISABLE_HOOKS"] = ""
    env_git["HINDSIGHT_HOME"] = "/proc/forbidden"
    (r.path / "a.py").write_text(fn("f", "return 3"))
    done = subprocess.run(["git", "commit", "-qam", "three"], cwd=r.path, env=env_git)
    assert done.returncode == 0
    git(r.path, "log", "-1", "--format=%s")


def test_watch_pairs_each_text_with_the_symbols_indexed_from_it(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """A file saved again between the watcher's index refresh and its read of the file
    (saves 0.3 s apart on a large file, fresh-user trial of 2026-12-02): the event named
    ``added g3`` for lines holding g3 and g4, and no event named g4. The watcher now
    refreshes until the bytes it reads are the ones indexed, so the batch's one event
    names both functions its text adds."""
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "home"))
    r = small_repo(tmp_path)
    with open_bank(repo_root_path=str(r.path)) as bank:
        bank.code.index()
        w = bank.history.watcher()
        first = w.refresh
        saves = [fn("f") + fn("g") + fn("g3"), fn("f") + fn("g") + fn("g3") + fn("g4")]
        (r.path / "a.py").write_text(saves[0])

        def refresh_then_saved_again() -> object:
            out = first()
            if saves[1] is not None:  # the next save lands right after the index read
                (r.path / "a.py").write_text(saves[1])
                saves[1] = None  # type: ignore[call-overload]
            return out

        w.refresh = refresh_then_saved_again
        events = w.handle([("modified", "a.py", "")])
        assert [(e["action"], sorted((s["change"], s["local"]) for s in e["symbols"]))
                for e in events] == [("modify", [("added", "g3"), ("added", "g4")])]
        assert w.cache["a.py"] == (r.path / "a.py").read_bytes()
