"""Which files of a repository are indexed.

Rules (issue #2, item 3):

* In a git work tree: tracked files from ``git ls-files -z --stage`` (``-z`` so non-ASCII
  paths arrive as raw UTF-8); ``include_untracked`` adds ``git ls-files -z --others
  --exclude-standard`` (untracked, not ignored). Submodule entries (mode 160000) are skipped.
* Sparse checkouts: a tracked file with git's skip-worktree bit that is not in the work tree
  lies outside the sparse-checkout cone; it is counted as ``outside_sparse_checkout`` (not
  ``missing``) and the cone (``git sparse-checkout list``) is kept in
  ``Selection.sparse``, so that nothing takes it for a deleted file.
* git failing in a work tree (``.git`` present) raises :class:`~hindsight.errors.GitError`
  with git's own reason (and, when git refuses another user's repository, the
  ``safe.directory`` command): the directory is never walked instead, which would index
  untracked files.
* Elsewhere (or when git is missing): a walk that never follows a directory symlink and
  honours every ``.gitignore`` on the way, plus built-in excludes (``.git``, ``.hg``,
  ``.svn``, ``node_modules``, ``__pycache__``, ``.venv``, ``venv``, ``.tox``).
* Always: ``.hindsightignore`` at the root (gitignore syntax, read as bytes and decoded as
  UTF-8, so no locale matters); symlinked files are never followed (a link to a file in
  the root is indexed through its own path; one pointing outside or in a loop is counted).
* Files with no supported language are counted as ``unsupported``. Content checks (binary,
  too large, minified) happen when the file is read, in :mod:`hindsight.codeindex.worker`.

Every skip is counted by reason; nothing here raises for a bad file.

(Issue #14: sparse checkouts and git refusals.)
"""

from __future__ import annotations

import os
import stat as _stat
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hindsight.codeindex.languages import language_for
from hindsight.config.paths import git_cmd, git_index_file, git_refusal
from hindsight.errors import GitError

if TYPE_CHECKING:
    import pathspec

WALK_EXCLUDES = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                           ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


@dataclass
class Selection:
    """Result of :func:`select`: ``files`` maps path → language; ``skipped`` maps path →
    reason (for reasons worth listing); ``counts`` counts every skip by reason."""

    files: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    git: bool = False
    sparse: list[str] | None = None  # the sparse-checkout patterns (cone), when files are outside
    warnings: list[str] = field(default_factory=list)
    unreadable_dirs: list[str] = field(default_factory=list)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """path → (size in bytes, mtime in ns) of files whose ``lstat`` selection already
    took (regular files: the same as ``stat``), so callers need not ``stat`` again."""

    def skip(self, path: str, reason: str, listed: bool = True) -> None:
        self.counts[reason] += 1
        if listed:
            self.skipped[path] = reason


def bad_pattern(pattern: str) -> str:
    """Why a gitignore-style ``pattern`` is invalid, or ``""``."""
    import pathspec  # here: ~20 ms of imports a repository without patterns never needs

    try:
        pathspec.GitIgnoreSpec.from_lines([pattern]).match_file("x")
    except Exception as e:  # pathspec raises its own errors and re.error  # noqa: BLE001
        return str(e) or type(e).__name__
    return ""


def _spec_from(data: bytes, origin: str = "", warnings: list[str] | None = None
               ) -> pathspec.GitIgnoreSpec:
    """A spec from gitignore-syntax ``data``; invalid lines are left out, each reported as
    ``origin:line: bad pattern ...`` in ``warnings``."""
    import pathspec

    lines = data.decode("utf-8", "replace").splitlines()
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        spec.match_file("x")
        return spec
    except Exception:  # noqa: BLE001 - find the bad lines, keep the good ones
        good = []
        for n, line in enumerate(lines, 1):
            why = bad_pattern(line)
            if why:
                if warnings is not None:
                    warnings.append(f"{origin}:{n}: bad pattern {line!r} ignored ({why})")
            else:
                good.append(line)
        return pathspec.GitIgnoreSpec.from_lines(good)


def excluded_matcher(root: str, exclude: list[str] | None = None
                     ) -> Callable[[str], bool]:
    """A predicate telling whether a repository-relative path is excluded by
    ``.hindsightignore`` or the ``exclude`` patterns (the rules :func:`select` applies by
    name; ``.gitignore`` is not consulted: history only sees committed paths)."""
    hs = _read(os.path.join(root, ".hindsightignore")) or b""
    if exclude:
        hs += b"\n" + "\n".join(exclude).encode("utf-8")
    if not hs.strip():
        return lambda _path: False
    spec = _spec_from(hs)
    return spec.match_file


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _git(root: str, args: list[str]) -> bytes | None:
    """``git args…`` in ``root`` → stdout; ``None`` when git is not installed. Raises
    :class:`GitError` with git's own reason when it refuses the repository (another
    user's: the message names the ``safe.directory`` command) or fails."""
    try:
        out = subprocess.run(git_cmd(root, *args), capture_output=True, timeout=300)
    except FileNotFoundError:
        return None
    except (OSError, subprocess.SubprocessError) as e:
        raise GitError(f"git {args[0]} in {root}: {e}", path=root) from None
    if out.returncode != 0:
        first = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(git_refusal(root, out.stderr) or f"git {args[0]} in {root}: "
                       f"{first[0] if first else 'exit ' + str(out.returncode)}", path=root)
    return out.stdout


_TRACKED: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}
"""root → (its ``.git/index`` file's mtime and ctime in ns, size and inode; what ``git
ls-files`` said then): the listing depends on that file only, so a process re-indexing
often (watch, the MCP server) asks git again only when it changed (~10 ms of a one-file
re-index)."""
RACY_S = 2.0
"""An index file modified less than this many seconds before git is asked is not cached:
another rewrite within the same timestamp tick (1-2 s on ext3, HFS+, FAT and many
network file systems) could leave its mtime, ctime, size and inode as they were (git's
lock-file renames alternate two inodes). git's own "racy index" rule (Documentation/
technical/racy-git.txt) distrusts such entries the same way; issue #14, break25."""


def _tracked(root: str) -> bytes | None:
    """``git ls-files -z -t --stage`` in ``root`` (as :func:`_git`), from
    :data:`_TRACKED` while the index file is unchanged."""
    index = git_index_file(root)
    try:
        st = os.stat(index) if index else None
        key = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino) \
            if st is not None else None
    except OSError:
        key = None
    hit = _TRACKED.get(root)
    if key is not None and hit is not None and hit[0] == key:
        return hit[1]
    asked = time.time_ns()
    out = _git(root, ["ls-files", "-z", "-t", "--stage"])
    if key is not None and out is not None and \
            max(key[0], key[1]) < asked - int(RACY_S * 1e9):
        if len(_TRACKED) >= 16:
            _TRACKED.clear()
        _TRACKED[root] = (key, out)
    else:
        _TRACKED.pop(root, None)
    return out


def outside_checkout(root: str, paths: list[str]) -> set[str]:
    """Those of ``paths`` (repository-relative) that git tracks with the skip-worktree bit
    and that are absent from the work tree: outside the sparse-checkout cone, not deleted.
    Empty when git is missing or fails (nothing is claimed then)."""
    if not paths:
        return set()
    try:
        out = _git(root, ["--literal-pathspecs", "ls-files", "-z", "-t", "--", *paths])
    except GitError:
        return set()
    found = set()
    for entry in (out or b"").split(b"\0"):
        if entry[:2] == b"S ":
            path = entry[2:].decode("utf-8", "replace")
            if not os.path.lexists(os.path.join(root, path)):
                found.add(path)
    return found


def select(root: str, include_untracked: bool = False, exclude: list[str] | None = None
           ) -> Selection:
    """Select the files to index under ``root`` (an absolute path). ``exclude``: extra
    gitignore-style patterns (``--exclude``), applied like ``.hindsightignore``. Never raises
    for bad files. In a git work tree git lists the files; when git is not installed the
    directory is walked, with a warning in ``Selection.warnings``. Raises
    :class:`GitError` when git refuses the repository or fails (see the module doc)."""
    sel = Selection()
    hs = _read(os.path.join(root, ".hindsightignore")) or b""
    if exclude:
        hs += b"\n" + "\n".join(exclude).encode("utf-8")
    hspec = _spec_from(hs, os.path.join(root, ".hindsightignore"), sel.warnings) \
        if hs.strip() else None
    candidates: list[str] = []
    has_git = os.path.exists(os.path.join(root, ".git")) or _in_enclosing_work_tree(root)
    tracked = _tracked(root) if has_git else None
    seen: set[str] = set()
    if tracked is not None:
        sel.git = True
        named, listed = _named(root, tracked, hs, hspec)
        sel.counts.update(named.counts)
        sel.skipped.update(named.skipped)
        for path, lang, sparse in listed:
            if sparse:
                if not os.path.lexists(os.path.join(root, path)):
                    sel.skip(path, "outside_sparse_checkout", listed=False)
                else:
                    candidates.append(path)
            elif path not in seen:
                seen.add(path)
                if lang is not None:
                    _stat_file(root, path, lang, sel)
        if sel.counts["outside_sparse_checkout"]:
            try:  # no patterns: skip-worktree bits set by hand, not a sparse checkout
                cone = _git(root, ["sparse-checkout", "list"]) or b""
            except GitError:
                cone = b""
            sel.sparse = [ln for ln in cone.decode("utf-8", "replace").splitlines() if ln]
        if include_untracked:
            extra = _git(root, ["ls-files", "-z", "--others", "--exclude-standard"]) or b""
            for raw in extra.split(b"\0"):
                extra_path = _decode_path(raw, sel) if raw else None
                if extra_path is not None:
                    candidates.append(extra_path)
    else:
        if has_git:
            sel.warnings.append(f"{root}: git is not installed; walking the directory "
                                "instead (untracked files that .gitignore does not exclude "
                                "are indexed too)")
        candidates = _walk(root, sel, hspec)
    for path in candidates:
        if path in seen:
            continue
        seen.add(path)
        _consider(root, path, hspec, sel)
    return sel


def _in_enclosing_work_tree(root: str) -> bool:
    """Whether ``root`` (no ``.git`` of its own) is a directory of an enclosing git work
    tree that git does not ignore: then git lists its files, as for the top level (a
    repository's ``src/`` given as ``--repo-root``), and a refused repository is an
    error, never a walk that picks up untracked files. A directory git ignores (a Python
    installed under a pyenv checkout, a virtualenv) is no part of the repository: walked.
    Raises :class:`GitError` with git's reason when git refuses (``safe.directory``)."""
    d = os.path.dirname(root)
    while not os.path.exists(os.path.join(d, ".git")):
        if os.path.dirname(d) == d:
            return False
        d = os.path.dirname(d)
    try:
        out = subprocess.run(git_cmd(root, "check-ignore", "-q", "."), capture_output=True,
                             timeout=60)
    except FileNotFoundError:
        return True  # git is missing: the walk says so (select)
    except (OSError, subprocess.SubprocessError) as e:
        raise GitError(f"git check-ignore in {root}: {e}", path=root) from None
    if out.returncode in (0, 1):  # 0: ignored, 1: not ignored
        return out.returncode == 1
    first = out.stderr.decode("utf-8", "replace").strip().splitlines()
    if first and first[0].startswith("fatal: not a git repository"):
        return False  # a `.git` above that is no repository
    raise GitError(git_refusal(root, out.stderr) or f"git check-ignore in {root}: "
                   f"{first[0] if first else 'exit ' + str(out.returncode)}", path=root)


_NAMED: dict[str, tuple[bytes, bytes, Selection, list[tuple[str, str | None, bool]]]] = {}
"""root → (the ``git ls-files`` output and ``.hindsightignore`` + ``--exclude`` patterns
it was read with, then :func:`_named`'s answer): a re-index with the same listing decides
nothing by name again (~10 ms of a one-file re-index of a 7,700-file listing)."""


def _named(root: str, tracked: bytes, hs: bytes, hspec: pathspec.GitIgnoreSpec | None
           ) -> tuple[Selection, list[tuple[str, str | None, bool]]]:
    """What the tracked listing says by name alone: a Selection holding the skips by name
    (bad encoding, submodule, unsupported, excluded) and each listed ``(path, language or
    None when skipped by name, has git's skip-worktree bit)``; a skip-worktree path is
    decided later (by :func:`_consider`, when it is in the work tree)."""
    hit = _NAMED.get(root)
    if hit is not None and hit[0] is tracked and hit[1] == hs:
        return hit[2], hit[3]
    named = Selection()
    listed: list[tuple[str, str | None, bool]] = []
    decided: dict[str, str | None] = {}
    for entry in tracked.split(b"\0"):
        if not entry:
            continue
        meta, _, raw = entry.partition(b"\t")
        path = _decode_path(raw, named)
        if path is None:
            continue
        if meta[2:].startswith(b"160000"):
            named.skip(path, "submodule")
            continue
        if meta[:1] == b"S":
            listed.append((path, None, True))
            continue
        if path not in decided:
            decided[path] = _by_name(path, hspec, named)
        listed.append((path, decided[path], False))
    if len(_NAMED) >= 16:
        _NAMED.clear()
    _NAMED[root] = (tracked, hs, named, listed)
    return named, listed


def _decode_path(raw: bytes, sel: Selection) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        sel.skip(raw.decode("utf-8", "replace"), "bad_path_encoding")
        return None


def _by_name(path: str, hspec: pathspec.GitIgnoreSpec | None, sel: Selection) -> str | None:
    """The language of ``path`` if its name qualifies (UTF-8, supported, not excluded);
    otherwise the skip is counted and ``None`` returned."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes in a walked name (surrogateescape)
        sel.skip(path.encode("utf-8", "replace").decode("utf-8"), "bad_path_encoding")
        return None
    lang = language_for(path)
    if lang is None:
        sel.skip(path, "unsupported", listed=False)
        return None
    if hspec is not None and hspec.match_file(path):
        sel.skip(path, "excluded", listed=False)
        return None
    return lang


def _consider(root: str, path: str, hspec: pathspec.GitIgnoreSpec | None, sel: Selection) -> None:
    lang = _by_name(path, hspec, sel)
    if lang is not None:
        _stat_file(root, path, lang, sel)


def _stat_file(root: str, path: str, lang: str, sel: Selection) -> None:
    """Select ``path`` (its name qualifies as ``lang``) if it is a regular file."""
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
    except OSError:
        sel.skip(path, "missing", listed=False)  # tracked but deleted in the work tree
        return
    if _stat.S_ISLNK(st.st_mode):
        sel.skip(path, _link_reason(root, full))
        return
    if not _stat.S_ISREG(st.st_mode):
        sel.skip(path, "not_a_file")
        return
    sel.files[path] = lang
    sel.sizes[path] = (st.st_size, st.st_mtime_ns)


def _link_reason(root: str, full: str) -> str:
    try:
        target = os.path.realpath(full, strict=True)
    except (OSError, RuntimeError):
        return "symlink_broken_or_loop"
    real_root = os.path.realpath(root)
    if os.path.commonpath([real_root, target]) != real_root:
        return "symlink_outside_root"
    return "symlink"


def _walk(root: str, sel: Selection, hspec: pathspec.GitIgnoreSpec | None) -> list[str]:
    """Walk ``root`` without following directory links, honouring every ``.gitignore``.
    Regular files with a supported language go straight into ``sel.files`` (their type is
    known from the directory entry, so no extra ``lstat``); links and odd files are
    returned for :func:`_consider` to classify."""
    out: list[str] = []
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        for base, spec in specs:
            if base and not rel.startswith(base + "/"):
                continue
            sub = rel[len(base) + 1:] if base else rel
            if spec.match_file(sub + ("/" if is_dir else "")):
                return True
        return False

    stack = [""]
    while stack:
        rel_dir = stack.pop()
        full_dir = os.path.join(root, rel_dir) if rel_dir else root
        try:
            with os.scandir(full_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            sel.warnings.append(f"{full_dir}: cannot list directory: {err.strerror or err}; "
                                "its indexed files are kept")
            sel.unreadable_dirs.append(rel_dir)
            continue
        gi = next((e for e in entries if e.name == ".gitignore"), None)
        if gi is not None:
            data = _read(gi.path)
            if data:
                specs.append((rel_dir, _spec_from(data, gi.path, sel.warnings)))
        subdirs = []
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            try:
                is_link = e.is_symlink()
                is_dir = not is_link and e.is_dir(follow_symlinks=False)
                is_file = not is_link and e.is_file(follow_symlinks=False)
            except OSError:
                is_link = is_dir = is_file = False
            if is_dir:
                if e.name in WALK_EXCLUDES or ignored(rel, True):
                    continue
                if hspec is not None and hspec.match_file(rel + "/"):  # not walked: its
                    sel.skip(rel + "/", "excluded_directory", listed=False)  # files uncounted
                    continue
                subdirs.append(rel)
                continue
            if is_link and os.path.isdir(e.path):
                sel.skip(rel, _link_reason(root, e.path))
                continue
            if specs and ignored(rel, False):
                continue
            if is_file:
                lang = _by_name(rel, hspec, sel)
                if lang is not None:
                    sel.files[rel] = lang
                continue
            out.append(rel)
        stack.extend(reversed(subdirs))
    return out
