"""Read git history with the plain ``git`` CLI, NUL-separated (``-z``) so that no path or
message is ever quoted or split wrongly.

Three streaming readers do the work: ``git rev-list`` (which commits), ``git cat-file
--batch`` (the raw commit objects: parents, author and committer with their UTC offsets,
message in its declared encoding) and ``git diff-tree --stdin --raw --numstat -M`` (files
changed, with rename detection and blob ids; a merge is compared with its first parent).
Everything here raises :class:`~hindsight.errors.GitError` with the command and git's first
line of error; nothing else escapes.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from hindsight.config.paths import git_cmd, git_refusal
from hindsight.errors import GitError

GIT_TIMEOUT_S = 600
EMPTY_BLOB = "0" * 40


class CommitInfo(NamedTuple):
    """One commit object. Dates are ISO 8601 with the author's/committer's own UTC offset;
    ``*_ts`` are Unix seconds. ``message`` is the full message (decoded from the commit's
    ``encoding`` header, UTF-8 by default; undecodable bytes become U+FFFD)."""

    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    author_date: str
    author_ts: int
    committer_date: str
    committer_ts: int
    message: str


class FileChange(NamedTuple):
    """One changed path of a commit against its first parent. ``status`` is git's letter
    (A, M, D, R, C, T); ``old_path`` is set for R and C; ``added``/``deleted`` are line
    counts (-1 for binary); blobs are 40-hex ids (all zeros when absent); modes are octal
    strings (``160000`` = submodule)."""

    status: str
    path: str
    old_path: str
    added: int
    deleted: int
    old_blob: str
    new_blob: str
    old_mode: str
    new_mode: str


def _dec(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _call(root: str, args: list[str], stdin: bytes | None = None
          ) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C root args…``. Raises :class:`GitError` when git is missing, cannot be
    run, or refuses the repository (another user's: git's reason and the
    ``safe.directory`` command that trusts it, see :func:`hindsight.config.paths.git_refusal`)."""
    cmd = git_cmd(root, *args)
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH); history needs git") from None
    except (OSError, subprocess.SubprocessError) as e:
        raise GitError(f"git {args[0]}: {e}") from None
    if p.returncode != 0:
        refused = git_refusal(root, p.stderr)
        if refused:
            raise GitError(refused, path=root)
    return p


def run(root: str, args: list[str], stdin: bytes | None = None, ok: tuple[int, ...] = (0,)
        ) -> bytes:
    """``git -C root args…`` → stdout bytes. Raises :class:`GitError` when git is missing,
    refuses the repository, or exits with a code not in ``ok`` (the message holds git's
    first line of error)."""
    p = _call(root, args, stdin)
    if p.returncode not in ok:
        first = _dec(p.stderr).strip().splitlines()
        raise GitError(f"git {' '.join(args[:2])} in {root}: "
                       f"{first[0] if first else 'exit ' + str(p.returncode)}")
    return p.stdout


NOT_A_REPO = "not a git repository"  # git's own words when no repository contains a path


def is_repo(root: str) -> bool:
    """True when ``root`` is inside a git work tree; False when git says it is not in a
    repository. Raises :class:`GitError` when git is missing, refuses the repository, or
    fails for another reason (its own words)."""
    return repo_info(root) is not None


def repo_info(root: str) -> tuple[str, str] | None:
    """(HEAD commit id or ``""`` without commits, absolute path of the ``shallow`` file)
    in one git call; ``None`` when ``root`` is not in a git work tree (git's "not a git
    repository", or a bare repository). Raises :class:`GitError` when git is missing,
    refuses the repository, or fails otherwise."""
    p = _call(root, ["rev-parse", "--is-inside-work-tree", "--git-path", "shallow",
                     "--verify", "-q", "HEAD^{commit}"])
    err = _dec(p.stderr).strip()
    if p.returncode not in (0, 1):
        if NOT_A_REPO in err:
            return None
        first = err.splitlines()
        raise GitError(f"git rev-parse in {root}: "
                       f"{first[0] if first else 'exit ' + str(p.returncode)}")
    lines = _dec(p.stdout).splitlines()
    if len(lines) < 2 or lines[0] != "true":
        return None
    shallow = lines[1] if os.path.isabs(lines[1]) else os.path.normpath(
        os.path.join(root, lines[1]))
    return (lines[2].strip() if len(lines) > 2 else ""), shallow


def head(root: str) -> str:
    """HEAD's commit id, or ``""`` in a repository without commits."""
    out = run(root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"], ok=(0, 1))
    return out.decode().strip()


def branch(root: str) -> str:
    """Current branch name, or ``""`` when HEAD is detached."""
    out = run(root, ["symbolic-ref", "-q", "--short", "HEAD"], ok=(0, 1))
    return _dec(out).strip()


def head_files(root: str) -> set[str]:
    """Paths of every file in HEAD's tree (empty without commits)."""
    if not head(root):
        return set()
    out = run(root, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD"])
    return {_dec(p) for p in out.split(b"\0") if p}


def git_path(root: str, name: str) -> str:
    """Absolute path of ``name`` inside the git dir (``hooks``, ``shallow``…), honouring
    linked worktrees (common dir) and ``core.hooksPath``."""
    out = _dec(run(root, ["rev-parse", "--git-path", name])).strip()
    return out if os.path.isabs(out) else os.path.normpath(os.path.join(root, out))


def shallow_boundary(root: str, shallow_file: str | None = None) -> set[str]:
    """Commit ids at the edge of a shallow clone (their parents are missing); empty for a
    complete clone. ``shallow_file``: its path when already known."""
    try:
        with open(shallow_file or git_path(root, "shallow"), encoding="ascii") as fh:
            return {ln.strip() for ln in fh if ln.strip()}
    except (OSError, UnicodeDecodeError):
        return set()


def rev_list(root: str, tips: list[str], exclude: list[str] = (),  # type: ignore[assignment]
             max_count: int | None = None) -> list[tuple[str, tuple[str, ...], int]]:
    """(commit, parents, committer time in Unix seconds) reachable from ``tips`` and not
    from ``exclude``, children before parents and otherwise newest committer date first
    (``--date-order``: a commit whose clock ran ahead still comes below its children), at
    most ``max_count``. In a shallow clone the boundary commits have no parents."""
    if not tips:
        return []
    args = ["rev-list", "--date-order", "--parents", "--timestamp"]
    if max_count is not None:
        args.append(f"--max-count={max_count}")
    args += ["--stdin"]
    spec = "\n".join([*tips, *("^" + e for e in exclude)]) + "\n"
    out = []
    for line in run(root, args, stdin=spec.encode()).decode().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out.append((parts[1], tuple(parts[2:]), int(parts[0])))
    return out


def not_on_head(root: str, tips: list[str]) -> set[str]:
    """Commits reachable from ``tips`` but not from HEAD (a branch not merged into the
    checked-out one); tips git no longer knows are skipped. Empty without a HEAD."""
    if not tips or not head(root):
        return set()
    spec = "\n".join(tips) + "\n"
    out = run(root, ["rev-list", "--ignore-missing", "--stdin", "--not", "HEAD"],
              stdin=spec.encode())
    return set(out.decode().split())


def all_reachable(root: str) -> set[str]:
    """Every commit reachable from any ref or HEAD."""
    if not head(root) and not run(root, ["for-each-ref", "--count=1"]).strip():
        return set()
    return set(run(root, ["rev-list", "--all", "HEAD"] if head(root) else
                   ["rev-list", "--all"]).decode().split())


def _ok(root: str, args: list[str]) -> bool:
    """True when ``git args`` exits 0 (False also when git is missing)."""
    try:
        return subprocess.run(git_cmd(root, *args), capture_output=True,
                              timeout=GIT_TIMEOUT_S).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def uncommitted(root: str, path: str) -> bool:
    """True when the working copy of ``path`` differs from HEAD's (``git diff --quiet HEAD
    -- path`` exits 1 and says nothing); False when it does not, or git fails (no HEAD, no
    git, no repository: outside one git diffs as ``--no-index`` and also exits 1, with an
    error on stderr; break-it 40)."""
    try:
        p = subprocess.run(git_cmd(root, "diff", "--quiet", "HEAD", "--", path),
                           capture_output=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 1 and not p.stderr.strip()


def exists(root: str, sha: str) -> bool:
    """True when ``sha`` names a commit present in the object store."""
    return _ok(root, ["cat-file", "-e", sha + "^{commit}"])


def reachable_from_refs(root: str, sha: str) -> bool:
    """True when ``sha`` is an ancestor of HEAD or of any ref."""
    if _ok(root, ["merge-base", "--is-ancestor", sha, "HEAD"]):
        return True
    out = run(root, ["for-each-ref", "--contains", sha, "--count=1", "--format=%(refname)"],
              ok=(0, 1, 128, 129))
    return bool(out.strip())


def _person(value: bytes) -> tuple[str, str, str, int]:
    """``Name <email> 1700000000 +0100`` → (name, email, iso date, unix seconds)."""
    lt = value.rfind(b"<")
    gt = value.rfind(b">")
    name = _dec(value[:lt].strip()) if lt >= 0 else ""
    email = _dec(value[lt + 1:gt]) if 0 <= lt < gt else ""
    rest = value[gt + 1:].split() if gt >= 0 else value.split()
    try:
        ts = int(rest[0])
        tz = rest[1].decode() if len(rest) > 1 else "+0000"
        sign = -1 if tz.startswith("-") else 1
        off = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
        if abs(off) >= timedelta(hours=24):
            off = timedelta(0)
        iso = datetime.fromtimestamp(ts, timezone(off)).isoformat()
    except (ValueError, IndexError, OverflowError, OSError):
        ts, iso = 0, ""
    return name, email, iso, ts


def parse_commit(sha: str, raw: bytes) -> CommitInfo:
    """Parse a raw commit object (as ``git cat-file commit`` prints it)."""
    head_part, _, body = raw.partition(b"\n\n")
    parents: list[str] = []
    author = committer = b""
    encoding = "utf-8"
    for line in head_part.split(b"\n"):
        if line.startswith(b" "):  # continuation of gpgsig / mergetag
            continue
        key, _, value = line.partition(b" ")
        if key == b"parent":
            parents.append(value.decode("ascii", "replace"))
        elif key == b"author":
            author = value
        elif key == b"committer":
            committer = value
        elif key == b"encoding":
            encoding = value.decode("ascii", "replace").strip() or "utf-8"
    try:
        message = body.decode(encoding, "replace")
    except (LookupError, UnicodeError, ValueError):  # unknown or unusable codec name
        message = _dec(body)
    # some codecs (utf-7…) can still yield lone surrogates, which SQLite cannot store
    message = message.encode("utf-8", "replace").decode("utf-8")
    an, ae, ad, ats = _person(author)
    _cn, _ce, cd, cts = _person(committer)
    return CommitInfo(sha, tuple(parents), an, ae, ad, ats, cd, cts, message)


def _batch(root: str, ids: list[str]) -> dict[str, bytes]:
    """``git cat-file --batch`` for ``ids`` → {id: object bytes} (missing ids left out)."""
    if not ids:
        return {}
    out = run(root, ["cat-file", "--batch"], stdin=("\n".join(ids) + "\n").encode())
    res: dict[str, bytes] = {}
    pos = 0
    for oid in ids:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        res[oid] = out[pos:pos + size]
        pos += size + 1
    return res


def read_commits(root: str, shas: list[str]) -> list[CommitInfo]:
    """The commit objects of ``shas`` in the same order (unknown ids are left out)."""
    objs = _batch(root, shas)
    return [parse_commit(s, objs[s]) for s in shas if s in objs]


def read_blobs(root: str, blobs: list[str]) -> dict[str, bytes]:
    """Blob contents by id (ids that do not exist are left out)."""
    return _batch(root, [b for b in dict.fromkeys(blobs) if b != EMPTY_BLOB])


def _numstat(tok: str) -> tuple[int, int]:
    a, _, rest = tok.partition("\t")
    d = rest.partition("\t")[0]
    return (int(a) if a.isdigit() else -1, int(d) if d.isdigit() else -1)


def diff_commits(root: str, pairs: list[tuple[str, str]], paths: list[str] | None = None
                 ) -> dict[str, list[FileChange]]:
    """Files changed by each ``(commit, against)`` pair (``against`` = the first parent, or
    ``""`` for a root commit, which lists every file as added). Renames are detected with
    git's default similarity (``-M``); submodule entries are kept (mode 160000) but never
    descended into. ``paths``: only these files (taken literally; a rename is found when
    both of its names are given)."""
    if not pairs:
        return {}
    spec = "\n".join(f"{c} {p}".strip() for c, p in pairs) + "\n"
    limit = ["--", *paths] if paths else []
    out = run(root, [*(["--literal-pathspecs"] if paths else []), "diff-tree", "--stdin",
                     "-r", "-z", "-M", "--raw", "--numstat", "--no-abbrev", "--root",
                     "--always", *limit], stdin=spec.encode())
    toks = out.split(b"\0")
    res: dict[str, list[FileChange]] = {}
    i = 0
    n = len(toks)
    while i < n:
        sha = toks[i].decode("ascii", "replace").strip()
        i += 1
        if not sha:
            continue
        raws: list[tuple[str, str, str, str, str, str, str]] = []
        while i < n and toks[i].startswith(b":"):
            meta = toks[i][1:].decode("ascii", "replace").split()
            status = meta[4][:1] if len(meta) > 4 else "M"
            if status in ("R", "C"):
                old, new = _dec(toks[i + 1]), _dec(toks[i + 2])
                i += 3
            else:
                old = new = _dec(toks[i + 1])
                i += 2
            raws.append((status, new, old if status in ("R", "C") else "", meta[2], meta[3],
                         meta[0], meta[1]))
        changes = []
        for status, new, old, ob, nb, om, nm in raws:
            stat = (-1, -1)
            if i < n and b"\t" in toks[i]:
                stat = _numstat(_dec(toks[i]))
                i += 3 if status in ("R", "C") else 1  # a rename: "a\td\t" src dst
            changes.append(FileChange(status, new, old, stat[0], stat[1], ob, nb, om, nm))
        res[sha] = changes
    return res


def diff_commits_tolerant(root: str, pairs: list[tuple[str, str]],
                          paths: list[str] | None = None
                          ) -> tuple[dict[str, list[FileChange]], dict[str, str]]:
    """:func:`diff_commits` that survives unreadable objects (a tree or blob missing from a
    damaged or partial clone: break-it 40, one missing object stopped the whole ingest).
    On a git error the pairs are split in halves and diffed again, so a bad commit costs
    about ``2·log2(len(pairs))`` git runs. Returns ``(diffs, failed)``: ``failed`` maps
    each commit that git could not diff to git's first line of error. Raises
    :class:`GitError` as :func:`diff_commits` does when git itself fails (missing,
    refusing the repository, not a repository any more)."""
    try:
        return diff_commits(root, pairs, paths), {}
    except GitError as e:
        if len(pairs) == 1:
            if not _ok(root, ["rev-parse", "--git-dir"]):
                raise
            return {}, {pairs[0][0]: str(e).split(f" in {root}: ", 1)[-1]}
        if not _ok(root, ["rev-parse", "--git-dir"]):
            raise
    half = len(pairs) // 2
    a, fa = diff_commits_tolerant(root, pairs[:half], paths)
    b, fb = diff_commits_tolerant(root, pairs[half:], paths)
    return a | b, fa | fb


def blame_line(root: str, path: str, line: int) -> str:
    """The commit that last changed ``line`` (1-based) of the committed ``path``, or ``""``
    (uncommitted line, unknown file)."""
    try:
        out = run(root, ["blame", "--no-textconv", "--porcelain", "-L", f"{line},{line}", "HEAD", "--", path])
    except GitError:
        return ""
    sha = out[:40].decode("ascii", "replace")
    return "" if sha == "0" * 40 else sha
