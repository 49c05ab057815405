"""Git hooks that keep a bank current: ``post-commit``, ``post-checkout``, ``post-merge``
and ``post-rewrite`` start ``<python> -P -m hindsight git-hooks run-git`` in the background
(incremental index, then history ingest) and return at once.

Installing is idempotent: a hook that is already ours is rewritten in place. A hook the
user already had is moved to ``<name>.hindsight-orig`` and our script runs it first (with
the same arguments and stdin) and exits with its status, so it keeps working. Uninstalling
removes our script and moves the original back. Hooks live where git looks for them
(``git rev-parse --git-path hooks``: the common git dir of linked worktrees, or
``core.hooksPath``). A ``core.hooksPath`` directory that the repository tracks (husky,
a committed ``.githooks``) or that would show our files as untracked is never written:
``install`` refuses and names the line to add to the user's own hooks instead.
``HINDSIGHT_DISABLE_HOOKS=1`` makes the installed hooks do nothing.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from typing import Any

from hindsight.config.paths import pinned_env
from hindsight.errors import ConfigError, StorageError
from hindsight.history import gitread as G

EVENTS = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
MARKER = "# hindsight-managed git hook"
ORIG = ".hindsight-orig"


def _script(event: str, python: str, env: dict[str, str]) -> str:
    # ``-P``: the hook runs in the work tree, which must stay off sys.path (a repository's
    # own ``hindsight/`` or ``types.py`` would run or break; see SELF_ARGS in
    # hooks/runtime.py). The repository is found when the hook runs: a shared
    # core.hooksPath or the common hooks of linked worktrees serve several work trees.
    words = [*(["env", *(f"{k}={v}" for k, v in env.items())] if env else []), python,
             "-P", "-m", "hindsight", "git-hooks", "run-git", event, "--repo-root"]
    cmd = " ".join(shlex.quote(w) for w in words) + ' "$root"'
    return f"""#!/bin/sh
{MARKER} (remove with: hindsight git-hooks uninstall-git)
status=0
orig="$0{ORIG}"
if [ -x "$orig" ]; then
  "$orig" "$@"
  status=$?
fi
root="$(git rev-parse --show-toplevel 2>/dev/null)"
case "$HINDSIGHT_DISABLE_HOOKS" in
  1|[Tt][Rr][Uu][Ee]|[Yy][Ee][Ss]|[Oo][Nn]) root="" ;;
esac
if [ -n "$root" ]; then
  ( {cmd} </dev/null >/dev/null 2>&1 & ) >/dev/null 2>&1
fi
exit $status
"""


def hooks_dir(root: str) -> str:
    """Where git runs hooks from for ``root``. Raises GitError outside a repository."""
    return G.git_path(root, "hooks")


def manual_line(python: str | None = None) -> str:
    """The one shell line a user can add to each of their own ``post-commit``,
    ``post-checkout``, ``post-merge`` and ``post-rewrite`` hooks to get what
    :func:`install` would have installed (the event is the hook's own file name)."""
    env = pinned_env()
    words = [*(["env", *(f"{k}={v}" for k, v in env.items())] if env else []),
             python or sys.executable, "-P", "-m", "hindsight", "git-hooks", "run-git"]
    return ("( " + " ".join(shlex.quote(w) for w in words) + ' "$(basename "$0")" '
            '--repo-root "$(git rev-parse --show-toplevel)" </dev/null >/dev/null 2>&1 & )')


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def committable(root: str, d: str) -> str:
    """Why writing our hooks into directory ``d`` would add files to the commits of the
    repository at ``root`` (``""`` when it would not). ``d`` is safe when it is inside the
    git directory (``.git/hooks``), outside the work tree (a ``core.hooksPath`` such as
    ``~/.config/git/hooks``), or inside it but ignored by git for every hook file. It is
    not when git tracks files in it (husky's ``.husky``, a committed ``.githooks``) or when
    our hook files would show up as untracked files (``git add -A`` would commit them).
    Paths are compared with symlinks resolved. Raises GitError."""
    real = os.path.realpath(d)
    out = G.run(root, ["rev-parse", "--path-format=absolute", "--show-toplevel",
                       "--git-common-dir", "--absolute-git-dir"]).decode("utf-8", "replace")
    top, *git_dirs = [os.path.realpath(x) for x in out.rstrip("\n").split("\n")]
    if any(_inside(real, g) for g in git_dirs) or not _inside(real, top):
        return ""
    rel = os.path.relpath(real, top)
    if G.run(root, ["--literal-pathspecs", "ls-files", "-z", "--", rel]).strip(b"\0"):
        return f"{rel} holds files tracked by git"
    names = [os.path.join(rel, ev) for ev in EVENTS]
    ignored = G.run(root, ["check-ignore", "-z", "--stdin"], ok=(0, 1),
                    stdin=b"".join(os.fsencode(n) + b"\0" for n in names)).split(b"\0")
    if len([n for n in ignored if n]) < len(names):
        return f"{rel} is inside the work tree and not ignored by git"
    return ""


def _ours(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return MARKER.encode() in fh.read(4096)
    except OSError:
        return False


def install(root: str, python: str | None = None) -> list[str]:
    """Install the hooks for ``root``, each running ``<python> -P -m hindsight git-hooks run-git``
    with this process's ``HINDSIGHT_HOME``/``HINDSIGHT_CONFIG`` when set; returns one line
    per hook saying what was done. Raises GitError (not a repository), StorageError (the hooks
    directory cannot be written: exit 4, not "bad argument") or ConfigError (a leftover
    ``*.hindsight-orig`` beside a foreign hook, or a
    ``core.hooksPath`` whose files would be committed, see :func:`committable`: the
    message then gives the line to add to the user's own hooks, :func:`manual_line`)."""
    d = hooks_dir(root)
    python = python or sys.executable
    why = committable(root, d)
    if why:
        raise ConfigError(f"git hooks not installed: core.hooksPath is {d} and {why}, so "
                          "hindsight's hooks would end up in your commits; add this line "
                          f"to your own post-commit, post-checkout, post-merge and "
                          f"post-rewrite hooks instead: {manual_line(python)}", path=d)
    env = pinned_env()
    done = []
    try:
        os.makedirs(d, exist_ok=True)
        for ev in EVENTS:
            path = os.path.join(d, ev)
            orig = path + ORIG
            if os.path.lexists(path) and not _ours(path):
                if os.path.lexists(orig):
                    raise ConfigError(f"{path}: exists and so does {orig}; move one away "
                                      "and run again")
                os.rename(path, orig)
                done.append(f"{ev}: kept your hook as {os.path.basename(orig)}; it still runs")
            elif os.path.lexists(path):
                done.append(f"{ev}: already installed (updated)")
            else:
                done.append(f"{ev}: installed")
            tmp = path + ".hindsight-tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(_script(ev, python, env))
            os.chmod(tmp, os.stat(tmp).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            os.replace(tmp, path)
    except OSError as e:
        raise StorageError(f"{d}: cannot install git hooks: {e}", path=d) from e
    return done


def uninstall(root: str) -> list[str]:
    """Remove our hooks and put back any original; returns what was done per hook."""
    d = hooks_dir(root)
    done = []
    try:
        for ev in EVENTS:
            path = os.path.join(d, ev)
            orig = path + ORIG
            if not _ours(path):
                done.append(f"{ev}: not installed")
                continue
            os.remove(path)
            if os.path.lexists(orig):
                os.rename(orig, path)
                done.append(f"{ev}: removed; your original hook is back")
            else:
                done.append(f"{ev}: removed")
    except OSError as e:
        raise StorageError(f"{d}: cannot uninstall git hooks: {e}", path=d) from e
    return done


def refresh(root: str, event: str, open_bank: Any, after: Any = None) -> None:
    """Incremental index + history ingest of the repository at ``root``, run by the git
    hooks: one refresh at a time per bank (lock ``refresh-<bank>``); a refresh that finds
    another running leaves a ``.again`` mark so that the running one goes round once more.
    Index and ingest take the bank's one index lock (the same as seeding, the watcher and
    the CLI). ``open_bank(root)`` opens the bank; ``after(bank, rec)``, when given, runs
    next under the same lock (the knowledge pages that are due). Never raises: every
    outcome is one JSON line in ``$HINDSIGHT_HOME/logs/git-hooks.log``."""
    import json
    import time
    import traceback

    from hindsight.config.paths import Home, bank_key, file_lock

    t0 = time.time()
    rec: dict[str, Any] = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "event": event,
                           "root": root}
    try:
        from hindsight.config.settings import load

        s = load("cli")
        if s.disabled or s.disable_hooks:  # the setting, from the file as well as the env
            rec["outcome"] = "skipped: " + ("disabled" if s.disabled else "disableHooks")
            return
        with open_bank(root) as bank:
            rec["bank"] = bank.bank_id
            name = f"refresh-{bank_key(bank.bank_id)}"
            again = Home.current().lock_file(name) + ".again"
            with file_lock(name) as held:
                if not held:
                    open(again, "w").close()
                    rec["outcome"] = "another run is active; it will go round again"
                    return

                def pending() -> bool:
                    if os.path.exists(again):
                        os.remove(again)
                        return True
                    return False

                pending()
                bank.history.refresh(rec, pending)
                if after is not None:
                    after(bank, rec)
    except Exception as e:  # noqa: BLE001 - a git hook must never fail; log and go on
        rec["outcome"] = "error"
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["trace"] = traceback.format_exc(limit=3)
    finally:
        rec["ms"] = round((time.time() - t0) * 1000)
        Home.current().append_log("git-hooks.log", json.dumps(rec, ensure_ascii=False))
