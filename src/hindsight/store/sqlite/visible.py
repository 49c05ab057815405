"""Who sees a memory, as SQL for SQLite (the rule of :class:`hindsight.store.base.Viewer`;
the PostgreSQL backend states the same rule in its dialect).

``clause(viewer, "m.")`` gives ``" AND (…)"`` and its parameters, to append to a query's
``WHERE`` over ``memories`` (aliased ``m`` with the prefix ``"m."``); nothing for no
viewer or an admin.
"""

from __future__ import annotations

from typing import Any

from hindsight.store.base import Viewer


def clause(viewer: Viewer | None, prefix: str = "") -> tuple[str, list[Any]]:
    """``(sql, args)``: the condition that ``viewer`` may see the row (``""`` and ``[]``
    for None or an admin). A memory is seen when it is public, or owned by the viewer (a
    non-empty owner), or a team memory of the viewer's non-empty team."""
    if viewer is None or viewer.admin:
        return "", []
    p = prefix
    return (f" AND ({p}visibility = 'public' OR ({p}owner != '' AND {p}owner = ?) OR "
            f"({p}visibility = 'team' AND {p}team != '' AND {p}team = ?))",
            [viewer.agent, viewer.team])
