"""What ``make mutate MODULES=toolkit/systems/base/shell.py`` found untested (issue 25): how a
command string becomes the simple commands it runs. Expected values are bash's own reading of
each string (quote removal, redirections, substitutions), worked out by hand; the limits follow
code.claude.com/docs/en/permissions ("Commands longer than 10,000 characters always prompt").
"""

from __future__ import annotations

import pytest

from tests.support.caches import clear_caches
from toolkit.systems.base.shell import MAX_COMMAND_LENGTH, Redirect, SimpleCommand, parse, words


@pytest.fixture(autouse=True)
def _uncached() -> None:
    """Each test runs the code under the caches (see tests/support/caches.py)."""
    clear_caches()


def only(command: str) -> SimpleCommand:
    parsed = parse(command)
    assert parsed.problem is None, parsed.problem
    (c,) = parsed.commands
    return c


def argvs(command: str) -> list[tuple[str, ...]]:
    parsed = parse(command)
    assert parsed.problem is None, parsed.problem
    return [c.argv for c in parsed.commands]


def test_the_length_limit_is_10000_characters() -> None:
    """permissions: "Commands longer than 10,000 characters always prompt because they exceed
    what the analysis parses"."""
    assert MAX_COMMAND_LENGTH == 10_000
    longest = "echo " + "a" * (MAX_COMMAND_LENGTH - 5)
    assert parse(longest).problem is None
    too_long = parse(longest + "a")
    assert (too_long.problem, too_long.commands) == ("longer than 10,000 characters", ())


def test_a_nul_byte_is_a_problem() -> None:
    assert parse("ls\x00 -la").problem == "it contains a NUL byte"


def test_nesting_is_cut_off_after_eight_levels() -> None:
    """Each ``eval`` (like ``bash -c``) parses its text one level deeper."""
    eight = parse("eval " * 8 + "ls")
    assert eight.problem is None and eight.commands[-1].argv == ("ls",)
    nine = parse("eval " * 9 + "ls")
    assert (nine.problem, nine.commands) == ("commands nested too deeply", ())


def test_syntax_errors_name_the_first_bad_text() -> None:
    assert parse('echo "unterminated').problem == 'syntax error near "unterminated'
    assert parse("ls )").problem == "syntax error near )"
    assert parse("if true; then ls").problem is not None
    assert parse("if true; then ls").commands == ()


def test_the_name_and_text_of_a_command() -> None:
    c = only("LANG=C sort  'a b'")
    assert (c.name, c.text, c.source) == ("sort", "LANG=C sort a b", "LANG=C sort  'a b'")
    assert only("X=1").name == ""


@pytest.mark.parametrize(("command", "redirects"), [
    ("ls > a", [(">", "a", False)]), ("ls >> a", [(">>", "a", False)]),
    ("ls >| a", [(">|", "a", False)]), ("ls &> a", [("&>", "a", False)]),
    ("ls &>> a", [("&>>", "a", False)]), ("ls >& a", [(">&", "a", False)]),
    ("ls 2>&1", []), ("ls >&-", []), ("ls < in", []), ("ls <<< word", []),
    ("ls > $OUT", [(">", "$OUT", True)]), ("ls > out*.txt", [(">", "out*.txt", True)]),
    ("ls > 'a b'", [(">", "a b", False)]), ("ls 2> err", [(">", "err", False)]),
])
def test_output_redirections(command: str, redirects: list[tuple[str, str, bool]]) -> None:
    assert [(r.op, r.target, r.dynamic) for r in only(command).redirects] == redirects


def test_redirections_of_a_group_and_a_pipeline() -> None:
    parsed = parse("{ a; b; } > out")
    assert [c.argv for c in parsed.commands] == [("a",), ("b",), ()]
    assert parsed.commands[-1].redirects == (Redirect(">", "out", False),)
    assert parsed.commands[-1].source == "> out"
    parsed = parse("a | b > out")
    assert [(c.argv, c.redirects) for c in parsed.commands] == [
        (("a",), ()), (("b",), (Redirect(">", "out", False),))]
    # a redirection after a list whose last command is in a substitution: its own command
    parsed = parse("(echo $(date)) > out")
    assert [(c.argv, c.context) for c in parsed.commands] == [
        (("echo", "$(date)"), "subshell"), (("date",), "$(...)"), ((), "")]


def test_statements_run_every_child() -> None:
    assert argvs("if a; then b; elif c; then d; else e; fi") == [
        ("a",), ("b",), ("c",), ("d",), ("e",)]
    assert argvs("while a; do b; done") == [("a",), ("b",)]
    assert argvs("for x in $(ls); do rm $x; done") == [("ls",), ("rm", "$x")]
    assert argvs("case $(id) in a) b;; esac") == [("id",), ("b",)]
    assert argvs("f() { rm x; }") == [("rm", "x")]
    assert argvs("! a") == [("a",)]
    assert argvs("a # comment") == [("a",)]
    assert [c.context for c in parse("(a)").commands] == ["subshell"]


def test_builtins_named_by_their_keyword() -> None:
    export, sub = parse("export A=$(id)").commands
    assert (export.argv, export.dynamic, export.globbed) == (
        ("export", "A=$(id)"), (True, True), (False, False))
    assert (sub.argv, sub.context) == (("id",), "$(...)")
    c = only("unset A")
    assert (c.argv, c.dynamic, c.globbed, c.source) == (
        ("unset", "A"), (False, False), (False, False), "unset A")
    assert only("[[ -f x ]]").argv == ("[[", "-f x", "]]")
    assert only("declare -a X=1").argv == ("declare", "-a", "X=1")


def test_assignment_only_statements() -> None:
    c = only("A=1 B='x y'")
    assert (c.argv, c.assignments, c.source) == ((), (("A", "1"), ("B", "x y")), "A=1 B='x y'")
    assert argvs("A=$(id)") == [(), ("id",)]
    assert only("A=").assignments == (("A", ""),)


def test_code_strings_are_parsed() -> None:
    """``bash -c``, ``eval`` and a here-document fed to a shell run their text as code."""
    parsed = parse("sh -x -c 'rm a' arg0")
    assert [(c.argv, c.context) for c in parsed.commands][1:] == [(("rm", "a"), "sh -c")]
    assert [c.context for c in parse("eval rm a").commands] == ["", "eval"]
    assert parse("eval rm a").commands[1].argv == ("rm", "a")
    assert len(parse("eval rm $X").commands) == 1  # dynamic: not guessed
    assert len(parse("bash -c").commands) == 1
    here = parse("bash <<EOF\nrm -rf x\nEOF")
    assert [(c.argv, c.context) for c in here.commands] == [
        (("bash",), ""), (("rm", "-rf", "x"), "bash <<here-document")]
    assert len(parse("cat <<EOF\nrm -rf x\nEOF").commands) == 1
    assert len(parse("python -c 'rm x'").commands) == 1


def test_substitutions_everywhere() -> None:
    parsed = parse("echo `id` <(ls) >(cat) $(pwd)")
    assert [(c.argv, c.context) for c in parsed.commands][1:] == [
        (("id",), "`...`"), (("ls",), "<(...)"), (("cat",), "<(...)"), (("pwd",), "$(...)")]
    assert argvs("ls > $(mktemp)") == [("ls",), ("mktemp",)]
    assert argvs("echo ${X:-$(id)}") == [("echo", "${X:-$(id)}"), ("id",)]
    assert argvs("a=$(b) c") == [("c",), ("b",)]


@pytest.mark.parametrize(("command", "argv", "dynamic", "globbed"), [
    ("echo a\\ b", ("echo", "a b"), (False, False), (False, False)),
    ('echo "a\\"b\\$c\\`d\\\\e\\f"', ("echo", 'a"b$c`d\\e\\f'), (False, False), (False, False)),
    ('echo "a\\\nb"', ("echo", "ab"), (False, False), (False, False)),
    ('echo "$HOME/x"', ("echo", "$HOME/x"), (False, True), (False, False)),
    ("echo $'\\x72m'", ("echo", "rm"), (False, False), (False, False)),
    ("echo $'\\x'", ("echo", "\\x"), (False, False), (False, False)),
    ("echo 'a*'", ("echo", "a*"), (False, False), (False, False)),
    ("echo a*", ("echo", "a*"), (False, False), (False, True)),
    ("echo a?", ("echo", "a?"), (False, False), (False, True)),
    ("echo [ab]", ("echo", "[ab]"), (False, False), (False, True)),
    ("echo a'b'$X", ("echo", "ab$X"), (False, True), (False, False)),
    ("echo $((1+2))", ("echo", "$((1+2))"), (False, True), (False, False)),
    ("$CMD x", ("$CMD", "x"), (True, False), (False, False)),
    ('echo $"x"', ("echo", "x"), (False, False), (False, False)),
    ("echo 12", ("echo", "12"), (False, False), (False, False)),
])
def test_words(command: str, argv: tuple[str, ...], dynamic: tuple[bool, ...],
               globbed: tuple[bool, ...]) -> None:
    c = only(command)
    assert (c.argv, c.dynamic, c.globbed) == (argv, dynamic, globbed)


def test_words_of_exactly_one_command() -> None:
    assert words("git commit -m 'fix it'") == ("git", "commit", "-m", "fix it")
    assert words("a && b") is None
    assert words('echo "x') is None
    assert words("echo $(id)") is None


def test_redirections_go_to_the_last_command_and_keep_their_context() -> None:
    parsed = parse("a | b | c > out")
    assert [(c.argv, c.redirects) for c in parsed.commands] == [
        (("a",), ()), (("b",), ()), (("c",), (Redirect(">", "out", False),))]
    (group,) = [c for c in parse("{ a; } > out 2> err").commands if not c.argv]
    assert group.source == "> out > err"
    inner = parse("echo $( (a) > out; X=1; unset Y )").commands
    assert [(c.argv, c.context) for c in inner] == [
        (("echo", "$( (a) > out; X=1; unset Y )"), ""), (("a",), "subshell"),
        ((), "$(...)"), ((), "$(...)"), (("unset", "Y"), "$(...)")]


def test_a_builtin_has_no_assignments_or_redirections_of_its_own() -> None:
    c = only("unset A")
    assert (c.text, c.assignments, c.redirects) == ("unset A", (), ())


def test_a_syntax_error_shows_at_most_40_characters() -> None:
    assert parse('echo "' + "a" * 60).problem == 'syntax error near "' + "a" * 39
