"""Linking a run to code: test ids → the test functions' symbols → what they call
(depth-bounded, through the call graph), and which symbols a passing run confirms.

A test id names its function differently per runner: pytest ``path::Class::test[param]``;
JUnit ``classname.name`` (or ``file::name``); go ``pkg.TestName/subtest``; cargo
``module::tests::name``; Maven ``pkg.Class.method``; Jest and Vitest a file and titles.
:func:`test_refs` turns one into (path hint, local name hint, function name), and
:func:`resolve_tests` finds the indexed symbol (the path hint's file first, then the
function name in test files), or keeps the hint when the repository is not indexed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from hindsight.store.base import CodeStore

MAX_EXERCISED = 32  # symbols linked as exercised per record (tests and callees)
MAX_TESTS = 16  # of which tests
_GO_NAME = re.compile(r"(?:^|[./])((?:Test|Benchmark|Fuzz|Example)\w*)(?:/|$)")
_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_[^/]+$|_test\.\w+$|"
                        r"\.(test|spec)\.\w+$|Tests?\.\w+$")


def is_test_path(path: str) -> bool:
    """Whether a repository path looks like a test file (``tests/``, ``test_x.py``,
    ``x_test.go``, ``x.test.ts``, ``XTest.java``…)."""
    return _TEST_PATH.search(path) is not None


def test_refs(test_id: str, parser: str) -> tuple[str, str, str]:
    """``(path hint, local hint, function name)`` of one test id (see the module doc);
    hints are ``""`` when the id does not give them."""
    tid = re.sub(r"\[.*\]$", "", test_id.strip())
    if parser in ("jest", "vitest"):
        sep = " › " if " › " in tid else " > "
        return tid.split(sep, 1)[0], "", ""
    if "::" in tid and parser in ("pytest", "junit", ""):
        path, _, rest = tid.partition("::")
        local = rest.replace("::", ".")
        return path, local, local.rsplit(".", 1)[-1]
    if parser == "go" or _GO_NAME.search(tid) and parser == "junit":
        m = _GO_NAME.search(tid)
        return "", "", m.group(1) if m else tid.rsplit(".", 1)[-1]
    if parser == "cargo":
        parts = tid.split("::")
        return "", ".".join(parts[-2:]) if len(parts) > 1 else parts[0], parts[-1]
    parts = tid.split(".")  # junit / maven: package.Class.method or module.Class.test
    if len(parts) == 1:
        return "", "", parts[0]
    cls = next((i for i, p in enumerate(parts) if p[:1].isupper()), None)
    if cls is not None and cls < len(parts) - 1:
        return "/".join(parts[:cls]), ".".join(parts[cls:]), parts[-1]
    return "/".join(parts[:-1]), parts[-1], parts[-1]


def resolve_tests(store: CodeStore | None, refs: Iterable[tuple[str, str, str]],
                  cwd_rel: str = "") -> list[tuple[str, str]]:
    """(path, local) of the tests ``refs`` name: with an index, the indexed symbol (in the
    hinted file when it is indexed, else the function name in a test file, preferring paths
    holding the hint); a file-level ref gives (path, ""). Without an index the hints are
    kept as they are ((path, local) or ("", name))."""
    out: list[tuple[str, str]] = []
    for path, local, name in refs:
        if path and cwd_rel and not path.startswith(cwd_rel + "/"):
            joined = os.path.normpath(os.path.join(cwd_rel, path)).replace(os.sep, "/")
        else:
            joined = path
        if store is None:
            is_file = "." in joined.rsplit("/", 1)[-1]
            if local and is_file:
                out.append((joined, local))
            elif local or name:
                out.append(("", name or local))
            elif joined:
                out.append((joined, ""))
            continue
        out += _indexed(store, joined, local, name)
    return list(dict.fromkeys(out))


def _indexed(store: CodeStore, path: str, local: str, name: str) -> list[tuple[str, str]]:
    if path and not local and not name:
        files = store.files_by_suffix(path, 1)
        return [(files[0][0], "")] if files else []
    if path:
        for cand in (path, f"{path}.py"):
            for f in [p for p, _h in store.files_by_suffix(cand, 3)]:
                syms = [s for s in store.file_symbols(f)
                        if s.local == local or s.local.endswith("." + local) or
                        s.local == name]
                if syms:
                    return [(s.path, s.local) for s in syms[:1]]
    if not name:
        return []
    hits = [s for s in store.find_symbols(name, None, None, 50) if is_test_path(s.path)]
    if local and "." in local:
        exact = [s for s in hits if s.local == local or s.local.endswith("." + local)]
        hits = exact or hits
    hint = [s for s in hits if path and path.rsplit("/", 1)[-1] in s.path]
    return [(s.path, s.local) for s in (hint or hits)[:3]]


def callees(store: CodeStore, starts: list[tuple[str, str]], depth: int,
            limit: int = MAX_EXERCISED) -> list[tuple[str, str]]:
    """(path, local) of the symbols ``starts`` call, breadth first to ``depth`` levels
    (resolved call edges only; a start with local ``""`` is its file's module-level code),
    at most ``limit``, the starts left out."""
    seen = {f"{p}::{loc}" for p, loc in starts}
    level = sorted(seen)
    out: list[tuple[str, str]] = []
    for _ in range(depth):
        nxt = []
        for e in store.edges_from(level) if level else []:
            if e.kind != "call" or not e.dst or e.dst in seen:
                continue
            seen.add(e.dst)
            nxt.append(e.dst)
            path, _, loc = e.dst.partition("::")
            out.append((path, loc))
            if len(out) >= limit:
                return out
        level = nxt
    return out


_SELECTORS = ("-k", "-m", "--run", "-run", "-t", "--testNamePattern", "-Dtest", "--filter",
              "--lf", "--last-failed", "--ff")


def command_scope(command: str, cwd: str, root: str) -> tuple[bool, list[str]]:
    """``(whole suite, test targets)`` of a test command: the paths it names (files or
    directories that exist, relative to ``root``; pytest node ids keep their ``::``
    part), and whether it ran the whole suite (it names no path and no selector such as
    ``-k``, ``-run``, ``-t`` or ``-Dtest``, and no name filter for cargo)."""
    from hindsight.records.observe import split

    words = split(command)
    targets: list[str] = []
    selector = False
    runner = next((i for i, w in enumerate(words) if os.path.basename(w) in
                   ("pytest", "py.test", "go", "cargo", "jest", "vitest", "mvn", "mvnw",
                    "npx", "npm", "yarn", "pnpm") or w == "pytest"), None)
    if runner is None:
        return False, []
    for w in words[runner + 1:]:
        if w in ("&&", ";", "||", "|"):
            break
        if w.startswith("-"):
            selector = selector or any(w == s or w.startswith(s + "=") or
                                       (s == "-Dtest" and w.startswith(s)) for s in _SELECTORS)
            continue
        base = w.split("::", 1)[0]
        full = os.path.normpath(os.path.join(cwd, base))
        if os.path.exists(full) and (full + os.sep).startswith(os.path.join(root, "")):
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            targets.append(rel + (w[len(base):] if "::" in w else ""))
        elif words[runner].endswith("cargo") and w not in ("test", "nextest", "run"):
            selector = True
    if "./..." in words[runner + 1:]:
        return not selector, []
    return not targets and not selector, targets


def covers(changed: Iterable[tuple[str, str]], exercised: set[tuple[str, str]]) -> bool:
    """Whether every one of ``changed`` (path, local) is exercised: itself, a symbol
    nested in it (a method of a changed class) or one it is nested in."""
    for path, local in changed:
        if (path, local) in exercised:
            continue
        if not any(p == path and (e.startswith(local + ".") or local.startswith(e + ".") and e)
                   for p, e in exercised):
            return False
    return True
