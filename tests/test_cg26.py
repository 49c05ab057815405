"""Call-graph rules added in session 26 (issue 14), each an exact edge list on a real git
repository in a tmp dir, indexed for real."""

from __future__ import annotations

from pathlib import Path

from conftest import make_repo

from hindsight.app import open_bank


def edges(repo: Path) -> list[str]:
    """Resolved call edges ``src -> dst @line`` of a full index of ``repo``, sorted."""
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
        _syms, es = bank.stores.code.snapshot()
    return sorted(f"{e[1]} -> {e[7]} @{e[6]}" for e in es if e[2] == "call" and e[7])


def calls_from(tmp: Path, files: dict[str, str], src: str) -> list[str]:
    """The resolved call edges whose caller is ``src`` in a fresh index of ``files``."""
    repo = make_repo(tmp / "r", dict(files))
    return [e for e in edges(repo) if e.split(" -> ")[0] == src]


ABCMETA = """import abc
from abc import ABCMeta


class Base(metaclass=abc.ABCMeta):
    def run(self):
        return self.step()

    @abc.abstractmethod
    def step(self):
        ...


class Mid(Base):
    pass


class Leaf(Mid):
    def step(self):
        return 3


class Plain(object, metaclass=ABCMeta):
    def go(self):
        return self.hook()

    @abc.abstractmethod
    def hook(self):
        ...


class Impl(Plain):
    def hook(self):
        return 4
"""


def test_abstract_method_of_an_abcmeta_class_is_no_target(tmp_path: Path) -> None:
    """``metaclass=ABCMeta`` (either spelling, beside other bases) enforces
    ``@abstractmethod`` as ``ABC`` does: ``Mid`` inherits ``Base.step`` without overriding
    it, so it is never instantiated and ``self.step()`` in ``Base.run`` runs only
    ``Leaf.step``."""
    repo = make_repo(tmp_path / "r", {"a.py": ABCMETA})
    got = [e for e in edges(repo) if e.startswith(("a.py::Base.run ", "a.py::Plain.go "))]
    assert got == ["a.py::Base.run -> a.py::Leaf.step @7",
                   "a.py::Plain.go -> a.py::Impl.hook @25"]


def test_other_metaclass_keeps_the_abstract_method(tmp_path: Path) -> None:
    """A metaclass other than ``ABCMeta`` enforces nothing: the inherited abstract
    method of ``Mid`` stays a target (it can run)."""
    src = ABCMETA.replace("metaclass=abc.ABCMeta", "metaclass=type")
    got = calls_from(tmp_path, {"a.py": src}, "a.py::Base.run")
    assert got == ["a.py::Base.run -> a.py::Base.step @7",
                   "a.py::Base.run -> a.py::Leaf.step @7"]
