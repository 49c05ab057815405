"""Memory commands: retain, recall, forget, memories, show, gc, reembed, reflect.
Registered on the group of :mod:`.main`."""

from __future__ import annotations

import json as _json
import sys
from typing import Any

import click

from hindsight.cli import output as out
from hindsight.cli.main import _bank, _errors, json_opt, repo_root_opt
from hindsight.config.jsontext import json_text
from hindsight.errors import ConfigError
from hindsight.models import MemoryItem


def _existing(repo_root: str | None) -> Any:
    """The bank of the repository, which must exist (exit 3 otherwise)."""
    from hindsight.app import open_bank

    return open_bank(".", repo_root_path=repo_root, create=False)

KIND = click.Choice(["experience", "decision", "convention", "fact", "lesson", "conversation"])


def _item(d: dict[str, Any], n: int) -> MemoryItem:
    if not isinstance(d, dict) or not isinstance(d.get("text"), str):
        raise ConfigError(f"stdin line {n}: expected a JSON object with a \"text\" string")
    known = set(MemoryItem.__dataclass_fields__)
    bad = sorted(set(d) - known)
    if bad:
        raise ConfigError(f"stdin line {n}: unknown field(s) {', '.join(bad)}")
    d = dict(d)
    anchors = d.get("anchors") or []
    if not isinstance(anchors, list):
        raise ConfigError(f"stdin line {n}: anchors must be a list")
    d["anchors"] = [_anchor(a, n) for a in anchors]
    item = MemoryItem(**d)
    try:
        item.check()
    except ConfigError as e:
        raise ConfigError(f"stdin line {n}: {e}") from None
    return item


def _anchor(a: Any, n: int) -> tuple[str, str, str]:
    """An anchor given as "path", [path, symbol?, hash?] or {"path", "symbol", "ast_hash"}
    (the shape `show --json` and `export` print)."""
    if isinstance(a, str):
        a = [a]
    if isinstance(a, dict):
        a = [a.get("path"), a.get("symbol", ""), a.get("ast_hash", "")]
    if isinstance(a, list | tuple) and 1 <= len(a) <= 3 and all(
            isinstance(x, str) for x in a) and a[0]:
        parts = [*a, "", ""][:3]
        return parts[0], parts[1], parts[2]
    raise ConfigError(f"stdin line {n}: an anchor is \"path\", [path, symbol, ast_hash] or "
                      f"{{\"path\": …, \"symbol\": …}}, not {a!r}")


@click.command()
@click.argument("text")
@repo_root_opt
@click.option("--kind", type=KIND, default=None, help="Default: from the text.")
@click.option("--tag", "tags", multiple=True, help="Repeatable.")
@click.option("--file", "files", multiple=True, metavar="F", help="Anchor to a file.")
@click.option("--symbol", "symbols", multiple=True, metavar="S", help="Anchor to a symbol.")
@click.option("--outcome", type=click.Choice(["success", "failure", "partial"]), default=None)
@click.option("--supersedes", type=click.IntRange(min=1), default=None, metavar="ID")
@click.option("--source", type=click.Choice(["human", "api", "conversation", "commit", "tool"]),
              default="human", show_default=True)
@click.option("--session", default="", help="Session id (provenance).")
@click.option("--agent", default="", help="Agent name (provenance).")
@click.option("--visibility", type=click.Choice(["team", "public", "private"]), default="team",
              show_default=True, help="private: seen only by --agent (the owner).")
@json_opt
def retain(text: str, repo_root: str | None, kind: str | None, tags: tuple[str, ...],
           files: tuple[str, ...], symbols: tuple[str, ...], outcome: str | None,
           supersedes: int | None, source: str, session: str, agent: str, visibility: str,
           json: bool) -> None:
    """Remember TEXT (secrets are redacted first). TEXT '-' reads JSONL items from stdin
    (fields as in the Python Item: text, kind, tags, outcome, source, session, agent,
    occurred, context, anchors…) and retains them as one batch."""
    with _errors(), _bank(repo_root) as bank:
        if text == "-":
            items = []
            for n, raw in enumerate(sys.stdin.buffer, 1):
                try:
                    line = json_text(raw, first=n == 1)  # a BOM, CRLF endings
                except UnicodeDecodeError as e:
                    raise ConfigError(f"stdin line {n}: not UTF-8 (byte {e.start + 1})"
                                      ) from None
                if not line.strip():
                    continue
                try:
                    items.append(_item(_json.loads(line), n))
                except (ValueError, RecursionError) as e:
                    if isinstance(e, ConfigError):
                        raise
                    raise ConfigError(f"stdin line {n}: not JSON ({e})") from None
            res = bank.memory.retain_batch(items)
            for w in sorted({r.warning for r in res if r.warning}):
                out.err(w)
            if json:
                out.emit_json({"items": res, "count": len(res)})
            else:
                created = sum(r.action == "created" for r in res)
                spooled = sum(r.action == "spooled" for r in res)
                out.say(f"{len(res)} items: {created} created, "
                        f"{len(res) - created - spooled} duplicates"
                        + (f", {spooled} spooled" if spooled else ""))
            return
        r = bank.memory.retain(text, kind=kind or "", tags=list(tags), files=list(files),
                        symbols=list(symbols), outcome=outcome or "", supersedes=supersedes,
                        source=source, session=session, agent=agent,
                        visibility=visibility, owner=agent if visibility == "private" else "")
        if r.warning:
            out.err(r.warning)
        if json:
            out.emit_json(r)
        else:
            red = f" (redacted: {', '.join(sorted(set(r.redacted)))})" if r.redacted else ""
            out.say(f"memory {r.id}: {r.action}{red}" if r.action != "spooled" else
                    f"memory spooled: sent when the server answers{red}")


def _short(text: str, n: int = 90) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[:n - 1] + "…"


@click.command()
@click.argument("query")
@repo_root_opt
@click.option("--scene", default="", help="What you are doing (added to the query).")
@click.option("--file", "files", multiple=True, metavar="F")
@click.option("--symbol", "symbols", multiple=True, metavar="S")
@click.option("--kind", "kinds", multiple=True, type=KIND)
@click.option("--tag", "tags", multiple=True)
@click.option("--since", default=None, help="From: ISO date/time, yesterday, last week, 3d… "
              "(README: Time options).")
@click.option("--until", default=None, help="Up to: the same forms; a date or period "
              "(yesterday, last week) is included whole.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--budget", type=click.IntRange(1, 10_000_000), default=None,
              help="Token budget for the returned texts (≈ 4 characters per token).")
@click.option("--rerank", is_flag=True, help="Re-score the top hits with the embedding model.")
@click.option("--explain", is_flag=True, help="Each channel's rank and score per hit.")
@click.option("--agent", default="", help="Also see this agent's private memories.")
@click.option("--federated", is_flag=True, help="Also the banks and peers of the "
              "federation settings, merged (README: Federation).")
@json_opt
def recall(query: str, repo_root: str | None, scene: str, files: tuple[str, ...],
           symbols: tuple[str, ...], kinds: tuple[str, ...], tags: tuple[str, ...],
           since: str | None, until: str | None, k: int, budget: int | None, rerank: bool,
           explain: bool, agent: str, federated: bool, json: bool) -> None:
    """Memories relevant to QUERY (hybrid: BM25, vectors, anchors, recency, lessons)."""
    from hindsight.app import open_bank, time_bound, time_shown

    if federated:
        _federated(query, repo_root, k, json)
        return
    with _errors():
        s = time_bound(since) if since is not None else None
        u = time_bound(until, end=True) if until is not None else None
        with open_bank(".", repo_root_path=repo_root, create=False) as bank:
            res = bank.memory.recall(query, scene=scene, files=list(files), symbols=list(symbols),
                              kinds=list(kinds), tags=list(tags), since=s, until=u, k=k,
                              budget=budget, rerank=rerank, agent=agent)
        if json:
            data = res.as_dict()
            if not explain:
                for h in data["hits"]:
                    h.pop("explain", None)
            out.emit_json(data)
            return
        cols = ["id", "kind", "when", "memory"] + (["channels"] if explain else [])
        rows = []
        for hit in res.hits:
            m = hit.memory
            flag = " [stale]" if m.stale else ""
            row: list[Any] = [m.id, m.kind, time_shown(m.occurred_ts), _short(m.text) + flag]
            if explain:
                row.append(" ".join(f"{n}#{v.rank}" if v.rank else f"{n}{v.score:+g}"
                                    for n, v in hit.explain.items()))  # rank 0: a boost
            rows.append(row)
        noun = "memory" if len(rows) == 1 else "memories"
        out.table(f"{len(rows)} {noun} ({res.ms:.0f} ms)", cols, rows)


def _federated(query: str, repo_root: str | None, k: int, json: bool) -> None:
    from hindsight.app import federated_recall, open_bank

    with _errors(), open_bank(".", repo_root_path=repo_root, create=False) as bank:
        res = federated_recall(bank, query, k)
    if json:
        out.emit_json(res)
        return
    late = f"; partial, no answer from {', '.join(res['timed_out'])}" if res["partial"] else ""
    noun = "memory" if res["count"] == 1 else "memories"
    out.table(f"{res['count']} {noun} (federated{late})", ["bank", "server", "id", "memory"],
              [[h["bank"], h["server"], h["id"], _short(h["text"], 70)] for h in res["hits"]])


@click.command()
@click.argument("mid", metavar="ID", type=click.IntRange(1, 2**62))
@repo_root_opt
@click.option("--reason", default="", help="Why (kept in the audit log).")
@click.option("--restore", is_flag=True, help="Make it active again.")
@click.option("--purge", is_flag=True, help="Delete it for real (text, vector, anchors, "
              "history, index entries; a leaked secret); one audit row keeps who and why.")
@json_opt
def forget(mid: int, repo_root: str | None, reason: str, restore: bool, purge: bool,
           json: bool) -> None:
    """Forget memory ID (soft delete with an audit row), --restore it, or --purge it."""
    if not restore and not reason.strip():
        raise click.UsageError("forget needs a reason: --reason TEXT (kept in the audit log)")
    with _errors(), _existing(repo_root) as bank:
        if purge:
            res = bank.memory.purge(mid, reason)
            out.emit_json(res) if json else out.say(f"memory {mid}: purged")
            return
        res = bank.memory.restore(mid) if restore else bank.memory.forget(mid, reason)
        out.emit_json(res) if json else out.say(f"memory {mid}: {res['was']} → {res['status']}")


@click.command()
@repo_root_opt
@click.option("--status", type=click.Choice(["active", "archived", "forgotten", "superseded",
                                             "all"]), default="active", show_default=True)
@click.option("--kind", type=KIND, default=None)
@click.option("--stale", is_flag=True, help="Only memories whose anchors changed.")
@click.option("--limit", type=click.IntRange(1, 1_000_000), default=100, show_default=True)
@json_opt
def memories(repo_root: str | None, status: str, kind: str | None, stale: bool, limit: int,
             json: bool) -> None:
    """List memories, newest first."""
    from hindsight.app import time_shown

    with _errors(), _existing(repo_root) as bank:
        rows = bank.memory.memories(status=status, kind=kind, stale=stale, limit=limit)
        if json:
            out.emit_json({"memories": rows, "count": len(rows)})
            return
        out.table(f"{len(rows)} memor{'y' if len(rows) == 1 else 'ies'}", ["id", "kind", "status", "when", "memory"],
                  [[r.id, r.kind, r.status + (" stale" if r.stale else ""),
                    time_shown(r.occurred_ts), _short(r.text)] for r in rows])


@click.command()
@click.argument("mid", metavar="ID", type=click.IntRange(1, 2**62))
@repo_root_opt
@json_opt
def show(mid: int, repo_root: str | None, json: bool) -> None:
    """One memory with its anchors and history."""
    with _errors(), _existing(repo_root) as bank:
        m = bank.memory.get(mid)
        audit = bank.memory.audit(mid)
        if json:
            out.emit_json({**m.as_dict(), "history": audit})
            return
        out.say(f"memory {m.id} ({m.kind}, {m.status}"
                + (", stale: " + m.stale_reason if m.stale else "") + ")\n" + m.text)
        out.table("anchors", ["file", "symbol", "stale", "implicit"],
                  [[a.path, a.symbol, a.reason if a.stale else "",
                    "yes" if a.implicit else ""] for a in m.anchors])
        from hindsight.app import time_shown

        out.table("history", ["at", "action", "detail"],
                  [[time_shown(h["at"]), h["action"], h["detail"]] for h in audit])


@click.command()
@repo_root_opt
@click.option("--archive-days", type=click.IntRange(1, 100_000), default=90, show_default=True)
@click.option("--capacity", type=click.IntRange(1, 100_000_000), default=10_000,
              show_default=True)
@click.option("--dry-run", is_flag=True)
@json_opt
def gc(repo_root: str | None, archive_days: int, capacity: int, dry_run: bool,
       json: bool) -> None:
    """Archive memories not recalled for --archive-days, then the least active beyond
    --capacity."""
    with _errors(), _existing(repo_root) as bank:
        res = bank.memory.gc(archive_days=archive_days, capacity=capacity, dry_run=dry_run)
        if json:
            out.emit_json(res)
            return
        verb = "would archive" if dry_run else "archived"
        out.say(f"{verb} {len(res['archived_idle'])} idle and "
                f"{len(res['archived_over_capacity'])} over capacity; "
                f"{res['active_after']} active")


@click.command("export")
@repo_root_opt
@click.option("--out", "out_path", default="-", metavar="FILE", help="Default: stdout.")
def export_cmd(repo_root: str | None, out_path: str) -> None:
    """Write every memory (vectors, anchors, history included) as JSONL. A file is written
    whole or not at all (a temporary file beside it, then renamed)."""
    import os

    with _errors(), _existing(repo_root) as bank:
        if out_path == "-":
            for line in bank.memory.export_lines():
                sys.stdout.write(line + "\n")
            return
        target = os.path.abspath(out_path)
        if os.path.exists(target) and not os.path.isfile(target):
            n = _export_to(bank, target, out_path)  # a device or pipe: written in place
        else:
            n = _export_file(bank, target, out_path)
        out.err(f"{n} memor{'y' if n == 1 else 'ies'} written to {out_path}")


def _export_to(bank: Any, target: str, shown: str) -> int:
    n = 0
    try:
        with open(target, "w", encoding="utf-8") as fh:
            for line in bank.memory.export_lines():
                fh.write(line + "\n")
                n += 1
    except OSError as e:
        raise ConfigError(f"{shown}: cannot write: {e.strerror}", path=shown) from None
    return n


def _export_file(bank: Any, target: str, shown: str) -> int:
    """Write the export to a temporary file beside ``target``, then rename it over."""
    import os
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".export-")
    except OSError as e:
        raise ConfigError(f"{shown}: cannot write there: {e.strerror}", path=shown) from None
    n = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in bank.memory.export_lines():
                fh.write(line + "\n")
                n += 1
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise ConfigError(f"{shown}: cannot write: {e.strerror}; nothing written",
                          path=shown) from None
    except BaseException:
        os.unlink(tmp)
        raise
    return n


@click.command("import")
@click.argument("path", metavar="FILE")
@repo_root_opt
@json_opt
def import_cmd(path: str, repo_root: str | None, json: bool) -> None:
    """Read memories exported by `hindsight export` (FILE, or - for stdin)."""
    with _errors(), _bank(repo_root) as bank:
        try:
            fh = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
        except OSError as e:
            raise ConfigError(f"{path}: {e.strerror}", path=path) from None
        with fh:
            try:
                res = bank.memory.import_lines(_utf8_lines(fh, path))
            except OSError as e:
                raise ConfigError(f"{path}: cannot read: {e.strerror}", path=path) from None
        out.emit_json(res) if json else out.say(
            f"{res['imported']} imported, {res['skipped']} already present")


def _utf8_lines(fh: Any, where: str) -> Any:
    """The lines of a binary file, decoded as UTF-8 without a leading BOM or line endings
    (:func:`hindsight.config.jsontext.json_text`); ConfigError naming the line that is not
    UTF-8 (the import then writes nothing)."""
    for n, raw in enumerate(fh, 1):
        try:
            yield json_text(raw, first=n == 1)  # a BOM, CRLF endings
        except UnicodeDecodeError as e:
            raise ConfigError(f"{where} line {n}: not UTF-8 (byte {e.start + 1})",
                              path=where) from None


@click.command()
@repo_root_opt
@json_opt
def push(repo_root: str | None, json: bool) -> None:
    """Client mode: copy this machine's bank to the server (apiUrl) as the token's agent;
    pushing again adds nothing."""
    from hindsight.app import push_local

    with _errors(), _existing(repo_root) as bank:
        res = push_local(bank)
        out.emit_json(res) if json else out.say(
            f"{res['local']} memories of {res['from']} pushed: {res['created']} new on the server, "
            f"{res['duplicates']} there already")


@click.command()
@repo_root_opt
@json_opt
def reembed(repo_root: str | None, json: bool) -> None:
    """Embed the memories that have no vector from the current model."""
    with _errors(), _existing(repo_root) as bank:
        res = bank.memory.reembed()
        out.emit_json(res) if json else out.say(
            f"{res['embedded']} memories embedded with {res['model']} in {res['seconds']} s")


@click.command()
@click.argument("question")
@repo_root_opt
@click.option("-k", "k", type=click.IntRange(1, 200), default=20, show_default=True)
@json_opt
def reflect(question: str, repo_root: str | None, k: int, json: bool) -> None:
    """A digest of the best evidence for QUESTION, grouped by kind and by anchor (each line
    with its memory id and date)."""
    from hindsight.app import open_bank

    with _errors(), open_bank(".", repo_root_path=repo_root, create=False) as bank:
        res = bank.memory.reflect(question, k)
        if json:
            out.emit_json(res)
            return
        if not res["memories"]:
            out.say("nothing relevant in memory")
            return
        lines = [f"# {question}", ""]
        if res["answer"]:
            lines += [res["answer"], "", "## evidence"]
        for kind, items in res["by_kind"].items():
            lines.append(f"## {kind}")
            lines += [f"- {x}" for x in items]
            lines.append("")
        if res["by_anchor"]:
            lines.append("## by anchor")
            lines += [f"- {a}: {', '.join(ids)}" for a, ids in res["by_anchor"].items()]
        out.say("\n".join(lines))
