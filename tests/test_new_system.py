"""A new agent system is one package plus one row in the registry: nothing else changes.

"toybox" is a made-up runtime defined in this file alone: agents in
``.toybox/agents/*.yaml`` (a ``tools`` list), permission rules in ``.toybox/rules.yaml``
(``deny`` / ``ask`` / ``allow`` entries ``tool`` or ``tool(glob over the command)``), two
built-in tools (``run``, ``look``) and its own preset. Registered with
``registry.register``, it answers ``explain``, the matrix, ``check_call`` and
``toolmatrix why`` like the shipped systems, through the same decision
(``decide_call``) and the same views.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import toolkit as tk
from toolkit.cli import main
from toolkit.core.decision import CallFacts, Decision, Effect, decide_call
from toolkit.core.models import NO_RULE, AgentDefinition, Rule, ServerConfig, Tool
from toolkit.core.presets import Preset
from toolkit.errors import Problem
from toolkit.systems import registry
from toolkit.systems.base.definitions import Definitions
from toolkit.systems.base.engine import EngineDefaults
from toolkit.systems.base.formats import Format
from toolkit.systems.base.source import SourceFile
from toolkit.systems.base.system import Layout, System

_ENTRY = re.compile(r"^([a-z_]+)(?:\((.*)\))?$")
RULES_FILE = ".toybox/rules.yaml"


def _load_agent(file: SourceFile, defs: Definitions) -> None:
    data, src = file.data, file.located
    name = str(data.get("name", file.agent_name))
    allow = tuple(Rule(kind="allow", pattern=str(tool), agent=name, file=src.file,
                       line=src.line(("tools", i))) for i, tool in enumerate(data["tools"]))
    defs.add_agent(AgentDefinition(name=name, format="toybox", file=src.file,
                                   line=src.line(("name",)), allow=allow))


def _ignore(file: SourceFile, defs: Definitions) -> None:
    """The rules file is the engine's (as Claude Code's settings are), not a definition."""


def _add_builtins(defs: Definitions) -> None:
    for name in ("run", "look"):
        defs.tools.setdefault(name, Tool(name=name, description=f"toybox {name}",
                                         source="native", file="<toybox built-in>"))


class ToyEngine(EngineDefaults):
    """toybox's permission engine: the first matching rule of each kind, then decide_call
    (conditional, approvals and gaps: EngineDefaults')."""

    system = "toybox"

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules

    @property
    def problems(self) -> tuple[Problem, ...]:
        return ()

    def _first(self, kind: str, tool: str, command: str) -> Rule | None:
        return next((r for r in self.rules if r.kind == kind and r.pattern == tool
                     and (r.spec is None or fnmatchcase(command, r.spec))), None)

    def check_call(self, tool: str, args: Mapping[str, Any] | None,
                   definition: AgentDefinition | None, *, mode: str | None, cwd: str | None,
                   hook: Any, known: Callable[[str], bool]) -> Decision:
        command = str((args or {}).get("cmd", ""))
        facts = CallFacts(deny=self._first("deny", tool, command),
                          ask=self._first("ask", tool, command),
                          allow=self._first("allow", tool, command), what=f"{tool} {command}")
        verdict = decide_call(facts, mode or "default")
        return Decision(agent=definition.name if definition else "(main)", tool=tool,
                        canonical=tool, effect=verdict.effect, reason=verdict.reason,
                        message=verdict.message, rule=verdict.rule or NO_RULE,
                        question="call", mode=mode or "default", cwd=cwd or "")

    def call_arguments(self, tool: str, text: str) -> dict[str, Any]:
        return {"cmd": text}

    def name_rules(self, kind: str, known: Callable[[str], bool],
                   servers: Mapping[str, ServerConfig]) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.kind == kind and r.spec is None)

    def argument_rules(self, definition: AgentDefinition | None,
                       lookup: Callable[[str], str | None]) -> dict[str, tuple[Any, ...]]:
        out: dict[str, tuple[Rule, ...]] = {}
        for rule in self.rules:
            canonical = lookup(str(rule.pattern))
            if rule.spec is not None and canonical is not None:
                out[canonical] = (*out.get(canonical, ()), rule)
        return out

    def frame(self, agents: Iterable[AgentDefinition]) -> pd.DataFrame:
        return pd.DataFrame([{"text": r.text, "kind": r.kind, "file": r.file, "line": r.line}
                             for r in self.rules])


def _open_engine(path: Any, **options: Any) -> ToyEngine | None:
    file = Path(path) / RULES_FILE
    if not file.is_file():
        return None
    src = SourceFile.at(file, Path(path)).located
    rules = []
    for kind in ("deny", "ask", "allow"):
        for i, entry in enumerate(src.data.get(kind, [])):
            match = _ENTRY.match(entry)
            assert match is not None, entry
            rules.append(Rule(kind=kind, pattern=match.group(1), spec=match.group(2),
                              file=RULES_FILE, line=src.line((kind, i)), layer="toybox"))
    return ToyEngine(rules)


TOYBOX = System(
    name="toybox",
    title="toybox",
    formats=(Format("toybox-agent", _load_agent, paths=(".toybox/agents/*.yaml",)),
             Format("toybox-rules", _ignore, paths=(RULES_FILE,))),
    preset=Preset(name="toybox", unknown_name="warn", omitted_root="all", empty_list="none",
                  child_extra="drop-warn", strip_coordination=False, max_depth=2),
    layouts=(Layout(".toybox", ("agents",)),),
    add_builtins=_add_builtins,
    engine=_open_engine,
)


@pytest.fixture
def toybox(tmp_path: Path) -> Iterator[Path]:
    files = {
        ".toybox/agents/builder.yaml": "name: builder\ntools: [run, look]\n",
        ".toybox/agents/reader.yaml": "name: reader\ntools: [look]\n",
        RULES_FILE: "deny:\n  - run(rm *)\n  - look\nallow:\n  - run(make *)\n",
    }
    for place, text in files.items():
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / place).write_text(text)
    registry.register(TOYBOX)
    try:
        yield tmp_path
    finally:
        registry.unregister(TOYBOX)


def test_the_layout_chooses_the_new_systems_preset(toybox: Path) -> None:
    proj = tk.load(toybox)
    assert proj.preset.name == "toybox"
    assert ".toybox/" in proj.preset_reason
    assert set(proj.agents) == {"builder", "reader"}
    assert {"run", "look"} <= set(proj.tools)
    assert proj.engine is not None and proj.engine.system == "toybox"


def test_explain_uses_the_new_systems_rules(toybox: Path) -> None:
    proj = tk.load(toybox)
    run = proj.explain("builder", "run")
    assert run.effect is Effect.CONDITIONAL  # its calls are decided by run(...) rules
    look = proj.explain("builder", "look")
    assert look.effect is Effect.DENY
    assert (look.rule.file, look.rule.line) == (RULES_FILE, 3)
    assert proj.explain("reader", "run").effect is Effect.IMPLICIT_DENY


def test_the_matrix_agrees_with_explain(toybox: Path) -> None:
    proj = tk.load(toybox)
    effects = proj.effects()
    agents = effects.columns.get_level_values("agent")
    assert set(agents) == {"builder", "reader"}
    for tool in effects.index:
        for column, agent in zip(effects.columns, agents, strict=True):
            want = proj.explain(agent, tool).effect.value
            assert effects.loc[tool, column] == want, (agent, tool)
    cells = {(t, a): effects.loc[t, c] for t in ("run", "look")
             for c, a in zip(effects.columns, agents, strict=True)}
    assert cells == {("run", "builder"): Effect.CONDITIONAL.value,
                     ("look", "builder"): Effect.DENY.value,
                     ("run", "reader"): Effect.IMPLICIT_DENY.value,
                     ("look", "reader"): Effect.DENY.value}


def test_check_call_decides_with_the_new_engine(toybox: Path) -> None:
    proj = tk.load(toybox)
    make = proj.check_call("run", {"cmd": "make all"}, agent="builder")
    assert make.effect is Effect.ALLOW and make.rule.line == 5
    remove = proj.check_call("run", {"cmd": "rm -rf /"}, agent="builder")
    assert remove.effect is Effect.DENY and remove.rule.text == "run(rm *)"
    other = proj.check_call("run", {"cmd": "ls"})
    assert other.effect is Effect.ASK  # no rule: the default mode asks
    assert proj.check_call("run", {"cmd": "ls"}, mode="dontAsk").effect is Effect.IMPLICIT_DENY


@pytest.mark.parametrize(("command", "status"), [("make all", 0), ("rm x", 1), ("ls", 2)])
def test_toolmatrix_why_answers_for_the_new_system(toybox: Path, command: str,
                                                   status: int) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["why", str(toybox), "run", command, "--no-home"], out, err) == status
    assert out.getvalue().startswith(("ALLOW", "EXPLICIT-DENY", "ASK"))


def test_unregistering_leaves_the_tables_as_they_were(toybox: Path) -> None:
    registry.unregister(TOYBOX)
    try:
        assert "toybox-agent" not in {f.name for f in registry.FORMATS.formats}
        assert "toybox" not in registry.PRESETS
        assert tk.load(toybox).preset.name == "strict"
    finally:
        registry.register(TOYBOX)


def test_a_folder_with_two_runtimes_asks_which(toybox: Path) -> None:
    """SPEC section 13: every runtime's settings are read; check_call needs runtime= then."""
    (toybox / ".claude").mkdir()
    (toybox / ".claude" / "settings.json").write_text(
        '{"permissions": {"deny": ["Bash(rm *)"]}}')
    proj = tk.load(toybox, home=False, managed=False)
    assert proj.runtimes == ("claude-code", "toybox")
    with pytest.raises(ValueError, match=r"several runtimes \(claude-code, toybox\)"):
        proj.check_call("run", {"cmd": "make all"})
    toy = proj.check_call("run", {"cmd": "make all"}, runtime="toybox")
    assert (toy.effect, toy.runtime) == (Effect.ALLOW, "toybox")
    claude = proj.check_call("Bash", {"command": "rm -rf build"}, runtime="claude-code")
    assert (claude.effect, claude.runtime) == (Effect.DENY, "claude-code")
    assert "runtime=claude-code" in claude.report()
    chosen = tk.load(toybox, runtime="toybox", home=False, managed=False)
    assert chosen.check_call("run", {"cmd": "rm x"}).effect is Effect.DENY
    out, err = io.StringIO(), io.StringIO()
    assert main(["why", str(toybox), "run", "make all", "--no-home", "--runtime", "toybox"],
                out, err) == 0
    assert main(["why", str(toybox), "run", "make all", "--no-home"], out, err) == 2
    assert "several runtimes" in err.getvalue()


def test_a_runtime_without_settings_is_asked_as_one_with_none(toybox: Path) -> None:
    proj = tk.load(toybox, home=False, managed=False)
    assert proj.runtimes == ("toybox",)
    d = proj.check_call("Bash", {"command": "ls"}, runtime="claude-code")
    assert d.runtime == "claude-code" and proj.runtimes == ("toybox",)
    with pytest.raises(ValueError, match="no permission engine for runtime 'nope'"):
        proj.check_call("run", {"cmd": "ls"}, runtime="nope")
