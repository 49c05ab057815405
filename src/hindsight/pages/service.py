"""The knowledge pages of one bank as a service (``bank.pages``): read them, refresh them
(delta: only sections whose evidence changed get a new text), tell which are due, and give
the session briefing a short map of them.

Triggers (no daemon: the session-start hook and the git hooks ask :meth:`PageService.due`
and run :meth:`PageService.refresh_due` in a detached process): a page never written; at
least ``surveyRefreshCommits`` commits ingested since the last refresh; the page's time in
``pageTriggerCron`` has come (:mod:`hindsight.pages.schedule`). One refresh at a time per
bank (lock ``pages-<bank>``). The state behind the triggers is meta ``pages:state``:
``{"commits": history commits at the last refresh, "due": {page: Unix seconds}, "cron":
the expression the times were computed with}``.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from hindsight.errors import ConfigError, NotFound
from hindsight.pages.records import MARK, NAMES, TITLES, Page, Section
from hindsight.store.base import PageStore

STATE, SCAN = "pages:state", "pages:scan"


def merge(old: Page | None, fresh: list[Section]) -> tuple[list[Section], list[str],
                                                            list[int]]:
    """The sections of the next version: a fresh section whose evidence equals the stored
    one of the same heading keeps the stored text (an earlier rewrite included). Returns
    ``(sections, what changed: "added: H", "changed: H", "removed: H", the positions of
    the new or changed sections)``."""
    prev = {s.heading: s for s in old.sections} if old else {}
    out, changed, todo = [], [], []
    for i, s in enumerate(fresh):
        p = prev.get(s.heading)
        if p is not None and p.evidence == s.evidence:
            out.append(p)
            continue
        out.append(s)
        todo.append(i)
        changed.append(f"{'changed' if p is not None else 'added'}: {s.heading}")
    headings = {s.heading for s in fresh}
    changed += [f"removed: {h}" for h in prev if h not in headings]
    return out, changed, todo


class PageService:
    """Knowledge pages of the bank ``bank_id`` whose repository is at ``root``.

    ``code``, ``history``, ``memory``: the bank's services; ``settings()``: its settings;
    ``llm()``: the configured LLM or None; ``records()``: the execution-record service or
    None (its ``failures(branch=, limit=)`` feeds the failed attempts: the hook point for
    ``bank.records``)."""

    def __init__(self, store: PageStore, *, bank_id: str, root: str, code: Any,
                 history: Any, memory: Any, settings: Callable[[], Any],
                 llm: Callable[[], Any] | None = None,
                 records: Callable[[], Any] | None = None) -> None:
        self.store = store
        self.bank_id, self.root = bank_id, root
        self.code, self.history, self.memory = code, history, memory
        self._settings, self._llm = settings, llm
        self._records = records

    # --- reading ------------------------------------------------------------------------
    def list(self) -> builtins.list[Page]:
        """The newest version of every page written, in :data:`NAMES` order."""
        got = {d["name"]: Page.from_stored(d) for d in self.store.latest_pages()}
        return [got[n] for n in NAMES if n in got]

    def get(self, name: str) -> Page:
        """The newest version of page ``name``. Raises ConfigError (not a page name),
        NotFound (not written yet)."""
        check_name(name)
        for d in self.store.page_versions(name, 1):
            return Page.from_stored(d)
        raise NotFound(f"page {name}: not written yet (hindsight pages --refresh)")

    def versions(self, name: str, limit: int = 20) -> builtins.list[Page]:
        """Page ``name``'s versions newest first, at most ``limit``; each says in
        ``changed`` what it changed. Raises ConfigError for an unknown name."""
        check_name(name)
        return [Page.from_stored(d) for d in self.store.page_versions(name, limit)]

    # --- triggers -----------------------------------------------------------------------
    def _state(self) -> dict[str, Any]:
        try:
            st = json.loads(self.store.get_meta(STATE) or "{}")
        except ValueError:
            st = {}
        return st if isinstance(st, dict) else {}

    def _commits(self) -> int:
        return int(self.history.store.commit_count())

    def due(self, now: float | None = None) -> dict[str, str]:
        """Pages due for a refresh and why (``first``, ``commits``, ``schedule``); ``{}``
        while the repository is not indexed. Cheap: two meta reads and a count, croniter
        only when ``pageTriggerCron`` changed since the last refresh."""
        if not self.code.is_indexed():
            return {}
        from hindsight.memory.clock import now_ts
        from hindsight.pages.schedule import next_run

        now = now_ts() if now is None else now
        st, s = self._state(), self._settings()
        written = {d["name"] for d in self.store.latest_pages()}
        every = int(s.survey_refresh_commits)
        new = self._commits() - int(st.get("commits", 0))
        out: dict[str, str] = {}
        for name in NAMES:
            if name not in written:
                out[name] = "first"
                continue
            if every and new >= every:
                out[name] = "commits"
                continue
            at = st.get("due", {}).get(name)
            if st.get("cron") != s.page_trigger_cron:  # changed since: when it is due now
                at = next_run(s.page_trigger_cron, self.bank_id, name,
                              float(st.get("at", {}).get(name, now)))
            if at is not None and now >= float(at):
                out[name] = "schedule"
        return out

    def refresh_due(self, reason: str = "") -> dict[str, Any] | None:
        """Refresh the pages that are :meth:`due` (without waiting for another refresh);
        None when none is due or another process is refreshing."""
        due = self.due()
        if not due:
            return None
        why = ", ".join(sorted(set(due.values())))
        return self.refresh(list(due), reason=f"{reason}: {why}" if reason else why)

    @contextlib.contextmanager
    def _lock(self, wait_s: float) -> Iterator[bool]:
        from hindsight.config.paths import bank_key, file_lock

        with file_lock(f"pages-{bank_key(self.bank_id)}", wait_s=wait_s) as held:
            yield held

    @staticmethod
    def without_memories(pages: builtins.list[dict[str, Any]], mids: set[int]
                         ) -> builtins.list[dict[str, Any]]:
        """``pages`` (``Page.as_dict`` shapes) without the lines citing memories ``mids``
        (the team server hides memories its caller may not see)."""
        from hindsight.pages.records import scrub_memory

        out = []
        for p in pages:
            sections = p["sections"]
            for mid in sorted(mids):
                sections = scrub_memory(sections, mid, []) or sections
            out.append({**p, "sections": sections})
        return out

    # --- writing ------------------------------------------------------------------------
    def scrub_memory(self, mid: int, frags: builtins.list[str]) -> int:
        """Remove purged memory ``mid`` from every stored version of every page
        (:func:`hindsight.pages.records.scrub_memory`; ``MemoryService.on_purge`` calls
        this). Returns how many versions changed. Raises StorageError."""
        from hindsight.pages.records import scrub_memory

        todo = []
        for p in self.store.all_page_rows():
            new = scrub_memory(p["sections"], mid, frags)
            if new is not None:
                todo.append((p["name"], int(p["version"]), new))
        self.store.replace_sections(todo)
        return len(todo)

    def refresh(self, names: builtins.list[str] | None = None, *, reason: str = "manual",
                wait_s: float = 0.0) -> dict[str, Any] | None:
        """Rebuild the deterministic sections of ``names`` (all pages when None), keep
        those whose evidence is unchanged, rewrite the changed ones with the LLM when one
        is configured (:mod:`hindsight.pages.rewrite`), and store a new version of each
        page that changed. Returns ``{"reason", "ms", "scan_files_read", "pages": [{"name",
        "version", "written", "changed", "ms"}]}``, or None when another refresh held the
        lock for ``wait_s`` seconds. Raises NotIndexed (the repository was never indexed),
        ConfigError (an unknown page name), StorageError."""
        todo = list(NAMES) if names is None else [check_name(n) for n in names]
        code = self.code.require()
        with self._lock(wait_s) as held:
            if not held:
                return None
            return self._refresh(code, todo, reason)

    def _refresh(self, code: Any, names: builtins.list[str], reason: str) -> dict[str, Any]:
        from hindsight.memory.clock import iso, now_ts
        from hindsight.pages import gitstate
        from hindsight.pages.schedule import next_run

        t0 = time.perf_counter()
        now = now_ts()
        old = {p.name: p for p in self.list()}
        head, commits = gitstate.head(self.root), self._commits()
        out: dict[str, Any] = {"reason": reason, "scan_files_read": 0, "pages": []}
        llm = self._llm_or_none()
        for name in names:
            t1 = time.perf_counter()
            fresh = self._build(name, code, out)
            sections, changed, todo = merge(old.get(name), fresh)
            row: dict[str, Any] = {"name": name, "written": False, "changed": changed,
                                   "version": old[name].version if name in old else 0}
            if changed:
                changed += self._rewrite(llm, TITLES[name], sections, todo)
                page = Page(name, TITLES[name], sections, updated_at=iso(now), updated_ts=now,
                            reason=reason, head=head, commits=commits, changed=changed)
                row.update(written=True, version=self.store.add_page(page.stored()))
            row["ms"] = round((time.perf_counter() - t1) * 1000, 1)
            out["pages"].append(row)
        st = self._state()
        s = self._settings()
        st.update(commits=commits, cron=s.page_trigger_cron)
        for name in names:
            st.setdefault("at", {})[name] = now
            st.setdefault("due", {})[name] = next_run(s.page_trigger_cron, self.bank_id, name,
                                                      now)
        self.store.set_meta({STATE: json.dumps(st, sort_keys=True)})
        out["ms"] = round((time.perf_counter() - t0) * 1000, 1)
        return out

    def _build(self, name: str, code: Any, out: dict[str, Any]) -> builtins.list[Section]:
        from hindsight.pages import activity, architecture, conventions

        if name == "architecture":
            sections, cache, read = architecture.build(code, self.root,
                                                       self.store.get_meta(SCAN))
            self.store.set_meta({SCAN: cache})
            out["scan_files_read"] = read
            return sections
        if name == "conventions":
            return conventions.build(self.root, self.history, self.memory)
        failures = self._failures()
        if name == "hotspots":
            return activity.hotspots(self.history, self.memory, failures)
        return activity.in_flight(self.root, self.history, self.memory, failures)

    def _failures(self) -> Callable[..., builtins.list[Any]] | None:
        """FAILED ATTEMPTS hook point: ``bank.records.failures`` when an execution-record
        service exists, else None (the pages leave the failed-attempt sections out)."""
        svc = self._records() if self._records is not None else None
        fn = getattr(svc, "failures", None)
        return fn if callable(fn) else None

    def _llm_or_none(self) -> Any:
        from hindsight.errors import ProviderError

        try:
            return self._llm() if self._llm is not None else None
        except ProviderError:
            return None

    def _rewrite(self, llm: Any, title: str, sections: builtins.list[Section], todo: builtins.list[int]
                 ) -> builtins.list[str]:
        """Rewrite the sections at ``todo`` in place; one line per attempt."""
        if llm is None:
            return []
        from hindsight.pages.rewrite import rewrite

        timeout = float(self._settings().llm_timeout_s)
        notes = []
        for i in todo:
            new, why = rewrite(llm, title, sections[i], timeout)
            if new is not None:
                sections[i] = new
                notes.append(f"rewritten: {new.heading}")
            elif why != "nothing cited":
                notes.append(f"rewrite rejected ({sections[i].heading}): {why}")
        return notes

    # --- the session briefing -----------------------------------------------------------
    def brief_map(self, max_chars: int = 1200) -> str:
        """A short map of the pages for the session briefing: one line per page (each
        at most ``max_chars`` / pages, 60 to 360 characters), each section's heading and
        first claim (citation marks left out), at most ``max_chars`` characters (whole
        lines); "" when no page is written."""
        lines: builtins.list[str] = []
        used = 0
        pages = self.list()
        width = max(60, min(360, max_chars // max(1, len(pages)) - 1))
        for p in pages:
            bits = []
            for s in p.sections:
                first = next((ln[2:] for ln in s.text.splitlines() if ln.startswith("- ")),
                             "")
                first = " ".join(MARK.sub("", first).split())
                bits.append(f"{s.heading}: {_clip(first, 90)}" if first else s.heading)
            line = _clip(f"- {p.name} (v{p.version}): " + "; ".join(bits), width)
            if used + len(line) + 1 > max_chars:
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)


def _clip(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[:cap - 1] + "…"


def check_name(name: str) -> str:
    """``name`` when it is a page name; ConfigError (with the choices) otherwise."""
    if name not in NAMES:
        raise ConfigError(f"page {name!r}: one of {', '.join(NAMES)}", option="page",
                          value=name, choices=list(NAMES))
    return name
