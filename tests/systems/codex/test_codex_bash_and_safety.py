"""Codex's shell parsing and command-safety tests, ported from openai/codex:
``codex-rs/shell-command/src/bash.rs`` (``mod tests``),
``codex-rs/shell-command/src/command_safety/is_safe_command.rs`` and
``is_dangerous_command.rs`` (their inline tests). Each case names its Rust test; the
Windows-only and PowerShell tests are xfail (toolkit runs the Unix branches).
"""

from __future__ import annotations

import pytest

from toolkit.systems.codex.bash import (
    parse_plain_shell_script,
    parse_shell_lc_plain_commands,
    parse_shell_lc_single_command_prefix,
)
from toolkit.systems.codex.safety import (
    command_might_be_dangerous,
    is_known_safe_command,
    is_safe_to_call_with_exec,
)

BASH = "codex-rs/shell-command/src/bash.rs"
SAFE = "codex-rs/shell-command/src/command_safety/is_safe_command.rs"
DANGEROUS = "codex-rs/shell-command/src/command_safety/is_dangerous_command.rs"


@pytest.mark.parametrize(("test", "script", "expected"), [
    ("accepts_single_simple_command", "ls -1", [["ls", "-1"]]),
    ("accepts_multiple_commands_with_allowed_operators", "ls && pwd; echo 'hi there' | wc -l",
     [["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"]]),
    ("extracts_double_and_single_quoted_strings", 'echo "hello world"',
     [["echo", "hello world"]]),
    ("extracts_double_and_single_quoted_strings", "echo 'hi there'", [["echo", "hi there"]]),
    ("accepts_double_quoted_strings_with_newlines", 'git commit -m "line1\nline2"',
     [["git", "commit", "-m", "line1\nline2"]]),
    ("accepts_mixed_quote_concatenation", "echo \"/usr\"'/'\"local\"/bin",
     [["echo", "/usr/local/bin"]]),
    ("accepts_mixed_quote_concatenation", "echo '/usr'\"/\"'local'/bin",
     [["echo", "/usr/local/bin"]]),
    ("accepts_numbers_as_words", "echo 123 456", [["echo", "123", "456"]]),
    ("accepts_concatenated_flag_and_value", 'rg -n "foo" -g"*.py"',
     [["rg", "-n", "foo", "-g*.py"]]),
    ("accepts_concatenated_flag_with_single_quotes", "grep -n 'pattern' -g'*.txt'",
     [["grep", "-n", "pattern", "-g*.txt"]]),
])
def test_bash_accepts(test: str, script: str, expected: list[list[str]]) -> None:
    """bash.rs: the word-only chains Codex splits."""
    assert parse_plain_shell_script(script) == expected, test


@pytest.mark.parametrize(("test", "script"), [
    ("rejects_double_quoted_strings_with_expansions", 'echo "hi ${USER}"'),
    ("rejects_double_quoted_strings_with_expansions", 'echo "$HOME"'),
    ("rejects_parentheses_and_subshells", "(ls)"),
    ("rejects_parentheses_and_subshells", "ls || (pwd && echo hi)"),
    ("rejects_redirections_and_unsupported_operators", "ls > out.txt"),
    ("rejects_redirections_and_unsupported_operators", "echo hi & echo bye"),
    ("rejects_command_and_process_substitutions_and_expansions", "echo $(pwd)"),
    ("rejects_command_and_process_substitutions_and_expansions", "echo `pwd`"),
    ("rejects_command_and_process_substitutions_and_expansions", "echo $HOME"),
    ("rejects_command_and_process_substitutions_and_expansions", 'echo "hi $USER"'),
    ("rejects_variable_assignment_prefix", "FOO=bar ls"),
    ("rejects_trailing_operator_parse_error", "ls &&"),
    ("rejects_empty_command_position_with_leading_operator", "&& ls"),
    ("rejects_empty_command_position_with_double_separator", "ls ;; pwd"),
    ("rejects_empty_command_position_with_empty_pipeline_segment", "ls | | wc"),
    ("rejects_concatenation_with_variable_substitution", 'rg -g"$VAR" pattern'),
    ("rejects_concatenation_with_variable_substitution", 'rg -g"${VAR}" pattern'),
    ("rejects_concatenation_with_command_substitution", 'rg -g"$(pwd)" pattern'),
    ("rejects_concatenation_with_command_substitution", "rg -g\"$(echo '*.py')\" pattern"),
])
def test_bash_rejects(test: str, script: str) -> None:
    """bash.rs: anything but a word-only chain is judged whole."""
    assert parse_plain_shell_script(script) is None, test


def test_parse_zsh_lc_plain_commands() -> None:
    """bash.rs parse_zsh_lc_plain_commands"""
    assert parse_shell_lc_plain_commands(["zsh", "-lc", "ls"]) == [["ls"]]


@pytest.mark.parametrize(("test", "command", "expected"), [
    ("parse_shell_lc_single_command_prefix_supports_heredoc",
     ["zsh", "-lc", "python3 <<'PY'\nprint('hello')\nPY"], ["python3"]),
    ("parse_shell_lc_single_command_prefix_supports_heredoc",
     ["zsh", "-lc", "python3 << PY\nprint('hello')\nPY"], ["python3"]),
    ("parse_shell_lc_single_command_prefix_rejects_multi_command_scripts",
     ["bash", "-lc", "python3 <<'PY'\nprint('hello')\nPY\necho done"], None),
    ("parse_shell_lc_single_command_prefix_rejects_non_heredoc_redirects",
     ["bash", "-lc", "echo hello > /tmp/out.txt"], None),
    ("parse_shell_lc_single_command_prefix_rejects_heredoc_with_extra_file_redirect",
     ["bash", "-lc", "python3 <<'PY' > /tmp/out.txt\nprint('hello')\nPY"], None),
    ("parse_shell_lc_single_command_prefix_rejects_heredoc_with_variable_assignment",
     ["bash", "-lc", "PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF"], None),
    ("parse_shell_lc_single_command_prefix_rejects_herestring_with_chaining",
     ["bash", "-lc", "echo hello > /tmp/out.txt && cat /tmp/out.txt"], None),
    ("parse_shell_lc_single_command_prefix_rejects_herestring_with_substitution",
     ["bash", "-lc", 'python3 <<< "$(rm -rf /)"'], None),
    ("parse_shell_lc_single_command_prefix_rejects_arithmetic_shift_non_heredoc_script",
     ["bash", "-lc", "echo $((1<<2))"], None),
    ("parse_shell_lc_single_command_prefix_rejects_heredoc_command_with_word_expansion",
     ["bash", "-lc", "python3 $((1<<2)) <<'PY'\nprint('hello')\nPY"], None),
])
def test_heredoc_single_command_prefix(test: str, command: list[str],
                                       expected: list[str] | None) -> None:
    """bash.rs: the here-document special case."""
    assert parse_shell_lc_single_command_prefix(command) == expected, test


# -- is_safe_command.rs -----------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["ls"], ["base64"], ["sed", "-n", "1,5p", "file.txt"], ["nl", "-nrz", "Cargo.toml"],
    ["find", ".", "-name", "file.txt"], ["numfmt", "1000"], ["tac", "Cargo.toml"],
])
def test_known_safe_examples(argv: list[str]) -> None:
    """is_safe_command.rs known_safe_examples (the Linux branch for numfmt / tac)"""
    assert is_safe_to_call_with_exec(argv)


@pytest.mark.parametrize("argv", [
    ["git", "status"], ["git", "diff", "-p"], ["git", "log", "-p", "-1"],
    ["git", "show", "-p", "HEAD"], ["git", "branch", "--show-current"],
    ["bash", "-lc", "git status"], ["bash", "-lc", "git log -p -1"],
])
def test_git_commands_require_approval(argv: list[str]) -> None:
    """is_safe_command.rs git_commands_require_approval"""
    assert not is_known_safe_command(argv)


def test_cargo_check_is_not_safe() -> None:
    """is_safe_command.rs cargo_check_is_not_safe"""
    assert not is_known_safe_command(["cargo", "check"])


def test_zsh_lc_safe_command_sequence() -> None:
    """is_safe_command.rs zsh_lc_safe_command_sequence"""
    assert is_known_safe_command(["zsh", "-lc", "ls"])


@pytest.mark.parametrize("argv", [
    ["foo"], ["git", "fetch"], ["sed", "-n", "xp", "file.txt"],
    ["find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"],
    ["find", ".", "-name", "*.py", "-execdir", "python3", "{}", ";"],
    ["find", ".", "-name", "file.txt", "-ok", "rm", "{}", ";"],
    ["find", ".", "-name", "*.py", "-okdir", "python3", "{}", ";"],
    ["find", ".", "-delete", "-name", "file.txt"], ["find", ".", "-fls", "/etc/passwd"],
    ["find", ".", "-fprint", "/etc/passwd"], ["find", ".", "-fprint0", "/etc/passwd"],
    ["find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\n"],
])
def test_unknown_or_partial(argv: list[str]) -> None:
    """is_safe_command.rs unknown_or_partial"""
    assert not is_safe_to_call_with_exec(argv)


@pytest.mark.parametrize("argv", [["base64", "-o", "out.bin"], ["base64", "--output", "out.bin"],
                                  ["base64", "--output=out.bin"], ["base64", "-ob64.txt"]])
def test_base64_output_options_are_unsafe(argv: list[str]) -> None:
    """is_safe_command.rs base64_output_options_are_unsafe"""
    assert not is_safe_to_call_with_exec(argv)


def test_ripgrep_rules() -> None:
    """is_safe_command.rs ripgrep_rules"""
    assert is_safe_to_call_with_exec(["rg", "Cargo.toml", "-n"])
    for argv in (["rg", "--search-zip", "files"], ["rg", "-z", "files"],
                 ["rg", "--pre", "pwned", "files"], ["rg", "--pre=pwned", "files"],
                 ["rg", "--hostname-bin", "pwned", "files"],
                 ["rg", "--hostname-bin=pwned", "files"]):
        assert not is_safe_to_call_with_exec(argv), argv


@pytest.mark.xfail(strict=True, reason="Windows only: PowerShell full paths (toolkit runs "
                                       "Codex's Unix branch)")
def test_windows_powershell_full_path_is_safe() -> None:
    """is_safe_command.rs windows_powershell_full_path_is_safe"""
    assert is_known_safe_command([r"C:\Program Files\PowerShell\7\pwsh.exe", "-Command",
                                  "Get-Location"])


def test_windows_git_full_path_requires_approval() -> None:
    """is_safe_command.rs windows_git_full_path_requires_approval (holds on every platform)"""
    assert not is_known_safe_command([r"C:\Program Files\Git\cmd\git.exe", "status"])


@pytest.mark.parametrize("script", ["ls", "ls -1", 'grep -R "Cargo.toml" -n',
                                    "sed -n 1,5p file.txt", "sed -n '1,5p' file.txt",
                                    "find . -name file.txt"])
def test_bash_lc_safe_examples(script: str) -> None:
    """is_safe_command.rs bash_lc_safe_examples"""
    assert is_known_safe_command(["bash", "-lc", script])


@pytest.mark.parametrize("script", ['grep -R "Cargo.toml" -n || true', "ls && pwd",
                                    "echo 'hi' ; ls", "ls | wc -l"])
def test_bash_lc_safe_examples_with_operators(script: str) -> None:
    """is_safe_command.rs bash_lc_safe_examples_with_operators"""
    assert is_known_safe_command(["bash", "-lc", script])


@pytest.mark.parametrize("argv", [
    ["bash", "-lc", "git status"], ["bash", "-lc", "git", "status"],
    ["bash", "-lc", "'git status'"], ["bash", "-lc", "find . -name file.txt -delete"],
    ["bash", "-lc", "ls && rm -rf /"], ["bash", "-lc", "(ls)"],
    ["bash", "-lc", "ls || (pwd && echo hi)"], ["bash", "-lc", "ls > out.txt"],
])
def test_bash_lc_unsafe_examples(argv: list[str]) -> None:
    """is_safe_command.rs bash_lc_unsafe_examples"""
    assert not is_known_safe_command(argv)


@pytest.mark.xfail(strict=True, reason="Windows only: the PowerShell safelist "
                                       "(is_safe_powershell_words) is not ported")
def test_direct_powershell_words_use_windows_safelist() -> None:
    """is_safe_command.rs direct_powershell_words_use_windows_safelist (the Windows half)"""
    assert is_known_safe_command(["Get-Content", "Cargo.toml"])


# -- is_dangerous_command.rs ------------------------------------------------------------------

@pytest.mark.parametrize(("test", "argv"), [
    ("rm_rf_is_dangerous", ["rm", "-rf", "/"]),
    ("rm_f_is_dangerous", ["rm", "-f", "/"]),
    ("forced_rm_variants_are_dangerous", ["/bin/rm", "-fr", "/tmp/example"]),
    ("forced_rm_variants_are_dangerous", ["rm", "-r", "-f", "/tmp/example"]),
    ("forced_rm_variants_are_dangerous", ["rm", "--force", "/tmp/example"]),
    ("forced_rm_variants_are_dangerous", ["rm", "/tmp/example", "-f"]),
    ("forced_rm_variants_are_dangerous", ["sudo", "rm", "-rf", "/tmp/example"]),
])
def test_forced_rm_is_dangerous(test: str, argv: list[str]) -> None:
    """is_dangerous_command.rs"""
    assert command_might_be_dangerous(argv), test


@pytest.mark.parametrize("script", [
    "printf x | rm -rf /tmp/example",
    "if test -d /tmp/example; then rm --force /tmp/example; fi",
    'rm -rf "$TARGET" >/dev/null',
    'for target in /tmp/a /tmp/b; do rm -r -f "$target"; done',
    'echo "$(rm -rf /tmp/example)"',
    "for a in '-C5a25KeRr' '--' '--json' '--bogus'; do HOME=$(mktemp -d) "
    "MDE_URL=http://127.0.0.1:1 MDE_TOKEN=x node cli/mde.cjs ls \"$a\" >/tmp/mde-review-out "
    "2>/tmp/mde-review-err; code=$?; printf '%s\\t%s\\t%s\\n' \"$a\" \"$code\" "
    "\"$(tr '\\n' ' ' </tmp/mde-review-err)\"; rm -rf \"$HOME\"; done",
])
def test_forced_rm_in_complex_shell_syntax_is_dangerous(script: str) -> None:
    """is_dangerous_command.rs forced_rm_in_complex_shell_syntax_is_dangerous"""
    assert command_might_be_dangerous(["bash", "-lc", script])


@pytest.mark.parametrize("argv", [
    ["rm", "-r", "/tmp/example"], ["rm", "--", "-f"],
    ["bash", "-lc", "echo 'rm -rf /tmp/example'"],
    ["bash", "-lc", "cmd=rm; $cmd -rf /tmp/example"],
    ["bash", "-lc", "if then rm -rf /tmp/example"],
])
def test_non_forced_or_non_literal_rm_is_not_dangerous(argv: list[str]) -> None:
    """is_dangerous_command.rs non_forced_or_non_literal_rm_is_not_dangerous"""
    assert not command_might_be_dangerous(argv)


@pytest.mark.xfail(strict=True, reason="Windows only: the PowerShell dangerous-command list "
                                       "is not ported")
def test_direct_powershell_words_return_other_match_on_windows() -> None:
    """is_dangerous_command.rs direct_powershell_words_return_other_match_on_windows"""
    assert command_might_be_dangerous(["Remove-Item", "test", "-Force"])
