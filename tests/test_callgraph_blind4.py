"""Blind Python call-graph suite 4 (issue #14): floors, so a regression fails.

``tests/fixtures/callgraph_blind4/python`` holds 115 cases in the style of popular projects (click, flask, requests, an ORM, a task queue,
pluggy, pydantic; 42 packages of 3-6 modules) written by another helper before reading the
resolver or the other suites (session 26); their truth (``expected.json``) is the
run-time trace of ``bench/cg_trace.py --suite callgraph_blind4``. ``bench/callgraph_blind.py --suite
callgraph_blind4`` indexes each case alone and compares. The floors are the figures of the resolver
at the end of session 26 (2026-12-02, bench/results/callgraph_blind4.json); raise them when the resolver
improves. Precision must stay >= 0.95 overall (issue #14's target).
"""

from __future__ import annotations

import pytest
from blindutil import check_category, check_overall  # puts bench/ on the path

# isort: split
import callgraph_blind
import cg_trace

SUITE = cg_trace.suite_dir("callgraph_blind4")

# category -> (precision, recall), precision counting a case's `static` edges right
FLOORS = {
    "assignments": (0.963, 0.975), "async": (1.0, 0.9184), "attributes": (1.0, 1.0),
    "classes_mro": (0.9479, 0.8835), "closures": (0.9545, 0.8936),
    "context_managers": (1.0, 0.907), "dataclasses": (0.9677, 0.9524),
    "decorators": (0.9732, 0.9237), "dicts_lists": (0.9324, 0.8519),
    "exceptions": (0.973, 1.0), "generators": (1.0, 1.0), "imports": (1.0, 0.9672),
    "lambdas": (1.0, 0.8333), "parameters": (0.9878, 0.9419), "returns": (1.0, 0.9605),
}
OVERALL_RECALL_FLOOR = 0.9325
SINGLE_TARGET_RECALL_FLOOR = 0.9526


@pytest.fixture(scope="module")
def result() -> dict:
    return callgraph_blind.measure(SUITE)


def test_suite_size(result: dict) -> None:
    assert len(result["cases"]) >= 110
    assert result["overall"]["expected"] >= 972


def test_overall_precision_and_recall(result: dict) -> None:
    assert set(result["categories"]) == set(FLOORS)
    check_overall(result, OVERALL_RECALL_FLOOR, SINGLE_TARGET_RECALL_FLOOR)


@pytest.mark.parametrize("category", sorted(FLOORS))
def test_category_floor(result: dict, category: str) -> None:
    check_category(result, category, FLOORS)
