"""``hotspots``: the files and symbols that changed most, and most often in fixes, over a
recent window of the git history.

Only what exists at HEAD is listed: a file must be in HEAD's tree, a symbol in the code
index (or, without one, in a file of HEAD and not removed by its newest change); the
answer counts what it left out. A symbol is named as the code names it: the ``#2``,
``#3`` suffixes history uses to tell apart definitions sharing one name in a file
(conditional definitions, overloads) are merged into that one name, each commit counted
once. Fix commits: :mod:`hindsight.history.fixes`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hindsight.history import gitread as G
from hindsight.history.queries import partial_note, require_history
from hindsight.store.base import HistoryStore

DAY = 86_400
_DUP = re.compile(r"#\d+$")


def _canonical(renames: list[tuple[str, str, str, str]]
               ) -> dict[tuple[str, str], tuple[str, str]]:
    """Every old identity → the name it has after the last rename (renames oldest first;
    a rename back to an earlier name, x → y → x, ends at x)."""
    final: dict[tuple[str, str], tuple[str, str]] = {}
    members: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for op, ol, np, nl in renames:
        old, new = (op, ol), (np, nl)
        if old == new:
            continue
        group = members.pop(old, set()) | {old}
        for m in group:
            final[m] = new
        members.setdefault(new, set()).update(group)
        if new in final:  # the new name had been renamed away before: it is live again
            del final[new]
    return final


def _files(hs: HistoryStore, since: int, canon: dict[tuple[str, str], tuple[str, str]],
           at_head: set[str]) -> tuple[list[dict[str, Any]], int]:
    files: dict[str, dict[str, Any]] = {}
    for f in hs.file_churn(since):
        path = canon.get((f["path"], ""), (f["path"], ""))[0]
        agg = files.setdefault(path, {"path": path, "commits": 0, "fixes": 0, "lines": 0})
        for k in ("commits", "fixes", "lines"):
            agg[k] += f[k] or 0
    flist = [f for f in files.values() if f["path"] in at_head]
    for f in flist:
        f["score"] = f["commits"] + f["fixes"]
    flist.sort(key=lambda f: (-f["score"], -f["fixes"], -f["lines"], f["path"]))
    return flist, len(files) - len(flist)


def _symbols(hs: HistoryStore, since: int, canon: dict[tuple[str, str], tuple[str, str]]
             ) -> list[dict[str, Any]]:
    syms: dict[tuple[str, str], dict[str, Any]] = {}
    for s in hs.symbol_churn(since):
        path, local = canon.get((s["path"], s["local"]), (s["path"], s["local"]))
        local = _DUP.sub("", local)
        agg = syms.setdefault((path, local), {"qname": f"{path}::{local}", "path": path,
                                              "local": local, "kind": s["kind"],
                                              "shas": set(), "fix_shas": set()})
        agg["shas"].update((s["shas"] or "").split(","))
        agg["fix_shas"].update((s["fix_shas"] or "").split(","))
    slist = []
    for agg in syms.values():
        shas, fixes = agg.pop("shas") - {""}, agg.pop("fix_shas") - {""}
        slist.append({**agg, "commits": len(shas), "fixes": len(fixes),
                      "score": len(shas) + len(fixes)})
    slist.sort(key=lambda s: (-s["score"], -s["fixes"], s["qname"]))
    return slist


def _alive_in_history(hs: HistoryStore, path: str, local: str) -> bool:
    """Without a code index: the newest change of the symbol (any ``#N`` variant) is not
    its removal."""
    rows = hs.symbol_changes(path, local)
    return not rows or rows[0]["change"] != "removed"


def hotspots(hs: HistoryStore, root: str, days: int = 90, limit: int = 20,
             indexed: Callable[[list[str]], set[str]] | None = None) -> dict[str, Any]:
    """Files and symbols ranked by churn over the ``days`` before the newest ingested
    commit (not the wall clock, so an old repository still has hotspots): score =
    commits + fix commits (a fix counts twice), ties by fixes, then lines changed. A
    renamed file or moved symbol counts under its newest name. Huge, merge and unreachable
    commits are left out. ``indexed(qnames)``: which of the qualified names the code index
    holds (``None``: no index; history decides, see the module doc; so it does for a file
    at HEAD but not in the work tree, outside a sparse checkout's cone: break-it 40).

    Returns ``{"since", "days", "files": [...], "symbols": [...], "count": {"files",
    "symbols"}, "left_out": {"files", "symbols"}}``: each file has path, commits, fixes,
    lines, score; each symbol qname, path, local, kind, commits, fixes, score;
    ``left_out`` counts the files and symbols in the window that no longer exist at HEAD;
    ``history_partial``: the bank's partial kind, ``""`` when whole; ``notes``: what a
    partial history leaves out (queries.partial_note), and how many huge commits of the
    window are not counted (break-it 40: a window of huge commits only answered empty).
    Raises NotIndexed (no history), GitError (not a git repository, git failing)."""
    require_history(hs, root)
    kind = hs.get_meta("history_partial_kind") or ""
    newest = hs.newest_commit_ts() or 0
    since = max(0, newest - days * DAY)
    canon = _canonical(hs.renames())
    at_head = G.head_files(root)
    flist, files_gone = _files(hs, since, canon, at_head)
    shown: list[dict[str, Any]] = []
    symbols_gone = 0
    ranked = _symbols(hs, since, canon)
    alive = indexed([s["qname"] for s in ranked]) if indexed is not None else None
    for s in ranked:
        ok = s["path"] in at_head and (
            s["qname"] in alive if alive is not None and os.path.lexists(
                os.path.join(root, s["path"])) else  # (outside a sparse cone: not indexed)
            _alive_in_history(hs, s["path"], s["local"]))
        if not ok:
            symbols_gone += 1
        elif len(shown) < limit:
            shown.append(s)
    return {"since": datetime.fromtimestamp(since, UTC).isoformat() if newest else None,
            "days": days, "files": flist[:limit], "symbols": shown,
            "count": {"files": len(flist[:limit]), "symbols": len(shown)},
            "left_out": {"files": files_gone, "symbols": symbols_gone},
            "history_partial": kind,
            "notes": ([f"counted over a {partial_note(kind)}"] if kind else []) + (
                [f"{huge} huge commit{'' if huge == 1 else 's'} in the window (over the "
                 "huge-commit size) left out of the counts"] if (huge := hs.huge_count(
                     since)) else [])}
