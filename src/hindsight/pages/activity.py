"""The ``hotspots`` and ``in-flight`` pages: where the code churns and breaks, and what is
being worked on now.

Hot spots come from the history service (:meth:`HistoryService.hotspots`: commits + fix
commits over the window before the newest commit, what exists at HEAD; fix commits as
:mod:`hindsight.history.fixes` defines them), memory (stale memories, memories anchored to
a hot file) and, when an execution-record service exists, its failed attempts (the
``failures`` provider; none yet: the section is left out). In flight: local branches and
their distance from the main branch, clusters of recent commits by folder, files changed on
the branch or uncommitted, and failures not yet resolved (failure memories; failed
attempts on this branch).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hindsight.errors import HindsightError
from hindsight.pages import gitstate
from hindsight.pages.records import Citation, Claims, Section, count

HOT_DAYS = 90  # the hot-spot window, days before the newest commit
HOT_LIMIT = 10  # files and symbols listed
RECENT_DAYS = 14  # commits this close to the newest one are "recent"
RECENT_COMMITS = 200  # at most this many recent commits are clustered
Failures = Callable[..., list[Any]]


def one_line(text: str, cap: int = 160) -> str:
    t = " ".join(text.split())
    return t if len(t) <= cap else t[:cap - 1].rsplit(" ", 1)[0] + "…"


def _day(iso: str) -> str:
    return iso[:10]


def _visible(memories: list[Any]) -> list[Any]:
    return [m for m in memories if m.visibility != "private"]


def attempt_fields(rec: Any) -> tuple[str, str]:
    """``(id, one-line summary)`` of an execution record of the ``failures`` provider
    (:class:`hindsight.models.ExecutionRecord` or its ``as_dict()``): ``id``, then
    ``command — observation summary (first failing test)`` as far as they are set."""
    d = rec.as_dict() if hasattr(rec, "as_dict") else dict(rec)
    raw = d.get("observation")
    obs: dict[str, Any] = raw if isinstance(raw, dict) else {}
    failed = list(obs.get("failed") or [])[:1]
    what = " — ".join(str(x) for x in (d.get("command"), obs.get("summary"),
                                        *failed) if x)
    return str(d.get("id", "")), one_line(what or "failed attempt", 140)


# --- hotspots ------------------------------------------------------------------------------
def hotspots(history: Any, memory: Any, failures: Failures | None) -> list[Section]:
    """The sections of the ``hotspots`` page (see the module doc)."""
    out: list[Section] = []
    try:
        data = history.hotspots(HOT_DAYS, HOT_LIMIT)
    except HindsightError as e:
        c = Claims()
        c.note(f"No hot spots: {e}")
        out.append(c.section("Files"))
        data = None
    if data is not None:
        since = _day(data["since"] or "")
        c = Claims()
        for f in data["files"]:
            fixes = history.commits(2, fixes_only=True, path=f["path"]) if f["fixes"] else []
            n_mem = len(memory.anchored([f["path"]]))
            c.add(f"`{f['path']}`: {count(f['commits'], 'commit')}, "
                  f"{count(f['fixes'], 'fix')}, {count(f['lines'], 'line')} changed"
                  + (f"; {count(n_mem, 'memory')} anchored" if n_mem else ""),
                  Citation("file", f["path"]), *(Citation("commit", x["sha"]) for x in fixes))
        if not data["files"]:
            c.note(f"No commits in the {HOT_DAYS} days before the newest commit.")
        elif since:
            c.note(f"(since {since}, the {HOT_DAYS} days before the newest commit; a fix "
                   "counts twice)")
        out.append(c.section("Files"))
        c = Claims()
        for s in data["symbols"]:
            c.add(f"`{s['qname']}` ({s['kind']}): {count(s['commits'], 'commit')}, "
                  f"{count(s['fixes'], 'fix')}",
                  Citation("symbol", s["qname"]))
        if not data["symbols"]:
            c.note("No symbol changed in the window.")
        out.append(c.section("Symbols"))
        c = Claims()
        floor = datetime.fromisoformat(data["since"]).timestamp() if data["since"] else 0
        fixes = [x for x in history.commits(HOT_LIMIT, fixes_only=True) if x["ts"] >= floor]
        for x in fixes:
            c.add(f"`{x['sha'][:10]}` {_day(x['date'])}: {one_line(x['subject'], 120)}",
                  Citation("commit", x["sha"]))
        if not fixes:
            c.note("No fix commits in the window.")
        out.append(c.section("Fix commits"))
    c = Claims()
    stale = _visible(memory.memories(stale=True, limit=30))[:15]
    for m in stale:
        where = sorted({a.path + (f"::{a.symbol}" if a.symbol else "")
                        for a in m.anchors if a.stale})[:2]
        c.add(f"#{m.id} {m.kind}: {one_line(m.text, 120)}"
              + (f" (changed: {', '.join(f'`{w}`' for w in where)})" if where else ""),
              Citation("memory", str(m.id)))
    if not stale:
        c.note("No stale memories.")
    out.append(c.section("Stale memories"))
    if failures is not None:
        out.append(_attempts(failures, None, "Failed attempts"))
    return out


def _attempts(failures: Failures, branch: str | None, heading: str,
              unresolved: bool = False) -> Section:
    """FAILED ATTEMPTS hook point: the execution-record service's ``failures(branch=,
    limit=, unresolved=)`` (``bank.records.failures``; ``unresolved``: only those no later
    passing run resolved), listed with their record ids."""
    c = Claims()
    try:
        recs = failures(branch=branch, limit=10, unresolved=unresolved)
    except HindsightError as e:
        recs = []
        c.note(f"Execution records unavailable: {e}")
    for rec in recs:
        rid, what = attempt_fields(rec)
        c.add(what, Citation("attempt", rid))
    if not c.lines:
        c.note("No failed attempts recorded.")
    return c.section(heading)


# --- in flight ------------------------------------------------------------------------------
def _folder(path: str) -> str:
    d = os.path.dirname(path)
    return d if d else "."


def clusters(commits: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Recent commits grouped by the folder most of their files are in (a commit counts
    once, in its folder with most files; ties by name), the busiest folder first."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for x in commits:
        if x["merge"] or not x["files"]:
            continue
        folders = Counter(_folder(p) for p in x["files"])
        top = min(folders.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        groups[top].append(x)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), -kv[1][0]["ts"], kv[0]))


def in_flight(root: str, history: Any, memory: Any, failures: Failures | None
              ) -> list[Section]:
    """The sections of the ``in-flight`` page (see the module doc)."""
    out: list[Section] = []
    shown, total, base = gitstate.branches(root)
    c = Claims()
    for b in shown:
        where = ("" if not base or b.name == base
                 else f", {b.ahead} ahead of and {b.behind} behind `{base}`")
        c.add(f"`{b.name}`{' (checked out)' if b.current else ''}: last commit "
              f"{_day(b.date)} \"{one_line(b.subject, 80)}\"{where}", Citation("commit", b.sha))
    if total > len(shown):
        c.note(f"({total - len(shown)} older branches not listed)")
    if not shown:
        c.note("No local branches.")
    out.append(c.section("Branches"))
    c = Claims()
    recent = history.commits(RECENT_COMMITS)
    if recent:
        floor = recent[0]["ts"] - RECENT_DAYS * 86_400
        recent = [x for x in recent if x["ts"] >= floor]
        for folder, xs in clusters(recent)[:8]:
            authors = Counter(x["author"] for x in xs)
            c.add(f"`{folder}`: {count(len(xs), 'commit')} "
                  f"{_day(xs[-1]['date'])} to {_day(xs[0]['date'])} by "
                  + ", ".join(a for a, _n in authors.most_common(3))
                  + f"; latest \"{one_line(xs[0]['subject'], 80)}\"",
                  *(Citation("commit", x["sha"]) for x in xs[:3]))
        when = datetime.fromtimestamp(floor, UTC).date().isoformat()
        c.note(f"(commits since {when}, the {RECENT_DAYS} days before the newest one, by "
               "folder)")
    else:
        c.note("No git history ingested.")
    out.append(c.section("Recent work"))
    c = Claims()
    on_branch, dirty = gitstate.changed_files(root, base)
    if on_branch:
        c.add(f"{count(len(on_branch), 'file')} changed on this branch since it left `{base}`: "
              + ", ".join(f"`{p}`" for p in on_branch[:10]),
              *(Citation("file", p) for p in on_branch[:10]))
    if dirty:
        c.add(f"{count(len(dirty), 'file')} with uncommitted changes: "
              + ", ".join(f"`{p}`" for p in dirty[:10]),
              *(Citation("file", p) for p in dirty[:10]))
    if not c.lines:
        c.note("No changes on this branch and nothing uncommitted.")
    out.append(c.section("Changes not on the main branch"))
    c = Claims()
    fails = [m for m in _visible(memory.memories(kind="experience", limit=60))
             + _visible(memory.memories(kind="lesson", limit=30)) if m.outcome == "failure"]
    fails.sort(key=lambda m: (-m.occurred_ts, m.id))
    for m in fails[:8]:
        c.add(f"#{m.id} {m.kind}: {one_line(m.text, 140)}", Citation("memory", str(m.id)))
    if not fails:
        c.note("No failure noted in memory.")
    out.append(c.section("Unresolved failures"))
    if failures is not None:
        out.append(_attempts(failures, gitstate.current_branch(root) or None,
                             "Failed attempts on this branch", unresolved=True))
    return out
