"""Being a good neighbour in the user's repository and home (issue 15, item 6): git calls
that take no lock and print paths as they are, git hooks never written where they would be
committed, configured paths matched through symlinks, JSON written by Windows tools, and a
private state directory. Real git repositories, real CLI and hook subprocesses."""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ccfixture import Transcript
from conftest import ROOT
from histutil import Repo, fn, git
from hookutil import convention_session, diag, hook, make_env, start

from hindsight.config.banks import resolve
from hindsight.config.paths import git_cmd
from hindsight.sessions.briefing import branch_files

CLI = [sys.executable, "-m", "hindsight"]


def run(args: list[str], env: dict[str, str], cwd: Path, stdin: bytes | None = None,
        code: int = 0) -> subprocess.CompletedProcess[bytes]:
    p = subprocess.run([*CLI, *args], cwd=cwd, env=env, input=stdin, capture_output=True,
                       timeout=120)
    assert p.returncode == code, p.stderr.decode()
    return p


def gone(pid: int, timeout: float = 120.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


# ------------------------------------------------------------------ git: locks, quoting

def test_every_git_command_line_is_built_by_git_cmd() -> None:
    assert git_cmd("/r", "status")[:4] == ["git", "-C", "/r", "--no-optional-locks"]
    assert git_cmd("/r", "status")[-1] == "status"
    spelled = []
    for f in sorted((ROOT / "src" / "hindsight").rglob("*.py")):
        if f.name == "paths.py" and f.parent.name == "config":
            continue
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(n, ast.List | ast.Tuple) and n.elts
                    and isinstance(n.elts[0], ast.Constant) and n.elts[0].value == "git"):
                spelled.append(f"{f.name}:{n.lineno}")
    assert spelled == []


def _stat(p: Path) -> tuple[int, int, int]:
    s = p.stat()
    return s.st_ino, s.st_mtime_ns, s.st_size


def test_session_start_and_seeding_never_lock_or_rewrite_the_index(tmp_path: Path) -> None:
    r = Repo(tmp_path / "shop")
    r.write("pay.py", fn("charge") + fn("refund"))
    r.write("notes.md", "# notes\n")
    r.commit("add payments")
    env = {**make_env(tmp_path), "HINDSIGHT_SEED": "1",
           "GIT_TRACE2_EVENT": str(tmp_path / "trace2.jsonl")}
    run(["retain", "refund() must run before charge() is retried", "--kind", "lesson",
         "--file", "notes.md"], env, r.path)
    (r.path / "notes.md").write_text("# notes\nchanged\n")  # an uncommitted change
    later = time.time() + 100  # pay.py: same content, other mtime -> a stale index entry
    os.utime(r.path / "pay.py", (later, later))
    index = r.path / ".git" / "index"
    before = _stat(index)
    h = hook("session-start", start("s1", r.path), env)
    assert h.returncode == 0
    text = json.loads(h.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "## Lessons about files changed on this branch\n- #1 lesson " in text
    assert text.count("[notes.md]: refund() must run before charge() is retried") == 1
    pid = diag(env)[-1]["seed_pid"]
    assert gone(pid), "seeding did not finish"
    assert _stat(index) == before  # not rewritten: same inode, time and size
    assert not (r.path / ".git" / "index.lock").exists()
    started = [json.loads(x)["argv"] for x in (tmp_path / "trace2.jsonl").read_text()
               .splitlines() if json.loads(x).get("event") == "start"]
    ran = {a[a.index("core.quotepath=off") + 1] for a in started if "core.quotepath=off" in a}
    assert {"status", "ls-files", "diff-tree", "cat-file", "rev-parse"} <= ran, ran
    assert [a for a in started if "--no-optional-locks" not in a] == []
    assert len(started) >= 10
    # the user holds the index lock (a `git add` in progress): the briefing still comes
    lock = r.path / ".git" / "index.lock"
    lock.write_bytes(b"the user's git add\n")
    h = hook("session-start", start("s2", r.path), env)
    text = json.loads(h.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "## Lessons about files changed on this branch\n- #1 lesson " in text
    assert "refund() must run before charge() is retried" in text
    assert lock.read_bytes() == b"the user's git add\n" and _stat(index) == before


def test_briefing_reads_branch_paths_exactly(tmp_path: Path) -> None:
    r = Repo(tmp_path / "shop")
    r.write("docs/café notes.md", "# notes\n")
    r.write("pay.py", fn("charge"))
    r.commit("base")
    git(r.path, "checkout", "-q", "-b", "feature")
    quoted = 'src/naïve "quoted" \\ name.py'
    r.write(quoted, fn("naive"))
    r.commit("add a file whose name git quotes")
    (r.path / "docs" / "café notes.md").write_text("# notes\nmore\n")
    assert branch_files(str(r.path)) == ["docs/café notes.md", quoted]
    env = make_env(tmp_path)
    for path, text in ((quoted, "naive() trusts its input"),
                       ("docs/café notes.md", "the notes list every retry rule")):
        run(["retain", text, "--kind", "lesson", "--file", path], env, r.path)
    h = hook("session-start", start("s1", r.path), env)
    text = json.loads(h.stdout)["hookSpecificOutput"]["additionalContext"]
    section = text.split("## Lessons about files changed on this branch\n")[1].split("\n\n")[0]
    assert sorted(line.split(" [", 1)[1].split("]: ")[0] for line in section.splitlines()) == [
        "docs/café notes.md", quoted]
    assert "\\303" not in text and "caf\\" not in text


# ----------------------------------------------------------------- core.hooksPath

def _hooks_repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "shop")
    r.write("pay.py", fn("charge"))
    r.write(".githooks/pre-commit", "#!/bin/sh\nexit 0\n")
    r.commit("add payments and a shared hook")
    return r


def _status(r: Repo) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                          cwd=r.path, capture_output=True, text=True, check=True).stdout


def test_git_hooks_refuse_a_tracked_hooks_path_and_give_the_line(tmp_path: Path) -> None:
    r = _hooks_repo(tmp_path)
    env = make_env(tmp_path)
    git(r.path, "config", "core.hooksPath", ".githooks")
    p = run(["git-hooks", "install-git"], env, r.path, code=2)
    err = p.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("hindsight: git hooks not installed: "
                                                   "core.hooksPath is ")
    assert ".githooks holds files tracked by git" in err
    assert sorted(os.listdir(r.path / ".githooks")) == ["pre-commit"]
    assert _status(r) == ""
    line = err.split(" instead: ", 1)[1].strip()
    assert line.startswith("( env HINDSIGHT_HOME=") and "git-hooks run-git" in line
    # the line works when the user adds it to their own (tracked) hook
    hook_file = r.path / ".githooks" / "post-commit"
    hook_file.write_text(f"#!/bin/sh\n{line}\n")
    hook_file.chmod(0o755)
    subprocess.run(["git", "add", "-A"], cwd=r.path, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm",
                    "post-commit hook"], cwd=r.path, env=env, check=True)
    log = Path(env["HINDSIGHT_HOME"]) / "logs" / "git-hooks.log"
    end = time.time() + 60
    while time.time() < end and not (log.exists() and '"outcome": "ok"' in log.read_text()):
        time.sleep(0.1)
    rec = json.loads(log.read_text().splitlines()[-1])
    assert (rec["event"], rec["root"], rec["outcome"]) == ("post-commit", str(r.path), "ok")


def test_git_hooks_use_a_hooks_path_only_when_git_ignores_it(tmp_path: Path) -> None:
    r = _hooks_repo(tmp_path)
    env = make_env(tmp_path)
    git(r.path, "config", "core.hooksPath", ".hooks-local")
    p = run(["git-hooks", "install-git"], env, r.path, code=2)
    assert ".hooks-local is inside the work tree and not ignored by git" in p.stderr.decode()
    assert not (r.path / ".hooks-local").exists() and _status(r) == ""
    (r.path / ".git" / "info" / "exclude").write_text(".hooks-local/\n")
    p = run(["git-hooks", "install-git"], env, r.path)
    assert p.stdout.decode().splitlines() == [f"{e}: installed" for e in (
        "post-commit", "post-checkout", "post-merge", "post-rewrite")]
    assert sorted(os.listdir(r.path / ".hooks-local")) == [
        "post-checkout", "post-commit", "post-merge", "post-rewrite"]
    assert _status(r) == ""
    outside = tmp_path / "global-hooks"
    git(r.path, "config", "core.hooksPath", str(outside))
    run(["git-hooks", "install-git"], env, r.path)
    assert len(os.listdir(outside)) == 4


# ---------------------------------------------------------------- symlinked config paths

def _config(home: Path, data: dict[str, object]) -> None:
    (home / "config.json").write_text(json.dumps(data))


@pytest.fixture()
def linked(tmp_path: Path, hindsight_home: Path) -> tuple[Path, Path, Path]:
    """(real work dir, the same dir through a symlinked parent, the repository)."""
    real = tmp_path / "real" / "work"
    r = Repo(real / "mine")
    r.write("app.py", fn("main"))
    r.commit("init")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    return real, tmp_path / "link" / "work", r.path


def test_opt_in_paths_match_through_symlinks(linked: tuple[Path, Path, Path],
                                             hindsight_home: Path) -> None:
    real, link, repo = linked
    _config(hindsight_home, {"optInOnly": True, "optInPaths": [str(link)]})
    assert resolve(str(repo), "claude-code").bank_id == "coding-agent::mine"
    assert resolve(str(link / "mine"), "claude-code").bank_id == "coding-agent::mine"
    _config(hindsight_home, {"optInOnly": True, "optInPaths": [str(real)]})
    assert resolve(str(link / "mine"), "claude-code").bank_id == "coding-agent::mine"
    _config(hindsight_home, {"optInOnly": True, "optInPaths": [str(real.parent / "other")]})
    assert resolve(str(link / "mine"), "claude-code").bank_id is None


def test_map_path_to_bank_matches_through_symlinks(linked: tuple[Path, Path, Path],
                                                   hindsight_home: Path) -> None:
    real, link, repo = linked
    _config(hindsight_home, {"mapPathToBank": {str(link): "team::work"}})
    r = resolve(str(repo), "cli")
    assert (r.bank_id, r.how) == ("team::work", f"mapPathToBank {link}")
    _config(hindsight_home, {"mapPathToBank": {str(real): "team::work",
                                               str(link / "mine"): "team::mine"}})
    assert resolve(str(link / "mine"), "cli").bank_id == "team::mine"  # the longer prefix
    assert resolve(str(repo), "cli").bank_id == "team::mine"


# ------------------------------------------------------------------ JSON from Windows tools

BOM = b"\xef\xbb\xbf"


def test_retain_and_import_accept_a_bom_and_crlf(tmp_path: Path) -> None:
    r = Repo(tmp_path / "shop")
    r.write("pay.py", fn("charge"))
    r.commit("init")
    env = make_env(tmp_path)
    items = [{"text": "Retries wait 2 s between attempts", "kind": "convention"},
             {"text": "Refunds are idempotent by order id", "kind": "decision"}]
    body = BOM + b"".join(json.dumps(i).encode() + b"\r\n" for i in items)
    p = run(["retain", "-"], env, r.path, stdin=body)
    assert p.stdout.decode() == "2 items: 2 created, 0 duplicates\n"
    exported = run(["export"], env, r.path).stdout
    assert exported.count(b"\n") == 2
    windows = tmp_path / "export-windows.jsonl"
    windows.write_bytes(BOM + exported.replace(b"\n", b"\r\n"))
    other = Repo(tmp_path / "other")
    other.write("a.py", fn("a"))
    other.commit("init")
    p = run(["import", str(windows), "--json"], env, other.path)
    assert json.loads(p.stdout) == {"imported": 2, "skipped": 0}
    listed = json.loads(run(["memories", "--json"], env, other.path).stdout)["memories"]
    assert sorted(m["text"] for m in listed) == sorted(i["text"] for i in items)


def test_hook_payload_transcript_and_config_accept_a_bom_and_crlf(tmp_path: Path) -> None:
    r = Repo(tmp_path / "shop")
    r.write("pay.py", fn("charge"))
    r.commit("init")
    env = make_env(tmp_path)
    home = Path(env["HINDSIGHT_HOME"])
    home.mkdir()
    (home / "config.json").write_bytes(BOM + b'{\r\n  "bankId": "team::shop"\r\n}\r\n')
    t = Transcript(tmp_path / "t" / "s1.jsonl", "s1", str(r.path))
    convention_session(t)
    path = t.write()
    path.write_bytes(BOM + path.read_bytes().replace(b"\n", b"\r\n"))
    payload = {"session_id": "s1", "transcript_path": str(path), "cwd": str(r.path),
               "hook_event_name": "Stop"}
    p = subprocess.run([*CLI, "hook", "stop"], input=BOM + json.dumps(payload).encode()
                       + b"\r\n", capture_output=True, env=env, cwd=tmp_path, timeout=120)
    assert (p.returncode, p.stdout) == (0, b"")
    rec = diag(env)[-1]
    assert (rec["session"], rec["bank"], rec.get("warning")) == ("s1", "team::shop", None)
    out = json.loads(run(["memories", "--json", "--kind", "convention"], env, r.path).stdout)
    assert [m["text"] for m in out["memories"]] == [
        "Always use pathlib, never os.path, in this repo."]


# -------------------------------------------------------------- the private state directory

def test_state_directories_are_created_private(tmp_path: Path) -> None:
    r = Repo(tmp_path / "shop")
    r.write("pay.py", fn("charge"))
    r.commit("init")
    env = make_env(tmp_path)
    home = tmp_path / "new" / "state"
    env["HINDSIGHT_HOME"] = str(home)
    del env["HINDSIGHT_DIAG_FILE"]  # diagnostics in logs/ of the home
    t = Transcript(tmp_path / "t" / "s1.jsonl", "s1", str(r.path))
    convention_session(t)

    def umask_022() -> None:
        os.umask(0o022)

    for args, stdin in ((["retain", "a note"], None), (["index"], None),
                        (["hook", "stop"], json.dumps({
                            "session_id": "s1", "transcript_path": str(t.write()),
                            "cwd": str(r.path), "hook_event_name": "Stop"}).encode())):
        p = subprocess.run([*CLI, *args], cwd=r.path, env=env, input=stdin,
                           capture_output=True, timeout=120, preexec_fn=umask_022)
        assert p.returncode == 0, p.stderr
    spool = home / "spool"
    dirs = [tmp_path / "new", home, home / "banks", home / "locks", home / "logs", spool,
            *spool.iterdir()]
    assert len(dirs) == 7
    assert {str(d.relative_to(tmp_path)): oct(stat.S_IMODE(d.stat().st_mode)) for d in dirs
            } == {str(d.relative_to(tmp_path)): "0o700" for d in dirs}
    locks = sorted((home / "locks").glob("*.lock"))
    assert len(locks) >= 3  # registry, index-<bank>, drain-<bank>
    assert {f.name: oct(stat.S_IMODE(f.stat().st_mode)) for f in locks} == {
        f.name: "0o600" for f in locks}
    assert oct(stat.S_IMODE((home / "logs" / "hooks.jsonl").stat().st_mode)) == "0o600"
