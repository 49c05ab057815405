"""Task context as a service: for a task in words, the files and symbols most likely to
need a change, each with its reasons (issue 12, item 7).

:class:`ContextService` sees the code index and the history through their services and
stores, memories through a recall callback and failed attempts through an optional
:class:`AttemptsProvider` (none until execution records plug one in). The channels are in
:mod:`hindsight.context.channels` and :mod:`hindsight.context.named`, their fusion in
:mod:`hindsight.context.fusion`, the indexes they read in :mod:`hindsight.context.corpus`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from hindsight.codeindex.service import CodeService
from hindsight.context import channels as ch
from hindsight.context import fusion
from hindsight.context.corpus import Corpus, load, message_text
from hindsight.context.fusion import WEIGHTS, Weights
from hindsight.errors import ConfigError
from hindsight.history.service import HistoryService
from hindsight.memory import segment

MAX_TASK = 20_000  # characters of a task that are read
MAX_K = 100
SYMBOLS_PER_FILE = 3


@dataclass(frozen=True)
class Attempt:
    """A failed attempt at a change, as an :class:`AttemptsProvider` reports it: the file
    (and symbol local name, or ``""``) it changed, what ran and why it failed, when (ISO
    8601 with offset)."""

    path: str
    symbol: str
    summary: str
    when: str = ""


class AttemptsProvider(Protocol):
    """Failed attempts relevant to a task: ``(task text, at most limit)`` → attempts, best
    first (the bank gives the execution records' unresolved failures the text refers to,
    ``app.Bank._failed_attempts``; None: the ``attempts`` channel is empty)."""

    def __call__(self, text: str, limit: int) -> list[Attempt]: ...


Recall = Callable[[str, int], list[tuple[int, str, list[str], float]]]
"""``(text, k)`` → memories ``(id, text, anchored paths, score)`` best first."""


@dataclass
class Evidence:
    """What the channels found for one task, by file id of ``corpus``: ``scores[channel]``
    (``code``, ``commits``, ``named``, ``graph``, ``memories``, ``attempts``, ``literal``,
    ``recent``, ``current``), the task's specificity ``spec`` and the details the reasons
    are written from."""

    corpus: Corpus
    terms: list[str]
    scores: dict[str, dict[int, float]]
    words: dict[str, str] = field(default_factory=dict)  # term -> the task's word for it
    similar: list[tuple[int, float]] = field(default_factory=list)
    named_files: dict[int, list[str]] = field(default_factory=dict)
    named_symbols: list[tuple[str, str, str]] = field(default_factory=list)
    graph: dict[int, list[str]] = field(default_factory=dict)
    memories: dict[int, list[str]] = field(default_factory=dict)
    attempts: dict[int, list[str]] = field(default_factory=dict)
    literal: dict[int, list[str]] = field(default_factory=dict)
    spec: float = 0.0  # how much the task says (channels.specificity)


@dataclass
class Ranked:
    """One ranked file or symbol: ``target`` is a path or a qualified name; ``score`` the
    fused score; ``channels`` each channel's normalised part in it; ``reasons`` in
    words; ``line`` the symbol's first line (0 for a file)."""

    target: str
    kind: str
    score: float
    reasons: list[str]
    channels: dict[str, float]
    line: int = 0

    def as_dict(self) -> dict[str, Any]:
        key = "path" if self.kind == "file" else "qname"
        out: dict[str, Any] = {key: self.target, "score": round(self.score, 4),
                               "reasons": self.reasons,
                               "channels": {k: round(v, 4) for k, v in self.channels.items()}}
        if self.kind != "file":
            out.update(kind=self.kind, line=self.line)
        return out


@dataclass
class ContextResult:
    """``files`` and ``symbols`` best first; ``confident`` when the best file leads the
    next clearly (:meth:`ContextService.confident`); ``notes`` what was missing (no
    history, no memories); ``ms`` the time taken."""

    task: str
    files: list[Ranked]
    symbols: list[Ranked]
    confident: bool
    notes: list[str]
    ms: float

    def as_dict(self) -> dict[str, Any]:
        return {"task": self.task, "confident": self.confident,
                "files": [f.as_dict() for f in self.files],
                "symbols": [s.as_dict() for s in self.symbols],
                "notes": self.notes, "ms": round(self.ms, 1)}


class ContextService:
    """Task context of one bank. ``cache``: the file its indexes are kept in (None: kept
    in memory only); ``recall``: memories for a text (None: no memory channel);
    ``attempts``: failed attempts for a text (None: none yet)."""

    def __init__(self, code: CodeService, history: HistoryService, *,
                 recall: Recall | None = None, cache: str | None = None,
                 attempts: AttemptsProvider | None = None) -> None:
        self.code = code
        self.history = history
        self._recall = recall
        self._cache = cache
        self.attempts = attempts
        self._corpus: Corpus | None = None

    def corpus(self, build: bool = True) -> Corpus | None:
        """The indexes, brought up to date (``build`` false: None when they are not
        current). Raises NotIndexed, StorageError."""
        store = self.code.require()
        hs = self.history.store if self.history.store.commit_count() else None
        got = load(self._cache, store, hs, self.code.root, build=build,
                   known=self._corpus)
        if got is not None:
            self._corpus = got
        return got

    def evidence(self, task: str, w: Weights = WEIGHTS, corpus: Corpus | None = None
                 ) -> Evidence:
        """Every channel's scores for ``task`` (see :class:`Evidence`)."""
        from hindsight.context.named import named, neighbours

        c = corpus if corpus is not None else self.corpus()
        assert c is not None
        text = task_text(task)
        terms = segment.query_terms(text, words=False, keep=segment.CODE_TERMS)
        ev = Evidence(c, terms, {}, words=task_words(text))
        ev.scores["code"] = ch.code(c, terms, ch.FieldWeights())
        ev.similar = ch.continuing(c, ch.similar_commits(c, terms, w.similar),
                                   w.wip_boost, w.wip_half_life)
        ev.scores["commits"] = ch.commit_votes(c, ev.similar, w.size_power,
                                                 w.vote_half_life, w.alive_power,
                                                 w.hub_power, w.follow)
        ev.scores["recent"] = ch.recent(c, w.half_life)
        if w.current:
            ev.scores["current"] = ch.recent(c, w.current_half_life)
            ev.spec = ch.specificity(c, terms)
        store = self.code.require()
        files, ev.named_symbols = named(store, text)
        ev.named_files = _ids(c, files)
        ev.scores["named"] = {f: float(len(ws)) for f, ws in ev.named_files.items()}
        ev.graph = _ids(c, neighbours(store, ev.named_symbols))
        ev.scores["graph"] = {f: float(len(r)) for f, r in ev.graph.items()}
        ev.scores["memories"] = self._memories(c, text, ev, w)
        ev.scores["attempts"] = self._attempts(c, text, ev)
        self._literal(c, text, ev, w)
        return ev

    def _literal(self, c: Corpus, text: str, ev: Evidence, w: Weights) -> None:
        """The ``literal`` channel over the best ``w.literal_files`` files of the others
        (:mod:`hindsight.context.literal`)."""
        from hindsight.context import literal

        lits = literal.literals(text)
        if not lits or not w.literal or w.literal_files < 1:
            return
        prelim = fusion.first_stage(ev.scores, w)
        todo = [c.files[f] for f, _s in fusion.best(prelim, w.literal_files, c.files)]
        found = _ids(c, literal.find(self.code.root, todo, lits))
        ev.literal = found
        ev.scores["literal"] = literal.scores(found)

    def _memories(self, c: Corpus, text: str, ev: Evidence, w: Weights) -> dict[int, float]:
        out: dict[int, float] = {}
        if self._recall is None or not w.memories:
            return out
        for rank, (mid, mtext, paths, _s) in enumerate(self._recall(text, 10)):
            for p in dict.fromkeys(paths):
                f = c.file_id(p)
                if f is None:
                    continue
                out[f] = out.get(f, 0.0) + 1.0 / (1 + rank)
                ev.memories.setdefault(f, []).append(
                    f"memory #{mid}: {_short(mtext)}")
        return out

    def _attempts(self, c: Corpus, text: str, ev: Evidence) -> dict[int, float]:
        out: dict[int, float] = {}
        if self.attempts is None:
            return out
        for rank, a in enumerate(self.attempts(text, 10)):
            f = c.file_id(a.path)
            if f is None:
                continue
            out[f] = out.get(f, 0.0) + 1.0 / (1 + rank)
            where = f" `{a.symbol}`" if a.symbol else ""
            when = f" ({a.when})" if a.when else ""
            ev.attempts.setdefault(f, []).append(
                f"failed attempt{where}{when}: {_short(a.summary)}")
        return out

    def scores(self, ev: Evidence, w: Weights = WEIGHTS
               ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
        """``(final, first stage, co-change)`` scores by file id (see
        :mod:`hindsight.context.fusion`)."""
        first = fusion.first_stage(ev.scores, w)
        seeds = dict(fusion.best(first, w.seeds, ev.corpus.files))
        cc = ch.cochange(ev.corpus, seeds, top=w.seeds)
        return fusion.final(first, ev.scores["recent"], cc, w, ev.scores.get("current"),
                            ev.spec), first, cc

    def rank(self, task: str, k: int = 10, *, weights: Weights = WEIGHTS,
             build: bool = True, symbols: bool = True) -> ContextResult:
        """The ``k`` files and up to ``k`` symbols most likely to need a change for
        ``task``, best first, with reasons. ``build`` false: an empty answer (with a
        note) when the indexes are not current instead of rebuilding them; ``symbols``
        false: files only. Raises ConfigError (an empty task, ``k`` outside 1-100),
        NotIndexed, StorageError."""
        t0 = time.perf_counter()
        if not isinstance(task, str) or not task.strip():
            raise ConfigError("task: empty; say what is to be done")
        if not 1 <= k <= MAX_K:
            raise ConfigError(f"k {k}: from 1 to {MAX_K}", option="k", value=k)
        c = self.corpus(build)
        if c is None:
            return ContextResult(task, [], [], False, ["task context indexes are not "
                                 "current; hindsight context builds them"], 0.0)
        ev = self.evidence(task, weights, c)
        final, first, cc = self.scores(ev, weights)
        top = fusion.best(final, k, c.files)
        files = [self._file(ev, f, s, first, cc, weights) for f, s in top]
        syms = self._symbols(ev, top, k) if symbols else []
        notes = self._notes(ev)
        return ContextResult(task, files, syms, confident(top), notes,
                             (time.perf_counter() - t0) * 1000)

    def _notes(self, ev: Evidence) -> list[str]:
        notes = []
        if not ev.corpus.commits:
            notes.append("no git history in the bank: past commits and co-change were not "
                         "used (hindsight ingest)")
        if not ev.terms and not ev.named_files:
            notes.append("the task has no searchable word")
        if self.attempts is None:
            notes.append("failed attempts are not recorded in this bank yet")
        return notes

    def _file(self, ev: Evidence, f: int, score: float, first: dict[int, float],
              cc: dict[int, float], w: Weights) -> Ranked:
        from hindsight.context.reasons import file_reasons

        parts = {}
        for name in (*fusion.CHANNELS, "recent"):
            top = max(ev.scores.get(name, {}).values(), default=0.0)
            s = ev.scores.get(name, {}).get(f, 0.0)
            if top > 0 and s > 0:
                parts[name] = float(getattr(w, name)) * s / top
        top_cc = max(cc.values(), default=0.0)
        if top_cc > 0 and cc.get(f, 0.0) > 0:
            parts["cochange"] = w.cochange * cc[f] / top_cc
        now = fusion.normalised(ev.scores.get("current", {})).get(f, 0.0)
        if now > 0 and fusion.gate(w, ev.spec) > 0:
            parts["current"] = fusion.gate(w, ev.spec) * now
        return Ranked(ev.corpus.files[f], "file", score, file_reasons(ev, f, first, w),
                      parts)

    def _symbols(self, ev: Evidence, top: list[tuple[int, float]], k: int) -> list[Ranked]:
        from hindsight.context.reasons import symbols_of

        return symbols_of(self.code.require(), self.history.store, ev, top, k,
                          SYMBOLS_PER_FILE)


def confident(top: list[tuple[int, float]], lead: float = 1.5) -> bool:
    """Whether the best file leads clearly: its score at least ``lead`` times the next's
    (or it is the only one)."""
    if not top:
        return False
    return len(top) == 1 or top[0][1] >= lead * top[1][1]


def task_text(task: str) -> str:
    """The part of a task that is evidence: its first :data:`MAX_TASK` characters without
    trailer lines (``Signed-off-by: Ann <ann@example.com>``, ``Co-authored-by:``,
    ``Change-Id:``), as commit messages are indexed
    (:func:`hindsight.context.corpus.message_text`): a person's name and address say
    nothing of the code, yet their words match files (an example's e-mail address)."""
    return message_text(task[:MAX_TASK])


def task_words(text: str) -> dict[str, str]:
    """Each search term of ``text`` → the first word of ``text`` that gives it (reasons
    show the task's words, not their stems)."""
    import re

    out: dict[str, str] = {}
    for w in re.findall(r"\w+", text[:MAX_TASK]):
        for t in segment.terms(w, words=False):
            out.setdefault(t, w)
    return out


def _ids(c: Corpus, by_path: dict[str, list[str]]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for p, v in by_path.items():
        f = c.file_id(p)
        if f is not None:
            out[f] = v
    return out


def _short(text: str, n: int = 100) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[:n - 1] + "…"


def commit_date(ts: int) -> str:
    """A commit time (Unix seconds) as a UTC date, ``2024-05-01``."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")
