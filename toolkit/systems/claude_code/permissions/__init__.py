"""Claude Code's permission system: its settings layers, rule language and evaluation.

One loader (:mod:`.settings`), one rule matcher (:mod:`.rules`, with :mod:`.bash` for what
Claude Code knows about shell commands and :mod:`.agents` for subagent front matter) and one
evaluation (:mod:`.evaluate`). The shell parsing, path matching, layering and decision record
they use are runtime-independent (:mod:`toolkit.systems.base`).
"""

from __future__ import annotations

from .agents import AgentPermissions, agent_permissions, effective_mode
from .evaluate import CallContext, RuleSet, check_call, context_for
from .rules import PermissionRule, canonical_tool, parse_rule
from .settings import McpApproval, Settings, read_settings

__all__ = ["AgentPermissions", "CallContext", "McpApproval", "PermissionRule", "RuleSet",
           "Settings", "agent_permissions", "canonical_tool", "check_call", "context_for",
           "effective_mode", "parse_rule", "read_settings"]
