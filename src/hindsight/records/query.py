"""The questions asked of execution records: the attempts on a symbol (``hindsight
attempts``, MCP ``attempts``), failures and whether a later run resolved them (briefing,
knowledge pages), failed attempts on files (the edit hook) and the last run of each step
of a call trace (``hindsight trace``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from hindsight.errors import NotFound
from hindsight.models import ExecutionRecord, local_iso, simple_name, split_qname

if TYPE_CHECKING:
    from hindsight.records.service import RecordService

COUNTED = 10_000  # records an attempts question counts (and pages through)


def target(svc: RecordService, symbol: str, file: str | None
           ) -> tuple[str, list[tuple[str, str]], list[str]]:
    """``(shown name, (path, local) pairs, bare names)`` a symbol spec looks up: the
    indexed symbol when the code index resolves it (Ambiguous is raised as is); else
    ``path::local`` as written, or the name's last part (matched by name, and on ``local``
    when the spec holds a dot)."""
    from hindsight.errors import NotIndexed

    try:
        sym = svc.code.resolve(symbol, file)
        return sym.qname, [(sym.path, sym.local)], []
    except (NotFound, NotIndexed):
        pass
    qn = split_qname(symbol) if "::" in symbol else None
    if qn is not None:
        return symbol, [qn], []
    return symbol, [], [simple_name(symbol)]


def _keep(rec_links: list[tuple[int, str, str, str]], spec: str, file: str | None
          ) -> set[int]:
    """Records whose link matches a dotted spec's local ending and lies under ``file``."""
    out = set()
    for rid, path, local, _role in rec_links:
        if "." in spec and not (local == spec or local.endswith("." + spec)):
            continue
        if file and not (path == file or path.startswith(file.rstrip("/") + "/")):
            continue
        out.add(rid)
    return out


def attempts(svc: RecordService, symbol: str, file: str | None, outcome: str | None,
             limit: int | None, offset: int) -> dict[str, Any]:
    """``{"symbol", "attempts": [ExecutionRecord.attempt_dict()...], "total",
    "truncated"}``: the records that changed ``symbol`` or exercised it (a test of it, or
    a test calling it), newest first, from ``offset``, at most ``limit`` (None: all);
    ``outcome`` filters. Each one shown counts a retrieval. In client mode
    (``svc.team``) teammates' attempts from the server are merged in (:func:`_add_team`).
    Raises Ambiguous, and NotFound when the name is neither in the index nor linked to any
    record (here or, in client mode, on the server)."""
    if svc.team is None:
        return _local(svc, symbol, file, outcome, limit, offset)
    want = None if limit is None else offset + limit
    try:
        out = _local(svc, symbol, file, outcome, want, 0)
    except NotFound:
        out = None
    theirs = svc.team(symbol, file, outcome, min(want or TEAM_MAX, TEAM_MAX))
    if out is None:
        if not theirs or not theirs[0]:
            raise NotFound(f"no symbol named {symbol!r} in the index, and no attempt "
                           "names it here or on the server")
        out = {"symbol": symbol, "attempts": [], "total": 0, "truncated": False}
    if theirs:
        _add_team(out, theirs[0], int(theirs[1]))
    every = out["attempts"][offset:]
    out["attempts"] = every if limit is None else every[:limit]
    out["truncated"] = offset + len(out["attempts"]) < out["total"]
    return out


def _local(svc: RecordService, symbol: str, file: str | None, outcome: str | None,
           limit: int | None, offset: int) -> dict[str, Any]:
    shown, pairs, names = target(svc, symbol, svc.code.rel(file) if file else None)
    ids = svc.store.record_ids(symbols=pairs, names=names, outcome=outcome, limit=COUNTED)
    if not ids and names and not (outcome and svc.store.record_ids(names=names, limit=1)):
        # neither in the index nor named by any record (whatever the outcome): a typo
        raise NotFound(f"no symbol named {symbol!r} in the index, and no attempt names it")
    if names:
        rel = svc.code.rel(file) if file else None
        keep = _keep(svc.store.linked_symbols(ids), symbol.split("::")[-1], rel)
        ids = [i for i in ids if i in keep]
    page = ids[offset:] if limit is None else ids[offset:offset + limit]
    recs = svc.store.get_records(page, links=False)
    if page:
        svc.touch(page)
    return {"symbol": shown, "attempts": [recs[i].attempt_dict() for i in page if i in recs],
            "total": len(ids), "truncated": offset + len(page) < len(ids)}


TEAM_MAX = 1000  # the most attempts asked of the server at once (its /v1/attempts limit)


def _add_team(out: dict[str, Any], theirs: list[dict[str, Any]], total: int) -> None:
    """Merge the server's attempts (``theirs``, of ``total`` there) into ``out``, newest
    first: those this checkout does not hold. The server's copy of a record sent from here
    has the same start time, command, session, outcome and diff summary; each teammate's
    attempt keeps its ``agent`` and is marked ``"server": true`` (its ``id`` is the
    server's). ``total`` counts each record once. Order: start time to the second (what
    an attempt shows); within one second this checkout's come first."""
    from datetime import datetime

    def key(a: dict[str, Any]) -> tuple[float, str, str, str, str]:
        try:
            ts = datetime.fromisoformat(str(a.get("started_at"))).timestamp()
        except ValueError:
            ts = 0.0
        return (round(ts, 3), str(a.get("command")), str(a.get("session")),
                str(a.get("outcome")), str(a.get("diff_summary")))

    mine = {key(a) for a in out["attempts"]}
    new = [{**a, "server": True} for a in theirs if key(a) not in mine]
    same = len(theirs) - len(new)
    out["attempts"] = sorted(out["attempts"] + new, key=lambda a: -key(a)[0])
    out["total"] += max(total - same, len(new))


def resolved(svc: RecordService, failure: ExecutionRecord) -> int | None:
    """The id of the first passing test run after ``failure`` that resolves it — one of
    the whole suite, or one linked to a test the failure ran or a symbol it changed — or
    None (:meth:`hindsight.store.base.RecordStore.resolved_by`)."""
    return svc.store.resolved_by([failure.id]).get(failure.id)


NOT_RUN = (126, 127)  # exit codes of a command that never ran (POSIX shell)


def failures(svc: RecordService, branch: str | None, limit: int, unresolved: bool
             ) -> list[ExecutionRecord]:
    """Failed records newest first, at most ``limit``: of ``branch`` when given; with
    ``unresolved`` only those no later passing run resolved (:func:`resolved`); never a
    command that did not run (exit 126/127: a typo is not a failed attempt)."""
    ids = svc.store.record_ids(outcome="failure", branch=branch, limit=limit * 5)
    recs = svc.store.get_records(ids)
    # a command not found or not executable (127, 126) is a typo, not a failed attempt
    rows = [recs[i] for i in ids if i in recs and recs[i].exit_code not in NOT_RUN]
    if unresolved and rows:
        rows = _open(svc, rows, limit)
    return rows[:limit]


def _open(svc: RecordService, rows: list[ExecutionRecord], limit: int = 1_000_000
          ) -> list[ExecutionRecord]:
    """The first ``limit`` of ``rows`` (failures) that no later passing run resolved."""
    out: list[ExecutionRecord] = []
    for start in range(0, len(rows), max(limit, 8)):
        part = rows[start:start + max(limit, 8)]
        done = svc.store.resolved_by([r.id for r in part])
        out += [r for r in part if r.id not in done]
        if len(out) >= limit:
            break
    return out[:limit]


def for_files(svc: RecordService, files: list[str], exclude: set[int] | frozenset[int],
              limit: int) -> list[ExecutionRecord]:
    """Unresolved failed records that changed one of ``files`` (absolute or root-relative)
    or are linked to a symbol in one, newest first, at most ``limit``, none of
    ``exclude``."""
    if limit <= 0:
        return []
    rels = []
    for f in files:
        rel = os.path.relpath(f, svc.root) if os.path.isabs(f) else f
        if not rel.startswith(".."):
            rels.append(rel.replace(os.sep, "/"))
    if not rels:
        return []
    ids = [i for i in svc.store.record_ids(paths=rels, outcome="failure", limit=200)
           if i not in exclude]
    recs = svc.store.get_records(ids)
    rows = [recs[i] for i in ids if i in recs]
    return _open(svc, rows, limit) if rows else []


def mark_steps(svc: RecordService, step: Any) -> None:
    """Set ``verified`` on each step of a call trace (a :class:`~hindsight.models.Step`
    tree) whose symbol a record is linked to: ``{"status": outcome of the newest such
    record, "at": its start, "verified_at": the start of the newest passing test run that
    exercised or changed it, or None}`` (times ISO 8601 in the reader's zone); ``None``
    for a step no record is linked to."""
    todo, seen = [step], {}
    while todo:
        st = todo.pop()
        todo.extend(st.children)
        if st.symbol is None:
            continue
        key = (st.symbol.path, st.symbol.local)
        if key not in seen:
            seen[key] = _last_run(svc, key)
        st.verified = seen[key]


def _last_run(svc: RecordService, key: tuple[str, str]) -> dict[str, Any] | None:
    ids = svc.store.record_ids(symbols=[key], limit=50)
    if not ids:
        return None
    recs = svc.store.get_records(ids)
    newest = recs[ids[0]]
    ok = next((recs[i] for i in ids if recs[i].outcome == "success" and recs[i].scope), None)
    return {"status": newest.outcome, "at": local_iso(newest.started_ts, newest.started_at),
            "verified_at": local_iso(ok.started_ts, ok.started_at) if ok else None}
