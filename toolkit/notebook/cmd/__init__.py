"""One module per ``%tk`` subcommand; each has ``run(magics, rest, cell) -> result``."""

from __future__ import annotations

from types import ModuleType

from . import agent, agents, audit, call, connect, explain, load, matrix, servers, spawn, start

SUBCOMMANDS: dict[str, ModuleType] = {
    "load": load, "agents": agents, "matrix": matrix, "explain": explain, "connect": connect,
    "servers": servers, "start": start, "call": call, "spawn": spawn, "audit": audit,
    "agent": agent,
}
