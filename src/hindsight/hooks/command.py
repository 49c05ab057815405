"""Click commands of the agent integration: ``hindsight hook <event>`` (run by the agent)
and ``hindsight import claude-code|codex|cursor|copilot|gemini|antigravity``."""

from __future__ import annotations

import sys
from typing import Any

import click

from hindsight.hooks.fast import EVENTS, HARNESSES, run_event

HARNESS = click.option("--harness", default="claude-code", show_default=True,
                       type=click.Choice(list(HARNESSES)),
                       help="Which agent sent the payload.")


def _hook(event: str) -> click.Command:
    @click.command(event, help=f"Run the {event} hook: JSON payload on stdin; always exits 0.")
    @HARNESS
    def cmd(harness: str) -> None:
        sys.exit(run_event(event, harness))

    return cmd


@click.group("hook")
def hook() -> None:
    """Agent lifecycle hooks (installed by `hindsight install claude-code`)."""


for _e in EVENTS:
    hook.add_command(_hook(_e))


@hook.command("_seed", hidden=True)
@click.option("--cwd", required=True)
@HARNESS
def _seed(cwd: str, harness: str) -> None:
    """Seed or refresh the bank of CWD (detached worker of session-start)."""
    from hindsight.app import open_bank
    from hindsight.config.banks import resolve
    from hindsight.hooks.runtime import Diag

    d = Diag("seed", harness)
    try:
        res = resolve(cwd, harness)  # as the hook that started this worker resolved it
        d.set(bank=res.bank_id)
        if res.bank_id is not None:
            with open_bank(res.root, resolution=res) as bank:
                d.set(result=bank.sessions.seed(res.settings))
                d.set(pages=bank.pages.refresh_due(reason="seeding"))
    except Exception as e:  # noqa: BLE001 - a detached worker logs and ends
        d.set(error=f"{type(e).__name__}: {e}"[:500])
    d.write()


@hook.command("_pages", hidden=True)
@click.option("--cwd", required=True)
@HARNESS
def _pages(cwd: str, harness: str) -> None:
    """Refresh the knowledge pages of CWD's bank that are due (detached worker of
    session-start)."""
    from hindsight.app import open_bank
    from hindsight.config.banks import resolve
    from hindsight.hooks.runtime import Diag

    d = Diag("pages", harness)
    try:
        res = resolve(cwd, harness)
        d.set(bank=res.bank_id)
        if res.bank_id is not None:
            with open_bank(res.root, resolution=res, create=False) as bank:
                d.set(result=bank.pages.refresh_due(reason="session start"))
    except Exception as e:  # noqa: BLE001 - a detached worker logs and ends
        d.set(error=f"{type(e).__name__}: {e}"[:500])
    d.write()


@hook.command("_drain", hidden=True)
@click.option("--bank", "bank_id", required=True)
def _drain(bank_id: str) -> None:
    """Process queued write-back jobs of BANK (detached worker of stop hooks)."""
    from hindsight.hooks.handlers import drain

    drain(bank_id)


def _import_report(r: dict[str, Any], as_json: bool) -> None:
    if as_json:
        import json

        click.echo(json.dumps(r, indent=2))
        return
    click.echo(f"{r['files']} transcripts read, {r['retained']} memories retained, "
               f"{r['duplicates']} already there")
    if not r["files"]:
        click.echo(f"(looked in {', '.join(r.get('looked_in', []))})")
    for e in r["errors"][:20]:
        click.echo(f"warning: {e}", err=True)


def _bank(harness: str) -> Any:
    from hindsight.app import open_bank

    return open_bank(".", harness=harness)


@click.command("claude-code")
@click.option("--project", default=None, metavar="PATH",
              help="Project directory whose transcripts to read (default: this repository).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_claude_cmd(project: str | None, as_json: bool) -> None:
    """Read Claude Code transcripts (~/.claude/projects/<project>/*.jsonl)."""
    with _bank("claude-code") as bank:
        _import_report(bank.sessions.import_claude(project), as_json)


@click.command("codex")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_codex_cmd(as_json: bool) -> None:
    """Read Codex rollouts ($CODEX_HOME/sessions) whose directory is this repository."""
    with _bank("codex") as bank:
        _import_report(bank.sessions.import_codex(), as_json)


@click.command("cursor")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_cursor_cmd(as_json: bool) -> None:
    """Read Cursor agent transcripts (~/.cursor/projects/<this repository>/agent-transcripts)."""
    with _bank("cursor") as bank:
        _import_report(bank.sessions.import_cursor(), as_json)


@click.command("gemini")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_gemini_cmd(as_json: bool) -> None:
    """Read Gemini CLI chat recordings (~/.gemini/tmp/<this repository>/chats)."""
    with _bank("gemini") as bank:
        _import_report(bank.sessions.import_gemini(), as_json)


@click.command("antigravity")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_antigravity_cmd(as_json: bool) -> None:
    """Read Antigravity CLI conversations (~/.gemini/antigravity-cli/brain) whose tool calls
    name paths in this repository."""
    with _bank("antigravity") as bank:
        _import_report(bank.sessions.import_antigravity(), as_json)


@click.command("copilot")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def import_copilot_cmd(as_json: bool) -> None:
    """Read GitHub Copilot CLI sessions ($COPILOT_HOME/session-state) run in this
    repository."""
    with _bank("copilot") as bank:
        _import_report(bank.sessions.import_copilot(), as_json)


def commands() -> list[click.Command]:
    """The click commands this package adds to ``hindsight``."""
    return [hook]


def import_sources() -> list[click.Command]:
    """The ``import`` subcommands this package provides (``claude-code``, ``codex``,
    ``cursor``, ``copilot``, ``gemini``, ``antigravity``)."""
    return [import_claude_cmd, import_codex_cmd, import_cursor_cmd, import_copilot_cmd,
            import_gemini_cmd, import_antigravity_cmd]
