"""Agent sessions of one bank as a service, whatever the harness: the session briefing,
prompt recall behind its relevance gate, transcript write-back, seeding a cold bank and
importing earlier sessions.

:class:`SessionService` works on a :class:`BankView` (the bank's services and identity),
so hooks, the MCP server and the CLI reach agent memory through one place.
"""

from __future__ import annotations

import json
import os
from typing import Any, Protocol

from hindsight.codeindex.service import CodeService
from hindsight.history.service import HistoryService
from hindsight.memory.service import MemoryService
from hindsight.records.service import RecordService

HARNESS_READERS = ("claude-code", "codex", "cursor", "copilot", "gemini", "antigravity",
                   "windsurf", "cline", "opencode", "kilo")
TRANSCRIPT_WAIT_S = 5.0  # Cursor writes its transcript after the hook (entire waits ≤ 5 s)


class BankView(Protocol):
    """What session work needs of a bank."""

    bank_id: str
    root: str
    path: str
    resolution: Any
    code: CodeService
    history: HistoryService
    memory: MemoryService
    records: RecordService

    def prompt_embedder(self) -> Any:
        """The prompt gate's static embedder."""
        ...


class SessionService:
    """Session memory of ``bank``."""

    def __init__(self, bank: BankView) -> None:
        self.bank = bank

    def scrub_memory(self, mid: int, fragments: list[str]) -> dict[str, int]:
        """After ``forget --purge`` of memory ``mid`` (``MemoryService.on_purge``): the gate's
        caches beside the bank are dropped and the purged ``fragments`` leave the hooks'
        diagnostics log (:mod:`hindsight.sessions.purge`). ``{"caches", "log_lines"}``;
        a log that cannot be rewritten counts 0 (the purge itself stands)."""
        from hindsight.config.paths import Home
        from hindsight.config.settings import env_value
        from hindsight.errors import HindsightError
        from hindsight.sessions.purge import drop_gate_caches, scrub_log

        caches = drop_gate_caches(self.bank.path) if getattr(self.bank, "path", "") else 0
        try:
            log = env_value("diagFile") or Home.current().log_file("hooks.jsonl")
            lines = scrub_log(str(log), fragments)
        except (OSError, ValueError, HindsightError):
            lines = 0
        return {"caches": caches, "log_lines": lines}

    def seed_state(self) -> dict[str, Any]:
        """The stored seeding state (``{}`` when never seeded); see
        :mod:`hindsight.sessions.seed`."""
        from hindsight.sessions.seed import seed_state

        return seed_state(self.bank)

    def briefing(self, *, max_chars: int = 8000, agent: str = "") -> tuple[str, list[int]]:
        """``(text, memory ids shown)`` for session start (``("", [])`` when nothing is
        worth saying); see :func:`hindsight.sessions.briefing.session_briefing`."""
        from hindsight.errors import HindsightError
        from hindsight.sessions.briefing import session_briefing

        pages, pages_map = getattr(self.bank, "pages", None), ""  # the pages' map, if any
        try:
            pages_map = pages.brief_map(max_chars // 4) if pages is not None else ""
        except HindsightError:  # the briefing goes on without the map
            pages_map = ""
        return session_briefing(self.bank.memory, self.bank.root, max_chars=max_chars,
                                agent=agent, pages_map=pages_map,
                                attempts=self.branch_failures())

    def branch_failures(self, limit: int = 5) -> list[str]:
        """One line per unresolved failed attempt on the current branch (newest first, at
        most ``limit``), for the briefing; [] on a detached HEAD or outside git."""
        from hindsight.records.prompt import lines
        from hindsight.records.worktree import git_state

        branch = git_state(self.bank.root)[0]
        if not branch:
            return []
        return lines(self.bank.records.failures(branch, limit, unresolved=True), 400)

    def prompt_attempts(self, prompt: str, *, session: str = "", limit: int | None = None,
                        max_chars: int = 4000) -> tuple[str, list[int]]:
        """``(text to inject, record ids)``: the failed attempts ``prompt`` refers to
        (:func:`hindsight.records.prompt.match`) that were not shown in ``session`` yet,
        fenced; ``("", [])`` when there are none."""
        recs = self.bank.records.for_prompt(prompt, exclude=self.injected_attempts(session),
                                            limit=limit)
        return self._attempts_text(recs, "Failed attempts recorded earlier on the code this "
                                   "prompt is about: what was tried, why it failed, when.",
                                   max_chars)

    def edit_attempts(self, files: list[str], *, session: str = "", limit: int | None = None,
                      max_chars: int = 4000) -> tuple[str, list[int]]:
        """``(text to inject, record ids)``: unresolved failed attempts on ``files`` (the
        agent just edited them) not shown in ``session`` yet; see :meth:`prompt_attempts`."""
        recs = self.bank.records.for_files(files, exclude=self.injected_attempts(session),
                                           limit=limit)
        return self._attempts_text(recs, "Failed attempts recorded earlier on the file you "
                                   "just edited: what was tried, why it failed, when.",
                                   max_chars)

    def _attempts_text(self, recs: list[Any], head: str, max_chars: int
                       ) -> tuple[str, list[int]]:
        import contextlib

        from hindsight.errors import StorageError
        from hindsight.records.prompt import lines
        from hindsight.sessions.briefing import fence_safe, fenced

        if not recs:
            return "", []
        shown, used, ids = [], len(head) + 400, []
        for rec, line in zip(recs, lines(recs), strict=True):
            if used + len(line) > max_chars:
                break
            shown.append(fence_safe(line))
            used += len(line) + 1
            ids.append(rec.id)
        if not shown:
            return "", []
        with contextlib.suppress(StorageError):  # bookkeeping: skipped while busy
            self.bank.records.touch(ids)
        return fenced("attempts", head + "\n" + "\n".join(shown)), ids

    def injected_attempts(self, session: str) -> set[int]:
        """Record ids already injected into ``session``."""
        if not session:
            return set()
        try:
            return set(json.loads(self.bank.memory.get_meta(
                f"injected-attempts:{session}") or "[]"))
        except ValueError:
            return set()

    def set_injected_attempts(self, session: str, ids: set[int]) -> None:
        """Record the attempt ids injected into ``session`` (replaces the stored set)."""
        self.bank.memory.set_meta({f"injected-attempts:{session}": json.dumps(sorted(ids))})

    @staticmethod
    def seeding_note(max_chars: int) -> str:
        """The briefing shown while a cold bank is being seeded."""
        from hindsight.sessions.briefing import TOOLS_GUIDE, _cap, fenced

        return _cap(fenced("session-briefing", "This repository's bank is being seeded in "
                           "the background (code index, git history, earlier sessions); "
                           f"nothing is remembered yet.\n{TOOLS_GUIDE}"), max_chars)

    def prompt_recall(self, prompt: str, *, threshold: float, limit: int, max_chars: int,
                      exclude: set[int], agent: str = ""
                      ) -> tuple[str, list[int], list[float]]:
        """``(text to inject, ids, scores)`` for a prompt, only what passes the prompt gate
        (:mod:`hindsight.sessions.gate`, ``threshold``); see
        :func:`hindsight.sessions.briefing.prompt_memories`."""
        from hindsight.sessions.briefing import prompt_memories
        from hindsight.sessions.gate import cache_path

        return prompt_memories(self.bank.memory, prompt, threshold=threshold, limit=limit,
                               max_chars=max_chars, exclude=exclude, agent=agent,
                               embedder=self._gate_embedder(),
                               cache=cache_path(self.bank.path), warm=self._warm())

    def prompt_files(self, prompt: str, n: int) -> tuple[str, list[str]]:
        """``(text to inject, paths)`` naming the ``n`` files task context ranks best for
        ``prompt``, only when the ranking is confident and its indexes are current (a hook
        never builds them: ``hindsight context``, the MCP tool and write-back do); ``("",
        [])`` otherwise. Raises StorageError."""
        from hindsight.errors import NotIndexed
        from hindsight.sessions.briefing import fence_safe, fenced

        ctx = getattr(self.bank, "context", None)
        if ctx is None or n < 1:
            return "", []
        from hindsight.context.fusion import WEIGHTS

        try:  # memories are the relevance gate's to inject: not searched twice
            res = ctx.rank(prompt, n, build=False, symbols=False,
                           weights=WEIGHTS.but(memories=0.0))
        except NotIndexed:
            return "", []
        if not res.confident or not res.files:
            return "", []
        lines = [fence_safe(f"- {f.target}: " + "; ".join(f.reasons[:2])) for f in res.files]
        return fenced("task-context", "Files this task most likely involves, best first "
                      "(hindsight context):\n" + "\n".join(lines)), [f.target for f in res.files]

    def _gate_embedder(self) -> Any:
        if not hasattr(self, "_gate"):
            self._gate = self.bank.prompt_embedder()
        return self._gate

    def _warm(self) -> Any:
        if not hasattr(self, "_warm_client"):
            make = getattr(self.bank, "warm_embedder", None)
            self._warm_client = make() if make is not None else None
        return self._warm_client

    def refresh_gate(self) -> int | None:
        """Embed every memory the prompt gate's vector cache lacks (write-back and seeding
        call this, so that hooks find it complete); returns the memories cached, or None
        when the static embedder is unavailable (the gate then works lexically)."""
        from hindsight.errors import ConfigError, ProviderError
        from hindsight.sessions.gate import cache_path, refresh_cache, refresh_dense

        try:
            n = refresh_cache(self.bank.memory.store, self._gate_embedder(),
                              cache_path(self.bank.path))
        except ProviderError:
            return None
        try:
            own = self.bank.memory.embedder
        except (ConfigError, ProviderError):
            own = None
        refresh_dense(self.bank.memory.store, self._warm(), cache_path(self.bank.path), own)
        return n

    def refresh_context(self) -> bool:
        """Bring task context's indexes up to date (write-back and seeding call this, so
        that a prompt hook finds them current); False when the bank has no code index."""
        from hindsight.errors import NotIndexed

        ctx = getattr(self.bank, "context", None)
        if ctx is None:
            return False
        try:
            ctx.corpus()
        except NotIndexed:
            return False
        return True

    def injected(self, session: str) -> set[int]:
        """Memory ids already injected into ``session`` (briefing and prompts)."""
        try:
            return set(json.loads(self.bank.memory.get_meta(f"injected:{session}") or "[]"))
        except ValueError:
            return set()

    def set_injected(self, session: str, ids: set[int]) -> None:
        """Record the ids injected into ``session`` (replaces the stored set)."""
        self.bank.memory.set_meta({f"injected:{session}": json.dumps(sorted(ids))})

    def write_back(self, transcript: str, harness: str, *, session: str = "",
                   final: bool = False, edits: bool = True, cwd: str = "",
                   wait_s: float = 0.0, messages: list[Any] | None = None
                   ) -> dict[str, Any]:
        """Retain what is new in a transcript of ``harness`` (one of
        :data:`HARNESS_READERS`; anything else is read as Claude Code's); see
        :func:`hindsight.sessions.writeback.retain_transcript`. An empty ``transcript`` is
        looked up from ``session`` and ``cwd`` (:meth:`transcript_for`); ``wait_s``: seconds
        to wait for a transcript that does not exist yet (agents that write it after the
        hook). ``messages`` (opencode and Kilo, whose plugin sends them): appended first to
        the transcript hindsight keeps for the session
        (:func:`hindsight.sessions.opencode.append_messages`). Raises FileNotFoundError
        when there is none, StorageError, OSError."""
        from hindsight.sessions.writeback import retain_transcript

        path = transcript or self.transcript_for(harness, session, cwd or self.bank.root)
        if messages is not None and path:
            from hindsight.config.paths import Home
            from hindsight.sessions.opencode import append_messages

            Home.ensure(os.path.dirname(path), private=True)
            append_messages(path, messages)
        if not path:
            raise FileNotFoundError(2, "no transcript known",
                                    f"<{harness} session {session or '(none)'}>")
        _wait_for(path, wait_s)
        out = retain_transcript(self.bank, path, _reader(harness, path, cwd), harness,
                                session=session, final=final, edits=edits)
        self.refresh_gate()  # the hooks that follow find the new memories' vectors
        self.refresh_context()
        return out

    @staticmethod
    def transcript_for(harness: str, session: str, cwd: str) -> str:
        """Where ``harness`` keeps the transcript of ``session`` run in ``cwd`` (``""`` when
        that agent has no known place): Cursor's agent-transcripts of the workspace,
        Copilot CLI's session-state, Cline's task folder, the transcript hindsight keeps
        for opencode and Kilo. The file may not exist (yet)."""
        from hindsight.config.agents import cline_data_dirs, copilot_dir, cursor_dir

        if not session:
            return ""
        if harness == "cline":
            from hindsight.sessions.cline import task_history

            return task_history(session, cline_data_dirs())
        if harness in ("opencode", "kilo"):
            from hindsight.config.paths import Home

            return Home.current().transcript_file(harness, session)
        if harness == "cursor":
            from hindsight.sessions.cursor import transcript_path

            return transcript_path(cwd, session, cursor_dir())
        if harness == "copilot":
            from hindsight.sessions.copilot import transcript_path as copilot_path

            return copilot_path(session, copilot_dir())
        return ""

    def record_edits(self, files: list[str], session: str, agent: str) -> dict[str, Any]:
        """Record ``files`` (absolute or root-relative) as edited by ``agent`` in
        ``session`` (the change from HEAD to now, once per content; the code index is not
        refreshed: hooks call this). Returns ``{"edits": n, "warnings": [...]}``."""
        from hindsight.sessions.writeback import record_file_edits

        warnings: list[str] = []
        n = record_file_edits(self.bank, files, session, agent, warnings.append,
                              refresh_index=False)
        return {"edits": n, "warnings": warnings[:20]}

    def seed(self, settings: Any) -> dict[str, Any] | None:
        """Seed or refresh the bank now (blocking); ``None`` when another process is
        seeding it. See :func:`hindsight.sessions.seed.seed`. Then the prompt gate's
        vector cache is refreshed (:meth:`refresh_gate`)."""
        from hindsight.sessions.seed import seed

        out = seed(self.bank, settings)
        if out is not None:
            self.refresh_gate()
            self.refresh_context()
        return out

    def import_claude(self, project: str | None = None) -> dict[str, Any]:
        """Retain earlier Claude Code transcripts of this repository (idempotent)."""
        from hindsight.sessions.seed import import_claude

        return import_claude(self.bank, project)

    def import_codex(self) -> dict[str, Any]:
        """Retain earlier Codex rollouts of this repository (idempotent)."""
        from hindsight.sessions.seed import import_codex

        return import_codex(self.bank)

    def import_cursor(self) -> dict[str, Any]:
        """Retain earlier Cursor agent transcripts of this repository (idempotent)."""
        from hindsight.sessions.imports import import_cursor

        return import_cursor(self.bank)

    def import_gemini(self) -> dict[str, Any]:
        """Retain earlier Gemini CLI chat recordings of this repository (idempotent)."""
        from hindsight.sessions.imports import import_gemini

        return import_gemini(self.bank)

    def import_antigravity(self) -> dict[str, Any]:
        """Retain earlier Antigravity CLI conversations about this repository
        (idempotent)."""
        from hindsight.sessions.imports import import_antigravity

        return import_antigravity(self.bank)

    def import_windsurf(self) -> dict[str, Any]:
        """Retain earlier Windsurf transcripts about this repository (idempotent)."""
        from hindsight.sessions.imports import import_windsurf

        return import_windsurf(self.bank)

    def import_opencode(self) -> dict[str, Any]:
        """Retain earlier opencode sessions of this repository (idempotent)."""
        from hindsight.sessions.imports import import_opencode

        return import_opencode(self.bank)

    def import_cline(self) -> dict[str, Any]:
        """Retain earlier Cline tasks run in this repository (idempotent)."""
        from hindsight.sessions.imports import import_cline

        return import_cline(self.bank)

    def import_copilot(self) -> dict[str, Any]:
        """Retain earlier GitHub Copilot CLI sessions of this repository (idempotent)."""
        from hindsight.sessions.imports import import_copilot

        return import_copilot(self.bank)


def _reader(harness: str, path: str = "", cwd: str = "") -> Any:
    """The transcript reader of ``harness`` (Claude Code's for any other name); Cursor's
    is given the workspace root ``cwd`` when ``path`` lies in that workspace's folder."""
    if harness == "codex":
        from hindsight.sessions.codex import read_codex

        return read_codex
    if harness == "cursor":
        from functools import partial

        from hindsight.sessions.cursor import read_cursor, workspace_of

        return partial(read_cursor, cwd=workspace_of(path, [cwd] if cwd else []))
    if harness == "gemini":
        from functools import partial

        from hindsight.sessions.gemini import read_gemini

        return partial(read_gemini, cwd=cwd)
    if harness == "antigravity":
        from functools import partial

        from hindsight.sessions.antigravity import read_antigravity

        return partial(read_antigravity, cwd=cwd)
    if harness in ("opencode", "kilo"):
        from functools import partial

        from hindsight.sessions.opencode import read_opencode

        return partial(read_opencode, cwd=cwd)
    if harness == "cline":
        from functools import partial

        from hindsight.sessions.cline import read_cline

        return partial(read_cline, cwd=cwd)
    if harness == "windsurf":
        from functools import partial

        from hindsight.sessions.windsurf import read_windsurf

        return partial(read_windsurf, cwd=cwd)
    if harness == "copilot":
        from hindsight.sessions.copilot import read_copilot

        return read_copilot
    from hindsight.sessions.transcripts import read_claude

    return read_claude


def _wait_for(path: str, wait_s: float) -> None:
    """Return once ``path`` exists and is not empty, or ``wait_s`` seconds have passed."""
    import os
    import time

    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            if os.path.getsize(path) > 0:
                return
        except OSError:
            pass
        time.sleep(0.1)
