"""Gemini CLI's ``packages/core/src/policy/policy-engine.test.ts``, ported
(google-gemini/gemini-cli@5411f11).

Each test's docstring names its ``describe`` block and ``it`` name in that file. Upstream
mocks ``utils/shell-utils.js`` (parseCommandDetails splits on ``&&`` and lifts ``$(...)`` /
backticks, hasRedirection is ``'>' in command``, stripShellWrapper a ``bash -c '...'``
regex) and ``tools/tool-names.js`` (``legacy_test_tool`` / ``another_legacy_test_tool``
alias ``current_test_tool``); :class:`MockShell` and :func:`mock_aliases` are the same
mocks, handed to the engine through ``shell_utils=`` and ``aliases=``. The sandbox
manager, trust callback and checker runner are passed as upstream passes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import pytest

from toolkit.systems.gemini_cli.policy import (
    ALLOW,
    ASK_USER,
    DENY,
    UNDEFINED,
    Detail,
    HookCheckerRule,
    LocalSandboxManager,
    NoopSandboxManager,
    PolicyEngine,
    PolicyRule,
    SafetyCheckerRule,
    build_args_patterns,
)

SOURCE = "packages/core/src/policy/policy-engine.test.ts"
PLAN, DEFAULT, AUTO_EDIT, YOLO = "plan", "default", "autoEdit", "yolo"
#: types.ts
PRIORITY_SUBAGENT_TOOL = 1.03
ALWAYS_ALLOW_PRIORITY_FRACTION = 950
PRIORITY_YOLO_ALLOW_ALL = 998


# -- upstream's mocks ---------------------------------------------------------------------------

class MockShell:
    """vi.mock('../utils/shell-utils.js') of policy-engine.test.ts."""

    #: mockImplementationOnce / mockReturnValueOnce of parseCommandDetails
    once: ClassVar[list[Callable[[str], tuple[tuple[Detail, ...], bool]]]] = []

    @classmethod
    def parse_command_details(cls, command: str) -> tuple[tuple[Detail, ...], bool]:
        if cls.once:
            return cls.once.pop(0)(command)
        return cls.default_parse(command)

    @staticmethod
    def default_parse(command: str) -> tuple[tuple[Detail, ...], bool]:
        commands = ([c.strip() for c in command.split("&&")] if "&&" in command
                    else [command.strip()])
        subs = list(commands)
        for cmd in commands:
            match = re.search(r"\$\((.*)\)", cmd) or re.search(r"`(.*)`", cmd)
            if match and match.group(1):
                subs.append(match.group(1).strip())
        return tuple(Detail(c.split(" ")[0], c, 0 if i == 0 else -1)
                     for i, c in enumerate(subs)), False

    @staticmethod
    def has_redirection(command: str) -> bool:
        return ">" in command and "-> arrow" not in command

    @staticmethod
    def strip_shell_wrapper(command: str) -> str:
        match = re.match(r"""^(?:bash|sh|zsh)\s+-c\s+["'](.*)["']$""", command, re.I | re.S)
        return match.group(1) if match else command


_ALIASES = {"search_file_content": "grep_search", "legacy_test_tool": "current_test_tool",
            "another_legacy_test_tool": "current_test_tool"}


def mock_aliases(name: str) -> list[str]:
    """vi.mock('../tools/tool-names.js'): getToolAliases over the mocked alias table."""
    out = dict.fromkeys([name, _ALIASES.get(name, name)])
    canonical = _ALIASES.get(name, name)
    for legacy, current in _ALIASES.items():
        if current == canonical:
            out[legacy] = None
    return list(out)


class CheckerRunner:
    """mockCheckerRunner: records calls; returns ``result`` or calls ``impl``."""

    def __init__(self, result: Mapping[str, Any] | None = None,
                 impl: Callable[..., Any] | None = None) -> None:
        self.result, self.impl = result, impl
        self.calls: list[tuple[dict[str, Any], Mapping[str, Any]]] = []

    def __call__(self, call: dict[str, Any], checker: Mapping[str, Any]) -> Any:
        self.calls.append((call, checker))
        if self.impl is not None:
            return self.impl(call, checker)
        return self.result

    def names(self) -> list[str]:
        return [c["name"] for _, c in self.calls]


class Sandbox(NoopSandboxManager):
    """A mocked SandboxManager: fixed or computed answers."""

    def __init__(self, safe: Any = False, dangerous: Any = False,
                 workspace: str | None = None) -> None:
        super().__init__(workspace)
        self.safe, self.dangerous = safe, dangerous

    def is_known_safe_command(self, args: list[str]) -> bool:
        return bool(self.safe(args) if callable(self.safe) else self.safe)

    def is_dangerous_command(self, args: list[str]) -> bool:
        return bool(self.dangerous(args) if callable(self.dangerous) else self.dangerous)


@pytest.fixture(autouse=True)
def _reset_once() -> None:
    MockShell.once.clear()


def R(tool: str, decision: str, priority: float = 0, **kw: Any) -> PolicyRule:  # noqa: N802
    """A PolicyRule as the tests write them (argsPattern as a JS regex source)."""
    if "modes" in kw and kw["modes"] is not None:
        kw["modes"] = tuple(kw["modes"])
    return PolicyRule(tool, decision, priority, **kw)


def E(rules: list[PolicyRule] | None = None, **kw: Any) -> PolicyEngine:  # noqa: N802
    """``new PolicyEngine({rules, ...})`` with the module's mocks."""
    kw.setdefault("shell_utils", MockShell)
    kw.setdefault("aliases", mock_aliases)
    return PolicyEngine(rules or [], **kw)


def base_engine(runner: CheckerRunner | None = None) -> PolicyEngine:
    """beforeEach: DEFAULT mode, NoopSandboxManager, mockCheckerRunner."""
    return E(approval_mode=DEFAULT, sandbox_manager=NoopSandboxManager(),
             checker_runner=runner or CheckerRunner())


def d(engine: PolicyEngine, name: str, args: Any = None, server: str | None = None,
      annotations: Mapping[str, Any] | None = None) -> str:
    return engine.check(name, args, server, annotations).decision


def shell(command: str, **extra: Any) -> dict[str, Any]:
    return {"command": command, **extra}


SH = "run_shell_command"


# -- constructor --------------------------------------------------------------------------------

def test_constructor_default_config() -> None:
    """constructor › should use default config when none provided"""
    assert d(base_engine(), "test") == ASK_USER


def test_constructor_custom_default_decision() -> None:
    """constructor › should respect custom default decision"""
    assert d(E(default_decision=DENY), "test") == DENY


def test_constructor_sorts_rules() -> None:
    """constructor › should sort rules by priority"""
    engine = E([R("tool1", DENY, 1), R("tool2", ALLOW, 10), R("tool3", ASK_USER, 5)])
    assert [r.priority for r in engine.get_rules()] == [10, 5, 1]


# -- check --------------------------------------------------------------------------------------

def test_match_tool_by_name() -> None:
    """check › should match tool by name"""
    engine = E([R("shell", ALLOW), R("edit", DENY)])
    assert (d(engine, "shell"), d(engine, "edit"), d(engine, "other")) == (ALLOW, DENY, ASK_USER)


def test_unqualified_name_with_qualified_rule() -> None:
    """check › should match unqualified tool names with qualified rules when serverName is
    provided"""
    engine = E([R("mcp_my-server_tool", ALLOW, mcp_name="my-server")])
    assert d(engine, "tool", server="my-server") == ALLOW
    assert d(engine, "mcp_my-server_tool", server="my-server") == ALLOW


def test_match_by_args_pattern() -> None:
    """check › should match by args pattern"""
    engine = E([R("shell", DENY, args_pattern="rm -rf"), R("shell", ALLOW)])
    assert d(engine, "shell", {"command": "rm -rf /"}) == DENY
    assert d(engine, "shell", {"command": "ls -la"}) == ALLOW


def test_rules_by_priority() -> None:
    """check › should apply rules by priority"""
    assert d(E([R("shell", DENY, 1), R("shell", ALLOW, 10)]), "shell") == ALLOW


def test_current_name_against_legacy_rule() -> None:
    """check › should match current tool call against legacy tool name rules"""
    assert d(E([R("legacy_test_tool", DENY)]), "current_test_tool") == DENY


def test_legacy_name_against_current_rule() -> None:
    """check › should match legacy tool call against current tool name rules (for skills
    support)"""
    assert d(E([R("current_test_tool", ALLOW)]), "legacy_test_tool") == ALLOW


def test_legacy_name_against_other_legacy_rule() -> None:
    """check › should match tool call using one legacy name against policy for another legacy
    name (same canonical tool)"""
    assert d(E([R("another_legacy_test_tool", DENY)]), "legacy_test_tool") == DENY


def test_subagent_name_alias_for_invoke_agent() -> None:
    """check › should match subagent name as alias for invoke_agent"""
    engine = E([R("codebase_investigator", DENY)])
    assert d(engine, "invoke_agent", {"agent_name": "codebase_investigator",
                                      "prompt": "Hello"}) == DENY


def test_wildcard_rules() -> None:
    """check › should apply wildcard rules (no toolName)"""
    engine = E([R("*", DENY), R("safe-tool", ALLOW, 10)])
    assert d(engine, "safe-tool") == ALLOW
    assert d(engine, "any-other-tool") == DENY


def test_non_interactive_mode() -> None:
    """check › should handle non-interactive mode"""
    engine = E([R("interactive-tool", ASK_USER, interactive=True),
                R("interactive-tool", DENY, interactive=False),
                R("allowed-tool", ALLOW), R("ask_user", DENY, interactive=False)],
               non_interactive=True)
    assert d(engine, "interactive-tool") == DENY
    assert d(engine, "allowed-tool") == ALLOW
    assert d(engine, "unknown-tool") == DENY


def test_switch_modes() -> None:
    """check › should dynamically switch between modes and respect rule modes"""
    rules = [R("edit", ASK_USER, 10), R("edit", ALLOW, 20, modes=[AUTO_EDIT])]
    assert d(E(rules), "edit") == ASK_USER
    engine = E(rules, approval_mode=AUTO_EDIT, sandbox_manager=LocalSandboxManager())
    assert d(engine, "edit") == ALLOW
    engine.set_approval_mode(DEFAULT)
    assert d(engine, "edit") == ASK_USER


def test_sandbox_manager_approved_tools() -> None:
    """check › should respect tools approved by the SandboxManager"""
    engine = E(sandbox_manager=Sandbox(safe=lambda args: args[0] == "npm"),
               default_decision=ASK_USER)
    assert d(engine, SH, shell("npm install")) == ALLOW


def test_yolo_default_allow() -> None:
    """check › should return ALLOW by default in YOLO mode when no rules match"""
    assert d(E(approval_mode=YOLO), "any-tool") == ALLOW


def test_yolo_keeps_explicit_deny() -> None:
    """check › should NOT override explicit DENY rules in YOLO mode"""
    engine = E([R("dangerous-tool", DENY)], approval_mode=YOLO)
    assert d(engine, "dangerous-tool") == DENY
    assert d(engine, "safe-tool") == ALLOW


def test_yolo_rule_priority() -> None:
    """check › should respect rule priority in YOLO mode when a match exists"""
    engine = E([R("test-tool", ASK_USER, 10), R("test-tool", DENY, 20)], approval_mode=YOLO)
    assert d(engine, "test-tool") == DENY


def _once(fake: Callable[[str], tuple[tuple[Detail, ...], bool] | None]) -> None:
    def impl(command: str) -> tuple[tuple[Detail, ...], bool]:
        return fake(command) or MockShell.default_parse(command)
    MockShell.once.append(impl)


def test_yolo_fail_closed_parse_fails() -> None:
    """check › should fail closed in YOLO mode when shell parsing fails for restricted rule"""
    _once(lambda c: ((), True) if c == "echo bypass" else None)
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo')], approval_mode=YOLO)
    assert d(engine, SH, shell("echo bypass")) == DENY


def test_yolo_fail_closed_parse_errors() -> None:
    """check › should fail closed in YOLO mode when shell parsing has errors for restricted
    rule"""
    _once(lambda c: ((Detail("echo", "echo bypass", 0),), True) if c == "echo bypass"
          else None)
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo')], approval_mode=YOLO)
    assert d(engine, SH, shell("echo bypass")) == DENY


# -- addRule, removeRulesForTool, getRules ------------------------------------------------------

def test_add_rule_keeps_order() -> None:
    """addRule › should add a new rule and maintain priority order"""
    engine = base_engine()
    engine.add_rule(R("tool1", ALLOW, 5))
    engine.add_rule(R("tool2", DENY, 10))
    engine.add_rule(R("tool3", ASK_USER, 1))
    assert [r.priority for r in engine.get_rules()] == [10, 5, 1]


def test_add_rule_applies() -> None:
    """addRule › should apply newly added rules"""
    engine = base_engine()
    assert d(engine, "new-tool") == ASK_USER
    engine.add_rule(R("new-tool", ALLOW))
    assert d(engine, "new-tool") == ALLOW


def test_remove_rules_for_tool() -> None:
    """removeRulesForTool › should remove rules for specific tool"""
    engine = base_engine()
    for rule in (R("tool1", ALLOW), R("tool2", DENY), R("tool1", ASK_USER, 10)):
        engine.add_rule(rule)
    assert len(engine.get_rules()) == 3
    engine.remove_rules_for_tool("tool1")
    assert [r.tool_name for r in engine.get_rules()] == ["tool2"]


def test_remove_rules_for_tool_and_source() -> None:
    """removeRulesForTool › should remove rules for specific tool and source"""
    engine = base_engine()
    for rule in (R("tool1", ALLOW, source="source1"), R("tool1", DENY, source="source2"),
                 R("tool2", ALLOW, source="source1")):
        engine.add_rule(rule)
    engine.remove_rules_for_tool("tool1", "source1")
    assert sorted((r.tool_name, r.source) for r in engine.get_rules()) == [
        ("tool1", "source2"), ("tool2", "source1")]


def test_remove_non_existent_tool() -> None:
    """removeRulesForTool › should handle removing non-existent tool"""
    engine = base_engine()
    engine.add_rule(R("existing", ALLOW))
    engine.remove_rules_for_tool("non-existent")
    assert len(engine.get_rules()) == 1


def test_get_rules() -> None:
    """getRules › should return readonly array of rules"""
    rules = E([R("tool1", ALLOW), R("tool2", DENY)]).get_rules()
    assert isinstance(rules, tuple)
    assert [r.tool_name for r in rules] == ["tool1", "tool2"]


# -- MCP server wildcard patterns ---------------------------------------------------------------

def test_mcp_global_wildcard() -> None:
    """MCP server wildcard patterns › should match global wildcard (*)"""
    engine = E([R("*", ALLOW, 10)])
    assert d(engine, "read_file") == ALLOW
    assert d(engine, "mcp_my-server_tool", server="my-server") == ALLOW


def test_mcp_star() -> None:
    """MCP server wildcard patterns › should match any MCP tool when toolName is mcp_*"""
    engine = E([R("mcp_*", ALLOW, 10)], default_decision=DENY)
    assert d(engine, "mcp_mcp_tool", server="mcp") == ALLOW
    assert d(engine, "mcp_other_tool", server="other") == ALLOW
    assert d(engine, "read_file") == DENY


def test_mcp_server_wildcards() -> None:
    """MCP server wildcard patterns › should match MCP server wildcard patterns"""
    engine = E([R("mcp_my-server_*", ALLOW, 10, mcp_name="my-server"),
                R("mcp_blocked-server_*", DENY, 20, mcp_name="blocked-server")])
    assert d(engine, "mcp_my-server_tool1", server="my-server") == ALLOW
    assert d(engine, "mcp_my-server_another_tool", server="my-server") == ALLOW
    assert d(engine, "mcp_blocked-server_tool1", server="blocked-server") == DENY
    assert d(engine, "mcp_blocked-server_dangerous", server="blocked-server") == DENY
    assert d(engine, "mcp_other-server_tool", server="other-server") == ASK_USER
    assert d(engine, "my-server-tool") == ASK_USER
    assert d(engine, "my-server") == ASK_USER


def test_mcp_specific_over_wildcard() -> None:
    """MCP server wildcard patterns › should prioritize specific tool rules over server
    wildcards"""
    engine = E([R("mcp_my-server_*", ALLOW, 10, mcp_name="my-server"),
                R("mcp_my-server_dangerous-tool", DENY, 20, mcp_name="my-server")])
    assert d(engine, "mcp_my-server_dangerous-tool", server="my-server") == DENY
    assert d(engine, "mcp_my-server_safe-tool", server="my-server") == ALLOW


def test_mcp_spoofed_server() -> None:
    """MCP server wildcard patterns › should NOT match spoofed server names when using
    wildcards"""
    engine = E([R("mcp_safe_server_*", ALLOW, mcp_name="safe_server")])
    assert d(engine, "mcp_mcp_safe_server_malicious_tool",
             server="mcp_safe_server_malicious") == ASK_USER


def test_mcp_prefix_verified() -> None:
    """MCP server wildcard patterns › should verify tool name prefix even if serverName
    matches"""
    engine = E([R("mcp_safe_server_*", ALLOW, mcp_name="safe_server")])
    assert d(engine, "mcp_other_server_tool", server="safe_server") == ASK_USER


def test_mcp_prefix_and_server_match() -> None:
    """MCP server wildcard patterns › should allow when both serverName and tool name prefix
    match"""
    engine = E([R("mcp_safe_server_*", ALLOW, mcp_name="safe_server")])
    assert d(engine, "mcp_safe_server_tool", server="safe_server") == ALLOW


# -- complex scenarios --------------------------------------------------------------------------

def test_multiple_priorities() -> None:
    """complex scenarios › should handle multiple matching rules with different priorities"""
    engine = E([R("*", DENY, 0), R("shell", ASK_USER, 5),
                R("shell", ALLOW, 10, args_pattern='"command":"ls')])
    assert d(engine, "shell", {"command": "ls -la"}) == ALLOW
    assert d(engine, "shell", {"command": "pwd"}) == ASK_USER
    assert d(engine, "edit") == DENY


def test_quotes_in_command_prefix() -> None:
    """complex scenarios › should correctly match commands with quotes in commandPrefix"""
    pattern = build_args_patterns(None, 'git commit -m "fix"')[0]
    engine = E([R(SH, ALLOW, args_pattern=pattern)])
    assert d(engine, SH, shell('git commit -m "fix"')) == ALLOW


def test_tools_with_no_args() -> None:
    """complex scenarios › should handle tools with no args"""
    engine = E([R("read", DENY, args_pattern="secret")])
    assert d(engine, "read") == ASK_USER
    assert d(engine, "read", {"file": "public.txt"}) == ASK_USER
    assert d(engine, "read", {"file": "secret.txt"}) == DENY


def test_property_order() -> None:
    """complex scenarios › should match args pattern regardless of property order"""
    engine = E([R("shell", DENY, args_pattern='"command":"rm[^"]*-rf')])
    assert d(engine, "shell", {"command": "rm -rf /", "path": "/home"}) == DENY
    assert d(engine, "shell", {"path": "/home", "command": "rm -rf /"}) == DENY
    assert d(engine, "shell", {"command": "ls -la", "path": "/home"}) == ASK_USER


def test_nested_objects() -> None:
    """complex scenarios › should handle nested objects in args with stable stringification"""
    engine = E([R("api", DENY, args_pattern='"sensitive":true')])
    assert d(engine, "api", {"data": {"sensitive": True, "value": "secret"},
                             "method": "POST"}) == DENY
    assert d(engine, "api", {"method": "POST",
                             "data": {"value": "secret", "sensitive": True}}) == DENY


def test_circular_references() -> None:
    """complex scenarios › should handle circular references without stack overflow"""
    engine = E([R("test", DENY, args_pattern=r"\[Circular\]")])
    data: dict[str, Any] = {}
    args = {"name": "test", "data": data}
    data["self"] = data
    assert d(engine, "test", args) == DENY
    assert d(engine, "test", {"name": "test", "data": {"value": "normal"}}) == ASK_USER


def test_deep_circular_references() -> None:
    """complex scenarios › should handle deep circular references"""
    engine = E([R("deep", DENY, args_pattern=r"\[Circular\]")])
    level3: dict[str, Any] = {}
    level1 = {"level2": {"level3": level3}}
    level3["back"] = level1
    assert d(engine, "deep", {"level1": level1}) == DENY


def test_repeated_non_circular() -> None:
    """complex scenarios › should handle repeated non-circular objects correctly"""
    engine = E([R("test", DENY, args_pattern=r"\[Circular\]"),
                R("test", ALLOW, 10, args_pattern='"value":"shared"')])
    shared = {"value": "shared"}
    assert d(engine, "test", {"first": shared, "second": shared,
                              "third": {"nested": shared}}) == ALLOW


def test_omit_undefined_and_functions() -> None:
    """complex scenarios › should omit undefined and function values from objects"""
    args = {"definedValue": "test", "undefinedValue": UNDEFINED,
            "functionValue": lambda: "hello", "nullValue": None}
    assert d(E([R("test", ALLOW, args_pattern='"definedValue":"test"')]), "test", args) == ALLOW
    assert d(E([R("test", DENY, args_pattern="undefinedValue")]), "test", args) == ASK_USER
    assert d(E([R("test", DENY, args_pattern="functionValue")]), "test", args) == ASK_USER


def test_undefined_in_arrays() -> None:
    """complex scenarios › should convert undefined and functions to null in arrays"""
    engine = E([R("test", ALLOW, args_pattern=r'\["value",null,null,null\]')])
    assert d(engine, "test", {"array": ["value", UNDEFINED, lambda: "hello", None]}) == ALLOW


def test_valid_json_for_all_inputs() -> None:
    """complex scenarios › should produce valid JSON for all inputs"""
    inputs: list[dict[str, Any]] = [
        {"simple": "string"}, {"nested": {"deep": {"value": 123}}}, {"data": [1, 2, 3]},
        {"mixed": [1, {"a": "b"}, None]},
        {"undef": UNDEFINED, "func": lambda: None, "normal": "value"},
        {"data": ["a", UNDEFINED, lambda: None, None]}]
    for value in inputs:
        assert d(E([R("test", ALLOW, args_pattern=".*")]), "test", value) == ALLOW


def test_to_json_methods() -> None:
    """complex scenarios › should respect toJSON methods on objects"""
    engine = E([R("test", ALLOW, args_pattern='"sanitized":"safe"'),
                R("test", DENY, args_pattern='"dangerous":"data"')])
    args = {"data": {"dangerous": "data", "toJSON": lambda: {"sanitized": "safe"}}}
    assert d(engine, "test", args) == ALLOW


def test_to_json_primitive() -> None:
    """complex scenarios › should handle toJSON that returns primitives"""
    engine = E([R("test", ALLOW, args_pattern='"value":"string-value"')])
    args = {"value": {"complex": "object", "toJSON": lambda: "string-value"}}
    assert d(engine, "test", args) == ALLOW


def test_to_json_throws() -> None:
    """complex scenarios › should handle toJSON that throws an error"""
    def boom() -> Any:
        raise RuntimeError("toJSON error")

    engine = E([R("test", ALLOW, args_pattern='"fallback":"value"')])
    assert d(engine, "test", {"data": {"fallback": "value", "toJSON": boom}}) == ALLOW


def test_redirect_downgrades() -> None:
    """complex scenarios › should downgrade ALLOW to ASK_USER for redirected shell commands"""
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo')])
    assert d(engine, SH, shell('echo "hello"')) == ALLOW
    assert d(engine, SH, shell('echo "hello" > file.txt')) == ASK_USER


def test_allow_redirection() -> None:
    """complex scenarios › should allow redirected shell commands when allowRedirection is
    true"""
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo', allow_redirection=True)])
    assert d(engine, SH, shell('echo "hello" > file.txt')) == ALLOW


def test_redirect_non_interactive_rules_permit() -> None:
    """complex scenarios › should NOT automatically DENY redirected shell commands in
    non-interactive mode if rules permit it"""
    engine = E([R(SH, ALLOW, allow_redirection=True)], non_interactive=True)
    assert d(engine, SH, shell("ls > out.txt")) == ALLOW


def test_redirect_non_interactive_deny_rules() -> None:
    """complex scenarios › should respect DENY rules for redirected shell commands in
    non-interactive mode"""
    engine = E([R(SH, ASK_USER, interactive=True), R(SH, DENY, interactive=False)],
               non_interactive=True)
    assert d(engine, SH, shell("ls > out.txt")) == DENY


def test_quoted_redirection_chars() -> None:
    """complex scenarios › should NOT downgrade ALLOW to ASK_USER for quoted redirection
    chars"""
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo')])
    assert d(engine, SH, shell('echo "-> arrow"')) == ALLOW


def test_dir_path_preserved() -> None:
    """complex scenarios › should preserve dir_path during recursive shell command checks"""
    engine = E([R(SH, ALLOW, args_pattern='"command":"echo hello".*"dir_path":"\\/safe\\/path"'),
                R(SH, ALLOW, -100)])
    result = engine.check(SH, shell("echo hello && pwd", dir_path="/safe/path"))
    assert result.decision == ALLOW


def test_upgrade_ask_when_parts_allowed() -> None:
    """complex scenarios › should upgrade ASK_USER to ALLOW if all sub-commands are allowed"""
    engine = E([R(SH, ALLOW, 20, args_pattern='"command":"git status'),
                R(SH, ALLOW, 20, args_pattern='"command":"ls'), R(SH, ASK_USER, 10)])
    assert d(engine, SH, shell("git status && ls")) == ALLOW


def _untrusted(calls: list[bool], trusted: bool = False) -> Callable[[], bool]:
    def fn() -> bool:
        calls.append(True)
        return trusted
    return fn


def test_git_untrusted_not_upgraded() -> None:
    """complex scenarios › should NOT upgrade Git commands to ALLOW in untrusted workspace"""
    calls: list[bool] = []
    engine = E(is_trusted_folder=_untrusted(calls))
    assert d(engine, SH, shell("git status")) == ASK_USER
    assert calls


def test_git_in_arguments_not_git() -> None:
    """complex scenarios › should NOT treat commands with git in arguments or URLs as Git
    commands"""
    engine = E(is_trusted_folder=_untrusted([]))
    assert d(engine, SH, shell("echo git")) == ALLOW


def test_chained_git_untrusted() -> None:
    """complex scenarios › should detect chained Git commands as Git commands and force
    ASK_USER in untrusted workspaces"""
    calls: list[bool] = []
    engine = E(is_trusted_folder=_untrusted(calls))
    assert d(engine, SH, shell('echo "hello" && git status')) == ASK_USER
    assert calls


def test_git_env_prefix_untrusted() -> None:
    """complex scenarios › should detect Git commands prefixed with environment variable
    assignments"""
    calls: list[bool] = []
    engine = E(is_trusted_folder=_untrusted(calls))
    assert d(engine, SH, shell("VAR=val git status")) == ASK_USER
    assert calls


def test_git_untrusted_deny_kept() -> None:
    """complex scenarios › should NOT upgrade a DENY decision to ASK_USER for Git commands in
    untrusted workspaces"""
    engine = E([R(SH, DENY, 100, args_pattern='"command":"git status"')],
               is_trusted_folder=_untrusted([]))
    assert d(engine, SH, shell("git status")) == DENY


def test_git_trusted_upgraded() -> None:
    """complex scenarios › should upgrade Git commands to ALLOW in trusted workspace when
    heuristics apply"""
    calls: list[bool] = []
    engine = E(is_trusted_folder=_untrusted(calls, trusted=True))
    assert d(engine, SH, shell("git status")) == ALLOW
    assert calls


def test_explicit_deny_compound() -> None:
    """complex scenarios › should respect explicit DENY for compound commands even if parts
    are allowed"""
    engine = E([R(SH, DENY, 30, args_pattern='"command":"git status && ls"'),
                R(SH, ALLOW, 20, args_pattern='"command":"git status'),
                R(SH, ALLOW, 20, args_pattern='"command":"ls')])
    assert d(engine, SH, shell("git status && ls")) == DENY


def test_propagate_deny() -> None:
    """complex scenarios › should propagate DENY from any sub-command"""
    engine = E([R(SH, DENY, 20, args_pattern='"command":"rm'),
                R(SH, ALLOW, 20, args_pattern='"command":"echo'), R(SH, ASK_USER, 10)])
    assert d(engine, SH, shell("echo hello && rm -rf /")) == DENY


def test_redirect_non_interactive_explicit_deny() -> None:
    """complex scenarios › should respect explicit DENY rules for redirected shell commands in
    non-interactive mode"""
    engine = E([R(SH, ALLOW, interactive=True), R(SH, DENY, interactive=False)],
               non_interactive=True)
    assert d(engine, SH, shell('echo "hello" > file.txt')) == DENY


def test_atomic_wildcard_ask() -> None:
    """complex scenarios › should default to ASK_USER for atomic commands when matching a
    wildcard ASK_USER rule"""
    assert d(E([R(SH, ASK_USER)]), SH, shell("unknown_command")) == ASK_USER


def test_redirect_non_interactive_allow_redirection() -> None:
    """complex scenarios › should allow redirected shell commands in non-interactive mode if
    allowRedirection is true"""
    engine = E([R(SH, ALLOW, allow_redirection=True)], non_interactive=True)
    assert d(engine, SH, shell('echo "hello" > file.txt')) == ALLOW


def test_no_infinite_recursion() -> None:
    """complex scenarios › should avoid infinite recursion for commands with substitution"""
    assert d(E([R(SH, ALLOW)]), SH, shell("echo $(ls)")) == ALLOW


def test_compound_with_redirection() -> None:
    """complex scenarios › should require confirmation for a compound command with
    redirection even if individual commands are allowed"""
    engine = E([R(SH, ALLOW, 20, args_pattern='"command":"mkdir\\b'),
                R(SH, ALLOW, 20, args_pattern='"command":"echo\\b')])
    assert d(engine, SH, shell('mkdir -p "bar" && echo "hello" > bar/test.md')) == ASK_USER


def test_sub_command_redirection() -> None:
    """complex scenarios › should report redirection when a sub-command specifically has
    redirection"""
    engine = E([R(SH, ALLOW, 20, args_pattern='"command":"mkdir\\b'),
                R(SH, ALLOW, 20, args_pattern='"command":"echo\\b')])
    assert d(engine, SH, shell("mkdir bar && echo hello > bar/test.md")) == ASK_USER


def test_redirect_auto_edit() -> None:
    """complex scenarios › should allow redirected shell commands in AUTO_EDIT mode if
    individual commands are allowed"""
    engine = E([R(SH, ALLOW, 20, args_pattern='"command":"echo\\b')],
               sandbox_manager=LocalSandboxManager())
    engine.set_approval_mode(AUTO_EDIT)
    assert d(engine, SH, shell('echo "hello" > test.txt')) == ALLOW


def test_compound_safe_operators() -> None:
    """complex scenarios › should allow compound commands with safe operators (&&, ||) if
    individual commands are allowed"""
    engine = E([R(SH, ALLOW, 20, args_pattern='"command":"echo\\b')])
    assert d(engine, SH, shell("echo hello && echo world")) == ALLOW


# -- Plan Mode vs Subagent Priority (Regression) ------------------------------------------------

def test_plan_mode_denies_subagents() -> None:
    """Plan Mode vs Subagent Priority (Regression) › should DENY subagents in Plan Mode despite
    dynamic allow rules"""
    engine = E([R("*", DENY, 1.04, modes=[PLAN]),
                R("unknown_subagent", ALLOW, PRIORITY_SUBAGENT_TOOL)], approval_mode=PLAN)
    assert d(engine, "unknown_subagent") == DENY


# -- shell command parsing failure --------------------------------------------------------------

def test_yolo_dangerous_allowed() -> None:
    """shell command parsing failure › should return ALLOW in YOLO mode for dangerous commands
    due to heuristics override"""
    engine = E([R("*", ALLOW, 999, modes=[YOLO])], approval_mode=YOLO,
               sandbox_manager=Sandbox(safe=False, dangerous=True))
    assert d(engine, SH, shell('powershell echo "dangerous"')) == ALLOW


def test_yolo_redirect_not_downgraded() -> None:
    """shell command parsing failure › should NOT downgrade to ASK_USER for redirected
    commands in YOLO mode even without sandbox"""
    engine = E([R(SH, ALLOW, 10)], approval_mode=YOLO, sandbox_manager=NoopSandboxManager())
    assert d(engine, SH, shell("npm test 2>&1 | tail -80")) == ALLOW


def test_yolo_parse_fails_allows() -> None:
    """shell command parsing failure › should return ALLOW in YOLO mode even if shell command
    parsing fails"""
    # upstream mocks splitCommands (which the engine no longer calls); the mocked
    # parseCommandDetails still answers, so the parse succeeds and the rule decides
    engine = E([R("*", ALLOW, 999, modes=[YOLO]), R(SH, ASK_USER, 10)], approval_mode=YOLO)
    result = engine.check(SH, shell("complex command"))
    assert result.decision == ALLOW
    assert result.rule is not None and result.rule.priority == 999


def test_yolo_parse_fails_higher_deny() -> None:
    """shell command parsing failure › should return DENY in YOLO mode if shell command parsing
    fails and a higher priority rule says DENY"""
    engine = E([R(SH, DENY, 2000), R("*", ALLOW, 999, modes=[YOLO])], approval_mode=YOLO)
    assert d(engine, SH, shell("complex command")) == DENY


def test_parse_fails_non_yolo_asks() -> None:
    """shell command parsing failure › should return ASK_USER in non-YOLO mode if shell
    command parsing fails"""
    engine = E([R(SH, ALLOW, 20)], approval_mode=DEFAULT)
    MockShell.once.append(lambda command: ((), True))
    result = engine.check(SH, shell("complex command"))
    assert result.decision == ASK_USER
    assert result.rule is not None and result.rule.priority == 20


# -- safety checker integration -----------------------------------------------------------------

EXTERNAL = {"type": "external", "name": "test-checker", "config": {"content": "test-content"}}
ALLOWED_PATH = {"type": "in-process", "name": "allowed-path"}


def C(tool: str, checker: Mapping[str, Any], priority: float = 0,  # noqa: N802
      **kw: Any) -> SafetyCheckerRule:
    return SafetyCheckerRule(tool, checker, priority, **kw)


def test_checker_called_when_allowed() -> None:
    """safety checker integration › should call checker when rule allows and has
    safety_checker"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("test-tool", ALLOW)], checkers=[C("test-tool", EXTERNAL)],
               checker_runner=runner)
    assert d(engine, "test-tool", {"foo": "bar"}) == ALLOW
    assert runner.calls == [({"name": "test-tool", "args": {"foo": "bar"}}, EXTERNAL)]


def test_checker_error_denies() -> None:
    """safety checker integration › should handle checker errors as DENY"""
    def fail(*_: Any) -> Any:
        raise RuntimeError("Checker failed")

    engine = E([R("test", ALLOW)], checkers=[C("test", ALLOWED_PATH)],
               checker_runner=CheckerRunner(impl=fail))
    assert d(engine, "test") == DENY


def test_checker_denies() -> None:
    """safety checker integration › should return DENY when checker denies"""
    runner = CheckerRunner({"decision": DENY, "reason": "test reason"})
    engine = E([R("test-tool", ALLOW)], checkers=[C("test-tool", EXTERNAL)],
               checker_runner=runner)
    assert d(engine, "test-tool", {"foo": "bar"}) == DENY
    assert runner.calls


def test_checker_not_allow_decision() -> None:
    """safety checker integration › should not call checker if decision is not ALLOW"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("test-tool", ASK_USER)], checkers=[C("test-tool", EXTERNAL)],
               checker_runner=runner)
    assert d(engine, "test-tool", {"foo": "bar"}) == ASK_USER
    assert runner.calls  # (upstream's name says "not", its assertion says it is called)


def test_checkers_run_when_rule_allows() -> None:
    """safety checker integration › should run checkers when rule allows"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("test", ALLOW)], checkers=[C("test", ALLOWED_PATH)], checker_runner=runner)
    assert d(engine, "test") == ALLOW
    assert len(runner.calls) == 1


def test_no_checker_without_checker_rule() -> None:
    """safety checker integration › should not call checker if rule has no safety_checker"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("test-tool", ALLOW)], checker_runner=runner)
    assert d(engine, "test-tool", {"foo": "bar"}) == ALLOW
    assert not runner.calls


def test_server_name_requirement() -> None:
    """serverName requirement › should require serverName for checks"""
    engine = base_engine()
    assert engine.check("test", None).decision == ASK_USER
    assert d(engine, "test") == ASK_USER
    assert d(engine, "test", server="some-server") == ASK_USER


def test_checkers_priority_stop_at_denial() -> None:
    """serverName requirement › should run multiple checkers in priority order and stop at
    first denial"""
    def impl(_call: Any, config: Mapping[str, Any]) -> Any:
        if config["name"] == "checker2":
            return {"decision": DENY, "reason": "checker2 denied"}
        return {"decision": ALLOW}

    runner = CheckerRunner(impl=impl)
    engine = E([R("test", ALLOW)],
               checkers=[C("test", {"type": "external", "name": "checker1"}, 10),
                         C("test", {"type": "external", "name": "checker2"}, 20)],
               checker_runner=runner)
    result = engine.check("test", None)
    assert result.decision == DENY and result.rule is not None
    assert runner.names() == ["checker2"]


def test_add_checker_order() -> None:
    """addChecker › should add a new checker and maintain priority order"""
    engine = base_engine()
    engine.add_checker(C("*", {"type": "external", "name": "checker1"}, 5))
    engine.add_checker(C("*", {"type": "external", "name": "checker2"}, 10))
    assert [(c.priority, c.checker["name"]) for c in engine.get_checkers()] == [
        (10, "checker2"), (5, "checker1")]


def test_checker_tool_and_args_pattern() -> None:
    """checker matching logic › should match checkers using toolName and argsPattern"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("tool", ALLOW)],
               checkers=[C("tool", {"type": "external", "name": "matching"},
                           args_pattern='"safe":true'),
                         C("other", {"type": "external", "name": "non-matching"})],
               checker_runner=runner)
    engine.check("tool", {"safe": True})
    assert runner.names() == ["matching"]


def test_checker_global_wildcard() -> None:
    """checker matching logic › should match global wildcard (*) for checkers"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("*", ALLOW)], checkers=[C("*", {"type": "external", "name": "global"})],
               checker_runner=runner)
    engine.check("any_tool", None)
    assert runner.names() == ["global"]
    runner.calls.clear()
    engine.check("mcp_server_tool", None, "server")
    assert runner.names() == ["global"]


def test_checker_wildcard_patterns() -> None:
    """checker matching logic › should support wildcard patterns for checkers"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("mcp_server_tool", ALLOW, mcp_name="server")],
               checkers=[C("mcp_server_*", {"type": "external", "name": "wildcard"},
                           mcp_name="server")],
               checker_runner=runner)
    engine.check("mcp_server_tool", None, "server")
    assert runner.names() == ["wildcard"]


def test_checker_ask_user_to_deny() -> None:
    """checker matching logic › should run safety checkers when decision is ASK_USER and
    downgrade to DENY on failure"""
    runner = CheckerRunner({"decision": DENY, "reason": "Safety check failed"})
    engine = E([R("tool", ASK_USER)], checkers=[C("*", ALLOWED_PATH)], checker_runner=runner)
    assert d(engine, "tool") == DENY
    assert runner.calls


def test_checker_ask_user_kept() -> None:
    """checker matching logic › should run safety checkers when decision is ASK_USER and keep
    ASK_USER on success"""
    runner = CheckerRunner({"decision": ALLOW})
    engine = E([R("tool", ASK_USER)], checkers=[C("*", ALLOWED_PATH)], checker_runner=runner)
    assert d(engine, "tool") == ASK_USER
    assert runner.calls


def test_checker_downgrades_allow() -> None:
    """checker matching logic › should downgrade ALLOW to ASK_USER if checker returns
    ASK_USER"""
    runner = CheckerRunner({"decision": ASK_USER, "reason": "Suspicious path"})
    engine = E([R("tool", ALLOW)], checkers=[C("*", ALLOWED_PATH)], checker_runner=runner)
    assert d(engine, "tool") == ASK_USER


# -- getExcludedTools ---------------------------------------------------------------------------

S = {"_serverName": "server"}
EXCLUDED_CASES: list[tuple[str, list[PolicyRule], dict[str, Any], list[str]]] = [
    ("should return empty set when no rules provided", [], {"names": ["tool1"]}, []),
    ("should apply rules without explicit modes to all modes", [R("tool1", DENY)],
     {"names": ["tool1", "tool2"]}, ["tool1"]),
    ("should NOT exclude tool if higher priority argsPattern rule exists",
     [R("tool1", ALLOW, 100, args_pattern="safe", modes=[DEFAULT]),
      R("tool1", DENY, 10, modes=[DEFAULT])], {"names": ["tool1"]}, []),
    ("should include tools with DENY decision",
     [R("tool1", DENY, modes=[DEFAULT]), R("tool2", ALLOW, modes=[DEFAULT])],
     {"names": ["tool1", "tool2", "tool3"]}, ["tool1"]),
    ("should respect priority and ignore lower priority rules (DENY wins)",
     [R("tool1", DENY, 100, modes=[DEFAULT]), R("tool1", ALLOW, 10, modes=[DEFAULT])],
     {"names": ["tool1"]}, ["tool1"]),
    ("should respect priority and ignore lower priority rules (ALLOW wins)",
     [R("tool1", ALLOW, 100, modes=[DEFAULT]), R("tool1", DENY, 10, modes=[DEFAULT])],
     {"names": ["tool1"]}, []),
    ("should include tools in exclusion list only if explicitly denied in non-interactive mode",
     [R("tool1", ASK_USER, modes=[DEFAULT], interactive=True),
      R("tool1", DENY, modes=[DEFAULT], interactive=False)],
     {"names": ["tool1"], "non_interactive": True}, ["tool1"]),
    ("should specifically exclude ask_user tool in non-interactive mode",
     [R("ask_user", DENY, interactive=False), R("read_file", ALLOW)],
     {"names": ["ask_user", "read_file"], "non_interactive": True}, ["ask_user"]),
    ("should ignore rules with argsPattern",
     [R("tool1", DENY, args_pattern="something", modes=[DEFAULT])], {"names": ["tool1"]}, []),
    ("should respect approval mode (PLAN mode)", [R("tool1", DENY, modes=[PLAN])],
     {"names": ["tool1"], "mode": PLAN}, ["tool1"]),
    ("should respect approval mode (DEFAULT mode)", [R("tool1", DENY, modes=[PLAN])],
     {"names": ["tool1"], "mode": DEFAULT}, []),
    ("should respect wildcard ALLOW rules (e.g. YOLO mode)",
     [R("*", ALLOW, 999, modes=[YOLO]), R("dangerous-tool", DENY, 10, modes=[YOLO])],
     {"names": ["dangerous-tool", "safe-tool"], "mode": YOLO}, []),
    ("should respect server wildcard DENY",
     [R("mcp_server_*", DENY, mcp_name="server", modes=[DEFAULT])],
     {"names": ["mcp_server_tool1", "mcp_server_tool2", "mcp_other_tool"],
      "metadata": {"mcp_server_tool1": S, "mcp_server_tool2": S,
                   "mcp_other_tool": {"_serverName": "other"}}},
     ["mcp_server_tool1", "mcp_server_tool2"]),
    ("should expand server wildcard for specific tools if already processed",
     [R("mcp_server_*", DENY, 100, mcp_name="server", modes=[DEFAULT]),
      R("mcp_server_tool1", DENY, 10, mcp_name="server", modes=[DEFAULT])],
     {"names": ["mcp_server_tool1", "mcp_server_tool2"],
      "metadata": {"mcp_server_tool1": S, "mcp_server_tool2": S}},
     ["mcp_server_tool1", "mcp_server_tool2"]),
    ("should exclude run_shell_command but NOT write_file in simulated Plan Mode",
     [R("write_file", ALLOW, 70, args_pattern="plans", modes=[PLAN]),
      R("*", DENY, 60, modes=[PLAN]), R(SH, ASK_USER, 10)],
     {"names": ["write_file", SH, "read_file"], "mode": PLAN}, [SH, "read_file"]),
    ("should NOT exclude tool if covered by a higher priority wildcard ALLOW",
     [R("mcp_server_*", ALLOW, 100, mcp_name="server", modes=[DEFAULT]),
      R("mcp_server_tool1", DENY, 10, mcp_name="server", modes=[DEFAULT])],
     {"names": ["mcp_server_tool1"], "metadata": {"mcp_server_tool1": S}}, []),
    ("should handle global wildcard * in getExcludedTools", [R("*", DENY, 10)],
     {"names": ["toolA", "toolB", "mcp_server_toolC"]},
     ["toolA", "toolB", "mcp_server_toolC"]),
    ("should handle MCP category wildcard *__* in getExcludedTools", [R("mcp_*", DENY, 10)],
     {"names": ["localTool", "mcp_myserver_mytool"],
      "metadata": {"mcp_myserver_mytool": {"_serverName": "myserver"}}},
     ["mcp_myserver_mytool"]),
    ("should handle tool wildcard mcp_server_* in getExcludedTools",
     [R("mcp_server_*", DENY, 10)],
     {"names": ["localTool", "mcp_server_search", "mcp_otherserver_read"],
      "metadata": {"mcp_server_search": S,
                   "mcp_otherserver_read": {"_serverName": "otherserver"}}},
     ["mcp_server_search"]),
]


@pytest.mark.parametrize(("name", "rules", "setup", "expected"), EXCLUDED_CASES,
                         ids=[c[0] for c in EXCLUDED_CASES])
def test_excluded_tools(name: str, rules: list[PolicyRule], setup: dict[str, Any],
                        expected: list[str]) -> None:
    """getExcludedTools › it.each(testCases) '$name'"""
    engine = E(rules, approval_mode=setup.get("mode", DEFAULT),
               non_interactive=setup.get("non_interactive", False))
    assert sorted(engine.excluded_tools(setup.get("metadata"), setup["names"])) == \
        sorted(expected)


DESTRUCTIVE = [R("*", DENY, 10, tool_annotations={"destructiveHint": True})]


def test_excluded_skip_annotations_without_metadata() -> None:
    """getExcludedTools › should skip annotation-based rules when no metadata is provided"""
    assert E(DESTRUCTIVE).excluded_tools(None, {"dangerous_tool"}) == set()


def test_excluded_annotation_deny_with_metadata() -> None:
    """getExcludedTools › should exclude tools matching annotation-based DENY rule when
    metadata is provided"""
    metadata = {"dangerous_tool": {"destructiveHint": True}, "safe_tool": {"readOnlyHint": True}}
    assert E(DESTRUCTIVE).excluded_tools(metadata, ["dangerous_tool", "safe_tool"]) == {
        "dangerous_tool"}


def test_excluded_annotations_no_match() -> None:
    """getExcludedTools › should NOT exclude tools whose annotations do not match"""
    assert E(DESTRUCTIVE).excluded_tools({"safe_tool": {"readOnlyHint": True}},
                                         ["safe_tool"]) == set()


def test_excluded_name_and_annotations() -> None:
    """getExcludedTools › should exclude tools matching both toolName pattern AND
    annotations"""
    engine = E([R("mcp_server_*", DENY, 10, mcp_name="server",
                  tool_annotations={"destructiveHint": True})])
    metadata = {"mcp_server_dangerous_tool": {"destructiveHint": True, "_serverName": "server"},
                "mcp_other_dangerous_tool": {"destructiveHint": True, "_serverName": "other"},
                "mcp_server_safe_tool": {"readOnlyHint": True, "_serverName": "server"}}
    assert engine.excluded_tools(metadata, list(metadata)) == {"mcp_server_dangerous_tool"}


def test_excluded_unprocessed_global_deny() -> None:
    """getExcludedTools › should exclude unprocessed tools from allToolNames when global DENY
    is active"""
    engine = E([R("glob", ALLOW, 70), R("read_file", ALLOW, 70),
                R("mcp_*", ASK_USER, 70, tool_annotations={"readOnlyHint": True}),
                R("*", DENY, 60)])
    names = ["glob", "read_file", "shell", "web_fetch", "mcp_my-server_read_mcp_tool",
             "mcp_my-server_write_mcp_tool"]
    metadata = {"mcp_my-server_read_mcp_tool": {"readOnlyHint": True, "_serverName": "my-server"},
                "mcp_my-server_write_mcp_tool": {"readOnlyHint": False,
                                                 "_serverName": "my-server"}}
    assert engine.excluded_tools(metadata, names) == {"shell", "web_fetch",
                                                      "mcp_my-server_write_mcp_tool"}


def test_excluded_mcp_wildcard_server_name() -> None:
    """getExcludedTools › should match MCP wildcard rules when explicitly mapped with
    _serverName"""
    engine = E([R("mcp_*", ASK_USER, 70, tool_annotations={"readOnlyHint": True}),
                R("*", DENY, 60)])
    metadata = {"mcp_myserver_read_tool": {"readOnlyHint": True, "_serverName": "myserver"},
                "mcp_myserver_write_tool": {"readOnlyHint": False, "_serverName": "myserver"}}
    assert engine.excluded_tools(metadata, list(metadata)) == {"mcp_myserver_write_tool"}


def test_excluded_without_all_tool_names() -> None:
    """getExcludedTools › should not exclude unprocessed tools when allToolNames is not
    provided (backward compat)"""
    engine = E([R("glob", ALLOW, 70), R("read_file", ALLOW, 70), R("*", DENY, 60)])
    assert engine.excluded_tools() == set()


def test_excluded_plan_toml_simulation() -> None:
    """getExcludedTools › should correctly simulate plan.toml rules with allToolNames
    including MCP tools"""
    allowed = ["glob", "grep_search", "read_file", "list_directory", "google_web_search",
               "activate_skill"]
    engine = E([*(R(t, ALLOW, 70, modes=[PLAN]) for t in allowed),
                R("ask_user", ASK_USER, 70, modes=[PLAN]),
                R("exit_plan_mode", ASK_USER, 70, modes=[PLAN]),
                R("mcp_*", ASK_USER, 70, modes=[PLAN], tool_annotations={"readOnlyHint": True}),
                R("web_fetch", ASK_USER, 70, modes=[PLAN]), R("*", DENY, 60, modes=[PLAN])],
               approval_mode=PLAN)
    names = [*allowed, "ask_user", "exit_plan_mode", "shell", "write_file", "replace",
             "web_fetch", "write_todos", "memory", "mcp_mcp-server_read_tool",
             "mcp_mcp-server_write_tool"]
    metadata = {"mcp_mcp-server_read_tool": {"readOnlyHint": True, "_serverName": "mcp-server"},
                "mcp_mcp-server_write_tool": {"readOnlyHint": False,
                                              "_serverName": "mcp-server"}}
    assert engine.excluded_tools(metadata, names) == {
        "shell", "write_todos", "memory", "write_file", "replace", "mcp_mcp-server_write_tool"}


# -- YOLO mode with ask_user tool, Plan Mode ----------------------------------------------------

YOLO_ASK = [R("ask_user", ASK_USER, 999, modes=[YOLO]),
            R("*", ALLOW, PRIORITY_YOLO_ALLOW_ALL, modes=[YOLO])]


def test_yolo_ask_user_tool() -> None:
    """YOLO mode with ask_user tool › should return ASK_USER for ask_user tool even in YOLO
    mode"""
    assert d(E(YOLO_ASK, approval_mode=YOLO), "ask_user", {}) == ASK_USER


def test_yolo_other_tools() -> None:
    """YOLO mode with ask_user tool › should return ALLOW for other tools in YOLO mode"""
    assert d(E(YOLO_ASK, approval_mode=YOLO), SH, shell("ls")) == ALLOW


def test_plan_mode_skill_vs_shell() -> None:
    """Plan Mode › should allow activate_skill but deny shell commands in Plan Mode"""
    message = ("You are in Plan Mode with access to read-only tools. Execution of scripts "
               "(including those from skills) is blocked.")
    engine = E([R("*", DENY, 60, modes=[PLAN], deny_message=message),
                R("activate_skill", ALLOW, 70, modes=[PLAN])], approval_mode=PLAN)
    assert d(engine, "activate_skill", {"name": "test"}) == ALLOW
    result = engine.check(SH, shell("ls"))
    assert result.decision == DENY
    assert result.rule is not None and "Execution of scripts (including those from skills) " \
        "is blocked" in (result.rule.deny_message or "")


def test_plan_mode_enter_denied() -> None:
    """Plan Mode › should deny enter_plan_mode when already in PLAN mode"""
    engine = E([R("enter_plan_mode", DENY, 70, modes=[PLAN],
                  deny_message="You are already in Plan Mode.")], approval_mode=PLAN)
    result = engine.check("enter_plan_mode", None)
    assert result.decision == DENY
    assert result.rule is not None and result.rule.deny_message == "You are already in Plan Mode."


def test_plan_mode_exit_denied_in_default() -> None:
    """Plan Mode › should deny exit_plan_mode when in DEFAULT mode"""
    engine = E([R("exit_plan_mode", DENY, 10, modes=[DEFAULT],
                  deny_message="You are not in Plan Mode.")])
    result = engine.check("exit_plan_mode", None)
    assert result.decision == DENY
    assert result.rule is not None and result.rule.deny_message == "You are not in Plan Mode."


def test_plan_tools_denied_in_yolo() -> None:
    """Plan Mode › should deny both plan tools in YOLO mode"""
    engine = E([R("enter_plan_mode", DENY, 999, modes=[YOLO]),
                R("exit_plan_mode", DENY, 999, modes=[YOLO])], approval_mode=YOLO)
    assert d(engine, "enter_plan_mode") == DENY
    assert d(engine, "exit_plan_mode") == DENY


# -- removeRulesByTier, removeRulesBySource, removeCheckers* ------------------------------------

def test_remove_rules_by_tier() -> None:
    """removeRulesByTier › should remove rules matching a specific tier"""
    engine = base_engine()
    for name, priority in (("rule1", 1.1), ("rule2", 1.5), ("rule3", 2.1), ("rule4", 0.5),
                           ("rule5", 0)):
        engine.add_rule(R(name, ALLOW, priority))
    assert len(engine.get_rules()) == 5
    engine.remove_rules_by_tier(1)
    assert sorted(r.tool_name for r in engine.get_rules()) == ["rule3", "rule4", "rule5"]


def test_remove_rules_tier_zero() -> None:
    """removeRulesByTier › should handle removing tier 0 rules (including undefined
    priority)"""
    engine = base_engine()
    for name, priority in (("rule1", 0.5), ("rule2", 0), ("rule3", 1.5)):
        engine.add_rule(R(name, ALLOW, priority))
    engine.remove_rules_by_tier(0)
    assert [r.tool_name for r in engine.get_rules()] == ["rule3"]


def test_remove_rules_by_source() -> None:
    """removeRulesBySource › should remove rules matching a specific source"""
    engine = base_engine()
    for name, source in (("rule1", "source1"), ("rule2", "source2"), ("rule3", "source1")):
        engine.add_rule(R(name, ALLOW, source=source))
    engine.remove_rules_by_source("source1")
    assert [r.tool_name for r in engine.get_rules()] == ["rule2"]


def test_remove_checkers_by_tier() -> None:
    """removeCheckersByTier › should remove checkers matching a specific tier"""
    engine = base_engine()
    for name, priority in (("c1", 1.1), ("c2", 1.9), ("c3", 2.5)):
        engine.add_checker(C("*", {"type": "external", "name": name}, priority))
    engine.remove_checkers_by_tier(1)
    assert [c.priority for c in engine.get_checkers()] == [2.5]


def test_remove_checkers_by_source() -> None:
    """removeCheckersBySource › should remove checkers matching a specific source"""
    engine = base_engine()
    for name, source in (("c1", "sourceA"), ("c2", "sourceB"), ("c3", "sourceA")):
        engine.add_checker(C("*", {"type": "external", "name": name}, source=source))
    engine.remove_checkers_by_source("sourceA")
    assert [c.checker["name"] for c in engine.get_checkers()] == ["c2"]


# -- Tool Annotations, hook checkers ------------------------------------------------------------

def test_annotations_semantic() -> None:
    """Tool Annotations › should match tools by semantic annotations"""
    engine = E([R("*", ALLOW, 10, tool_annotations={"readOnlyHint": True})],
               default_decision=DENY)
    assert d(engine, "read", {}, None, {"readOnlyHint": True, "extra": "info"}) == ALLOW
    assert d(engine, "write", {}, None, {"readOnlyHint": False}) == DENY
    assert d(engine, "write", {}, None, {}) == DENY


def test_annotations_scoped() -> None:
    """Tool Annotations › should support scoped annotation rules"""
    engine = E([R("mcp_*", DENY, 20, tool_annotations={"experimental": True}),
                R("mcp_*", ALLOW, 10)])
    assert d(engine, "mcp_mcp_test", None, "mcp", {"experimental": True}) == DENY
    assert d(engine, "mcp_mcp_stable", None, "mcp", {"experimental": False}) == ALLOW


def test_hook_checkers_order() -> None:
    """hook checkers › should add and retrieve hook checkers in priority order"""
    engine = base_engine()
    engine.add_hook_checker(HookCheckerRule({"type": "external", "name": "h1"}, 5))
    engine.add_hook_checker(HookCheckerRule({"type": "external", "name": "h2"}, 10))
    assert [h.priority for h in engine.get_hook_checkers()] == [10, 5]


# -- disableAlwaysAllow -------------------------------------------------------------------------

ALWAYS = 3 + ALWAYS_ALLOW_PRIORITY_FRACTION / 1000


def test_disable_always_allow_ignores() -> None:
    """disableAlwaysAllow › should ignore "Always Allow" rules when disableAlwaysAllow is
    true"""
    engine = E([R("test-tool", ALLOW, ALWAYS, source="Dynamic (Confirmed)")],
               disable_always_allow=True, default_decision=ASK_USER)
    assert d(engine, "test-tool", {}) == ASK_USER


def test_always_allow_respected() -> None:
    """disableAlwaysAllow › should respect "Always Allow" rules when disableAlwaysAllow is
    false"""
    engine = E([R("test-tool", ALLOW, ALWAYS, source="Dynamic (Confirmed)")],
               disable_always_allow=False, default_decision=ASK_USER)
    assert d(engine, "test-tool", {}) == ALLOW


def test_disable_always_allow_keeps_others() -> None:
    """disableAlwaysAllow › should NOT ignore other rules when disableAlwaysAllow is true"""
    engine = E([R("test-tool", ALLOW, 1.5, source="Normal Rule")], disable_always_allow=True,
               default_decision=ASK_USER)
    assert d(engine, "test-tool", {}) == ALLOW


def test_excluded_disable_always_allow() -> None:
    """getExcludedTools with disableAlwaysAllow › should exclude tool if an Always Allow rule
    says ALLOW but disableAlwaysAllow is true (falling back to DENY)"""
    engine = E([R("test-tool", ALLOW, ALWAYS)], disable_always_allow=True,
               default_decision=DENY)
    assert "test-tool" in engine.excluded_tools(None, {"test-tool"})


def test_excluded_always_allow_enabled() -> None:
    """getExcludedTools with disableAlwaysAllow › should NOT exclude tool if ALWAYS_ALLOW is
    enabled and rule says ALLOW"""
    engine = E([R("test-tool", ALLOW, ALWAYS)], disable_always_allow=False,
               default_decision=DENY)
    assert "test-tool" not in engine.excluded_tools(None, {"test-tool"})


# -- interactive matching -----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "interactive", "non_interactive", "expected"), [
    ("should ignore interactive rules in non-interactive mode", True, True, DENY),
    ("should allow interactive rules in interactive mode", True, False, ALLOW),
    ("should ignore non-interactive rules in interactive mode", False, False, DENY),
    ("should allow non-interactive rules in non-interactive mode", False, True, ALLOW),
], ids=lambda v: v if isinstance(v, str) and v.startswith("should") else "")
def test_interactive_matching(name: str, interactive: bool, non_interactive: bool,
                              expected: str) -> None:
    """interactive matching › (the four named cases)"""
    engine = E([R("my_tool", ALLOW, interactive=interactive)], non_interactive=non_interactive,
               default_decision=DENY)
    assert d(engine, "my_tool", {}) == expected


def test_interactive_unset_applies_to_both() -> None:
    """interactive matching › should apply rules without interactive flag to both"""
    rule = R("my_tool", ALLOW)
    for non_interactive in (False, True):
        engine = E([rule], non_interactive=non_interactive, default_decision=DENY)
        assert d(engine, "my_tool", {}) == ALLOW


# -- additional_permissions ---------------------------------------------------------------------

WORKSPACE = "/workspace"


@pytest.mark.parametrize(("name", "permissions", "expected"), [
    ("should allow permissions exactly at the workspace root",
     {"fileSystem": {"read": [WORKSPACE]}}, ALLOW),
    ("should allow permissions for subpaths of the workspace",
     {"fileSystem": {"read": [f"{WORKSPACE}/subdir/file.txt"]}}, ALLOW),
    ("should downgrade ALLOW to ASK_USER if a read path is outside workspace",
     {"fileSystem": {"read": ["/outside"]}}, ASK_USER),
    ("should downgrade ALLOW to ASK_USER if a write path is outside workspace",
     {"fileSystem": {"write": ["/outside/secret.txt"]}}, ASK_USER),
    ("should downgrade ALLOW to ASK_USER if any path in a list is outside workspace",
     {"fileSystem": {"read": [f"{WORKSPACE}/safe", "/outside"]}}, ASK_USER),
    ("should handle missing or empty fileSystem permissions gracefully (ALLOW)",
     {"network": True}, ALLOW),
    ("should handle non-array fileSystem paths gracefully",
     {"fileSystem": {"read": "/not/an/array"}}, ALLOW),
], ids=lambda v: v if isinstance(v, str) and v.startswith("should") else "")
def test_additional_permissions(name: str, permissions: dict[str, Any], expected: str) -> None:
    """additional_permissions › (the seven named cases)"""
    engine = E([R(SH, ALLOW, modes=[AUTO_EDIT])], approval_mode=AUTO_EDIT,
               sandbox_manager=Sandbox(workspace=WORKSPACE))
    assert d(engine, SH, shell("ls", additional_permissions=permissions)) == expected
