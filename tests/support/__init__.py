"""Helpers for tests that run real MCP servers: ports, processes, the npm server."""
