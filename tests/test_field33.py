"""Forms found in session 33 (issue 14), with their exact right values: a parameter
declared with a base class takes the subclass instances its call sites pass, and a dict
literal passed to a function gives the values its loops over ``.values()`` / ``.items()``
read (the sixth blind suite's misses of these kinds, written again here)."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

SINKS = ("class Sink:\n    def write(self, line):\n        print(line)\n"  # 1-3
         "class UpperSink(Sink):\n    def write(self, line):\n"  # 4-5
         "        super().write(line.upper())\n"  # 6
         "class Other:\n    def write(self, line):\n        return 0\n")  # 7-9


def test_a_declared_base_class_parameter_takes_the_subclasses_passed(tmp_path: Path) -> None:
    src = SINKS + ("def report(lines, *, sink: Sink):\n    sink.write(lines)\n"  # 10-11
                   "def report2(lines, sink: Sink):\n    sink.write(lines)\n"  # 12-13
                   "def report3(lines, sink: Sink):\n    sink.write(lines)\n"  # 14-15
                   "report(['a'], sink=Sink())\nreport(['b'], sink=UpperSink())\n"  # 16-17
                   "report2(['b'], UpperSink())\n"  # 18
                   "report3(['b'], Other())\n")  # 19: no subclass: the declared type
    assert calls_from(tmp_path, {"main.py": src}, "main.py::report", "main.py::report2",
                      "main.py::report3") == [
        "main.py::report -> main.py::Sink.write @11",
        "main.py::report -> main.py::UpperSink.write @11",
        "main.py::report2 -> main.py::Sink.write @13",
        "main.py::report2 -> main.py::UpperSink.write @13",
        "main.py::report3 -> main.py::Sink.write @15"]


def test_a_dict_literal_passed_gives_its_values_to_loops(tmp_path: Path) -> None:
    src = ("class Counter:\n    def bump(self):\n        return 1\n"  # 1-3
           "class Gauge:\n    def bump(self):\n        return 2\n"  # 4-6
           "def t2(ms):\n    for m in ms.values():\n        m.bump()\n"  # 7-9
           "def t3(ms):\n    return {k: m.bump() for k, m in ms.items()}\n"  # 10-11
           "def t5(ms):\n    for m in ms.values():\n        m.bump()\n"  # 12-14
           "t2({'a': Counter(), 'b': Gauge()})\n"  # 15
           "t3({'a': Counter(), 'b': Gauge()})\n"  # 16
           "t5({'a': Counter(), **other})\n")  # 17: a splat: unknown
    assert calls_from(tmp_path, {"main.py": src}, "main.py::t2", "main.py::t3",
                      "main.py::t5") == [
        "main.py::t2 -> main.py::Counter.bump @9", "main.py::t2 -> main.py::Gauge.bump @9",
        "main.py::t3 -> main.py::Counter.bump @11", "main.py::t3 -> main.py::Gauge.bump @11"]
