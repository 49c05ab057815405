"""Agent sessions of one bank as a service, whatever the harness: the session briefing,
prompt recall behind its relevance gate, transcript write-back, seeding a cold bank and
importing earlier sessions.

:class:`SessionService` works on a :class:`BankView` (the bank's services and identity),
so hooks, the MCP server and the CLI reach agent memory through one place.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from hindsight.codeindex.service import CodeService
from hindsight.history.service import HistoryService
from hindsight.memory.service import MemoryService

HARNESS_READERS = ("claude-code", "codex")


class BankView(Protocol):
    """What session work needs of a bank."""

    bank_id: str
    root: str
    path: str
    resolution: Any
    code: CodeService
    history: HistoryService
    memory: MemoryService

    def prompt_embedder(self) -> Any:
        """The prompt gate's static embedder."""
        ...


class SessionService:
    """Session memory of ``bank``."""

    def __init__(self, bank: BankView) -> None:
        self.bank = bank

    def seed_state(self) -> dict[str, Any]:
        """The stored seeding state (``{}`` when never seeded); see
        :mod:`hindsight.sessions.seed`."""
        from hindsight.sessions.seed import seed_state

        return seed_state(self.bank)

    def briefing(self, *, max_chars: int = 8000, agent: str = "") -> tuple[str, list[int]]:
        """``(text, memory ids shown)`` for session start (``("", [])`` when nothing is
        worth saying); see :func:`hindsight.sessions.briefing.session_briefing`."""
        from hindsight.sessions.briefing import session_briefing

        return session_briefing(self.bank.memory, self.bank.root, max_chars=max_chars,
                                agent=agent)

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
                               cache=cache_path(self.bank.path))

    def _gate_embedder(self) -> Any:
        if not hasattr(self, "_gate"):
            self._gate = self.bank.prompt_embedder()
        return self._gate

    def refresh_gate(self) -> int | None:
        """Embed every memory the prompt gate's vector cache lacks (write-back and seeding
        call this, so that hooks find it complete); returns the memories cached, or None
        when the static embedder is unavailable (the gate then works lexically)."""
        from hindsight.errors import ProviderError
        from hindsight.sessions.gate import cache_path, refresh_cache

        try:
            return refresh_cache(self.bank.memory.store, self._gate_embedder(),
                                 cache_path(self.bank.path))
        except ProviderError:
            return None

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
                   final: bool = False, edits: bool = True) -> dict[str, Any]:
        """Retain what is new in a transcript of ``harness`` (``claude-code`` or
        ``codex``); see :func:`hindsight.sessions.writeback.retain_transcript`."""
        from hindsight.sessions.codex import read_codex
        from hindsight.sessions.transcripts import read_claude
        from hindsight.sessions.writeback import retain_transcript

        reader = read_codex if harness == "codex" else read_claude
        out = retain_transcript(self.bank, transcript, reader, harness, session=session,
                                final=final, edits=edits)
        self.refresh_gate()  # the hooks that follow find the new memories' vectors
        return out

    def seed(self, settings: Any) -> dict[str, Any] | None:
        """Seed or refresh the bank now (blocking); ``None`` when another process is
        seeding it. See :func:`hindsight.sessions.seed.seed`. Then the prompt gate's
        vector cache is refreshed (:meth:`refresh_gate`)."""
        from hindsight.sessions.seed import seed

        out = seed(self.bank, settings)
        if out is not None:
            self.refresh_gate()
        return out

    def import_claude(self, project: str | None = None) -> dict[str, Any]:
        """Retain earlier Claude Code transcripts of this repository (idempotent)."""
        from hindsight.sessions.seed import import_claude

        return import_claude(self.bank, project)

    def import_codex(self) -> dict[str, Any]:
        """Retain earlier Codex rollouts of this repository (idempotent)."""
        from hindsight.sessions.seed import import_codex

        return import_codex(self.bank)
