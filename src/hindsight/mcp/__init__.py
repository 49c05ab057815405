"""The MCP server (official ``mcp`` SDK)."""
