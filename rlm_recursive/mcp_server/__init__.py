"""mcp_server."""
