"""Tool arguments that do not fit a tool's schema, answered as every other tool error is:
one line naming the field (``text: Field required``), as the CLI and the HTTP API say it,
instead of the SDK's multi-line pydantic report with its documentation link."""

from __future__ import annotations

from typing import Any


def one_line(exc: Any) -> str:
    """``<field>: <message>`` of the first error of a pydantic ValidationError ``exc``
    (``arguments`` when it names no field), with ``(and N more)`` when there are others."""
    errs = list(exc.errors())
    if not errs:
        return "arguments: invalid"
    first = errs[0]
    field = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
    more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
    return f"{field}: {first.get('msg', 'invalid')}{more}"


def server_class() -> Any:
    """``MCPServer`` whose ``call_tool`` turns an argument ValidationError (the SDK raises
    it as a ToolError caused by it) into a one-line ToolError."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    class HindsightMCPServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any],
                            context: Any = None) -> Any:
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as e:
                if isinstance(e.__cause__, ValidationError):
                    raise ToolError(one_line(e.__cause__)) from None
                raise

    return HindsightMCPServer
