"""The team server (``hindsight serve``): an HTTP JSON API and the MCP server over
streamable HTTP, with tokens, for a team sharing banks. An adapter: it sees the bank's
services (``hindsight.app``) and never a store; FastAPI and uvicorn are imported only when
the server is built."""
