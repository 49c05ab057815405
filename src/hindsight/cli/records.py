"""Execution record commands: ``run`` (run a command and record it) and ``attempts``
(the attempts that changed or exercised a symbol). Added to the tree by :mod:`.app`; the
attempts tables of ``history`` and ``why`` use :func:`attempt_rows` too."""

from __future__ import annotations

import os
import shlex
import sys
from typing import Any

import click

from hindsight.cli import output as out
from hindsight.cli.main import (
    _errors,
    _more,
    _reader,
    file_opt,
    json_opt,
    limit_opt,
    offset_opt,
    repo_root_opt,
)
from hindsight.models import OUTCOMES

RUN_CONTEXT = {"ignore_unknown_options": True, "allow_interspersed_args": False,
               "help_option_names": ["-h", "--help"]}


@click.command("run", context_settings=RUN_CONTEXT)
@click.option("--junit", "junit", multiple=True, metavar="PATH",
              help="JUnit XML file the command writes (repeatable; a --junitxml=PATH in the "
              "command is read too).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED,
                metavar="-- CMD [ARG]...")
def run(junit: tuple[str, ...], command: tuple[str, ...]) -> None:
    """Run CMD (after --), stream its output, exit with its exit status, and record the
    run in this repository's bank: its outcome, the failing tests and first errors, and
    what the work tree changed since the previous run. Through a terminal when stdout is
    one; 128+N when signal N ended it (signals are forwarded); 127/126 when the command is
    not found / not executable. A failure to record prints one line on stderr and never
    changes the exit status."""
    from hindsight.cli.runner import run as execute

    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        out.err("run: give the command after --, e.g. hindsight run -- pytest -q")
        sys.exit(2)
    cwd = os.getcwd()
    res = execute(argv)
    try:
        _record(argv, res, cwd, junit)
    except BaseException as e:  # noqa: BLE001 - recording never changes the exit status
        what = getattr(e, "message", None) or str(e) or type(e).__name__
        sys.stderr.write(f"hindsight: the run was not recorded: {' '.join(what.split())}\n")
    sys.exit(res.code)


def _record(argv: list[str], res: Any, cwd: str, junit: tuple[str, ...]) -> None:
    from hindsight.app import open_bank

    paths = [os.path.join(cwd, p) for p in junit]
    with open_bank(cwd) as bank:
        rec = bank.records.record(shlex.join(argv), exit_code=res.code, output=res.output,
                                  tool="run", agent="cli", cwd=cwd, started_ts=res.started,
                                  duration_ms=res.duration_ms, interrupted=res.interrupted,
                                  junit=paths)
    if paths and rec.observation.parser != "junit":  # recorded from the output instead
        for given, path in zip(junit, paths, strict=True):
            why = "no such file" if not os.path.exists(path) else "not a readable JUnit XML file"
            sys.stderr.write(f"hindsight: --junit {given}: {why}; the run was recorded "
                             "from its output\n")


def attempt_rows(attempts: list[dict[str, Any]]) -> list[list[Any]]:
    """Table rows of attempts (``ExecutionRecord.attempt_dict()``)."""
    from hindsight.app import time_shown

    rows = []
    for a in attempts:
        obs = a["observation"]
        why = "; ".join([*(f"FAILED {t}" for t in obs["failed"][:2]), *obs["errors"][:1]])
        rows.append([a["id"], time_shown(a["started_at"]), a["outcome"],
                     "yes" if a["verified"] else "no", a["command"][:60],
                     (obs["summary"] + (f" — {why}" if why else ""))[:90],
                     a["diff_summary"][:70]])
    return rows


ATTEMPT_COLUMNS = ["id", "started", "outcome", "verified", "command", "observation", "change"]


@click.command()
@click.argument("symbol")
@repo_root_opt
@file_opt
@click.option("--outcome", type=click.Choice(OUTCOMES), default=None,
              help="Only attempts that ended so.")
@limit_opt("attempts")
@offset_opt
@json_opt
def attempts(symbol: str, repo_root: str | None, file: str | None, outcome: str | None,
             limit: int | None, offset: int, json: bool) -> None:
    """The runs that changed or exercised SYMBOL (a test of it or calling it), newest
    first: what ran, how it ended, the failing tests, the change, whether it is verified.
    All of them unless --limit is given (the MCP tool pages them)."""
    with _errors(), _reader(repo_root) as bank:
        res = bank.records.attempts(symbol, file=file, outcome=outcome, limit=limit,
                                    offset=offset)
        if json:
            out.emit_json(res)
            return
        if not res["attempts"]:
            out.say(f"no attempts recorded for {res['symbol']}"
                    + (f" from offset {offset} (of {res['total']})" if res["total"] else ""))
            return
        n = len(res["attempts"])
        more = _more({"truncated": res["truncated"], "offset": offset, "count": n,
                      "total": res["total"], "next_offset": offset + n})
        out.table(f"attempts on {res['symbol']}{more}", ATTEMPT_COLUMNS,
                  attempt_rows(res["attempts"]))
