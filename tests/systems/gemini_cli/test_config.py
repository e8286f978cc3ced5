"""Gemini CLI's ``packages/core/src/policy/config.test.ts``, ported whole
(google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2).

Each test's docstring names its ``describe`` and ``it``. Upstream mocks ``Storage`` (the
system and user policy folders point at folders that do not exist), ``isDirectorySecure``
(secure unless a test says otherwise), ``fs`` (``mockPolicyFile`` makes one policy file
appear) and spies on ``loadPoliciesFromToml`` and ``coreEvents.emitFeedback``. Here the
folders are real ones under ``tmp_path`` (:func:`mock_policy_file` writes the file),
``storage=`` and ``is_secure=`` are the two mocks, ``monkeypatch`` is the spy, and the
feedback a call emitted is ``config.feedback``. ``MOCK_DEFAULT_DIR`` is an empty folder
unless a test writes into it; a test that passes no default folder gets the built-in
policies (gemini-cli's ``policies/*.toml``, vendored beside the port).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolkit.systems.gemini_cli import config as config_module
from toolkit.systems.gemini_cli.config import (
    BUILTIN_POLICIES,
    PolicyEngineConfig,
    Storage,
    clear_emitted_policy_warnings,
    create_policy_engine_config,
    get_policy_directories,
)
from toolkit.systems.gemini_cli.policy import ALLOW, ASK_USER, DENY, PolicyRule
from toolkit.systems.gemini_cli.toml_loader import PolicyLoadResult

SOURCE = "packages/core/src/policy/config.test.ts"
DEFAULT, AUTO_EDIT, YOLO, PLAN = "default", "autoEdit", "yolo", "plan"


@pytest.fixture(autouse=True)
def _fresh_warnings() -> Iterator[None]:
    """beforeEach: clearEmittedPolicyWarnings()."""
    clear_emitted_policy_warnings()
    yield
    clear_emitted_policy_warnings()


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    """Storage.getUserPoliciesDir / getSystemPoliciesDir: folders that do not exist."""
    return Storage(system_policies_dir=str(tmp_path / "non/existent/system/policies"),
                   user_policies_dir=str(tmp_path / "non/existent/user/policies"))


@pytest.fixture
def default_dir(tmp_path: Path) -> str:
    """MOCK_DEFAULT_DIR (empty until mock_policy_file writes into it)."""
    folder = tmp_path / "mock" / "default" / "policies"
    folder.mkdir(parents=True)
    return str(folder)


def mock_policy_file(path: str | Path, content: str) -> None:
    """mockPolicyFile: the file (and its folder) exist with this content."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(content, encoding="utf-8")


def _secure(_: str) -> tuple[bool, str | None]:
    return True, None


def make(settings: dict[str, Any], mode: str, default: str | None, storage: Storage,
         interactive: bool = True, **kw: Any) -> PolicyEngineConfig:
    kw.setdefault("is_secure", _secure)
    return create_policy_engine_config(settings, mode, default, interactive, storage=storage,
                                       **kw)


def find(config: PolicyEngineConfig, **where: Any) -> PolicyRule | None:
    """``config.rules?.find(r => ...)`` on attribute equality."""
    return next((r for r in config.rules
                 if all(getattr(r, k) == v for k, v in where.items())), None)


def every(config: PolicyEngineConfig, **where: Any) -> list[PolicyRule]:
    return [r for r in config.rules if all(getattr(r, k) == v for k, v in where.items())]


class _Spy:
    """vi.spyOn(tomlLoader, 'loadPoliciesFromToml').mockResolvedValue(empty)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, paths: Any, tier_of: Any, shown: Any = str) -> PolicyLoadResult:
        self.calls.append([str(p) for p in paths])
        return PolicyLoadResult()


# -- describe('createPolicyEngineConfig') -------------------------------------------------------

def test_insecure_system_policy_directory_is_skipped(
        tmp_path: Path, default_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """createPolicyEngineConfig › should filter out insecure system policy directories"""
    system = str(tmp_path / "insecure" / "system" / "policies")
    storage = Storage(system_policies_dir=system,
                      user_policies_dir=str(tmp_path / "non/existent/user/policies"))
    spy = _Spy()
    monkeypatch.setattr(config_module, "load_policies", spy)
    config = make({}, DEFAULT, default_dir, storage,
                  is_secure=lambda p: (False, "Insecure directory") if p == system
                  else (True, None))
    [called] = spy.calls
    assert system not in called
    assert storage.user_policies_dir in called and default_dir in called
    assert ("warning", f"Security Warning: Skipping system policies from {system}: Insecure "
                       "directory") in config.feedback


def test_insecure_admin_policy_paths_are_not_skipped(
        tmp_path: Path, default_dir: str, storage: Storage,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """createPolicyEngineConfig › should NOT filter out insecure supplemental admin policy
    directories"""
    admin = str(tmp_path / "insecure" / "admin" / "policies")
    spy = _Spy()
    monkeypatch.setattr(config_module, "load_policies", spy)
    make({"adminPolicyPaths": [admin]}, DEFAULT, default_dir, storage,
         is_secure=lambda p: (False, "Insecure directory") if p == admin else (True, None))
    [called] = spy.calls
    assert admin in called
    assert storage.system_policies_dir in called and storage.user_policies_dir in called
    assert default_dir in called


def test_default_decision_asks_and_no_rules(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should return ASK_USER for write tools and ALLOW for
    read-only tools by default (every folder empty)"""
    config = make({}, DEFAULT, default_dir, storage)
    assert config.default_decision == ASK_USER
    assert config.rules == []


def test_tools_allowed(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should allow tools in tools.allowed"""
    config = make({"tools": {"allowed": ["run_shell_command"]}}, DEFAULT, default_dir, storage)
    rule = find(config, tool_name="run_shell_command", decision=ALLOW)
    assert rule is not None and rule.priority == pytest.approx(4.3, abs=1e-5)


def test_tools_exclude(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should deny tools in tools.exclude"""
    config = make({"tools": {"exclude": ["run_shell_command"]}}, DEFAULT, default_dir, storage)
    rule = find(config, tool_name="run_shell_command", decision=DENY)
    assert rule is not None and rule.priority == pytest.approx(4.4, abs=1e-5)


def test_allowed_mcp_servers(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should allow tools from allowed MCP servers"""
    config = make({"mcp": {"allowed": ["my-server"]}}, DEFAULT, default_dir, storage)
    rule = find(config, mcp_name="my-server", decision=ALLOW)
    assert rule is not None and rule.priority == 4.1


def test_excluded_mcp_servers(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should deny tools from excluded MCP servers"""
    config = make({"mcp": {"excluded": ["my-server"]}}, DEFAULT, default_dir, storage)
    rule = find(config, mcp_name="my-server", decision=DENY)
    assert rule is not None and rule.priority == 4.9


def test_trusted_mcp_servers(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should allow tools from trusted MCP servers"""
    config = make({"mcpServers": {"trusted-server": {"trust": True},
                                  "untrusted-server": {"trust": False}}},
                  DEFAULT, default_dir, storage)
    rule = find(config, mcp_name="trusted-server", decision=ALLOW)
    assert rule is not None and rule.priority == 4.2
    assert find(config, mcp_name="untrusted-server", decision=ALLOW) is None


def _server(command: str) -> dict[str, Any]:
    """new MCPServerConfig(command, [])."""
    return {"command": command, "args": []}


def test_configured_servers_not_auto_allowed_headless_by_default(
        default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should NOT automatically allow configured MCP servers in
    non-interactive mode by default"""
    config = make({"mcpServers": {"server-1": _server("node")}}, DEFAULT, default_dir,
                  storage, interactive=False)
    assert find(config, mcp_name="server-1", decision=ALLOW) is None


def test_configured_servers_auto_allowed_headless_when_opted_in(
        default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should automatically allow configured MCP servers in
    non-interactive mode if opted-in"""
    config = make({"mcp": {"autoAllowInHeadless": True},
                   "mcpServers": {"server-1": _server("node"), "server-2": _server("python")}},
                  DEFAULT, default_dir, storage, interactive=False)
    for name in ("server-1", "server-2"):
        rule = find(config, mcp_name=name, decision=ALLOW)
        assert rule is not None and rule.source == "Settings (Headless MCP Auto-Allow)"


def test_configured_servers_not_auto_allowed_interactive(
        default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should NOT automatically allow configured MCP servers in
    interactive mode even if opted-in"""
    config = make({"mcp": {"autoAllowInHeadless": True},
                   "mcpServers": {"server-1": _server("node")}},
                  DEFAULT, default_dir, storage, interactive=True)
    assert find(config, mcp_name="server-1", decision=ALLOW) is None


def test_headless_auto_allow_does_not_duplicate(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should NOT duplicate allow rules if an MCP server is already
    explicitly allowed, wildcard allowed, or trusted"""
    config = make({"mcp": {"autoAllowInHeadless": True, "allowed": ["server-1", "*"]},
                   "mcpServers": {"server-1": _server("node"), "server-2": _server("node"),
                                  "server-3": {"trust": True}, "server-4": _server("node")}},
                  DEFAULT, default_dir, storage, interactive=False)
    rules1 = every(config, mcp_name="server-1", decision=ALLOW)
    assert [r.source for r in rules1] == ["Settings (MCP Allowed)"]
    assert every(config, mcp_name="server-2", decision=ALLOW) == []
    rules3 = every(config, mcp_name="server-3", decision=ALLOW)
    assert [r.source for r in rules3] == ["Settings (MCP Trusted)"]
    assert every(config, mcp_name="server-4", decision=ALLOW) == []
    wildcard = find(config, mcp_name="*", decision=ALLOW)
    assert wildcard is not None and wildcard.tool_name == "mcp_*"


def test_headless_auto_allow_wildcard_server(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should use correct tool name pattern for wildcard server in
    headless auto-allow"""
    config = make({"mcp": {"autoAllowInHeadless": True}, "mcpServers": {"*": _server("node")}},
                  DEFAULT, default_dir, storage, interactive=False)
    rule = find(config, mcp_name="*", decision=ALLOW)
    assert rule is not None and rule.tool_name == "mcp_*"


def test_several_mcp_server_settings_together(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should handle multiple MCP server configurations together"""
    config = make({"mcp": {"allowed": ["allowed-server"], "excluded": ["excluded-server"]},
                   "mcpServers": {"trusted-server": {"trust": True}}},
                  DEFAULT, default_dir, storage)
    allowed = find(config, mcp_name="allowed-server", decision=ALLOW)
    trusted = find(config, mcp_name="trusted-server", decision=ALLOW)
    excluded = find(config, mcp_name="excluded-server", decision=DENY)
    assert allowed is not None and allowed.priority == 4.1
    assert trusted is not None and trusted.priority == 4.2
    assert excluded is not None and excluded.priority == 4.9


def test_yolo_allows_every_tool(storage: Storage) -> None:
    """createPolicyEngineConfig › should allow all tools in YOLO mode (built-in policies)"""
    config = make({}, YOLO, None, storage)
    rule = find(config, decision=ALLOW, tool_name="*")
    assert rule is not None and rule.priority == pytest.approx(1.998, abs=1e-5)


def test_auto_edit_allows_the_edit_tool(storage: Storage) -> None:
    """createPolicyEngineConfig › should allow edit tool in AUTO_EDIT mode (built-in
    policies)"""
    config = make({}, AUTO_EDIT, None, storage)
    rule = next(r for r in config.rules if r.tool_name == "replace" and r.decision == ALLOW
                and AUTO_EDIT in (r.modes or ()))
    assert rule.priority == pytest.approx(1.015, abs=1e-5)


def test_exclude_beats_allow(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should prioritize exclude over allow"""
    config = make({"tools": {"allowed": ["run_shell_command"],
                             "exclude": ["run_shell_command"]}}, DEFAULT, default_dir, storage)
    deny = find(config, tool_name="run_shell_command", decision=DENY)
    allow = find(config, tool_name="run_shell_command", decision=ALLOW)
    assert deny is not None and allow is not None and deny.priority > allow.priority


def test_server_exclude_beats_a_tool_allow(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should prioritize specific tool allows over MCP server
    excludes (its assertions: the server deny, 4.9, outranks the tool allow, 4.3)"""
    config = make({"mcp": {"excluded": ["my-server"]},
                   "tools": {"allowed": ["mcp_my-server_specific-tool"]}},
                  DEFAULT, default_dir, storage)
    deny = find(config, mcp_name="my-server", decision=DENY)
    allow = find(config, tool_name="mcp_my-server_specific-tool", decision=ALLOW)
    assert deny is not None and deny.priority == 4.9
    assert allow is not None and allow.priority == pytest.approx(4.3, abs=1e-5)


def test_server_allow_and_tool_exclude(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should handle MCP server allows and tool excludes"""
    config = make({"mcp": {"allowed": ["my-server"]},
                   "mcpServers": {"my-server": {"trust": True}},
                   "tools": {"exclude": ["mcp_my-server_dangerous-tool"]}},
                  DEFAULT, default_dir, storage)
    server_allow = find(config, mcp_name="my-server", decision=ALLOW)
    tool_deny = find(config, tool_name="mcp_my-server_dangerous-tool", decision=DENY)
    assert server_allow is not None and tool_deny is not None
    assert tool_deny.priority > server_allow.priority


def test_complex_priority_scenarios(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should handle complex priority scenarios correctly"""
    mock_policy_file(Path(default_dir) / "default.toml",
                     '[[rule]]\ntoolName = "glob"\ndecision = "allow"\npriority = 50\n')
    config = make({"tools": {"allowed": ["mcp_trusted-server_tool1", "other-tool"],
                             "exclude": ["mcp_trusted-server_tool2", "glob"]},
                   "mcp": {"allowed": ["allowed-server"], "excluded": ["excluded-server"]},
                   "mcpServers": {"trusted-server": {"trust": True}}},
                  DEFAULT, default_dir, storage)
    glob_deny = find(config, tool_name="glob", decision=DENY)
    glob_allow = find(config, tool_name="glob", decision=ALLOW)
    assert glob_deny is not None and glob_deny.priority == pytest.approx(4.4, abs=1e-5)
    assert glob_allow is not None and glob_allow.priority == pytest.approx(1.05, abs=1e-5)
    highest = [r for r in config.rules
               if abs(r.priority - 4.4) < 0.01 or abs(r.priority - 4.9) < 0.01]
    assert highest and all(r.decision == DENY for r in highest)


def test_mcp_servers_without_trust(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should handle MCP servers with undefined trust property"""
    config = make({"mcpServers": {"no-trust-property": {}, "explicit-false": {"trust": False}}},
                  DEFAULT, default_dir, storage)
    assert find(config, mcp_name="no-trust-property", decision=ALLOW) is None
    assert find(config, mcp_name="explicit-false", decision=ALLOW) is None


def test_yolo_allow_all_beats_write_tool_rules(storage: Storage) -> None:
    """createPolicyEngineConfig › should have YOLO allow-all rule beat write tool rules in
    YOLO mode (built-in policies)"""
    config = make({"tools": {"exclude": ["dangerous-tool"]}}, YOLO, None, storage)
    wildcard = find(config, tool_name="*", decision=ALLOW)
    assert wildcard is not None
    for rule in every(config, tool_name="run_shell_command", decision=ASK_USER):
        assert wildcard.priority > rule.priority
    exclude = find(config, tool_name="dangerous-tool", decision=DENY)
    assert exclude is not None and exclude.priority == pytest.approx(4.4, abs=1e-5)


def test_args_pattern_in_policy_rules(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should support argsPattern in policy rules"""
    mock_policy_file(Path(default_dir) / "write.toml",
                     '\n  [[rule]]\n  toolName = "run_shell_command"\n'
                     '  argsPattern = "\\"command\\":\\"git (status|diff|log)\\""\n'
                     '  decision = "allow"\n  priority = 150\n  ')
    config = make({}, DEFAULT, default_dir, storage)
    rule = find(config, tool_name="run_shell_command", decision=ALLOW)
    assert rule is not None and rule.priority == pytest.approx(1.15, abs=1e-5)
    assert rule.compiled is not None
    assert rule.compiled.search('{"command":"git status"}')
    assert not rule.compiled.search('{"command":"git commit"}')


def test_safety_checker_from_toml(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should load safety_checker configuration from TOML"""
    mock_policy_file(Path(default_dir) / "safety.toml",
                     '\n[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 10\n\n'
                     '[[safety_checker]]\ntoolName = "write_file"\npriority = 10\n'
                     '[safety_checker.checker]\ntype = "in-process"\nname = "allowed-path"\n'
                     'required_context = ["environment"]\n')
    config = make({}, DEFAULT, default_dir, storage)
    assert find(config, tool_name="write_file", decision=ALLOW) is not None
    checker = next(c for c in config.checkers
                   if c.tool_name == "write_file" and c.checker["type"] == "in-process")
    assert checker.checker["name"] == "allowed-path"


def test_invalid_in_process_checker_name_rejects_the_file(
        default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should reject invalid in-process checker names"""
    mock_policy_file(Path(default_dir) / "invalid_safety.toml",
                     '\n[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 10\n\n'
                     '[[safety_checker]]\ntoolName = "write_file"\npriority = 10\n'
                     '[safety_checker.checker]\ntype = "in-process"\nname = "invalid-name"\n')
    config = make({}, DEFAULT, default_dir, storage)
    assert find(config, tool_name="write_file") is None
    # toolkit: the schema error is reported, located at the checker's name
    [error] = config.errors
    assert error.error_type == "schema_validation" and error.line == 12


def test_mcp_name_in_policy_rules(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should support mcpName in policy rules from TOML"""
    mock_policy_file(Path(default_dir) / "mcp.toml",
                     '\n  [[rule]]\n  toolName = "my-tool"\n  mcpName = "my-server"\n'
                     '  decision = "allow"\n  priority = 150\n  ')
    config = make({}, DEFAULT, default_dir, storage)
    rule = find(config, tool_name="mcp_my-server_my-tool", mcp_name="my-server", decision=ALLOW)
    assert rule is not None and rule.priority == pytest.approx(1.15, abs=1e-5)


def test_discovered_tools_ask_by_default(storage: Storage) -> None:
    """createPolicyEngineConfig › should have default ASK_USER rule for discovered tools
    (built-in policies)"""
    config = make({}, DEFAULT, None, storage)
    rule = find(config, tool_name="discovered_tool_*", decision=ASK_USER)
    assert rule is not None and rule.priority == pytest.approx(1.01, abs=1e-5)


def test_shell_tool_alias_is_normalised(default_dir: str, storage: Storage) -> None:
    """createPolicyEngineConfig › should normalize legacy "ShellTool" alias to
    "run_shell_command" """
    config = make({"tools": {"allowed": ["ShellTool"]}}, DEFAULT, default_dir, storage)
    rule = find(config, tool_name="run_shell_command", decision=ALLOW)
    assert rule is not None and rule.priority == pytest.approx(4.3, abs=1e-5)


def test_user_policy_overrides_plan_mode_deny(tmp_path: Path) -> None:
    """createPolicyEngineConfig › should allow overriding Plan Mode deny with user policy"""
    user = tmp_path / "gemini-cli-test" / "user" / "policies"
    storage = Storage(system_policies_dir=str(tmp_path / "non/existent/system/policies"),
                      user_policies_dir=str(user))
    mock_policy_file(user / "user-plan.toml",
                     '\n[[rule]]\ntoolName = "run_shell_command"\n'
                     'commandPrefix = ["git status", "git diff"]\ndecision = "allow"\n'
                     'priority = 100\nmodes = ["plan"]\n\n[[rule]]\n'
                     'toolName = "codebase_investigator"\ndecision = "allow"\npriority = 100\n'
                     'modes = ["plan"]\n')
    config = make({}, PLAN, str(BUILTIN_POLICIES), storage)
    shell = [r for r in config.rules if r.tool_name == "run_shell_command"
             and r.decision == ALLOW and PLAN in (r.modes or ())]
    assert shell and all(r.priority == pytest.approx(4.1, abs=1e-5) for r in shell)
    subagent = find(config, tool_name="codebase_investigator", decision=ALLOW)
    assert subagent is not None and subagent.priority == pytest.approx(4.1, abs=1e-5)


def test_security_warnings_are_emitted_once(tmp_path: Path) -> None:
    """createPolicyEngineConfig › should deduplicate security warnings when called multiple
    times"""
    system = tmp_path / "gemini-cli-test" / "system" / "policies"
    mock_policy_file(system / "policy.toml", "")
    storage = Storage(system_policies_dir=str(system),
                      user_policies_dir=str(tmp_path / "non/existent/user/policies"))
    first = make({"adminPolicyPaths": [str(tmp_path / "other/admin/policies")]}, DEFAULT, None,
                 storage)
    assert any(severity == "warning" and "Ignoring --admin-policy" in message
               for severity, message in first.feedback)
    second = make({"adminPolicyPaths": [str(tmp_path / "other/admin/policies")]}, DEFAULT,
                  None, storage)
    assert not any("Ignoring --admin-policy" in message for _, message in second.feedback)


# -- describe('getPolicyDirectories') ------------------------------------------------------------

DIRS = Storage(system_policies_dir="/mock/system/policies",
               user_policies_dir="/mock/user/policies")


def test_user_folder_without_policy_paths() -> None:
    """getPolicyDirectories › should include default user policies directory when
    policyPaths is undefined"""
    assert "/mock/user/policies" in get_policy_directories(storage=DIRS)


def test_user_folder_with_empty_policy_paths() -> None:
    """getPolicyDirectories › should include default user policies directory when
    policyPaths is an empty array"""
    assert "/mock/user/policies" in get_policy_directories(None, [], storage=DIRS)


def test_policy_paths_replace_the_user_folder() -> None:
    """getPolicyDirectories › should replace default user policies directory when
    policyPaths has entries"""
    dirs = get_policy_directories(None, ["/custom/policies"], storage=DIRS)
    assert "/custom/policies" in dirs and "/mock/user/policies" not in dirs


def test_all_tiers_in_order() -> None:
    """getPolicyDirectories › should include all tiers in correct order"""
    dirs = get_policy_directories("/default/policies", ["/user/custom/policies"],
                                  "/workspace/policies", ["/admin/extra/policies"],
                                  storage=DIRS)
    assert dirs == ["/mock/system/policies", "/admin/extra/policies", "/user/custom/policies",
                    "/workspace/policies", "/default/policies"]


# -- toolkit: the same settings band through a project ------------------------------------------

def test_headless_auto_allow_through_check_call(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """toolkit: a project's one rule set serves every mode, so ``mcp.autoAllowInHeadless``
    rules carry ``interactive = false``: a configured server's tool runs in ``gemini -p``
    (non-interactive) and still asks interactively, as createPolicyEngineConfig builds them
    per mode (config.test.ts 'should automatically allow configured MCP servers in
    non-interactive mode if opted-in')."""
    import json

    import toolkit as tk
    from toolkit.core.decision import Effect

    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
    root = tmp_path / "proj"
    (root / ".gemini").mkdir(parents=True)
    (root / ".gemini" / "settings.json").write_text(json.dumps({
        "mcp": {"autoAllowInHeadless": True},
        "mcpServers": {"docs": {"command": "node", "args": ["docs.js"]}}}))
    proj = tk.load(root, home=tmp_path / "home", managed=False, runtime="gemini-cli")
    d = proj.check_call("mcp_docs_search", {"q": "x"}, runtime="gemini-cli",
                        mode="non-interactive")
    assert d.effect is Effect.ALLOW and d.rule.file == ".gemini/settings.json"
    assert proj.check_call("mcp_docs_search", {"q": "x"},
                           runtime="gemini-cli").effect is Effect.ASK
    proj.close()
