"""What ``make mutate MODULES=toolkit/systems/claude_code/permissions/bash.py`` found untested
(issue 25): wrappers, safe variables, read-only commands, file commands, protected and
critical paths, each against the sentence of code.claude.com/docs/en/permissions (or
/permission-modes) it follows; expected values are worked out by hand.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import toolkit as tk
from tests.support.caches import clear_caches
from tests.support.claude import permissions
from toolkit.systems.base.shell import parse
from toolkit.systems.claude_code.permissions.bash import (
    CommandForms,
    critical_target,
    forms,
    protected_path,
    read_only,
    touched_paths,
)


@pytest.fixture(autouse=True)
def _uncached() -> None:
    """Each test runs the code under the caches (see tests/support/caches.py)."""
    clear_caches()


Make = Callable[..., tk.Project]


def form(command: str) -> CommandForms:
    (c,) = parse(command).commands
    return forms(c)


# -- wrappers and variables ----------------------------------------------------------------------

@pytest.mark.parametrize(("command", "allow"), [
    # permissions#process-wrappers: "The stripped wrappers are timeout, time, nice, nohup, and
    # stdbuf, plus the shell builtins command and builtin, and zsh's noglob."
    ("timeout 5 npm test", "npm test"), ("timeout 1.5m npm test", "npm test"),
    ("timeout --foreground -k 5 -s KILL 10 npm test", "npm test"),
    ("timeout --kill-after=5 --signal=TERM -v --preserve-status --verbose 10 npm test",
     "npm test"),
    ("timeout -k5 -sKILL 10 npm test", "npm test"), ("timeout -- 10 npm test", "npm test"),
    ("timeout --kill-after 5 --signal KILL 10 npm test", "npm test"),
    ("timeout -s kill 10 npm test", "npm test"), ("timeout -v -- 10 npm test", "npm test"),
    ("nice -n", "-n"), ("nice -n 5", "nice -n 5"),
    ("timeout --bogus 10 npm test", "timeout --bogus 10 npm test"),
    ("timeout npm test", "timeout npm test"), ("timeout 10", "timeout 10"),
    ("timeout -k", "timeout -k"), ("timeout -s KILL", "timeout -s KILL"),
    ("timeout -s $SIG 10 npm test", "timeout -s $SIG 10 npm test"),
    ("time npm test", "npm test"), ("nohup npm test", "npm test"),
    ("nice npm test", "npm test"), ("nice -n 5 npm test", "npm test"),
    ("nice -n -5 npm test", "npm test"), ("nice -10 npm test", "npm test"),
    ("nice -n x npm test", "-n x npm test"),
    ("stdbuf -oL -eL npm test", "npm test"), ("stdbuf -i0 npm test", "npm test"),
    ("stdbuf npm test", "stdbuf npm test"),
    ("command npm test", "npm test"), ("builtin echo x", "echo x"), ("noglob ls *", "ls *"),
    # "the query form command -v ... looks up a command rather than running one"
    ("command -v npm", "command -v npm"), ("command -V npm", "command -V npm"),
    # "Stripping applies only when xargs has no flags"
    ("xargs npm test", "npm test"), ("xargs -n1 npm test", "xargs -n1 npm test"),
    ("nohup -- npm test", "npm test"), ("nice timeout 5 nohup npm test", "npm test"),
    ("time", "time"),
])
def test_wrappers_are_stripped_for_allow_rules(command: str, allow: str) -> None:
    assert form(command).allow == allow


def test_safe_variables_are_stripped_and_others_kept() -> None:
    """permissions: "Claude Code also strips a leading assignment of certain known-safe
    environment variables, so Bash(npm test *) matches NODE_ENV=test npm test"."""
    assert form("NODE_ENV=test npm test").allow == "npm test"
    assert form("NODE_ENV=test FOO=1 npm test").allow == "FOO=1 npm test"
    assert form("NODE_ENV='a b' npm test").allow == "NODE_ENV=a b npm test"  # not a plain value
    assert form("LANG=C.UTF-8 TZ=Europe/Paris sort x").allow == "sort x"


def test_deny_and_ask_rules_see_every_spelling() -> None:
    """"a deny or ask rule matches ... sudo rm -rf x still meets Bash(rm *)" (the stricter
    reading documented in bash.py): the command as written, without its assignments, without
    wrappers, and what an exec wrapper runs."""
    f = form("FOO=1 timeout 5 sudo -u root rm -rf x")
    assert f.restrict == ("FOO=1 timeout 5 sudo -u root rm -rf x",
                          "timeout 5 sudo -u root rm -rf x", "sudo -u root rm -rf x",
                          "rm -rf x")
    assert f.argv == ("sudo", "-u", "root", "rm", "-rf", "x")
    assert form("env A=1 -i rm x").restrict[-1] == "rm x"
    assert form("sudo -- rm x").restrict[-1] == "rm x"
    assert form("sudo -E rm x").restrict[-1] == "rm x"
    assert form("sudo env A=1 nice -n 5 rm x").restrict[-2:] == ("nice -n 5 rm x", "rm x")
    assert form("xargs -n 1 rm").restrict[-1] == "rm"
    assert form("sudo").restrict == ("sudo",)
    assert form("sudo -u root").restrict == ("sudo -u root",)
    assert form("env - rm x").restrict[-1] == "- rm x"


@pytest.mark.parametrize(("command", "exact_only"), [
    # "Exec wrappers such as watch, setsid, ionice, and flock can't be auto-approved by a
    # prefix rule ... The same applies to find with -exec or -delete"
    ("watch make", True), ("setsid make", True), ("ionice make", True), ("flock f make", True),
    ("find . -exec rm {} ;", True), ("find . -delete", True), ("find . -name x", False),
    ("timeout 5 watch make", True), ("make", False), ("find . -fprint out", True),
])
def test_exec_wrappers_need_an_exact_rule(command: str, exact_only: bool) -> None:
    assert form(command).exact_only is exact_only


def test_a_wrapper_inside_an_exec_wrapper_does_not_hide_the_command_from_a_deny_rule(
        make: Make) -> None:
    """Bug found by the mutation run: ``sudo timeout 5 rm -rf x`` escaped ``Bash(rm *)`` in
    deny while ``sudo rm -rf x`` and ``timeout 5 sudo rm -rf x`` met it — the wrappers of what
    an exec wrapper runs were stripped but that spelling was never tried. permissions#process-
    wrappers: "The stripped wrappers are timeout, time, nice, nohup, and stdbuf"."""
    proj = make(project=permissions(["Bash(sudo *)"], deny=["Bash(rm *)"]))
    for command in ("sudo rm -rf x", "sudo timeout 5 rm -rf x", "sudo nice rm -rf x",
                    "timeout 5 sudo rm -rf x", "sudo env A=1 nice -n 5 rm x"):
        d = proj.check_call("Bash", {"command": command})
        assert (d.effect.value, d.rule.text) == ("explicit-deny", "Bash(rm *)"), command
    assert form("sudo timeout 5 rm x").restrict == (
        "sudo timeout 5 rm x", "timeout 5 rm x", "rm x")


# -- read-only commands --------------------------------------------------------------------------

def ro(command: str) -> bool:
    (c,) = parse(command).commands
    return read_only(c.argv, c.globbed, c.dynamic)


@pytest.mark.parametrize(("command", "expected"), [
    # permissions#read-only-commands: "These include ls, cat, echo, pwd, head, tail, grep,
    # find, wc, which, diff, stat, du, cd, and read-only forms of git."
    ("ls -la", True), ("cat a", True), ("pwd", True), ("du -sh .", True), ("which x", True),
    ("rm a", False), ("$CMD a", False), ("ls *.py", True),
    # "commands with write-capable or exec-capable flags, such as find ... prompt when an
    # unquoted glob is present"
    ("find . -name *.py", False), ("find . -name '*.py'", True), ("find . -delete", False),
    ("git status", True), ("git log -p", True), ("git diff HEAD", True), ("git show x", True),
    ("git push", False), ("git", False), ("git log --output=x", False),
    ("git diff *.py", False), ("git branch", True), ("git branch -a --merged", True),
    ("git branch -D x", False), ("git branch new", False),
])
def test_read_only_commands(command: str, expected: bool) -> None:
    assert ro(command) is expected


def test_nothing_is_read_only_without_a_command() -> None:
    assert read_only((), (), ()) is False


# -- file commands ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "reads", "writes"), [
    # "Read and Edit deny rules apply to ... file commands Claude Code recognizes in Bash, such
    # as cat, head, tail, and sed"
    ("cat -n a b", ("a", "b"), ()), ("cat -", ("-",), ()),
    ("grep -r key src", ("src",), ()), ("grep -e key src", ("key", "src"), ()),
    ("rg --regexp=key src", ("src",), ()), ("grep -f pats src", ("pats", "src"), ()),
    ("sed s/a/b/ f", ("f",), ()), ("sed -i s/a/b/ f", ("f",), ("f",)),
    ("sed --in-place s/a/b/ f", ("f",), ("f",)), ("sed -e s/a/b/ f", ("s/a/b/", "f"), ()),
    ("sed -f script f", ("script", "f"), ()),
    ("touch a b", (), ("a", "b")), ("tee -a log", (), ("log",)), ("chmod 600 k", (), ("600", "k")),
    ("cp -r a b dest", ("a", "b"), ("dest",)), ("mv a dest", ("a",), ("a", "dest")),
    ("ln -s a b", ("a",), ("b",)), ("make all", (), ()), ("echo x", (), ()),
])
def test_paths_a_file_command_touches(command: str, reads: tuple[str, ...],
                                      writes: tuple[str, ...]) -> None:
    (c,) = parse(command).commands
    assert touched_paths(c.argv) == (reads, writes)
    assert touched_paths(()) == ((), ())


@pytest.mark.parametrize(("path", "protected"), [
    # permission-modes#protected-paths
    ("/p/.git/config", ".git"), ("/p/.vscode/settings.json", ".vscode"),
    ("/p/.claude/settings.json", ".claude"), ("/p/.husky/pre-commit", ".husky"),
    # "except for .claude/worktrees where Claude stores its own git worktrees"
    ("/p/.claude/worktrees/w/a.py", None), ("/p/.claude/worktrees", None),
    ("/h/.config/git/config", ".config/git"), ("/h/.config/gitx", None), ("/h/.config", None),
    ("/h/.bashrc", ".bashrc"), ("/p/.mcp.json", ".mcp.json"), ("/p/src/a.py", None),
    ("/p/.bashrc/x", None), ("/", None),
])
def test_protected_paths(path: str, protected: str | None) -> None:
    assert protected_path(path) == protected


@pytest.mark.parametrize(("argv", "critical"), [
    # permission-modes#critical-paths: the root, a top-level directory, the home directory,
    # the working directory and its parents, a glob under an additional directory, a glob or
    # trailing slash under a shell variable
    (("rm", "-rf", "/"), "/"), (("rm", "-rf", "/usr"), "/usr"),
    (("rm", "-rf", "/usr/*"), "/usr/*"), (("rm", "-rf", "~"), "~"),
    (("rm", "-rf", "$HOME"), "$HOME"), (("rm", "-r", "${HOME}"), "${HOME}"),
    (("rm", "-rf", "$HOME/*"), "$HOME/*"), (("rm", "-rf", "$HOME/src"), None),
    (("rm", "-rf", "."), "."), (("rm", "-rf", ".."), ".."), (("rmdir", "/w"), "/w"),
    (("rm", "-rf", "build"), None), (("rm", "-rf", "build/*"), None), (("rm", "*"), "*"),
    (("rm", "-rf", "$DIR/"), "$DIR/"), (("rm", "-rf", "${DIR}/*"), "${DIR}/*"),
    (("rm", "-rf", "$DIR/x"), None), (("rm", "-rf", "/x/extra/*"), "/x/extra/*"),
    (("rm", "-rf", "/x/extra"), None), (("rm", "-"), None), (("ls", "/"), None), ((), None),
    (("rm", "-rf", "a", "/"), "/"),
])
def test_critical_paths(argv: tuple[str, ...], critical: str | None) -> None:
    assert critical_target(argv, "/w/p", "/home/ann", ["/x/extra"]) == critical


def test_critical_paths_without_a_home() -> None:
    assert critical_target(("rm", "-rf", "$HOME"), "/w/p", None, []) is None
    assert critical_target(("rm", "-rf", "/home/ann"), "/w/p", "/home/ann/", []) == "/home/ann"
