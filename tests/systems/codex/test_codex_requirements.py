"""Codex's managed requirements (``requirements.toml``), read through ``tk.load(managed=)``.

Ported cases cite their source in openai/codex: ``codex-rs/core/src/config/
config_loader_tests.rs`` (its ``requirements_exec_policy_tests`` module and the
``load_requirements_toml_*`` / ``cloud_config_bundle_*`` tests),
``codex-rs/config/src/config_requirements.rs`` (its ``mod tests``) and
``codex-rs/config/src/requirements_exec_policy_tests.rs``. Codex composes several sources
(cloud, MDM, ``/etc/codex/requirements.toml``, legacy ``managed_config.toml``); toolkit
reads the files it is given, composed the same way (:func:`compose`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError
from toolkit.systems.codex.execpolicy import Policy
from toolkit.systems.codex.requirements import (
    McpIdentity,
    Requirements,
    RequirementsError,
    compose,
    parse_requirements,
    parse_rules,
)

SOURCE = "/etc/codex/requirements.toml"


def _rules(text: str) -> Policy:
    return parse_rules(tomllib.loads(text)["prefix_rules"], SOURCE, text)


def _match(policy: Policy, argv: list[str]) -> dict[str, object]:
    return policy.check(argv).to_json()


# -- requirements_exec_policy_tests (config_loader_tests.rs) ------------------------------------

def test_parses_single_prefix_rule_from_raw_toml() -> None:
    """parses_single_prefix_rule_from_raw_toml"""
    policy = _rules('prefix_rules = [\n    { pattern = [{ token = "rm" }], '
                    'decision = "forbidden" },\n]\n')
    [rule] = policy.rules()
    assert (rule.first, rule.rest, rule.decision, rule.justification) == \
        ("rm", (), "forbidden", None)


def test_parses_multiple_prefix_rules_from_raw_toml() -> None:
    """parses_multiple_prefix_rules_from_raw_toml"""
    policy = _rules('''prefix_rules = [
    { pattern = [{ token = "rm" }], decision = "forbidden" },
    { pattern = [{ token = "git" }, { any_of = ["push", "commit"] }], decision = "prompt", \
justification = "review changes before push or commit" },
]
''')
    assert [(r.first, r.rest, r.decision, r.justification) for r in policy.rules()] == [
        ("rm", (), "forbidden", None),
        ("git", (("push", "commit"),), "prompt", "review changes before push or commit")]
    assert [r.line for r in policy.rules()] == [2, 3]


def test_converts_rules_toml_into_internal_policy_representation() -> None:
    """converts_rules_toml_into_internal_policy_representation"""
    policy = _rules('prefix_rules = [{ pattern = [{ token = "rm" }], decision = "forbidden" }]')
    assert _match(policy, ["rm", "-rf", "/tmp"]) == {
        "matchedRules": [{"prefixRuleMatch": {"matchedPrefix": ["rm"],
                                              "decision": "forbidden"}}],
        "decision": "forbidden"}


def test_head_any_of_expands_into_multiple_program_rules() -> None:
    """head_any_of_expands_into_multiple_program_rules"""
    policy = _rules('prefix_rules = [{ pattern = [{ any_of = ["git", "hg"] }, '
                    '{ token = "status" }], decision = "prompt" }]')
    for program in ("git", "hg"):
        assert _match(policy, [program, "status"]) == {
            "matchedRules": [{"prefixRuleMatch": {"matchedPrefix": [program, "status"],
                                                  "decision": "prompt"}}],
            "decision": "prompt"}


@pytest.mark.parametrize(("test", "text", "message"), [
    ("missing_decision_is_rejected", 'prefix_rules = [{ pattern = [{ token = "rm" }] }]',
     "rules prefix_rule at index 0 is missing a decision"),
    ("allow_decision_is_rejected",
     'prefix_rules = [{ pattern = [{ token = "rm" }], decision = "allow" }]',
     "rules prefix_rule at index 0 has decision 'allow', which is not permitted in "
     "requirements.toml: Codex merges these rules with other config and uses the most "
     "restrictive result (use 'prompt' or 'forbidden')"),
    ("empty_prefix_rules_is_rejected", "prefix_rules = []",
     "rules prefix_rules cannot be empty"),
])
def test_invalid_requirements_rules_are_rejected(test: str, text: str, message: str) -> None:
    """missing_decision_is_rejected, allow_decision_is_rejected,
    empty_prefix_rules_is_rejected (the error texts are RequirementsExecPolicyParseError's)"""
    with pytest.raises(RequirementsError) as caught:
        _rules(text)
    assert caught.value.message == message, test


def test_loads_requirements_exec_policy_without_rules_files(tmp_path: Path) -> None:
    """loads_requirements_exec_policy_without_rules_files: a project with no .rules file
    still forbids what the requirements forbid."""
    root, home = _project(tmp_path, rules=None)
    managed = _managed(tmp_path, '[rules]\nprefix_rules = [\n    { pattern = [{ token = '
                                 '"rm" }], decision = "forbidden" },\n]\n')
    d = _shell(tk.load(root, home=home, managed=managed), ["rm"])
    assert d.effect is Effect.DENY
    assert d.details["execpolicy_check"]["matchedRules"] == [
        {"prefixRuleMatch": {"matchedPrefix": ["rm"], "decision": "forbidden"}}]


def test_merges_requirements_exec_policy_with_file_rules(tmp_path: Path) -> None:
    """merges_requirements_exec_policy_with_file_rules: the .rules file and the
    requirements both decide, each rule keeping where it was written."""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["rm"], decision="forbidden")')
    managed = _managed(tmp_path, '[rules]\nprefix_rules = [\n    { pattern = [{ token = '
                                 '"git" }, { token = "push" }], decision = "prompt" },\n]\n')
    proj = tk.load(root, home=home, managed=managed)
    rm = _shell(proj, ["rm"])
    assert rm.effect is Effect.DENY and rm.rule.where == ".codex/rules/team.rules:1"
    push = _shell(proj, ["git", "push"])
    assert push.effect is Effect.ASK
    assert (push.rule.file, push.rule.line, push.rule.layer) == \
        (str(managed / "requirements.toml"), 3, "managed")


# -- requirements_exec_policy_tests.rs --------------------------------------------------------

def test_prompt_reviewer_is_accepted() -> None:
    """prompt_reviewer_is_deserialized_and_propagated_to_prefix_rule and
    user_reviewer_deserializes_from_requirements_toml: a prompt rule may name its reviewer
    (toolkit keeps the rule; who reviews does not change whether Codex asks)."""
    for reviewer in ("auto_review", "user"):
        policy = _rules('prefix_rules = [{ pattern = [{ token = "git" }, { token = "push" }], '
                        f'decision = "prompt", reviewer = "{reviewer}" }}]')
        assert policy.check(["git", "push"]).decision == "prompt"


def test_reviewer_is_rejected_for_non_prompt_decisions() -> None:
    """reviewer_is_rejected_for_non_prompt_decisions"""
    with pytest.raises(RequirementsError, match="rules prefix_rule at index 0 has a "
                                                "reviewer, but reviewer is only valid with "
                                                "decision 'prompt'"):
        _rules('prefix_rules = [{ pattern = [{ token = "rm" }], decision = "forbidden", '
               'reviewer = "user" }]')


# -- config_requirements.rs tests -------------------------------------------------------------

def test_deserialize_allowed_approval_policies() -> None:
    """deserialize_allowed_approval_policies: the first allowed value is the one Codex runs
    with when the configured one is not allowed; can_set's errors in Codex's words."""
    r = parse_requirements('allowed_approval_policies = ["untrusted", "on-request"]',
                           "<unspecified>")
    assert r.constrain_approval_policy("on-failure")[0] == "untrusted"
    assert r.approval_policy_error("untrusted") is None
    assert r.approval_policy_error("on-request") is None
    assert r.approval_policy_error("on-failure") == (
        "invalid value for `approval_policy`: `OnFailure` is not in the allowed set "
        "[UnlessTrusted, OnRequest] (set by <unspecified>)")
    assert r.approval_policy_error("never") == (
        "invalid value for `approval_policy`: `Never` is not in the allowed set "
        "[UnlessTrusted, OnRequest] (set by <unspecified>)")
    assert r.sandbox_mode_error("read-only") is None


def test_deserialize_allowed_sandbox_modes() -> None:
    """deserialize_allowed_sandbox_modes"""
    r = parse_requirements('allowed_sandbox_modes = ["read-only", "workspace-write"]',
                           "<unspecified>")
    assert r.sandbox_mode_error("read-only") is None
    assert r.sandbox_mode_error("workspace-write") is None
    assert r.sandbox_mode_error("danger-full-access") == (
        "invalid value for `sandbox_mode`: `DangerFullAccess` is not in the allowed set "
        "[ReadOnly, WorkspaceWrite] (set by <unspecified>)")
    assert r.sandbox_mode_error("external-sandbox") == (
        "invalid value for `sandbox_mode`: `ExternalSandbox` is not in the allowed set "
        "[ReadOnly, WorkspaceWrite] (set by <unspecified>)")


def test_constraint_error_includes_requirement_source() -> None:
    """constraint_error_includes_requirement_source"""
    r = parse_requirements('allowed_approval_policies = ["on-request"]\n'
                           'allowed_sandbox_modes = ["read-only"]\n', SOURCE)
    assert r.approval_policy_error("never") == (
        "invalid value for `approval_policy`: `Never` is not in the allowed set [OnRequest] "
        f"(set by {SOURCE})")
    assert r.sandbox_mode_error("danger-full-access") == (
        "invalid value for `sandbox_mode`: `DangerFullAccess` is not in the allowed set "
        f"[ReadOnly] (set by {SOURCE})")


def test_deserialize_mcp_server_requirements() -> None:
    """deserialize_mcp_server_requirements"""
    r = parse_requirements('[mcp_servers.docs.identity]\ncommand = "codex-mcp"\n\n'
                           '[mcp_servers.remote.identity]\nurl = "https://example.com/mcp"\n',
                           SOURCE)
    assert r.mcp_servers == {"docs": McpIdentity(command="codex-mcp"),
                             "remote": McpIdentity(url="https://example.com/mcp")}


def test_deserialize_exec_policy_requirements() -> None:
    """deserialize_exec_policy_requirements"""
    r = parse_requirements('[rules]\nprefix_rules = [\n'
                           '    { pattern = [{ token = "rm" }], decision = "forbidden" },\n]\n',
                           SOURCE)
    assert r.rules is not None
    assert _match(r.rules, ["rm", "-rf"]) == {
        "matchedRules": [{"prefixRuleMatch": {"matchedPrefix": ["rm"],
                                              "decision": "forbidden"}}],
        "decision": "forbidden"}


def test_exec_policy_error_includes_requirement_source() -> None:
    """exec_policy_error_includes_requirement_source"""
    with pytest.raises(RequirementsError) as caught:
        parse_requirements('[rules]\nprefix_rules = [\n    { pattern = [{ token = "rm" }] },\n]\n',
                           SOURCE)
    assert caught.value.message == (f"invalid rules in requirements (set by {SOURCE}): rules "
                                    "prefix_rule at index 0 is missing a decision")
    assert caught.value.line == 3


def test_merge_unset_fields_does_not_overwrite_existing_values() -> None:
    """merge_unset_fields_does_not_overwrite_existing_values (and
    cloud_config_bundle_are_not_overwritten_by_system_requirements): a higher-precedence
    source keeps its value; :func:`compose` takes sources lowest first."""
    lower = parse_requirements('allowed_approval_policies = ["on-request"]', "lower")
    higher = parse_requirements('allowed_approval_policies = ["never"]', "higher")
    composed = compose([lower, higher])
    assert composed is not None and composed.allowed_approval_policies == ("never",)
    assert composed.source_of("allowed_approval_policies") == "higher"


def test_load_requirements_toml_produces_expected_constraints() -> None:
    """load_requirements_toml_produces_expected_constraints (its approval-policy part; web
    search, residency and features do not decide calls)."""
    r = parse_requirements('allowed_approval_policies = ["never", "on-request"]\n'
                           'allowed_web_search_modes = ["cached"]\nenforce_residency = "us"\n\n'
                           '[features]\npersonality = true\n', SOURCE)
    assert r.allowed_approval_policies == ("never", "on-request")
    assert r.constrain_approval_policy("on-failure")[0] == "never"
    assert r.approval_policy_error("never") is None
    assert r.approval_policy_error("on-failure") is not None


@pytest.mark.parametrize(("text", "message"), [
    ('allowed_approval_policies = []', "field `allowed_approval_policies` cannot be empty"),
    ('allowed_sandbox_modes = ["workspace-write"]',
     "invalid value for `allowed_sandbox_modes`: `[WorkspaceWrite]` is not in the allowed set "
     f"must include 'read-only' to allow any PermissionProfile (set by {SOURCE})"),
])
def test_constraints_codex_refuses(text: str, message: str) -> None:
    """``ConfigRequirements::try_from``: an empty approval list (``ConstraintError::
    EmptyField``) and sandbox modes without read-only are refused."""
    with pytest.raises(RequirementsError) as caught:
        parse_requirements(text, SOURCE)
    assert caught.value.message == message and caught.value.line == 1


# -- through tk.load ----------------------------------------------------------------------------

def _project(tmp_path: Path, *, rules: str | None = None, config: str = "") -> tuple[Path, Path]:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".codex").mkdir()
    if rules is not None:
        (root / ".codex" / "rules").mkdir()
        (root / ".codex" / "rules" / "team.rules").write_text(rules)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'{config}[projects."{root.resolve()}"]\ntrust_level = "trusted"\n')
    return root, home


def _managed(tmp_path: Path, requirements: str) -> Path:
    folder = tmp_path / "etc-codex"
    folder.mkdir()
    (folder / "requirements.toml").write_text(requirements)
    return folder


def _shell(proj: tk.Project, argv: list[str], **kw: object) -> tk.Decision:
    return proj.check_call("shell", {"command": argv}, runtime="codex", **kw)  # type: ignore[arg-type]


def test_a_disallowed_approval_policy_falls_back_with_codexs_warning(tmp_path: Path) -> None:
    """approval_policy = "never" under allowed_approval_policies = ["on-request"]: Codex runs
    on-request and warns (apply_requirement_constrained_value), so a prompt rule asks
    instead of being refused."""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["npm"], decision="prompt")',
                          config='approval_policy = "never"\n')
    managed = _managed(tmp_path, 'allowed_approval_policies = ["on-request"]\n')
    proj = tk.load(root, home=home, managed=managed)
    d = _shell(proj, ["npm", "publish"])
    assert d.effect is Effect.ASK and d.mode == "on-request"
    warning = ("Configured value for `approval_policy` is disallowed by requirements; "
               "falling back to required value OnRequest. Details: invalid value for "
               "`approval_policy`: `Never` is not in the allowed set [OnRequest] (set by "
               f"{managed / 'requirements.toml'})")
    assert warning in d.warnings
    without = tk.load(root, home=home, managed=False)
    assert _shell(without, ["npm", "publish"]).effect is Effect.IMPLICIT_DENY


def test_a_disallowed_sandbox_mode_falls_back_to_read_only(tmp_path: Path) -> None:
    """sandbox_mode = "danger-full-access" not allowed: Codex runs read-only, so an
    unmatched command asking to escalate asks."""
    root, home = _project(tmp_path, config='sandbox_mode = "danger-full-access"\n')
    managed = _managed(tmp_path, 'allowed_sandbox_modes = ["read-only", "workspace-write"]\n')
    proj = tk.load(root, home=home, managed=managed)
    args = {"command": ["cargo", "build"], "sandbox_permissions": "require_escalated"}
    d = proj.check_call("shell", args, runtime="codex")
    assert d.effect is Effect.ASK and "read-only sandbox" in d.message
    assert any(w.startswith("Configured value for `permission_profile` is disallowed by "
                            "requirements; falling back to required value ReadOnly.")
               for w in d.warnings)
    free = tk.load(root, home=home, managed=False).check_call("shell", args, runtime="codex")
    assert free.effect is Effect.ALLOW


def test_mcp_servers_off_the_allowlist_are_disabled(tmp_path: Path) -> None:
    """filter_mcp_servers_by_requirements: a server not on the allowlist, or with another
    identity, is disabled; one matching by name and command stays."""
    root, home = _project(tmp_path)
    (root / ".codex" / "config.toml").write_text(
        '[mcp_servers.docs]\ncommand = "codex-mcp"\n\n[mcp_servers.other]\ncommand = "x"\n\n'
        '[mcp_servers.fake]\ncommand = "not-codex-mcp"\n')
    managed = _managed(tmp_path, '[mcp_servers.docs.identity]\ncommand = "codex-mcp"\n\n'
                                 '[mcp_servers.fake.identity]\ncommand = "codex-mcp"\n')
    proj = tk.load(root, home=home, managed=managed)
    assert proj.check_call("mcp__docs__search", {}, runtime="codex").effect is Effect.ALLOW
    for server in ("other", "fake"):
        d = proj.check_call(f"mcp__{server}__search", {}, runtime="codex")
        assert d.effect is Effect.IMPLICIT_DENY and "disabled by requirements" in d.message
        assert d.rule.layer == "managed" and d.rule.file == str(managed / "requirements.toml")


def test_allow_in_requirements_is_a_located_load_error(tmp_path: Path) -> None:
    """decision = "allow" in requirements.toml: Codex refuses to start; tk.load names the
    file, the rule's line and Codex's reason, never a traceback."""
    root, home = _project(tmp_path)
    managed = _managed(tmp_path, '# managed\n[rules]\nprefix_rules = [\n'
                                 '  { pattern = [{ token = "ls" }], decision = "prompt" },\n'
                                 '  { pattern = [{ token = "rm" }], decision = "allow" },\n]\n')
    with pytest.raises(DefinitionError) as caught:
        tk.load(root, home=home, managed=managed)
    problem = caught.value.problems[0]
    assert (problem.file, problem.line) == (str(managed / "requirements.toml"), 5)
    assert "rules prefix_rule at index 1 has decision 'allow', which is not permitted in " \
           "requirements.toml" in problem.message


def test_a_requirements_syntax_error_is_located(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    managed = _managed(tmp_path, 'allowed_approval_policies = ["never"]\nbroken = ]\n')
    with pytest.raises(DefinitionError) as caught:
        tk.load(root, home=home, managed=managed)
    problem = caught.value.problems[0]
    assert (problem.file, problem.line) == (str(managed / "requirements.toml"), 2)
    assert problem.message.startswith("failed to parse requirements.toml")


def test_legacy_managed_config_becomes_requirements(tmp_path: Path) -> None:
    """requirements_layers_from_legacy_scheme: managed_config.toml's approval_policy is the
    one allowed policy, and it is the highest config layer."""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["npm"], decision="prompt")',
                          config='approval_policy = "on-request"\n')
    managed = tmp_path / "etc-codex"
    managed.mkdir()
    (managed / "managed_config.toml").write_text('approval_policy = "never"\n')
    d = _shell(tk.load(root, home=home, managed=managed), ["npm", "publish"])
    assert d.effect is Effect.IMPLICIT_DENY and d.mode == "never"
    assert not any("disallowed by requirements" in w for w in d.warnings)


def test_another_runtimes_managed_file_is_left_alone(tmp_path: Path) -> None:
    """managed= is shared by every runtime: Claude Code's managed-settings.json is not
    Codex's, so Codex reads no requirements from it."""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["npm"], decision="prompt")')
    json_file = tmp_path / "managed-settings.json"
    json_file.write_text('{"permissions": {"deny": ["Bash(rm *)"]}}')
    proj = tk.load(root, home=home, managed=json_file)
    assert _shell(proj, ["npm", "publish"]).effect is Effect.ASK


def test_requirements_are_not_read_unless_given(tmp_path: Path) -> None:
    """Codex reads /etc/codex/requirements.toml; toolkit reads managed requirements only
    when given (a what-if must not depend on the machine it runs on)."""
    root, home = _project(tmp_path, rules='prefix_rule(pattern=["npm"], decision="prompt")')
    engine = tk.load(root, home=home).engines["codex"]
    assert engine.settings.requirements is None  # type: ignore[attr-defined]


def test_legacy_codexpolicy_files_are_reported(tmp_path: Path) -> None:
    """openai/codex#7888 renamed policy/*.codexpolicy to rules/*.rules: a .codexpolicy file
    is not read by Codex; toolkit says where it is and what to do."""
    root, home = _project(tmp_path)
    (home / ".codex" / "policy").mkdir()
    (home / ".codex" / "policy" / "default.codexpolicy").write_text(
        'prefix_rule(pattern=["rm"], decision="forbidden")')
    d = _shell(tk.load(root, home=home, managed=False), ["rm", "x"])
    assert d.rule.pattern is None  # not applied, as Codex does not apply it
    [warning] = [w for w in d.warnings if ".codexpolicy" in w]
    assert "openai/codex#7888" in warning and "~/.codex/rules/default.rules" in warning
    engine = tk.load(root, home=home, managed=False).engines["codex"]
    files = [p.file for p in engine.problems if ".codexpolicy" in p.message]
    assert files == ["~/.codex/policy/default.codexpolicy"]


def test_requirements_without_fields_constrain_nothing() -> None:
    r = Requirements(SOURCE)
    assert r.constrain_approval_policy("never") == ("never", None)
    assert r.mcp_server_allowed("any", "cmd", None)
