"""Counterexamples between two versions of a policy (issue 24 item 3): ``tk.diff(...).arguments``.

For every tool whose calls argument rules decide (a shell command, a path, a URL, a
subagent type), the question Cedar's analyzer answers for its own policies: *is NEW at most
as permissive as OLD* (NEW implies OLD), and if not, *which call does NEW let through that
OLD does not*?

How it is exact. Each engine that can describe its rules as regular languages
(``engine.rule_languages``, as ``proj.lint()`` uses them) gives, per tool and argument, the
language of each rule. Per version and value ``v`` of the argument the first category that
holds decides: a deny rule matches, else an ask rule, else an allow rule, else none; the
effect of each category comes from the one precedence (:func:`~toolkit.core.decision.
decide_call`) in that version's permission mode. The values where NEW's effect ranks above
OLD's (:func:`~toolkit.analysis.diff.more_permissive`) are a regular language built from
unions, intersections and differences of finite automata (``interegular``); it is empty
exactly when NEW implies OLD over these rules, and a shortest readable string of it is the
witness. Each witness is run through both versions' ``check_call``: a witness is reported only
when the two really decide it differently (``verified``); when the automaton's first strings
all decide alike (what the engine does beyond matching: Claude Code's read-only commands,
wrappers, compound commands, working-directory reads) that is said, not guessed over.

What is not exact, and said so in ``note``: rules the engine does not describe as languages
(a negated path pattern, an engine without ``rule_languages``), parameter rules
(``Bash(run_in_background:true)``) that differ between the versions, and a subagent's own
front-matter rules (settings rules only; its calls are verified through ``check_call``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as default
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.decision import CallFacts, Effect, decide_call
from ..core.models import Rule, rule_label
from .lint import _FILLERS, _NICE, _PREFERRED, _fsm, _language, _witness

if TYPE_CHECKING:
    from ..policy import Policy

__all__ = ["ARGUMENT_COLUMNS", "Comparison", "candidates", "compare_arguments", "decision_rule",
           "describe_call", "find_witness", "granted_regions", "relocate", "verify_call"]

ARGUMENT_COLUMNS = ("runtime", "tool", "field", "relation", "witness", "before", "after",
                    "rule_before", "rule_after", "verified", "exact", "note")
#: How permissive each effect is (the order of ``diff.more_permissive``; diff imports this
#: module, so the ranks are spelt here too).
_RANK = {Effect.DENY: 0, Effect.IMPLICIT_DENY: 0, Effect.ASK: 1, Effect.CONDITIONAL: 2,
         Effect.ALLOW: 3}
_KINDS = ("deny", "ask", "allow")
#: Candidates tried per comparison before saying that none decides differently.
_TRIES = 12
_ANYTHING = r"(?s).*"


@dataclass
class Comparison:
    """One tool argument compared between two versions (a row of ``PolicyDiff.arguments``).

    ``relation``: ``equal`` (the same effect for every value), ``narrower`` (NEW implies OLD:
    never more permissive), ``broader`` (NEW lets through values OLD does not, never less),
    ``incomparable`` (both), ``unknown`` (not comparable exactly: see ``note``).
    ``witness``: a call NEW decides more permissively than OLD, verified through both
    versions' ``check_call`` (``before`` / ``after`` their effects, ``rule_*`` the deciding
    rules); ``reverse``: one OLD decides more permissively than NEW.
    """

    runtime: str
    tool: str
    field: str | None
    relation: str
    witness: dict[str, Any] | None = None
    before: str | None = None
    after: str | None = None
    rule_before: str = ""
    rule_after: str = ""
    verified: bool | None = None
    #: the steps that decided the witness under OLD and NEW (``mode``, ``allow-rule`` ...)
    reason_before: str = ""
    reason_after: str = ""
    exact: bool = True
    note: str = ""
    reverse: dict[str, Any] | None = None
    #: the values NEW decides more permissively (automata, most permissive first), for
    #: witnesses per agent
    region: list[Any] = default(default_factory=list, repr=False)

    def row(self) -> dict[str, Any]:
        """The table row (``ARGUMENT_COLUMNS``)."""
        return {name: getattr(self, name) for name in ARGUMENT_COLUMNS}


# -- the languages of one version ---------------------------------------------------------------

@dataclass
class _Side:
    """One version's rules on one tool argument, as automata per category."""

    deny: Any
    ask: Any
    allow: Any
    universe: Any
    mode: str
    rules: dict[str, list[str]]  # kind -> rule texts (for "what differs")
    _regions: list[tuple[Any, Effect]] | None = None

    def regions(self) -> list[tuple[Any, Effect]]:
        """(values, effect) for each category: deny, ask (not denied), allow (neither), none
        (worked out once)."""
        if self._regions is None:
            taken = self.deny.union(self.ask)
            marker = Rule(kind="none", pattern="rule")
            self._regions = [
                (self.deny, decide_call(CallFacts(deny=marker), self.mode).effect),
                (self.ask.difference(self.deny), decide_call(CallFacts(ask=marker),
                                                             self.mode).effect),
                (self.allow.difference(taken), decide_call(CallFacts(allow=marker),
                                                           self.mode).effect),
                (self.universe.difference(taken.union(self.allow)),
                 decide_call(CallFacts(), self.mode).effect)]
        return self._regions


def _languages(policy: Policy, runtime: str, tools: Sequence[str], servers: Sequence[str]
               ) -> tuple[list[dict[str, Any]], list[Rule]] | None:
    engine = policy.engines.get(runtime)
    describe = getattr(engine, "rule_languages", None)
    if engine is None or not callable(describe):
        return None
    entries = list(describe(tools, servers))
    unanalysed = [e["rule"] for e in entries if not e["channels"] and e.get("dead") is None
                  and e.get("note")]
    return entries, unanalysed


def _side(entries: Iterable[Mapping[str, Any]], tool: str, field_name: str | None,
          universe: Any, mode: str) -> _Side:
    empty = universe.difference(universe)
    found = {kind: empty for kind in _KINDS}
    texts: dict[str, list[str]] = {kind: [] for kind in _KINDS}
    for entry in entries:
        for channel in entry["channels"]:
            if channel["tool"] != tool or channel["field"] not in (None, field_name):
                continue
            if channel["field"] is None or channel.get("regex") is None:
                language = universe
            else:
                language = _language(channel["regex"], channel.get("universe"),
                                     tuple(channel.get("suffixes") or ("",)))
            kind = entry["kind"]
            found[kind] = found[kind].union(language).reduce()
            texts[kind].append(entry["rule"].text)
    return _Side(found["deny"], found["ask"], found["allow"], universe, mode, texts)


def _more(old: _Side, new: _Side) -> list[Any]:
    """The values whose effect under NEW ranks above their effect under OLD, as automata per
    pair of effects, the widest step first (empty automata left out)."""
    found = []
    for old_values, old_effect in old.regions():
        for new_values, new_effect in new.regions():
            if _RANK[new_effect] > _RANK[old_effect]:
                both = old_values.intersection(new_values)
                if not both.empty():  # the widest step first: denied before, allowed now
                    found.append((_RANK[new_effect] - _RANK[old_effect], _RANK[new_effect],
                                  both))
    return [values for *_, values in sorted(found, key=lambda f: (-f[0], -f[1]))]


# -- witnesses ---------------------------------------------------------------------------------

def candidates(region: Any, limit: int = _TRIES) -> list[str]:
    """Up to ``limit`` short strings of ``region``, the most readable first: those of its
    readable part (words separated by single spaces, as ``lint`` spells witnesses), then any."""
    out: list[str] = []
    for readable in (*_NICE, None):
        part = region if readable is None else region.intersection(_fsm(readable))
        for value in _shortest_strings(part, limit):
            if value not in out:
                out.append(value)
        if len(out) >= limit:
            break
    return out[:limit]


def _shortest_strings(fsm: Any, limit: int) -> list[str]:
    """Up to ``limit`` distinct accepted strings, shortest first: a breadth-first search that
    expands each state at most ``limit`` times (distinct paths of a deterministic automaton
    spell distinct strings), each transition spelt by its most readable character."""
    from collections import deque

    from interegular.fsm import anything_else

    def rank(c: str) -> int:
        return _PREFERRED.find(c) if c in _PREFERRED else 1000 + ord(c)

    spelling: dict[Any, str] = {}
    for key, symbols in fsm.alphabet.by_transition.items():
        chars = [c for c in symbols if c is not anything_else]
        spelling[key] = min(chars, key=rank) if chars else next(
            (c for c in _FILLERS if c not in fsm.alphabet), "\x00")
    keys = sorted(fsm.alphabet.by_transition, key=lambda k: rank(spelling[k]))
    live = _live_states(fsm)
    expanded: dict[Any, int] = {}
    found: list[str] = []
    queue = deque([(fsm.initial, "")]) if fsm.initial in live else deque()
    while queue and len(found) < limit:
        state, text = queue.popleft()
        if state in fsm.finals:
            found.append(text)
        if expanded.get(state, 0) >= limit:
            continue
        expanded[state] = expanded.get(state, 0) + 1
        for key in keys:
            target = fsm.map.get(state, {}).get(key)
            if target is not None and target in live:
                queue.append((target, text + spelling[key]))
    return found


def _live_states(fsm: Any) -> set[Any]:
    """The states from which a final state can be reached."""
    back: dict[Any, set[Any]] = {}
    for state, moves in fsm.map.items():
        for target in moves.values():
            back.setdefault(target, set()).add(state)
    live = set(fsm.finals)
    todo = list(live)
    while todo:
        for source in back.get(todo.pop(), ()):
            if source not in live:
                live.add(source)
                todo.append(source)
    return live


def _call(tool: str, field_name: str | None, value: str | None) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if field_name is not None and value is not None:
        args[field_name] = value
    return {"tool": tool, "args": args}


def _root(policy: Policy) -> str:
    return Path(policy.root).absolute().as_posix()


def relocate(args: Mapping[str, Any], source: str, target: str) -> dict[str, Any]:
    """``args`` with every path under the folder ``source`` moved under ``target`` (a call
    about NEW's project folder, asked of OLD's copy of it: a git revision, another folder).

    >>> relocate({"file_path": "/new/src/a", "n": 1}, "/new", "/old")
    {'file_path': '/old/src/a', 'n': 1}
    """
    if source == target:
        return dict(args)
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str) and (value == source or value.startswith(source + "/")):
            value = target + value[len(source):]
        out[key] = value
    return out


def verify_call(old: Policy, new: Policy, call: Mapping[str, Any], *, runtime: str | None,
                agent: str | None = None, old_agent: bool = True) -> tuple[bool, Any, Any]:
    """Whether NEW's ``check_call`` decides ``call`` more permissively than OLD's, with both
    decisions (OLD's None when ``old_agent`` is False: the agent is new, OLD grants nothing).
    Paths under NEW's folder are asked of OLD under its own folder. An engine that refuses
    the call's arguments raises its ``ValueError`` (saying why); any other error is a bug and
    propagates."""
    after = new.check_call(call["tool"], call["args"], agent=agent, runtime=runtime)
    args = relocate(call["args"], _root(new), _root(old))
    before = (old.check_call(call["tool"], args, agent=agent, runtime=runtime)
              if old_agent else None)
    before_effect = before.effect if before is not None else Effect.IMPLICIT_DENY
    return _RANK[after.effect] > _RANK[before_effect], before, after


def decision_rule(decision: Any) -> str:
    """The rule that decided a call (``text (file:line)``), else its deciding step."""
    if decision is None:
        return ""
    rule = decision.rule
    for part in decision.parts:  # a compound command: the part that decided
        if part.effect is decision.effect and part.rule.pattern:
            rule = part.rule
            break
    label = rule_label(rule) if rule.pattern else ""
    where = f" ({rule.where})" if label and rule.file else ""
    return f"{label}{where}" if label else decision.reason.value


def find_witness(old: Policy, new: Policy, regions: Sequence[Any], tool: str,
                 field_name: str | None, *, runtime: str | None, agent: str | None = None,
                 old_agent: bool = True
                 ) -> tuple[dict[str, Any] | None, Any, Any, list[str]]:
    """The first candidate of ``regions`` (in order) both versions decide differently, and
    the two decisions; else None with the candidates tried (a candidate an engine refused
    is listed with the engine's reason: ``'x' (refused: ...)``)."""
    tried: list[str] = []
    for region in regions:
        for value in candidates(region):
            call = _call(tool, field_name, value)
            try:
                ok, before, after = verify_call(old, new, call, runtime=runtime, agent=agent,
                                                old_agent=old_agent)
            except ValueError as exc:  # the engine refused these arguments: say so
                tried.append(f"{value} (refused: {exc})")
                continue
            tried.append(value)
            if ok:
                return call, before, after, tried
    return None, None, None, tried


# -- the comparison ----------------------------------------------------------------------------

def _fields(entries_old: list[dict[str, Any]], entries_new: list[dict[str, Any]], tool: str,
            policy: Policy, runtime: str) -> tuple[dict[str | None, str | None], list[str]]:
    """The arguments compared for ``tool`` (field -> universe regex) and its parameter fields."""
    fields: dict[str | None, str | None] = {}
    params: list[str] = []
    for entry in (*entries_old, *entries_new):
        for channel in entry["channels"]:
            if channel["tool"] != tool:
                continue
            name = channel["field"]
            if name is not None and name.startswith("param:"):
                params.append(name)
            elif name is not None:
                fields.setdefault(name, channel.get("universe"))
                if fields[name] is None and channel.get("universe") is not None:
                    fields[name] = channel.get("universe")
    if not fields:  # only whole-tool rules: compare over the tool's main argument
        try:
            main = next(iter(policy.call_arguments(tool, "x", runtime=runtime)), None)
        except ValueError:  # the tool has no main argument: compare over the whole call
            main = None
        fields[main] = None
    return fields, params


def _rules_of(entries: Iterable[Mapping[str, Any]], tool: str,
              fields: Iterable[str | None]) -> set[str]:
    return {f"{e['kind']} {e['rule'].text}" for e in entries for c in e["channels"]
            if c["tool"] == tool and c["field"] in set(fields)}


def _mode(policy: Policy, runtime: str, tool: str) -> str:
    try:
        return policy.check_call(tool, {}, runtime=runtime).mode or "default"
    except ValueError:  # the engine needs arguments to answer: its default mode
        return "default"


def compare_arguments(old: Policy, new: Policy) -> list[Comparison]:
    """Every tool argument whose rules differ between ``old`` and ``new``, compared exactly
    (see the module docstring); runtimes whose engine describes no rule languages get one
    ``unknown`` row when their rules differ."""
    tools = sorted(set(old.tools) | set(new.tools))
    servers = sorted(set(old.server_configs) | set(new.server_configs))
    out: list[Comparison] = []
    for runtime in dict.fromkeys([*old.engines, *new.engines]):
        a = _languages(old, runtime, tools, servers)
        b = _languages(new, runtime, tools, servers)
        if a is None or b is None:
            if _rule_texts(old, runtime) != _rule_texts(new, runtime):
                out.append(Comparison(runtime, "*", None, "unknown", exact=False,
                                      note=f"the {runtime} engine does not describe its rules "
                                           "as regular languages (or one version lacks its "
                                           "settings): not compared exactly"))
            continue
        out += _compare_runtime(old, new, runtime, a, b)
    return out


def _relocated(entries: list[dict[str, Any]], source: str, target: str
               ) -> list[dict[str, Any]]:
    """OLD's rule languages with its project folder read as NEW's (a path rule relative to the
    project means the same files in both versions)."""
    if source == target:
        return entries
    was, now = re.escape(source), re.escape(target)
    return [{**e, "channels": [{**c, "regex": c["regex"].replace(was, now)}
                               if c.get("regex") else c for c in e["channels"]]}
            for e in entries]


def granted_regions(policy: Policy, tool: str) -> list[tuple[str, str | None, list[Any]]]:
    """Per runtime and argument of ``tool``: the values ``policy``'s rules grant (allow first,
    then ask), for a witness when the other version grants the tool nothing."""
    tools = sorted(policy.tools)
    servers = sorted(policy.server_configs)
    out = []
    for runtime in policy.engines:
        found = _languages(policy, runtime, tools, servers)
        if found is None:
            continue
        entries = found[0]
        if not any(c["tool"] == tool for e in entries for c in e["channels"]):
            continue
        fields, _ = _fields(entries, [], tool, policy, runtime)
        for name, universe in fields.items():
            side = _side(entries, tool, name, _fsm(universe or _ANYTHING),
                         _mode(policy, runtime, tool))
            ranked = sorted(((_RANK[effect], values) for values, effect in side.regions()
                             if _RANK[effect] > 0 and not values.empty()),
                            key=lambda pair: -pair[0])
            if ranked:
                out.append((runtime, name, [values for _, values in ranked]))
    return out


def _rule_texts(policy: Policy, runtime: str) -> list[tuple[str, str]]:
    engine = policy.engines.get(runtime)
    if engine is None:
        return []
    frame = engine.frame(policy.definitions.agents.values())
    # str() of each value: pandas 3's astype(str) keeps a missing kind (a disabled Gemini
    # CLI workspace policy's) as NaN, which does not sort among strings
    return sorted((str(kind), str(text)) for kind, text in
                  zip(frame["kind"].tolist(), frame["text"].tolist(), strict=True))


def _compare_runtime(old: Policy, new: Policy, runtime: str,
                     a: tuple[list[dict[str, Any]], list[Rule]],
                     b: tuple[list[dict[str, Any]], list[Rule]]) -> list[Comparison]:
    (old_entries, old_skipped), (new_entries, new_skipped) = a, b
    old_entries = _relocated(old_entries, _root(old), _root(new))
    unanalysed = sorted({r.text for r in old_skipped} ^ {r.text for r in new_skipped})
    out = []
    tools = sorted({c["tool"] for e in (*old_entries, *new_entries) for c in e["channels"]})
    for tool in tools:
        fields, params = _fields(old_entries, new_entries, tool, new, runtime)
        param_rules = (_rules_of(old_entries, tool, params), _rules_of(new_entries, tool, params))
        for name, universe_regex in fields.items():
            scope: list[str | None] = [name, None]
            if _rules_of(old_entries, tool, scope) == _rules_of(new_entries, tool, scope) and \
                    param_rules[0] == param_rules[1]:
                continue
            universe = _fsm(universe_regex or _ANYTHING)
            old_side = _side(old_entries, tool, name, universe, _mode(old, runtime, tool))
            new_side = _side(new_entries, tool, name, universe, _mode(new, runtime, tool))
            out.append(_compare(old, new, runtime, tool, name, old_side, new_side,
                                param_rules, unanalysed))
    return out


def _compare(old: Policy, new: Policy, runtime: str, tool: str, name: str | None,
             old_side: _Side, new_side: _Side, params: tuple[set[str], set[str]],
             unanalysed: list[str]) -> Comparison:
    more, less = _more(old_side, new_side), _more(new_side, old_side)
    grows, shrinks = bool(more), bool(less)
    relation = {(False, False): "equal", (False, True): "narrower", (True, False): "broader",
                (True, True): "incomparable"}[(grows, shrinks)]
    notes = []
    exact = True
    if params[0] != params[1]:
        exact = False
        changed = sorted(params[0] ^ params[1])
        notes.append("parameter rules differ (" + ", ".join(changed) + "): calls setting "
                     "those parameters are not compared")
    if unanalysed:
        exact = False
        notes.append("rules not analysed as languages differ: " + ", ".join(unanalysed))
    result = Comparison(runtime, tool, name, relation if exact else "unknown", exact=exact,
                        region=more)
    if grows:
        call, before, after, tried = find_witness(old, new, more, tool, name, runtime=runtime)
        if call is not None:
            result.witness, result.verified = call, True
            result.before, result.after = before.effect.value, after.effect.value
            result.rule_before, result.rule_after = decision_rule(before), decision_rule(after)
            result.reason_before, result.reason_after = before.reason.value, after.reason.value
        else:
            result.verified = False
            shown = ", ".join(repr(v) for v in tried[:3])
            refused = any(" (refused: " in v for v in tried)
            notes.append(f"NEW's rules match values OLD's do not ({shown}), but check_call "
                         + ("refused some candidates and " if refused else "")
                         + "decides each candidate it answered alike in both versions (the "
                         "engine decides them by more than the rules: read-only commands, "
                         "working directories, compound commands)" if tried else
                         "no readable value of the difference was found")
    if shrinks:
        result.reverse = _call(tool, name, _witness(less[0]))
    if not grows and exact:
        notes.insert(0, "NEW implies OLD: every value NEW's rules allow, OLD's allow too"
                     if shrinks else "the same effect for every value")
    result.note = "; ".join(notes)
    return result


def describe_call(call: Mapping[str, Any] | None) -> str:
    """``Bash 'npm run a'``: a witness call on one line."""
    if not call:
        return ""
    args = call.get("args") or {}
    if len(args) == 1:
        return f"{call['tool']} {next(iter(args.values()))!r}"
    return f"{call['tool']} {dict(args)!r}" if args else str(call["tool"])
