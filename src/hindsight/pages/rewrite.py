"""The optional LLM rewrite of a page section (when setting ``llmUrl`` names a model): the
model may reword the deterministic claims, but every citation mark (``[1]``, ``[2]``…) must
survive and no other may appear; a rewrite that drops or invents one is rejected and the
deterministic text kept, with the reason recorded in the version's ``changed`` lines."""

from __future__ import annotations

from typing import Any

from hindsight.errors import ProviderError
from hindsight.pages.records import MARK, Section

PROMPT = """You edit one section of a knowledge page about a software repository so that a
developer reads it quickly. Rewrite the claims as short, plain sentences or bullets.
Keep every citation mark exactly as written ([1], [2], ...), each right after the claim it
supports. Do not add citation marks, facts, names or numbers that are not in the text.
Return only the rewritten section text."""
MAX_GROWTH = 2.0  # a rewrite longer than this many times the original is rejected


def rewrite(llm: Any, title: str, section: Section, timeout: float
            ) -> tuple[Section | None, str]:
    """``(the rewritten section, "")`` or ``(None, why it was rejected)``. The section
    keeps its heading, citations and evidence digest; only ``text`` changes."""
    if not section.citations:
        return None, "nothing cited"
    try:
        raw = llm.complete(PROMPT, f"Page: {title}\nSection: {section.heading}\n\n"
                           f"{section.text}", timeout)
    except ProviderError as e:
        return None, f"llm error: {e}"
    text = (raw or "").strip()
    if not text:
        return None, "empty answer"
    had, got = section.marks(), {int(m) for m in MARK.findall(text)}
    if had - got:
        return None, "dropped " + "".join(f"[{n}]" for n in sorted(had - got))
    if got - had:
        return None, "cited " + "".join(f"[{n}]" for n in sorted(got - had)) + \
            " that it was not given"
    if len(text) > MAX_GROWTH * len(section.text) + 200:
        return None, "longer than the original allows"
    return Section(section.heading, text, list(section.citations), section.evidence), ""
