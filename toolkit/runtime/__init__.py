"""Runtime: projects, sessions (and, later, MCP connections, built-ins, audit)."""
