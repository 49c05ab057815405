"""Test runner output → observations (issue 12, item 2), on captured and hand-built output
of each runner (tests/fixtures/observations, see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight.records.observe import junit_paths, observe, plain

OBS = Path(__file__).resolve().parent / "fixtures" / "observations"


def text(name: str) -> str:
    return (OBS / name).read_text(encoding="utf-8")


def test_pytest_quiet_failure() -> None:
    o = observe(text("pytest_fail_q.txt"), "pytest -q tests/test_stock.py")
    assert (o.parser, o.summary, dict(o.counts)) == ("pytest", "3 failed, 1 passed",
                                                      {"failed": 3, "passed": 1})
    assert o.failed == ("tests/test_stock.py::test_deduct",
                        "tests/test_stock.py::TestConcurrent::test_deduct_many[1]",
                        "tests/test_stock.py::TestConcurrent::test_deduct_many[2]")
    assert o.passed == ()
    assert o.errors[:3] == ("assert 2 == 1", "assert 5 == (5 - 1)", "assert 4 == (5 - 2)")


def test_pytest_verbose_lists_passing_ids_and_quiet_pass_counts() -> None:
    v = observe(text("pytest_fail_v.txt"), "python -m pytest -v")
    assert v.passed == ("tests/test_stock.py::test_add",)
    assert v.failed[0] == "tests/test_stock.py::test_deduct" and len(v.failed) == 3
    ok = observe(text("pytest_pass_q.txt"), "pytest -q")
    assert (ok.summary, dict(ok.counts), ok.failed, ok.errors) == ("4 passed", {"passed": 4},
                                                                    (), ())


def test_pytest_ids_whose_parameters_hold_spaces() -> None:
    """A parametrized id keeps its spaces and colons (fresh-user trial: click's
    ``test_group_with_args[args0-2-Error: Missing command.]`` was dropped, and
    ``test_pp[a b: c]`` of two failures); a message after `` - `` is not part of it."""
    out = ("FAILED tests/test_pp.py::test_pp[1] - assert 0\n"
           "FAILED tests/test_pp.py::test_pp[a b: c] - AssertionError: x - y\n"
           "FAILED tests/test_commands.py::test_group_with_args[args0-2-Error: Missing "
           "command.]\n"
           "tests/t.py::test_v[x y] PASSED\n"
           "========= 3 failed, 1 passed in 0.12s =========\n")
    o = observe(out, "pytest")
    assert o.failed == ("tests/test_pp.py::test_pp[1]", "tests/test_pp.py::test_pp[a b: c]",
                        "tests/test_commands.py::test_group_with_args[args0-2-Error: Missing "
                        "command.]")
    assert o.passed == ("tests/t.py::test_v[x y]",)
    assert o.errors == ("assert 0", "AssertionError: x - y")


def test_go_test() -> None:
    o = observe(text("go_fail.txt"), "go test ./...")
    assert o.parser == "go"
    assert o.failed == ("example.com/shop/stock.TestDeductStock",
                        "example.com/shop/stock.TestDeductConcurrent",
                        "example.com/shop/stock.TestDeductConcurrent/two_workers")
    assert dict(o.counts) == {"failed": 3, "passed": 0, "skipped": 0, "packages failed": 1}
    assert o.errors == ("DeductStock(3, 2) = 2, want 1", "got 3 deductions, want 2")
    v = observe(text("go_pass_v.txt"), "go test -v ./stock")
    assert v.passed == ("example.com/shop/stock.TestDeductStock",
                        "example.com/shop/stock.TestAddStock")
    assert dict(v.counts)["skipped"] == 1 and v.failed == ()
    b = observe(text("go_build_fail.txt"), "go test ./...")
    assert b.errors == ("undefined: mutex", "example.com/shop/stock: build failed")
    assert dict(b.counts)["packages failed"] == 1


def test_cargo_test_captured() -> None:
    o = observe(text("cargo_fail.txt"), "cargo test")
    assert (o.parser, o.failed, o.passed) == ("cargo", ("tests::deduct_twice",),
                                              ("tests::add",))
    assert dict(o.counts) == {"failed": 1, "passed": 1, "ignored": 1}
    assert o.errors == ("assertion `left == right` failed",)
    ok = observe(text("cargo_pass.txt"), "cargo test")
    assert dict(ok.counts) == {"failed": 0, "passed": 2, "ignored": 1} and ok.failed == ()


def test_jest_and_vitest() -> None:
    j = observe(text("jest_fail.txt"), "npx jest")
    assert (j.parser, j.summary) == ("jest", "1 failed, 2 passed, 3 total")
    assert j.failed == ("src/stock.test.js › stock › deducts stock",)
    assert j.passed == ("src/stock.test.js › adds stock", "src/cart.test.js › totals")
    assert j.errors == ("expect(received).toBe(expected) // Object.is equality",)
    v = observe(text("vitest_fail.txt"), "npx vitest run")
    assert (v.parser, dict(v.counts)) == ("vitest", {"failed": 1, "passed": 1})
    assert v.failed == ("src/stock.test.ts > stock > deducts stock",)
    assert v.passed == ("src/stock.test.ts > stock > adds stock",)
    assert v.errors == ("AssertionError: expected 2 to be 1 // Object.is equality",)


def test_maven_surefire_captured() -> None:
    o = observe(text("maven_fail.txt"), "mvn -o -B test")
    assert o.parser == "maven"
    assert o.summary == "Tests run: 2, Failures: 1, Errors: 0, Skipped: 0"
    assert o.failed == ("com.shop.StockTest.deductsConcurrently",)
    assert o.errors == ("org.opentest4j.AssertionFailedError: expected: <1> but was: <2>",)
    assert dict(o.counts) == {"failed": 1, "errors": 0, "skipped": 0, "passed": 1}


@pytest.mark.parametrize(("name", "failed", "passed"), [
    ("junit_pytest.xml", ["tests.test_stock.test_deduct",
                          "tests.test_stock.TestConcurrent.test_deduct_many[1]",
                          "tests.test_stock.TestConcurrent.test_deduct_many[2]"],
     ["tests.test_stock.test_add"]),
    ("junit_maven.xml", ["com.shop.StockTest.deductsConcurrently"],
     ["com.shop.StockTest.deductsOnce"]),
])
def test_junit_files(name: str, failed: list[str], passed: list[str]) -> None:
    o = observe("whatever the console said", "make test", [str(OBS / name)])
    assert (o.parser, list(o.failed), list(o.passed)) == ("junit", failed, passed)
    assert dict(o.counts)["failed"] == len(failed)


def test_unreadable_junit_falls_back_to_the_output(tmp_path: Path) -> None:
    bad = tmp_path / "j.xml"
    bad.write_text("<testsuite><testcase")
    o = observe(text("pytest_pass_q.txt"), "pytest", [str(bad), str(tmp_path / "none.xml")])
    assert o.parser == "pytest"


def test_junit_path_in_the_command(tmp_path: Path) -> None:
    assert junit_paths("pytest --junitxml=out/j.xml -q", "/r") == ["/r/out/j.xml"]
    assert junit_paths("pytest --junit-xml /abs/j.xml", "/r") == ["/abs/j.xml"]
    assert junit_paths("pytest -q", "/r") == []


def test_colours_and_progress_are_removed_first() -> None:
    raw = ("\x1b[1m\x1b[31mFAILED\x1b[0m tests/a.py::test_x - assert 1 == 2\r\n"
           "running 10%\rrunning 100%\n\x1b[31m1 failed\x1b[0m in 0.10s\n")
    assert plain(raw) == ("FAILED tests/a.py::test_x - assert 1 == 2\nrunning 100%\n"
                          "1 failed in 0.10s\n")
    o = observe(raw, "pytest")
    assert (o.failed, o.summary) == (("tests/a.py::test_x",), "1 failed")


def test_no_runner_keeps_the_first_error_lines() -> None:
    o = observe("building…\nerror: linker `cc` not found\nmore\n", "make")
    assert (o.parser, o.failed, o.errors) == ("", (), ("error: linker `cc` not found",))
    assert not o.tests
