"""Which bank a working directory belongs to (issue #5).

Order: ``disabled`` → ``optInOnly``/``optInPaths`` → ``mapPathToBank`` (longest absolute
path prefix wins) → explicit ``bankId`` → ``bankTemplate`` (default
``coding-agent::{gitProject}``). Configured paths match as written or with symlinks
resolved on both sides (git reports a work tree by its real path).

Placeholders: ``{gitProject}`` the main worktree's directory name (found with ``git
rev-parse --git-common-dir``, so every linked worktree maps to its main repository's bank),
``{project}`` the working directory's name, ``{harness}``, ``{user}`` (``$USER``),
``{channel}`` (setting ``channel`` / ``$HINDSIGHT_CHANNEL``), ``{gitRemote}`` the
normalised ``origin`` URL (:func:`normalise_remote`: ``github.com/org/repo`` for every ssh,
https, ``.git`` and credential form; ``{gitProject}`` without a remote). In client mode
(``apiUrl`` set) the default template is ``coding-agent::{gitRemote}``, so every teammate's
clone, in whatever folder, names the same bank; an id made from a remote is shared on
purpose and never renamed for a name clash.

Two repositories with the same directory name must not share a bank by accident: the
registry ``$HINDSIGHT_HOME/registry.json`` records which main worktree owns each template
bank id; a second repository whose template gives an id owned by another path gets
``<id>-<first 8 hex of sha1(main worktree path)>``. The registry also remembers every
worktree seen, so a linked worktree whose directory was deleted still resolves to its
repository's bank; one never seen is looked up in the known repositories'
``.git/worktrees/*/gitdir`` files.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import string
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from hindsight.config.paths import Home, bank_file, git_cmd, hindsight_home
from hindsight.config.settings import Settings, load
from hindsight.errors import ConfigError

PLACEHOLDERS = ("gitProject", "gitRemote", "project", "harness", "user", "channel")
CLIENT_TEMPLATE = "coding-agent::{gitRemote}"


@dataclass(frozen=True)
class Resolution:
    """``bank_id`` is None when the directory is inert (``reason`` says why). ``root`` is
    the work tree to index (a linked worktree's own top), ``main`` its main worktree,
    ``how`` the rule that decided (``disabled``, ``optInOnly``, ``mapPathToBank <prefix>``,
    ``bankId``, ``template <template>``, ``template <template> (name clash: …)``)."""

    bank_id: str | None
    root: str
    main: str
    how: str
    reason: str
    settings: Settings


def _git(cwd: str, *args: str) -> str | None:
    """git's output without its final newline (a path may hold other newlines)."""
    try:
        out = subprocess.run(git_cmd(cwd, *args), capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return os.fsdecode(out.stdout.removesuffix(b"\n")) if out.returncode == 0 else None


def locate(path: str) -> tuple[str, str]:
    """``(root, main)`` for an existing directory: the git work tree top and the main
    worktree (both ``path`` itself outside git). One ``git`` call."""
    out = _git(path, "rev-parse", "--path-format=absolute", "--show-toplevel",
               "--git-common-dir")
    if not out:
        return path, path
    lines = out.split("\n")
    if len(lines) != 2:  # a path holding a newline: ask one question at a time
        top = _git(path, "rev-parse", "--path-format=absolute", "--show-toplevel") or ""
        common = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir") or ""
        if not top or not common:
            return path, path
    else:
        top, common = lines
    main = os.path.dirname(common) if os.path.basename(common) == ".git" else top
    return top, main


def _registry_path() -> str:
    return Home.current().registry


def read_registry() -> dict[str, Any]:
    """``{"banks": {bank_id: main}, "roots": {root: [bank_id, main]}}``; empty when the file
    is missing or unreadable. It is not the only record of who owns a bank id: each bank
    file has an ``.owner`` file beside it (:func:`owner_of`)."""
    try:
        with open(_registry_path(), encoding="utf-8") as f:
            data = json.load(f)
        if isinstance(data, dict):
            return {"banks": dict(data.get("banks") or {}), "roots": dict(data.get("roots") or {})}
    except (OSError, ValueError, RecursionError):
        pass
    return {"banks": {}, "roots": {}}


def _owner_record(bank_id: str) -> list[str]:
    try:
        with open(bank_file(bank_id) + ".owner", encoding="utf-8") as f:
            return f.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return []


def owner_of(bank_id: str) -> str | None:
    """The main worktree recorded beside the bank's file (``<bank file>.owner``: the path,
    then the repository's first commit), or None."""
    rec = _owner_record(bank_id)
    return rec[0] or None if rec else None


def _root_commit(main: str) -> str:
    out = _git(main, "rev-list", "--max-parents=0", "HEAD")
    return out.split("\n")[0] if out else ""


def _write_owner(bank_id: str, main: str) -> None:
    path = bank_file(bank_id) + ".owner"
    Home.ensure(os.path.dirname(path), private=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(f"{main}\n{_root_commit(main)}\n")
    os.replace(path + ".tmp", path)


@contextlib.contextmanager
def _registry_lock() -> Any:
    """``locks/registry.lock`` of the home, waited for (registry updates are short)."""
    from hindsight.config.paths import file_lock

    Home.ensure(hindsight_home(), private=True)
    with file_lock("registry", wait_s=60.0) as held:
        if not held:
            raise ConfigError(f"{_registry_path()}: another process held its lock for 60 s")
        yield


def _claim(reg: dict[str, Any], bank_id: str, main: str) -> str:
    """The id ``main`` gets for template id ``bank_id``: itself when nobody owns it (the
    ``.owner`` file first, then the registry) or ``main`` does, or when the owner's
    directory is gone and ``main`` has the same first commit (the repository was moved);
    else the id with 8 hex of sha1(main), so that a new repository never inherits the
    memories of a deleted one that had the same name."""
    owner = owner_of(bank_id) or reg["banks"].get(bank_id)
    if owner is None or owner == main:
        return bank_id
    if not os.path.isdir(owner):
        rec = _owner_record(bank_id)
        first = rec[1] if len(rec) > 1 else ""
        if first and first == _root_commit(main):
            return bank_id
    return f"{bank_id}-{hashlib.sha1(os.fsencode(main)).hexdigest()[:8]}"


def _register(bank_id: str, main: str, root: str, claim: bool, git: bool = True,
              record: bool = True) -> str:
    """Record ``root`` → ``bank_id`` (only for a git work tree: the roots are how a deleted
    worktree is found again); with ``claim``, take ``bank_id`` for ``main`` (see
    :func:`_claim`). A home that cannot be written (read-only) records nothing; without
    ``record`` (a read-only query) nothing is written and the id is the one a claim gives."""
    if not record:
        return _claim(read_registry(), bank_id, main) if claim else bank_id
    try:
        with _registry_lock():
            reg = read_registry()
            changed = False
            if claim:
                bank_id = _claim(reg, bank_id, main)
                if reg["banks"].get(bank_id) != main:
                    reg["banks"][bank_id], changed = main, True
                if owner_of(bank_id) != main:
                    _write_owner(bank_id, main)
            if git and reg["roots"].get(root) != [bank_id, main]:
                reg["roots"][root], changed = [bank_id, main], True
            if not changed:
                return bank_id
            fd, tmp = tempfile.mkstemp(dir=hindsight_home(), prefix=".registry-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(reg, f, indent=1, sort_keys=True)
            os.replace(tmp, _registry_path())
    except OSError:
        return _claim(read_registry(), bank_id, main) if claim else bank_id
    return bank_id


def _under(path: str, prefix: str) -> bool:
    prefix = prefix.rstrip(os.sep) or os.sep
    return path == prefix or path.startswith(prefix if prefix == os.sep else prefix + os.sep)


def _norm(p: str) -> str:
    return os.path.abspath(os.path.expanduser(p))


def _configured_under(paths: tuple[str, ...], prefix: str) -> str | None:
    """The configured ``prefix`` (``optInPaths``, ``mapPathToBank``) as the path it matched
    one of ``paths`` by, or None. Compared as written (``~`` expanded, made absolute) and
    with symlinks resolved on both sides, so a prefix given through a symlinked directory
    matches the real directory git reports, and the other way round."""
    if not prefix:
        return None
    norm = _norm(prefix)
    if any(_under(p, norm) for p in paths):
        return norm
    real = os.path.realpath(norm)
    if any(_under(os.path.realpath(p), real) for p in paths):
        return real
    return None


def _deleted(path: str) -> tuple[str, str] | None:
    """``(root, main)`` for a directory that no longer exists, from the registry or from the
    known repositories' worktree metadata."""
    reg = read_registry()
    known = [r for r in reg["roots"] if _under(path, r)]
    if known:
        root = max(known, key=len)
        return root, reg["roots"][root][1]
    for main in sorted(set(reg["banks"].values()) | {v[1] for v in reg["roots"].values()}):
        wt_dir = os.path.join(main, ".git", "worktrees")
        try:
            names = os.listdir(wt_dir)
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(wt_dir, name, "gitdir"), encoding="utf-8") as f:
                    wt = os.path.dirname(f.read().strip())
            except OSError:
                continue
            if _under(path, wt):
                return wt, main
    return None


def project_dir(cwd: str, env: Any = None) -> str:
    """The directory to resolve: ``cwd`` (cut before a ``.git`` component: inside ``.git``
    means its work tree), unless ``CLAUDE_PROJECT_DIR`` is set and ``cwd`` is outside it and
    outside any git work tree (a temporary directory the agent moved to)."""
    env = os.environ if env is None else env
    cwd = _norm(cwd)
    parts = cwd.split(os.sep)
    if ".git" in parts:
        cwd = os.sep.join(parts[:parts.index(".git")]) or os.sep
    proj = env.get("CLAUDE_PROJECT_DIR")
    if (proj and os.path.isdir(proj) and not _under(cwd, _norm(proj))
            and (not os.path.isdir(cwd) or _git(cwd, "rev-parse", "--show-toplevel") is None)):
        return _norm(proj)
    return cwd


def normalise_remote(url: str) -> str:
    """A git remote URL as ``host/path`` without scheme, user, password, port, ``.git``
    or trailing ``/``; the host lower-cased. ``git@github.com:org/repo.git``,
    ``ssh://git@github.com:22/org/repo``, ``https://user:tok@github.com/org/repo.git`` all
    give ``github.com/org/repo``; a local path gives its text with ``\\`` as ``/``.
    Credentials never appear in the result. ``""`` for an empty URL."""
    from urllib.parse import urlsplit

    u = url.strip()
    if not u:
        return ""
    if "://" in u:
        parts = urlsplit(u)
        host = (parts.hostname or "").lower()
        path = parts.path
    elif ":" in u.split("/", 1)[0] and not os.path.isabs(u):  # scp-like user@host:path
        head, path = u.split(":", 1)
        host = head.rsplit("@", 1)[-1].lower()
    else:
        host, path = "", u.replace("\\", "/")
    path = path.strip("/")
    path = path.removesuffix(".git").rstrip("/")
    return f"{host}/{path}" if host else path


_REMOTES: dict[tuple[str, int, int, int], str] = {}  # git_remote's answers, this process


def git_remote(main: str) -> str:
    """The normalised ``origin`` URL of the repository at ``main``, ``""`` without one.
    Kept while ``.git/config`` is the same file (inode, mtime and size: git rewrites it
    by renaming a new one in), since a client-mode resolve asks twice and each ``git``
    call is a process."""
    key: tuple[str, int, int, int] | None
    try:
        st = os.stat(os.path.join(main, ".git", "config"))
        key = (main, st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is not None and key in _REMOTES:
        return _REMOTES[key]
    url = normalise_remote(_git(main, "remote", "get-url", "origin") or "")
    if key is not None:
        _REMOTES[key] = url
    return url


def _template(settings: Settings, main: str, cwd: str, harness: str) -> str:
    tpl = client_template(settings)
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(tpl) if f is not None]
    except ValueError as e:
        raise ConfigError(f"bankTemplate {tpl!r}: {e}") from None
    bad = [f for f in fields if f not in PLACEHOLDERS]
    if bad:
        raise ConfigError(f"bankTemplate {tpl!r}: unknown placeholder {{{bad[0]}}} (known: "
                          + ", ".join("{" + p + "}" for p in PLACEHOLDERS) + ")")
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "user"
    project = os.path.basename(main.rstrip(os.sep)) or "root"
    remote = (git_remote(main) or project) if "gitRemote" in fields else ""
    return tpl.format(gitProject=project, gitRemote=remote,
                      project=os.path.basename(cwd.rstrip(os.sep)) or "root",
                      harness=harness or "cli", user=user, channel=settings["channel"])


def resolve(cwd: str, harness: str = "cli", *, settings: Settings | None = None,
            env: Any = None, root: str | None = None, record: bool = True) -> Resolution:
    """Resolve the bank of ``cwd`` for ``harness`` (see the module docstring for the order).

    ``root`` forces the work tree (used as is, even inside another repository; its main
    worktree is looked up only when it has its own ``.git``). The returned settings include
    the ``banks.<id>`` layer. With ``record`` false (a query that must not create a bank)
    the registry and the bank's ``.owner`` file are read, never written. Raises
    :class:`ConfigError` for
    an invalid config, an invalid template, or a directory that does not exist and is not
    a known (deleted) worktree."""
    s = settings if settings is not None else load(harness, env=env)
    cwd = _norm(root) if root is not None else project_dir(cwd, env)
    if s["disabled"]:
        return Resolution(None, cwd, cwd, "disabled", "disabled in config", s)
    if root is not None:
        main = locate(cwd)[1] if os.path.exists(os.path.join(cwd, ".git")) else cwd
        root = cwd
    elif os.path.isdir(cwd):
        root, main = locate(cwd)
    else:
        found = _deleted(cwd)
        if found is None:
            raise ConfigError(f"{cwd}: directory does not exist and is not a known worktree")
        root, main = found
    git = os.path.exists(os.path.join(root, ".git"))
    if s["optInOnly"] and not any(_configured_under((root, main), o) for o in s["optInPaths"]):
        return Resolution(None, root, main, "optInOnly", "not under optInPaths", s)
    hits = {k: m for k in s["mapPathToBank"]
            if (m := _configured_under((cwd, root, main), k)) is not None}
    if hits:
        best = max(hits, key=lambda k: len(hits[k]))  # the longest prefix, as it matched
        bank_id = _register(s["mapPathToBank"][best], main, root, claim=False, git=git,
                            record=record)
        return Resolution(bank_id, root, main, f"mapPathToBank {best}", "", s.for_bank(bank_id))
    if s["bankId"]:
        bank_id = _register(s["bankId"], main, root, claim=False, git=git,
                            record=record)
        return Resolution(bank_id, root, main, "bankId", "", s.for_bank(bank_id))
    want = _template(s, main, cwd, harness)
    shared = "{gitRemote}" in client_template(s) and git and bool(git_remote(main))
    bank_id = _register(want, main, root, claim=not shared, git=git, record=record)
    how = f"template {client_template(s)}"
    if bank_id != want:
        how += f" (name clash: {want} belongs to another repository)"
    return Resolution(bank_id, root, main, how, "", s.for_bank(bank_id))


def client_template(settings: Settings) -> str:
    """The bank template in effect: ``bankTemplate``, or in client mode (``apiUrl`` set)
    with the template left at its default, :data:`CLIENT_TEMPLATE`."""
    tpl: str = settings["bankTemplate"]
    if settings["apiUrl"] and settings.sources.get("bankTemplate", "default") == "default":
        return CLIENT_TEMPLATE
    return tpl


def claude_project_dir() -> str:
    """``$CLAUDE_PROJECT_DIR`` (set by Claude Code for its hooks), ``""`` when unset."""
    return os.environ.get("CLAUDE_PROJECT_DIR", "")
