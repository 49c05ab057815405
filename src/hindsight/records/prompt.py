"""Which failed attempts a prompt refers to (the prompt hook, issue 12 item 5), and the
lines that tell the agent about them.

A failed record (outcome ``failure``, not resolved by a later passing run) matches a
prompt that

- **names** one of its symbols (the local name, or its last part written as an identifier)
  or files (the path, or a file name with an extension);
- names it **by identifier parts in other word forms**: the analyzer of
  :mod:`hindsight.memory.segment` splits a linked symbol's name into its parts and stems
  them (``deductStock`` → ``deduct``, ``stock``), and the prompt's words the same way
  ("deduction logic" → ``deduct``, ``logic``); a symbol matches when at least half of its
  content parts (four letters or more, not a stop word nor a word every codebase uses:
  :data:`GENERIC`) are among the prompt's terms;
- or refers back in time (``yesterday's …``, ``… from last week``, ``what we tried
  today``): the phrase (the grammar of :mod:`hindsight.memory.clock`) selects the records
  started in that period, and then any of them matches — those that also match by name
  or parts come first. A time phrase that does not refer back ("today, add a README")
  selects nothing by itself.

Records of the last ``recordsKeepFailedDays`` are candidates too, with or without a time
phrase: a prompt that names a symbol finds its failures whatever period it mentions
("deductStock broke yesterday" about a failure of this morning).
Nothing here loads a model: the prompt hook's budget is 300 ms with process start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from hindsight.models import ExecutionRecord

if TYPE_CHECKING:
    from hindsight.records.service import RecordService

PROMPT_CHARS = 2000  # only the start of a prompt is read (as the memory gate does)
CANDIDATES = 120  # failed records looked at per prompt (the newest of the period)
GENERIC = frozenset("""test tests testing spec check assert setup teardown main init run
runner handle handler process data value values util utils helper helpers manager get set
update create delete make build parse load save read write call func function method class
object item items list dict string number result results error errors logic code impl
implementation service client server request response config index fixture mock""".split())  # noqa: SIM905
_PERIOD = re.compile(
    r"\b(yesterday|today|this morning|earlier today|last night|(?:last|this) (?:week|month)|"
    r"(?:\d+|one|two|three|four|five|six|seven) (?:days?|weeks?) ago)(?:['’]s)?\b", re.I)
_NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
            "seven": "7"}
_IDENT = re.compile(r"[A-Za-z_][\w]*")


def period(prompt: str, now: float | None = None) -> tuple[float, float, bool] | None:
    """``(start, end, back)`` of the first time phrase in ``prompt`` (Unix seconds; see
    the module doc), or None. ``back``: the phrase refers back to work done then (it is
    possessive, ``yesterday's``, or follows ``from``, ``since``, ``of``, ``during``,
    ``in``, or is followed by ``we``/``you``/``I`` and a verb in the past)."""
    from hindsight.memory.clock import parse_range

    m = _PERIOD.search(prompt)
    if m is None:
        return None
    before = prompt[max(0, m.start() - 8):m.start()].lower().split()
    after = prompt[m.end():m.end() + 30].lower().split()
    back = m.group(0)[-2:] in ("'s", "’s") or bool(before) and before[-1] in (
        "from", "since", "of", "during", "in") or len(after) > 1 and after[0] in (
        "we", "you", "i") and after[1].endswith(("ed", "tried", "did", "wrote", "ran"))
    phrase = m.group(1).lower()
    phrase = {"this morning": "today", "earlier today": "today",
              "last night": "yesterday"}.get(phrase, phrase)
    first = phrase.split(" ", 1)[0]
    if first in _NUMBERS:
        phrase = phrase.replace(first, _NUMBERS[first], 1)
    try:
        start, end = parse_range(phrase, now)
    except Exception:  # noqa: BLE001 - a phrase the grammar does not take: no period
        return None
    return start, end, back


@lru_cache(maxsize=1)
def _generic() -> frozenset[str]:
    """:data:`GENERIC` and the stop words as the analyzer's (stemmed) terms."""
    from hindsight.memory.segment import STOPWORDS, terms

    return frozenset(t for w in GENERIC | STOPWORDS for t in terms(w, words=False))


@lru_cache(maxsize=4096)
def _parts(name: str) -> frozenset[str]:
    """The content parts of an identifier as analysed terms (see the module doc)."""
    from hindsight.memory.segment import terms

    whole = terms(name.lower(), words=False)[:1]
    return frozenset(t for t in terms(name, words=False)[1:] or whole
                     if len(t) >= 4 and t not in _generic())


@dataclass
class Said:
    """What a prompt says, looked up without a regular expression per symbol: its words as
    written (``words``: identifiers, dotted names, paths), and its analysed ``terms``."""

    words: set[str]
    terms: set[str]

    @classmethod
    def of(cls, prompt: str) -> Said:
        from hindsight.memory.segment import query_terms

        raw = set(_WORD.findall(prompt))
        words = raw | {w.strip(".,;:!?()`'\"") for w in raw}
        return cls(words, set(query_terms(prompt, words=False)))


_WORD = re.compile(r"[\w./-]+")


def _ident_named(last: str) -> bool:
    """Whether a symbol's last part, written in a prompt, names it: written like an
    identifier (``snake_case``, ``camelCase``, longer than 3 letters)."""
    return bool(_IDENT.fullmatch(last)) and ("_" in last.strip("_") or not last.islower()
                                             or len(last) > 3)


def score(said: Said, links: list[tuple[str, str]], files: list[str],
          cache: dict[tuple[str, str], float] | None = None) -> float:
    """How strongly a prompt (:class:`Said`) refers to a record linked to ``links``
    ((path, local)) and ``files``: 2 when it names one, else the best share of a symbol's
    content parts among its terms (0 below one half)."""
    cache = {} if cache is None else cache
    best = 0.0
    for path in files:
        base = path.rsplit("/", 1)[-1]
        if path in said.words or ("." in base.strip(".") and base in said.words):
            return 2.0
    for pair in links:
        got = cache.get(pair)
        if got is None:
            path, local = pair
            last = local.rsplit(".", 1)[-1]
            base = path.rsplit("/", 1)[-1]
            if path in said.words or ("." in base.strip(".") and base in said.words) or \
                    ("." in local and local in said.words) or \
                    (_ident_named(last) and last in said.words):
                got = 2.0
            else:
                parts = _parts(last)
                share = len(parts & said.terms) / len(parts) if parts else 0.0
                got = share if share >= 0.5 else 0.0
            cache[pair] = got
        if got == 2.0:
            return got
        best = max(best, got)
    return best


def match(svc: RecordService, prompt: str, exclude: set[int] | frozenset[int],
          limit: int) -> list[ExecutionRecord]:
    """The unresolved failed records ``prompt`` refers to (see the module doc), best
    first (then newest), at most ``limit``, none of ``exclude``."""
    from hindsight.memory.clock import now_ts
    from hindsight.records.query import NOT_RUN, _open

    if limit <= 0 or not prompt.strip():
        return []
    text = prompt[:PROMPT_CHARS]
    now = now_ts()
    span = period(text, now)
    # the time phrase's records first, then the recent ones: a symbol or file the prompt
    # names finds its failures whatever the phrase says ("deductStock broke yesterday"
    # about a failure of today: the fresh-user trial of 2026-12-01)
    timed = svc.store.record_ids(outcome="failure", since=span[0], until=span[1],
                                 limit=CANDIDATES) if span else []
    recent = svc.store.record_ids(outcome="failure",
                                  since=now - svc.keep_failed_days * 86400.0,
                                  limit=CANDIDATES)
    ids = [i for i in dict.fromkeys([*timed, *recent]) if i not in exclude]
    in_span = set(timed)
    if not ids:
        return []
    links: dict[int, list[tuple[str, str]]] = {}
    for rid, path, local, _role in svc.store.linked_symbols(ids):
        links.setdefault(rid, []).append((path, local))
    files: dict[int, list[str]] = {}
    for rid, path in svc.store.linked_files(ids):
        files.setdefault(rid, []).append(path)
    said = Said.of(text)
    cache: dict[tuple[str, str], float] = {}
    scored = [(score(said, links.get(i, []), files.get(i, []), cache), n, i)
              for n, i in enumerate(ids)]
    picked = [(s, n, i) for s, n, i in scored
              if s > 0 or span is not None and span[2] and i in in_span]
    picked.sort(key=lambda x: (-x[0], x[1]))
    if not picked:
        return []
    recs = svc.store.get_records([i for _s, _n, i in picked[:limit * 10]])
    # a command not found or not executable is a typo, not a failed attempt (as
    # query.failures; the fresh-user trial of 2026-12-02 was shown `nosuchcmd`, exit 127)
    return _open(svc, [recs[i] for _s, _n, i in picked
                       if i in recs and recs[i].exit_code not in NOT_RUN], limit)


def lines(records: list[ExecutionRecord], cap: int = 600) -> list[str]:
    """One line per failed attempt for an agent: when, which session, what was tried (the
    command and the change), why it failed (the observation), and the user's reaction."""
    from hindsight.memory.clock import shown

    out = []
    for r in records:
        obs = r.observation
        why = "; ".join([*(f"FAILED {t}" for t in obs.failed[:3]), *obs.errors[:2]]) \
            or obs.summary or (f"exit code {r.exit_code}" if r.exit_code is not None else "")
        parts = [f"- attempt #{r.id} {shown(r.started_ts)}"
                 + (f" (session {r.session[:8]}, {r.agent})" if r.session else "")
                 + f": `{r.command[:200]}` → {r.outcome}"
                 + (f" ({obs.summary})" if obs.summary and obs.summary not in why else ""),
                 f"why: {why}" if why else "",
                 f"change: {r.diff_summary}" if r.diff_summary else "",
                 f"user said: {r.feedback}" if r.feedback else ""]
        line = "; ".join(p for p in parts if p)
        out.append(line if len(line) <= cap else line[:cap - 1] + "…")
    return out
