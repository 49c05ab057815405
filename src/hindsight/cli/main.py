"""Code-index commands (init, index, symbols, callers, callees, trace, debug, status) and
the options every command shares. The tree is built by :func:`hindsight.cli.app.build_cli`;
errors are mapped once, by :mod:`hindsight.cli.errors`."""

from __future__ import annotations

import contextlib
import os
import sys
import types
from collections.abc import Callable
from typing import Any

import click

from hindsight.cli import output as out
from hindsight.cli.errors import handled

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


repo_root_opt = click.option("--repo-root", "repo_root", default=None, metavar="PATH",
                             help="Repository root (default: the git work tree containing "
                             "the current directory).")
json_opt = click.option("--json", "json", is_flag=True, help="Machine-readable JSON output.")
depth_opt = click.option("--depth", type=click.IntRange(1, 20), default=1, show_default=True,
                         help="Levels to follow.")
file_opt = click.option("--file", "file", default=None, metavar="PATH",
                        help="Restrict to (or disambiguate by) this file or directory.")
offset_opt = click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
                          help="Skip this many rows (the JSON's next_offset gives the next "
                          "page).")


def limit_opt(what: str) -> Any:
    """``--limit N`` of a list command that is complete unless it is given."""
    return click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
                        help=f"At most N {what} (default: all; the JSON says total and "
                        "truncated).")


def _page(rows: list[Any], offset: int, limit: int | None, total: int | None = None
          ) -> tuple[list[Any], dict[str, Any]]:
    """:func:`hindsight.app.page`: the rows shown and the paging fields of the JSON."""
    from hindsight.app import page

    return page(rows, offset, limit, total)


def _shown(qname: str) -> str:
    """A qualified name as a table shows it: a module's top level (``path::``, the caller
    of calls made outside any function) as ``path::<module>``; ``--json`` keeps ``path::``."""
    return qname + "<module>" if qname.endswith("::") else qname


def _more(fields: dict[str, Any]) -> str:
    """The title's note on a cut list: which rows are shown and how to get the next."""
    if not fields["truncated"]:
        return ""
    first = fields["offset"] + 1
    return (f" (rows {first}-{first + fields['count'] - 1} of {fields['total']}; "
            f"--offset {fields['next_offset']} for more)")


def _bank(repo_root: str | None) -> Any:
    """The repository's bank, created when it does not exist (commands that write)."""
    from hindsight.app import open_bank

    return open_bank(".", repo_root_path=repo_root)


def _reader(repo_root: str | None) -> Any:
    """The repository's bank for a query: never created by asking (a repository without
    a bank has no code index yet, and the error says to run ``hindsight index``)."""
    from hindsight.app import open_bank
    from hindsight.errors import BankNotFound, NotIndexed

    try:
        return open_bank(".", repo_root_path=repo_root, create=False)
    except BankNotFound as e:
        raise NotIndexed(f"{e.root} has no code index yet", action="index",
                         root=e.root) from None


@contextlib.contextmanager
def _debug_bank(repo_root: str | None) -> Any:
    """The repository's bank, or, when it has none, a stand-in whose ``code`` parses
    files of the root all the same: ``debug`` stores nothing, a bank included (a
    fresh-user trial found one made by asking)."""
    from hindsight.app.parsing import parse_without_bank
    from hindsight.errors import NotIndexed

    try:
        bank = _reader(repo_root)
    except NotIndexed as e:
        root = str(e.root or os.path.abspath(repo_root or "."))
        code = types.SimpleNamespace(debug_file=lambda path: parse_without_bank(root, path))
        yield types.SimpleNamespace(code=code)
        return
    with bank:
        yield bank


def _errors() -> Any:
    """The CLI's one error mapping (:func:`hindsight.cli.errors.handled`)."""
    return handled()


@click.command()
@repo_root_opt
@json_opt
def init(repo_root: str | None, json: bool) -> None:
    """Create or open the bank for a repository."""
    with _errors(), _bank(repo_root) as bank:
        info = {"bank": bank.bank_id, "root": bank.root, "database": bank.path}
        if json:
            out.emit_json(info)
        else:
            out.say(f"bank {bank.bank_id} for {bank.root}\n"
                                f"database {bank.path}")


def _progress_factory() -> tuple[Callable[[str, int, int], None] | None, Any]:
    if not sys.stdout.isatty():
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    transient=True)
    tasks: dict[str, Any] = {}

    def cb(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = prog.add_task(stage, total=total)
        prog.update(tasks[stage], completed=done, total=total)

    return cb, prog


@click.command()
@repo_root_opt
@click.option("--full", is_flag=True, help="Rebuild from scratch.")
@click.option("--include-untracked/--tracked-only", "include_untracked", default=None,
              help="Also index untracked files that are not ignored (remembered for later "
              "runs; default: tracked only).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Parser processes (default: CPU count).")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Gitignore-style pattern to leave out (repeatable; remembered for later "
              "runs; --exclude '' clears).")
@json_opt
def index(repo_root: str | None, full: bool, include_untracked: bool | None,
          workers: int | None,
          exclude: tuple[str, ...], json: bool) -> None:
    """Index the repository's code: symbols (L1) and call graph (L2). Incremental after the
    first run."""
    with _errors(), _bank(repo_root) as bank:
        cb, prog = _progress_factory()
        if prog is not None:
            with prog:
                st = bank.code.index(full=full, include_untracked=include_untracked,
                                workers=workers, exclude=list(exclude) or None, progress=cb)
        else:
            st = bank.code.index(full=full, include_untracked=include_untracked, workers=workers,
                            exclude=list(exclude) or None)
        for w in st.warnings:
            out.err(w)
        data = {k: getattr(st, k) for k in st.__slots__}
        data["bank"] = bank.bank_id
        if json:
            out.emit_json(data)
            return
        mode = "full" if st.full else "incremental"
        rate = f", {st.lines / st.seconds:,.0f} lines/s" if st.full and st.seconds else ""
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(st.skipped.items())) or "none"
        out.say(
            f"{mode} index of {bank.root}: {st.files_parsed} files parsed, "
            f"{st.files_unchanged} unchanged, {st.files_removed} removed "
            f"({st.files_renamed} renamed), "
            f"{st.files_reresolved} re-resolved; {st.symbols:,} symbols, {st.edges:,} edges, "
            f"{st.parse_errors} files with parse errors; {st.seconds:.2f}s{rate}\n"
            f"skipped: {skipped}")


def _sym_row(s: Any) -> list[Any]:
    return [s.kind, f"{s.path}::{s.local}", f"{s.start_line}-{s.end_line}", s.signature[:80]]


@click.command()
@click.argument("name")
@repo_root_opt
@click.option("--kind", default=None, help="function, method, class, interface, struct, "
              "enum, trait, constant, type, …")
@file_opt
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@offset_opt
@json_opt
def symbols(name: str, repo_root: str | None, kind: str | None, file: str | None, limit: int,
            offset: int, json: bool) -> None:
    """Find symbols by name: exact, then prefix, then substring (case-insensitive; matches
    are counted up to 10,000)."""
    from hindsight.app import SYMBOLS_COUNTED

    with _errors(), _reader(repo_root) as bank:
        how, hits = bank.code.symbols(name, kind, file, SYMBOLS_COUNTED)
        shown, fields = _page(hits, offset, limit)
        if json:
            out.emit_json({"query": name, "match": how, **fields,
                           "symbols": [s.as_dict() for s in shown]})
        elif shown:
            from hindsight.models import simple_name

            last = simple_name(name) if how != "exact" else name
            said = repr(name) if last == name else (  # a dotted name: matched on its end
                f"{last!r} (no exact match for {name!r}; matched on its last part)")
            out.table(f"{fields['total']} {how} match(es) for {said}{_more(fields)}",
                      ["kind", "symbol", "lines", "signature"], [_sym_row(s) for s in shown])
        if not hits:
            if not json:
                rel = bank.code.rel(file) if file else None
                nothing = rel is not None and not bank.code.require().find_substring(
                    "", None, rel, 1)  # is anything indexed there at all?
                out.err(f"no symbol matches {name!r}" + (
                    f": no symbol is indexed under --file {rel} (a typo, or a file that "
                    "is untracked, excluded or not indexed yet: `hindsight status`)"
                    if nothing else ""))
            sys.exit(6)


def _graph(direction: str, symbol: str, repo_root: str | None, depth: int, file: str | None,
           json: bool, unresolved: bool = False, *, limit: int | None = None,
           offset: int = 0) -> None:
    with _errors(), _reader(repo_root) as bank:
        extra: dict[str, int] = {}
        if direction == "callers":
            target, hits = bank.code.callers(symbol, depth, file, unresolved)
            extra["unresolved_same_name"] = bank.code.unresolved_same_name(target)
        else:
            target, hits = bank.code.callees(symbol, depth, file)
        hits, fields = _page(hits, offset, limit)
        if json:
            out.emit_json({"symbol": target.as_dict(), "depth": depth, **fields, **extra,
                           direction: [h.as_dict() for h in hits]})
            return
        more = _unresolved_line(target, extra.get("unresolved_same_name", 0), unresolved)
        if not hits:
            out.say(f"no {direction} of {target.qname} found in the index" if not offset
                    else f"{fields['total']} {direction} of {target.qname}; none from row "
                    f"{offset + 1}")
            if more:
                out.say(more)
            return
        if direction == "callers":
            rows = [[h.depth, h.via, _shown(h.qname) + (
                         "" if h.resolved else f" (calls `{h.edge_dst[1:]}` by name only)"),
                     _shown(h.edge_dst) if h.depth > 1 else "", f"{h.path}:{h.line}"] for h in hits]
            cols = ["depth", "edge", "caller", "calls", "call site"]
        else:
            rows = [[h.depth, h.via, h.qname if h.resolved else f"{h.name} (unresolved)",
                     _shown(h.edge_src) if h.depth > 1 else "",
                     f"{h.path}:{h.line}" + ("" if h.resolved else " (call)")] for h in hits]
            cols = ["depth", "edge", "callee", "from", "definition (or call site)"]
        out.table(f"{direction} of {target.qname}{_more(fields)}", cols, rows)
        if more:
            out.say(more)


def _unresolved_line(target: Any, n: int, listed: bool) -> str:
    """The line under a callers table about unresolved calls of the same name."""
    if not n:
        return ""
    what = f"{n} unresolved call site(s) call `{target.name}` by name"
    if listed:
        return (f"{what}; their callers are listed above, one row per call site (per "
                "calling function for a property) (they may mean another symbol)")
    return (f"{what} (they may mean this symbol); --include-unresolved lists their callers "
            "(one row per call site; per calling function for a property)")


@click.command()
@click.argument("symbol")
@repo_root_opt
@depth_opt
@file_opt
@click.option("--include-unresolved", "unresolved", is_flag=True,
              help="Also list calls by bare name that did not resolve to any symbol.")
@limit_opt("callers")
@offset_opt
@json_opt
def callers(symbol: str, repo_root: str | None, depth: int, file: str | None, unresolved: bool,
            limit: int | None, offset: int, json: bool) -> None:
    """Who calls SYMBOL (name, Class.method or path::Class.method)."""
    _graph("callers", symbol, repo_root, depth, file, json, unresolved, limit=limit,
           offset=offset)


@click.command()
@click.argument("symbol")
@repo_root_opt
@depth_opt
@file_opt
@limit_opt("callees")
@offset_opt
@json_opt
def callees(symbol: str, repo_root: str | None, depth: int, file: str | None,
            limit: int | None, offset: int, json: bool) -> None:
    """What SYMBOL calls."""
    _graph("callees", symbol, repo_root, depth, file, json, limit=limit, offset=offset)


@click.command()
@click.option("--start", required=True, help="Start symbol.")
@repo_root_opt
@click.option("--depth", type=click.IntRange(1, 20), default=3, show_default=True)
@file_opt
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True)
@json_opt
def trace(start: str, repo_root: str | None, depth: int, file: str | None, fmt: str,
          json: bool) -> None:
    """The call chain from a start symbol, each step with location, code snippet and its
    last recorded run (outcome, when, when last verified by a passing test run)."""
    with _errors(), _reader(repo_root) as bank:
        step = bank.records.mark_steps(bank.code.trace(start, depth, file))
        if fmt == "json" or json:  # the shape of the MCP tool trace_flow
            out.emit_json({"start": step.name, "depth": depth, "tree": step})
        else:
            sys.stdout.write(out.trace_markdown(step))


@click.command()
@click.option("--file", "file", required=True, help="File to parse.")
@repo_root_opt
@json_opt
def debug(file: str, repo_root: str | None, json: bool) -> None:
    """What the parser sees in one file: symbols, calls, imports, receiver facts, errors
    (nothing stored)."""
    with _errors(), _debug_bank(repo_root) as bank:
        res = bank.code.debug_file(file)
        if res is None:
            out.err(f"{file}: no supported language for this file")
            sys.exit(6)
        data = {"path": res.path, "language": res.language, "lines": res.lines,
                "error": res.error, "skip": res.skip, "package": res.package,
                "symbols": [s.as_dict() for s in res.symbols],
                "refs": [r._asdict() for r in res.refs],
                "imports": [i._asdict() for i in res.imports],
                "facts": [dict(zip(("scope", "target", "value", "line"), f, strict=True))
                          for f in res.facts]}
        if json:
            out.emit_json(data)
            return
        c = out.console()
        c.print(f"{res.path} ({res.language}, {res.lines} lines)"
                + (f" {res.error}" if res.error else "")
                + (f" skipped: {res.skip}" if res.skip else ""))
        out.table("symbols", ["kind", "local name", "lines", "signature"],
                  [[s.kind, s.local, f"{s.start_line}-{s.end_line}", s.signature[:70]]
                   for s in res.symbols])
        out.table("references", ["caller", "kind", "name", "receiver", "line"],
                  [[r.caller or "<module>", r.kind, r.name, r.receiver, r.line]
                   for r in res.refs])
        out.table("imports", ["module", "name", "alias", "line"],
                  [[i.module, i.name, i.alias, i.line] for i in res.imports])
        out.table("receiver facts", ["scope", "target", "value", "line"],
                  [[f[0] or "<module>", f[1], f[2], f[3]] for f in res.facts])


@click.command()
@repo_root_opt
@click.option("--files", "files", is_flag=True,
              help="Also list each skipped file and each file with a parse error.")
@json_opt
def status(repo_root: str | None, files: bool, json: bool) -> None:
    """Bank id and how it was resolved, seeding state, index freshness, counts (files,
    symbols, edges, unresolved share, skipped files, history, memories), and the coding
    agents hindsight is installed for with the surfaces live for each (brief, recall,
    edits, write-back, MCP)."""
    from hindsight.app import open_bank

    with _errors(), open_bank(".", repo_root_path=repo_root, create=False) as bank:
        st = bank.status()
        problems = bank.code.problem_files() if files else []
        sections = (click.get_current_context().find_root().obj or {}).get(
            "status_sections", {})
        extra = {name: fn(st["root"]) for name, fn in sections.items()}
        if json:
            out.emit_json(st | extra | ({"problem_files": [{"path": p, "reason": r}
                                                           for p, r in problems]}
                                        if files else {}))
            return
        seed = st["seed"]
        seed_line = (f"{seed.get('state', '?')} (started {seed.get('started', '')}, finished "
                     f"{seed.get('finished') or '-'})" + (f"; errors: {'; '.join(seed['errors'])}"
                                                          if seed.get("errors") else "")
                     if seed else "never seeded (starts with the first agent session)")
        if not st["indexed"]:
            out.say(f"bank {st['bank']} for {st['root']} ({st['resolved_by']}): not indexed "
                    f"yet; run `hindsight index --repo-root {st['root']}`\nseeding: {seed_line}"
                    f"\nmode: {_mode_line(st)}")
            _agents_table(extra.get("agents"))
            return
        skipped = ", ".join(f"{k} {v}" for k, v in st["skipped"].items()) or "none"
        out.table(f"bank {st['bank']}", ["", ""], [
            ["resolved by", st["resolved_by"]], ["mode", _mode_line(st)],
            ["seeding", seed_line],
            ["index fresh", "yes" if st["fresh"] else f"no ({st['changed_since']} files "
                                                        "changed)"],
            ["root", st["root"]], ["database", f"{st['database']} "
                                   f"({st['database_bytes'] / 1e6:.1f} MB)"],
            ["files", st["files"]], ["lines", st["lines"]], ["symbols", st["symbols"]],
            ["edges", st["edges"]], ["calls unresolved",
                                     f"{st['unresolved_calls']} ({st['unresolved_share']:.1%})"],
            ["files with parse errors", st["parse_errors"]], ["skipped", skipped],
            ["indexed commit", st["indexed_commit"] or "(none)"],
            ["files changed since", st["changed_since"]],
            *([["sparse checkout", _sparse_line(st["sparse_checkout"])]]
              if st.get("sparse_checkout") else []),
            ["history", _history_line(st["history"])],
            ["trace events", st["history"]["trace_events"]],
            ["memories", ", ".join(f"{k} {v}" for k, v in sorted(st["memories"].items()))
             or "none"]])
        if files:
            out.table("skipped files and parse errors", ["file", "reason"],
                      [[p, r] for p, r in problems])
        _agents_table(extra.get("agents"))


def _mode_line(st: dict[str, Any]) -> str:
    """``local``, or ``client of URL: answers (release X)`` / ``: does not answer (why)``
    with the write-back batches spooled."""
    sv = st.get("server")
    if st.get("mode") != "client" or not sv:
        return "local"
    said = (f"answers (release {sv.get('version')})" if sv["answers"]
            else f"does not answer ({sv.get('error', '')})")
    return f"client of {sv['url']}: {said}; {st.get('spooled', 0)} batches spooled"


def _agents_table(agents: list[dict[str, Any]] | None) -> None:
    """The agents hindsight is installed for and their surfaces (yes / no / – for a surface
    the agent does not have), then the ones it is not installed for."""
    if agents is None:
        return
    names = ["brief", "recall", "edits", "write-back", "mcp"]
    cell = {True: "yes", False: "no", None: "–"}
    rows = [[a["agent"], "+".join(a["installed"]),
             *[cell[a["surfaces"][n]["live"]] for n in names]]
            for a in agents if a["installed"]]
    if rows:
        out.table("agents", ["agent", "scope", *names], rows)
    rest = [a["agent"] for a in agents if not a["installed"]]
    if rest:
        out.say(f"hindsight is not installed for: {', '.join(rest)} (hindsight install "
                "<agent>; hindsight status --json says how each surface works)")
    for a in agents:
        for note in a["notes"]:
            out.say(f"note: {a['agent']}: {note}")


def _sparse_line(sp: dict[str, Any]) -> str:
    n = sp["outside_files"]
    cone = ", ".join(sp["patterns"]) or "(no patterns: skip-worktree bits)"
    return (f"cone {cone} (at the last index); {n} tracked file{'' if n == 1 else 's'} outside it "
            "not indexed, and memories anchored there are not checked for staleness")


def _history_line(h: dict[str, Any]) -> str:
    if not h["commits"]:
        return "not ingested (hindsight ingest)"
    parts = [f"{h['commits']} commits ({h['mode']} mode)",
             f"{h['expanded_commits']} expanded per symbol"]
    if h["unreachable_commits"]:
        parts.append(f"{h['unreachable_commits']} unreachable")
    if h["partial"]:
        parts.append(f"partial: {h['partial']}")
    return ", ".join(parts)



