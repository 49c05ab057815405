"""A run's output → an :class:`~hindsight.models.Observation`: the test ids that failed and
passed, counts, the first error lines and a one-line summary. Nothing of the output is kept
beyond that.

JUnit XML is read with ``junitparser`` (``--junit PATH`` of ``hindsight run``, or a
``--junitxml=PATH`` / ``--junit-xml PATH`` in the command). Otherwise the summary lines of
the runner are parsed, in the forms these tools print them (fixtures in
``tests/fixtures/observations``):

- pytest: ``FAILED path::test - message`` / ``ERROR …`` (short test summary, on by default
  since pytest 6's ``-rfE``), ``path::test PASSED`` (``-v``), ``E   …`` error lines and the
  final ``N failed, M passed in T s``;
- go test: ``--- FAIL: TestX (0.00s)`` / ``--- PASS`` / ``--- SKIP`` (subtests indented)
  and the package lines ``ok  pkg 0.01s`` / ``FAIL pkg 0.01s`` / ``FAIL pkg [build
  failed]``;
- cargo test: ``test mod::name ... ok|FAILED|ignored``, ``thread '…' panicked at …`` and
  ``test result: FAILED. 1 passed; 1 failed; …``;
- Jest: `` FAIL  file`` / `` PASS  file``, ``● Suite › test`` failure titles, ``✓`` / ``✕``
  tests and ``Tests: 1 failed, 2 passed, 3 total``;
- Vitest: `` FAIL  file > suite > test``, ``✓`` / ``×`` tests and ``Tests  1 failed | 1
  passed (2)``;
- Maven Surefire (2.x and 3.x): ``Tests run: N, Failures: F, Errors: E, Skipped: S``,
  ``Class.method -- Time elapsed: … <<< FAILURE!`` (3.x) or ``method(Class)  Time elapsed:
  … <<< FAILURE!`` (2.x), and the ``Results:`` section.

The runner named by the command is tried first, then the others. ANSI colour codes and
carriage-return progress are removed first (``hindsight run`` reads through a terminal).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence

from hindsight.models import Observation

MAX_IDS = 20  # failing (and passing) test ids kept per record
MAX_ERRORS = 5  # error lines kept
LINE_CAP = 300  # characters of one error line or summary
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def plain(output: str) -> str:
    """``output`` without ANSI escape sequences, with CRLF as LF and each line reduced to
    what follows its last carriage return (progress bars redraw with ``\\r``)."""
    text = _ANSI.sub("", output).replace("\r\n", "\n")
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return text


def _cap(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= LINE_CAP else line[:LINE_CAP - 1] + "…"


def _first(items: list[str], n: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))[:n]


def _obs(parser: str, counts: dict[str, int], failed: list[str], passed: list[str],
         errors: list[str], summary: str = "") -> Observation:
    summary = summary or ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    return Observation(parser, _cap(summary), tuple(counts.items()), _first(failed, MAX_IDS),
                       _first(passed, MAX_IDS), tuple(_cap(e) for e in
                                                      _first(errors, MAX_ERRORS)))


# --- pytest ---------------------------------------------------------------------------
_PY_FINAL = re.compile(r"^=*\s*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|"
                       r"warnings?|errors?|rerun)(?:, )?)+|no tests ran) in [\d.]+s"
                       r"(?: \([^)]*\))?\s*=*$", re.M)
# a test id's parameters may hold spaces (`test_x[a b: c]`): up to the `]` that ends it
_PY_ID = r"[^\s\[]+(?:\[[^\n]*?\])?"
_PY_SUMMARY = re.compile(rf"^(FAILED|ERROR) ({_PY_ID})(?: - (.*))?$", re.M)
_PY_VERBOSE = re.compile(rf"^([^\s\[]+::{_PY_ID}) (PASSED|FAILED|ERROR)\b", re.M)
_PY_E = re.compile(r"^E {2,}(?!\+ )(\S.*)$", re.M)
_COUNT = re.compile(r"(\d+) (\w+)")


def _pytest(text: str) -> Observation | None:
    finals = _PY_FINAL.findall(text)
    if not finals:
        return None
    counts: dict[str, int] = {}
    for n, word in _COUNT.findall(finals[-1]):
        key = {"warning": "warnings", "error": "errors"}.get(word, word)
        counts[key] = counts.get(key, 0) + int(n)
    failed = [m[1] for m in _PY_SUMMARY.findall(text)]
    failed += [m[0] for m in _PY_VERBOSE.findall(text) if m[1] != "PASSED"]
    passed = [m[0] for m in _PY_VERBOSE.findall(text) if m[1] == "PASSED"]
    errors = _PY_E.findall(text) + [m[2] for m in _PY_SUMMARY.findall(text) if m[2]]
    return _obs("pytest", counts, failed, passed, errors, finals[-1])


# --- go test --------------------------------------------------------------------------
_GO_TEST = re.compile(r"^(\s*)--- (FAIL|PASS|SKIP): (\S+) \([\d.]+s\)$")
_GO_PKG = re.compile(r"^(ok|FAIL|\?)\s+(\S+)\s+(\S.*)$")
_GO_MSG = re.compile(r"^\s+\S+\.go:\d+: (.*)$")
_GO_BUILD = re.compile(r"^\S+\.go:\d+(?::\d+)?: (.*)$")


def _go(text: str) -> Observation | None:
    found, pending = False, []
    failed: list[str] = []
    passed: list[str] = []
    errors: list[str] = []
    counts = {"failed": 0, "passed": 0, "skipped": 0, "packages failed": 0}
    for line in text.splitlines():
        m = _GO_TEST.match(line)
        if m:
            found = True
            key = {"FAIL": "failed", "PASS": "passed", "SKIP": "skipped"}[m.group(2)]
            counts[key] += 1
            pending.append((m.group(2), m.group(3)))
            continue
        p = _GO_PKG.match(line)
        if p and ("\t" in line or p.group(1) == "?"):
            found = True
            counts["packages failed"] += p.group(1) == "FAIL"
            for status, name in pending:
                (failed if status == "FAIL" else passed if status == "PASS" else []).append(
                    f"{p.group(2)}.{name}")
            pending = []
            if "[build failed]" in p.group(3):
                errors.append(f"{p.group(2)}: build failed")
            continue
        msg = _GO_MSG.match(line) or _GO_BUILD.match(line)
        if msg or line.startswith("panic: "):
            errors.append(msg.group(1) if msg else line)
    for status, name in pending:  # no package line followed (output cut)
        (failed if status == "FAIL" else passed if status == "PASS" else []).append(name)
    return _obs("go", counts, failed, passed, errors) if found else None


# --- cargo test -----------------------------------------------------------------------
_CARGO_TEST = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)", re.M)
_CARGO_RESULT = re.compile(r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; "
                           r"(\d+) ignored;", re.M)
_CARGO_PANIC = re.compile(r"^thread '[^']*'(?: \(\d+\))? panicked at (?:'(.*)', )?(\S+?):?$",
                          re.M)
_CARGO_ERROR = re.compile(r"^error(?:\[E\d+\])?: (?!test failed)(.*)$", re.M)


def _cargo(text: str) -> Observation | None:
    results = _CARGO_RESULT.findall(text)
    tests = _CARGO_TEST.findall(text)
    errors = _CARGO_ERROR.findall(text)
    if not results and not tests and not ("could not compile" in text and errors):
        return None
    counts = {"failed": 0, "passed": 0, "ignored": 0}
    for p, f, i in results:
        counts["passed"] += int(p)
        counts["failed"] += int(f)
        counts["ignored"] += int(i)
    lines = text.splitlines()
    panics = []
    for i, line in enumerate(lines):
        m = _CARGO_PANIC.match(line)
        if m:  # the message is quoted (before 1.73) or on the next line
            panics.append(m.group(1) or (lines[i + 1] if i + 1 < len(lines) else m.group(2)))
    return _obs("cargo", counts, [n for n, s in tests if s == "FAILED"],
                [n for n, s in tests if s == "ok"], panics + errors)


# --- Jest and Vitest ------------------------------------------------------------------
_JEST_FILE = re.compile(r"^\s*(FAIL|PASS)\s+(\S+)\s*(?:\(.*\))?$")
_JEST_TITLE = re.compile(r"^\s*● (.+)$")
_JEST_PASSED = re.compile(r"^\s*[✓√] (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?$")
_JEST_TESTS = re.compile(r"^Tests:\s+(.+)$", re.M)
_VI_FAIL = re.compile(r"^\s*FAIL\s+(\S+ > .+?)\s*$")
_VI_FILE = re.compile(r"^\s*[❯✓×]\s+(\S+\.\w+) \(\d+ tests?")
_VI_PASSED = re.compile(r"^\s*[✓√]\s+(.+?)(?:\s+\d+ms)?$")
_VI_TESTS = re.compile(r"^\s*Tests\s+(.+)$", re.M)


def _jest(text: str) -> Observation | None:
    totals = _JEST_TESTS.findall(text)
    if not totals:
        return None
    counts = {w: int(n) for n, w in _COUNT.findall(totals[-1]) if w != "total"}
    failed, passed, errors = [], [], []
    lines, current = text.splitlines(), ""
    for i, line in enumerate(lines):
        f = _JEST_FILE.match(line)
        if f:
            current = f.group(2)
            continue
        t = _JEST_TITLE.match(line)
        if t and not t.group(1).startswith("Test suite failed to run"):
            failed.append(f"{current} › {t.group(1)}" if current else t.group(1))
            errors += [x.strip() for x in lines[i + 1:i + 4] if x.strip()][:1]
            continue
        p = _JEST_PASSED.match(line)
        if p and current:
            passed.append(f"{current} › {p.group(1)}")
    return _obs("jest", counts, failed, passed, errors, totals[-1])


def _vitest(text: str) -> Observation | None:
    totals = [t for t in _VI_TESTS.findall(text) if "|" in t or "(" in t]
    if not totals or "Test Files" not in text:
        return None
    counts = {w: int(n) for n, w in _COUNT.findall(totals[-1].split("(")[0])}
    failed, passed, errors = [], [], []
    lines, current = text.splitlines(), ""
    for i, line in enumerate(lines):
        f = _VI_FAIL.match(line)
        if f:
            failed.append(f.group(1))
            errors += [x.strip() for x in lines[i + 1:i + 3] if x.strip()][:1]
            continue
        v = _VI_FILE.match(line)
        if v:
            current = v.group(1)
            continue
        p = _VI_PASSED.match(line)
        if p and current:
            passed.append(f"{current} > {p.group(1)}")
    return _obs("vitest", counts, failed, passed, errors, totals[-1])


# --- Maven Surefire -------------------------------------------------------------------
_MVN_PREFIX = re.compile(r"^\[(?:INFO|ERROR|WARNING|WARN|DEBUG)\] ?", re.M)
_MVN_RUN = re.compile(r"^Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)"
                      r"(.*)$", re.M)
_MVN_CASE3 = re.compile(r"^([\w.$]+)\.(\w+)(?:\(.*\))? -- Time elapsed: .*<<< (?:FAILURE|ERROR)!$")
_MVN_CASE2 = re.compile(r"^(\w+)\(([\w.$]+)\)\s+Time elapsed: .*<<< (?:FAILURE|ERROR)!$")
_MVN_RESULT = re.compile(r"^\s+([\w$]+(?:\.[\w$]+)*)\.(\w+):\d+ (.*)$")


def _maven(text: str) -> Observation | None:
    text = _MVN_PREFIX.sub("", text)
    runs = _MVN_RUN.findall(text)
    if not runs:
        return None
    total = next((r for r in reversed(runs) if " in " not in r[4]), runs[-1])
    n, f, e, s = (int(x) for x in total[:4])
    counts = {"failed": f, "errors": e, "skipped": s, "passed": n - f - e - s}
    failed, errors = [], []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m3, m2 = _MVN_CASE3.match(line), _MVN_CASE2.match(line)
        if m3 or m2:
            failed.append(f"{m3.group(1)}.{m3.group(2)}" if m3 else
                          f"{m2.group(2)}.{m2.group(1)}")  # type: ignore[union-attr]
            if i + 1 < len(lines) and lines[i + 1].strip():
                errors.append(lines[i + 1].strip())
            continue
        r = _MVN_RESULT.match(line)
        if r and not failed:
            failed.append(f"{r.group(1)}.{r.group(2)}")
            errors.append(r.group(3))
    return _obs("maven", counts, failed, [], errors,
                f"Tests run: {n}, Failures: {f}, Errors: {e}, Skipped: {s}")


# --- JUnit XML ------------------------------------------------------------------------
def read_junit(paths: Sequence[str]) -> Observation | None:
    """The observation of JUnit XML files (each a ``<testsuites>`` or ``<testsuite>``
    root), or None when none of them could be read. A case's id is ``classname.name``
    (``name`` alone without a class); its ``file`` attribute, when present, is kept as
    ``file::name``."""
    from junitparser import Error, Failure, JUnitXml, Skipped, TestSuite

    counts = {"failed": 0, "errors": 0, "skipped": 0, "passed": 0}
    failed: list[str] = []
    passed: list[str] = []
    errors: list[str] = []
    read = False
    for path in paths:
        try:
            xml = JUnitXml.fromfile(path)
        except Exception:  # noqa: BLE001 - junitparser raises lxml/ElementTree/OSError
            continue
        read = True
        for suite in [xml] if isinstance(xml, TestSuite) else list(xml):
            for case in suite:
                file = case._elem.get("file") or ""  # xunit1 and jest-junit write it
                cid = f"{file}::{case.name}" if file else (
                    f"{case.classname}.{case.name}" if case.classname else str(case.name))
                results = list(case.result)
                kinds = {type(r) for r in results}
                if Failure in kinds or Error in kinds:
                    counts["failed" if Failure in kinds else "errors"] += 1
                    failed.append(cid)
                    bad = next(r for r in results if isinstance(r, Failure | Error))
                    errors.append((bad.message or bad.text or "").splitlines()[0]
                                  if (bad.message or bad.text) else "")
                elif Skipped in kinds:
                    counts["skipped"] += 1
                else:
                    counts["passed"] += 1
                    passed.append(cid)
    return _obs("junit", counts, failed, passed, errors) if read else None


def split(command: str) -> list[str]:
    """The words of a shell command (``shlex`` rules when it quotes or escapes anything,
    else whitespace; an unbalanced quote: whitespace)."""
    if not any(c in command for c in "'\"\\"):
        return command.split()
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def junit_paths(command: str, cwd: str) -> list[str]:
    """The JUnit XML files a command says it writes: pytest's ``--junitxml=PATH`` /
    ``--junit-xml PATH`` (absolute, or relative to ``cwd``)."""
    if "junit" not in command:
        return []
    words = split(command)
    out = []
    for i, w in enumerate(words):
        for flag in ("--junitxml", "--junit-xml"):
            if w.startswith(flag + "="):
                out.append(w.split("=", 1)[1])
            elif w == flag and i + 1 < len(words):
                out.append(words[i + 1])
    return [p if os.path.isabs(p) else os.path.join(cwd, p) for p in out if p]


_HINTS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:py\.?test|pytest)\b|-m\s+pytest\b|\btox\b|\bnox\b"), "pytest"),
    (re.compile(r"\bgo\s+test\b"), "go"),
    (re.compile(r"\bcargo\s+(?:test|nextest)\b"), "cargo"),
    (re.compile(r"\bvitest\b"), "vitest"),
    (re.compile(r"\bjest\b"), "jest"),
    (re.compile(r"\bmvnw?\b|\bmaven\b"), "maven"),
]
PARSERS: dict[str, Callable[[str], Observation | None]] = {
    "pytest": _pytest, "go": _go, "cargo": _cargo, "vitest": _vitest, "jest": _jest,
    "maven": _maven}
ERROR_LINE = re.compile(r"^\s*(?:Traceback \(most recent call last\)|[\w.]*(?:Error|Exception)"
                        r"\b:?.*|error(?:\[\w+\])?:.*|fatal:.*|panic:.*|npm ERR!.*)$", re.M)


def observe(output: str, command: str = "", junit: Sequence[str] = ()) -> Observation:
    """The observation of one run: from ``junit`` files when one can be read, else from the
    summary lines in ``output`` (the command's runner first), else only its first error
    lines (``parser`` ``""``; the summary is the first of them, or the last line of
    output)."""
    if junit:
        got = read_junit(junit)
        if got is not None:
            return got
    text = plain(output)
    order = [name for pat, name in _HINTS if pat.search(command)]
    for name in [*order, *(n for n in PARSERS if n not in order)]:
        got = PARSERS[name](text)
        if got is not None:
            return got
    errors = [m.group(0).strip() for m in ERROR_LINE.finditer(text[-50_000:])]
    last = next((ln for ln in reversed(text[-5000:].splitlines()) if ln.strip()), "")
    return _obs("", {}, [], [], errors, errors[0] if errors else last)
