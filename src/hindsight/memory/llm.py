"""What an LLM adds when one is configured (``HINDSIGHT_LLM_URL``): structuring a memory
into the experience unit at retain time, and a synthesised, cited answer in reflect.
Every output is validated; on any error, timeout or invalid output the deterministic path
is used instead, and the reason is kept (``fallback``)."""

from __future__ import annotations

import json
import re
from typing import Any

from hindsight.errors import ProviderError
from hindsight.memory import extract
from hindsight.models import Hit

STRUCTURE_PROMPT = """You structure notes for a coding agent's memory.
Return only a JSON object with these keys:
  "kind": one of "experience", "decision", "convention", "fact", "lesson",
  "scene": where or when it applies (may be ""),
  "problem": the problem met (may be ""),
  "solution": what was done (may be ""),
  "outcome": one of "success", "failure", "partial", "",
  "tags": a list of at most 5 short lowercase tags.
Do not add facts that are not in the note."""

REFLECT_PROMPT = """You answer a developer's question from notes kept by their coding agent.
Use only the notes given. Cite every note you use as [#ID]. If the notes do not answer
the question, say so. Be brief."""


def structure(llm: Any, text: str, timeout: float) -> tuple[dict[str, Any] | None, str]:
    """The unit for ``text`` from the LLM, or (None, why it was not used)."""
    try:
        raw = llm.complete(STRUCTURE_PROMPT, text, timeout)
    except ProviderError as e:
        return None, f"llm error: {e}"
    m = re.search(r"\{.*\}", raw, re.S)
    try:
        d = json.loads(m.group(0)) if m else None
    except ValueError:
        d = None
    if not isinstance(d, dict):
        return None, "llm output is not a JSON object"
    kind = d.get("kind")
    outcome = d.get("outcome", "")
    tags = d.get("tags", [])
    if kind not in extract.KINDS or outcome not in (*extract.OUTCOMES, "") or \
            not isinstance(tags, list) or not all(isinstance(t, str) for t in tags) or \
            not all(isinstance(d.get(k, ""), str) for k in ("scene", "problem", "solution")):
        return None, "llm output failed validation"
    return {"kind": kind, "scene": d.get("scene", ""), "problem": d.get("problem", ""),
            "solution": d.get("solution", ""), "outcome": outcome,
            "tags": [t.strip().lower() for t in tags[:5] if t.strip()]}, ""


def answer(llm: Any, question: str, hits: list[Hit], timeout: float
           ) -> tuple[str | None, str]:
    """A cited answer, or (None, why not). An answer citing an id that was not given is
    rejected."""
    from hindsight.memory.clock import shown

    notes = "\n".join(f"[#{h.memory.id}] ({h.memory.kind}, {shown(h.memory.occurred_ts)}) "
                      f"{h.memory.text}" for h in hits)
    try:
        raw = llm.complete(REFLECT_PROMPT, f"Question: {question}\n\nNotes:\n{notes}", timeout)
    except ProviderError as e:
        return None, f"llm error: {e}"
    cited = {int(x) for x in re.findall(r"\[#(\d+)\]", raw)}
    if cited - {h.memory.id for h in hits}:
        return None, "llm cited notes it was not given"
    return raw.strip(), ""
