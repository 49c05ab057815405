"""Python builtins that keep a collection's elements (session 37; found by the blind suite
callgraph_blind9): ``iter(xs)``, ``sorted(xs, key=…)``, ``reversed(xs)``, ``list(xs)`` and
``tuple(xs)`` hold the elements of ``xs``, so ``next(iter(ws)).start()``,
``sorted(ts, key=…)[0].run()`` and a method returning ``sorted(self.tasks)[-1]`` reach
them; an attribute stored from a parameter (``self.workers = workers``) has that
parameter's elements (those its call sites pass). Each line checked by running it."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

SRC = """class Worker:
    def start(self):
        return 1


class Other:
    def start(self):
        return 2


class Pool:
    def __init__(self, workers):
        self.workers = workers

    def first(self):
        return next(iter(self.workers))

    def last(self):
        return sorted(self.workers, key=id)[-1]

    def all(self):
        return list(self.workers)


def run(pool):
    pool.first().start()
    pool.last().start()
    pool.all()[0].start()
    sorted(pool.workers, key=id)[0].start()
    next(iter(reversed(pool.workers))).start()
    tuple(pool.workers)[0].start()


run(Pool([Worker(), Worker()]))
"""


def test_builtins_that_keep_elements(tmp_path: Path) -> None:
    got = calls_from(tmp_path, {"main.py": SRC}, "main.py::run")
    w = "main.py::run -> main.py::Worker.start"
    assert got == [
        "main.py::run -> main.py::Pool.all @28", "main.py::run -> main.py::Pool.first @26",
        "main.py::run -> main.py::Pool.last @27", f"{w} @26", f"{w} @27", f"{w} @28",
        f"{w} @29", f"{w} @30", f"{w} @31"]


KW = """def escape(v):
    return v


def footer(t):
    return t


def other(t):
    return t


def render(values, strict=None, **hooks):
    before = hooks.get("before")
    values = before(values)
    hooks["after"](values)
    hooks.get("strict")(values)
    return values


render({}, before=escape, after=footer, strict=other)
"""


def test_a_keyword_in_kwargs_is_what_call_sites_pass(tmp_path: Path) -> None:
    # `strict` is a parameter of its own: not in **hooks (hooks.get("strict") is None)
    got = calls_from(tmp_path, {"main.py": KW}, "main.py::render")
    assert got == ["main.py::render -> main.py::escape @15",
                   "main.py::render -> main.py::footer @16"]
