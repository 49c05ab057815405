"""Importing earlier sessions of Cursor and GitHub Copilot CLI into a bank (``hindsight
import cursor|copilot`` and the first seeding). Idempotent: each transcript is read from its
stored offset and memories are deduplicated by fingerprint
(:func:`hindsight.sessions.writeback.retain_transcript`).

Which sessions belong to this repository:

* Cursor: the transcripts in the folders Cursor names after the bank's work tree and its
  main worktree (``~/.cursor/projects/<name>/agent-transcripts``). Its transcripts record no
  working directory, so two workspaces whose names differ only in punctuation (``a-b`` and
  ``a.b``) share a folder and cannot be told apart.
* Gemini CLI: the chat recordings of the project folders whose ``.project_root`` (or
  ``projects.json``, or the older ``sha256`` name) is the bank's work tree or main worktree.
* Antigravity CLI: the conversations under ``~/.gemini/antigravity-cli/brain`` whose tool
  calls name a path in the bank's work tree or main worktree (agy records no working
  directory).
* Windsurf: the transcripts under ``~/.windsurf/transcripts`` whose steps name a path in
  the bank's work tree or main worktree (the transcript records no working directory).
* Cline: every task under the Cline data folders whose working directory (its first
  environment details) resolves to this bank.
* opencode: the sessions of opencode's database whose ``directory`` is the bank's work
  tree or main worktree (or below), copied to the transcripts hindsight keeps for opencode.
* Copilot CLI: every session under ``$COPILOT_HOME/session-state`` whose working directory
  (``workspace.yaml``, else ``session.start``) resolves to this bank.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from hindsight.config.agents import (
    antigravity_dir,
    cline_data_dirs,
    copilot_dir,
    cursor_dir,
    gemini_dir,
    opencode_db,
    windsurf_transcripts_dir,
)


def _roots(bank: Any) -> list[str]:
    main = getattr(bank.resolution, "main", bank.root) or bank.root
    return [os.path.abspath(p) for p in dict.fromkeys([bank.root, main])]


def import_cursor(bank: Any, *, cursor_home: str | None = None) -> dict[str, Any]:
    """Retain the Cursor agent transcripts of this repository (see the module doc).
    Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.sessions.cursor import read_cursor, transcripts, transcripts_dir
    from hindsight.sessions.seed import _import

    home = cursor_home or cursor_dir()
    roots = _roots(bank)
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    for root in roots:  # each workspace's transcripts read with that workspace's root
        one = _import(bank, transcripts(root, home), partial(read_cursor, cwd=root), "cursor")
        out = {k: out[k] + one[k] for k in out}
    out["looked_in"] = [transcripts_dir(r, home) for r in roots]
    return out


def import_gemini(bank: Any, *, gemini_home: str | None = None) -> dict[str, Any]:
    """Retain the Gemini CLI chat recordings of this repository (see the module doc).
    Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.sessions.gemini import chats, read_gemini
    from hindsight.sessions.seed import _import

    home = gemini_home or gemini_dir()
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    for root in _roots(bank):
        one = _import(bank, chats(root, home), partial(read_gemini, cwd=root), "gemini")
        out = {k: out[k] + one[k] for k in out}
    out["looked_in"] = [os.path.join(home, "tmp")]
    return out


def import_antigravity(bank: Any, *, antigravity_home: str | None = None
                       ) -> dict[str, Any]:
    """Retain the Antigravity CLI conversations about this repository (see the module
    doc). Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.sessions.antigravity import brain_dir, mentions, read_antigravity, transcripts
    from hindsight.sessions.seed import _import

    home = antigravity_home or antigravity_dir()
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    taken: set[str] = set()
    for root in _roots(bank):
        mine = [p for p in transcripts(home) if p not in taken and mentions(p, root)]
        taken.update(mine)
        one = _import(bank, mine, partial(read_antigravity, cwd=root), "antigravity")
        out = {k: out[k] + one[k] for k in out}
    out["looked_in"] = [brain_dir(home)]
    return out


def import_copilot(bank: Any, *, copilot_home: str | None = None) -> dict[str, Any]:
    """Retain the Copilot CLI sessions whose working directory resolves to this bank.
    Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.config.banks import resolve
    from hindsight.sessions.copilot import read_copilot, session_cwd, sessions
    from hindsight.sessions.seed import _import

    home = copilot_home or copilot_dir()
    mine: list[str] = []
    errors: list[str] = []
    for path in sessions(home):
        try:
            cwd = session_cwd(path)
            if cwd and resolve(cwd, "copilot").bank_id == bank.bank_id:
                mine.append(path)
        except Exception as e:  # noqa: BLE001 - one session must not stop the rest
            errors.append(f"{path}: {e}")
    out = _import(bank, mine, read_copilot, "copilot")
    out["errors"] = errors + out["errors"]
    out["looked_in"] = [os.path.join(home, "session-state")]
    return out


def import_windsurf(bank: Any, *, transcripts_dir: str | None = None) -> dict[str, Any]:
    """Retain the Windsurf transcripts about this repository (see the module doc).
    Returns ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.sessions.antigravity import mentions
    from hindsight.sessions.seed import _import
    from hindsight.sessions.windsurf import read_windsurf, transcripts

    folder = transcripts_dir or windsurf_transcripts_dir()
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    taken: set[str] = set()
    for root in _roots(bank):
        mine = [p for p in transcripts(folder) if p not in taken and mentions(p, root)]
        taken.update(mine)
        one = _import(bank, mine, partial(read_windsurf, cwd=root), "windsurf")
        out = {k: out[k] + one[k] for k in out}
    out["looked_in"] = [folder]
    return out


def import_cline(bank: Any, *, data_dirs: list[str] | None = None) -> dict[str, Any]:
    """Retain the Cline tasks whose working directory resolves to this bank. Returns
    ``{"files", "retained", "duplicates", "errors", "looked_in"}``."""
    from hindsight.config.banks import resolve
    from hindsight.sessions.cline import histories, read_cline, task_cwd
    from hindsight.sessions.seed import _import

    dirs = data_dirs if data_dirs is not None else cline_data_dirs()
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    for path in histories(dirs):
        try:
            cwd = task_cwd(path)
            if not cwd or resolve(cwd, "cline").bank_id != bank.bank_id:
                continue
        except Exception as e:  # noqa: BLE001 - one task must not stop the rest
            out["errors"].append(f"{path}: {e}")
            continue
        one = _import(bank, [path], partial(read_cline, cwd=cwd), "cline")
        out = {k: out[k] + one[k] for k in out}
    out["looked_in"] = [os.path.join(d, "tasks") for d in dirs if os.path.isdir(d)] or \
        [os.path.join(d, "tasks") for d in dirs[:1]]
    return out


def import_opencode(bank: Any, *, db: str | None = None) -> dict[str, Any]:
    """Retain the opencode sessions run in this repository (see the module doc). Returns
    ``{"files", "retained", "duplicates", "errors", "looked_in"}``; a missing database is
    no error (nothing to import)."""
    from hindsight.config.paths import Home
    from hindsight.sessions.opencode import append_messages, db_sessions, read_opencode
    from hindsight.sessions.seed import _import

    path = db or opencode_db()
    out: dict[str, Any] = {"files": 0, "retained": 0, "duplicates": 0, "errors": []}
    try:
        sessions = db_sessions(path, _roots(bank))
    except FileNotFoundError:
        sessions = []
    except (OSError, ValueError) as e:
        out["errors"].append(str(e))
        sessions = []
    files = []
    for sid, messages in sessions:
        files.append(Home.current().transcript_file("opencode", sid, create=True))
        append_messages(files[-1], messages)
    out = {**out, **{k: v for k, v in _import(bank, files, partial(
        read_opencode, cwd=bank.root), "opencode").items() if k != "errors"}}
    out["looked_in"] = [path]
    return out
