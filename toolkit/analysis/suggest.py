"""Least privilege: the fewest allow rules that cover every call an agent really made.

``Replay.suggest()`` calls :func:`suggest`. A rule is written the way the
agent's own file writes it: a tool name in a front-matter ``tools:`` list, a
work-agent ``tools.available`` entry, a mux ``allowed_tools`` entry. A Claude
Code project gets both of its layers: each subagent's ``tools:`` (which tools it
holds) and ``.claude/settings.json`` ``permissions.allow`` (which calls run
without a prompt, for the main conversation and every subagent alike), with
permission rules such as ``Bash(npm test *)``.

Shell commands (Claude Code's ``Bash``) are generalised to a command-prefix
rule where several commands share a prefix: ``npm run lint`` and ``npm run
build`` become ``Bash(npm run *)``; a prefix seen with one command only stays
exact (``Bash(git status)``). A compound command (``a && b``) contributes each
of its parts, since Claude Code checks each part on its own; a command whose
structure the tokenizer cannot see through (command substitution, an
unbalanced quote, several lines) is suggested exactly as it was run.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core.models import rule_label
from .transcripts import MAIN, executed

if TYPE_CHECKING:
    import pandas as pd

    from ..core.models import AgentDefinition
    from ..policy import Policy

__all__ = ["shell_rules", "suggest"]

#: Where an agent's allow list lives, by the format of its file.
FIELDS = {"work-agent": "tools.available", "mux": "allowed_tools"}
SETTINGS_FIELD = ".claude/settings.json permissions.allow"
#: The row label of the settings rules (they apply to every agent's calls).
SETTINGS = "(settings)"
#: Steps of Claude Code's engine that let a call run without any allow rule.
RUN_WITHOUT_RULE = ("read-only", "working-dir", "no-prompt")
SHELL_TOOLS = frozenset({"Bash"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "|&", "&"})
_UNSAFE = ("$(", "`", "\n")
COLUMNS = ["agent", "field", "rule", "change", "covers"]
_ORDER = {"keep": 0, "add": 1, "remove": 2}


def suggest(proj: Policy, calls: pd.DataFrame) -> pd.DataFrame:
    """One row per rule (agent, field, rule, change, covers); see ``Replay.suggest``."""
    import pandas as pd

    observed = calls["observed"].astype(object)
    # calls that ran (an error still ran); a log that records no outcome at all: every call
    ran = calls[executed(observed)] if observed.notna().any() else calls
    known = ran["agent"].astype(object).map(lambda a: a == MAIN or a in proj.agents)
    ran = ran[known.astype(bool)]
    claude = _is_claude(proj)
    rows: list[dict[str, Any]] = []
    for agent, group in ran.groupby(ran["agent"].astype(object), sort=True):
        definition = proj.agents.get(str(agent))
        if definition is None:
            continue  # the main conversation (settings, below) or an agent the project lacks
        needed = _needed(group, arguments=False)
        rows += _diff_rows(str(agent), _field(definition), needed, _today(definition))
    if claude:
        rows += _diff_rows(SETTINGS, SETTINGS_FIELD, _settings_needed(ran),
                           _settings_today(proj))
    rows.sort(key=lambda r: (str(r["agent"]), _ORDER[r["change"]], r["rule"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def _is_claude(proj: Policy) -> bool:
    """A Claude Code project: settings layers read, or the claude-code preset."""
    return getattr(proj, "engine", None) is not None or proj.preset.name == "claude-code"


def _diff_rows(agent: str, field: str, needed: Counter[str], today: list[str]
               ) -> list[dict[str, Any]]:
    rows = [{"agent": agent, "field": field, "rule": rule,
             "change": "keep" if rule in today else "add", "covers": covers}
            for rule, covers in sorted(needed.items())]
    rows += [{"agent": agent, "field": field, "rule": rule, "change": "remove", "covers": 0}
             for rule in today if rule not in needed]
    return rows


def _field(definition: AgentDefinition) -> str:
    return FIELDS.get(definition.format, "tools")


def _today(definition: AgentDefinition) -> list[str]:
    """Today's allow rules of an agent, as written."""
    return list(dict.fromkeys(rule_label(r) for r in definition.allow or ()))


def _settings_today(proj: Policy) -> list[str]:
    """Today's settings allow rules (every layer but the subagents' own front matter)."""
    table = getattr(proj, "permissions", None)
    if table is None or not len(table):
        return []
    allow = table[(table["kind"] == "allow") & (table["layer"] != "agent")]
    return list(dict.fromkeys(str(t) for t in allow["text"]))


def _settings_needed(ran: pd.DataFrame) -> Counter[str]:
    """Settings allow rules for the calls (of every agent) that no mode lets run unasked.

    Claude Code applies ``permissions.allow`` to the main conversation and to
    every subagent alike; a call that runs without a rule (a read inside the
    working directories, a read-only command, a tool that never asks) needs none.
    """
    reasons = ran["reason"].astype(object)
    by_rule = ran[reasons == "allow-rule"]  # runs thanks to a rule today: that rule
    needed: Counter[str] = Counter(str(r) for r in by_rule["rule"].astype(object))
    needed.update(_needed(ran[~reasons.isin((*RUN_WITHOUT_RULE, "allow-rule"))],
                          arguments=True))
    return needed


def _needed(group: pd.DataFrame, arguments: bool) -> Counter[str]:
    """Rule -> how many of the group's calls it covers (shell commands as prefix rules
    when ``arguments``, else tool names)."""
    needed: Counter[str] = Counter()
    for tool, calls in group.groupby("tool", sort=True):
        name = str(tool)
        if not (arguments and name in SHELL_TOOLS):
            needed[name] += len(calls)
            continue
        commands = [a.get("command") if isinstance(a, dict) else None for a in calls["args"]]
        needed.update(shell_rules(name, [c for c in commands if isinstance(c, str)]))
        missing = sum(not isinstance(c, str) for c in commands)
        if missing:
            needed[name] += missing
    return needed


def shell_rules(tool: str, commands: Iterable[str]) -> Counter[str]:
    """Command-prefix rules covering ``commands``, with how many commands each covers.

    >>> sorted(shell_rules("Bash", ["npm run lint", "npm run build", "git status"]).items())
    [('Bash(git status)', 1), ('Bash(npm run *)', 2)]
    """
    parts_of: list[list[tuple[str, str]]] = []  # per command: (prefix, part text)
    for command in commands:
        parts_of.append(_parts(command))
    seen: dict[str, set[str]] = {}
    for parts in parts_of:
        for prefix, text in parts:
            seen.setdefault(prefix, set()).add(text)
    rules: Counter[str] = Counter()
    for parts in parts_of:
        for rule in dict.fromkeys(_rule(tool, prefix, text, seen[prefix])
                                  for prefix, text in parts):
            rules[rule] += 1
    return rules


def _rule(tool: str, prefix: str, text: str, variants: set[str]) -> str:
    if len(variants) == 1 or not prefix:
        return f"{tool}({text})"
    return f"{tool}({prefix} *)"


def _parts(command: str) -> list[tuple[str, str]]:
    """Each simple command of ``command`` as (prefix, text); ("", command) if opaque."""
    if any(u in command for u in _UNSAFE):
        return [("", command.strip())]
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote
        return [("", command.strip())]
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            parts.append([])
        else:
            parts[-1].append(token)
    words = [p for p in parts if p]
    if len(words) == 1:
        return [(_prefix(words[0]), command.strip())]
    return [(_prefix(p), shlex.join(p)) for p in words]


def _prefix(words: list[str]) -> str:
    """The command and, when it has one, its subcommand: ``npm run``, ``git log``, ``ls``."""
    if len(words) > 1 and not words[1].startswith("-") and "/" not in words[1] and (
            "=" not in words[1]):
        return f"{words[0]} {words[1]}"
    return words[0]
