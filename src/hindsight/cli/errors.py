"""The CLI's one error mapping: any :class:`~hindsight.errors.HindsightError` becomes one
line on stderr (``hindsight: …``) and the error's exit code. Fields are worded here: an
``option`` named at the start of the message becomes its flag (``kind 'x'`` →
``--kind 'x'``), an ``action`` becomes the command to run, ``candidates`` are listed one
per line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from hindsight.errors import Ambiguous, HindsightError


def hint(e: HindsightError) -> str:
    """The command that would fix ``e`` (``""`` when none)."""
    if e.action == "index":
        return "hindsight index" + (f" --repo-root {e.root}" if e.root else "")
    if e.action == "ingest":
        return "hindsight ingest"
    if e.action == "rebuild":
        return "hindsight index" + (f" --repo-root {e.root}" if e.root else "")
    return ""


def wording(e: HindsightError) -> str:
    """``e`` as the CLI says it (without the ``hindsight:`` prefix)."""
    msg = e.message
    if e.option and (msg.startswith(e.option + " ") or msg.startswith(e.option + ":")):
        msg = "--" + e.option.replace("_", "-") + msg[len(e.option):]
    if isinstance(e, Ambiguous) and e.option == "file":
        msg += " (or --file)"
    fix = hint(e)
    if e.action == "rebuild":
        return f"{msg}: move it away, then run: {fix}"
    return f"{msg}; run: {fix}" if fix else msg


def report(e: HindsightError) -> int:
    """Print ``e`` to stderr; returns its exit code."""
    sys.stderr.write(f"hindsight: {wording(e)}\n")
    if isinstance(e, Ambiguous):
        for c in e.candidates:
            sys.stderr.write(f"  {c}\n")
    return e.exit_code


@contextmanager
def handled() -> Iterator[None]:
    """Map hindsight errors (and Ctrl-C) to a line on stderr and an exit code."""
    try:
        yield
    except HindsightError as e:
        sys.exit(report(e))
    except KeyboardInterrupt:
        sys.stderr.write("hindsight: interrupted\n")
        sys.exit(130)
