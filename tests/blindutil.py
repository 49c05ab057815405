"""What the blind call-graph suites' tests share (tests/test_callgraph_blind*.py):
the bench modules on the path, the Python that runs the tracer, and the floor checks."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import cg_trace  # noqa: E402

PY313 = cg_trace.PYENV_313 if Path(cg_trace.PYENV_313).exists() else shutil.which("python3.13")
"""A Python >= 3.13 for the tracer (``sys.monitoring``), or ``None``."""


def check_overall(result: dict, recall: float, single: float) -> None:
    """Precision >= 0.95 (issue #14's target) and the recall floors, overall."""
    o = result["overall"]
    assert o["precision"] >= 0.95, o
    assert o["recall"] >= recall, o
    assert o["single_target_recall"] >= single, o


def check_category(result: dict, category: str, floors: dict[str, tuple[float, float]]
                   ) -> None:
    """The category's precision and recall are at least its floors; a failure lists the
    wrong or missed edges."""
    s = result["categories"][category]
    precision, recall = floors[category]
    rows = [r for r in result["cases"] if r["case"].startswith(category + "/")]
    assert s["precision"] >= precision, [w for r in rows for w in r["wrong"]]
    assert s["recall"] >= recall, [m for r in rows for m in r["missed"]]
