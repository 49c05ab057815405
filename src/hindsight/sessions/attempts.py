"""Execution records from agent transcripts (issue 12, item 2), during write-back.

Every shell command the agent ran (Claude Code ``Bash``, Codex ``Shell``) becomes a record
(:class:`hindsight.records.service.Draft`), except commands that only look or move files
(``ls``, ``cat``, ``grep``, ``cd``, ``echo``, ``mkdir``, ``mv``, any ``git`` command…;
:func:`is_looking`): its output is parsed into
the observation and dropped, its exit code and interruption are taken from the tool
result. The edits between two commands (Claude Code ``Edit``/``MultiEdit``/``Write``,
Codex ``apply_patch``) are the second command's change: each file's text before and after
is rebuilt from the edits (:mod:`hindsight.records.change`). Edits after a read's last
command wait for the next read's first command: the state of each file before them (its
symbols' ast hashes and line hashes, never its text:
:class:`~hindsight.records.change.State`) is kept in bank meta
``records:pending:<session>``. A human message that comes
right after a command, before any other tool call, is that record's feedback. Old failed
records are pruned here, at most once a day (:meth:`RecordService.prune`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from hindsight.records.change import EditOp, State, parse_patch, states, versions
from hindsight.records.service import Draft
from hindsight.records.worktree import disk_text, head_text

SHELL_TOOLS = ("Bash", "Shell")
_LOOKING = frozenset({"ls", "cat", "head", "tail", "less", "more", "grep", "egrep", "rg", "ag",
                      "find", "fd", "tree", "wc", "diff", "echo", "printf", "pwd", "cd",
                      "which", "type", "file", "stat", "du", "df", "env", "date", "sed",
                      "awk", "sort", "uniq", "cut", "jq", "true", "sleep", "clear", "git",
                      "mkdir", "touch", "rm", "mv", "cp", "ln", "chmod", "export", "source"})
_CD = re.compile(r"^\s*cd\s+(\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*")


def is_looking(command: str) -> bool:
    """Whether a shell command is no attempt (see the module doc): its first word, after
    ``cd DIR &&`` and ``VAR=value`` prefixes, is one of them and (but for git) no ``>``
    writes a file."""
    from hindsight.sessions.transcripts import command_words

    words = command_words(command) or [""]
    head = words[0].rsplit("/", 1)[-1]
    if ">" in command and head != "git":
        return False
    return head in _LOOKING or not head


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _ts(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() if stamp \
            else None
    except ValueError:
        return None


def _ops(t: Any, root: str) -> list[EditOp]:
    """The edits an action made (paths root-relative; files outside the root left out)."""
    d = _dict(t.detail)
    inp, result = _dict(d.get("input")), _dict(d.get("result"))
    original = result.get("originalFile") if isinstance(result.get("originalFile"), str) \
        else None

    def rel(path: str, cwd: str = "") -> str | None:
        full = path if os.path.isabs(path) else os.path.join(cwd or root, path)
        r = os.path.relpath(os.path.normpath(full), root)
        return None if r.startswith("..") else r.replace(os.sep, "/")

    if t.tool == "apply_patch":
        out = []
        for action, path, move, hunks in parse_patch(str(d.get("patch") or "")):
            r = rel(path, str(d.get("cwd") or ""))
            if r is not None and not move:
                out.append(EditOp(r, "patch", hunks=tuple(hunks), created=action == "Add",
                                  deleted=action == "Delete"))
        return out
    file = inp.get("file_path")
    r = rel(file) if isinstance(file, str) and file else None
    if r is None:
        return []
    if t.tool == "Write" and isinstance(inp.get("content"), str):
        return [EditOp(r, "write", content=inp["content"], original=original,
                       created=result.get("type") == "create")]
    pairs = [(e.get("old_string"), e.get("new_string"), bool(e.get("replace_all")))
             for e in (inp.get("edits") if t.tool == "MultiEdit" else [inp]) or []
             if isinstance(e, dict)]
    if pairs and all(isinstance(o, str) and isinstance(n, str) for o, n, _a in pairs):
        return [EditOp(r, "replace", pairs=tuple(pairs), original=original)]  # type: ignore[arg-type]
    return []


def drafts(turns: list[Any], root: str, session: str, agent: str, cwd: str, branch: str,
           pending: dict[str, Any], backward_first: bool
           ) -> tuple[list[Draft], dict[str, Any], str]:
    """``(drafts, pending after, feedback for the previous read's last record)`` of a
    read's turns (see the module doc). ``pending``: path → the text before the edits not
    yet part of a record (None: the file was absent; False: unknown)."""
    ops: list[EditOp] = []
    runs: list[tuple[int, Any]] = []  # (ops before it, the shell action)
    feedback: dict[int, str] = {}
    carried, acted, last_was_run = "", False, False
    for t in turns:
        if t.role == "user":
            if last_was_run:
                feedback.setdefault(len(runs) - 1, t.text)
            elif not acted and not carried:
                carried = t.text
            last_was_run = False
            continue
        if t.role != "action":
            continue
        acted, last_was_run = True, False
        if t.tool in SHELL_TOOLS and t.detail and "output" in t.detail:
            command = _command(t)
            if command and not is_looking(command):
                runs.append((len(ops), t))
                last_was_run = True
        elif not t.error and t.tool in ("Edit", "MultiEdit", "Write", "apply_patch"):
            ops += _ops(t, root)
    texts = _versions(ops, root, backward_first)
    out = []
    start = 0
    for n, (end, t) in enumerate(runs):
        window = _window(ops, texts, start, end, pending if n == 0 else {}, root)
        out.append(_draft(t, window, session, agent, cwd, branch, feedback.get(n, "")))
        start = end
    left = _window(ops, texts, start, len(ops), {} if runs else pending, root)
    parsed = states([(p, p, b) for p, b, _a, known in left if known and isinstance(b, str)])
    after: dict[str, Any] = {}
    for p, b, _a, known in left:
        st = parsed.get(p) if isinstance(b, str) else b
        after[p] = False if not known else st.to_json() if isinstance(st, State) else None
    return out, after, carried


def _command(t: Any) -> str:
    d = _dict(t.detail)
    inp = _dict(d.get("input"))
    cmd = d.get("command") or inp.get("command") or t.target
    return cmd if isinstance(cmd, str) else ""


def _versions(ops: list[EditOp], root: str, backward_first: bool
              ) -> dict[str, list[str | None] | None]:
    """Per path the texts before its first op and after each of its ops."""
    out: dict[str, list[str | None] | None] = {}
    for path in dict.fromkeys(op.path for op in ops):
        mine = [op for op in ops if op.path == path]
        out[path] = versions(mine, disk_text(root, path), _head(root, path), backward_first)
    return out


def _head(root: str, path: str) -> Callable[[], str | None]:
    return lambda: head_text(root, path)


def _window(ops: list[EditOp], texts: dict[str, list[str | None] | None], start: int,
            end: int, pending: dict[str, Any], root: str
            ) -> list[tuple[str, Any, str | None, bool]]:
    """The change of ``ops[start:end]`` plus the files ``pending`` from the previous read,
    as (path, before, after, known) per file (before: a text, a State or None)."""
    out: list[tuple[str, Any, str | None, bool]] = []
    for path in dict.fromkeys([*pending, *(op.path for op in ops[start:end])]):
        idx = [i for i, op in enumerate(ops) if op.path == path]  # its ops, in order
        seq = texts.get(path)
        if idx and seq is None:
            out.append((path, None, None, False))  # its versions could not be rebuilt
            continue
        after = seq[sum(1 for i in idx if i < end)] if seq is not None \
            else disk_text(root, path)
        before: Any = None
        if path in pending:
            known = pending[path] is not False
            before = State.from_json(pending[path]) if pending[path] else None
        else:
            before, known = seq[sum(1 for i in idx if i < start)] if seq else None, True
        out.append((path, before if known else None, after, known))
    return out


def _draft(t: Any, window: list[Any], session: str, agent: str, cwd: str, branch: str,
           feedback: str) -> Draft:
    d = _dict(t.detail)
    command = _command(t)
    result = _dict(d.get("result"))
    code = d.get("exit_code")
    if "is_error" in d:  # Claude Code: "Exit code N" leads a failed result's text
        m = re.search(r"^(?:Exit code:?|Process exited with code) (-?\d+)", d["output"], re.M)
        code = int(m.group(1)) if m else (1 if d["is_error"] else 0)
    started, done = _ts(t.timestamp), _ts(str(d.get("done") or ""))
    duration = d.get("duration_ms")
    if duration is None and started is not None and done is not None and done >= started:
        duration = round((done - started) * 1000)
    where = str(d.get("workdir") or "") or cwd
    m = _CD.match(command)
    if m:
        where = os.path.join(where, m.group(1).strip("'\""))
    return Draft(command, t.tool, d.get("output") or "", code,
                 result.get("interrupted") is True, started, duration, session, agent,
                 where, branch or None, (), feedback, f"{t.uuid}:{t.timestamp}", window)


def record_turns(bank: Any, res: Any, agent: str, warn: Callable[[str], None]) -> int:
    """Store the execution records of one read (``res``: a ReadResult) of a transcript;
    returns how many are new. Failures are warnings: records never stop a write-back."""
    store = bank.records.store
    session = res.session_id
    key = f"records:pending:{session}"
    try:
        pending = json.loads(store.get_meta(key) or "{}")
        out, after, feedback = drafts(res.turns, bank.root, session, agent,
                                      res.cwd or bank.root, res.git_branch, pending,
                                      backward_first=agent == "codex")
        if feedback:
            bank.records.set_feedback(session, feedback)
        before = set(bank.records.store.record_ids(session=session, limit=100_000))
        recs = bank.records.record_drafts(out)
        store.set_meta({key: json.dumps(after)})
        _prune_daily(bank)
        return sum(1 for r in recs if r.id not in before)
    except Exception as e:  # noqa: BLE001 - records never stop a write-back
        warn(f"execution records: {type(e).__name__}: {e}"[:300])
        return 0


PRUNE_EVERY_S = 86400.0  # write-backs prune old failed records at most this often


def _prune_daily(bank: Any) -> None:
    """Prune old failed records (:meth:`RecordService.prune`) when the last prune is more
    than a day old (bank meta ``records:pruned_at``, Unix seconds)."""
    from hindsight.memory.clock import now_ts

    store, now = bank.records.store, now_ts()
    try:
        last = float(store.get_meta("records:pruned_at") or 0)
    except ValueError:
        last = 0.0
    if now - last >= PRUNE_EVERY_S:
        bank.records.prune()
        store.set_meta({"records:pruned_at": repr(now)})
