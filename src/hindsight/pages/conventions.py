"""The ``conventions`` page: what the team recorded (convention and decision memories), what
the repository's own configuration files say (formatter, linter, type checker, test
framework, build; :mod:`hindsight.pages.configs`) and the commit style seen in history.

Commit style: the share of recent non-merge commits whose subject follows Conventional
Commits 1.0.0 (``type(scope)!: description``, conventionalcommits.org), the types used, the
share naming an issue (``#123``), the median subject length and the share starting with a
capital letter.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from typing import Any

from hindsight.pages.activity import _visible, one_line
from hindsight.pages.configs import tool_settings
from hindsight.pages.records import Citation, Claims, Section

CONVENTIONAL = re.compile(r"^(?P<type>[a-z]+)(?:\([^)]*\))?!?: \S")
ISSUE = re.compile(r"(?:^|\W)#\d+\b")
STYLE_COMMITS = 200  # recent commits read for the commit style
ROLES = ("formatter", "linter", "type checker", "tests", "build", "editor")


def _memories_section(memory: Any) -> Section:
    c = Claims()
    rows = _visible(memory.memories(kind="convention", limit=40)) \
        + _visible(memory.memories(kind="decision", limit=40))
    rows.sort(key=lambda m: (m.kind != "convention", -m.occurred_ts, m.id))
    for m in rows[:25]:
        c.add(f"{m.kind}{' (stale: its code changed)' if m.stale else ''}: "
              f"{one_line(m.text, 200)}", Citation("memory", str(m.id)))
    if not rows:
        c.note("No convention or decision memories yet (hindsight retain --kind convention).")
    elif len(rows) > 25:
        c.note(f"({len(rows) - 25} more: hindsight memories --kind convention)")
    return c.section("Recorded conventions and decisions")


def _tools_section(root: str) -> Section:
    c = Claims()
    found = tool_settings(root)
    for role in ROLES:
        items = [s for s in found if s.role == role]
        if items:
            c.add(f"{role[:1].upper() + role[1:]}: " + ", ".join(
                f"{s.tool} (`{s.path}`)" for s in items),
                *(Citation("file", f"{s.path}:{s.line}") for s in items))
    if not found:
        c.note("No formatter, linter or test configuration found at the repository root.")
    return c.section("Tooling")


def commit_style(commits: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over non-merge ``commits`` (dicts with ``subject``): ``n``, ``conventional``
    (matching :data:`CONVENTIONAL`), ``types`` (Counter), ``issues`` (naming ``#N``),
    ``capital`` (starting with an upper-case letter), ``median_len``."""
    subj = [x["subject"] for x in commits if not x["merge"]]
    kinds = Counter(m.group("type") for s in subj if (m := CONVENTIONAL.match(s)))
    return {"n": len(subj), "conventional": sum(kinds.values()), "types": kinds,
            "issues": sum(1 for s in subj if ISSUE.search(s)),
            "capital": sum(1 for s in subj if s[:1].isupper()),
            "median_len": int(statistics.median(len(s) for s in subj)) if subj else 0}


def _pct(a: int, b: int) -> str:
    return f"{round(100 * a / b)}%" if b else "0%"


def _style_section(history: Any) -> Section:
    c = Claims()
    commits = [x for x in history.commits(STYLE_COMMITS) if not x["merge"]]
    st = commit_style(commits)
    if not st["n"]:
        c.note("No git history ingested.")
        return c.section("Commit style")
    n = st["n"]
    conv = [x for x in commits if CONVENTIONAL.match(x["subject"])][:3]
    if st["conventional"] * 2 >= n:
        c.add(f"{st['conventional']} of the last {n} commits follow Conventional Commits ("
              + ", ".join(f"`{t}:` {k}" for t, k in st["types"].most_common(6)) + ")",
              *(Citation("commit", x["sha"]) for x in conv))
    else:
        plain = [x for x in commits if not CONVENTIONAL.match(x["subject"])][:3]
        c.add(f"Plain subjects: {n - st['conventional']} of the last {n} commits do not use "
              "Conventional Commits prefixes", *(Citation("commit", x["sha"]) for x in plain))
    capital = [x for x in commits if x["subject"][:1].isupper()][:2]
    lower = [x for x in commits if x["subject"][:1].islower()][:2]
    c.add(f"Subjects are {st['median_len']} characters long (median); "
          f"{_pct(st['capital'], n)} start with a capital letter",
          *(Citation("commit", x["sha"]) for x in (capital if st["capital"] * 2 >= n
                                                   else lower)))
    if st["issues"]:
        refs = [x for x in commits if ISSUE.search(x["subject"])][:3]
        c.add(f"{_pct(st['issues'], n)} of subjects name an issue (`#N`)",
              *(Citation("commit", x["sha"]) for x in refs))
    return c.section("Commit style")


def build(root: str, history: Any, memory: Any) -> list[Section]:
    """The sections of the ``conventions`` page."""
    return [_memories_section(memory), _tools_section(root), _style_section(history)]
