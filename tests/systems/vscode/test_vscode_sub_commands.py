"""VS Code's sub-command tests, ported: microsoft/vscode
``src/vs/workbench/contrib/terminalContrib/chatAgentTools/test/browser/subCommands.test.ts``
at 1b019b7 (suites ``splitCommandLineIntoSubCommands`` and ``extractInlineSubCommands``), against
the port of ``subCommands.ts`` (at 3bd5689). Each case's id is the TypeScript test name; the
one ``test.skip`` there ('should handle subshells and braces') is left out, as VS Code skips it.

The engine itself cuts command lines as today's analyzer does (tree-sitter ``command`` nodes):
the last tests show where that differs from this splitter.
"""

from __future__ import annotations

import pytest

from toolkit.systems.vscode.subcommands import (
    extract_inline_sub_commands,
    extract_sub_commands,
    split_command_line_into_sub_commands,
)

W, L = "windows", "linux"

SPLIT: list[tuple[str, str, str, str, list[str]]] = [
    ("should split command line into subcommands", 'echo "Hello World" && ls -la || pwd', "zsh",
     L, ['echo "Hello World"', "ls -la", "pwd"]),
    ("should split on logical operators", "echo test && ls -la || pwd", "bash", L,
     ["echo test", "ls -la", "pwd"]),
    ("should split on pipes", "ls -la | grep test | wc -l", "sh", L,
     ["ls -la", "grep test", "wc -l"]),
    ("should split on semicolons", "cd /tmp; ls -la; pwd", "sh", L, ["cd /tmp", "ls -la", "pwd"]),
    ("should split on background operator", "sleep 5 & echo done", "sh", L,
     ["sleep 5", "echo done"]),
    ("should split on redirection operators", "echo test > output.txt && cat output.txt", "sh",
     L, ["echo test", "output.txt", "cat output.txt"]),
    ("should split on stderr redirection", "command 2> error.log && echo success", "sh", L,
     ["command", "error.log", "echo success"]),
    ("bash: should split on append redirection",
     "echo line1 >> file.txt && echo line2 >> file.txt", "sh", L,
     ["echo line1", "file.txt", "echo line2", "file.txt"]),
    ("should split on zsh-specific operators", 'echo test <<< "input" && ls', "zsh", L,
     ["echo test", '"input"', "ls"]),
    ("should split on process substitution", "diff <(ls dir1) <(ls dir2)", "zsh", L,
     ["diff", "ls dir1)", "ls dir2)"]),
    ("should split on bidirectional redirection", "command <> file.txt && echo done", "zsh", L,
     ["command", "file.txt", "echo done"]),
    ("should handle complex zsh command chains", "ls | grep test && echo found || echo not found",
     "zsh", L, ["ls", "grep test", "echo found", "echo not found"]),
    ("should not split on PowerShell logical operators",
     'Get-ChildItem -and Get-Location -or Write-Host "test"', "powershell", L,
     ['Get-ChildItem -and Get-Location -or Write-Host "test"']),
    ("should split on PowerShell pipes",
     'Get-Process | Where-Object Name -eq "notepad" | Stop-Process', "powershell.exe", W,
     ["Get-Process", 'Where-Object Name -eq "notepad"', "Stop-Process"]),
    ("should split on PowerShell redirection",
     "Get-Process > processes.txt && Get-Content processes.txt", "pwsh.exe", W,
     ["Get-Process", "processes.txt", "Get-Content processes.txt"]),
    ("should return single command when no operators present", 'echo "hello world"', "bash", L,
     ['echo "hello world"']),
    ("should handle empty command", "", "zsh", L, []),
    ("should trim whitespace from subcommands", "echo test   &&   ls -la   ||   pwd", "sh", L,
     ["echo test", "ls -la", "pwd"]),
    ("should handle multiple consecutive operators", "echo test && && ls", "bash", L,
     ["echo test", "ls"]),
    ("should handle unknown shell as sh", "echo test && ls -la", "unknown-shell", L,
     ["echo test", "ls -la"]),
    ("should detect zsh specifically", "echo test <<< input", "zsh", L, ["echo test", "input"]),
    ("should split on basic output redirection", "echo hello > output.txt", "bash", L,
     ["echo hello", "output.txt"]),
    ("output redirection: should split on append redirection", "echo hello >> output.txt",
     "bash", L, ["echo hello", "output.txt"]),
    ("should split on multiple output redirections", "ls > files.txt && cat files.txt > backup.txt",
     "bash", L, ["ls", "files.txt", "cat files.txt", "backup.txt"]),
    ("should split on numbered file descriptor redirection", "command 1> stdout.txt 2> stderr.txt",
     "bash", L, ["command", "stdout.txt", "stderr.txt"]),
    ("should split on stderr-only redirection", "make 2> errors.log", "bash", L,
     ["make", "errors.log"]),
    ("should split on all output redirection (&>)", "command &> all_output.txt", "bash", L,
     ["command", "all_output.txt"]),
    ("should split on input redirection", "sort < input.txt", "bash", L, ["sort", "input.txt"]),
    ("should split on numbered input redirection", "program 0< input.txt", "bash", L,
     ["program", "input.txt"]),
    ("should split on input/output combined", "sort < input.txt > output.txt", "bash", L,
     ["sort", "input.txt", "output.txt"]),
    ("should split on stdout to stderr redirection", "echo error 1>&2", "bash", L, ["echo error"]),
    ("should split on stderr to stdout redirection", "command 2>&1", "bash", L, ["command"]),
    ("should split on stream redirection with numbered descriptors", "exec 3>&1 && exec 4>&2",
     "bash", L, ["exec", "exec"]),
    ("should split on multiple stream redirections", "command 2>&1 1>&3 3>&2", "bash", L,
     ["command"]),
    ("should split on here document", "cat << EOF && echo done", "bash", L,
     ["cat", "EOF", "echo done"]),
    ("should split on here string (bash/zsh)", 'grep pattern <<< "search this text"', "bash", L,
     ["grep pattern", '"search this text"']),
    ("should split on numbered here string", 'command 3<<< "input data"', "zsh", L,
     ["command", '"input data"']),
    ("should split on read/write redirection", "dialog <> /dev/tty1", "bash", L,
     ["dialog", "/dev/tty1"]),
    ("should split on numbered bidirectional redirection", "program 3<> data.file", "bash", L,
     ["program", "data.file"]),
    ("should split on PowerShell output redirection", "Get-Process > processes.txt",
     "powershell.exe", W, ["Get-Process", "processes.txt"]),
    ("should split on PowerShell append redirection", 'Write-Output "log entry" >> log.txt',
     "pwsh.exe", W, ['Write-Output "log entry"', "log.txt"]),
    ("should split on PowerShell error stream redirection",
     "Get-Content nonexistent.txt 2> errors.log", "powershell.exe", W,
     ["Get-Content nonexistent.txt", "errors.log"]),
    ("should split on PowerShell warning stream redirection", "Get-Process 3> warnings.log",
     "pwsh.exe", W, ["Get-Process", "warnings.log"]),
    ("should split on PowerShell verbose stream redirection", "Get-ChildItem 4> verbose.log",
     "powershell.exe", W, ["Get-ChildItem", "verbose.log"]),
    ("should split on PowerShell debug stream redirection", "Invoke-Command 5> debug.log",
     "pwsh.exe", W, ["Invoke-Command", "debug.log"]),
    ("should split on PowerShell information stream redirection",
     'Write-Information "info" 6> info.log', "powershell.exe", W,
     ['Write-Information "info"', "info.log"]),
    ("should split on PowerShell all streams redirection", "Get-Process *> all_streams.log",
     "pwsh.exe", W, ["Get-Process", "all_streams.log"]),
    ("should split on PowerShell stream to stream redirection", 'Write-Error "error" 2>&1',
     "powershell.exe", W, ['Write-Error "error"']),
    ("should split on command with multiple redirections",
     "command < input.txt > output.txt 2> errors.log", "bash", L,
     ["command", "input.txt", "output.txt", "errors.log"]),
    ("should split on redirection with pipes and logical operators",
     'cat file.txt | grep pattern > results.txt && echo "Found" || echo "Not found" 2> errors.log',
     "bash", L, ["cat file.txt", "grep pattern", "results.txt", 'echo "Found"',
                 'echo "Not found"', "errors.log"]),
    ("should split on chained redirections",
     'echo "step1" > temp.txt && cat temp.txt >> final.txt && rm temp.txt', "bash", L,
     ['echo "step1"', "temp.txt", "cat temp.txt", "final.txt", "rm temp.txt"]),
    ("should handle redirection with background processes",
     'long_running_command > output.log 2>&1 & echo "started"', "bash", L,
     ["long_running_command", "output.log", 'echo "started"']),
    ("should split on zsh noclobber override", 'echo "force" >! existing_file.txt', "zsh", L,
     ['echo "force"', "existing_file.txt"]),
    ("should split on zsh clobber override", 'echo "overwrite" >| protected_file.txt', "zsh", L,
     ['echo "overwrite"', "protected_file.txt"]),
    ("should split on zsh process substitution for input",
     "diff <(sort file1.txt) <(sort file2.txt)", "zsh", L,
     ["diff", "sort file1.txt)", "sort file2.txt)"]),
    ("should split on zsh multios", 'echo "test" | tee >(gzip > file1.gz) >(bzip2 > file1.bz2)',
     "zsh", L, ['echo "test"', "tee", "(gzip", "file1.gz)", "(bzip2", "file1.bz2)"]),
    ("should handle mixed operators in order",
     "ls | grep test && echo found > result.txt || echo failed", "bash", L,
     ["ls", "grep test", "echo found", "result.txt", "echo failed"]),
]


@pytest.mark.parametrize(("name", "line", "shell", "os", "want"), SPLIT, ids=[c[0] for c in SPLIT])
def test_split_command_line_into_sub_commands(name: str, line: str, shell: str, os: str,
                                              want: list[str]) -> None:
    """One ``test(...)`` of suite 'splitCommandLineIntoSubCommands'."""
    assert split_command_line_into_sub_commands(line, shell, os) == want


def test_should_detect_powershell_variants() -> None:
    """'shell type detection' > 'should detect PowerShell variants'."""
    for shell, os in (("powershell", L), ("powershell.exe", W), ("pwsh", L), ("pwsh.exe", W),
                      ("powershell-preview", L)):
        assert split_command_line_into_sub_commands("Get-Process ; Get-Location", shell, os) == [
            "Get-Process", "Get-Location"]


def test_should_default_to_sh_for_other_shells() -> None:
    """'shell type detection' > 'should default to sh for other shells'."""
    for shell in ("bash", "dash", "fish"):
        assert split_command_line_into_sub_commands("echo test && ls", shell, L) == [
            "echo test", "ls"]


INLINE: list[tuple[str, str, str, str, list[str]]] = [
    ("should extract command substitution with $()", 'echo "Current date: $(date)"', "/bin/bash",
     L, ["date"]),
    ("should extract command substitution with backticks", 'echo "Current date: `date`"',
     "/bin/bash", L, ["date"]),
    ("should extract process substitution with <()", "diff <(cat file1.txt) <(cat file2.txt)",
     "/bin/bash", L, ["cat file1.txt", "cat file2.txt"]),
    ("should extract process substitution with >()", "tee >(wc -l) >(grep pattern) < input.txt",
     "/bin/bash", L, ["wc -l", "grep pattern"]),
    ("should extract multiple inline commands", 'echo "Today is $(date) and user is $(whoami)"',
     "/bin/bash", L, ["date", "whoami"]),
    ("should extract nested inline commands", 'echo "$(echo "Inner: $(date)")"', "/bin/bash", L,
     ['echo "Inner: $(date)"', "date"]),
    ("should handle mixed substitution types",
     'echo "Date: $(date)" && cat `which ls` | grep <(echo pattern)', "/bin/bash", L,
     ["date", "which ls", "echo pattern"]),
    ("should handle empty substitutions", "echo $() test ``", "/bin/bash", L, []),
    ("should handle commands with whitespace", 'echo "$( ls -la | grep test )"', "/bin/bash", L,
     ["ls -la | grep test"]),
    ("pwsh: should extract command substitution with $()",
     'Write-Host "Current date: $(Get-Date)"', "powershell.exe", W, ["Get-Date"]),
    ("should extract array subexpression with @()",
     'Write-Host @(Get-ChildItem | Where-Object {$_.Name -like "*.txt"})', "pwsh.exe", W,
     ['Get-ChildItem | Where-Object {$_.Name -like "*.txt"}']),
    ("should extract call operator with &()", "Write-Host &(Get-Command git)", "powershell.exe",
     W, ["Get-Command git"]),
    ("should extract multiple PowerShell substitutions",
     'Write-Host "User: $(whoami) and date: $(Get-Date)"', "pwsh.exe", W, ["whoami", "Get-Date"]),
    ("should extract nested PowerShell commands", 'Write-Host "$(Write-Host "Inner: $(Get-Date)")"',
     "powershell.exe", W, ['Write-Host "Inner: $(Get-Date)"', "Get-Date"]),
    ("should handle mixed PowerShell substitution types",
     'Write-Host "$(Get-Date)" @(Get-ChildItem) &(Get-Command ls)', "pwsh.exe", W,
     ["Get-Date", "Get-ChildItem", "Get-Command ls"]),
    ("should handle PowerShell commands with complex expressions",
     'Write-Host "$((Get-ChildItem).Count)"', "powershell.exe", W, ["(Get-ChildItem).Count"]),
    ("should handle empty PowerShell substitutions", "Write-Host $() @() &()", "pwsh", L, []),
]


@pytest.mark.parametrize(("name", "line", "shell", "os", "want"), INLINE,
                         ids=[c[0] for c in INLINE])
def test_extract_inline_sub_commands(name: str, line: str, shell: str, os: str,
                                     want: list[str]) -> None:
    """One ``test(...)`` of suite 'extractInlineSubCommands' (compared unordered)."""
    assert sorted(extract_inline_sub_commands(line, shell, os)) == sorted(want)


def test_should_detect_powershell_from_various_shell_paths() -> None:
    """'Shell detection' > 'should detect PowerShell from various shell paths'."""
    line = 'Write-Host "$(Get-Date)"'
    for shell in ("powershell.exe", "pwsh.exe", "powershell", "pwsh", "powershell-preview",
                  "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
                  "/usr/bin/pwsh"):
        os = W if ".exe" in line else L  # the test looks for .exe in the command line
        assert extract_inline_sub_commands(line, shell, os) == {"Get-Date"}


def test_should_treat_non_powershell_shells_as_posix() -> None:
    """'Shell detection' > 'should treat non-PowerShell shells as POSIX'."""
    for shell in ("/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/fish", "bash", "sh", "zsh"):
        assert extract_inline_sub_commands('echo "$(date)"', shell, L) == {"date"}


@pytest.mark.parametrize(("line", "want"), [
    ("echo test > output.txt && cat output.txt", ["echo test", "cat output.txt"]),
    ('curl "https://x/api?a&b=1" --data \'{"k":"v"}\'', ['curl "https://x/api?a&b=1" --data '
                                                         '\'{"k":"v"}\'']),
    ("echo $(cat stuff)", ["echo $(cat stuff)", "cat stuff"]),
    ("diff <(ls dir1) <(ls dir2)", ["diff <(ls dir1) <(ls dir2)", "ls dir1", "ls dir2"]),
])
def test_the_analyzer_cuts_at_command_nodes(line: str, want: list[str]) -> None:
    """The engine's cut (treeSitterCommandParser.ts ``(command) @command``): redirection targets
    are no sub-commands, operators inside quotes do not split, substitutions are commands."""
    assert extract_sub_commands(line) == want
