"""What an agent system is to toolkit: one record, and the protocols its parts answer.

A system (Claude Code, work-agent, emergent, ...) is one package under
``toolkit/systems/`` whose ``SYSTEM`` is a :class:`System`: the formats it reads
(rows of the format table), its preset, the folders by which a project shows it, its
built-in tools, its permission engine, its rule syntax and its risk knowledge. The
one list of systems is ``toolkit.systems.registry.SYSTEMS``; nothing outside
``toolkit/systems`` imports a system package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas as pd

    from ...core.decision import Decision, NearMiss, Verdict
    from ...core.models import AgentDefinition, Rule, ServerConfig
    from ...core.names import NameRules
    from ...core.pool import ToolPool
    from ...core.presets import Preset
    from ...errors import Problem
    from .calllog import CallLog, TranscriptReader
    from .definitions import Definitions
    from .formats import Format
    from .probe import ShellProbe

__all__ = ["Approval", "EngineFactory", "Layout", "NearMissEngine", "PathCommandEngine",
           "PermissionEngine", "System", "UnaskedEngine"]


@dataclass(frozen=True)
class Layout:
    """A folder by which a project shows its system: ``.claude/`` holding ``agents/``."""

    folder: str
    #: what inside the folder marks the system's own files (any one of them)
    marks: tuple[str, ...]


class Approval(Protocol):
    """A configured MCP server as a permission engine sees it: approved, rejected, pending."""

    server: str
    status: str
    detail: str
    rule: Rule


class PermissionEngine(Protocol):
    """One project's argument-level permission rules, as ``Policy`` asks about them.

    ``check_call`` answers "does this call run unasked, and why" with a ``Decision``
    (decided by :func:`toolkit.core.decision.decide_call`); the name-level questions
    (``explain``, the matrix) take from the engine its bare deny / ask rules and the
    tools whose calls depend on their arguments (shown ``conditional``).

    An engine that applies an agent's own tool list in ``check_call`` says so with
    ``applies_agent_tools = True``; for any other, ``Policy.check_call`` applies the agent's
    tool list first (the name-level answer the matrix shows).
    :class:`~toolkit.systems.base.engine.EngineDefaults` gives the defaults (False, no
    approvals, no gaps).
    """

    #: the system whose engine this is (``"claude-code"``)
    system: str
    #: whether ``check_call`` applies an agent's own tool list itself
    applies_agent_tools: bool = False

    @property
    def problems(self) -> Iterable[Problem]:
        """Warnings met while reading the settings (skipped rules and the like)."""

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        """What the runtime does with this call of ``tool`` by ``definition`` (None: main)."""

    def call_arguments(self, tool: str, text: str) -> dict[str, Any]:
        """A call's arguments written on a command line (JSON, or the tool's main field)."""

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig]) -> tuple[Rule, ...]:
        """The settings' rules of ``kind`` (deny / ask) that act on a whole tool."""

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Any, ...]]:
        """Pool tool -> the rules deciding its calls by their arguments, for an agent."""

    def conditional(self, decision: Decision, rules: tuple[Any, ...]) -> Decision:
        """``decision`` about a tool whose calls ``rules`` decide by their arguments."""

    def conditional_verdict(self, verdict: Verdict) -> Verdict:
        """A granted verdict of such a tool, as ``conditional``."""

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        """Every permission rule, one row each (``proj.permissions``)."""

    def approvals(self, servers: Mapping[str, ServerConfig]) -> list[Any]:
        """Each configured server's :class:`Approval`."""

    def gaps(self, agents: Iterable[AgentDefinition]) -> list[dict[str, Any]]:
        """Rows of ``proj.inheritance_gaps()``."""

    def gap_problems(self, agents: Iterable[AgentDefinition]) -> list[Problem]:
        """The same gaps as warnings for ``toolmatrix check``."""


class NearMissEngine(Protocol):
    """What an engine may add to answer "why was I asked when I allowed it?" (optional).

    An engine with ``near_misses`` fills ``Decision.near`` of the calls it does not allow,
    lazily (``lambda: self.near_misses(...)``), so that ``decision.near_misses`` lists the
    allow rules that came closest and why each did not match: the differing token, the
    word boundary, the anchor, the deny or ask rule met first, the part of a compound
    command no rule allows. Nothing is computed until a view asks (``report()``,
    ``toolmatrix why``, ``%tk why``), so replaying many calls costs nothing more.
    """

    def near_misses(self, decision: Decision, tool: str, args: Mapping[str, Any],
                    definition: AgentDefinition | None) -> tuple[NearMiss, ...]:
        """The near misses of ``decision`` (a call of ``tool`` with ``args``)."""


class RuleLanguageEngine(Protocol):
    """What an engine may add for ``proj.lint()`` (optional; Claude Code, Codex, Gemini CLI
    and OpenCode have it).

    ``rule_languages(tools, servers)`` describes each rule as regular languages: a dict per
    rule with ``rule`` (the toolkit ``Rule`` its decisions name), ``kind``, ``order``,
    ``channels`` (per tool of the pool: the argument read and a full-match regex over its
    value, its ``universe``, or the whole tool; an optional ``call`` spelling a value as
    arguments), ``dead`` / ``note``; and where one rule decides by rank, ``rank`` (the
    smaller first), ``listed`` and each channel's ``default`` kind (see ``analysis/lint``).
    """

    def rule_languages(self, tools: Iterable[str], servers: Iterable[str] = ()
                       ) -> list[dict[str, Any]]:
        """Each rule as regular languages, in the engine's order."""


class UnaskedEngine(Protocol):
    """What an engine may add to say which commands it runs unasked with no rule (optional).

    ``unasked_commands()`` lists them as word prefixes (``("ls",)``, ``("git", "status")``):
    a command starting with one may run without asking when no rule of the policy matches it
    (its own arguments may still make it ask: ``find -exec``). ``tk.convert`` writes a deny or
    ask rule for each one the source refuses or asks for, so the converted policy never runs
    it where the source did not.
    """

    def unasked_commands(self) -> tuple[tuple[str, ...], ...]:
        """The word prefixes of the commands the runtime runs unasked when no rule matches."""


class PathCommandEngine(Protocol):
    """What an engine may add to say which shell commands it checks against its path rules
    (optional).

    ``path_commands()`` lists them as (``"read"`` or ``"edit"``, a command line with
    ``{path}`` where the path goes): Claude Code refuses ``cat .env`` under ``Read(./.env)``
    in deny. ``tk.convert`` puts each to the source and the target with the source's own
    denied paths, so a target without path rules for commands does not run them unasked.
    """

    def path_commands(self) -> tuple[tuple[str, str], ...]:
        """(``read`` / ``edit``, command line with ``{path}``) of each such command."""


#: Opens a project's permission engine: ``(path, home=, managed=, cli=)`` -> engine, or
#: None when the project is not the system's and no option was given.
EngineFactory = Callable[..., "PermissionEngine | None"]


@dataclass(frozen=True)
class System:
    """One agent system: all that toolkit knows of it (see the module docstring)."""

    #: the name presets, layouts and ``Tool.format`` use: ``"claude-code"``
    name: str
    #: how people write it: ``"Claude Code"``
    title: str
    #: rows of the format table, in priority order among themselves
    formats: tuple[Format, ...] = ()
    #: the system's preset (SPEC section 4), or None (it shares another's or ``strict``)
    preset: Preset | None = None
    #: folders by which a project shows this system (its preset is then chosen)
    layouts: tuple[Layout, ...] = ()
    #: a path inside one of the system's own folders -> (preset, why), else None
    enclosing_layout: Callable[[Path], tuple[str, str] | None] | None = None
    #: hidden folders the folder walk enters although hidden (``.vscode``)
    hidden_folders: tuple[str, ...] = ()
    #: adds the system's built-in tools to a project of its layout
    add_builtins: Callable[[Definitions], None] | None = None
    #: reads one agent from text, as the system reads its agent files (``add_agent``)
    read_agent: Callable[[str, str], AgentDefinition] | None = None
    #: opens the project's permission engine (settings layers, rule grammar, evaluation)
    engine: EngineFactory | None = None
    #: an engine with no settings, for what-if questions about a project without any
    empty_engine: Callable[[str], PermissionEngine] | None = None
    #: the system's own tool names and list matching (rules with ``syntax=name``)
    name_rules: Callable[[ToolPool], NameRules] | None = None
    #: (prefix, separator) of the system's qualified MCP tool names, accepted everywhere
    #: (``("mcp__", "__")``: ``mcp__server__tool``)
    mcp_spelling: tuple[str, str] | None = None
    #: the permission modes its engine knows (``check_call(mode=...)``), and their aliases
    modes: tuple[str, ...] = ()
    mode_aliases: Mapping[str, str] = field(default_factory=dict)
    #: reads the system's transcripts into a call log (``tk.replay``)
    transcripts: Callable[[CallLog], TranscriptReader] | None = None
    #: built-in tool -> its risk classes (``base.risks``; read by ``analysis.risk``)
    risks: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: the project's shell-command rules and the commands they speak of, for the bypass
    #: probes (``base.probe``; read by ``analysis.probe``); None: its rules are not probed
    probe: Callable[[PermissionEngine], ShellProbe] | None = None
