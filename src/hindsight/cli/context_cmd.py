"""``context`` (the files and symbols a task most likely needs changed) and ``search
--entity`` (every place that uses a type or function)."""

from __future__ import annotations

import click

from hindsight.cli import output as out
from hindsight.cli.main import _errors, _reader, json_opt, repo_root_opt

REASONS_SHOWN = 3


@click.command()
@click.argument("task")
@repo_root_opt
@click.option("-k", "k", type=click.IntRange(1, 100), default=10, show_default=True,
              help="How many files (and at most as many symbols).")
@json_opt
def context(task: str, repo_root: str | None, k: int, json: bool) -> None:
    """Rank the files and symbols most likely to need a change for TASK (words, e.g. an
    issue title), each with its reasons: matching code, similar past commits and the files
    they changed, co-change, call-graph neighbours of what the task names, memories,
    failed attempts."""
    with _errors(), _reader(repo_root) as bank:
        res = bank.context.rank(task, k)
    if json:
        out.emit_json(res)
        return
    if not res.files:
        out.say("nothing in the index matches the task" + "".join(
            f"\nnote: {n}" for n in res.notes))
        return
    out.table(f"files for: {task[:80]}" + (" (confident)" if res.confident else ""),
              ["#", "file", "score", "why"],
              [[i + 1, f.target, f"{f.score:.3f}", "; ".join(f.reasons[:REASONS_SHOWN])]
               for i, f in enumerate(res.files)])
    if res.symbols:
        out.table("symbols", ["symbol", "line", "score", "why"],
                  [[s.target, s.line, f"{s.score:.3f}", "; ".join(s.reasons[:REASONS_SHOWN])]
                   for s in res.symbols])
    for n in res.notes:
        out.err(f"note: {n}")


@click.command()
@click.option("--entity", required=True, metavar="NAME",
              help="The type or function: name, Class.method or path::Class.method.")
@click.option("--relation", type=click.Choice(["uses", "calls", "imports", "inherits"]),
              default="uses", show_default=True,
              help="uses: every kind (calls, constructions, imports, inheritance, type "
              "annotations).")
@click.option("--depth", type=click.IntRange(1, 20), default=1, show_default=True,
              help="Levels: 2 also lists the uses of the definitions found at level 1.")
@click.option("--file", "file", default=None, metavar="PATH",
              help="Disambiguate the entity by its file or directory.")
@repo_root_opt
@json_opt
def search(entity: str, relation: str, depth: int, file: str | None, repo_root: str | None,
           json: bool) -> None:
    """Every place that uses an entity: file:line, how (call, construction, import,
    inherits, annotation), the enclosing definition and when it was last verified."""
    with _errors(), _reader(repo_root) as bank:
        sym, found = bank.code.uses(entity, relation, depth, file)
    if json:
        out.emit_json({"entity": sym.as_dict(), "relation": relation, "depth": depth,
                       "count": len(found), "uses": found})
        return
    if not found:
        out.say(f"no {relation} of {sym.qname} found in the index")
        return
    out.table(f"{relation} of {sym.qname}", ["depth", "how", "where", "in", "verified"],
              [[u.depth, u.relation, f"{u.path}:{u.line}", u.src.partition("::")[2]
                or "<module>", u.verified_at or "-"] for u in found])
