"""Read a policy from any source runtime into the neutral rules (:mod:`.rules`).

Each reader takes the rule table of the source's own engine (the objects its ``frame()`` lists:
Gemini CLI's ``PolicyRule``, Codex's ``PrefixRule``, OpenCode's ``PermissionRule``) and spells
each rule in the neutral grammar (Claude Code's: ``Bash(git push:*)``, ``Read``, ``Edit``...),
keeping the rule's text, file and line as the source engine reports them, so a decision of
the source engine points back at its neutral rule. No matching is done here: what a pattern
matches is only read from how the runtime wrote it (a ``commandPrefix`` is recovered from its
``argsPattern`` and checked by building the pattern again with Gemini CLI's own function).

The neutral form decides as Claude Code does: deny > ask > allow whatever the order. The
sources rank rules otherwise (Gemini CLI: the highest priority wins; OpenCode: the last
matching rule wins; Codex: the strictest, as Claude Code), so :func:`resolve` turns a ranked
list into that form, never more permissive:

- a rule ranked below a rule that matches every call of its tool never decides: not written;
- a rule matching every call of its tool (``run_shell_command`` alone, ``bash: {"*": ...}``)
  ranked below less strict rules is the tool's default there: an ask of a tool every target
  asks for by default is that default (not written); a deny of every command below allows is
  written as that default too (it asks: listed, weaker); otherwise it is kept, and each less
  strict rule above it is listed ``stricter`` (the stricter rule wins in the target);
- a narrower stricter rule ranked below a less strict one it may overlap is kept, and the less
  strict one is listed ``stricter``.

What a source rule cannot say in the neutral grammar is a :class:`.target.Loss` from the
reader (an allow is left out: the target asks; a deny or ask is written broader).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.decision import Effect
from .rules import FAMILIES, KIND_EFFECT, ShellPattern, SourceRule, read_rules
from .target import CallMap, Loss

if TYPE_CHECKING:
    from ...policy import Policy

__all__ = ["Source", "read_source", "resolve"]

#: Gemini CLI tool -> the neutral (Claude Code) tool
GEMINI_TOOLS: Mapping[str, str] = {
    "run_shell_command": "Bash", "ShellTool": "Bash", "read_file": "Read",
    "read_many_files": "Read", "glob": "Glob", "grep_search": "Grep",
    "search_file_content": "Grep", "list_directory": "LS", "write_file": "Write",
    "replace": "Edit", "web_fetch": "WebFetch", "google_web_search": "WebSearch",
    "invoke_agent": "Agent", "write_todos": "TodoWrite",
}
#: OpenCode permission -> the neutral tools it governs (``edit`` covers edit, write, patch)
OPENCODE_TOOLS: Mapping[str, tuple[str, ...]] = {
    "bash": ("Bash",), "read": ("Read",), "edit": ("Edit", "Write"), "glob": ("Glob",),
    "grep": ("Grep",), "list": ("LS",), "webfetch": ("WebFetch",),
    "websearch": ("WebSearch",), "task": ("Agent",), "todowrite": ("TodoWrite",),
}
_GEMINI_KIND = {"allow": "allow", "ask_user": "ask", "deny": "deny"}
_STRICT = {Effect.ALLOW: 0, Effect.ASK: 1, Effect.DENY: 2}
#: families every target asks for by default (a catch-all ask of them is that default)
_ASKING = ("shell", "edit", "webfetch", "websearch", "mcp")


@dataclass
class Source:
    """A policy read from its runtime: the neutral rules, what could not be read exactly,
    and how to put a neutral (Claude Code named) call to the source's engine."""

    runtime: str
    rules: list[SourceRule]
    losses: list[Loss] = field(default_factory=list)
    mode: str | None = None
    #: neutral call -> the source's tool and arguments (None: the source has no such tool)
    call: CallMap | None = None


@dataclass
class Ranked:
    """One source rule in the source's order of precedence (first decides first)."""

    rule: SourceRule
    key: str  # the neutral tool it acts on ("Bash", "Read", "mcp__github__x")
    catch_all: bool  # matches every call of ``key``


def _family(tool: str) -> str:
    return "mcp" if tool.startswith("mcp__") else FAMILIES.get(tool, "tool")


def _neutral(text: str, effect: Effect, tool: str, spec: str | None, file: str | None,
             line: int | None, layer: str | None) -> SourceRule:
    written = tool if spec is None else f"{tool}({spec})"
    return SourceRule(text, effect, tool, _family(tool), spec, file, line, layer, written)


def _literal_prefix(spec: str | None) -> str:
    pattern = ShellPattern.parse(spec)
    return "" if pattern.kind == "any" else pattern.literal.strip()


def _overlap(a: Ranked, b: Ranked) -> bool:
    """Whether two rules of one key may match a call in common (when unsure: yes)."""
    if a.catch_all or b.catch_all or a.rule.family != "shell":
        return True
    x, y = _literal_prefix(a.rule.spec), _literal_prefix(b.rule.spec)
    return x.startswith(y) or y.startswith(x)


def resolve(ranked: Sequence[Ranked], runtime: str, order: str) -> tuple[list[SourceRule],
                                                                          list[Loss]]:
    """The neutral rules (strictest wins) of rules ranked by precedence, and the losses
    (see the module docstring); ``order`` words how the source ranks them."""
    kept: list[SourceRule] = []
    losses: list[Loss] = []
    overridden: set[int] = set()
    for index, item in enumerate(ranked):
        above = [r for r in ranked[:index] if r.key == item.key]
        cover = next((r for r in above if r.catch_all), None)
        if cover is not None:
            losses.append(Loss("dropped", f"never decides in {runtime}: {cover.rule.text} "
                                          f"({cover.rule.where}) {order} and matches every call "
                                          "of the tool", item.rule))
            continue
        weaker = [r for r in above if _STRICT[r.rule.effect] < _STRICT[item.rule.effect]
                  and _overlap(r, item)]
        if item.catch_all and item.rule.family == "shell" and item.rule.effect is Effect.ASK:
            # Claude Code asks on a whole-tool ask rule before its content denies: written, it
            # would turn every deny into an ask; the target's default asks anyway
            losses.append(Loss("dropped", "an ask of every command is the default of every "
                                          "target: not written (Claude Code would ask on it "
                                          "before any deny rule)", item.rule,
                               "the default: ask"))
            continue
        if weaker and item.catch_all and item.rule.family in _ASKING and (
                item.rule.effect is Effect.ASK or item.rule.family == "shell"):
            what = "asks for" if item.rule.effect is Effect.ASK else "refuses"
            losses.append(Loss("dropped", f"in {runtime} this rule {what} every call the rules "
                                          f"above it leave (they {order}): that is the tool's "
                                          "default there; the target's default asks (written as "
                                          "a rule, it would override the allows above it)",
                               item.rule, "the default: ask"))
            continue
        for other in weaker:
            if id(other) not in overridden:
                overridden.add(id(other))
                losses.append(Loss("stricter", f"{item.rule.text} ({item.rule.where}) is "
                                               f"stricter and {runtime} ranks it lower; in the "
                                               "target the stricter rule wins where both match",
                                   other.rule))
        if item.rule.family in ("read", "edit") and item.rule.effect is not Effect.ALLOW \
                and item.rule.spec is None:
            losses.append(Loss("stricter", f"a {item.rule.tool} rule of the neutral form "
                                           f"governs every {item.rule.family} tool of some "
                                           "targets (Claude Code's Read covers Grep and Glob; "
                                           "Gemini CLI's read tools are written together)",
                               item.rule, item.rule.neutral))
        kept.append(item.rule)
    return kept, losses


# -- Claude Code ------------------------------------------------------------------------------

def _claude(proj: Policy) -> Source:
    engine = proj.engines["claude-code"]
    frame = engine.frame(proj.definitions.agents.values())
    agent_rows = frame[frame["agent"].notna()] if "agent" in frame else frame.iloc[0:0]
    rules = read_rules(frame[frame["agent"].isna()] if "agent" in frame else frame)
    losses = []
    for row in agent_rows.to_dict("records"):
        line = row.get("line")
        losses.append(Loss("dropped", f"a rule of subagent {row['agent']}'s front matter: "
                                      "the conversion writes the settings' rules only",
                           SourceRule(str(row["text"]),
                                      KIND_EFFECT.get(str(row["kind"]), Effect.ASK),
                                      str(row["tool"]), "tool", None, row.get("file"),
                                      int(line) if line is not None and line == line
                                      else None)))
    settings = getattr(engine, "settings", None)
    found = getattr(settings, "default_mode", None)  # (mode, the rule setting it)
    mode = found[0] if isinstance(found, tuple) and found else found
    return Source("claude-code", rules, losses, mode if isinstance(mode, str) else None,
                  lambda tool, args: (tool, dict(args)))


# -- Gemini CLI ---------------------------------------------------------------------------------

def gemini_prefix(pattern: str, written: str) -> str | None:
    """The ``commandPrefix`` a rule's ``argsPattern`` was built from, or None: the candidate
    read off the pattern (Gemini CLI's ``buildArgsPatterns`` escapes the JSON of the prefix
    after ``"command":`` and ends it at a space or a quote) is returned only when the rule
    as written (``commandPrefix="git push"`` or a list) holds exactly that prefix."""
    head, tail = r'\"command\":\"', r'(?:[\s"]|\\")'
    if not (pattern.startswith(head) and pattern.endswith(tail)):
        return None
    body = pattern[len(head):-len(tail)]
    out, escaped = [], False
    for char in body:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    try:
        prefix = json.loads('"' + "".join(out) + '"')
    except ValueError:
        return None
    return prefix if isinstance(prefix, str) and prefix in _written_prefixes(written) else None


def _written_prefixes(written: str) -> list[str]:
    """The ``commandPrefix`` values of a Gemini CLI rule as written (its JSON value)."""
    at = written.find("commandPrefix=")
    if at < 0:
        return []
    try:
        value, _ = json.JSONDecoder().raw_decode(written, at + len("commandPrefix="))
    except ValueError:
        return []
    values = value if isinstance(value, list) else [value]
    return [v for v in values if isinstance(v, str)]


_REGEX_META = set("\\^$.|?*+()[]{}")


def gemini_regex_prefix(pattern: str) -> tuple[str, bool] | None:
    """(the literal text a ``commandRegex`` / argsPattern over ``"command":"`` starts the
    command with, whether the regex is that text alone); None when it is not of that form.
    Gemini CLI searches the pattern in the call's JSON, so a pattern that is ``"command":"``
    then a literal matches exactly the commands starting with that literal."""
    head = '"command":"'
    if not pattern.startswith(head):
        return None
    body = pattern[len(head):]
    literal = []
    for char in body:
        if char in _REGEX_META or char in '"':
            break
        literal.append(char)
    text = "".join(literal)
    return text, len(text) == len(body)


def _gemini_tool(tool: str) -> str | None:
    """The neutral tool of a Gemini CLI tool name ("" when it has none; None for a rule on
    every MCP server's tools, which has no neutral form)."""
    if not tool.startswith("mcp_"):
        return GEMINI_TOOLS.get(tool, "")
    # parseMcpToolName: mcp_<server>_<tool>, the server holding no '_'
    server, _, name = tool[4:].partition("_")
    if tool == "mcp_*" or not server or not name:
        return None
    return f"mcp__{server}__{name}" if name != "*" else f"mcp__{server}"


def _gemini_skipped(policy_rule: Any) -> str | None:
    """Why a rule does not act in the default interactive mode of the main agent (None: it
    does)."""
    if policy_rule.modes and "default" not in policy_rule.modes:
        return (f"applies only in Gemini CLI's {', '.join(policy_rule.modes)} mode(s): the "
                "conversion writes the default mode's rules")
    if policy_rule.subagent:
        return f"applies to subagent {policy_rule.subagent} only: not written"
    if policy_rule.interactive is False:
        return "applies only when Gemini CLI runs non-interactively: not written"
    return None


def _gemini_rule(policy_rule: Any, losses: list[Loss], own_tools: list[str]) -> Ranked | None:
    """One Gemini CLI rule as a ranked neutral rule (None: not written, listed)."""
    tool = policy_rule.tool_name
    # the text of the engine's toolkit Rule (gemini_cli.engine.to_rule): tool(written)
    text = f"{tool}({policy_rule.written})" if policy_rule.written else tool
    effect = KIND_EFFECT[_GEMINI_KIND[policy_rule.decision]]
    builtin = (policy_rule.file or "").startswith("<")
    base = SourceRule(text, effect, tool, "tool", None, policy_rule.file, policy_rule.line,
                      policy_rule.tier)
    skipped = _gemini_skipped(policy_rule)
    if skipped is not None:
        if not builtin:
            losses.append(Loss("dropped", skipped, base))
        return None
    neutral = _gemini_tool(tool)
    if neutral is None:
        losses.append(Loss("dropped", "a rule on every MCP server's tools has no neutral "
                                      "form: not written", base))
        return None
    if not neutral:
        if builtin:
            own_tools.append(tool)
        else:
            losses.append(Loss("dropped", f"{tool} is a Gemini CLI tool with no counterpart "
                                          "in the neutral form", base))
        return None
    if policy_rule.tool_annotations:
        if effect is Effect.ALLOW:
            losses.append(Loss("dropped", "an allow by tool annotations cannot be said "
                                          "otherwise: not written (the call asks)", base))
            return None
        losses.append(Loss("stricter", "a rule on tool annotations is written for the whole "
                                       "tool", base, neutral))
    spec: str | bool | None = None
    if policy_rule.args_pattern is not None:
        spec = _gemini_spec(policy_rule.args_pattern, policy_rule.written, neutral, effect,
                            base, losses)
        if spec is False:
            return None
    rule = _neutral(text, effect, neutral, spec if isinstance(spec, str) else None,
                    policy_rule.file, policy_rule.line, policy_rule.tier)
    return Ranked(rule, "Bash" if rule.family == "shell" else neutral, rule.spec is None)


def _gemini(proj: Policy) -> Source:
    engine: Any = proj.engines["gemini-cli"]  # read through its public names
    losses: list[Loss] = []
    own_tools: list[str] = []
    ranked = [r for r in (_gemini_rule(policy_rule, losses, own_tools)  # highest first
                          for policy_rule in engine.engine().rules) if r is not None]
    rules, order_losses = resolve(ranked, "Gemini CLI", "have a higher priority")
    if own_tools:
        losses.append(Loss("semantics", "Gemini CLI's built-in rules for its own tools ("
                                        f"{', '.join(dict.fromkeys(own_tools))}) have no "
                                        "counterpart: not converted"))
    losses.append(Loss("semantics", "Gemini CLI runs a command it knows safe (ls, cat, git "
                                    "status, ...) unasked when no argsPattern rule decides it, "
                                    "and asks for one it knows dangerous even under an allow; "
                                    "each target has its own list", tags=("read-only",)))
    return Source("gemini-cli", rules, losses + order_losses, None, _gemini_call)


def _gemini_spec(pattern: str, written: str, neutral: str, effect: Effect, base: SourceRule,
                 losses: list[Loss]) -> str | bool | None:
    """The neutral spec of an argsPattern rule: a ``str``; None (written for every call of
    the tool, listed); False (not written, listed)."""
    if neutral == "Bash":
        if pattern in ('"command":', '"command":"'):
            return None  # every call with a command: the whole tool, exactly
        prefix = gemini_prefix(pattern, written)
        if prefix is not None and prefix.strip() and "*" not in prefix:
            return f"{prefix}:*"
        found = gemini_regex_prefix(pattern)
        if found is not None and found[0].strip() and "*" not in found[0]:
            text, whole = found
            if whole:
                return f"{text}*"
            if effect is not Effect.ALLOW:
                losses.append(Loss("stricter", "the regular expression is written as the "
                                               f"literal text it starts with ({text!r}): "
                                               "broader", base, f"Bash({text}*)"))
                return f"{text}*"
        if found is not None and pattern.startswith('"command":"^'):
            losses.append(Loss("dropped", "the pattern never matches: Gemini CLI searches it "
                                          "in the call's JSON, where '^' after "
                                          "\"command\":\" cannot hold", base))
            return False
    if effect is Effect.ALLOW:
        losses.append(Loss("dropped", "an allow by argsPattern the neutral grammar cannot "
                                      "say: not written (the call asks or takes the target's "
                                      "default)", base))
        return False
    losses.append(Loss("stricter", "an argsPattern the neutral grammar cannot say: written for "
                                   "every call of the tool", base, neutral))
    return None


def _gemini_call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    from . import gemini

    return gemini.call(tool, args)


# -- Codex ------------------------------------------------------------------------------------

_SHELL_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=@+,%^")


def _codex(proj: Policy) -> Source:
    import itertools

    engine: Any = proj.engines["codex"]  # read through its public names
    policy = engine.settings.policy
    rules: list[SourceRule] = []
    losses: list[Loss] = []
    for prefix_rule in policy.rules():
        text = prefix_rule.text  # the engine's toolkit Rule is Rule(pattern=rule.text)
        effect = KIND_EFFECT[{"allow": "allow", "prompt": "ask",
                              "forbidden": "deny"}[prefix_rule.decision]]
        combos = list(itertools.product(*prefix_rule.rest))
        base = SourceRule(text, effect, "Bash", "shell", None, prefix_rule.file,
                          prefix_rule.line)
        if len(combos) > 1:
            losses.append(Loss("split", f"a prefix with alternatives is written as "
                                        f"{len(combos)} rules, one per alternative", base))
        for combo in combos:
            words = [prefix_rule.first, *combo]
            plain = [w for w in words if w and set(w) <= _SHELL_SAFE]
            if len(plain) == len(words):
                rules.append(_neutral(text, effect, "Bash", " ".join(words) + ":*",
                                      prefix_rule.file, prefix_rule.line, None))
                continue
            cut = next(i for i, w in enumerate(words) if w not in plain)
            if effect is Effect.ALLOW or cut == 0:
                losses.append(Loss("dropped", "a word holding a space, quote or wildcard "
                                              "cannot be said as a command prefix: not "
                                              "written", base))
                continue
            head = " ".join(words[:cut])
            losses.append(Loss("stricter", f"written on the plain words before it ({head!r})",
                               base, f"Bash({head}:*)"))
            rules.append(_neutral(text, effect, "Bash", head + ":*", prefix_rule.file,
                                  prefix_rule.line, None))
    for network in policy.network_rules:
        losses.append(Loss("dropped", "a network rule governs the sandbox's connections, not a "
                                      "tool call: not written",
                           SourceRule(f"network_rule(host={network.host!r})",
                                      KIND_EFFECT.get({"allow": "allow", "prompt": "ask"}.get(
                                          network.decision, "deny"), Effect.DENY),
                                      "WebFetch", "webfetch", None, network.file,
                                      network.line)))
    losses += [
        Loss("semantics", f"Codex's approval policy ({engine.settings.approval_label}) and "
                          "sandbox decide a command no rule matches, and its known-safe "
                          "commands run unasked; the neutral default asks",
             tags=("default", "read-only")),
        Loss("semantics", "Codex splits a bash -lc script into commands only when it is words "
                          "and && / || / ; / | alone: a redirection, $(...) or a variable makes "
                          "it judge the whole script, which no rule matches",
             tags=("redirect", "substitution", "quoted")),
        Loss("semantics", "Codex rules speak of commands only: reads, edits, fetches and MCP "
                          "tools are governed by its sandbox and approval policy, so only "
                          "shell calls are compared"),
    ]
    return Source("codex", rules, losses, None, _codex_call)


def _codex_call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    from . import codex

    return codex.call(tool, args)


# -- OpenCode ---------------------------------------------------------------------------------

def _opencode_spec(tool: str, pattern: str, effect: Effect, base: SourceRule,
                   losses: list[Loss]) -> str | bool | None:
    """The neutral spec of an OpenCode pattern (see :func:`_gemini_spec`)."""
    if pattern == "*":
        return None
    if tool == "Bash":
        text = pattern
        if "?" in text:
            if effect is Effect.ALLOW:
                losses.append(Loss("dropped", "'?' is a wildcard in OpenCode and a letter in "
                                              "the neutral grammar: the allow is not written",
                                   base))
                return False
            text = text.replace("?", "*")
            losses.append(Loss("stricter", "'?' written as '*': broader", base, text))
        return text
    if tool in ("WebFetch",):
        losses.append(Loss("dropped" if effect is Effect.ALLOW else "stricter",
                           "a URL pattern: " + ("not written" if effect is Effect.ALLOW
                                                else "written for every fetch"), base))
        return False if effect is Effect.ALLOW else None
    # a path pattern: OpenCode's '*' crosses '/', the neutral one does not ('**' does)
    if effect is Effect.ALLOW:
        losses.append(Loss("dropped", "an allow of some paths is not written (OpenCode's "
                                      "wildcard crosses folders and is matched against the "
                                      "path as the tool spells it); the target's default "
                                      "decides", base))
        return False
    segments = ["**" if part in ("*", "**") else part
                for part in pattern.replace("\\", "/").lstrip("/").split("/")]
    spec = "/".join(segments)
    if not spec.startswith("**"):
        spec = f"**/{spec}"
    losses.append(Loss("stricter", "the path pattern is matched at any depth (OpenCode's '*' "
                                   "crosses folders; inside a name the neutral one does not)",
                       base, spec))
    return spec


def _opencode(proj: Policy) -> Source:
    engine: Any = proj.engines["opencode"]  # read through its public names
    agent = engine.agent(None)
    ruleset = engine.ruleset(agent)
    ranked: list[Ranked] = []
    losses: list[Loss] = []
    default_agent = agent.name
    for permission_rule in reversed(ruleset):  # the last matching rule decides first
        toolkit_rule = _opencode_rule(permission_rule)
        effect = KIND_EFFECT[toolkit_rule.kind]
        builtin = permission_rule.layer == "opencode"
        base = SourceRule(toolkit_rule.text, effect, permission_rule.permission, "tool", None,
                          permission_rule.file, permission_rule.line, permission_rule.layer)
        key = permission_rule.permission
        tools = (tuple(t for ts in OPENCODE_TOOLS.values() for t in ts) if key == "*"
                 else OPENCODE_TOOLS.get(key, ()))
        if not tools:
            if not builtin:
                losses.append(Loss("dropped", f"OpenCode's {key} permission has no "
                                              "counterpart in the neutral form", base))
            continue
        if builtin and permission_rule.pattern == "*":
            continue  # OpenCode's own default for the permission (compared as the default)
        for tool in tools:
            found = _opencode_spec(tool, permission_rule.pattern, effect, base, losses)
            if found is False:
                continue
            spec = found if isinstance(found, str) else None
            if tool == "Bash" and spec is not None and ShellPattern.parse(spec).kind == "any":
                spec = None
            rule = _neutral(toolkit_rule.text, effect, tool, spec, permission_rule.file,
                            permission_rule.line, permission_rule.layer)
            ranked.append(Ranked(rule, tool, spec is None))
    rules, order_losses = resolve(ranked, "OpenCode", "match later")
    losses += _other_agents(engine, default_agent, ruleset)
    losses += [
        Loss("semantics", "OpenCode's built-in defaults (every permission allowed but "
                          "external_directory and .env reads, which ask) are its default, not "
                          "converted; the neutral default asks", tags=("default",)),
        Loss("semantics", "OpenCode asks external_directory for a path argument outside the "
                          "project before the command's own rule", tags=("path",)),
        Loss("semantics", "OpenCode matches each command of a line as written: wrappers "
                          "(timeout, VAR=x, bash -c) are part of the command",
             tags=("wrapper", "assignment")),
    ]
    return Source("opencode", rules, losses + order_losses, None, _opencode_call)


def _other_agents(engine: Any, default_agent: str, ruleset: list[Any]) -> list[Loss]:
    """A loss for each configured rule of an agent other than the default one."""
    losses = []
    for name, other in engine.agents.items():
        if other.name == default_agent:
            continue
        for permission_rule in other.permission:
            if permission_rule.layer != "opencode" and permission_rule not in ruleset:
                shown = _opencode_rule(permission_rule)
                losses.append(Loss("dropped", f"a rule of agent {name}: the conversion writes "
                                              f"the default agent's ({default_agent}) rules",
                                   SourceRule(shown.text, KIND_EFFECT[shown.kind],
                                              permission_rule.permission, "tool", None,
                                              permission_rule.file, permission_rule.line)))
    return losses


@dataclass(frozen=True)
class _Shown:
    """The text and kind of the engine's toolkit Rule for an OpenCode rule
    (opencode.engine.to_rule: ``permission(pattern)``, the bare permission for ``*``)."""

    text: str
    kind: str


def _opencode_rule(rule: Any) -> _Shown:
    pattern = rule.pattern
    return _Shown(rule.permission if pattern == "*" else f"{rule.permission}({pattern})",
                  rule.action)


def _opencode_call(tool: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    from . import opencode

    return opencode.call(tool, args)


READERS: Mapping[str, Callable[[Any], Source]] = {
    "claude-code": _claude, "gemini-cli": _gemini, "codex": _codex, "opencode": _opencode,
}


def read_source(proj: Policy, runtime: str) -> Source:
    """The neutral rules of ``proj``'s ``runtime`` policy (one of :data:`READERS`)."""
    return READERS[runtime](proj)
