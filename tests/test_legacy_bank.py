"""A bank written by release 0.1.0 (``tests/fixtures/banks/legacy-0.1.0.db``, made by that
release's CLI on ``tests/fixtures/banks/legacy-repo``: index, ingest of two commits, two
memories, one edit-trace event) opens with today's code, is migrated in place, answers as
before, and its ``--json`` output keeps the 0.1.0 shapes except the changes the README
lists (``count`` fields, the paging fields ``total``/``offset``/``truncated``, ``qname`` in
every symbol object, list commands as objects, the history symbol as an object,
``implicit`` in every anchor object)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, make_repo

GOLDEN = Path(__file__).resolve().parent / "golden" / "cli-0.1.0"
BANK_ID = "legacy-bank"
NOW = "2026-01-05T12:00:00+00:00"


@pytest.fixture
def legacy(tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = make_repo(tmp_path / "repo", {
        "pkg/core.py": (FIXTURES / "banks" / "legacy-repo" / "pkg" / "core.py").read_text()})
    banks = hindsight_home / "banks"
    banks.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "banks" / "legacy-0.1.0.db", banks / f"{BANK_ID}.db")
    for k, v in {"HINDSIGHT_BANK_ID": BANK_ID, "HINDSIGHT_EMBEDDER": "hashing",
                 "HINDSIGHT_NOW": NOW}.items():
        monkeypatch.setenv(k, v)
    return repo


def _cli(repo: Path, *args: str) -> Any:
    r = subprocess.run([sys.executable, "-m", "hindsight", *args, "--json"], cwd=repo,
                       capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_legacy_bank_opens_and_answers(legacy: Path) -> None:
    from hindsight.app import open_bank

    with open_bank(str(legacy)) as b:
        st = b.status()
        assert (st["bank"], st["files"], st["symbols"], st["edges"]) == (BANK_ID, 1, 4, 4)
        assert st["memories"] == {"active": 2, "archived": 0, "forgotten": 0,
                                  "superseded": 0, "stale": 0}
        assert (st["history"]["commits"], st["history"]["trace_events"]) == (2, 1)
        assert [m.text for m in b.memory.memories()] == [
            "Lesson: the Store.save retry loop deadlocked",
            "We decided connect must always lower-case paths"]
        m = b.memory.get(1)
        assert (m.kind, [(a.path, a.symbol) for a in m.anchors]) == (
            "decision", [("pkg/core.py", "connect")])
        hits = b.memory.recall("lower-case paths").hits
        assert hits[0].memory.id == 1
        assert [e.subject for e in b.history.history("connect")["entries"]] == ["add core"]
        assert [e["actor"] for e in b.history.trace_log()] == ["claude-code"]
        _t, callers = b.code.callers("connect")
        assert [h.qname for h in callers] == ["pkg/core.py::Store.save"]
        # it keeps working: a new memory and a re-index
        assert b.memory.retain("Convention: paths are lower-case", kind="convention").id == 3
        assert b.code.index().files_parsed in (0, 1)
        # the pass after the migration anchors the old lesson to the method it names
        assert [(a.path, a.symbol, a.implicit) for a in b.memory.get(2).anchors] == [
            ("pkg/core.py", "Store.save", True)]
    with sqlite3.connect(Path(os.environ["HINDSIGHT_HOME"]) / "banks" / f"{BANK_ID}.db") as c:
        names = [r[0] for r in c.execute("SELECT name FROM migrations ORDER BY name")]
    assert names[:3] == ["0001_code_index", "0002_history", "0003_memory"]


def _drop(d: Any, *keys: str) -> Any:
    """``d`` without the fields that change with time and place."""
    if isinstance(d, dict):
        return {k: _drop(v, *keys) for k, v in d.items() if k not in keys}
    if isinstance(d, list):
        return [_drop(v, *keys) for v in d]
    return d


VOLATILE = ("ms", "access_count", "last_accessed_ts")


def _golden(name: str) -> Any:
    """The 0.1.0 output with this release's listed changes to memories: every anchor object
    has ``implicit`` (0: given with the memory, 1: found in its text), every memory
    ``team`` (after ``owner``)."""
    return _implicit(json.loads((GOLDEN / f"{name}.json").read_text()))


def _implicit(d: Any) -> Any:
    if isinstance(d, dict):
        if "anchors" in d and isinstance(d["anchors"], list):
            d["anchors"] = [{**a, "implicit": 0} for a in d["anchors"]]
        if "owner" in d and "visibility" in d:  # listed change: every memory has "team"
            d = {k: v for key, val in d.items()
                 for k, v in ([(key, val), ("team", "")] if key == "owner" else [(key, val)])}
        return {k: _implicit(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_implicit(v) for v in d]
    return d


def test_json_keeps_the_0_1_shapes_but_the_listed_changes(legacy: Path) -> None:
    # byte-compatible apart from what changes with each run
    # listed change: the fused score is a sum of z-scores since issue 15 (was RRF)
    old = _drop(_golden("recall"), *VOLATILE, "score")
    new = _drop(_cli(legacy, "recall", "lower-case"), *VOLATILE)
    assert [type(h.pop("score")) for h in new["hits"]] == [float]
    assert new == {
        "hits": old["hits"], "count": 1, **{k: v for k, v in old.items() if k != "hits"}}
    assert _drop(_cli(legacy, "show", "1"), *VOLATILE) == _drop(_golden("show"), *VOLATILE)
    # listed changes: "count" fields (recall's above too); every symbol object carries its
    # qname
    old = _golden("symbols")
    # and the paging fields of a list that may be cut (complete here)
    page = {"count": 1, "total": 1, "offset": 0, "truncated": False}
    assert _cli(legacy, "symbols", "connect") == {**old, **page}
    old = _golden("callers")
    for c in old["callers"]:
        c["symbol"]["qname"] = c["qname"]
    # listed change of issue 14: callers count the unresolved calls of the same name
    assert _cli(legacy, "callers", "connect") == {**old, "depth": 1, **page,
                                                   "unresolved_same_name": 0}
    # history: the symbol is an object (the string moved to "qname")
    old, new = _golden("history"), _cli(legacy, "history", "connect")
    assert new["symbol"]["qname"] == old["symbol"] == new["qname"]
    # listed change of issue 14: every entry says whether its commit is a merge
    assert new["entries"] == [{**e, "merge": False} for e in old["entries"]]
    assert new["count"] == len(old["entries"]) and new["merges_hidden"] == 0
    assert (new["total"], new["offset"], new["truncated"]) == (len(old["entries"]), 0, False)
    # list commands: an object with the items and their count
    old = _golden("memories")
    new = _cli(legacy, "memories")
    assert _drop(new, *VOLATILE) == {"memories": _drop(old, *VOLATILE), "count": 2}
    assert _cli(legacy, "trace-log") == {"events": _golden("trace-log"), "count": 1}
