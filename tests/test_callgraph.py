"""Call-graph fixtures with exact expected edges (issue #14, item 1).

For each ``tests/golden/callgraph/<language>.json``, the fixture project it names is
indexed and its resolved call edges (``src -> dst @line``) must equal the golden's
``edges`` exactly (precision and recall 1.0 on the fixture); the golden's ``misses`` are
edges a complete call graph has that the index knowingly does not give (each with its
reason), so none of them may appear either. Incremental re-resolution from the stored
receiver facts must give the same edges as a full rebuild.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import write

from hindsight.app import open_bank

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "callgraph"
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def call_edges(root: Path, full: bool = True) -> list[str]:
    """Resolved call edges of the index of ``root`` as ``src -> dst @line``, sorted."""
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(full=full, workers=1)
        _syms, edges = bank.stores.code.snapshot()
    return sorted(f"{e[1]} -> {e[7]} @{e[6]}" for e in edges if e[2] == "call" and e[7])


@pytest.mark.parametrize("language", CASES)
def test_fixture_edges_are_exact(language: str, tmp_path: Path) -> None:
    golden = json.loads((GOLDEN / f"{language}.json").read_text())
    root = tmp_path / language
    shutil.copytree(HERE.parent / golden["fixture"], root)
    got = call_edges(root)
    want = sorted(golden["edges"])
    missing = sorted((Counter(want) - Counter(got)).elements())
    extra = sorted((Counter(got) - Counter(want)).elements())
    assert (missing, extra) == ([], [])
    assert not {m["edge"] for m in golden["misses"]} & set(got)
    assert all(m["reason"] for m in golden["misses"])


def test_incremental_reresolution_uses_stored_facts(tmp_path: Path) -> None:
    """An edit to the base class's file re-resolves callers in unchanged files from their
    stored facts: the edges equal a full rebuild's, and the new target is found."""
    root = tmp_path / "python"
    shutil.copytree(HERE / "fixtures" / "callgraph" / "python", root)
    before = call_edges(root)
    assert "mro.py::main -> shop/base.py::Model.validate @39" in before
    write(root, {"shop/base.py": (
        "class Model:\n    def save(self):\n        self.validate()\n\n"
        "    def check(self):\n        pass\n\n    def validate(self):\n        pass\n")})
    inc = call_edges(root, full=False)
    assert inc == call_edges(root, full=True)
    assert "mro.py::main -> shop/base.py::Model.validate @39" in inc
    assert "imports.py::main -> shop/base.py::Model.save @15" in inc
    write(root, {"shop/base.py": "class Model:\n    def save(self):\n        pass\n"})
    inc = call_edges(root, full=False)
    assert inc == call_edges(root, full=True)
    assert not [e for e in inc if "Model.validate" in e]
