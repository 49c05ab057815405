"""History and edit-trace commands: ingest, history, why, impact, hotspots, trace-log,
watch, git-hooks install-git/uninstall-git. Added to the tree by :mod:`.app`."""

from __future__ import annotations

import contextlib
import json as _json
import re
import sys
from typing import Any

import click

from hindsight.cli import output as out
from hindsight.cli.main import (
    _bank,
    _errors,
    _more,
    _page,
    _progress_factory,
    _reader,
    file_opt,
    json_opt,
    limit_opt,
    offset_opt,
    repo_root_opt,
)
from hindsight.errors import ConfigError

merges_opt = click.option("--merges", is_flag=True,
                          help="Also list merges that only brought in their branch's changes.")



@click.command()
@repo_root_opt
@click.option("--mode", type=click.Choice(["full", "message", "none"]), default=None,
              help="full: commits, files and per-symbol changes; message: commits and files; "
              "none: no history (remembered; default full).")
@click.option("--limit", type=click.IntRange(1, 100_000_000), default=None,
              help="Newest commits a first ingest reads (remembered; default 300).")
@click.option("--all", "all_", is_flag=True, help="Read the whole history.")
@click.option("--huge-commit", "huge", type=click.IntRange(1, 100_000_000), default=None,
              help="A commit touching more files is stored but not expanded per symbol and "
              "not used for co-change (remembered; default 100).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Parser processes for full mode (default: CPU count).")
@json_opt
def ingest(repo_root: str | None, mode: str | None, limit: int | None, all_: bool,
           huge: int | None, workers: int | None, json: bool) -> None:
    """Read git history into the bank (incremental: later runs read only new commits)."""
    with _errors(), _bank(repo_root) as bank:
        if all_ and limit is not None:
            raise ConfigError("--all and --limit contradict each other; give one")
        cb, prog = _progress_factory()
        kw: dict[str, Any] = {"mode": mode, "limit": limit, "all_": all_, "huge": huge,
                              "workers": workers}
        if prog is not None:
            with prog:
                st = bank.history.ingest(progress=cb, **kw)
        else:
            st = bank.history.ingest(**kw)
        for n in st.notes:
            out.err(n)
        if json:
            out.emit_json(st.as_dict() | {"bank": bank.bank_id})
            return
        rate = f", {st.ingested / st.seconds:,.0f} commits/s" if st.seconds and st.ingested \
            else ""
        out.say(f"history of {bank.root} ({st.mode} mode): {st.ingested} new commits read "
                f"({st.expanded} expanded per symbol, {st.symbol_changes} symbol changes, "
                f"{st.huge} huge, {st.boundary} shallow boundary); {st.seconds:.2f}s{rate}"
                + (f"\nhistory is partial ({st.partial})" if st.partial else ""))


def _short(sha: str) -> str:
    return sha[:10]


def time_shown(when: str) -> str:
    """A stored time as the tables show it: the reader's zone, offset named."""
    from hindsight.app import time_shown as shown

    return shown(when)


@click.command()
@click.argument("symbol")
@repo_root_opt
@file_opt
@click.option("--include-unreachable", is_flag=True,
              help="Also show commits dropped by a rebase or force-push, and those on "
              "branches not merged into HEAD.")
@merges_opt
@limit_opt("commits")
@offset_opt
@json_opt
def history(symbol: str, repo_root: str | None, file: str | None, include_unreachable: bool,
            merges: bool, limit: int | None, offset: int, json: bool) -> None:
    """Commits that touched SYMBOL, newest first, following it across moves and renames
    (merges that only brought in a branch's changes are left out; --merges shows them)."""
    with _errors(), _reader(repo_root) as bank:
        res = bank.history.history(symbol, file, include_unreachable, merges)
        shown, fields = _page(res["entries"], offset, limit)
        res = res | fields | {"entries": shown} | _attempts(bank, res["qname"])
        if json:
            out.emit_json(res | {"entries": [e.as_dict() for e in shown]})
            return
        title = f"history of {res['qname']}" + (" (file level)" if res["level"] == "file"
                                                  else "") + _more(fields)
        if res["partial"]:
            title += f" — partial history ({res['partial']})"
        out.table(title, ["commit", "date", "author", "change", "subject"],
                  [[_short(e.sha), time_shown(e.date), e.author, _change(e), e.subject[:70]]
                   for e in res["entries"]])
        _merges_note(res["merges_hidden"])
        for n in res["notes"]:
            out.say(n)
        _attempts_table(res)


ATTEMPTS_BESIDE = 10  # attempts listed beside the commits of history and why


def _attempts(bank: Any, qname: str | None) -> dict[str, Any]:
    """``{"attempts": [...], "attempts_total": n}``: the newest execution records that
    changed or exercised ``qname`` (see ``hindsight attempts``)."""
    if not qname:
        return {"attempts": [], "attempts_total": 0}
    got = bank.records.attempts(qname, limit=ATTEMPTS_BESIDE)
    return {"attempts": got["attempts"], "attempts_total": got["total"]}


def _attempts_table(res: dict[str, Any]) -> None:
    from hindsight.cli.records import ATTEMPT_COLUMNS, attempt_rows

    if res["attempts"]:
        n, total = len(res["attempts"]), res["attempts_total"]
        more = f" ({n} of {total}; hindsight attempts for all)" if total > n else ""
        out.table(f"attempts (execution records){more}", ATTEMPT_COLUMNS,
                  attempt_rows(res["attempts"]))


def _merges_note(n: int) -> None:
    if n:
        out.say(f"{n} merge{'' if n == 1 else 's'} that only brought in a branch's changes "
                "left out (--merges shows them)")


def _change(e: Any) -> str:
    if e.change == "moved" and e.old_path == e.path and e.old_local != e.local:
        return f"renamed from {e.old_local}"
    if e.change == "moved":
        return f"moved from {e.old_path}::{e.old_local}"
    return str(e.change) + (" (merge)" if e.merge and e.change != "merged" else "") + \
        ("" if e.reachable else " (unreachable)")


_LOC = re.compile(r"^(.*):(\d{1,9})$", re.S)


@click.command()
@click.argument("location", metavar="FILE:LINE")
@repo_root_opt
@merges_opt
@json_opt
def why(location: str, repo_root: str | None, merges: bool, json: bool) -> None:
    """The commit that last changed the symbol enclosing FILE:LINE, with its message and
    the symbol's earlier changes (blame lifted to the symbol)."""
    with _errors():
        m = _LOC.match(location)
        if not m:
            raise ConfigError(f"{location!r}: expected FILE:LINE (line 1-based)")
        with _reader(repo_root) as bank:
            res = bank.history.why(m.group(1), int(m.group(2)), merges)
            res = res | _attempts(bank, res["symbol"]["qname"] if res["symbol"] else None)
        if json:
            out.emit_json(res | {k: [e.as_dict() for e in res[k]]
                                 for k in ("earlier", "since")})
            return
        last = res["last"]
        head = f"{res['file']}:{res['line']}" + (f" in {res['symbol']['qname']}" if res["symbol"]
                                                 else "")
        if last is None:
            out.say(f"{head}: no commit found (uncommitted, or older than the ingested "
                    "history)")  # its notes follow, once (below)
        else:
            msg = "\n".join("    " + ln for ln in last["message"].rstrip().splitlines())
            out.say(f"{head}\nlast changed by {_short(last['sha'])} ({last['change']}, "
                    f"{time_shown(last['author_date'])}, {last['author_name']})\n{msg}")
        for key, title in (("since", "since then, without changing it"),
                           ("earlier", "earlier changes")):
            if res[key]:
                out.table(title, ["commit", "date", "author", "change", "subject"],
                          [[_short(e.sha), time_shown(e.date), e.author, _change(e),
                            e.subject[:70]] for e in res[key]])
        _merges_note(res["merges_hidden"])
        for n in res["notes"]:
            out.say(n)
        if res["live"]:
            out.table("edits since (edit trace)", ["time", "action", "actor", "session"],
                      [[time_shown(e["ts"]), e["action"], e["actor"], e["session"]]
                       for e in res["live"]])
        _attempts_table(res)


@click.command()
@click.argument("symbol")
@repo_root_opt
@file_opt
@click.option("--depth", type=click.IntRange(1, 20), default=2, show_default=True,
              help="Caller levels to follow.")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=30, show_default=True,
              help="List at most this many (callers first); the JSON says how many there are.")
@offset_opt
@json_opt
def impact(symbol: str, repo_root: str | None, file: str | None, depth: int, limit: int,
           offset: int, json: bool) -> None:
    """What may break if SYMBOL changes: callers to --depth and what historically changes
    together with it, each with its reason."""
    with _errors(), _reader(repo_root) as bank:
        res = bank.history.impact(symbol, depth, file, offset + limit)
        shown, fields = _page(res["items"], offset, limit, res["total"])
        res = res | fields | {"items": shown}
        if json:
            out.emit_json(res | {"items": [i.as_dict() for i in shown]})
            return
        n = res["commits"]
        if not res["items"]:
            out.say(f"impact of {res['symbol']['qname']}: nothing found (no callers to depth "
                    f"{depth}, and nothing changed together with it in {n} "
                    f"commit{'' if n == 1 else 's'} of history)")
        else:
            more = (f"; {res['count']} of {res['total']} from offset {offset}, --offset "
                    f"{res['next_offset']} for more" if res["truncated"] else "")
            out.table(f"impact of {res['symbol']['qname']} ({n} commit"
                      f"{'' if n == 1 else 's'} "
                      f"{'of its file' if res['history_level'] == 'file' else 'in history'}"
                      f"{more})",
                      ["", "target", "why"],
                      [[i.kind, i.target, "; ".join(i.reasons)] for i in res["items"]])
        if res.get("gone"):
            out.say(f"left out: {res['gone']} co-changed symbol(s) or file(s) that no longer "
                    "exist at HEAD")
        for note in res.get("notes", []):
            out.say(note)


@click.command()
@repo_root_opt
@click.option("--days", type=click.IntRange(1, 1_000_000), default=90, show_default=True,
              help="Window before the newest ingested commit.")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=20, show_default=True)
@json_opt
def hotspots(repo_root: str | None, days: int, limit: int, json: bool) -> None:
    """Files and symbols that exist at HEAD, ranked by recent churn and fix commits (a fix:
    a subject starting with fix/fixes/fixed/bugfix/hotfix, also after `area:` or `fix(scope):`,
    a revert, the word bug, or "fixes #N" / a Fixes: trailer in the message)."""
    with _errors(), _reader(repo_root) as bank:
        res = bank.history.hotspots(days, limit)
        if json:
            out.emit_json(res)
            return
        out.table(f"files since {time_shown(res['since'])}",
                  ["score", "commits", "fixes", "lines", "file"],
                  [[f["score"], f["commits"], f["fixes"], f["lines"], f["path"]]
                   for f in res["files"]])
        out.table("symbols", ["score", "commits", "fixes", "kind", "symbol"],
                  [[s["score"], s["commits"], s["fixes"], s["kind"], s["qname"]]
                   for s in res["symbols"]])
        gone = res["left_out"]
        if gone["files"] or gone["symbols"]:
            out.say(f"left out: {gone['files']} file(s) and {gone['symbols']} symbol(s) "
                    "that changed in the window but no longer exist at HEAD")
        for note in res["notes"]:
            out.say(note)


@click.command("trace-log")
@repo_root_opt
@file_opt
@click.option("--symbol", default=None, help="Only events that touched this symbol "
              "(local qualified name or its last part).")
@click.option("--since", default=None, metavar="WHEN",
              help="ISO date/time, 3d, 12h, yesterday, last week… (README: Time options).")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=1000, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "jsonl"]),
              default="table", show_default=True)
@json_opt
def trace_log(repo_root: str | None, file: str | None, symbol: str | None,
              since: str | None, limit: int, fmt: str, json: bool) -> None:
    """Live edit events, newest first (jsonl: one object per line)."""
    from hindsight.app import time_bound

    with _errors(), _reader(repo_root) as bank:
        when = time_bound(since) if since is not None else None
        rows = bank.history.trace_log_json(file, symbol, when, limit)
        if json or fmt == "json":
            out.emit_json({"events": rows, "count": len(rows)})
        elif fmt == "jsonl":
            for r in rows:
                sys.stdout.write(_json.dumps(r, ensure_ascii=False) + "\n")
        else:
            out.table("edit trace", ["time", "file", "action", "actor", "symbols"],
                      [[time_shown(r["ts"]), r["file"], r["action"],
                        r["actor"] + (f" ({r['session']})" if r["session"] else ""),
                        ", ".join(f"{s['change']} {s['qname'].partition('::')[2]}"
                                  for s in r["symbols"])[:80]] for r in rows])


@click.command()
@repo_root_opt
@click.option("--debounce-ms", type=click.IntRange(10, 10_000), default=200,
              show_default=True, help="Quiet time before a batch of changes is handled.")
@click.option("--actor", default="human", show_default=True,
              help="Who makes the edits: human, or an agent name.")
@click.option("--session", default="", help="The agent's session id, if any.")
def watch(repo_root: str | None, debounce_ms: int, actor: str, session: str) -> None:
    """Watch the work tree: refresh the index on every save and record trace events
    (Ctrl-C to stop)."""
    import signal

    def on_term(_sig: int, _frm: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    with _errors(), _bank(repo_root) as bank:
        if not bank.code.include_untracked():
            out.err("watch indexes untracked (not ignored) files too, so that new files are "
                    "seen; the bank remembers this (hindsight index --tracked-only undoes it)")

        def show(ev: dict[str, Any]) -> None:
            syms = ", ".join(f"{s['change']} {s['local']}" for s in ev["symbols"])
            sys.stdout.write(f"{ev['ts']} {ev['action']} {ev['path']}"
                             + (f" ({syms})" if syms else "") + "\n")
            sys.stdout.flush()

        w = bank.history.watcher(actor=actor, session=session, debounce_s=debounce_ms / 1000,
                         on_event=show, on_error=out.err)
        with contextlib.suppress(KeyboardInterrupt):
            w.run(ready=lambda: out.err(f"watching {bank.root} (Ctrl-C to stop)"))
        out.err(f"stopped; {w.events} event{'' if w.events == 1 else 's'} recorded")


@click.group("git-hooks")
def git_hooks() -> None:
    """Git hooks that keep the bank current."""


@git_hooks.command("install-git")
@repo_root_opt
def install_git(repo_root: str | None) -> None:
    """Install post-commit/checkout/merge/rewrite hooks (keeps any hook you had)."""
    with _errors(), _bank(repo_root) as bank:
        for line in bank.history.install_git_hooks():
            out.say(line)


@git_hooks.command("uninstall-git")
@repo_root_opt
def uninstall_git(repo_root: str | None) -> None:
    """Remove our git hooks and restore the originals."""
    with _errors(), _bank(repo_root) as bank:
        for line in bank.history.uninstall_git_hooks():
            out.say(line)


@git_hooks.command("run-git", hidden=True)
@click.argument("event")
@repo_root_opt
def run_git(event: str, repo_root: str | None) -> None:
    """What an installed git hook runs in the background: incremental index and ingest
    under a per-bank lock. Never fails: errors go to HINDSIGHT_HOME/logs/git-hooks.log."""
    from hindsight.app import git_refresh

    git_refresh(repo_root or ".", event)
