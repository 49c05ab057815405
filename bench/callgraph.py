"""bench/callgraph.py: precision and recall of the call graph on the call-graph fixtures.

For every ``tests/golden/callgraph/<language>.json``, the fixture project it names is
indexed (in a temporary copy, in a throwaway ``HINDSIGHT_HOME``) and its resolved call
edges (``src -> dst @line``) are compared with the expected ones: the golden's ``edges``
plus its ``misses`` (edges a complete call graph has that the index knowingly does not
give). Per language, and per kind (the file a call is in, or the golden's ``kinds`` map
for a directory):

* precision = edges found that are expected / edges found;
* recall = edges found that are expected / expected edges (misses included).

The fixtures are the project's own (issue #14 measures on held-out material this script
never sees), so these figures show coverage of the kinds, not generalisation.

Usage: ``python bench/callgraph.py``. Writes bench/results/callgraph.json.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, write  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "callgraph"


def found_edges(fixture: Path) -> list[str]:
    """Resolved call edges of a fresh index of a copy of ``fixture``."""
    from hindsight.app import open_bank

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / fixture.name
        shutil.copytree(fixture, root)
        with open_bank(repo_root_path=str(root)) as bank:
            bank.code.index(full=True, workers=1)
            _syms, edges = bank.stores.code.snapshot()
    return sorted(f"{e[1]} -> {e[7]} @{e[6]}" for e in edges if e[2] == "call" and e[7])


def kind_of(edge: str, kinds: dict[str, str]) -> str:
    path = edge.partition("::")[0]
    for prefix, kind in kinds.items():
        if path.startswith(prefix):
            return kind
    return path.rpartition("/")[2].rpartition(".")[0]


def score(found: Counter[str], expected: Counter[str]) -> dict[str, Any]:
    tp = sum((found & expected).values())
    nf, ne = sum(found.values()), sum(expected.values())
    return {"found": nf, "expected": ne, "correct": tp,
            "precision": round(tp / nf, 4) if nf else None,
            "recall": round(tp / ne, 4) if ne else None}


def measure(golden: dict[str, Any]) -> dict[str, Any]:
    got = Counter(found_edges(ROOT / golden["fixture"]))
    want = Counter(golden["edges"]) + Counter(m["edge"] for m in golden["misses"])
    kinds = golden.get("kinds", {})
    names = sorted({kind_of(e, kinds) for e in got} | {kind_of(e, kinds) for e in want})
    per_kind = {k: score(Counter({e: n for e, n in got.items() if kind_of(e, kinds) == k}),
                         Counter({e: n for e, n in want.items() if kind_of(e, kinds) == k}))
                for k in names}
    return {"overall": score(got, want), "kinds": per_kind,
            "wrong": sorted((got - want).elements()), "missed": sorted((want - got).elements())}


def main() -> None:
    os.environ["HINDSIGHT_HOME"] = tempfile.mkdtemp(prefix="hindsight-bench-")
    results: dict[str, Any] = {}
    try:
        for path in sorted(GOLDEN.glob("*.json")):
            golden = json.loads(path.read_text())
            res = results[golden["language"]] = measure(golden)
            o = res["overall"]
            print(f"{golden['language']:<11} precision {o['precision']}  recall {o['recall']}"
                  f"  ({o['correct']} of {o['expected']} expected, {o['found']} found)")
            if len(res["kinds"]) > 1 and golden["language"] == "python":
                for k, s in res["kinds"].items():
                    print(f"  {k:<12} precision {s['precision']}  recall {s['recall']}"
                          f"  ({s['correct']}/{s['expected']})")
    finally:
        shutil.rmtree(os.environ["HINDSIGHT_HOME"], ignore_errors=True)
    out = write("callgraph", {"machine": machine(), "languages": results})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
