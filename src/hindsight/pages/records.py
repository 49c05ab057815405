"""The records of a knowledge page: :class:`Citation`, :class:`Section`, :class:`Page`.

A section's text is a list of claims, one per line; each claim ends with the numbers of its
evidence in brackets (``[1]``, ``[2][3]``): the 1-based positions in the section's
``citations``. ``evidence`` is a digest of what the section was made from (xxh3-64 of its
deterministic text and citations), so that a refresh can tell which sections changed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

NAMES = ("architecture", "conventions", "hotspots", "in-flight")
TITLES = {"architecture": "Architecture", "conventions": "Conventions",
          "hotspots": "Hot spots", "in-flight": "In flight"}
KINDS = ("file", "symbol", "commit", "memory", "attempt")
MARK = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Citation:
    """One piece of evidence: ``kind`` (one of :data:`KINDS`) and ``ref``: ``path`` or
    ``path:line`` (1-based) for a file, a qualified name for a symbol, a full sha for a
    commit, a memory id, an execution record id for an attempt."""

    kind: str
    ref: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "ref": self.ref}


@dataclass
class Section:
    """One section: ``heading``, ``text`` (claims citing ``[n]``), ``citations`` and the
    ``evidence`` digest (see the module doc)."""

    heading: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    evidence: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The shape of ``hindsight pages --json``: heading, text, citations."""
        return {"heading": self.heading, "text": self.text,
                "citations": [c.as_dict() for c in self.citations]}

    def stored(self) -> dict[str, Any]:
        return {**self.as_dict(), "evidence": self.evidence}

    def marks(self) -> set[int]:
        """The citation numbers the text uses."""
        return {int(m) for m in MARK.findall(self.text)}


@dataclass
class Page:
    """One version of a page: ``name`` (one of :data:`NAMES`), ``title``, ``version`` (1,
    2, …), ``updated_at`` (ISO 8601 with offset), ``sections``; also kept: ``updated_ts``
    (Unix seconds), ``reason`` (why it was written), ``head`` (the commit then),
    ``commits`` (history commits then) and ``changed`` (what this version changed, one
    line each)."""

    name: str
    title: str
    sections: list[Section]
    version: int = 0
    updated_at: str = ""
    updated_ts: float = 0.0
    reason: str = ""
    head: str = ""
    commits: int = 0
    changed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The issue's JSON shape: ``{"name", "title", "version", "updated_at",
        "sections": [{"heading", "text", "citations": [{"kind", "ref"}]}]}``."""
        return {"name": self.name, "title": self.title, "version": self.version,
                "updated_at": self.updated_at,
                "sections": [s.as_dict() for s in self.sections]}

    def stored(self) -> dict[str, Any]:
        """The row handed to :meth:`hindsight.store.base.PageStore.add_page`."""
        return {**self.as_dict(), "updated_ts": self.updated_ts, "reason": self.reason,
                "head": self.head, "commits": self.commits, "changed": list(self.changed),
                "sections": [s.stored() for s in self.sections]}

    @classmethod
    def from_stored(cls, d: dict[str, Any]) -> Page:
        return cls(d["name"], d["title"],
                   [Section(s["heading"], s["text"],
                            [Citation(c["kind"], c["ref"]) for c in s["citations"]],
                            s.get("evidence", "")) for s in d["sections"]],
                   int(d["version"]), d["updated_at"], float(d["updated_ts"]), d["reason"],
                   d["head"], int(d["commits"]), list(d["changed"]))


class Claims:
    """Builds a section: ``add(text, *citations)`` appends one claim line citing its
    evidence (a citation already given keeps its number); :meth:`section` makes the
    :class:`Section` with its evidence digest."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cites: list[Citation] = []
        self._num: dict[Citation, int] = {}

    def add(self, text: str, *cites: Citation) -> None:
        marks = ""
        for c in cites:
            if c not in self._num:
                self.cites.append(c)
                self._num[c] = len(self.cites)
            marks += f"[{self._num[c]}]"
        self.lines.append(f"- {' '.join(text.split())}{' ' + marks if marks else ''}")

    def note(self, text: str) -> None:
        """A line that claims nothing (e.g. "none recorded")."""
        self.lines.append(text)

    def section(self, heading: str) -> Section:
        return make_section(heading, "\n".join(self.lines), self.cites)


def count(n: int, word: str) -> str:
    """``n`` and ``word``, plural (``s``) unless ``n`` is 1: ``1 commit``, ``3 fixes``."""
    plural = (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou"
              else word + ("es" if word.endswith(("x", "s", "sh", "ch")) else "s"))
    return f"{n:,} {word if n == 1 else plural}"


def make_section(heading: str, text: str, cites: list[Citation]) -> Section:
    """A :class:`Section` with its evidence digest."""
    import xxhash

    raw = json.dumps([heading, text, [c.as_dict() for c in cites]], ensure_ascii=False)
    return Section(heading, text, list(cites), xxhash.xxh3_64_hexdigest(raw.encode()))


def scrub_memory(sections: list[dict[str, Any]], mid: int, frags: list[str]
                 ) -> list[dict[str, Any]] | None:
    """Stored ``sections`` (dicts) without memory ``mid``: every line of a section's text
    that cites it (its ``[n]`` mark) is dropped, and any of ``frags`` (the purged text,
    see :func:`hindsight.memory.lifecycle.fragments`) left elsewhere becomes ``[purged]``.
    None when nothing changed."""
    out, changed = [], False
    for s in sections:
        marks = {f"[{n}]" for n, c in enumerate(s.get("citations", []), 1)
                 if c.get("kind") == "memory" and c.get("ref") == str(mid)}
        lines = [ln for ln in s["text"].split("\n") if not any(m in ln for m in marks)]
        text = "\n".join(lines)
        for f in frags:
            text = text.replace(f, "[purged]")
        changed |= text != s["text"]
        out.append({**s, "text": text})
    return out if changed else None
