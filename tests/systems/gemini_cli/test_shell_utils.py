"""Gemini CLI's ``packages/core/src/utils/shell-utils.test.ts``, ported
(google-gemini/gemini-cli@5411f11) for bash: normalizeCommand, getCommandRoots,
hasRedirection, splitCommands, stripShellWrapper against toolkit's tree-sitter-bash
splitter. Each case names its ``describe`` and ``it``.

Not ported (no bash behaviour to hold toolkit to): 'should handle parser initialization
failures gracefully' and 'should handle bash parser timeouts' (web-tree-sitter's Wasm
loading and performance.now mocks), the PowerShell integration and 'hasRedirection
(PowerShell via mock)' blocks, escapeShellArg, getShellConfiguration and
resolveExecutable (Windows / process spawning helpers the policy engine does not use).
"""

from __future__ import annotations

import pytest

from toolkit.systems.gemini_cli.policy import (
    get_command_roots,
    has_redirection,
    normalize_command,
    parse_command_details,
    split_commands,
    strip_shell_wrapper,
)

SOURCE = "packages/core/src/utils/shell-utils.test.ts"


def _ids(values: list[tuple[str, ...]]) -> list[str]:
    return [v[0] for v in values]


NORMALIZE = [
    ("should lowercase the command", "NPM", "npm"),
    ("should remove .exe extension", "node.exe", "node"),
    ("should handle absolute paths", "/usr/bin/npm", "npm"),
    ("should handle absolute paths (Windows path)", "C:\\Program Files\\nodejs\\node.exe",
     "node"),
]


@pytest.mark.parametrize(("name", "command", "expected"), NORMALIZE, ids=_ids(NORMALIZE))
def test_normalize_command(name: str, command: str, expected: str) -> None:
    """normalizeCommand › (name)"""
    assert normalize_command(command) == expected


ROOTS: list[tuple[str, str, list[str]]] = [
    ("should return a single command", "ls -l", ["ls"]),
    ("should handle paths and return the full path", "/usr/local/bin/node script.js",
     ["/usr/local/bin/node"]),
    ("should return an empty array for an empty string", "", []),
    ("should handle a mix of operators", "a;b|c&&d||e&f", ["a", "b", "c", "d", "e", "f"]),
    ("should correctly parse a chained command with quotes",
     'echo "hello" && git commit -m "feat"', ["echo", "git"]),
    ("should include nested command substitutions", "echo $(badCommand --danger)",
     ["echo", "badCommand"]),
    ("should include process substitutions", "diff <(ls) <(ls -a)", ["diff", "ls", "ls"]),
    ("should include backtick substitutions", "echo `badCommand --danger`",
     ["echo", "badCommand"]),
    ("should treat parameter expansions with prompt transformations as unsafe",
     'echo "${var1=aa\\140 env| ls -l\\140}${var1@P}"', []),
    ("should not return roots for prompt transformation expansions", "echo ${foo@P}", []),
    ("should include nested command substitutions in redirected statements",
     "echo $(cat secret) > output.txt", ["echo", "cat"]),
    ("should filter out all redirections from getCommandRoots (<)", "cat < input.txt",
     ["cat"]),
    ("should filter out all redirections from getCommandRoots (2>)", "ls 2> error.log",
     ["ls"]),
    ("should filter out all redirections from getCommandRoots (3<&0)", "exec 3<&0",
     ["exec"]),
]


@pytest.mark.parametrize(("name", "command", "expected"), ROOTS, ids=_ids(ROOTS))
def test_get_command_roots(name: str, command: str, expected: list[str]) -> None:
    """getCommandRoots › (name)"""
    assert get_command_roots(command) == expected


@pytest.mark.xfail(strict=True, reason="toolkit's splitter lists commands only; Gemini's "
                   "parseBashCommandDetails also lists each redirection as a detail named "
                   "'redirection (<)' / 'redirection (>)', which checkShellCommand and "
                   "getCommandRoots then skip (REDIRECTION_NAMES), so no decision differs")
def test_input_redirection_detail() -> None:
    """getCommandRoots › should correctly identify input redirection with explicit file
    descriptor"""
    details, _ = parse_command_details("ls 2< input.txt")
    assert [d.name for d in details if d.name.startswith("redirection")] == ["redirection (<)"]


REDIRECTION = [
    ("should detect output redirection", "echo hello > world", True),
    ("should detect input redirection", "cat < input", True),
    ("should detect redirection with explicit file descriptor (2>)", "ls 2> error.log", True),
    ("should detect redirection with explicit file descriptor (3<&0)", "exec 3<&0", True),
    ("should detect append redirection", "echo hello >> world", True),
    ("should detect heredoc", "cat <<EOF\nhello\nEOF", True),
    ("should detect herestring", 'cat <<< "hello"', True),
    ("should return false for simple commands", "ls -la", False),
    ("should return false for pipes (pipes are not redirections in this context)",
     "echo hello | cat", False),
    ("should return false when redirection characters are inside quotes in bash",
     'echo "a > b"', False),
]


@pytest.mark.parametrize(("name", "command", "expected"), REDIRECTION, ids=_ids(REDIRECTION))
def test_has_redirection(name: str, command: str, expected: bool) -> None:
    """hasRedirection › (name)"""
    assert has_redirection(command) is expected


SPLIT: list[tuple[str, str, list[str]]] = [
    ("should split chained commands", "ls -l && git status", ["ls -l", "git status"]),
    ("should filter out redirection tokens but keep command parts (>)",
     'echo "hello" > file.txt', ['echo "hello"']),
    ("should filter out redirection tokens but keep command parts (>>)",
     'printf "test" >> log.txt', ['printf "test"']),
    ("should filter out redirection tokens but keep command parts (<)", "cat < input.txt",
     ["cat"]),
    ("should filter out redirection tokens but keep command parts (heredoc)",
     "cat << EOF\nhello\nEOF", ["cat"]),
    ("should filter out redirection tokens but keep command parts (herestring)",
     'grep "foo" <<< "foobar"', ['grep "foo" <<< "foobar"']),
]


@pytest.mark.parametrize(("name", "command", "expected"), SPLIT, ids=_ids(SPLIT))
def test_split_commands(name: str, command: str, expected: list[str]) -> None:
    """splitCommands › (name)"""
    assert split_commands(command) == expected


def test_split_process_substitution() -> None:
    """splitCommands › should extract nested commands from process substitution while
    filtering the redirection operator"""
    parts = split_commands('echo "foo" > >(cat)')
    assert 'echo "foo"' in parts and "cat" in parts
    assert not any(">" in p for p in parts)


WRAPPERS = [
    ("should strip sh -c with quotes", 'sh -c "ls -l"', "ls -l"),
    ("should strip bash -c with extra whitespace", '  bash  -c  "ls -l"  ', "ls -l"),
    ("should strip zsh -c without quotes", "zsh -c ls -l", "ls -l"),
    ("should strip cmd.exe /c", 'cmd.exe /c "dir"', "dir"),
    ("should strip powershell.exe -Command with optional -NoProfile",
     'powershell.exe -NoProfile -Command "Get-ChildItem"', "Get-ChildItem"),
    ("should strip powershell.exe -Command with optional -NoProfile (without)",
     'powershell.exe -Command "Get-ChildItem"', "Get-ChildItem"),
    ("should strip pwsh -Command wrapper", 'pwsh -NoProfile -Command "Get-ChildItem"',
     "Get-ChildItem"),
    ("should not strip anything if no wrapper is present", "ls -l", "ls -l"),
    ("should handle multi-line escaped double quotes correctly",
     'bash -c "hg commit -m \\"title\n\nbody\\""', 'hg commit -m "title\n\nbody"'),
]


@pytest.mark.parametrize(("name", "command", "expected"), WRAPPERS, ids=_ids(WRAPPERS))
def test_strip_shell_wrapper(name: str, command: str, expected: str) -> None:
    """stripShellWrapper › (name)"""
    assert strip_shell_wrapper(command) == expected
