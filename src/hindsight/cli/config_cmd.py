"""``hindsight config show``: every effective setting and where it came from."""

from __future__ import annotations

import os

import click

from hindsight.cli import output as out
from hindsight.cli.main import _errors


@click.group("config")
def config() -> None:
    """The layered configuration (~/.hindsight/config.json, HINDSIGHT_CONFIG)."""


@config.command("show")
@click.option("--harness", default="cli", show_default=True,
              type=click.Choice(["claude-code", "codex", "mcp", "cli"]),
              help="Apply this harness's layer.")
@click.option("--cwd", default=".", metavar="PATH", help="Directory whose bank is resolved.")
@click.option("--json", "json", is_flag=True, help="Machine-readable JSON output.")
def show(harness: str, cwd: str, json: bool) -> None:
    """Print every effective value, where it came from, and the bank CWD resolves to.
    Exits 2 and lists every problem (unknown key, wrong type, invalid JSON) with its path."""
    from hindsight.config.banks import resolve

    with _errors():
        res = resolve(os.path.abspath(cwd), harness, record=False)  # (a query: writes nothing)
        s = res.settings
        values = {k: {"value": v, "source": s.sources[k]} for k, v in s.values.items()}
        data = {"config_file": s.path, "config_file_exists": os.path.exists(s.path),
                "harness": harness, "bank": res.bank_id, "resolved_by": res.how,
                "inert_reason": res.reason, "root": res.root,
                "values": values}
        if json:
            out.emit_json(data)
            return
        out.say(f"config file {s.path}" + ("" if data["config_file_exists"] else
                                           " (not present: defaults and environment)"))
        out.say(f"bank {res.bank_id or '(none: ' + res.reason + ')'} via {res.how}")
        out.table("settings", ["field", "value", "from"],
                  [[k, repr(v["value"]), v["source"]] for k, v in values.items()])
