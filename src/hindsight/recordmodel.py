"""The execution record's shapes (re-exported by :mod:`hindsight.models`): one run of a
command or test suite by an agent or a person, what it changed and how it ended (issue
12). Plain frozen data; the domain is :mod:`hindsight.records`."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, NamedTuple

OUTCOMES = ("success", "failure", "interrupted", "unknown")


def _local(ts: float, text: str) -> str:
    """Unix seconds ``ts`` as ISO 8601 in this process's zone with its offset (what
    :func:`hindsight.models.local_iso` gives; not imported: models re-exports this
    module), or ``text`` when ``ts`` cannot be converted."""
    from datetime import datetime

    try:
        return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):
        return text


class SymbolDelta(NamedTuple):
    """One symbol a record's change touched: ``path`` (repository-relative), ``local``
    (local qualified name), ``change`` (``added``, ``modified`` or ``removed``) and its ast
    hash before and after (16 hex digits, :mod:`hindsight.codeindex.asthash`; ``""`` on
    the side where it does not exist)."""

    path: str
    local: str
    change: str
    old_hash: str
    new_hash: str

    @property
    def qname(self) -> str:
        return f"{self.path}::{self.local}"


@dataclass(frozen=True, slots=True)
class Observation:
    """The parsed, redacted summary of a run's output (never the output itself):
    ``parser`` that read it (``junit``, ``pytest``, ``go``, ``cargo``, ``jest``,
    ``vitest``, ``maven`` or ``""``), a one-line ``summary``, ``counts`` (passed, failed,
    errors, skipped… as found), the ``failed`` and ``passed`` test ids (at most 20 each)
    and the first ``errors`` lines (at most 5, 300 characters each)."""

    parser: str = ""
    summary: str = ""
    counts: tuple[tuple[str, int], ...] = ()
    failed: tuple[str, ...] = ()
    passed: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def tests(self) -> bool:
        """Whether a test runner's result was found."""
        return bool(self.parser)

    def as_dict(self) -> dict[str, Any]:
        return {"parser": self.parser, "summary": self.summary, "counts": dict(self.counts),
                "failed": list(self.failed), "passed": list(self.passed),
                "errors": list(self.errors)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Observation:
        """Inverse of :meth:`as_dict` (missing keys read as empty)."""
        return cls(str(d.get("parser", "")), str(d.get("summary", "")),
                   tuple((str(k), int(v)) for k, v in dict(d.get("counts") or {}).items()),
                   tuple(d.get("failed") or ()), tuple(d.get("passed") or ()),
                   tuple(d.get("errors") or ()))


@dataclass(frozen=True, slots=True)
class ExecutionRecord:
    """One stored attempt. What ran: ``tool`` (``Bash``, ``Shell``, ``run``, ``api``…) and
    ``command`` (redacted, at most 1,000 characters); when: ``started_at`` (ISO 8601 with
    the writer's offset), ``started_ts`` (Unix seconds), ``duration_ms`` (None: unknown);
    how it ended: ``exit_code`` (None: unknown), ``outcome`` (one of :data:`OUTCOMES`),
    ``observation``; the code change it belongs to (everything changed since the previous
    record of the same session): ``files``, ``changes`` (per symbol its ast hash before and
    after) and ``diff_summary`` (``path +added -deleted`` per file, not the diff); the
    symbols the run ``exercised`` (failing or run tests and their callees, qualified
    names) and its ``scope`` (``suite``: the whole test suite ran, ``tests``: some tests,
    ``""``: no test run); the context anchor ``root``, ``branch``, ``head``, ``cwd`` (relative to the
    root), ``session``, ``agent``; the user's ``feedback`` (the next human message after
    it, redacted); ``verified`` (its change confirmed by a passing run that exercises its
    symbols: its own, or a later one with no change to them in between; never for a failed
    run) and ``verified_ts`` (when, 0 if not); and for the lifecycle ``retrievals`` and the
    test runs linked to it (``runs``) and passed (``runs_passed``)."""

    id: int
    tool: str
    command: str
    started_at: str
    started_ts: float
    duration_ms: int | None
    exit_code: int | None
    outcome: str
    observation: Observation
    files: tuple[str, ...]
    changes: tuple[SymbolDelta, ...]
    diff_summary: str
    exercised: tuple[str, ...]
    scope: str
    root: str
    branch: str
    head: str
    cwd: str
    session: str
    agent: str
    feedback: str = ""
    verified: bool = False
    verified_ts: float = 0.0
    retrievals: int = 0
    runs: int = 0
    runs_passed: int = 0

    def attempt_dict(self) -> dict[str, Any]:
        """The shape of one attempt in ``hindsight attempts --json`` and the MCP tool
        ``attempts``; ``started_at`` in the reader's zone with its offset."""
        return {"id": self.id, "outcome": self.outcome, "command": self.command,
                "observation": self.observation.as_dict(), "diff_summary": self.diff_summary,
                "session": self.session, "started_at": _local(self.started_ts, self.started_at),
                "verified": self.verified}

    def as_dict(self) -> dict[str, Any]:
        """Every field; ``changes`` as objects with ``qname``; times in the reader's
        zone."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["started_at"] = _local(self.started_ts, self.started_at)
        out["observation"] = self.observation.as_dict()
        out["files"], out["exercised"] = list(self.files), list(self.exercised)
        out["changes"] = [{**c._asdict(), "qname": c.qname} for c in self.changes]
        return out
