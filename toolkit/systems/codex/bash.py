"""How Codex splits shell scripts: a port of ``codex-rs/shell-command/src/bash.rs``.

Codex parses ``bash|zsh|sh -c|-lc SCRIPT`` with tree-sitter-bash and splits the script
into its commands only when it is a chain of *word-only* commands joined by ``&&``,
``||``, ``;`` or ``|``: anything else (a redirection, ``$(...)``, ``$VAR``, a
``FOO=bar`` prefix, a subshell, ``&``) leaves the whole invocation one command. A
single command fed a here-document is the one exception (``python3 <<'PY' ... PY`` is
judged as ``python3``).

>>> parse_plain_shell_script("ls && pwd; echo 'hi there' | wc -l")
[['ls'], ['pwd'], ['echo', 'hi there'], ['wc', '-l']]
>>> parse_plain_shell_script("ls > out.txt") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

__all__ = [
    "extract_bash_command",
    "parse_plain_shell_script",
    "parse_shell_lc_literal_commands",
    "parse_shell_lc_plain_commands",
    "parse_shell_lc_single_command_prefix",
]

_ALLOWED_KINDS = frozenset({"program", "list", "pipeline", "command", "command_name", "word",
                            "string", "string_content", "raw_string", "number",
                            "concatenation"})
_ALLOWED_PUNCT = frozenset({"&&", "||", ";", "|", '"', "'"})
_HEREDOC_ATTACHMENTS = frozenset({"heredoc_body", "simple_heredoc_body", "heredoc_redirect",
                                  "herestring_redirect", "redirected_statement"})


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _parse(script: str) -> Tree:
    return _parser().parse(script.encode())


def _text(node: Node) -> str:
    return (node.text or b"").decode()


def parse_plain_shell_script(script: str) -> list[list[str]] | None:
    """The commands of a script of word-only commands joined by ``&& || ; |``, else None
    (``try_parse_word_only_commands_sequence``)."""
    tree = _parse(script)
    root = tree.root_node
    if root.has_error:
        return None
    stack = [root]
    commands: list[Node] = []
    while stack:
        node = stack.pop()
        kind = node.type
        if node.is_named:
            if kind not in _ALLOWED_KINDS:
                return None
            if kind == "command":
                commands.append(node)
        else:
            if any(c in "&;|" for c in kind) and kind not in _ALLOWED_PUNCT:
                return None
            if not (kind in _ALLOWED_PUNCT or not kind.strip()):
                return None
        stack.extend(node.children)
    commands.sort(key=lambda n: n.start_byte)
    out: list[list[str]] = []
    for node in commands:
        words = _plain_command(node)
        if words is None:
            return None
        out.append(words)
    return out


def _quoted_or_word(node: Node) -> str | None:
    """A word, number, "string" (no expansion) or 'raw string' after quote removal."""
    if node.type in ("word", "number"):
        return _text(node)
    if node.type == "string":
        return _double_quoted(node)
    if node.type == "raw_string":
        return _text(node)[1:-1]
    return None


def _word_of(child: Node) -> str | None:
    """One argument of a plain command (``parse_plain_command_from_node``), else None."""
    if child.type == "command_name":
        word = child.named_children[0] if child.named_children else None
        return _text(word) if word is not None and word.type == "word" else None
    if child.type == "concatenation":
        pieces = [_quoted_or_word(part) for part in child.named_children]
        if any(p is None for p in pieces):
            return None
        joined = "".join(p for p in pieces if p is not None)
        return joined or None
    return _quoted_or_word(child)


def _plain_command(cmd: Node) -> list[str] | None:
    words: list[str] = []
    for child in cmd.named_children:
        word = _word_of(child)
        if word is None:
            return None
        words.append(word)
    return words


def _double_quoted(node: Node) -> str | None:
    if any(part.type != "string_content" for part in node.named_children):
        return None
    raw = _text(node)
    if len(raw) < 2 or not (raw.startswith('"') and raw.endswith('"')):
        return None
    return raw[1:-1]


_SHELLS = frozenset({"bash", "zsh", "sh"})


def extract_bash_command(command: Sequence[str]) -> tuple[str, str] | None:
    """(shell, script) of ``[bash|zsh|sh, -c|-lc, script]`` (the shell by its basename)."""
    if len(command) != 3:
        return None
    shell, flag, script = command
    name = (PurePosixPath(shell).name if "/" in shell else shell).removesuffix(".exe")
    if flag not in ("-lc", "-c") or name not in _SHELLS:
        return None
    return shell, script


def parse_shell_lc_plain_commands(command: Sequence[str]) -> list[list[str]] | None:
    """The plain commands of a ``bash -lc "..."`` invocation, else None."""
    found = extract_bash_command(command)
    return None if found is None else parse_plain_shell_script(found[1])


def _descendant(node: Node, kind: str) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            return True
        stack.extend(current.named_children)
    return False


def _single_command(root: Node) -> Node | None:
    stack = [root]
    single = None
    while stack:
        node = stack.pop()
        if node.type == "command":
            if single is not None:
                return None
            single = node
        stack.extend(node.named_children)
    return single


def _literal(node: Node) -> bool:
    return node.type in ("word", "number") and not node.named_children


def parse_shell_lc_single_command_prefix(command: Sequence[str]) -> list[str] | None:
    """The words of the one command of a here-document script (``python3 <<'PY' ...``)."""
    found = extract_bash_command(command)
    if found is None:
        return None
    root = _parse(found[1]).root_node
    if root.has_error or not _descendant(root, "heredoc_redirect") \
            or _descendant(root, "file_redirect"):
        return None
    node = _single_command(root)
    if node is None:
        return None
    words: list[str] = []
    for child in node.named_children:
        kind = child.type
        if kind == "command_name":
            word = child.named_children[0] if child.named_children else None
            if word is None or not _literal(word):
                return None
            words.append(_text(word))
        elif kind in ("word", "number"):
            if not _literal(child):
                return None
            words.append(_text(child))
        elif kind == "comment" or kind in _HEREDOC_ATTACHMENTS:
            continue
        else:
            return None
    return words or None


_NOT_ARGUMENTS = frozenset({"command_name", "variable_assignment", "file_redirect",
                            "heredoc_redirect", "herestring_redirect", "comment"})


def _literal_command(node: Node) -> list[str] | None:
    """A command whose name is a literal word: its name and arguments (literal ones after
    quote removal, others as written); None for a name that is not literal."""
    name = next((c for c in node.named_children if c.type == "command_name"), None)
    word = name.named_children[0] if name is not None and name.named_children else None
    if word is None or not _literal(word):
        return None
    words = [_text(word)]
    for child in node.named_children:
        if child.type in _NOT_ARGUMENTS:
            continue
        plain = _quoted_or_word(child)
        words.append(plain if plain is not None and (child.type != "word" or _literal(child))
                     else _text(child))
    return words


def parse_shell_lc_literal_commands(command: Sequence[str]) -> list[list[str]] | None:
    """Every command of a ``bash -lc`` script whose name is a literal word, wherever it sits
    (pipelines, control flow, substitutions), with its arguments; None when the script does
    not parse. (The dangerous-command check reads these.)"""
    found = extract_bash_command(command)
    if found is None:
        return None
    root = _parse(found[1]).root_node
    if root.has_error:
        return None
    out: list[tuple[int, list[str]]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        words = _literal_command(node) if node.type == "command" else None
        if words is not None:
            out.append((node.start_byte, words))
    out.sort(key=lambda item: item[0])
    return [words for _, words in out]
