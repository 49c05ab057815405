"""Golden tests: for each fixture repository under tests/fixtures/golden/<name>, the
symbols (qualified name, kind, lines) and edges (src, kind, dst or bare name, line) must
equal tests/golden/<name>.json. Regenerate after a reviewed change with
``HINDSIGHT_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and read the diff."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from hindsight.app import open_bank

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in (HERE / "fixtures" / "golden").iterdir() if p.is_dir())


def dump(root: Path) -> dict[str, list[str]]:
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(full=True, workers=1)
        syms, edges = bank.stores.code.snapshot()
    return {
        "symbols": sorted(f"{s[3]} {s[4]} {s[6]}-{s[8]}" for s in syms),
        "edges": sorted(
            f"{e[1]} -{e[2]}-> {e[7] or '?' + (e[3] or e[4])} @{e[6]}" for e in edges),
    }


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str, tmp_path: Path) -> None:
    root = tmp_path / name
    shutil.copytree(HERE / "fixtures" / "golden" / name, root)
    got = dump(root)
    golden = HERE / "golden" / f"{name}.json"
    if os.environ.get("HINDSIGHT_UPDATE_GOLDEN") == "1":
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    want = json.loads(golden.read_text())
    assert got["symbols"] == want["symbols"]
    assert got["edges"] == want["edges"]
