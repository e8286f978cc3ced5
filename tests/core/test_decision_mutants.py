"""What ``make mutate MODULES=toolkit/core/decision.py`` found untested (issue 25).

Each test pins one piece of behaviour a surviving mutant changed: the reason a
conditional verdict carries, and the plain-text report (the CLI's ``explain``
and ``why`` output, and a decision's text in a notebook).
"""

from __future__ import annotations

from toolkit.core.decision import (
    Decision,
    Effect,
    NearMiss,
    Reason,
    Step,
    decide,
    reason_words,
    step_name,
)
from toolkit.core.models import Rule


def test_a_conditional_verdict_names_the_allow_step_or_approval() -> None:
    assert decide(conditional=True).reason is Reason.ALLOW
    assert decide(conditional=True, asks=True).reason is Reason.APPROVAL
    assert decide(conditional=True).label == "conditional"


def test_a_step_shows_its_rule_location_only_when_it_has_one() -> None:
    located = Step("allow", "pass", "allowed by exact name 'x'",
                   Rule(kind="allow", pattern="x", file="agents/a.md", line=4))
    assert str(located) == "allow        pass  allowed by exact name 'x' (agents/a.md:4)"
    assert str(Step("deny", "pass", "no deny rule matches")) == (
        "deny         pass  no deny rule matches")


def _decision(**fields: object) -> Decision:
    base: dict[str, object] = {
        "agent": "coder", "tool": "Bash", "effect": Effect.ASK, "reason": Reason.MODE,
        "message": "default mode asks"}
    return Decision(**{**base, **fields})  # type: ignore[arg-type]


def test_the_first_line_names_the_effect_in_capitals() -> None:
    assert str(_decision()) == "ASK coder -> Bash: default mode asks"


def test_a_tool_report_heads_with_the_request_and_a_call_report_with_mode_and_cwd() -> None:
    tool = _decision(preset="strict", groups=("read-only", "web"), state="analysis", depth=2)
    assert tool.report() == ("ASK coder -> Bash: default mode asks\n"
                             "  preset=strict groups=read-only,web state=analysis depth=2")
    call = _decision(question="call", mode="plan", cwd="/p")
    assert call.report() == "ASK coder -> Bash: default mode asks\n  mode=plan cwd=/p"


def test_a_report_lists_every_warning_part_and_step_on_its_own_line() -> None:
    parts = (
        _decision(tool="npm test", effect=Effect.ALLOW, reason=Reason.ALLOW,
                  message="allowed", rule=Rule(kind="allow", pattern="Bash")),
        _decision(tool="git push", effect=Effect.DENY, reason=Reason.DENY, message="denied",
                  rule=Rule(kind="deny", pattern=None, file=".claude/settings.json", line=7)),
        _decision(tool="ls", effect=Effect.ASK, reason=Reason.MODE, message="asks"),
    )
    trace = (Step("deny", "fail", "denied by git push"), Step("allow", "skip", "not reached"))
    report = _decision(question="call", mode="default", cwd="/p", warnings=("w1", "w2"),
                       parts=parts, trace=trace).report()
    assert report.splitlines() == [
        "ASK coder -> Bash: default mode asks",
        "  mode=default cwd=/p",
        "  warning: w1",
        "  warning: w2",
        "  part 1: ALLOW npm test (allow, Bash at -): allowed",
        "  part 2: EXPLICIT-DENY git push (deny,  at .claude/settings.json:7): denied",
        "  part 3: ASK ls (mode): asks",
        "  deny         fail  denied by git push",
        "  allow        skip  not reached",
    ]


def test_a_call_report_names_its_runtime_and_lists_near_misses_with_their_part() -> None:
    misses = (NearMiss(Rule(kind="allow", pattern="npm test", file="a.toml", line=2),
                       "differs at word 2", "no-match", None),
              NearMiss(Rule(kind="allow", pattern="git"), "no rule allows part 2", "part", 2))
    report = _decision(question="call", mode="default", cwd="/p", runtime="gemini-cli",
                       near=lambda: misses).report()
    assert report.splitlines() == [
        "ASK coder -> Bash: default mode asks",
        "  runtime=gemini-cli mode=default cwd=/p",
        "  near miss: npm test (a.toml:2): differs at word 2",
        "  near miss (part 2): git: no rule allows part 2",
    ]
    # a tool question lists none (near misses are a call's)
    assert "near miss" not in _decision(near=lambda: misses).report()


def test_reason_words_read_the_deciding_step_as_a_person_would() -> None:
    assert reason_words(Effect.IMPLICIT_DENY, Reason.ALLOW) == "not in the allow list"
    assert reason_words("allow", "allow") == "in the allow list"  # values work too
    assert reason_words(Effect.ASK, Reason.DENY_RULE) == "a deny rule matches"  # a call step
    assert reason_words(Effect.ASK, Reason.GROUP) == step_name("group") == "groups"  # fallback
    assert reason_words("ran", "free text") == "free text"  # not a verdict: as it is
