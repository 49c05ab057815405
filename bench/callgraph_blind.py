"""bench/callgraph_blind.py: precision and recall of the Python call graph on the blind suite.

The suite (``tests/fixtures/callgraph_blind/python/<category>/<case>/``) was written without
reading the resolver, and its truth (``expected.json``) was traced at run time by
``bench/cg_trace.py``. Each case is indexed alone, as ``bench/callgraph.py`` does (a copy in
a temporary directory, a throwaway ``HINDSIGHT_HOME``, ``bank.code.index(full=True,
workers=1)``), and its resolved call edges (``src -> dst @line``) are compared with the
traced ones as multisets. Overall and per category:

* precision = edges found that are expected, or are ``static`` edges of the case / edges
  found. ``static`` (with ``static_reason``) lists, for a few cases checked by hand, calls
  the program text makes possible that the traced run did not take (the other key of a
  dispatch table, the other branch of a function returning one of two classes): a static
  call graph has them. ``precision_run_time`` counts them as wrong;
* recall = edges found that are expected (traced) / expected edges;
* single-target recall = the same over the expected edges whose call site reached exactly
  one callee at run time (the index gives one target per call site).

Usage: ``python bench/callgraph_blind.py [--suite NAME]``: every language directory of
``tests/fixtures/<NAME>/`` (default ``callgraph_blind``; the second blind suite,
repository-shaped cases of several modules, is ``callgraph_blind2``; ``callgraph_blind8``
holds JavaScript, TypeScript, Java, Go, Rust and C# cases whose truth was written by hand,
the static target a compiler binds). Writes bench/results/<NAME>.json: for a suite of
Python only, ``{"overall", "categories", "cases"}``; otherwise ``{"languages": {lang:
{...}}}`` with the same three keys per language.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, write  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
_ACCESSOR = re.compile(r":(?:setter|deleter)\b")
SUITE = ROOT / "tests" / "fixtures" / "callgraph_blind" / "python"


def found_edges(case: Path) -> list[str]:
    """Resolved call edges of a fresh index of a copy of ``case`` (``HINDSIGHT_HOME`` must
    point at a throwaway directory)."""
    from hindsight.app import open_bank

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / case.name
        shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected.json",
                                                                  "__pycache__"))
        with open_bank(repo_root_path=str(root)) as bank:
            bank.code.index(full=True, workers=1)
            _syms, edges = bank.stores.code.snapshot()
    # a property's setter or deleter is `Class.prop:setter` in the index; a trace names
    # it by its code object's qualified name, the getter's `Class.prop`
    return sorted(_ACCESSOR.sub("", f"{e[1]} -> {e[7]} @{e[6]}")
                  for e in edges if e[2] == "call" and e[7])


def ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals of per-case rows (``found``, ``expected``, ``correct``, ``single``,
    ``single_correct``) with precision, recall and single-target recall."""
    t = {k: sum(r[k] for r in rows) for k in
         ("found", "expected", "correct", "right", "static_found", "single",
          "single_correct")}
    return {**t, "cases": len(rows), "precision": ratio(t["right"], t["found"]),
            "precision_run_time": ratio(t["correct"], t["found"]),
            "recall": ratio(t["correct"], t["expected"]),
            "single_target_recall": ratio(t["single_correct"], t["single"])}


def measure_case(case: Path, suite: Path = SUITE) -> dict[str, Any]:
    """One case's counts and its missed and wrong edges (``case`` is under ``suite``)."""
    truth = json.loads((case / "expected.json").read_text())
    got, want = Counter(found_edges(case)), Counter(truth["edges"])
    static = Counter(truth.get("static", []))
    single = want - Counter(truth["multi_target"])
    hit = got & want
    right = got & (want | static)
    return {"case": str(case.relative_to(suite)), "found": sum(got.values()),
            "expected": sum(want.values()), "correct": sum(hit.values()),
            "right": sum(right.values()), "static_found": sum((got & static).values()),
            "single": sum(single.values()), "single_correct": sum((hit & single).values()),
            "missed": sorted((want - got).elements()),
            "wrong": sorted((got - want - static).elements())}


def measure(suite: Path = SUITE) -> dict[str, Any]:
    """Scores of every case under ``suite``: ``{"overall", "categories", "cases"}``."""
    home = os.environ.get("HINDSIGHT_HOME")
    os.environ["HINDSIGHT_HOME"] = tempfile.mkdtemp(prefix="hindsight-cgblind-")
    try:
        rows = [measure_case(p.parent, suite) for p in sorted(suite.glob("*/*/expected.json"))]
    finally:
        shutil.rmtree(os.environ["HINDSIGHT_HOME"], ignore_errors=True)
        if home is None:
            del os.environ["HINDSIGHT_HOME"]
        else:
            os.environ["HINDSIGHT_HOME"] = home
    cats = sorted({r["case"].split("/")[0] for r in rows})
    return {"overall": score(rows),
            "categories": {c: score([r for r in rows if r["case"].split("/")[0] == c])
                           for c in cats},
            "cases": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="callgraph_blind",
                    help="suite name under tests/fixtures (default: callgraph_blind)")
    name = ap.parse_args().suite
    base = ROOT / "tests" / "fixtures" / name
    langs = sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    if not langs:
        raise SystemExit(f"no suite at {base} (suites: "
                         + ", ".join(sorted(p.name for p in (ROOT / "tests" / "fixtures")
                                            .glob("callgraph_blind*"))) + ")")
    results = {}
    for lang in langs:
        res = results[lang] = measure(base / lang)
        o = res["overall"]
        print(f"{lang} {name}  precision {o['precision']} (run-time truth only"
              f" {o['precision_run_time']})  recall {o['recall']}  single-target"
              f" recall {o['single_target_recall']}  ({o['correct']} of {o['expected']}"
              f" expected, {o['found']} found, {o['cases']} cases)")
        for c, s in res["categories"].items():
            print(f"  {c:<15} precision {s['precision']}  recall {s['recall']}  single"
                  f" {s['single_target_recall']}  ({s['correct']}/{s['expected']},"
                  f" {s['cases']} cases)")
    body = results["python"] if langs == ["python"] else {"languages": results}
    out = write(name, {"machine": machine(), **body})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
