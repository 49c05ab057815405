"""The filter of ``RecordStore.record_ids`` as SQL, for every backend: the same WHERE
clause over the same tables (``exec_records r``, ``exec_links``, ``exec_symbols``,
``exec_record_files``), written with the backend's placeholder and schema prefix."""

from __future__ import annotations

from typing import Any

ORDER = "r.started_ts DESC, r.id DESC"  # newest first (record_ids' order)
ROLE = {"changed": "c", "test": "t", "callee": "k"}  # link roles as stored (one letter)


def record_where(*, symbols: list[tuple[str, str]] | None, names: list[str] | None,
                 paths: list[str] | None, roles: tuple[str, ...] | None,
                 outcome: str | None, session: str | None, branch: str | None,
                 since: float | None, until: float | None, scope: str | None,
                 ph: str = "?", prefix: str = "") -> tuple[str, list[Any]]:
    """``(" WHERE …" or "", args)`` selecting records linked to any of ``symbols``
    (``(path, local)``), ``names`` or a symbol in ``paths`` (with ``roles`` when given), or
    changing a file in ``paths``; and matching each given column; ``since`` inclusive,
    ``until`` exclusive (Unix seconds). ``ph``: the placeholder (``?`` SQLite, ``%s``
    psycopg); ``prefix``: put before each table name (``{s}.`` for a bank's schema).
    Raises KeyError for an unknown role."""
    where: list[str] = []
    args: list[Any] = []

    def marks(n: int) -> str:
        return ", ".join([ph] * n)

    cond = [(f"(s.path = {ph} AND s.local = {ph})", [p, loc]) for p, loc in symbols or ()]
    cond += [(f"s.name = {ph}", [n]) for n in names or ()]
    cond += [(f"s.path = {ph}", [p]) for p in paths or ()]
    anyof = []
    if cond:
        role = f" AND l.role IN ({marks(len(roles))})" if roles else ""
        anyof.append(f"r.id IN (SELECT l.record_id FROM {prefix}exec_links l WHERE "
                     f"l.symbol_id IN (SELECT s.id FROM {prefix}exec_symbols s WHERE "
                     f"{' OR '.join(c for c, _a in cond)}){role})")
        args += [x for _c, a in cond for x in a] + [ROLE[r] for r in roles or ()]
    if paths:
        anyof.append(f"r.id IN (SELECT f.record_id FROM {prefix}exec_record_files f WHERE "
                     f"f.path IN ({marks(len(paths))}))")
        args += list(paths)
    if anyof:
        where.append(f"({' OR '.join(anyof)})")
    for col, val in (("outcome", outcome), ("session", session), ("branch", branch),
                     ("scope", scope)):
        if val is not None:
            where.append(f"r.{col} = {ph}")
            args.append(val)
    if since is not None:
        where.append(f"r.started_ts >= {ph}")
        args.append(since)
    if until is not None:
        where.append(f"r.started_ts < {ph}")
        args.append(until)
    return (" WHERE " + " AND ".join(where) if where else ""), args
