"""Demo: start `hindsight mcp` over stdio with the official MCP client, list its tools and
call three of them on this checkout (used by scripts/demo.sh)."""

from __future__ import annotations

import asyncio
import json
import os
import sys


async def main() -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "hindsight", "mcp"],
                                   env=dict(os.environ), cwd=os.getcwd())
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
