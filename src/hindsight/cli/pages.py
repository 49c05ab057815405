"""``hindsight pages [NAME] [--refresh] [--json]``: the knowledge pages of this repository's
bank (``bank.pages``), refreshed on request. Added to the tree by
:func:`hindsight.cli.app.build_cli`."""

from __future__ import annotations

import sys
from typing import Any

import click

from hindsight.app import PAGE_NAMES
from hindsight.cli import output as out
from hindsight.cli.main import _bank, _errors, _reader, json_opt, repo_root_opt

LOCK_WAIT_S = 120.0  # a refresh asked for here waits this long for one already running


def _text(page: Any) -> str:
    lines = [f"# {page.title} ({page.name}, version {page.version}, updated "
             f"{_shown(page.updated_at)})", ""]
    for s in page.sections:
        lines += [f"## {s.heading}", s.text]
        if s.citations:
            lines.append("evidence: " + "  ".join(f"[{i}] {c.kind} {c.ref}"
                                                 for i, c in enumerate(s.citations, 1)))
        lines.append("")
    return "\n".join(lines)


def _shown(iso: str) -> str:
    from hindsight.app import time_shown

    return time_shown(iso) if iso else "never"


def _said(res: dict[str, Any] | None) -> None:
    """What a refresh did, on stderr (stdout keeps the pages, or the JSON)."""
    if res is None:
        sys.stderr.write("hindsight: another process is refreshing the pages; showing the "
                         "stored ones\n")
        return
    for p in res["pages"]:
        what = "; ".join(p["changed"]) if p["written"] else "unchanged"
        sys.stderr.write(f"{p['name']}: version {p['version']} ({what}), {p['ms']:.0f} ms\n")


@click.command("pages")
@click.argument("name", required=False, type=click.Choice(PAGE_NAMES))
@repo_root_opt
@click.option("--refresh", is_flag=True,
              help="Survey the repository now and store a new version of each page whose "
              "evidence changed (only those sections are rewritten).")
@json_opt
def pages(name: str | None, repo_root: str | None, refresh: bool, json: bool) -> None:
    """Knowledge pages: architecture, conventions, hotspots, in-flight. Every claim cites
    its evidence ([n]: file, symbol, commit, memory or attempt). Without --refresh the
    stored pages are shown (the first time, they are written)."""
    with _errors(), (_bank if refresh else _reader)(repo_root) as bank:
        if refresh or not bank.pages.list():
            _said(bank.pages.refresh([name] if name else None,
                                     reason="manual" if refresh else "first",
                                     wait_s=LOCK_WAIT_S))
        shown = [bank.pages.get(name)] if name else bank.pages.list()
        if json:
            out.emit_json({"pages": [p.as_dict() for p in shown]})
            return
        for p in shown:
            out.say(_text(p))
