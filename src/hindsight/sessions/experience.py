"""Deterministic experience extraction from the turns of one session.

:func:`extract` finds what a later session should know — user corrections, stated
conventions and decisions, error→fix sequences — with regular expressions and sequence
logic only (no model). Assistant text alone never yields an experience; summary turns are
ignored. Standard library only; nothing happens at import time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hindsight.sessions.transcripts import Turn, command_words, one_line

WINDOW = 15  # turns after a failure (or a repeated failure) in which the fix must come
_CORRECTION = re.compile(r"""(?ix)
    ^\W*(?:no|nope|wrong)\b\s*[,.!:;]
  | \bdon['’]?t\b | \bdo\s+not\b
  | \binstead\b
  | \bthat(?:['’]s|\s+is)\s+(?:wrong|incorrect|not\s+(?:right|correct|what))
  | \bnot\s+\S+(?:\s+\S+){0,3}?,?\s+but\b
  | \bstop\s+\w+ing\b
  | \bI\s+(?:said|told\s+you)\b
""")
_DECISION = re.compile(r"""(?ix)
    \blet['’]?s\s+(?:go\s+with|use|stick\s+with|switch\s+to)\b
  | \bwe\s+(?:have\s+|['’]ve\s+)?(?:decided|chose|agreed|settled\s+on)\b
  | \bwe(?:['’]ll|\s+will)\s+go\s+with\b
  | \bI(?:['’]ve|\s+have)?\s+decided\b
  | \b(?:the\s+|our\s+)?decision\s+(?:is|was)\b | ^decision:
""")
_CONVENTION = re.compile(r"""(?ix)
    ^(?:please\s+|and\s+|also\s+|so\s+)?(?:always|never)\b(?!\s+mind\b)
  | \bwe\s+(?:should\s+|must\s+)?(?:always|never)\s+\w+
  | \b(?:must|should)\s+(?:always|never)\b
  | \bwe\s+(?:use|prefer)\s+\S.*?\bfor\b
  | \bfrom\s+now\s+on\b | \bgoing\s+forward\b
  | \b(?:our|the|this\s+(?:repo|project)['’]?s?)\s+(?:convention|rule|standard|style)\s+is\b
  | \bby\s+convention\b
  | \bprefer\s+\S+(?:\s+\S+)?\s+(?:over|to)\s+\S
""")
# Cheap prefilters (lower-case substrings every match of the regex above contains).
_CORRECTION_WORDS = ("no", "wrong", "don", "instead", "that", "stop", "said", "told")
_STATEMENT_WORDS = ("let", "decid", "chose", "agreed", "settled", "go with", "decision",
                    "always", "never", "we use", "prefer", "now on", "forward", "convention",
                    "rule", "standard", "style")
_CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)", re.S)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_LONG_FORMS = frozenset({"-m", "run", "exec"})


@dataclass(frozen=True)
class Experience:
    """One extracted item: ``kind`` ∈ "convention", "decision", "lesson", "experience";
    ``text`` (≤ 1,200 chars); ``files`` involved (as in :attr:`Turn.files`); ``outcome``
    "success"/"failure" for kind "experience", else ""."""

    kind: str
    text: str
    files: tuple[str, ...] = ()
    outcome: str = ""


def extract(turns: list[Turn]) -> list[Experience]:
    """Experiences found in ``turns`` (one session, in order); same input → same list.

    Rules, each documented on its function: :func:`_corrections` (kind "lesson"),
    :func:`_statements` ("convention"/"decision"), :func:`_error_fixes` ("experience",
    outcome "success" or "failure"). Results are ordered by the turn that triggered them
    (then lesson, statements in sentence order, experience) and deduplicated on (kind,
    text, outcome), the first kept. Never raises on well-typed input.
    """
    found: list[tuple[int, int, Experience]] = []
    found += _corrections(turns)
    found += _statements(turns)
    found += _error_fixes(turns)
    out: list[Experience] = []
    seen: set[tuple[str, str, str]] = set()
    for _, _, exp in sorted(found, key=lambda f: (f[0], f[1])):
        key = (exp.kind, exp.text, exp.outcome)
        if key not in seen:
            seen.add(key)
            out.append(exp)
    return out


def _corrections(turns: list[Turn]) -> list[tuple[int, int, Experience]]:
    """A user prompt right after an assistant or action turn that matches a correction
    phrase — a leading "no,"/"nope."/"wrong!", "don't", "do not", "instead", "that's wrong"
    / "that's not right", "not X but Y", "stop …ing", "I said", "I told you" (case
    insensitive, outside code blocks) → "lesson" ``User correction: <prompt, ≤ 400 chars>``
    with the files edited by the actions since the previous user prompt."""
    out = []
    for i, turn in enumerate(turns):
        if turn.role != "user" or i == 0 or turns[i - 1].role not in ("assistant", "action"):
            continue
        prose = _CODE_BLOCK.sub(" ", turn.text)
        low = prose.lower()
        if not any(w in low for w in _CORRECTION_WORDS) or not _CORRECTION.search(prose):
            continue
        files: list[str] = []
        for j in range(i - 1, -1, -1):
            prev = turns[j]
            if prev.role == "user":
                break
            if prev.role == "action" and not prev.error:
                files[:0] = prev.files
        text = "User correction: " + one_line(turn.text, 400)
        out.append((i, 0, Experience("lesson", text, tuple(dict.fromkeys(files)))))
    return out


def _statements(turns: list[Turn]) -> list[tuple[int, int, Experience]]:
    """Each sentence of a user prompt (code blocks removed; split after ``.!?`` + space and
    at newlines; questions ending in ``?`` and sentences under 3 words skipped) that states
    a decision — "let's go with/use/stick with/switch to", "we decided/chose/agreed/settled
    on", "we'll go with", "I decided", "the decision is" — → "decision"; else one that
    states a convention — starting with "always"/"never" (not "never mind"), "we
    (should/must) always/never …", "must/should always/never", "we use/prefer X for Y",
    "from now on", "going forward", "our convention / rule / standard / style is", "by
    convention", "prefer X over/to Y" → "convention".
    The text is the sentence (whitespace collapsed, ≤ 400 chars)."""
    out = []
    for i, turn in enumerate(turns):
        if turn.role != "user":
            continue
        sentences = _SENTENCE_SPLIT.split(_CODE_BLOCK.sub("\n", turn.text))
        for n, raw in enumerate(sentences, 1):
            sentence = one_line(raw, 400)
            low = sentence.lower()
            if (sentence.endswith("?") or len(low.split()) < 3
                    or not any(w in low for w in _STATEMENT_WORDS)):
                continue
            if _DECISION.search(sentence):
                out.append((i, n, Experience("decision", sentence)))
            elif _CONVENTION.search(sentence):
                out.append((i, n, Experience("convention", sentence)))
    return out


def command_key(turn: Turn) -> tuple[str, str]:
    """What makes two actions "the same command": for Bash/Shell the first two words of the
    command after ``cd DIR &&`` and ``VAR=value`` prefixes (three when the second is
    ``-m``, ``run`` or ``exec``: ``python -m pytest``, ``uv run pytest``); else the target."""
    if turn.tool in ("Bash", "Shell"):
        words = command_words(turn.target)
        n = 3 if len(words) > 2 and words[1] in _LONG_FORMS else 2
        return turn.tool, " ".join(words[:n])
    return turn.tool, turn.target


def _error_fixes(turns: list[Turn]) -> list[tuple[int, int, Experience]]:
    """An action with an ``error`` starts a chain: later actions with the same
    :func:`command_key` that fail again extend it; the chain ends at the first one that
    succeeds, or when ``WINDOW`` (15) turns pass after its last failure. Edits in between
    (actions with ``files`` and no error) are the fix. Success after ≥ 1 edit → "experience",
    outcome "success", ``Problem: <tool> <target> failed: <first error>. Solution: edited
    <edited targets> (<last assistant text before the first edit after the last failure,
    ≤ 200 chars>). Outcome: success``. No success and ≥ 2 failures → outcome "failure",
    ``Problem: <tool> <target> failed N times: <first error>. No fix found in the session.
    Outcome: failure``. A success without edits (a plain rerun) yields nothing. Failures
    already in a chain, and failed edits (actions with ``files``), start none."""
    out: list[tuple[int, int, Experience]] = []
    used: set[int] = set()
    for i, turn in enumerate(turns):
        if turn.role == "action" and turn.error and not turn.files and i not in used:
            exp, chain = _follow(turns, i)
            used.update(chain)
            if exp is not None:
                out.append((i, 99, exp))
    return out


def _follow(turns: list[Turn], first: int) -> tuple[Experience | None, list[int]]:
    key, chain = command_key(turns[first]), [first]
    files: list[str] = []
    shown: list[str] = []
    note = last_text = ""
    waiting_note = True
    j = first + 1
    while j < len(turns) and j <= chain[-1] + WINDOW:
        t = turns[j]
        if t.role == "assistant":
            last_text = t.text
        elif t.role == "action" and command_key(t) == key:
            if not t.error:
                return (_success(turns[first], files, shown, note) if files else None), chain
            chain.append(j)
            waiting_note, last_text = True, ""
        elif t.role == "action" and t.files and not t.error:
            files += t.files
            shown.append(t.target or ", ".join(t.files))
            if waiting_note:
                note, waiting_note = last_text, False
        j += 1
    if len(chain) < 2:
        return None, chain
    failed = turns[first]
    text = (f"Problem: {failed.tool} {failed.target} failed {len(chain)} times: "
            f"{failed.error.rstrip('.')}. No fix found in the session. Outcome: failure")
    return Experience("experience", text, tuple(dict.fromkeys(files)), "failure"), chain


def _success(failed: Turn, files: list[str], shown: list[str], note: str) -> Experience:
    why = f" ({one_line(note, 200)})" if note.strip() else ""
    text = (f"Problem: {failed.tool} {failed.target} failed: {failed.error.rstrip('.')}. "
            f"Solution: edited {one_line(', '.join(dict.fromkeys(shown)), 300)}{why}. "
            "Outcome: success")
    return Experience("experience", text, tuple(dict.fromkeys(files)), "success")
