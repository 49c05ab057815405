"""Execution records of one bank as a service (``bank.records``): record runs (from
transcripts, ``hindsight run``, the Python API, the MCP tool), link them to code, and
answer the "previous attempts" questions.

:class:`RecordService` sees storage only through
:class:`hindsight.store.base.RecordStore`, the code index through
:class:`~hindsight.codeindex.service.CodeService` (test ids → symbols → callees) and
parses file versions with :mod:`hindsight.history.blobparse` (through
:mod:`hindsight.records.change`). Every string is redacted (:mod:`hindsight.redact`)
before it is stored; the run's output itself is never stored, only its
:class:`~hindsight.models.Observation`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hindsight.codeindex.service import CodeService
from hindsight.errors import ConfigError
from hindsight.history.service import HistoryService
from hindsight.models import OUTCOMES, ExecutionRecord, Observation
from hindsight.records import link
from hindsight.records.change import Change, changes
from hindsight.records.observe import junit_paths, observe
from hindsight.redact import clean, secret_values
from hindsight.store.base import RecordLink, RecordStore

COMMAND_CAP = 1000  # characters of a stored command
FEEDBACK_CAP = 300  # characters of stored feedback
OBSERVATION_CAP = 3000  # characters of a stored observation's JSON
ID_CAP = 160  # characters of one stored test id
# A record's stored values (row, links, files) stay under this many bytes: the caps above,
# 32 exercised links, 32 changed symbols, 16 files (tests/test_records_size.py)
RECORD_MAX_BYTES = 8192
BATCH = 50  # records written in one transaction (the bank's write lock is held that long)
Window = list[tuple[str, Any, Any, bool]]  # (path, before, after, known): change.Side


@dataclass
class Draft:
    """One run to record. ``output``: the command's output (parsed, never stored);
    ``exit_code`` None when unknown; ``interrupted``: stopped by a signal or the user;
    ``started_ts`` Unix seconds (default now); ``cwd`` absolute or root-relative;
    ``branch`` None: read from git; ``junit``: JUnit XML files to read; ``key``: the
    source's id of this run (a tool call id), so that reading a source twice stores it
    once; ``window``: the change as ``(path, before, after, known)`` per file, each side a
    text, a :class:`~hindsight.records.change.State` or None (absent) (None: the work
    tree since the session's last record, :mod:`hindsight.records.worktree`)."""

    command: str
    tool: str = "api"
    output: str = ""
    exit_code: int | None = None
    interrupted: bool = False
    started_ts: float | None = None
    duration_ms: int | None = None
    session: str = ""
    agent: str = ""
    cwd: str = ""
    branch: str | None = None
    junit: Sequence[str] = ()
    feedback: str = ""
    key: str = ""
    window: Window | None = field(default=None, repr=False)


def outcome(exit_code: int | None, interrupted: bool, obs: Observation) -> str:
    """``interrupted`` (stopped by a signal, or exit code 130 = 128 + SIGINT / 143 = 128 +
    SIGTERM as shells report it), ``failure`` (a non-zero exit code, or failing tests),
    ``success`` (exit code 0, or tests found and none failing when the code is unknown),
    else ``unknown``."""
    counts = dict(obs.counts)
    failing = bool(obs.failed) or counts.get("failed", 0) + counts.get("errors", 0) > 0
    if interrupted or exit_code in (130, 143):
        return "interrupted"
    if exit_code is None:
        return "failure" if failing else "success" if obs.tests else "unknown"
    return "failure" if exit_code != 0 or failing else "success"


def _redacted(obs: Observation, known: Sequence[str] = ()) -> Observation:
    """``obs`` redacted and cut to :data:`OBSERVATION_CAP` characters of JSON (test ids
    to :data:`ID_CAP` characters; passing ids go first, then failing ones, then errors).
    ``known``: secret strings found elsewhere in the record (its command), cut here too
    wherever they appear. NUL becomes U+FFFD (as in memories)."""
    def scrub(text: str) -> str:
        text = clean(text).replace("\x00", "\ufffd")
        for v in known:
            text = text.replace(v, "[REDACTED:known]")
        return text

    def cut(ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(x if len(x) <= ID_CAP else x[:ID_CAP - 1] + "…"
                     for x in (scrub(i) for i in ids))

    o = Observation(obs.parser, scrub(obs.summary), obs.counts[:12], cut(obs.failed),
                    cut(obs.passed), tuple(scrub(x) for x in obs.errors))
    while len(json.dumps(o.as_dict())) > OBSERVATION_CAP:
        if o.passed:
            o = Observation(o.parser, o.summary, o.counts, o.failed, o.passed[:-1], o.errors)
        elif len(o.failed) > 1:
            o = Observation(o.parser, o.summary, o.counts, o.failed[:-1], o.passed, o.errors)
        elif o.errors:
            o = Observation(o.parser, o.summary, o.counts, o.failed, o.passed, o.errors[:-1])
        else:
            break
    return o


class RecordService:
    """The execution records of the repository ``code.root``. ``settings``: the bank's
    (``recordsCalleeDepth``, ``recordsInjectLimit``, ``recordsKeepFailedDays``,
    ``recordsDecayDays``); ``cited(ids)``: which record ids an active memory cites (they
    are never pruned)."""

    def __init__(self, store: RecordStore, code: CodeService, history: HistoryService, *,
                 settings: Any = None, cited: Callable[[list[int]], set[int]] | None = None
                 ) -> None:
        self.store = store
        self.code = code
        self.history = history
        self.root = code.root
        self.depth = int(settings.records_callee_depth) if settings is not None else 2
        self.inject_limit = int(settings.records_inject_limit) if settings is not None else 3
        self.keep_failed_days = int(settings.records_keep_failed_days) \
            if settings is not None else 7
        self.decay_days = float(settings.records_decay_days) if settings is not None else 30.0
        self.cited = cited or (lambda ids: set())
        # client mode (issue 11): each record stored here is also sent to the team server
        self.forward: Callable[[dict[str, Any]], Any] | None = None
        self.forward_many: Callable[[list[dict[str, Any]]], Any] | None = None  # several
        # and ``attempts`` adds the server's (teammates'): (symbol, file, outcome, limit)
        self.team: Callable[[str, str | None, str | None, int], Any] | None = None

    # --- recording ----------------------------------------------------------------------
    def record(self, command: str, *, exit_code: int | None = None, output: str = "",
               tool: str = "api", session: str = "", agent: str = "", cwd: str = "",
               started_ts: float | None = None, duration_ms: int | None = None,
               interrupted: bool = False, junit: Sequence[str] = (), feedback: str = "",
               key: str = "") -> ExecutionRecord:
        """Record one run (the Python API; ``hindsight run`` and the MCP tool call it):
        ``command`` as run, its ``exit_code`` (None: unknown) and ``output`` (parsed into
        the observation, never stored), ``junit`` XML files; the change is what the work
        tree changed since the previous record of ``session``. Returns the stored record.
        Raises ConfigError (an empty command, a wrong type), StorageError."""
        if not isinstance(command, str) or not command.strip():
            raise ConfigError("command must be a non-empty string", option="command")
        if exit_code is not None and (isinstance(exit_code, bool) or
                                      not isinstance(exit_code, int)):
            raise ConfigError(f"exit_code {exit_code!r}: must be an integer or null",
                              option="exit_code", value=exit_code)
        return self.record_drafts([Draft(command, tool, output, exit_code, interrupted,
                                         started_ts, duration_ms, session, agent, cwd,
                                         None, tuple(junit), feedback, key)])[0]

    def record_drafts(self, drafts: list[Draft]) -> list[ExecutionRecord]:
        """Store ``drafts`` in order (one session's runs), each linked and counted against
        the earlier records (:mod:`hindsight.records.verify`); a draft whose source key was
        stored before comes back as stored then. Returns the records as stored now."""
        from hindsight.records import verify
        from hindsight.records.worktree import git_state, save, window

        if not drafts:
            return []
        branch, head = git_state(self.root)
        wins: list[Window] = []
        tree: dict[int, list[str]] = {}
        for i, d in enumerate(drafts):
            if d.window is None:
                win, tree[i] = window(self.store, self.root, d.session)
            wins.append(d.window if d.window is not None else win)
        chs = changes(wins)
        for i, now in tree.items():
            save(self.store, drafts[i].session, now, chs[i].after)
        ids: list[int] = []
        indexed = self.code.is_indexed()
        pairs = list(zip(drafts, chs, strict=True))
        self._outbox: list[dict[str, Any]] = []
        for start in range(0, len(pairs), BATCH):  # one transaction per BATCH records
            with self.store.batch():
                for d, ch in pairs[start:start + BATCH]:
                    rec, exercised, created = self._store(d, ch, branch, head, indexed)
                    if created:
                        verify.after_insert(self.store, rec, exercised)
                    ids.append(rec.id)
        if self.forward_many is not None and len(self._outbox) > 1:
            self.forward_many(self._outbox)  # after the transactions: one request
        elif self.forward is not None:
            for wire in self._outbox:
                self.forward(wire)  # after the transaction: never HTTP inside it
        last = {d.session: i for d, i in zip(drafts, ids, strict=True)}
        self.store.set_meta({f"records:last:{s}": str(i) for s, i in last.items()})
        got = self.store.get_records(ids)
        return [got[i] for i in ids]

    def _store(self, d: Draft, ch: Change, branch: str, head: str, indexed: bool
               ) -> tuple[ExecutionRecord, set[tuple[str, str]], bool]:
        import xxhash

        from hindsight.memory.clock import now_ts

        started = d.started_ts if d.started_ts is not None else now_ts()
        cwd_abs = d.cwd if os.path.isabs(d.cwd) else os.path.join(self.root, d.cwd)
        cwd_rel = os.path.relpath(cwd_abs, self.root).replace(os.sep, "/")
        cwd_rel = "" if cwd_rel == "." or cwd_rel.startswith("..") else cwd_rel
        files = [*d.junit, *junit_paths(d.command, cwd_abs)]
        obs = _redacted(observe(d.output, d.command, files), secret_values(d.command))
        result = outcome(d.exit_code, d.interrupted, obs)
        tests, callees, scope = self._link(d.command, obs, cwd_abs, cwd_rel, indexed)
        links: list[RecordLink] = [(c.path, c.local, "changed", c.change, c.old_hash,
                                    c.new_hash) for c in ch.deltas]
        links += [(p, loc, "test", "", "", "") for p, loc in tests]
        links += [(p, loc, "callee", "", "", "") for p, loc in callees]
        command = clean(" ".join(d.command.split()) if "\n" not in d.command else d.command)
        key = f"{d.session}\0{d.key}\0{d.tool}\0{d.command}\0{started:.3f}"
        row = {"fingerprint": xxhash.xxh3_64_hexdigest(key.encode("utf-8", "replace")),
               "tool": clean(d.tool)[:40], "command": command[:COMMAND_CAP],
               "started_at": datetime.fromtimestamp(started).astimezone().isoformat(
                   timespec="seconds"), "started_ts": started,
               "duration_ms": d.duration_ms, "exit_code": d.exit_code, "outcome": result,
               "observation": json.dumps(obs.as_dict()), "diff_summary": clean(ch.summary),
               "scope": scope, "root": self.root,
               "branch": d.branch if d.branch is not None else branch, "head": head,
               "cwd": cwd_rel, "session": d.session, "agent": d.agent,
               "feedback": clean(d.feedback.strip())[:FEEDBACK_CAP]}
        row = {k: v.replace("\x00", "\ufffd") if isinstance(v, str) else v  # as memories
               for k, v in row.items()}
        rid, created = self.store.insert_record(row, links, ch.files)
        if created and self.forward is not None:
            self._outbox.append({**{k: v for k, v in row.items() if k != "agent"},
                                 "links": [list(x) for x in links],
                                 "files": [list(f) for f in ch.files]})
        rec = self.store.get_records([rid])[rid]
        return rec, set(tests) | set(callees), created

    def _link(self, command: str, obs: Observation, cwd_abs: str, cwd_rel: str,
              indexed: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
        """(tests, their callees, scope) of a run; nothing for a run without tests."""
        if not obs.tests:
            return [], [], ""
        store = self.code.store if indexed else None
        refs = [link.test_refs(t, obs.parser) for t in (*obs.failed, *obs.passed)]
        suite, targets = link.command_scope(command, cwd_abs, self.root)
        for t in targets:
            path, _, node = t.partition("::")
            refs.append(link.test_refs(t, "pytest") if node else (path, "", ""))
        tests = link.resolve_tests(store, refs, cwd_rel)
        if store is not None:  # a test file or directory named: the tests in it
            files = [p for p, loc in tests if not loc]
            tests = [t for t in tests if t[1]]
            for f in files:
                tests += [(s.path, s.local) for s in store.file_symbols(f)
                          if s.kind in ("function", "method")][:link.MAX_TESTS]
        tests = list(dict.fromkeys(tests))[:link.MAX_TESTS]
        near = link.callees(store, tests, self.depth, link.MAX_EXERCISED - len(tests)) \
            if store is not None and self.depth else []
        return tests, near, "suite" if suite else "tests"

    def record_served(self, command: str, *, exit_code: int | None = None, output: str = "",
                      tool: str = "api", session: str = "", agent: str = "",
                      duration_ms: int | None = None, interrupted: bool = False
                      ) -> ExecutionRecord:
        """Record one run on a served bank (the MCP tool ``record_attempt`` at the team
        server's ``/mcp``): the server has no checkout, so the record has no change, no
        links and no work-tree state — only the command, its outcome and the observation
        parsed from ``output``. Raises ConfigError, StorageError."""
        import xxhash

        from hindsight.memory.clock import now_ts

        if not isinstance(command, str) or not command.strip():
            raise ConfigError("command must be a non-empty string", option="command")
        started = now_ts()
        obs = _redacted(observe(output, command, []))
        key = f"{session}\0\0{tool}\0{command}\0{started:.3f}"
        wire = {"fingerprint": xxhash.xxh3_64_hexdigest(key.encode("utf-8", "replace")),
                "tool": clean(tool)[:40], "command": command,
                "started_at": datetime.fromtimestamp(started).astimezone().isoformat(
                    timespec="seconds"), "started_ts": started, "duration_ms": duration_ms,
                "exit_code": exit_code, "outcome": outcome(exit_code, interrupted, obs),
                "observation": json.dumps(obs.as_dict()), "diff_summary": "", "scope": "",
                "root": "", "branch": "", "head": "", "cwd": "", "session": clean(session)}
        return self.accept(wire, agent)[0]

    def accept(self, wire: dict[str, Any], agent: str) -> tuple[ExecutionRecord, bool]:
        """Store a record another checkout made (the team server, ``POST /v1/records``):
        ``wire`` holds the stored fields but ``agent`` (given: the token's), ``links``
        ``[[path, local, role, change, old hash, new hash]]`` and ``files`` ``[[path,
        added, deleted]]``; it is counted against the earlier records as a local one is.
        The fingerprint makes a retry store nothing twice. Returns (record, created).
        Raises ConfigError (a bad outcome or role), StorageError."""
        from hindsight.records import verify

        row = {k: v for k, v in wire.items() if k not in ("links", "files")}
        if row.get("outcome") not in OUTCOMES:
            raise ConfigError(f"outcome {row.get('outcome')!r}: one of {', '.join(OUTCOMES)}",
                              option="outcome", choices=list(OUTCOMES))
        # every text another checkout sends is redacted here again (session, cwd, root,
        # branch, diff summary, link and file paths: the break-it trial of 2026-12-01)
        row = {k: clean(v) if isinstance(v, str) and k != "fingerprint" else v
               for k, v in row.items()}
        links = [(clean(str(p)), clean(str(loc)), str(role), str(c), str(o), str(n))
                 for p, loc, role, c, o, n in wire.get("links", [])]
        bad = {r for _p, _l, r, *_ in links} - {"changed", "test", "callee"}
        if bad:
            raise ConfigError(f"links: role {sorted(bad)[0]!r}: one of changed, test, callee",
                              option="links")
        files = [(clean(str(p)), int(a), int(d)) for p, a, d in wire.get("files", [])]
        try:
            obs = _redacted(Observation.from_dict(json.loads(str(row.get("observation")))))
        except (ValueError, TypeError, KeyError, AttributeError):
            raise ConfigError("observation: the JSON of an Observation",
                              option="observation") from None
        row.update(observation=json.dumps(obs.as_dict()), agent=clean(agent),
                   command=clean(str(row.get("command", "")))[:COMMAND_CAP],
                   feedback=clean(str(row.get("feedback", "")))[:FEEDBACK_CAP])
        with self.store.batch():
            rid, created = self.store.insert_record(row, links, files)
            rec = self.store.get_records([rid])[rid]
            if created:
                verify.after_insert(self.store, rec, {(p, loc) for p, loc, r, *_ in links
                                                      if r != "changed"})
        return rec, created

    def set_feedback(self, session: str, text: str) -> int | None:
        """Attach ``text`` (the user's next message) to the last record of ``session``
        when it has none yet; returns that record's id or None."""
        last = self.store.get_meta(f"records:last:{session}")
        if not last or not text.strip():
            return None
        rid = int(last)
        rec = self.store.get_records([rid]).get(rid)
        if rec is None or rec.feedback:
            return None
        self.store.update_records([(rid, {"feedback": clean(text.strip())[:FEEDBACK_CAP]})])
        return rid

    # --- queries (hindsight.records.query) ------------------------------------------------
    def get(self, rid: int) -> ExecutionRecord:
        """One record. Raises NotFound."""
        from hindsight.errors import NotFound

        rec = self.store.get_records([rid]).get(rid)
        if rec is None:
            raise NotFound(f"no execution record {rid}", value=rid)
        return rec

    def attempts(self, symbol: str, *, file: str | None = None, outcome: str | None = None,
                 limit: int | None = None, offset: int = 0) -> dict[str, Any]:
        """The attempts that changed or exercised ``symbol``; see
        :func:`hindsight.records.query.attempts`."""
        from hindsight.records.query import attempts

        if outcome is not None and outcome not in OUTCOMES:
            raise ConfigError(f"outcome {outcome!r}: one of {', '.join(OUTCOMES)}",
                              option="outcome", value=outcome, choices=list(OUTCOMES))
        return attempts(self, symbol, file, outcome, limit, offset)

    def failures(self, branch: str | None = None, limit: int = 20,
                 unresolved: bool = False) -> list[ExecutionRecord]:
        """Failed records newest first (of ``branch`` when given; ``unresolved``: only
        those no later passing run exercised); see :func:`hindsight.records.query.failures`."""
        from hindsight.records.query import failures

        return failures(self, branch, limit, unresolved)

    def for_files(self, files: list[str], *, exclude: set[int] | frozenset[int] = frozenset(),
                  limit: int | None = None) -> list[ExecutionRecord]:
        """Unresolved failed attempts on ``files`` (changed them, or exercised code in
        them), newest first; see :func:`hindsight.records.query.for_files`."""
        from hindsight.records.query import for_files

        return for_files(self, files, exclude, self.inject_limit if limit is None else limit)

    def for_prompt(self, prompt: str, *, exclude: set[int] | frozenset[int] = frozenset(),
                   limit: int | None = None) -> list[ExecutionRecord]:
        """Failed attempts ``prompt`` refers to; see :func:`hindsight.records.prompt.match`."""
        from hindsight.records.prompt import match

        return match(self, prompt, exclude, self.inject_limit if limit is None else limit)

    def mark_steps(self, step: Any) -> Any:
        """Set each step of a call trace's ``verified`` (see
        :func:`hindsight.records.query.mark_steps`); returns ``step``."""
        from hindsight.records.query import mark_steps

        mark_steps(self, step)
        return step

    def touch(self, ids: list[int]) -> None:
        """Count one retrieval of each record (shown to an agent or a person)."""
        from hindsight.memory.clock import now_ts

        self.store.touch_records(ids, now_ts())

    # --- lifecycle (hindsight.records.lifecycle) ------------------------------------------
    def activity(self, rec: ExecutionRecord, now: float | None = None) -> float:
        """The record's activity score; see :func:`hindsight.records.lifecycle.activity`."""
        from hindsight.records.lifecycle import activity

        return activity(rec.retrievals, rec.runs, rec.runs_passed, rec.started_ts,
                        now if now is not None else time.time(), self.decay_days)

    def prune(self, *, dry_run: bool = False) -> dict[str, Any]:
        """Delete failed records older than ``recordsKeepFailedDays`` that no memory cites;
        see :func:`hindsight.records.lifecycle.prune`."""
        from hindsight.records.lifecycle import prune

        return prune(self, dry_run=dry_run)

    def counts(self) -> dict[str, int]:
        """Records per outcome (every outcome, 0 included) and ``verified``."""
        return self.store.record_counts()

