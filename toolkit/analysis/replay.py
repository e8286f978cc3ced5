"""Replay: what did agents really do, and what would the policy say about it now?

``tk.replay(proj, source)`` reads logged calls (:mod:`toolkit.analysis.transcripts`)
and asks the project about each one, through the project's own decision
functions — ``proj.explain`` for the tool an agent called (with the request's
groups and state, and for a spawned session its parent's lineage), or, when
the project has Claude Code's argument-level engine, ``proj.check_call`` for
the call with its arguments. Replay never decides allow or deny itself.

Each distinct question is asked once — (agent, tool, groups, state, lineage),
plus the arguments when they matter — and the answers are mapped back onto
the rows with integer codes, so a million logged calls cost a few thousand
decisions and some numpy indexing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core.decision import Decision, Effect
from ..core.models import DEFAULT_GROUPS, DEFAULT_STATE, NO_RULE, Rule, groups_label, rule_label
from ..core.resolve import Lineage
from ..errors import UnknownAgentError
from ..systems import registry
from .replay_names import Coded, NameLevel
from .transcripts import EXECUTED, MAIN, CallLog, SessionInfo, executed, read_calls

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ..policy import Policy

__all__ = ["EXECUTED", "MAIN", "Replay", "evaluate", "executed", "mapped", "replay", "rule_label"]

#: The columns of ``Replay.calls``.
CALL_COLUMNS = ("time", "session", "agent", "tool", "args", "effect", "reason", "rule", "file",
                "line", "observed", "groups", "state", "canonical", "source")
_NOT_ALLOWED = (Effect.ASK.value, Effect.DENY.value, Effect.IMPLICIT_DENY.value)
RULE_COLUMNS = ("agent", "kind", "rule", "layer", "file", "line", "hits", "decisive", "status")


@dataclass(frozen=True)
class _Outcome:
    """One distinct question's answer: the decision's effect, step and rule."""

    effect: str | None  # None: not evaluated (an agent the project does not define)
    reason: str
    rule: Rule
    canonical: str | None
    next_state: str | None  # the state a successful call moves its session to
    #: under the engine: rules that decided a part of a compound command (besides ``rule``)
    parts: tuple[Rule, ...] = ()
    #: under the engine: every rule the call matched, deciding or not (its trace's rules)
    matched: tuple[Rule, ...] = ()


def replay(proj: Policy, source: Any, preset: str | None = None, *, main: str | None = None,
           mode: str | None = None, arguments: bool | None = None,
           runtime: str | None = None) -> Replay:
    """Evaluate logged tool calls against ``proj``'s policy.

    ``source``: a Claude Code transcript ``.jsonl``, a folder of them (a project
    folder or the whole ``~/.claude/projects`` tree, subagents included), a
    toolkit audit ``.jsonl``, or a call table (``.jsonl``, ``.csv`` or a
    DataFrame with ``agent``, ``tool``, ``args`` columns). ``preset``: evaluate
    under another preset. ``main``: the agent the main conversation's calls are
    evaluated as (as ``claude --agent NAME`` would run it); without it they are
    evaluated only by Claude Code's argument-level engine, when the project has
    one. ``mode``: the permission mode for that engine. ``arguments``: use the
    engine (True), never (False), or when the project has one (None). ``runtime``: whose
    permission engine judges the calls when the project holds several runtimes' settings
    (``proj.runtimes``); None: the runtime whose session logs ``source`` holds (Gemini
    CLI, Codex and OpenCode sessions are read too), else the project's default.

    >>> import pandas as pd
    >>> import toolkit as tk
    >>> calls = pd.DataFrame({"agent": ["debugger", "debugger", "code-reviewer"],
    ...                       "tool": ["Bash", "Write", "Read"]})
    >>> rp = tk.replay(tk.load("toolkit/examples/claude-code"), calls)
    >>> rp.calls[["agent", "tool", "effect"]].values.tolist()
    [['debugger', 'Bash', 'ask'], ['debugger', 'Write', 'explicit-deny'],
     ['code-reviewer', 'Read', 'allow']]
    >>> rp.rules.query("status == 'used'")[["agent", "kind", "rule"]].values.tolist()
    [['code-reviewer', 'allow', 'Read'], ['debugger', 'allow', 'Bash'],
     ['debugger', 'deny', 'Write']]
    >>> len(rp.regressions), len(rp.problems)
    (0, 0)
    """
    return evaluate(proj, read_calls(source), preset=preset, main=main, mode=mode,
                    arguments=arguments, runtime=runtime,
                    source=str(source) if isinstance(source, str)
                    else getattr(source, "name", None) or type(source).__name__)


def evaluate(proj: Policy, log: CallLog, *, preset: str | None = None, main: str | None = None,
             mode: str | None = None, arguments: bool | None = None,
             runtime: str | None = None, source: str = "") -> Replay:
    """:func:`replay` of calls already read."""
    if main is not None:
        proj.agent(main)  # an unknown name is an UnknownAgentError listing the agents
    evaluator = _Evaluator(proj, log, preset, main, mode, _engine(proj, arguments, runtime, log))
    return evaluator.run(source)


def _engine(proj: Policy, arguments: bool | None, runtime: str | None = None,
            log: CallLog | None = None) -> Callable[..., Decision] | None:
    """The argument-level ``check_call`` (of ``runtime``'s engine when given, else of the
    runtime whose transcripts ``log`` holds), when the project has it and it is wanted.

    By default (``arguments=None``) it is used for a project whose runtime settings were
    read (``proj.engine``), or when ``runtime`` is named; never for the others.
    """
    check = getattr(proj, "check_call", None)
    if arguments is False or not callable(check):
        return None
    if runtime is not None:
        proj.runtime_names([runtime])  # ValueError: a runtime without a permission engine
        return functools.partial(check, runtime=runtime)
    if arguments is None and getattr(proj, "engine", None) is None:
        return None
    logged = _logged_runtime(log) if log is not None else None
    if logged is not None:  # a Codex rollout is judged by Codex's engine, and so on
        return functools.partial(check, runtime=logged)
    return check  # type: ignore[no-any-return]


def _logged_runtime(log: CallLog) -> str | None:
    """The runtime whose transcripts the log holds (None: none, or only toolkit's own logs
    and call tables); ``ValueError`` when it holds several runtimes' transcripts."""
    runtimes = sorted(log.kinds & {s.name for s in registry.SYSTEMS if s.empty_engine})
    if len(runtimes) > 1:
        raise ValueError(f"the log holds transcripts of several runtimes ({', '.join(runtimes)})"
                         "; replay each runtime's sessions on their own, or pass runtime= "
                         "(--runtime) to judge every call by one runtime's engine")
    return runtimes[0] if runtimes else None


class _Evaluator:
    """Asks the project once per distinct question; maps the answers onto the rows."""

    def __init__(self, proj: Policy, log: CallLog, preset: str | None, main: str | None,
                 mode: str | None, engine: Callable[..., Decision] | None) -> None:
        self.proj = proj
        self.log = log
        self.preset = preset
        self.main = main
        self.mode = mode
        self.engine = engine
        self.cache: dict[tuple[Any, ...], _Outcome] = {}
        self.lineages: dict[str, Lineage | None] = {}
        self.notes: dict[str, None] = {}
        self.groups_of: dict[str, tuple[str, ...] | None] = {"": None}
        self.reaches: dict[tuple[str, Rule], frozenset[str]] = {}

    # -- one question ------------------------------------------------------------------------

    def outcome(self, key: tuple[Any, ...], args: Mapping[str, Any] | None = None) -> _Outcome:
        """The answer for ``(agent, tool, groups key, state, parent session, cwd, args key)``."""
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._ask(key, args or {})
        return found

    def _ask(self, key: tuple[Any, ...], args: Mapping[str, Any]) -> _Outcome:
        agent, tool, groups_key, state, parent, cwd = key[:6]
        as_agent = self.main if agent == MAIN else agent
        try:
            if self.engine is not None:
                d = self.engine(tool, dict(args), agent=as_agent, mode=self.mode,
                                cwd=cwd or None)
                self.notes.update(dict.fromkeys(d.warnings))
                return replace(self._outcome(d.effect.value, d.reason.value, d.rule,
                                             d.canonical),
                               parts=_part_rules(d), matched=_matched_rules(d))
            if as_agent is None:
                return self._not_evaluated(MAIN)
            verdict, rule, canonical = self.names.answer(
                as_agent, tool, self.groups_of[groups_key], state, parent,
                self._lineage(parent))
        except UnknownAgentError as exc:
            self.notes[f"calls of agent {agent!r} were not evaluated: {exc}"] = None
            return _Outcome(None, "agent", NO_RULE, None, None)
        return self._outcome(verdict.effect.value, verdict.reason.value, rule, canonical)

    def _outcome(self, effect: str, reason: str, rule: Rule, canonical: str | None
                 ) -> _Outcome:
        tool_def = self.proj.tools.get(canonical) if canonical else None
        return _Outcome(effect, reason, rule, canonical,
                        tool_def.state if tool_def is not None else None)

    def _lineage(self, parent: str) -> Lineage | None:
        """The lineage a spawned session was resolved under (its parent's, rebuilt)."""
        if not parent:
            return None
        if parent not in self.lineages:
            self.lineages[parent] = None  # a cycle in a damaged log ends here
            self.lineages[parent] = self._build_lineage(parent)
        return self.lineages[parent]

    def _build_lineage(self, parent: str) -> Lineage | None:
        info = self.log.sessions.get(parent)
        if info is None:
            return None
        grand = self._lineage(info.parent or "")
        spawn_state = self._spawn_state(parent)
        resolution = self.proj.resolve(info.agent, groups=info.groups, state=spawn_state,
                                       parent=grand, preset=self.preset)
        ancestors = (*(grand.ancestors if grand else ()), resolution.grant.agent)
        return Lineage(id=parent, depth=resolution.depth, ancestors=ancestors,
                       ceiling=resolution.allowed, groups=resolution.groups,
                       state=resolution.state, max_depth=resolution.grant.max_depth)

    def _spawn_state(self, parent: str) -> str | None:
        """The parent's state when it spawned (the last spawn of its children wins)."""
        states = [s.parent_state for s in self.log.sessions.values() if s.parent == parent]
        info = self.log.sessions[parent]
        return next((s for s in reversed(states) if s), info.state)

    # -- every row ----------------------------------------------------------------------------

    def run(self, source: str) -> Replay:
        import numpy as np

        frame = self.log.frame()

        def column(name: str) -> Any:
            return frame[name].to_numpy(dtype=object)

        main = self.main or MAIN
        agents = Coded.of(column("agent"), lambda a: main if a is None else str(a))
        groups = Coded.of(column("groups"))
        group_keys = groups.map(self._groups_key)
        parents = Coded.of(column("session"), self._parent_of).values
        tools = Coded.of(column("tool"))
        self.names = self._name_level(agents, group_keys, parents, column("state"))
        states = Coded.of(self._follow_states(frame, agents.values, group_keys.values, parents))
        vectorised = (parents == "") if self.engine is None else np.zeros(len(frame), bool)
        row_code, keys, outcomes = self._roots(vectorised, agents, tools, group_keys, states)
        rest = np.flatnonzero(~vectorised)
        if len(rest):
            args_keys = _args_keys(frame["args"]) if self.engine is not None else None
            cwds = (Coded.of(column("cwd"), lambda c: c if isinstance(c, str) else "").values
                    if self.engine is not None else None)
            codes, more = _distinct([c[rest] if c is not None else None for c in (
                agents.values, tools.values, group_keys.values, states.values, parents, cwds,
                args_keys)])
            args_of = {} if self.engine is None else _first_args(codes, frame["args"].iloc[rest])
            row_code[rest] = codes + len(keys)
            outcomes += [self.outcome(k, args_of.get(i)) for i, k in enumerate(more)]
            keys += more
        counts = np.bincount(row_code, minlength=len(keys)) if len(keys) else np.zeros(0, int)
        self.notes.update(self.names.notes)
        calls = _calls_frame(frame, agents, groups, states, row_code, outcomes)
        return Replay(calls=calls, rules=self._rules(keys, outcomes, counts),
                      problems=self.log.problems, warnings=list(self.notes), source=source,
                      project=self.proj, engine=self.engine is not None)

    def _roots(self, mask: Any, agents: Coded, tools: Coded, groups: Coded, states: Coded
               ) -> tuple[Any, list[tuple[Any, ...]], list[_Outcome]]:
        """Root sessions' calls at once (:meth:`NameLevel.classify`); their rows' codes."""
        import numpy as np

        row_code = np.zeros(len(mask), dtype=np.int64)
        index = np.flatnonzero(mask)
        if not len(index):
            return row_code, [], []
        classes, keys, answers = self.names.classify(
            agents.take(index), tools.take(index), groups.take(index), states.take(index),
            self.groups_of.get)
        row_code[index] = classes
        outcomes = []
        for key, (verdict, rule, canonical) in zip(keys, answers, strict=True):
            if verdict is None or rule is None:
                outcomes.append(self._not_evaluated(key[0]))
            else:
                outcomes.append(self._outcome(verdict.effect.value, verdict.reason.value, rule,
                                              canonical))
        return row_code, keys, outcomes

    def _not_evaluated(self, agent: str) -> _Outcome:
        """A call of an agent the project does not define (or of the main conversation)."""
        if agent == MAIN:
            self.notes["calls of the main conversation were not evaluated: the project "
                       "defines no agent for it; pass main=AGENT to evaluate them as that "
                       "agent (as claude --agent AGENT runs it)"] = None
        else:
            known = ", ".join(sorted(self.proj.agents)) or "(none)"
            self.notes[f"calls of agent {agent!r} were not evaluated: unknown agent "
                       f"{agent!r}; known agents: {known}"] = None
        return _Outcome(None, "agent", NO_RULE, None, None)

    def _name_level(self, agents: Coded, groups: Coded, parents: Any, states: Any
                    ) -> NameLevel:
        """The name-level answers for the agents, group sets and states of this log."""
        import numpy as np
        import pandas as pd

        used = np.flatnonzero(np.bincount(agents.codes[parents == ""],
                                          minlength=len(agents.uniques)))
        roots = {str(agents.uniques[c]) for c in used.tolist()} - {MAIN}
        logged = {s for s in pd.unique(states) if isinstance(s, str) and s}
        group_sets = [self.groups_of[g] or DEFAULT_GROUPS for g in dict.fromkeys(
            groups.uniques.tolist())]
        asked = {g for key in groups.uniques.tolist() for g in (self.groups_of[key] or ())}
        return NameLevel(self.proj, self.preset, sorted(roots), group_sets,
                         [*self.proj.states, *sorted(logged)], asked_groups=asked)

    def _groups_key(self, groups: Any) -> str:
        if groups is None or (isinstance(groups, float) and groups != groups):
            return ""
        groups = tuple(groups)
        key = "\x1f".join(groups) if groups else "\x1e"
        self.groups_of[key] = groups
        return key

    def _parent_of(self, session: Any) -> str:
        """A session's parent session (its lineage), "" for a root or an unknown session."""
        info: SessionInfo | None = self.log.sessions.get(session) if isinstance(
            session, str) else None
        return (info.parent or "") if info else ""

    def _follow_states(self, frame: pd.DataFrame, agents: Any, groups: Any, parents: Any
                       ) -> Any:
        """The state each call was made in: logged, or followed as a live session would.

        Only needed when some pool tool moves a workflow to a state and the log
        does not say the state: then each session starts ``undefined`` and, after
        a call the policy allows now and that did not fail, moves to the tool's
        ``state`` (what ``Session.call`` does). Sessions are walked in log order.
        """
        logged = mapped(frame["state"].to_numpy(dtype=object),
                        lambda s: s if isinstance(s, str) and s else "")
        stateful = any(t.state for t in self.proj.tools.values())
        if not stateful or all(logged) or self.engine is not None:
            return logged
        current: dict[Any, str] = {}
        out = logged.copy()
        tools, observed = frame["tool"].tolist(), frame["observed"].tolist()
        for i, session in enumerate(frame["session"].tolist()):
            state = logged[i] or current.get(session, DEFAULT_STATE)
            out[i] = state
            result = self.outcome((agents[i], tools[i], groups[i], state, parents[i], "", ""))
            current[session] = state
            if (result.effect is not None and result.next_state
                    and Effect(result.effect).granted and observed[i] != "error"):
                current[session] = result.next_state
        return out

    # -- rule statistics ----------------------------------------------------------------------

    def _rules(self, keys: list[tuple[Any, ...]], outcomes: list[_Outcome],
               counts: np.ndarray[Any, Any]) -> pd.DataFrame:
        import pandas as pd

        by_agent: dict[str, dict[str, int]] = {}  # agent -> canonical tool -> calls
        decisive: dict[tuple[Any, ...], int] = {}  # a rule's (file, line, kind, text) -> calls
        reached: dict[tuple[Any, ...], int] = {}  # the calls it matched, deciding or not
        for key, out, count in zip(keys, outcomes, counts.tolist(), strict=True):
            if out.effect is None:
                continue
            agent = self.main if key[0] == MAIN else key[0]
            if out.canonical is not None and agent is not None:
                tools = by_agent.setdefault(agent, {})
                tools[out.canonical] = tools.get(out.canonical, 0) + count
            deciders = [out.rule] if out.rule.kind != "none" else []
            if self.engine is not None and agent is not None:
                deciders += self._gate(agent, out)
            deciders += out.parts
            for spot in dict.fromkeys(map(_spot, deciders)):
                decisive[spot] = decisive.get(spot, 0) + count
            for spot in dict.fromkeys(map(_spot, (*deciders, *out.matched))):
                reached[spot] = reached.get(spot, 0) + count
        rows = [self._rule_row(owner, rule, by_agent, decisive)
                for owner, rule in self._listed_rules()]
        rows += self._permission_rows(decisive, reached)
        return pd.DataFrame(rows, columns=list(RULE_COLUMNS))

    def _gate(self, agent: str, out: _Outcome) -> list[Rule]:
        """Under the engine: the subagent's ``tools`` entry that let the call through.

        The engine decides a call on the settings rules and the mode once the
        agent's front matter holds the tool; which entry holds it is what the
        agent's grant says (the name-level decision).
        """
        if out.reason == "agent-tools" or out.canonical is None or agent not in self.proj.agents:
            return []
        rule = self.proj.grant(agent, self.preset).allowed.get(out.canonical)
        return [rule] if rule is not None and rule.kind != "none" else []

    def _listed_rules(self) -> list[tuple[str | None, Rule]]:
        """Every allow, deny and ask rule of the agents, then the project's."""
        out: list[tuple[str | None, Rule]] = []
        for name, agent in self.proj.agents.items():
            out += [(name, r) for r in (*(agent.allow or ()), *agent.deny, *agent.ask)]
        defs = self.proj.definitions
        out += [(None, r) for r in (*defs.project_deny, *defs.project_ask)]
        return out

    def _rule_row(self, owner: str | None, rule: Rule, by_agent: Mapping[str, Mapping[str, int]],
                  decisive: Mapping[tuple[Any, ...], int]) -> dict[str, Any]:
        owners = [owner] if owner is not None else list(by_agent)
        hits = 0
        for agent in owners:
            calls = by_agent.get(agent)
            if calls:
                reach = self._reach(agent, rule)
                hits += sum(n for tool, n in calls.items() if tool in reach)
        won = decisive.get(_spot(rule), 0)
        hits = max(hits, won)  # an ancestor's rule decides its descendants' calls too
        status = "used" if won else ("dead" if hits == 0 else "shadowed")
        return {"agent": owner, "kind": rule.kind, "rule": rule_label(rule), "layer": rule.layer,
                "file": rule.file, "line": rule.line, "hits": hits, "decisive": won,
                "status": status}

    def _reach(self, agent: str, rule: Rule) -> frozenset[str]:
        """The canonical tools ``rule`` names for ``agent`` (globs over every spelling,
        exact names through the agent's aliases), as the agent's grant reads them."""
        key = (agent, rule)
        cache = self.reaches
        if key not in cache:
            grant = self.proj.grant(agent, self.preset)
            pattern = str(rule.pattern)
            if rule.is_glob:
                cache[key] = grant.pool.index.glob(pattern)
            else:
                found = grant.canonical(pattern)
                cache[key] = frozenset((found,)) if found else frozenset()
        return cache[key]

    def _permission_rows(self, decisive: Mapping[tuple[Any, ...], int],
                         reached: Mapping[tuple[Any, ...], int]) -> list[dict[str, Any]]:
        """Settings permission rules (the engine's): hits = the calls they matched, decisive =
        the calls (or parts of a compound command) they decided; a rule calls matched but
        another rule always decided is ``shadowed``, one no call matched ``dead``.

        (A subagent's front-matter rules are listed with the agents' rules.)
        """
        table = getattr(self.proj, "permissions", None) if self.engine is not None else None
        if table is None or len(table) == 0:
            return []
        rows = []
        for record in table.to_dict("records"):
            if record.get("layer") == "agent":
                continue
            spot = (record.get("file"), record.get("line"), record.get("kind"),
                    record.get("text"))
            n = decisive.get(spot, 0)
            hits = max(reached.get(spot, 0), n)
            rows.append({"agent": None, "kind": record.get("kind"), "rule": record.get("text"),
                         "layer": record.get("layer"), "file": record.get("file"),
                         "line": record.get("line"), "hits": hits, "decisive": n,
                         "status": "used" if n else ("shadowed" if hits else "dead")})
        return rows


def _part_rules(d: Decision) -> tuple[Rule, ...]:
    """The rules that decided the parts of a compound command."""
    return tuple(p.rule for p in d.parts if p.rule.kind != "none")


def _matched_rules(d: Decision) -> tuple[Rule, ...]:
    """Every rule a step of the decision's trace (or a part's) names: the rules it matched."""
    steps = (*d.trace, *(s for p in d.parts for s in p.trace))
    return tuple(dict.fromkeys(s.rule for s in steps if s.rule.kind != "none"))


def _spot(rule: Rule) -> tuple[Any, ...]:
    """A rule's identity across the name level and the engine: where it is, what it says."""
    return (rule.file, rule.line, rule.kind, rule_label(rule))


def _args_keys(args: Any) -> Any:
    import numpy as np

    return np.array([json.dumps(a, sort_keys=True, default=str) if a else "" for a in args]
                    + [""], dtype=object)[:-1]


def _first_args(row_code: Any, args: Any) -> dict[int, Any]:
    """The arguments of the first row of each distinct question."""
    out: dict[int, Any] = {}
    for code, value in zip(row_code.tolist(), args, strict=True):
        out.setdefault(code, value)
    return out


def _distinct(columns: list[Any]) -> tuple[Any, list[tuple[Any, ...]]]:
    """(row -> key code, the distinct keys in order of first appearance), column-wise."""
    import numpy as np
    import pandas as pd

    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.intp), []
    combined = np.zeros(n, dtype=np.int64)
    uniques = []
    radix = 1
    for values in columns:
        if values is None:  # a column that does not vary (no arguments asked): one value
            uniques.append(np.asarray([""], dtype=object))
            continue
        codes, found = pd.factorize(np.asarray(values, dtype=object))
        uniques.append(found)
        if radix * max(len(found), 1) >= 2**62:
            raise OverflowError("too many distinct values to replay at once")
        combined += codes.astype(np.int64) * radix
        radix *= max(len(found), 1)
    row_code, firsts = pd.factorize(combined)
    keys = []
    sizes = [max(len(u), 1) for u in uniques]
    for value in firsts.tolist():
        key = []
        for found, size in zip(uniques, sizes, strict=True):
            key.append(found[value % size])
            value //= size
        keys.append(tuple(key))
    return row_code, keys


def _categorical(values: list[Any], row_code: Any) -> Any:
    """``values`` (one per distinct key) spread over the rows, as a categorical."""
    import numpy as np
    import pandas as pd

    codes, categories = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    spread = codes[row_code] if len(codes) else np.zeros(0, dtype=np.intp)
    return pd.Categorical.from_codes(spread, categories=pd.Index(list(categories)))


def _calls_frame(frame: pd.DataFrame, agents: Coded, groups: Coded, states: Coded,
                 row_code: Any, outcomes: list[_Outcome]) -> pd.DataFrame:
    import pandas as pd

    lines = pd.array([o.rule.line if o.rule.kind != "none" else None for o in outcomes],
                     dtype="Int64")
    return pd.DataFrame({
        "time": frame["time"],
        "session": frame["session"],
        "agent": agents.categorical(),
        "tool": frame["tool"],
        "args": frame["args"],
        "effect": _categorical([o.effect for o in outcomes], row_code),
        "reason": _categorical([o.reason for o in outcomes], row_code),
        "rule": _categorical([rule_label(o.rule) or None for o in outcomes], row_code),
        "file": _categorical([o.rule.file if o.rule.kind != "none" else None
                              for o in outcomes], row_code),
        "line": lines.take(row_code) if len(outcomes) else pd.array([], dtype="Int64"),
        "observed": frame["observed"],
        "groups": groups.map(lambda g: None if g is None else groups_label(tuple(g))).values,
        "state": states.map(lambda v: v or None).values,
        "canonical": _categorical([o.canonical for o in outcomes], row_code),
        "source": frame["source"],
    })


def mapped(values: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert`` of each distinct value of an object array, spread back over its rows.

    pandas' missing values (None, NaN) reach ``convert`` as None.
    """
    return Coded.of(values, convert).values


class Replay:
    """What ``tk.replay`` found: every call with its effect now, rule statistics, problems.

    - ``calls``: one row per logged call: time, session, agent, tool, args, effect
      (now), reason (the deciding step), rule, file, line (the deciding rule),
      observed (``ran`` / ``denied`` / ``error`` / None: what the log says happened),
      groups, state (the request's), canonical (the pool name), source (the log's
      ``file:line``);
    - ``rules``: one row per rule: hits (calls it matched), decisive (calls it
      decided), status ``used`` | ``dead`` (matched no call) | ``shadowed``
      (matched, but another rule always decided first);
    - ``regressions``: calls that ran then and would not be allowed now (ask or deny);
    - ``newly_allowed``: calls denied then that would be allowed now;
    - ``problems``: log lines that could not be read (file, line, message);
    - ``suggest()``: the least-privilege allow rules covering every call that ran.
    """

    def __init__(self, *, calls: pd.DataFrame, rules: pd.DataFrame, problems: list[Any],
                 warnings: list[str], source: str, project: Policy, engine: bool) -> None:
        import pandas as pd

        self.calls = calls
        self.rules = rules
        self.problems = pd.DataFrame([{"file": p.file, "line": p.line, "message": p.message}
                                      for p in problems], columns=["file", "line", "message"])
        self._problem_lines = [str(p) for p in problems]
        self.warnings = warnings
        self.source = source
        self.project = project
        #: whether Claude Code's argument-level engine (``check_call``) decided
        self.arguments = engine

    @property
    def regressions(self) -> pd.DataFrame:
        """Calls that ran then (observed ``ran`` or ``error``: :func:`executed`) and that the
        policy would not allow now (it asks or denies).

        ``conditional`` (a name-level answer for a tool whose argument rules decide
        each call) is neither: replay with the argument-level engine to know.
        """
        calls = self.calls
        effect = calls["effect"].astype(object)
        return calls[executed(calls["observed"]) & effect.isin(_NOT_ALLOWED)]

    @property
    def newly_allowed(self) -> pd.DataFrame:
        """Calls that were denied then and that the policy would allow now."""
        calls = self.calls
        return calls[(calls["observed"] == "denied")
                     & (calls["effect"].astype(object) == Effect.ALLOW.value)]

    def suggest(self) -> pd.DataFrame:
        """Least privilege: per agent, the fewest allow rules covering every call that ran.

        One row per rule (agent, field, rule, change, covers): ``field`` says
        where the rule goes in the agent's own format (``tools``,
        ``permissions.allow``, ``tools.available``, ...); ``change`` is ``keep``
        (today's rule, still needed), ``add`` or ``remove`` (today's rule, no
        logged call needs it); ``covers`` counts the calls it covers. Shell
        commands become command-prefix rules (``Bash(npm run *)``) where several
        were seen with one prefix.
        """
        from .suggest import suggest

        return suggest(self.project, self.calls)

    def problem_lines(self) -> list[str]:
        """Each unreadable log line as ``file:line: message``."""
        return list(self._problem_lines)

    def summary(self) -> str:
        """A few lines: how many calls, their effects now, what changed, which rules are idle."""
        calls = self.calls
        effects = calls["effect"].astype(object).fillna("not evaluated").value_counts()
        observed = calls["observed"].astype(object).fillna("unknown").value_counts()
        status: Any = self.rules["status"].value_counts() if len(self.rules) else {}
        sessions = calls["session"].nunique()
        lines = [
            f"replayed {len(calls)} call(s)" + (f" in {sessions} session(s)" if sessions else "")
            + f" from {self.source or 'the log'}",
            "  now:  " + ", ".join(f"{k} {v}" for k, v in effects.items()),
            "  then: " + ", ".join(f"{k} {v}" for k, v in observed.items()),
            f"  {len(self.regressions)} regression(s) (ran then, not allowed now); "
            f"{len(self.newly_allowed)} newly allowed (denied then, allowed now)",
            f"  rules: {status.get('used', 0)} used, {status.get('dead', 0)} dead, "
            f"{status.get('shadowed', 0)} shadowed",
        ]
        if len(self.problems):
            lines.append(f"  {len(self.problems)} unreadable line(s): see .problems")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Replay {len(self.calls)} calls, {len(self.regressions)} regressions>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from ..core.display import html

        return {"text/plain": self.summary(), "text/html": html(self)}
