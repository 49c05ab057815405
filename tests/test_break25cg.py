"""Break-it pass over the 2 December Python call-graph rules (commits de16442..b54329a):
class bodies read their own names, ``self`` bound again, the ``__main__`` guard seen by
importers, decorators that rebind what they return, abstract intermediates, ``d.update``
and keys of parameters.

Each expected edge was checked by running the same program under ``sys.setprofile``
(caller/callee of every ``call`` event in the program's files). A finding is a strict
xfail (a fix turns it into an XPASS, which fails: remove the mark with the fix); the
docstring says whether the code before those commits (28f3c2c) got it right, i.e.
whether it is a regression. Inputs are real git repositories in tmp dirs, indexed for
real. Passing tests at the end pin forms of the same rules that hold.

The regressions were fixed the same day (class members carry their first line, a self
name bound in a lambda, a comprehension, a branch or to ``type(self)`` stays the
receiver, the guard cuts only its own body, a decorator's rebinding to several values
falls back to the nested function, only an ``@abstractmethod`` of an ``ABC`` is dropped,
a part of ``*args`` is unknown), and so were ``cls = Other; cls()``, ``d.update(k=v)``
and ``self`` bound in one branch (the receiver's targets and the binding's);
their docstrings keep describing what was found.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_repo
from test_break23 import edges, line_of

AB = ("class A:\n    def run(self):\n        return 1\n\n\n"
      "class B:\n    def run(self):\n        return 2\n")


def at(tmp: Path, files: dict[str, str], src: str, path: str, text: str,
       nth: int = 1) -> list[str]:
    """Resolved call edges of caller ``src`` on the line of ``path`` containing ``text``."""
    ln = line_of(files[path], text, nth)
    repo = make_repo(tmp / "r", dict(files))
    return [e for e in edges(repo) if e.split(" -> ")[0] == src and e.endswith(f"@{ln}")]


# --- 1. a class body reads its own names: only those bound before the use -----------

def test_class_body_name_used_before_its_definition_is_the_module_name(tmp_path: Path) -> None:
    """``class K: x = helper(); def helper(self)``: the class body runs top-down, so the
    call reads the module's ``helper`` (K.helper is not bound yet). The index gives
    ``K -> K.helper``, which never runs, and loses ``K -> helper``. Regression (28f3c2c
    gave ``K -> helper``)."""
    src = ("def helper():\n    return 1\n\n\nclass K:\n    x = helper()\n\n"
           "    def helper(self):\n        return 2\n")
    assert at(tmp_path, {"a.py": src}, "a.py::K", "a.py", "x = helper()") == [
        f"a.py::K -> a.py::helper @{line_of(src, 'x = helper()')}"]


def test_decorator_bound_later_in_the_class_body_is_the_module_one(tmp_path: Path) -> None:
    """``class K: @memo def m(self) … def memo(fn)``: ``memo`` is applied when ``m`` is
    defined, before ``K.memo`` exists, so it is the module's ``memo`` and ``self.m()``
    runs ``memo.wrapper``. The index applies ``K.memo`` and gives ``K.use -> K.m`` (never
    runs). Regression (28f3c2c gave ``K.use -> memo.wrapper``)."""
    src = ("def memo(fn):\n    def wrapper(*a):\n        return fn(*a)\n    return wrapper\n\n\n"
           "class K:\n    @memo\n    def m(self):\n        return 1\n\n"
           "    def memo(fn):\n        return fn\n\n    def use(self):\n        return self.m()\n")
    assert at(tmp_path, {"a.py": src}, "a.py::K.use", "a.py", "self.m()") == [
        f"a.py::K.use -> a.py::memo.wrapper @{line_of(src, 'self.m()')}"]


def test_base_bound_later_in_the_outer_class_body_is_the_module_one(tmp_path: Path) -> None:
    """``class Outer: class S(Base): … class Base: …``: when S is created Outer.Base does
    not exist yet, so S derives from the module's Base; ``Outer.S().run()`` runs
    ``Base.run`` and its ``self.step()`` runs ``Outer.S.step``. The index derives S from
    Outer.Base: ``use -> Outer.Base.run`` (never runs) and no ``Base.run ->
    Outer.S.step``. Regression (28f3c2c had both right)."""
    src = ("class Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n"
           "        return 0\n\n\nclass Outer:\n    class S(Base):\n        def step(self):\n"
           "            return 1\n\n    class Base:\n        def run(self):\n            return 9\n"
           "\n\ndef use():\n    Base().run()\n    return Outer.S().run()\n")
    repo = make_repo(tmp_path / "r", {"a.py": src})
    got = [e for e in edges(repo) if e.startswith(("a.py::Base.run ", "a.py::use "))]
    st, u = line_of(src, "self.step()"), line_of(src, "Outer.S().run()")
    assert got == [f"a.py::Base.run -> a.py::Base.step @{st}",
                   f"a.py::Base.run -> a.py::Outer.S.step @{st}",
                   f"a.py::use -> a.py::Base @{u - 1}", f"a.py::use -> a.py::Base.run @{u - 1}",
                   f"a.py::use -> a.py::Base.run @{u}", f"a.py::use -> a.py::Outer.S @{u}"]


# --- 2. self bound again -------------------------------------------------------------

K_SUB = ("class Other:\n    def run(self):\n        return 0\n\n    def make(self):\n"
         "        return 0\n\n    def key(self):\n        return 0\n\n\n"
         "class K:\n    def run(self):\n        return 1\n\n    def make(self):\n        return 2\n")
SUB = "\n\nclass Sub(K):\n    def run(self):\n        return 3\n\n    def make(self):\n        return 4\n"


def test_self_bound_again_in_one_branch_is_still_the_receiver(tmp_path: Path) -> None:
    """``if flag: self = Other()`` then ``self.run()``: with the flag unset ``self`` is
    still the receiver (K.run, Sub.run run); the index keeps only ``Other.run``.
    Partly a regression (28f3c2c gave K.run and Sub.run, missing Other.run)."""
    src = K_SUB + ("\n    def branch(self, flag):\n        if flag:\n            self = Other()\n"
                   "        return self.run()\n") + SUB
    ln = line_of(src, "return self.run()")
    assert at(tmp_path, {"a.py": src}, "a.py::K.branch", "a.py", "return self.run()") == [
        f"a.py::K.branch -> a.py::K.run @{ln}", f"a.py::K.branch -> a.py::Other.run @{ln}",
        f"a.py::K.branch -> a.py::Sub.run @{ln}"]


@pytest.mark.parametrize("expr", ["type(self)", "self.__class__"])
def test_cls_bound_to_the_class_of_self(tmp_path: Path, expr: str) -> None:
    """``cls = type(self)`` (or ``self.__class__``) in a method, then ``cls.make(self)``:
    cls is the instance's class, so K.make or Sub.make runs. Since ``cls`` is now bound
    again it is no receiver, and the value of ``type(self)`` gives nothing: no edge at
    all. Regression (28f3c2c gave K.make and Sub.make)."""
    src = K_SUB + f"\n    def klass(self):\n        cls = {expr}\n        return cls.make(self)\n" + SUB
    ln = line_of(src, "cls.make(self)")
    assert at(tmp_path, {"a.py": src}, "a.py::K.klass", "a.py", "cls.make(self)") == [
        f"a.py::K.klass -> a.py::K.make @{ln}", f"a.py::K.klass -> a.py::Sub.make @{ln}"]


def test_lambda_parameter_named_self_does_not_rebind_the_receiver(tmp_path: Path) -> None:
    """``sorted(xs, key=lambda self: self.key())`` binds the lambda's own ``self``; the
    method's ``self.run()`` after it still runs K.run / Sub.run. The index counts the
    lambda parameter as binding ``self`` again in the method and gives no edge for
    ``self.run()``. Regression (28f3c2c gave K.run and Sub.run)."""
    src = K_SUB + ("\n    def lam(self, xs):\n        xs = sorted(xs, key=lambda self: self.key())\n"
                   "        return self.run(), xs\n") + SUB
    ln = line_of(src, "return self.run(), xs")
    assert at(tmp_path, {"a.py": src}, "a.py::K.lam", "a.py", "return self.run(), xs") == [
        f"a.py::K.lam -> a.py::K.run @{ln}", f"a.py::K.lam -> a.py::Sub.run @{ln}"]


def test_comprehension_variable_named_self_does_not_rebind_the_receiver(tmp_path: Path) -> None:
    """``[self.key() for self in others]`` binds ``self`` inside the comprehension only;
    the method's ``self.run()`` after it still runs K.run / Sub.run. The index gives no
    edge for it. Regression (28f3c2c gave K.run and Sub.run)."""
    src = K_SUB + ("\n    def comp(self):\n        keys = [self.key() for self in (Other(),)]\n"
                   "        return self.run(), keys\n") + SUB
    ln = line_of(src, "return self.run(), keys")
    assert at(tmp_path, {"a.py": src}, "a.py::K.comp", "a.py", "return self.run(), keys") == [
        f"a.py::K.comp -> a.py::K.run @{ln}", f"a.py::K.comp -> a.py::Sub.run @{ln}"]


def test_nested_function_self_default_is_the_receiver(tmp_path: Path) -> None:
    """``def inner(self=self): return self.run()`` called as ``inner()`` in a method: the
    default is the method's receiver, so a Sub instance runs Sub.run. The parameter makes
    the index drop class-hierarchy dispatch and keep K.run only. Regression (28f3c2c gave
    K.run and Sub.run)."""
    src = K_SUB + ("\n    def nested(self):\n        def inner(self=self):\n"
                   "            return self.run()\n        return inner()\n") + SUB
    ln = line_of(src, "return self.run()")
    assert at(tmp_path, {"a.py": src}, "a.py::K.nested.inner", "a.py", "return self.run()") == [
        f"a.py::K.nested.inner -> a.py::K.run @{ln}", f"a.py::K.nested.inner -> a.py::Sub.run @{ln}"]


def test_cls_bound_again_constructs_what_it_holds(tmp_path: Path) -> None:
    """``@classmethod def build(cls): cls = Other; return cls()`` constructs an Other;
    the index still reads ``cls()`` as the class hierarchy of K (``build -> K``, ``build
    -> Sub``, never run) and gives no ``build -> Other``. Not a regression (28f3c2c gave
    the same), but rule 2 says a receiver bound again gets no class-hierarchy dispatch."""
    src = K_SUB + ("\n    @classmethod\n    def build(cls):\n        cls = Other\n"
                   "        return cls()\n") + SUB
    ln = line_of(src, "return cls()")
    assert at(tmp_path, {"a.py": src}, "a.py::K.build", "a.py", "return cls()") == [
        f"a.py::K.build -> a.py::Other @{ln}"]


# --- 3. the __main__ guard seen by importers ------------------------------------------

def _importer(tmp: Path, mod: str) -> list[str]:
    user = ("import m\nfrom m import handler as h\n\n\ndef use():\n    m.handler.run()\n"
            "    h.run()\n")
    files = {"ab.py": AB, "m.py": "from ab import A, B\n\n" + mod, "user.py": user}
    repo = make_repo(tmp / "r", files)
    return [e for e in edges(repo) if e.startswith("user.py::use ")]


def test_else_branch_of_main_guard_runs_on_import(tmp_path: Path) -> None:
    """``if __name__ == "__main__": handler = A() else: handler = B()``: on import the
    else branch runs, so ``m.handler.run()`` and ``h.run()`` run B.run. The index cuts
    everything from the guard's line on and gives no edge. Regression (28f3c2c gave B.run
    on both lines)."""
    got = _importer(tmp_path, 'if __name__ == "__main__":\n    handler = A()\n'
                              "else:\n    handler = B()\n")
    assert got == ["user.py::use -> ab.py::B.run @6", "user.py::use -> ab.py::B.run @7"]


def test_binding_after_main_guard_is_seen_by_importers(tmp_path: Path) -> None:
    """``if __name__ == "__main__": main()`` followed by ``handler = B()``: the binding
    after the guard happens on import too, so the importer runs B.run. The index hides it
    (everything after the guard's first line) and gives no edge. Regression (28f3c2c gave
    B.run)."""
    got = _importer(tmp_path, 'if __name__ == "__main__":\n    print()\n\nhandler = B()\n')
    assert got == ["user.py::use -> ab.py::B.run @6", "user.py::use -> ab.py::B.run @7"]


def test_rebinding_after_main_guard_wins_for_importers(tmp_path: Path) -> None:
    """``handler = A()``, a guard, then ``handler = B()``: an importer sees B; the index
    stops at the guard and gives A.run, which never runs from there. Regression (28f3c2c
    gave B.run)."""
    got = _importer(tmp_path, 'handler = A()\nif __name__ == "__main__":\n    pass\n'
                              "handler = B()\n")
    assert got == ["user.py::use -> ab.py::B.run @6", "user.py::use -> ab.py::B.run @7"]


# --- 4. a decorator that rebinds the name it returns ----------------------------------

def test_decorator_rebinding_its_wrapper_in_one_branch(tmp_path: Path) -> None:
    """``def wrapper…; if cond: wrapper = fn; return wrapper``: unless the condition holds
    the wrapper is returned, and the run calls ``deco.wrapper``. The value at the return
    is a union, so the index gives up and gives ``use -> f`` (never runs: f is called by
    the wrapper). Regression (28f3c2c gave ``use -> deco.wrapper``)."""
    src = ("def deco(fn):\n    def wrapper(*a):\n        return fn(*a)\n"
           "    if fn.__name__ == 'nope':\n        wrapper = fn\n    return wrapper\n\n\n"
           "@deco\ndef f():\n    return 1\n\n\ndef use():\n    return f()\n")
    assert at(tmp_path, {"a.py": src}, "a.py::use", "a.py", "return f()") == [
        f"a.py::use -> a.py::deco.wrapper @{line_of(src, 'return f()')}"]


# --- 5. abstract intermediates ---------------------------------------------------------

def test_not_implemented_hook_inherited_by_an_instantiated_subclass(tmp_path: Path) -> None:
    """An optional hook ``def step(self): raise NotImplementedError`` in a plain class
    (no ABC) whose ``run`` catches it: ``Plain(Hook)`` does not override it and is
    instantiated, so ``Hook.run -> Hook.step`` runs (and raises). The index now treats
    Plain as abstract and drops ``Hook.step``, keeping only ``Real.step``. Regression
    (28f3c2c gave both)."""
    src = ("class Hook:\n    def step(self):\n        raise NotImplementedError\n\n"
           "    def run(self):\n        try:\n            return self.step()\n"
           "        except NotImplementedError:\n            return 0\n\n\n"
           "class Plain(Hook):\n    pass\n\n\nclass Real(Hook):\n    def step(self):\n"
           "        return 1\n\n\ndef use():\n    return Plain().run(), Real().run()\n")
    ln = line_of(src, "return self.step()")
    assert at(tmp_path, {"a.py": src}, "a.py::Hook.run", "a.py", "return self.step()") == [
        f"a.py::Hook.run -> a.py::Hook.step @{ln}", f"a.py::Hook.run -> a.py::Real.step @{ln}"]


def test_abstractmethod_without_abc_metaclass_is_instantiable(tmp_path: Path) -> None:
    """``@abstractmethod`` in a class without ``ABC``/``ABCMeta`` is not enforced: a
    subclass that does not override it is instantiated and ``self.step()`` runs the
    decorated body. The index drops it (only ``Real.step``). Regression (28f3c2c gave
    both)."""
    src = ("from abc import abstractmethod\n\n\nclass NoMeta:\n    @abstractmethod\n"
           "    def step(self):\n        return 0\n\n    def run(self):\n        return self.step()\n"
           "\n\nclass Sub(NoMeta):\n    pass\n\n\nclass Real(NoMeta):\n    def step(self):\n"
           "        return 2\n\n\ndef use():\n    return Sub().run(), Real().run()\n")
    ln = line_of(src, "return self.step()")
    assert at(tmp_path, {"a.py": src}, "a.py::NoMeta.run", "a.py", "return self.step()") == [
        f"a.py::NoMeta.run -> a.py::NoMeta.step @{ln}",
        f"a.py::NoMeta.run -> a.py::Real.step @{ln}"]


# --- 6. d.update -----------------------------------------------------------------------

def test_update_with_keywords_binds_the_key(tmp_path: Path) -> None:
    """``d = {'k': A().run}; d.update(k=B().run); d['k']()`` runs B.run; the index keeps
    the literal's A.run (never runs). Not a regression (28f3c2c the same); the keyword
    form of the dict-literal rule is not handled."""
    src = AB + ("\n\ndef use():\n    d = {'k': A().run}\n    d.update(k=B().run)\n"
                "    return d['k']()\n")
    assert at(tmp_path, {"a.py": src}, "a.py::use", "a.py", "return d['k']()") == [
        f"a.py::use -> a.py::B.run @{line_of(src, 'return d[')}"]


# --- 7. keys of parameters -------------------------------------------------------------

@pytest.mark.parametrize("sig,read", [("*L", "L[0]"), ("**L", "L['a']")])
def test_star_parameter_subscript_never_reads_the_module_name(tmp_path: Path, sig: str,
                                                              read: str) -> None:
    """``def f(*L): return L[0]()`` (and ``**L`` with ``L['a']``) with a module-level
    ``L`` holding A.run: the parameter shadows the global, the call runs the B.run passed.
    The index reads the module's L and gives A.run (never runs from f). Not a regression
    (28f3c2c the same), but rule 7 (a key or index of a parameter never reads an outer
    name it shadows) misses star parameters."""
    call = "f(B().run)" if sig == "*L" else "f(a=B().run)"
    src = AB + (f"\n\nL = {{'a': A().run, 0: A().run}}\n\n\ndef f({sig}):\n    return {read}()\n"
                f"\n\ndef use():\n    return {call}\n")
    ln = line_of(src, f"return {read}()")
    got = at(tmp_path, {"a.py": src}, "a.py::f", "a.py", f"return {read}()")
    assert got in ([], [f"a.py::f -> a.py::B.run @{ln}"])  # unknown (the rule) or the truth


# --- forms that hold -------------------------------------------------------------------

def test_class_body_name_after_its_definition_is_the_class_one(tmp_path: Path) -> None:
    """``class K: def helper(): …; y = helper()`` runs K.helper; a method's ``helper()``
    runs the module's helper (methods do not see class names)."""
    src = ("def helper():\n    return 1\n\n\nclass K:\n    def helper():\n        return 2\n"
           "    y = helper()\n\n    def go(self):\n        return helper()\n")
    repo = make_repo(tmp_path / "r", {"a.py": src})
    got = [e for e in edges(repo) if e.startswith(("a.py::K ", "a.py::K.go "))]
    assert got == [f"a.py::K -> a.py::K.helper @{line_of(src, 'y = helper()')}",
                   f"a.py::K.go -> a.py::helper @{line_of(src, 'return helper()')}"]


def test_self_bound_to_another_instance_of_the_hierarchy(tmp_path: Path) -> None:
    """``self = self.nxt()`` (nxt returns a Sub) then ``self.run()`` runs Sub.run only."""
    src = K_SUB + ("\n    def walk(self):\n        self = self.nxt()\n        return self.run()\n\n"
                   "    def nxt(self):\n        return Sub()\n") + SUB
    ln = line_of(src, "return self.run()")
    assert at(tmp_path, {"a.py": src}, "a.py::K.walk", "a.py", "return self.run()") == [
        f"a.py::K.walk -> a.py::Sub.run @{ln}"]


@pytest.mark.parametrize("guard", ["__name__ == '__main__'", '"__main__" == __name__'])
def test_guard_spellings_seen_by_importers(tmp_path: Path, guard: str) -> None:
    """Single quotes and the reversed comparison are guards too: an importer sees the
    binding before the guard only (B.run, not the guarded A.run; 28f3c2c gave A.run)."""
    mod = f"from ab import A, B\n\nhandler = B()\nif {guard}:\n    handler = A()\n"
    user = "import m\nfrom m import handler as h\n\n\ndef use():\n    m.handler.run()\n    h.run()\n"
    repo = make_repo(tmp_path / "r", {"ab.py": AB, "m.py": mod, "user.py": user})
    assert [e for e in edges(repo) if e.startswith("user.py::use ")] == [
        "user.py::use -> ab.py::B.run @6", "user.py::use -> ab.py::B.run @7"]


def test_update_of_another_key_keeps_the_first(tmp_path: Path) -> None:
    """``d = {'k': A().run}; d['k']()`` before ``d.update({'k': B().run})`` runs A.run,
    after it B.run; an update of another key (``'j'``) leaves ``d['k']`` alone."""
    src = AB + ("\n\ndef use():\n    d = {'k': A().run}\n    d['k']()\n"
                "    d.update({'j': A().run})\n    d['k']()\n"
                "    d.update({'k': B().run})\n    return d.get('k')()\n")
    repo = make_repo(tmp_path / "r", {"a.py": src})
    got = [e for e in edges(repo) if e.startswith("a.py::use ") and ".run @" in e]
    first, second = line_of(src, "    d['k']()"), line_of(src, "    d['k']()", 2)
    assert got == [f"a.py::use -> a.py::A.run @{first}", f"a.py::use -> a.py::A.run @{second}",
                   f"a.py::use -> a.py::B.run @{line_of(src, 'd.get(')}"]
