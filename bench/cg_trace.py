"""bench/cg_trace.py: runtime-traced ground truth for the blind Python call-graph suite.

Each case under ``tests/fixtures/callgraph_blind/python/<category>/<case>/`` is a small
program of our own (never a user's repository). This script runs its ``main.py`` in a
subprocess under ``sys.monitoring`` (PEP 669, Python >= 3.13: the ``CALL`` event fires at
every call instruction with the callable actually called) and writes the case's
``expected.json``: ``{"edges": [...], "multi_target": [...]}``, the sorted list of
``src -> dst @line`` call edges, in the edge format of ``bench/callgraph.py``
(``main.py::Class.method``; module level is ``main.py::``), and the subset whose call site
reached more than one callee at run time.

Rules (one call site = one CALL instruction executed in a case file):

* caller: the code object holding the call instruction; its ``co_qualname`` without
  ``<locals>``; generator expressions and anonymous lambdas are attributed to their
  enclosing definition (their text is part of it); a lambda bound by ``name = lambda ...``
  is the symbol ``name``; module code is the empty local part.
* line: the start line of the call expression (``co_positions`` of the instruction).
* callee: a function or method (bound methods, static/class methods, ``functools.wraps``
  wrappers and C-level wrappers such as ``functools.lru_cache`` unwrapped through
  ``__wrapped__``, ``functools.partial`` through ``.func``); a
  class called is an edge to the class (as the index records a constructor call); an
  instance with ``__call__`` is an edge to that method. Only callees defined in the case's
  files are kept; anonymous lambdas and generator expressions are dropped as callees.
* a dunder callee other than ``__call__`` is kept only when the call's text names it
  (``super().__init__()``); Python runs ``__exit__`` through a call instruction placed on
  the ``with`` statement, which is not a call site.
* implicit calls (``__enter__``, ``__iter__``, property getters, ``__init__`` run by a
  class call) and calls made by builtins on our behalf (``sorted(key=f)``, ``map(f, …)``)
  execute no call instruction in a case file, so they are not edges.
* every call site (but those of builtins) must run: the script warns of one that never ran (its edge would be missing from the truth).
* one edge per (caller, callee, call site); a call site is the span of a call expression's
  text (start and end line and column), and the application of a decorator made by a call
  (``@app.route("/")``) is a call site of its own: a call site run many times counts once;
  two call sites on one line calling the same callee are two edges (a multiset), also when
  they start at one column (chained calls ``b.f().f()``), each with its own callees.

Usage: ``python bench/cg_trace.py [--python PY313] [--suite NAME] [CASE_DIR ...]`` (default:
every case of ``tests/fixtures/<NAME>/python``, NAME ``callgraph_blind``; the second blind
suite is ``callgraph_blind2``, whose cases are packages of several modules run the same way).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYENV_313 = str(Path.home() / ".pyenv" / "versions" / "3.13.0" / "bin" / "python")
SUITE = ROOT / "tests" / "fixtures" / "callgraph_blind" / "python"


def suite_dir(name: str) -> Path:
    """The case directory of the suite ``name`` (``tests/fixtures/<name>/python``)."""
    return ROOT / "tests" / "fixtures" / name / "python"

# The traced runner: executed by a Python >= 3.13 with argv = [case_dir] (3.12 emits no
# CALL event for ``f(*args)``, CALL_FUNCTION_EX).
RUNNER = r'''
import ast, dis, functools, json, os, runpy, sys, types
case = os.path.realpath(sys.argv[1])
sys.path.insert(0, case)
os.chdir(case)
mon = sys.monitoring
TOOL = mon.PROFILER_ID
named_lambdas = {}   # (file, line, col) -> qualname of the bound name

def rel(filename):
    if not filename or not os.path.isabs(filename):
        return None
    p = os.path.realpath(filename)
    if p.startswith(case + os.sep):
        return p[len(case) + 1:]
    return None

decorator_calls = set()   # (file, lineno, end_lineno, col, end_col) of `@factory(...)`

def scan(path):
    tree = ast.parse(open(path).read())
    for n in ast.walk(tree):
        for d in getattr(n, "decorator_list", ()):
            if isinstance(d, ast.Call):
                decorator_calls.add((rel(path), d.lineno, d.end_lineno, d.col_offset,
                                     d.end_col_offset))
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, prefix + [child.name])
                continue
            if (isinstance(child, ast.Assign) and isinstance(child.value, ast.Lambda)
                    and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)):
                lam = child.value
                named_lambdas[(rel(path), lam.lineno, lam.col_offset)] = ".".join(
                    prefix + [child.targets[0].id])
            walk(child, prefix)
    walk(tree, [])

for dirpath, _dirs, files in os.walk(case):
    for f in files:
        if f.endswith(".py"):
            scan(os.path.join(dirpath, f))

def lambda_name(code, path):
    for (p, line, col), name in named_lambdas.items():
        if p == path and line == code.co_firstlineno:
            return name
    return None

def qual(code, path, as_callee):
    if code.co_qualname == "<module>":
        return None if as_callee else ""
    parts = code.co_qualname.split(".")
    out = []
    for i, part in enumerate(parts):
        if part == "<locals>":
            continue
        if part == "<genexpr>":
            if as_callee:
                return None
            continue
        if part == "<lambda>":
            name = lambda_name(code, path) if i == len(parts) - 1 else None
            if name is None:
                if as_callee:
                    return None
                continue
            return name
        out.append(part)
    return ".".join(out)

def target(obj, depth=0):
    if depth > 8:
        return None
    if isinstance(obj, functools.partial):
        return target(obj.func, depth + 1)
    if isinstance(obj, (staticmethod, classmethod)):
        return target(obj.__func__, depth + 1)
    if isinstance(obj, types.MethodType):
        return target(obj.__func__, depth + 1)
    if isinstance(obj, type):
        mod = sys.modules.get(obj.__module__)
        path = rel(getattr(mod, "__file__", None) or "") if mod else None
        if path is None:
            return None
        return f"{path}::{'.'.join(p for p in obj.__qualname__.split('.') if p != '<locals>')}"
    if isinstance(obj, types.FunctionType):
        inner = getattr(obj, "__wrapped__", None)
        if inner is not None:
            t = target(inner, depth + 1)
            if t is not None:
                return t
        path = rel(obj.__code__.co_filename)
        if path is None:
            return None
        q = qual(obj.__code__, path, True)
        return None if q is None else f"{path}::{q}"
    call = getattr(type(obj), "__call__", None)
    if isinstance(call, types.FunctionType):
        return target(call, depth + 1)
    inner = getattr(obj, "__wrapped__", None)  # a C-level wrapper (functools.lru_cache)
    if inner is not None:
        return target(inner, depth + 1)
    return None

edges = set()
call_offsets = {}

def role(code, path, offset, pos):
    """A call site is a call expression's text (its span): Python may compile one twice (a
    while loop's condition); "apply" marks the call applying a decorator made by a call
    (``@app.route("/")``), which shares the span of that call (it is the later one)."""
    if (path, *pos) not in decorator_calls:
        return "call"
    key = id(code)
    if key not in call_offsets:
        call_offsets[key] = (code, [(i.offset, i.positions) for i in dis.get_instructions(code)
                                    if i.opname.startswith("CALL")])
    same = [o for o, ps in call_offsets[key][1]
            if (ps.lineno, ps.end_lineno, ps.col_offset, ps.end_col_offset) == pos]
    return "apply" if same and offset == max(same) else "call"
caller_cache = {}

sources = {}

def segment(path, pos):
    lineno, end_lineno, col, end_col = pos
    if lineno is None or col is None or end_col is None:
        return ""
    if path not in sources:
        with open(os.path.join(case, path)) as fh:
            sources[path] = fh.read().splitlines()
    lines = sources[path][lineno - 1:end_lineno]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0][col:end_col]
    return "\n".join([lines[0][col:]] + lines[1:-1] + [lines[-1][:end_col]])

def on_call(code, offset, callable_, arg0):
    path = rel(code.co_filename)
    if path is None:
        return mon.DISABLE
    try:
        dst = target(callable_)
    except Exception:
        dst = None
    if dst is None:
        return
    key = id(code)
    if key not in caller_cache:
        caller_cache[key] = (code, f"{path}::{qual(code, path, False)}")
    src = caller_cache[key][1]
    positions = list(code.co_positions())
    pos = positions[offset // 2] if 0 <= offset // 2 < len(positions) else (None,) * 4
    name = dst.rpartition(".")[2].rpartition(":")[2]
    if (name.startswith("__") and name.endswith("__") and name != "__call__"
            and name not in segment(path, pos)):
        return  # an implicit dunder call (__exit__ of a with statement): no call text
    edges.add((src, dst, pos[0], (tuple(pos), role(code, path, offset, tuple(pos)))))

executed = set()

def on_line(code, line):
    path = rel(code.co_filename)
    if path is not None:
        executed.add((path, line))
    return mon.DISABLE

def unexecuted_calls():
    """Call sites (other than of builtins) that never ran: the truth would miss them."""
    trees = {}
    for dirpath, _dirs, files in os.walk(case):
        for f in files:
            if f.endswith(".py"):
                full = os.path.join(dirpath, f)
                trees[rel(full)] = ast.parse(open(full).read())
    names = {n.name for t in trees.values() for n in ast.walk(t)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    import builtins
    out = []
    for path, tree in trees.items():
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                f = n.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if name is None or (name not in names and hasattr(builtins, name)):
                    continue
                if (path, n.lineno) not in executed:
                    out.append(f"{path}:{n.lineno} {name}")
    return sorted(out)

mon.use_tool_id(TOOL, "cg_trace")
mon.register_callback(TOOL, mon.events.CALL, on_call)
mon.register_callback(TOOL, mon.events.LINE, on_line)
mon.set_events(TOOL, mon.events.CALL | mon.events.LINE)
try:
    runpy.run_path(os.path.join(case, "main.py"), run_name="__main__")
finally:
    mon.set_events(TOOL, 0)
    targets = {}
    for s, d, line, where in edges:
        targets.setdefault((s, line, where), []).append(d)
    print(json.dumps({
        "edges": sorted(f"{s} -> {d} @{line}" for s, d, line, _col in edges),
        "multi_target": sorted(f"{s} -> {d} @{line}" for (s, line, _c), ds in targets.items()
                               if len(ds) > 1 for d in ds),
        "unexecuted": unexecuted_calls()}))
'''


def trace(case: Path, python: str) -> dict[str, list[str]]:
    """Traced call edges of ``case`` (a directory holding ``main.py``): ``{"edges": [...],
    "multi_target": [...]}``, sorted ``src -> dst @line`` strings; ``multi_target`` lists the
    edges of call sites (spans of call text) that reached more than one callee.

    Raises RuntimeError when the case exits non-zero (its stderr is in the message)."""
    out = subprocess.run([python, "-c", RUNNER, str(case)], capture_output=True, text=True,
                         timeout=60, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{case}: exit {out.returncode}: {out.stderr.strip()[-800:]}")
    result: dict[str, list[str]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def cases(paths: list[str], suite: Path = SUITE) -> list[Path]:
    if paths:
        return [Path(p).resolve() for p in paths]
    return sorted(p.parent for p in suite.glob("*/*/main.py"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=PYENV_313 if Path(PYENV_313).exists() else "python3.13",
                    help="a Python >= 3.13 (sys.monitoring) to run the cases with")
    ap.add_argument("--suite", default="callgraph_blind",
                    help="suite name under tests/fixtures (default: callgraph_blind)")
    ap.add_argument("case", nargs="*", help="case directories (default: all)")
    args = ap.parse_args()
    suite = suite_dir(args.suite)
    for case in cases(args.case, suite):
        truth = trace(case, args.python)
        for site in truth.pop("unexecuted"):
            print(f"warning: {case.relative_to(suite)}: call never ran: {site}")
        old = case / "expected.json"
        if old.exists():  # the hand-checked static edges are kept (they are not traced)
            kept = json.loads(old.read_text())
            truth.update({k: kept[k] for k in ("static", "static_reason") if k in kept})
        old.write_text(json.dumps(truth, indent=1) + "\n")
        print(f"{case.relative_to(suite)}: {len(truth['edges'])} edges")


if __name__ == "__main__":
    main()
