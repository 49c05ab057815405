"""Incremental re-resolution by name (codeindex/interface.py): a file that depends on an
edited one is re-resolved only when it mentions a name the edit changed, or reaches the
edited file's classes or call sites by enumeration. Whatever the edit, the incremental
index must equal a full rebuild."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, make_repo, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental import edges_of, edits_equal_rebuild

from hindsight.app import open_bank

N = ("class Y:\n    def g(self):\n        return 1\n\n\nclass X:\n    def g(self):\n"
     "        return 2\n\n\nclass C(Y):\n    pass\n")
P = "class C:\n    def g(self):\n        return 3\n\n    def h(self):\n        return 4\n"
M = ("from n import C\n\n\ndef make():\n    return C()\n\n\ndef f():\n    x = make()\n"
     "    return x\n\n\nclass Box:\n    def __init__(self):\n        self.item = C()\n\n\n"
     "inst = C()\n")
D = ("import m\nfrom m import Box\n\n\ndef use():\n    m.f().g()\n    m.inst.g()\n"
     "    Box().item.h()\n    return m.make()\n")
BASE = {"n.py": N, "p.py": P, "m.py": M, "d.py": D}

BODIES = {
    "m.py": [M, M.replace("from n import C", "from p import C"),
             M + "\n\ndef added(x):\n    return len(x)\n",
             "# shifted\n# down\n" + M,
             M.replace("        self.item = C()", "        self.item = make()"),
             M.replace("    return C()", "    return None"),
             M.replace("from n import C", "from n import C, X").replace("inst = C()",
                                                                        "inst = X()"),
             # module-level order: `inst` made before or after `C` is bound again
             M + "\nfrom p import C\n",
             M.replace("inst = C()\n", "") + "from p import C\n\n\ninst = C()\n",
             M.replace("    x = make()\n", "    y = 1\n    x = make()\n"),
             M.replace("def make():\n    return C()\n\n\n", "") +
             "\n\ndef make():\n    return C()\n"],
    "n.py": [N, N.replace("class C(Y):", "class C(X):"),
             N.replace("class C(Y):\n    pass", "class C(Y):\n    def h(self):\n"
                       "        return 5"),
             N + "\n\ndef extra():\n    return 0\n"],
    "p.py": [P, P.replace("    def h(self):", "    def h2(self):")],
}
edit = st.sampled_from(sorted(BODIES)).flatmap(
    lambda p: st.tuples(st.just(p), st.sampled_from(BODIES[p])))


@settings(max_examples=14, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(edit, min_size=1, max_size=4))
def test_edits_reached_through_unwritten_names_equal_rebuild(
        tmp_path_factory: object, edits: list[tuple[str, str | None]]) -> None:
    base = tmp_path_factory.mktemp("names")  # type: ignore[attr-defined]
    edits_equal_rebuild(base, BASE, edits)


def _index(repo: Path, files: dict[str, str]) -> int:
    write(repo, files)
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        return bank.code.index(workers=1).files_reresolved


def _g(repo: Path) -> list[str]:
    return [dst for name, dst in edges_of(repo, "d.py::use") if name == "g"]


def test_what_is_reresolved(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert _g(repo) == ["n.py::Y.g", "n.py::Y.g"]
    # a function appended that no file names: its dependents resolve as before
    assert _index(repo, {"m.py": M + "\n\ndef added(x):\n    return len(x)\n"}) == 0
    # lines moved down by an edit above
    assert _index(repo, {"m.py": "# shifted\n# down\n" + M}) == 0
    assert _index(repo, {"m.py": M}) == 0
    # the import behind `C` changes: d.py reaches it through f and inst, never writing C
    assert _index(repo, {"m.py": M.replace("from n import C", "from p import C")}) == 1
    assert _g(repo) == ["p.py::C.g", "p.py::C.g"]
    assert ("h", "p.py::C.h") in edges_of(repo, "d.py::use")
    assert _index(repo, {"m.py": M}) == 1
    assert _g(repo) == ["n.py::Y.g", "n.py::Y.g"]
    # a base class changes: every member reached through the class may differ
    assert _index(repo, {"n.py": N.replace("class C(Y):", "class C(X):")}) == 2
    assert _g(repo) == ["n.py::X.g", "n.py::X.g"]


# break-it of session 41: a dependent reaching the edited file through a decorator, an
# alias, a re-export, a dict of functions, a base class, a class attribute, a partial,
# super(), a property or CommonJS exports; each edit changes what the dependent resolves
# (checked: its edges differ before and after), and the incremental index must follow
REACHED = {
    'decorator': ({'m.py': 'def deco(f):\n    return f\n\nclass A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\n@deco\ndef make():\n    return A()\n', 'd.py': 'from m import make\n\ndef use():\n    make().g()\n'},
        [('m.py', 'def deco(f):\n    return f\n\nclass A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\n@deco\ndef make():\n    return B()\n')]),
    'alias': ({'m.py': 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\ndef f():\n    return A()\n\nh = f\n', 'd.py': 'import m\n\ndef use():\n    m.h().g()\n'},
        [('m.py', 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\ndef f():\n    return B()\n\nh = f\n')]),
    'reexport': ({'n.py': 'class A:\n    def g(self): return 1\n\ndef f():\n    return A()\n', 'm.py': 'from n import f\n', 'd.py': 'from m import f\n\ndef use():\n    f().g()\n'},
        [('n.py', 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\ndef f():\n    return B()\n')]),
    'dict_of_funcs': ({'m.py': "def a():\n    return 1\n\ndef b():\n    return 2\n\nTABLE = {'x': a}\n", 'd.py': "from m import TABLE\n\ndef use():\n    TABLE['x']()\n"},
        [('m.py', "def a():\n    return 1\n\ndef b():\n    return 2\n\nTABLE = {'x': b}\n")]),
    'base_method_added': ({'m.py': 'class Base:\n    pass\n', 'x.py': 'def g():\n    return 1\n', 'd.py': 'from m import Base\nfrom x import g\n\nclass D(Base):\n    def run(self):\n        self.g()\n'},
        [('m.py', 'class Base:\n    def g(self):\n        return 1\n')]),
    'class_attr': ({'m.py': 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\nclass K:\n    item = A()\n\ndef make():\n    return K()\n', 'd.py': 'from m import make\n\ndef use():\n    make().item.g()\n'},
        [('m.py', 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\nclass K:\n    item = B()\n\ndef make():\n    return K()\n')]),
    'partial': ({'m.py': 'import functools\n\ndef a(x):\n    return x\n\ndef b(x):\n    return x\n\nrun = functools.partial(a, 1)\n', 'd.py': 'from m import run\n\ndef use():\n    run()\n'},
        [('m.py', 'import functools\n\ndef a(x):\n    return x\n\ndef b(x):\n    return x\n\nrun = functools.partial(b, 1)\n')]),
    'super': ({'m.py': 'class Base:\n    def go(self):\n        return 1\n', 'd.py': 'from m import Base\n\nclass D(Base):\n    def go(self):\n        return super().go()\n'},
        [('m.py', 'class Root:\n    def go(self):\n        return 0\n\nclass Base(Root):\n    pass\n')]),
    'property': ({'m.py': 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\nclass K:\n    @property\n    def p(self):\n        return A()\n\nk = K()\n', 'd.py': 'from m import k\n\ndef use():\n    k.p.g()\n'},
        [('m.py', 'class A:\n    def g(self): return 1\n\nclass B:\n    def g(self): return 2\n\nclass K:\n    @property\n    def p(self):\n        return B()\n\nk = K()\n')]),
    'js_exports': ({'m.js': 'function A() {}\nA.prototype.g = function () { return 1; };\nfunction make() { return new A(); }\nmodule.exports = { make };\n', 'd.js': "const m = require('./m');\nfunction use() { m.make().g(); }\n"},
        [('m.js', 'function A() {}\nA.prototype.g = function () { return 1; };\nfunction B() {}\nB.prototype.g = function () { return 2; };\nfunction make() { return new B(); }\nmodule.exports = { make };\n')]),
}


@pytest.mark.parametrize("case", sorted(REACHED))
def test_dependents_reached_indirectly_follow_the_edit(tmp_path: Path, case: str) -> None:
    files, edits = REACHED[case]
    edits_equal_rebuild(tmp_path, files, edits)


# break-it of session 41 (a helper): 21 edits a dependent reaches through a name of a
# third file (a return chain, a module variable, an attribute, a default argument, a
# decorator, a re-export `as`, an alias, a partial, a dict of functions, `__iter__`,
# `__call__`, an argument type from another file's call site; Python, TypeScript, Go,
# Rust): each left stale edges before affected dependents passed on what they reach
CHAINS = json.loads((Path(__file__).parent / "fixtures" / "incremental_chains" /
                     "cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", sorted(CHAINS))
def test_edits_reached_through_a_third_file_follow(tmp_path: Path, case: str) -> None:
    files, edits = CHAINS[case]
    edits_equal_rebuild(tmp_path, files, [tuple(e) for e in edits])
