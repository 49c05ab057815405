"""The second blind Python call-graph suite (issue #14): floors, so a regression fails.

``tests/fixtures/callgraph_blind2/python`` holds 104 repository-shaped cases (packages of
several modules, template methods over files, registries, dispatch tables, builders,
module-level singletons), written without reading the resolver; their truth
(``expected.json``) is the run-time trace of ``bench/cg_trace.py --suite callgraph_blind2``.
``bench/callgraph_blind.py --suite callgraph_blind2`` indexes each case alone and compares.
The floors are the figures measured when the suite was first scored (2026-12-01,
bench/results/callgraph_blind2.json, resolver at commit 527d43c); raise them when the
resolver improves. Precision must stay >= 0.95 overall (issue #14's target).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from blindutil import PY313, check_category, check_overall  # puts bench/ on the path

# isort: split
import callgraph_blind
import cg_trace

SUITE = cg_trace.suite_dir("callgraph_blind2")

# category -> (precision, recall) measured 2026-12-01 (raised as the resolver improves)
# (precision counts a case's hand-checked `static` edges right). dicts precision went
# down once (0.9714 -> 0.9267, stop 24) by design: a table imported from another module
# and read with a variable key (`STRATEGIES[kind](x)`) now gives all its values, as a
# local table always did; the run-time trace saw one of them. decorators precision went
# down likewise in session 26 (1.0 -> 0.9394): a registry filled by a decorator in
# another file and read with a variable key now gives every registered class.
FLOORS = {
    "args": (1.0, 1.0), "assignments": (1.0, 1.0), "attributes": (1.0, 0.9804),
    "builtins": (0.95, 1.0), "classes": (1.0, 1.0), "closures": (1.0, 1.0),
    "comprehensions": (1.0, 0.9474), "decorators": (0.9394, 1.0), "dicts": (0.9333, 1.0),
    "exceptions": (1.0, 1.0), "generators": (1.0, 1.0), "imports": (1.0, 1.0),
    "lambdas": (1.0, 0.9524), "lists": (0.9773, 1.0), "mro": (0.913, 1.0),
    "parameters": (1.0, 1.0), "returns": (1.0, 1.0), "with": (1.0, 0.9565),
}
OVERALL_RECALL_FLOOR = 0.9948
SINGLE_TARGET_RECALL_FLOOR = 0.9944


@pytest.fixture(scope="module")
def result() -> dict:
    return callgraph_blind.measure(SUITE)


def test_suite_size_and_shape() -> None:
    cases = sorted(p.parent for p in SUITE.glob("*/*/expected.json"))
    assert len(cases) >= 90
    several = [c for c in cases if len(list(c.rglob("*.py"))) > 1]
    assert len(several) * 3 >= len(cases), "at least a third of the cases are multi-file"
    assert sum(1 for c in cases if list(c.glob("*/__init__.py"))) >= 15


def test_overall_precision_and_recall(result: dict) -> None:
    o = result["overall"]
    assert set(result["categories"]) == set(FLOORS)
    assert o["expected"] >= 500
    check_overall(result, OVERALL_RECALL_FLOOR, SINGLE_TARGET_RECALL_FLOOR)


@pytest.mark.parametrize("category", sorted(FLOORS))
def test_category_floor(result: dict, category: str) -> None:
    check_category(result, category, FLOORS)




@pytest.mark.skipif(PY313 is None, reason="the tracer needs Python >= 3.13 (sys.monitoring)")
@pytest.mark.parametrize("name", ["mro/orm_hooks", "classes/builder_returns_self",
                                  "dicts/routes_decorator", "decorators/cached_method",
                                  "imports/relative_two_up"])
def test_truth_is_what_the_tracer_gives(name: str) -> None:
    """expected.json is the tracer's output now (the truth is not edited by hand)."""
    case = SUITE / name
    truth = cg_trace.trace(case, str(PY313))
    assert truth.pop("unexecuted") == []
    assert truth == json.loads((case / "expected.json").read_text())


@pytest.mark.skipif(PY313 is None, reason="the tracer needs Python >= 3.13 (sys.monitoring)")
def test_tracer_call_sites(tmp_path: Path) -> None:
    """Two chained calls starting at one column are two single-target call sites; a call
    through ``functools.lru_cache`` reaches the cached function; a while condition that
    Python compiles twice is one call site; a decorator factory's call and the decorator's
    application are two."""
    (tmp_path / "main.py").write_text(
        "import functools\n\n\nclass B:\n    def f(self):\n        return self\n\n"
        "    @functools.lru_cache(maxsize=None)\n    def g(self):\n        return 1\n\n\n"
        "B().f().f().g()\n\n\ndef dec(tag):\n    def apply(fn):\n        return fn\n"
        "    return apply\n\n\n@dec(1)\ndef h(xs):\n    while (x := len(xs)) > 0:\n"
        "        xs.pop(last(x))\n\n\ndef last(n):\n    return n - 1\n\n\nh([1, 2])\n")
    truth = cg_trace.trace(tmp_path, str(PY313))
    assert truth["edges"] == [
        "main.py:: -> main.py::B @13", "main.py:: -> main.py::B.f @13",
        "main.py:: -> main.py::B.f @13", "main.py:: -> main.py::B.g @13",
        "main.py:: -> main.py::dec @22", "main.py:: -> main.py::dec.apply @22",
        "main.py:: -> main.py::h @32", "main.py::h -> main.py::last @25"]
    assert truth["multi_target"] == []
    assert truth["unexecuted"] == []
