"""Demo: start `hindsight mcp` over stdio with the official MCP client, the way Claude Code
would (the entry `hindsight install claude-code` wrote in $CLAUDE_CONFIG_DIR/.claude.json:
`<python> -P -m hindsight mcp` and the pinned HINDSIGHT_HOME), list its tools and call
three of them on this checkout (used by scripts/demo.sh)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any


def server_entry() -> dict[str, Any]:
    """The installed ``mcpServers.hindsight`` entry, else the same command built here."""
    path = os.path.join(os.environ.get("CLAUDE_CONFIG_DIR", ""), ".claude.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)["mcpServers"]["hindsight"]
    except (OSError, ValueError, KeyError):
        return {"command": sys.executable, "args": ["-P", "-m", "hindsight", "mcp"]}


async def main() -> None:
    from mcp import Client, StdioServerParameters

    entry = server_entry()
    print("server:", entry["command"], *entry["args"], entry.get("env", ""))
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env={**os.environ, **entry.get("env", {})},
                                   cwd=os.getcwd())
    async with Client(params) as c:
        tools = await c.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools))
        for name, args in (("search_symbols", {"name": "open_bank"}),
                           ("callers", {"symbol": "resolve_file", "depth": 1}),
                           ("recall", {"text": "database is locked", "k": 2})):
            res = await c.call_tool(name, args)
            text = res.content[0].text if res.content else ""
            print(f"--- {name} {json.dumps(args)}{' (error)' if res.is_error else ''}")
            print(text[:700])


asyncio.run(main())
