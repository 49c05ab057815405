"""Who may read a memory (issue 11, item 5): the :class:`Viewer` every read that returns
memory content takes, and the rule in Python (:func:`can_see`). Each backend states the
same rule in its SQL (``store/sqlite/visible.py``, ``store/postgres/db.py``); the tests
compare them. Re-exported by :mod:`hindsight.store.base` (the contracts) and
:mod:`hindsight.app` (for the adapters)."""

from __future__ import annotations

from typing import NamedTuple


class Viewer(NamedTuple):
    """Who reads (issue 11): ``agent``, its ``team`` (``""``: none), ``admin``. A memory is
    seen when it is ``public``, or ``team`` of the viewer's non-empty team, or owned by
    ``agent`` (non-empty owner); an admin sees all. Backends filter in their query;
    ``viewer=None`` (local use, no identity) sees everything."""

    agent: str
    team: str = ""
    admin: bool = False


def can_see(viewer: Viewer | None, visibility: str, owner: str, team: str) -> bool:
    """Whether ``viewer`` may see a memory of ``visibility``/``owner``/``team``: the rule
    of :class:`Viewer` in Python (backends state it in SQL; tests compare the two)."""
    if viewer is None or viewer.admin:
        return True
    if owner and owner == viewer.agent:
        return True
    return visibility == "public" or (visibility == "team" and team != ""
                                      and team == viewer.team)
