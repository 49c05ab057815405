"""Deterministic structuring of a memory's text (used when no LLM is configured): the kind
when none is given, and for experiences the seed's unit — scene, problem, solution,
outcome. Labelled text (``Problem: … Solution: … Outcome: failure``) is read as labelled;
otherwise cue words decide. Every rule is a plain regular expression; nothing is guessed
from meaning."""

from __future__ import annotations

import re

KINDS = ("experience", "decision", "convention", "fact", "lesson", "conversation")
OUTCOMES = ("success", "failure", "partial")

_LABEL = re.compile(r"(?im)^\s*(scene|context|problem|issue|solution|fix|outcome|result)\s*:\s*")
_DECISION = re.compile(r"(?i)\b(we decided|decided to|decision|we will use|we'll use|"
                       r"going with|chose|settled on)\b")
_CONVENTION = re.compile(r"(?i)\b(always|never|convention|must not|must|by convention|"
                         r"prefer|style guide)\b")
_LESSON = re.compile(r"(?i)\b(lesson|learned|next time|root cause|failed because|"
                     r"did ?n[o']t work|avoid|gotcha|pitfall)\b")
_FAIL = re.compile(r"(?i)\b(fail(ed|s|ure)?|broke|broken|did ?n[o']t work|regress(ed|ion)|"
                   r"crash(ed|es)?|reverted)\b")
_OK = re.compile(r"(?i)\b(fixed|works|worked|resolved|passes|passed|succeeded|success)\b")


def classify(text: str) -> str:
    """A kind for unlabelled text: lesson, decision, convention, else fact."""
    if _LESSON.search(text):
        return "lesson"
    if _DECISION.search(text):
        return "decision"
    if _CONVENTION.search(text):
        return "convention"
    return "fact"


def outcome_of(text: str) -> str:
    """failure / success / partial (both cues) / '' (none)."""
    f, o = bool(_FAIL.search(text)), bool(_OK.search(text))
    return "partial" if f and o else "failure" if f else "success" if o else ""


def unit(text: str) -> dict[str, str]:
    """scene/problem/solution/outcome from labelled lines; empty strings when absent."""
    out = {"scene": "", "problem": "", "solution": "", "outcome": ""}
    names = {"scene": "scene", "context": "scene", "problem": "problem", "issue": "problem",
             "solution": "solution", "fix": "solution", "outcome": "outcome",
             "result": "outcome"}
    parts = _LABEL.split(text)
    for i in range(1, len(parts) - 1, 2):
        key = names[parts[i].lower()]
        out[key] = parts[i + 1].strip()
    if out["outcome"]:
        low = out["outcome"].lower()
        out["outcome"] = next((o for o in OUTCOMES if o in low), outcome_of(out["outcome"]))
    return out
