"""A bank written by symbol extraction version 1 (``tests/fixtures/banks/identities-v1.db``,
made by ``make_identities_v1.py`` in that directory with the code of commit a4040e0) is
migrated in place: the index is rebuilt with the new identities, anchors to a getter and
setter, to two overloads and to an ``@overload`` method are re-pointed and none is flagged
stale by the change, and the next ingest redoes the history under the new names."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from histutil import Repo

from hindsight.app import open_bank
from hindsight.codeindex.parse import EXTRACTOR_VERSION

BANK_ID = "identities-v1"
SRC = FIXTURES / "banks" / "identities-v1"
SHAS = ["4ffb503faa121acb24f08e49abcba4bba218ef87",
        "d9a1c5d1a90447a643ebbaa4ca7e3c9afbe3bb04"]


@pytest.fixture
def v1_bank(tmp_path: Path, hindsight_home: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    r = Repo(tmp_path / "repo")
    for version in ("v1", "v2"):
        for f in sorted((SRC / version).iterdir()):
            r.write(f.name, f.read_text(encoding="utf-8"))
        r.commit(f"{version} of box, conv and Fmt")
    assert [r.shas[1], r.shas[2]] == SHAS  # the commits the bank's history holds
    banks = hindsight_home / "banks"
    banks.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / "banks" / f"{BANK_ID}.db", banks / f"{BANK_ID}.db")
    for k, v in {"HINDSIGHT_BANK_ID": BANK_ID, "HINDSIGHT_EMBEDDER": "hashing",
                 "HINDSIGHT_NOW": "2026-01-06T12:00:00+00:00"}.items():
        monkeypatch.setenv(k, v)
    return r


def _anchors(b: object) -> list[tuple[int, str, str, str, int]]:
    return sorted(b.memory.store.anchors_all())  # type: ignore[attr-defined]


def test_v1_bank_migrates_anchors_and_history(v1_bank: Repo) -> None:
    r = v1_bank
    with open_bank(str(r.path)) as b:
        before = _anchors(b)
        assert [(m, p, s) for m, p, s, _h, _st in before] == [
            (1, "box.py", "Box.width"), (2, "box.py", "Box.width"),
            (3, "Fmt.java", "Fmt.show"), (4, "Fmt.java", "Fmt.show"),
            (5, "conv.py", "Conv.parse")]
        st = b.code.index()
        assert st.full and st.files_parsed == 3
        assert any(f"symbol extraction changed (version 1 -> {EXTRACTOR_VERSION})" in w
                   for w in st.warnings)
        syms = {s.local: s for p in ("box.py", "Fmt.java", "conv.py")
                for s in b.code.store.file_symbols(p)}
        after = _anchors(b)
        assert [(m, p, s, st) for m, p, s, _h, st in after] == [
            (1, "box.py", "Box.width", 0), (2, "box.py", "Box.width:setter", 0),
            (3, "Fmt.java", "Fmt.show(int)", 0),
            (4, "Fmt.java", "Fmt.show(String,java.util.List<String>)", 0),
            (5, "conv.py", "Conv.parse", 0)]
        # every anchor carries the hash of the symbol it now names
        assert [h for _m, p, s, h, _st in after] == [syms[s].ast_hash for _m, p, s, _h, _st
                                                      in after]
        assert [before[i][3] for i in range(4)] == [after[i][3] for i in range(4)]
        assert b.memory.counts()["stale"] == 0
        assert b.code.store.get_meta("identity_migration") == ""
        # history: the next ingest reads the symbol changes again, under the new names
        ing = b.history.ingest()
        assert (ing.ingested, ing.expanded) == (2, 2)
        assert any("read again" in n for n in ing.notes)
        hist = b.history.history("Box.width:setter")
        assert [(e.sha, e.change) for e in hist["entries"]] == [(SHAS[1], "modified"),
                                                                (SHAS[0], "added")]
        hist = b.history.history("Box.width")
        assert [(e.sha, e.change) for e in hist["entries"]] == [(SHAS[0], "added")]
        hist = b.history.history("Conv.parse")
        assert [(e.sha, e.change) for e in hist["entries"]] == [(SHAS[1], "modified"),
                                                                (SHAS[0], "added")]
        assert b.history.ingest().expanded == 0  # done once
    # the migration does not hide a real change: editing the setter makes its memory stale
    text = (r.path / "box.py").read_text()
    (r.path / "box.py").write_text(text.replace("max(0, value)", "max(1, value)"))
    os.utime(r.path / "box.py", (1, 1))
    with open_bank(str(r.path)) as b:
        st = b.code.index()
        assert (st.full, st.files_parsed) == (False, 1)
        stale = [(m, s, st) for m, _p, s, _h, st in _anchors(b)]
        assert stale == [(1, "Box.width", 0), (2, "Box.width:setter", 1),
                         (3, "Fmt.show(int)", 0),
                         (4, "Fmt.show(String,java.util.List<String>)", 0),
                         (5, "Conv.parse", 0)]
