"""Codex's approval requirement for one command: a port of
``create_exec_approval_requirement_for_command`` and its helpers
(``codex-rs/core/src/exec_policy.rs``, Unix branches).

The command is split as Codex splits it (:func:`commands_for_exec_policy`), every part
matched (host executables resolved), a part no rule matches decided by
:func:`render_decision_for_unmatched_command`, and the strictest decision gives one of
three requirements: :class:`Skip` (runs; outside the sandbox only when every part is
explicitly allowed), :class:`NeedsApproval` or :class:`Forbidden`, each with Codex's
reason and the rule it would propose to remember (``proposed_execpolicy_amendment``).

``permission_profile`` is the sandbox: ``read-only`` / ``workspace-write`` (restricted),
``danger-full-access`` (Codex's ``PermissionProfile::Disabled``) or ``external-sandbox``;
``sandbox_permissions`` is ``use_default``, ``require_escalated`` or
``with_additional_permissions``; ``approval_policy`` is ``untrusted`` (Codex's
``UnlessTrusted``), ``on-failure``, ``on-request``, ``never`` or ``granular`` (with
``granular`` its ``sandbox_approval`` / ``rules`` switches).

>>> from toolkit.systems.codex.execpolicy import parse_policy
>>> policy = parse_policy("a.rules", 'prefix_rule(pattern=["rm"], decision="prompt")')
>>> exec_approval_requirement(policy, ["rm"], approval_policy="never")
Forbidden(reason='approval required by policy, but AskForApproval is set to Never')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .bash import parse_shell_lc_plain_commands, parse_shell_lc_single_command_prefix
from .execpolicy import Decision, Evaluation, Fallback, Policy, RuleMatch
from .safety import command_might_be_dangerous, is_known_safe_command

__all__ = [
    "BANNED_PREFIX_SUGGESTIONS",
    "PROMPT_CONFLICT_REASON",
    "REJECT_RULES_APPROVAL_REASON",
    "REJECT_SANDBOX_APPROVAL_REASON",
    "ExecPolicyCommands",
    "Forbidden",
    "NeedsApproval",
    "Requirement",
    "Skip",
    "commands_for_exec_policy",
    "derive_forbidden_reason",
    "derive_prompt_reason",
    "derive_requested_execpolicy_amendment_from_prefix_rule",
    "exec_approval_requirement",
    "prompt_is_rejected_by_policy",
    "render_decision_for_unmatched_command",
    "requirement_json",
]

PROMPT_CONFLICT_REASON = "approval required by policy, but AskForApproval is set to Never"
REJECT_SANDBOX_APPROVAL_REASON = ("approval required by policy, but "
                                  "AskForApproval::Granular.sandbox_approval is false")
REJECT_RULES_APPROVAL_REASON = ("approval required by policy rule, but "
                                "AskForApproval::Granular.rules is false")
#: Prefixes Codex never proposes to remember (they would allow anything).
BANNED_PREFIX_SUGGESTIONS: tuple[tuple[str, ...], ...] = (
    ("python3",), ("python3", "-"), ("python3", "-c"), ("python",), ("python", "-"),
    ("python", "-c"), ("py",), ("py", "-3"), ("pythonw",), ("pyw",), ("pypy",), ("pypy3",),
    ("git",), ("bash",), ("bash", "-lc"), ("sh",), ("sh", "-c"), ("sh", "-lc"), ("zsh",),
    ("zsh", "-lc"), ("/bin/zsh",), ("/bin/zsh", "-lc"), ("/bin/bash",), ("/bin/bash", "-lc"),
    ("pwsh",), ("pwsh", "-Command"), ("pwsh", "-c"), ("powershell",),
    ("powershell", "-Command"), ("powershell", "-c"), ("powershell.exe",),
    ("powershell.exe", "-Command"), ("powershell.exe", "-c"), ("env",), ("sudo",), ("node",),
    ("node", "-e"), ("perl",), ("perl", "-e"), ("ruby",), ("ruby", "-e"), ("php",),
    ("php", "-r"), ("lua",), ("lua", "-e"), ("osascript",),
)
_UNRESTRICTED = ("danger-full-access", "external-sandbox", "disabled", "external")
_OVERRIDES = ("require_escalated", "with_additional_permissions")


@dataclass(frozen=True)
class Skip:
    """Runs without asking; outside the sandbox when ``bypass_sandbox``."""

    bypass_sandbox: bool
    proposed_execpolicy_amendment: tuple[str, ...] | None = None


@dataclass(frozen=True)
class NeedsApproval:
    """Codex asks (``reason`` only when a rule asked)."""

    reason: str | None = None
    proposed_execpolicy_amendment: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Forbidden:
    """Codex refuses, with its reason."""

    reason: str


Requirement = Skip | NeedsApproval | Forbidden


@dataclass(frozen=True)
class ExecPolicyCommands:
    commands: list[list[str]]
    used_complex_parsing: bool


def commands_for_exec_policy(command: Sequence[str]) -> ExecPolicyCommands:
    """The argvs Codex checks for one command (``commands_for_exec_policy``): a plain
    ``bash -lc`` chain's commands, else a here-document's one command, else the argv."""
    commands, complex_parsing = _split(tuple(command))
    return ExecPolicyCommands([list(c) for c in commands], complex_parsing)


@lru_cache(maxsize=4096)
def _split(command: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], bool]:
    """:func:`commands_for_exec_policy` of one argv, parsed once (the engine and the approval
    requirement both ask)."""
    plain = parse_shell_lc_plain_commands(command)
    if plain:
        return tuple(map(tuple, plain)), False
    single = parse_shell_lc_single_command_prefix(command)
    if single is not None:
        return (tuple(single),), True
    return (command,), False


def prompt_is_rejected_by_policy(approval_policy: str, prompt_is_rule: bool,
                                 granular: Mapping[str, bool] | None = None) -> str | None:
    """Why ``approval_policy`` refuses to show a prompt, else None."""
    if approval_policy == "never":
        return PROMPT_CONFLICT_REASON
    if approval_policy == "granular":
        switches = granular or {}
        if prompt_is_rule:
            return None if switches.get("rules", True) else REJECT_RULES_APPROVAL_REASON
        return None if switches.get("sandbox_approval", True) else REJECT_SANDBOX_APPROVAL_REASON
    return None


def render_decision_for_unmatched_command(
        command: Sequence[str], *, approval_policy: str, permission_profile: str,
        sandbox_permissions: str = "use_default", used_complex_parsing: bool = False
) -> Decision:
    """The decision for a command no rule matches (the Unix branch: no Windows sandbox)."""
    if (is_known_safe_command(command) and not used_complex_parsing
            and approval_policy == "untrusted"):
        return "allow"
    if command_might_be_dangerous(command):
        return "forbidden" if approval_policy == "never" else "prompt"
    if approval_policy == "never":
        return "allow"
    if approval_policy == "untrusted":
        return "prompt"
    # on-request, on-failure and granular: the sandbox decides
    if permission_profile in _UNRESTRICTED:
        return "allow"
    return "prompt" if sandbox_permissions in _OVERRIDES else "allow"


def _is_policy_match(m: RuleMatch) -> bool:
    return m.rule is not None or bool(m.matched_prefix)


def _render(args: Sequence[str]) -> str:
    import shlex

    return shlex.join(args)


def derive_prompt_reason(command: Sequence[str], evaluation: Evaluation) -> str | None:
    """``derive_prompt_reason``: only when a rule asked (its justification when it has one)."""
    prompts = [m for m in evaluation.matched_rules
               if _is_policy_match(m) and m.decision == "prompt"]
    if not prompts:
        return None
    best = max(prompts, key=lambda m: len(m.matched_prefix))
    if best.justification:
        return f"`{_render(command)}` requires approval: {best.justification}"
    return f"`{_render(command)}` requires approval by policy"


def derive_forbidden_reason(command: Sequence[str], evaluation: Evaluation) -> str:
    """``derive_forbidden_reason``: the most specific forbidding rule's words."""
    forbids = [m for m in evaluation.matched_rules
               if _is_policy_match(m) and m.decision == "forbidden"]
    if not forbids:
        return f"`{_render(command)}` rejected: blocked by policy"
    best = max(forbids, key=lambda m: len(m.matched_prefix))
    if best.justification:
        return f"`{_render(command)}` rejected: {best.justification}"
    return (f"`{_render(command)}` rejected: policy forbids commands starting with "
            f"`{_render(best.matched_prefix)}`")


def _amendment_for_prompt_rules(matched: Sequence[RuleMatch]) -> tuple[str, ...] | None:
    if any(_is_policy_match(m) and m.decision == "prompt" for m in matched):
        return None
    return next((m.command for m in matched
                 if not _is_policy_match(m) and m.decision == "prompt"), None)


def _amendment_for_allow_rules(matched: Sequence[RuleMatch]) -> tuple[str, ...] | None:
    if any(_is_policy_match(m) for m in matched):
        return None
    return next((m.command for m in matched
                 if not _is_policy_match(m) and m.decision == "allow"), None)


def derive_requested_execpolicy_amendment_from_prefix_rule(
        prefix_rule: Sequence[str] | None, matched: Sequence[RuleMatch], policy: Policy,
        commands: Sequence[Sequence[str]], fallback: Fallback) -> tuple[str, ...] | None:
    """The prefix the model asked to remember, when it is not banned, no rule matched and
    allowing it would let every part run."""
    if not prefix_rule:
        return None
    if tuple(prefix_rule) in BANNED_PREFIX_SUGGESTIONS:
        return None
    if any(_is_policy_match(m) for m in matched):
        return None
    amended = policy.copy()
    amended.add_prefix_rule(list(prefix_rule), "allow")
    if all(amended.check(cmd, fallback, resolve_host_executables=True).decision == "allow"
           for cmd in commands):
        return tuple(prefix_rule)
    return None


def exec_approval_requirement(
        policy: Policy, command: Sequence[str], *, approval_policy: str = "on-request",
        permission_profile: str = "read-only", sandbox_permissions: str = "use_default",
        prefix_rule: Sequence[str] | None = None, granular: Mapping[str, bool] | None = None
) -> Requirement:
    """What Codex requires before running ``command``
    (``create_exec_approval_requirement_for_command``)."""
    split = commands_for_exec_policy(command)
    auto_amendment = not split.used_complex_parsing

    def fallback(cmd: Sequence[str]) -> Decision:
        return render_decision_for_unmatched_command(
            cmd, approval_policy=approval_policy, permission_profile=permission_profile,
            sandbox_permissions=sandbox_permissions,
            used_complex_parsing=split.used_complex_parsing)

    evaluation = policy.check_multiple(split.commands, fallback, resolve_host_executables=True)
    requested = (derive_requested_execpolicy_amendment_from_prefix_rule(
        prefix_rule, evaluation.matched_rules, policy, split.commands, fallback)
        if auto_amendment else None)
    if evaluation.decision == "forbidden":
        return Forbidden(derive_forbidden_reason(command, evaluation))
    if evaluation.decision == "prompt":
        prompt_is_rule = any(_is_policy_match(m) and m.decision == "prompt"
                             for m in evaluation.matched_rules)
        refused = prompt_is_rejected_by_policy(approval_policy, prompt_is_rule, granular)
        if refused is not None:
            return Forbidden(refused)
        amendment = requested
        if amendment is None and auto_amendment:
            amendment = _amendment_for_prompt_rules(evaluation.matched_rules)
        return NeedsApproval(derive_prompt_reason(command, evaluation), amendment)
    bypass = all(any(_is_policy_match(m) and m.decision == "allow"
                     for m in policy.matches_for_command(cmd, resolve_host_executables=True))
                 for cmd in split.commands)
    return Skip(bypass, _amendment_for_allow_rules(evaluation.matched_rules)
                if auto_amendment else None)


def requirement_json(requirement: Requirement) -> dict[str, object]:
    """A requirement as plain data, named as Codex's ``ExecApprovalRequirement`` variants."""
    amendment = getattr(requirement, "proposed_execpolicy_amendment", None)
    if isinstance(requirement, Forbidden):
        return {"forbidden": {"reason": requirement.reason}}
    if isinstance(requirement, NeedsApproval):
        return {"needsApproval": {"reason": requirement.reason,
                                  "proposedExecpolicyAmendment":
                                      None if amendment is None else list(amendment)}}
    return {"skip": {"bypassSandbox": requirement.bypass_sandbox,
                     "proposedExecpolicyAmendment":
                         None if amendment is None else list(amendment)}}
