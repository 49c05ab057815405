"""The one owner of the state directory and of repository location.

``$HINDSIGHT_HOME`` (default ``~/.hindsight``) holds, and only this module joins its paths:

* ``banks/<bank-file>.db`` (one SQLite file per bank, :func:`bank_file`) and its ``.owner``;
* ``server.json`` and ``server.db`` (the team server's record and, on SQLite, its tokens);
* ``locks/<name>.lock`` (``flock`` files, :func:`file_lock`; a bank's index writers all use
  :func:`index_lock_name`);
* ``logs/`` (``hooks.jsonl`` hook diagnostics, ``git-hooks.log``, ``index.jsonl``, worker
  output);
* ``spool/<bank-key>/`` (write-back jobs waiting for the bank, :meth:`Home.spool_dir`);
* ``transcripts/<agent>/<session>.jsonl`` (sessions of agents that keep no transcript file
  hindsight can read, written from what their plugin sends: :meth:`Home.transcript_file`);
* ``registry.json`` (which repository owns which bank id) and ``config.json`` (settings).

Every directory hindsight creates here (the home itself, ``banks/``, ``locks/``, ``logs/``,
``spool/…``) is created mode ``0700`` and lock files ``0600``: memories, transcripts and
diagnostics are the user's alone. Directories that exist already keep their mode.

Bank ids are resolved by :mod:`hindsight.config.banks`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hindsight.errors import ConfigError, GitError


def hindsight_home() -> str:
    """Absolute path of ``HINDSIGHT_HOME`` (default ``~/.hindsight``); not created here."""
    home = os.environ.get("HINDSIGHT_HOME") or os.path.join(os.path.expanduser("~"), ".hindsight")
    return os.path.abspath(os.path.expanduser(home))


@dataclass(frozen=True)
class Home:
    """The state directory ``root`` and the places inside it (absolute paths, not created
    until asked for with :meth:`ensure`)."""

    root: str

    @classmethod
    def current(cls) -> Home:
        """The home of this process (``$HINDSIGHT_HOME``, default ``~/.hindsight``)."""
        return cls(hindsight_home())

    @property
    def banks(self) -> str:
        return os.path.join(self.root, "banks")

    @property
    def locks(self) -> str:
        return os.path.join(self.root, "locks")

    @property
    def logs(self) -> str:
        return os.path.join(self.root, "logs")

    @property
    def spool(self) -> str:
        return os.path.join(self.root, "spool")

    @property
    def registry(self) -> str:
        return os.path.join(self.root, "registry.json")

    @property
    def config(self) -> str:
        return os.path.join(self.root, "config.json")

    @property
    def server_json(self) -> str:
        """What ``hindsight serve`` records: database, embedded PostgreSQL, address."""
        return os.path.join(self.root, "server.json")

    @property
    def server_db(self) -> str:
        """The team server's tokens, audit and idempotency keys when it runs on SQLite."""
        return os.path.join(self.root, "server.db")

    def log_file(self, name: str) -> str:
        """``logs/<name>``, with ``logs/`` created (mode 0700) if missing."""
        return os.path.join(self.ensure(self.logs, private=True), name)

    def lock_file(self, name: str) -> str:
        """``locks/<name>.lock`` (the name made safe for a file name), ``locks/`` created
        (mode 0700) if missing."""
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        return os.path.join(self.ensure(self.locks, private=True), safe + ".lock")

    def append_log(self, name: str, line: str) -> None:
        """Append ``line`` and a newline to ``logs/<name>`` in one write, never through a
        symlink (``O_NOFOLLOW``); a log that cannot be written is skipped, never raised."""
        try:
            fd = os.open(self.log_file(name),
                         os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            return
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        except OSError:
            pass
        finally:
            os.close(fd)

    def spool_dir(self, bank_id: str, create: bool = False) -> str:
        """``spool/<bank key>`` of ``bank_id``; with ``create`` made (mode 0700) if
        missing, else not created."""
        d = os.path.join(self.spool, bank_key(bank_id))
        return self.ensure(d, private=True) if create else d

    def transcript_file(self, agent: str, session: str, create: bool = False) -> str:
        """``transcripts/<agent>/<session>.jsonl``; a session id with a character outside
        ``[A-Za-z0-9_.-]`` (or longer than 100) is named by its SHA-256 hex instead. With
        ``create`` the folders are made (mode 0700) if missing."""
        name = session if re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", session) and \
            session not in (".", "..") else hashlib.sha256(session.encode("utf-8",
                                                                          "replace")).hexdigest()
        folder = os.path.join(self.root, "transcripts", re.sub(r"[^a-z0-9-]", "-", agent))
        return os.path.join(self.ensure(folder, private=True) if create else folder,
                            f"{name}.jsonl")

    @staticmethod
    def ensure(path: str, private: bool = False) -> str:
        """Create directory ``path`` (and parents) when missing; ``private``: every
        directory created here gets mode 0700 (``os.makedirs`` gives the mode to the last
        one only). Returns ``path``. Raises OSError when it cannot be created (also
        FileExistsError when a file is in the way)."""
        if not private:
            os.makedirs(path, exist_ok=True)
            return path
        missing, p = [], os.path.abspath(path)
        while not os.path.isdir(p) and os.path.dirname(p) != p:
            missing.append(p)
            p = os.path.dirname(p)
        for d in reversed(missing):
            with contextlib.suppress(FileExistsError):  # made meanwhile by another process
                os.mkdir(d, 0o700)
        if not os.path.isdir(path):
            raise FileExistsError(f"{path}: exists and is not a directory")
        return path


def pinned_env() -> dict[str, str]:
    """``HINDSIGHT_HOME`` and ``HINDSIGHT_CONFIG`` of this process as the absolute paths it
    uses, each only when set (non-empty): what ``install`` writes into the commands it
    makes (agent hooks, MCP entries, git hooks), so that they never silently use another
    home."""
    out = {}
    if os.environ.get("HINDSIGHT_HOME"):
        out["HINDSIGHT_HOME"] = hindsight_home()
    if os.environ.get("HINDSIGHT_CONFIG"):
        from hindsight.config.settings import config_path

        out["HINDSIGHT_CONFIG"] = config_path()
    return out


def index_lock_name(bank_id: str) -> str:
    """The name of the lock every index writer of ``bank_id`` takes (code index, history
    ingest, seeding, the git refresh, the watcher, the CLI): one pass at a time."""
    return f"index-{bank_key(bank_id)}"


@contextlib.contextmanager
def file_lock(name: str, *, wait_s: float = 0.0, home: Home | None = None,
              holder: str = "", on_wait: Callable[[str], None] | None = None
              ) -> Iterator[bool]:
    """An exclusive ``flock`` on ``locks/<name>.lock`` of ``home`` (default: this process's
    ``$HINDSIGHT_HOME``). Yields True when held; False when another process holds it and
    ``wait_s`` seconds passed (0: don't wait). ``holder``: a line written into the lock
    file while it is held; ``on_wait(holder line of the other process, or "")`` is called
    once when this one starts waiting. Raises OSError when the lock file cannot be
    created."""
    import fcntl

    home = home or Home.current()
    with open(home.lock_file(name), "a+", opener=_private_opener) as f:
        deadline = time.monotonic() + wait_s
        told = on_wait is None
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                if not told and on_wait is not None:
                    told = True
                    f.seek(0)
                    on_wait(f.read(200).strip())
                time.sleep(0.05)
        if holder:
            f.seek(0)
            f.truncate()
            f.write(holder + "\n")
            f.flush()
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


# Every git command hindsight runs (all of them are built by git_cmd):
# - a repository's own .git/config must not make it run a program (core.fsmonitor names
#   one; blame gets --no-textconv where it is used);
# - it takes no optional lock: ``git status`` would otherwise refresh and rewrite the index
#   under .git/index.lock, and a user's ``git add`` at the same moment fails
#   (``--no-optional-locks``, git 2.15; the same as GIT_OPTIONAL_LOCKS=0, which git passes
#   on to the commands it runs itself);
# - paths come out as they are, not octal-escaped (core.quotePath); readers of path lists
#   also pass ``-z``, because git still quotes a name holding ``"``, ``\``, a tab or a
#   newline.
GIT_SAFE = ("--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.quotepath=off")


GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                 "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
                 "GIT_PREFIX")
"""Environment variables that point git at another repository, work tree or index than
the one ``-C root`` finds (git(1), "ENVIRONMENT VARIABLES"). hindsight works on the
directory it is given: an exported ``GIT_DIR`` of repository A while indexing B made B's
files A's and emptied A's bank (break-it 40), so git runs without them."""


def git_cmd(root: str, *args: str) -> list[str]:
    """``git -C root`` with :data:`GIT_SAFE` and ``args``: the one way hindsight builds a
    git command line (``tests/test_neighbours.py`` checks that no other module spells
    one); run through ``env -u`` when one of :data:`GIT_REDIRECTS` is set (inside a git
    hook, or exported by the user), so that git reads the repository at ``root``."""
    unset = [a for k in GIT_REDIRECTS if k in os.environ for a in ("-u", k)]
    return ["env", *unset, "git", "-C", root, *GIT_SAFE, *args] if unset else \
        ["git", "-C", root, *GIT_SAFE, *args]


def git_refusal(root: str, stderr: bytes | str) -> str | None:
    """When git refused to work in ``root`` because the repository belongs to another user
    (git 2.35.2 and later: "detected dubious ownership", CVE-2022-24765; its message names
    ``safe.directory``): one line with git's own reason and the command that trusts the
    repository (the one git prints, else built from ``root``). ``None`` for any other
    error text."""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    if "safe.directory" not in text:
        return None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    reason = next((ln for ln in lines if ln.startswith("fatal:")), lines[0])
    reason = reason.removeprefix("fatal:").strip()
    fix = next((ln for ln in lines if ln.startswith("git config")), "")
    if not fix:
        import shlex

        fix = f"git config --global --add safe.directory {shlex.quote(root)}"
    return f"git refuses the repository: {reason}; if you trust it, run: {fix}"


def git_toplevel(path: str) -> str | None:
    """Top of the git work tree containing ``path``, or ``None`` (not a repo, or no git).
    Raises :class:`GitError` when git refuses the repository (:func:`git_refusal`) or it
    is a bare one: the directory is a repository, so treating it as a plain one would be
    wrong."""
    try:
        out = subprocess.run(git_cmd(path, "rev-parse", "--show-toplevel"),
                             capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        refused = git_refusal(path, out.stderr)
        if refused:
            raise GitError(refused, path=path)
        if b"must be run in a work tree" in out.stderr:
            raise GitError(f"{path}: a bare git repository (no work tree); run hindsight in "
                           "a clone of it", path=path)
        return None
    return os.fsdecode(out.stdout.strip()) or None


def repo_root(path: str) -> str:
    """Absolute root of the repository containing ``path``: the git work tree top, or
    ``path`` itself outside git. Raises :class:`ConfigError` if ``path`` is not a directory,
    :class:`GitError` when git refuses the repository (:func:`git_refusal`) or when git
    does not read a ``.git`` at or above ``path`` (break-it 40: run from a subdirectory of
    a broken repository, the subdirectory was walked as a repository of its own; without
    a git binary the directory is still walked, as documented)."""
    p = os.path.abspath(path)
    if not os.path.isdir(p):
        raise ConfigError(f"{path}: not a directory", path=path)
    if ".git" in p.split(os.sep):
        raise ConfigError(f"{path}: inside a .git directory; run from the work tree", path=path)
    top = git_toplevel(p)
    if top is None and (repo := _dot_git_above(p)) is not None and shutil.which("git"):
        # (a `.git` git cannot read: a broken HEAD or config, a `.git` file pointing to a
        # missing directory; walking `p` would index untracked files under a new bank)
        raise GitError(f"{repo}: has a .git that git does not take for a repository (a broken "
                       f"HEAD, config or gitdir link); `git -C {repo} status` says why",
                       path=repo)
    return top or p


def _dot_git_above(path: str) -> str | None:
    """The nearest directory at or above ``path`` holding a ``.git`` entry, else ``None``."""
    d = path
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def bank_key(bank_id: str) -> str:
    """The file-name form of ``bank_id`` (the bank file's name without ``.db``), for the
    bank's locks and spool: as injective as :func:`bank_file`."""
    return os.path.basename(bank_file(bank_id))[:-3]


def bank_file(bank_id: str) -> str:
    """Database path of ``bank_id`` under ``HINDSIGHT_HOME/banks``: the id with every run of
    other characters than ``A-Za-z0-9._-`` made ``_``, then, when that changed anything,
    ``-`` and 8 hex of sha1(id), so that two ids never share a file (``foo bar`` and
    ``foo_bar``; ids in other scripts)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", bank_id)
    if safe != bank_id:
        safe += "-" + hashlib.sha1(bank_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return os.path.join(Home.current().banks, safe + ".db")


_SCRATCH = re.compile(r"^hindsight-(parse|parts|blobs)-(\d+)-")


def scratch_dir(kind: str) -> str:
    """A new scratch directory ``$TMPDIR/hindsight-<kind>-<pid>-XXXX`` (``kind``: ``parse``,
    ``parts`` or ``blobs``), after removing those whose process is gone
    (:func:`sweep_scratch`). Raises OSError as :func:`tempfile.mkdtemp`."""
    sweep_scratch()
    return tempfile.mkdtemp(prefix=f"hindsight-{kind}-{os.getpid()}-")


def sweep_scratch() -> int:
    """Remove the scratch directories of hindsight processes that ended without removing
    them (killed: break24); returns how many. A directory is left alone while a process
    with its pid lives. Never raises."""
    try:
        names = os.listdir(tempfile.gettempdir())
    except OSError:
        return 0
    gone = 0
    for name in names:
        m = _SCRATCH.match(name)
        if m is None or _alive(int(m.group(2))):
            continue
        shutil.rmtree(os.path.join(tempfile.gettempdir(), name), ignore_errors=True)
        gone += 1
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True


def git_index_file(root: str) -> str | None:
    """The index file git reads for the work tree at ``root``: ``.git/index``, or
    ``None`` when it cannot be told here (``GIT_INDEX_FILE`` set, or ``.git`` a file, as
    in a linked worktree)."""
    if os.environ.get("GIT_INDEX_FILE"):
        return None
    git = os.path.join(root, ".git")
    return os.path.join(git, "index") if os.path.isdir(git) else None
