"""The runtime-independent pieces: the shell parser, anchored path patterns, settings layers,
and the one permission precedence (decide_call, combine_parts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.core.decision import CallFacts, Effect, Reason, combine_parts, decide_call
from toolkit.core.models import Rule
from toolkit.errors import DefinitionError
from toolkit.systems.base import shell
from toolkit.systems.base.layers import Layer, Layers, read_layer
from toolkit.systems.base.paths import AnchoredPattern, absolute, inside, real_variants

# -- shell -------------------------------------------------------------------------------------


def texts(command: str) -> list[str]:
    parsed = shell.parse(command)
    assert parsed.problem is None, parsed.problem
    return [c.text for c in parsed.commands]


def test_every_separator_splits() -> None:
    for sep in ("&&", "||", ";", "|", "|&", "&", "\n"):
        assert texts(f"a 1 {sep} b 2") == ["a 1", "b 2"], sep


def test_quoted_operators_are_arguments_not_separators() -> None:
    assert texts("echo 'a && b' \"c; d\" e\\;f") == ["echo a && b c; d e;f"]


def test_quote_removal_and_ansi_c_strings() -> None:
    assert texts("'n'p\"m\" run $'\\x62uild'") == ["npm run build"]


def test_substitutions_are_commands_of_their_own_with_their_context() -> None:
    parsed = shell.parse("echo $(id -u) `whoami` <(ls /)")
    assert [(c.text, c.context) for c in parsed.commands] == [
        ("echo $(id -u) `whoami` <(ls /)", ""), ("id -u", "$(...)"), ("whoami", "`...`"),
        ("ls /", "<(...)")]
    assert parsed.commands[0].dynamic == (False, True, True, True)


def test_assignments_and_redirections_are_kept_apart() -> None:
    (c,) = shell.parse("LANG=C FOO='a b' sort data.txt > out.txt 2>> err.log 2>&1").commands
    assert c.argv == ("sort", "data.txt")
    assert c.assignments == (("LANG", "C"), ("FOO", "a b"))
    assert [(r.op, r.target) for r in c.redirects] == [(">", "out.txt"), (">>", "err.log")]


def test_a_compound_statements_redirect_is_its_own_command() -> None:
    parsed = shell.parse("(cd a && make) > build.log")
    assert [c.text for c in parsed.commands] == ["cd a", "make", ""]
    assert parsed.commands[-1].redirects[0].target == "build.log"
    assert parsed.commands[-1].source == "> build.log"


def test_a_redirection_after_a_list_belongs_to_its_last_command() -> None:
    """The grammar hangs ``> f`` on the whole ``a && b > f``; bash gives it to ``b``."""
    parsed = shell.parse("git add -A && echo $(date) >> .git/hooks/pre-commit")
    assert [(c.text, [r.target for r in c.redirects]) for c in parsed.commands] == [
        ("git add -A", []), ("echo $(date)", [".git/hooks/pre-commit"]), ("date", [])]


def test_code_strings_are_parsed_with_their_label() -> None:
    parsed = shell.parse("bash -c 'make; make install' && eval 'rm x'")
    assert [(c.text, c.context) for c in parsed.commands] == [
        ("bash -c make; make install", ""), ("make", "bash -c"), ("make install", "bash -c"),
        ("eval rm x", ""), ("rm x", "eval")]


def test_a_dynamic_code_string_is_not_guessed() -> None:
    assert texts('bash -c "$CMD"') == ["bash -c $CMD"]


def test_syntax_errors_are_a_problem_not_a_guess() -> None:
    for bad in ("echo 'x", "a &&", "if true; then", "echo $((1 +", "( a"):
        parsed = shell.parse(bad)
        assert parsed.problem is not None and parsed.commands == (), bad


def test_parse_is_cached() -> None:
    assert shell.parse("ls -la") is shell.parse("ls -la")


def test_words_of_one_command() -> None:
    assert shell.words("git commit -m 'a b'") == ("git", "commit", "-m", "a b")
    assert shell.words("a && b") is None


# -- paths ------------------------------------------------------------------------------------


def test_anchored_patterns_follow_gitignore() -> None:
    assert AnchoredPattern("/p", "src/**").matches("/p/src/a/b.ts")
    assert not AnchoredPattern("/p", "src/**").matches("/p/vendor/src/b.ts")
    assert AnchoredPattern("/p", "**/src/**").matches("/p/vendor/src/b.ts")
    assert AnchoredPattern("/p", "*.env").matches("/p/a/b/prod.env")
    assert not AnchoredPattern("/p", ".env").matches("/q/.env")  # only under the anchor
    assert AnchoredPattern("/", "/etc/**").matches("/etc/ssh/sshd_config")


def test_absolute_and_inside() -> None:
    assert absolute("~/x", "/w", "/home/a") == "/home/a/x"
    assert absolute("../y/./z", "/w/p", None) == "/w/y/z"
    assert inside("/w/p/a", ["/w/p"]) and not inside("/w/pp", ["/w/p"])


def test_symlinks_give_both_paths(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("x")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert real_variants(link.as_posix()) == (link.as_posix(), target.as_posix())


# -- layers -----------------------------------------------------------------------------------


def test_scalar_from_the_top_lists_merged_with_their_layer() -> None:
    top = Layer("local", "l.json", {"permissions": {"allow": ["a"], "defaultMode": "plan"}})
    low = Layer("user", "u.json", {"permissions": {"allow": ["b", "c"],
                                                   "defaultMode": "default"}})
    stack = Layers((top, low))
    value, layer = stack.scalar("permissions", "defaultMode") or (None, None)
    assert (value, layer.name if layer else None) == ("plan", "local")
    assert [(v, lay.name) for v, lay, _ in stack.listed("permissions", "allow")] == [
        ("a", "local"), ("b", "user"), ("c", "user")]
    refused = stack.scalar("permissions", "defaultMode", skip=lambda layer, v: v == "plan")
    assert refused is not None and refused[0] == "default"


def test_read_layer_locates_values_and_rejects_bad_json(tmp_path: Path) -> None:
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)", "Read(.env)"]}},
                               indent=2))
    layer = read_layer(good, "project", "s.json", "/p")
    assert layer.line("permissions", "deny", 1) == 5
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "permissions": {\n    "allow": ["Bash(ls *)",]\n  }\n}\n')
    with pytest.raises(DefinitionError) as err:
        read_layer(bad, "project", "bad.json", "/p")
    assert (err.value.file, err.value.line) == ("bad.json", 3)


# -- the one precedence -----------------------------------------------------------------------

DENY = Rule(kind="deny", pattern="Bash", spec="rm *")
ASK = Rule(kind="ask", pattern="Bash", spec="git push *")
ALLOW = Rule(kind="allow", pattern="Bash", spec="*")


def test_deny_then_ask_then_allow_whatever_the_mode() -> None:
    for mode in ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"):
        assert decide_call(CallFacts(deny=DENY, ask=ASK, allow=ALLOW), mode).effect is (
            Effect.DENY)
        asked = decide_call(CallFacts(ask=ASK, allow=ALLOW), mode)
        assert asked.effect is (Effect.IMPLICIT_DENY if mode == "dontAsk" else Effect.ASK)
        assert asked.rule == ASK


def test_never_approved_by_an_allow_rule() -> None:
    critical = decide_call(CallFacts(allow=ALLOW, critical="/"), "default")
    protected = decide_call(CallFacts(allow=ALLOW, protected=".git", edit=True), "acceptEdits")
    unparseable = decide_call(CallFacts(allow=ALLOW, unparseable="syntax error"),
                              "bypassPermissions")
    assert [v.reason for v in (critical, protected, unparseable)] == [
        Reason.DANGEROUS_RM, Reason.PROTECTED_PATH, Reason.UNPARSEABLE]
    assert all(v.effect is Effect.ASK for v in (critical, protected, unparseable))


def test_parts_combine_deny_over_ask_over_allow() -> None:
    assert combine_parts([Effect.ALLOW, Effect.ASK, Effect.ALLOW]) == 1
    assert combine_parts([Effect.ASK, Effect.IMPLICIT_DENY, Effect.DENY]) == 2
    assert combine_parts([Effect.ALLOW, Effect.ALLOW]) == 0
    with pytest.raises(ValueError):
        combine_parts([])
