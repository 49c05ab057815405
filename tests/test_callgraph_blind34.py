"""Blind Python call-graph suites 3 to 7, 9 and 10 (issue #14): floors, so a regression fails.

``tests/fixtures/callgraph_blind3/python`` holds 127 cases (35 packages of several
modules: CLI tools, web frameworks, ORMs, pipelines, plugin systems) and
``tests/fixtures/callgraph_blind4/python`` 115 cases in the style of popular projects
(click, flask, requests, an ORM, a task queue, pluggy, pydantic; 42 packages of 3-6
modules), each written by a helper before it read the resolver or the other suites
(session 26). Their truth (``expected.json``) is the run-time trace of ``bench/cg_trace.py
--suite NAME``; ``bench/callgraph_blind.py --suite NAME`` indexes each case alone and
compares. The floors are the resolver's figures at the end of session 32 (2026-12-03,
bench/results/NAME.json); raise them when the resolver improves. Precision must stay >=
0.95 overall (issue #14's target).
"""

from __future__ import annotations

import pytest
from blindutil import check_category, check_overall  # puts bench/ on the path

# isort: split
import callgraph_blind
import cg_trace

# suite -> (category -> (precision, recall), overall recall, one-callee recall, cases,
# expected edges); precision counts a case's `static` edges right
SUITES: dict[str, tuple[dict[str, tuple[float, float]], float, float, int, int]] = {
    "callgraph_blind3": ({
        "assignments": (1.0, 1.0), "async": (1.0, 0.9565), "attributes": (1.0, 1.0),
        "classes_mro": (0.9529, 0.9759), "closures": (1.0, 0.9595), "context_managers": (1.0, 1.0),
        "dataclasses": (1.0, 0.9429), "decorators": (0.9804, 0.9899), "dicts_lists": (0.9615, 1.0),
        "exceptions": (1.0, 0.9452), "generators": (1.0, 0.9841), "imports": (1.0, 1.0),
        "lambdas": (1.0, 0.9855), "parameters": (1.0, 1.0), "returns": (1.0, 0.987),
    }, 0.9815, 0.9827, 127, 1082),
    "callgraph_blind4": ({
        "assignments": (1.0, 0.9875), "async": (1.0, 0.9592), "attributes": (1.0, 1.0),
        "classes_mro": (0.9474, 0.8738), "closures": (0.9545, 0.8936),
        "context_managers": (1.0, 0.9767), "dataclasses": (0.9677, 0.9524),
        "decorators": (0.9825, 0.9492), "dicts_lists": (0.9398, 0.9383),
        "exceptions": (0.973, 1.0), "generators": (1.0, 1.0), "imports": (1.0, 0.9672),
        "lambdas": (1.0, 0.9583), "parameters": (0.9878, 0.9419), "returns": (1.0, 0.9868),
    }, 0.955, 0.9666, 115, 1022),
    # session 30: 113 cases in the ten kinds of the held-out Python data-flow cases,
    # written blind by a helper; first scored at 820b4e2: precision 0.9859, recall 0.9528
    "callgraph_blind5": ({
        "assignments": (1.0, 0.9759), "attributes": (1.0, 0.9865), "classes_mro": (0.8933, 0.9853),
        "decorators": (1.0, 0.9877), "dicts_lists": (1.0, 0.9565), "generators": (1.0, 0.9722),
        "imports": (1.0, 0.9348), "lambdas": (1.0, 1.0), "parameters": (1.0, 0.9649),
        "returns": (1.0, 1.0),
    }, 0.9772, 0.975, 113, 657),
    # session 31: 115 cases in the same kinds plus 17 `realistic` ones (an event bus, an
    # ORM layer, a CLI framework, WSGI middleware…), written blind by a helper; first
    # scored at be95b2a: precision 0.9829, recall 0.924
    "callgraph_blind6": ({
        "assignments": (0.9875, 1.0), "attributes": (1.0, 0.931), "classes_mro": (0.9206, 1.0),
        "decorators": (1.0, 1.0), "dicts_lists": (1.0, 0.9643), "generators": (1.0, 1.0),
        "imports": (1.0, 1.0), "lambdas": (1.0, 1.0), "parameters": (0.9825, 0.9492),
        "realistic": (0.9911, 0.8925), "returns": (0.9692, 1.0),
    }, 0.9475, 0.9748, 115, 934),
    # session 32: 105 cases in the same kinds and `realistic` ones (plugin hosts, event
    # buses, routers, middleware, visitors, task queues), written blind by a helper;
    # first scored at 5892e3e: precision 0.9768, recall 0.9209 (before the static edges
    # were marked by hand)
    "callgraph_blind7": ({
        "assignments": (1.0, 0.9615), "attributes": (1.0, 0.9861), "classes_mro": (1.0, 0.9894),
        "decorators": (1.0, 0.99), "dicts_lists": (0.9868, 0.9481), "generators": (1.0, 0.9565),
        "imports": (1.0, 0.931), "lambdas": (1.0, 1.0), "parameters": (1.0, 0.8953),
        "realistic": (0.9937, 0.8914), "returns": (0.9785, 1.0),
    }, 0.9532, 0.9859, 105, 961),
    # session 37: 100 cases in other kinds (callables passed by position and keyword,
    # exceptions, nested functions, MRO, calls on call results, builtins, properties,
    # dataclasses and typing, async) and 10 `realistic` packages, written blind by a
    # helper; first scored at 13b6d89: precision 0.9819, recall 0.9409
    "callgraph_blind9": ({
        "args": (1.0, 0.9661), "async_context": (1.0, 1.0),
        "builtins_interplay": (1.0, 0.9595), "dataclasses_typing": (1.0, 0.9672),
        "direct_calls": (0.9759, 0.9759), "exceptions": (0.9839, 0.9683),
        "functions": (1.0, 1.0), "kwargs": (1.0, 0.8438), "mro": (0.9167, 1.0),
        "properties_descriptors": (0.9833, 0.9672), "realistic": (0.9794, 0.9216),
    }, 0.9548, 0.9662, 100, 863),
    # session 39: 80 cases in the ten kinds of the held-out Python data-flow cases (26 of
    # several modules), written blind by a helper; first scored at 00ce4fd: precision
    # 0.9865, recall 0.9757
    "callgraph_blind10": ({
        "assignments": (1.0, 0.9551), "attributes": (1.0, 1.0), "classes_mro": (0.9348, 0.9885),
        "decorators": (0.9792, 0.9592), "dicts_lists": (0.9865, 0.9605),
        "generators": (1.0, 0.9714), "imports": (1.0, 1.0), "lambdas": (1.0, 0.9692),
        "parameters": (1.0, 1.0), "returns": (0.9785, 1.0),
    }, 0.9806, 0.979, 80, 823),
}
CASES = [(s, c) for s, spec in SUITES.items() for c in sorted(spec[0])]


_RESULTS: dict[str, dict] = {}


def result_of(suite: str) -> dict:
    """The suite's score, measured once per test session."""
    if suite not in _RESULTS:
        _RESULTS[suite] = callgraph_blind.measure(cg_trace.suite_dir(suite))
    return _RESULTS[suite]


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_size_and_overall_floors(suite: str) -> None:
    floors, recall, single, cases, expected = SUITES[suite]
    result = result_of(suite)
    assert len(result["cases"]) >= cases and result["overall"]["expected"] >= expected
    assert set(result["categories"]) == set(floors)
    check_overall(result, recall, single)


@pytest.mark.parametrize(("suite", "category"), CASES)
def test_category_floor(suite: str, category: str) -> None:
    check_category(result_of(suite), category, SUITES[suite][0])
