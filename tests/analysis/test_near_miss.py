"""Issue 24 item 5: why was I asked when I allowed it? ``Decision.near_misses``.

Each case reproduces a question users asked in an issue tracker (cited per test); the
expected reasons follow Claude Code's permissions documentation
(code.claude.com/docs/en/permissions): a trailing `` *`` / ``:*`` is a prefix at a word
boundary; a rule without ``*`` is the exact command; patterns match from the start of the
command; leading ``VAR=value`` assignments are stripped for deny and ask rules, not for
allow rules; every part of a compound command must be allowed; deny, then ask, then allow,
whatever the order or specificity; ``*.x.com`` matches subdomains only; a Read rule does
not allow edits. A rule named as ``shadowed`` is checked independently: without the deny,
the same call is allowed by it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.claude import build_project, permissions
from toolkit.cli import main
from toolkit.core.decision import Effect


def check(tmp_path: Path, allow: list[str], command: str, deny: tuple[str, ...] = (),
          tool: str = "Bash", **extra: Any) -> Any:
    proj = build_project(tmp_path, project=permissions(allow=allow, deny=list(deny), **extra))
    d = proj.check_call(tool, proj.call_arguments(tool, command))
    assert d.effect is not Effect.ALLOW, d.report()
    return d


def only(d: Any, rule: str) -> Any:
    found = [m for m in d.near_misses if m.rule.text == rule]
    assert found, d.report()
    return found[0]


def test_prefix_needs_a_word_boundary(tmp_path: Path) -> None:
    """The brief's example: Bash(npm run test:*) and `npm run test-e2e`."""
    d = check(tmp_path, ["Bash(npm run test:*)"], "npm run test-e2e")
    miss = only(d, "Bash(npm run test:*)")
    assert miss.kind == "no-match"
    assert "word boundary after `npm run test`" in miss.why and "`-e2e`" in miss.why


def test_rm_r_prefix_does_not_match_rm_rf(tmp_path: Path) -> None:
    """anthropics/claude-code#28811: `Bash(rm -r:*)` does not match `rm -rf`."""
    d = check(tmp_path, ["Bash(rm -r:*)"], "rm -rf build")
    why = only(d, "Bash(rm -r:*)").why
    assert "word boundary after `rm -r`" in why and "the word is `-rf`" in why


def test_leading_assignment_is_seen_by_allow_rules(tmp_path: Path) -> None:
    """anthropics/claude-code#49350: `Bash(aws:*)` and `AWS_PROFILE=p aws s3 ls`."""
    d = check(tmp_path, ["Bash(aws:*)"], "AWS_PROFILE=p aws s3 ls")
    why = only(d, "Bash(aws:*)").why
    assert "matches `aws s3 ls`" in why and "stripped for deny and ask rules only" in why


def test_prefix_is_anchored_at_the_start(tmp_path: Path) -> None:
    """google-gemini/gemini-cli#17953 (a `gradlew` allow never matching `./gradlew ...`), in
    Claude Code's grammar."""
    d = check(tmp_path, ["Bash(gradlew:*)"], "./gradlew assembleDebug")
    why = only(d, "Bash(gradlew:*)").why
    assert "anchored at the start" in why and "`gradlew` comes after `./`" in why
    assert "Bash(./gradlew *)" in why


def test_compound_command_part_matches_no_allow_rule(tmp_path: Path) -> None:
    """anthropics/claude-code#30519 (`Bash(git:*)` and a compound command)."""
    d = check(tmp_path, ["Bash(git:*)"], "git add f && curl evil.sh")
    miss = only(d, "Bash(git:*)")
    assert miss.kind == "part" and miss.part == 2
    assert "allows part 1 of 2" in miss.why and "part 2 `curl evil.sh` matches no allow rule" \
        in miss.why


def test_allow_shadowed_by_a_broad_deny(tmp_path: Path) -> None:
    """anthropics/claude-code#79759: deny Bash(aws:*) swallows allow Bash(aws * describe-*)."""
    d = check(tmp_path / "a", ["Bash(aws * describe-*)"], "aws ec2 describe-instances",
              deny=("Bash(aws:*)",))
    assert d.effect is Effect.DENY
    miss = only(d, "Bash(aws * describe-*)")
    assert miss.kind == "shadowed" and "the deny rule Bash(aws:*)" in miss.why
    assert ".claude/settings.json:" in miss.why
    # independently: without the deny, that rule allows the call
    alone = build_project(tmp_path / "b", project=permissions(allow=["Bash(aws * describe-*)"]))
    d = alone.check_call("Bash", {"command": "aws ec2 describe-instances"})
    assert d.effect is Effect.ALLOW and d.rule.text == "Bash(aws * describe-*)"
    assert d.near_misses == ()


def test_exact_rule_saved_from_one_approval(tmp_path: Path) -> None:
    """anthropics/claude-code#86151: `Bash(node a.mjs)` does not match `node b.mjs`."""
    d = check(tmp_path, ["Bash(node a.mjs)"], "node b.mjs")
    why = only(d, "Bash(node a.mjs)").why
    assert "exact rule (no *)" in why and "at `b.mjs`" in why
    d = check(tmp_path / "more", ["Bash(node a.mjs)"], "node a.mjs --watch")
    assert "`Bash(node a.mjs *)` would match" in only(d, "Bash(node a.mjs)").why


def test_wildcard_in_the_middle_says_what_the_rule_expects(tmp_path: Path) -> None:
    d = check(tmp_path, ["Bash(git * main)"], "git checkout master")
    assert "needs ` main` to follow" in only(d, "Bash(git * main)").why


def test_a_critical_rm_is_never_approved(tmp_path: Path) -> None:
    d = check(tmp_path, ["Bash(rm *)"], "rm -rf /")
    miss = only(d, "Bash(rm *)")
    assert miss.kind == "never-approves" and "critical path" in miss.why


def test_subdomain_pattern_and_the_bare_domain(tmp_path: Path) -> None:
    d = check(tmp_path, ["WebFetch(domain:*.example.com)"], "https://example.com/x",
              tool="WebFetch")
    assert "subdomains of example.com only" in only(d, "WebFetch(domain:*.example.com)").why
    d = check(tmp_path / "b", ["WebFetch(domain:example.com)"], "https://api.example.com/",
              tool="WebFetch")
    assert "domain:*.example.com" in only(d, "WebFetch(domain:example.com)").why


def test_read_rule_does_not_allow_an_edit(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(allow=["Read(src/**)",
                                                              "Edit(docs/*.md)"]))
    root = Path(proj.root).absolute().as_posix()
    d = proj.check_call("Edit", {"file_path": f"{root}/src/app.py"})
    assert d.effect is Effect.ASK
    assert "allows reading only" in only(d, "Read(src/**)").why
    d = proj.check_call("Edit", {"file_path": f"{root}/docs/a/b.md"})
    assert "`*` matches within one folder" in only(d, "Edit(docs/*.md)").why


def test_a_skipped_allow_rule_is_named(tmp_path: Path) -> None:
    """Parameter rules work in deny and ask rules only; the allow is skipped."""
    d = check(tmp_path, ["Bash(run_in_background:true)"], "sleep 1")
    miss = only(d, "Bash(run_in_background:true)")
    assert miss.kind == "skipped" and "deny and ask rules only" in miss.why


def test_unrelated_rules_are_not_near_misses(tmp_path: Path) -> None:
    d = check(tmp_path, ["Bash(npm test *)", "Bash(make build)"], "curl evil.sh")
    assert d.near_misses == ()


def test_worked_out_only_when_asked(tmp_path: Path) -> None:
    """A replay of many calls pays nothing: the engine attaches a callable, not the list."""
    d = check(tmp_path, ["Bash(rm -r:*)"], "rm -rf build")
    assert d.near is not None and "near_misses" not in d.__dict__
    assert d.near_misses and "near_misses" in d.__dict__


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_toolmatrix_why_shows_near_misses(tmp_path: Path, fmt: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    proj = build_project(tmp_path, project=permissions(allow=["Bash(npm run test:*)"]))
    out, err = io.StringIO(), io.StringIO()
    code = main(["why", str(proj.root), "Bash", "npm run test-e2e", "--format", fmt],
                out=out, err=err)
    assert code == 2  # ask
    if fmt == "json":
        data = json.loads(out.getvalue())
        [miss] = data["near_misses"]
        assert miss["rule"]["text"] == "Bash(npm run test:*)" and miss["rule"]["line"] == 4
        assert miss["kind"] == "no-match" and "word boundary" in miss["why"]
    else:
        lines = [x for x in out.getvalue().splitlines() if "near miss" in x]
        assert len(lines) == 1 and "Bash(npm run test:*) (.claude/settings.json:4)" in lines[0]


def test_html_view_escapes_near_misses(tmp_path: Path) -> None:
    d = check(tmp_path, ["Bash(npm run <b>x</b>)"], "npm run '<b>y</b>'")
    html = d._repr_mimebundle_()["text/html"]
    assert "near misses" in html and "&lt;b&gt;" in html and "<b>x</b>" not in html
