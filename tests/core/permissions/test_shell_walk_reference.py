"""The tree walk of ``toolkit.systems.base.shell`` gives what the plain walk it replaced gave.

``shell.parse`` is on the hot path of every new command a permission engine meets (issue
21's figure 9: a new 3-part command against 250 rules in under 200 µs), so its walk reads
the tree frugally (a node's text sliced from the string, not ``node.text`` decoded per node;
each node's type read once; plain tuples for words; no look for substitutions in a string
without ``$(``, a backtick, ``<(`` or ``>(``). The walk it replaced is kept here verbatim,
as the reference (``reference_parse``): it read ``node.text`` of every node and built a
dataclass per word. Both parse the generated corpus of ``tests/support/command_corpus.py``
(5,000 commands), the same commands behind a non-ASCII command (so byte offsets are not
character offsets), and hand-written strings reaching every branch of the walk; every
``ParsedCommand`` must be equal, field by field.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.caches import clear_caches
from tests.support.command_corpus import commands
from toolkit.systems.base import shell
from toolkit.systems.base.shell import (
    _MAX_NESTING,
    _OUTPUT_OPS,
    _SHELLS,
    MAX_COMMAND_LENGTH,
    ParsedCommand,
    Redirect,
    SimpleCommand,
)

if TYPE_CHECKING:
    from tree_sitter import Node


def reference_parse(command: str) -> ParsedCommand:
    """``shell.parse`` as it was, uncached: the plain walk below."""
    if len(command) > MAX_COMMAND_LENGTH:
        return ParsedCommand(command, (), f"longer than {MAX_COMMAND_LENGTH:,} characters")
    if "\x00" in command:
        return ParsedCommand(command, (), "it contains a NUL byte")
    walker = _Walker()
    problem = walker.walk_source(command.encode(), "", 0)
    if problem is not None:
        return ParsedCommand(command, (), problem)
    return ParsedCommand(command, tuple(walker.found))


# -- the reference walk: toolkit/systems/base/shell.py before issue 21's speed work ---------

class _Walker:
    """The walk as it was before (walks a tree-sitter tree, collecting simple commands)."""

    def __init__(self) -> None:
        self.found: list[SimpleCommand] = []
        self.substitutes = True  # whether any $(...), `...`, <(...) or >(...) can be in it

    def walk_source(self, source: bytes, context: str, depth: int) -> str | None:
        """Parse ``source`` and collect its commands; returns a problem or None."""
        if depth > _MAX_NESTING:
            return "commands nested too deeply"
        tree = shell._parser().parse(source)
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


# -- the comparison -------------------------------------------------------------------------

#: Hand-written strings for every branch of the walk: each statement kind, each word kind,
#: redirections kept and dropped, here-documents, code arguments, nesting, syntax errors,
#: the limits, and non-ASCII text before, inside and after nodes.
EDGES = [
    "", "   ", "# only a comment", "ls # trailing comment", "ls\x00",
    "a" * (MAX_COMMAND_LENGTH + 1),
    "echo 'unterminated", "if; then", "echo $(", "ls )",
    "git status && npm test | tee out.txt", "a; b & c || d |& e", "! a | b", "nohup a &",
    "(cd a; ls) > out 2>&1", "{ a; b; } > out", "a && b > f", "a | b >> f", "(a) > f; $(b) > g",
    "f() { rm x; } ; f > out", "if a; then b; elif c; then d; else e; fi > log",
    "while read l; do echo \"$l\"; done < in.txt > out.txt", "until a; do b; done",
    "for i in $(ls) `pwd` x; do rm $i; done", "for ((i=0; i<3; i++)); do a; done",
    "select x in a b; do c; done", "case $(a) in x) b;; y|z) c;; esac", "coproc a",
    "X=1", "X=1 Y=$(id)", "A=1 B=\"x y\" c", "PATH=/x:$PATH ls", "a=(1 2 3)", "x+=1",
    "export A=$(id) B=2", "declare -a x=(1 2)", "local a=b", "readonly r", "unset X Y",
    "[[ -f x ]] && rm x", "[ -d \"$d\" ] || mkdir d", "test -f x",
    "echo \"a\\$b\\`c\\\\d\\\"e\"", "echo \"line\\\ncont\"", "echo $\"tr $x\"", "echo $'\\x72m'",
    "echo $'\\u00e9\\t'", "echo 'raw $x'", "echo a'b'\"c\"$d", "echo ${x:-$(whoami)}",
    "echo $((1+2)) `a \\`b\\``", "echo $[1+2]", "echo *.py ?[a] +(x|y)", "echo {a,b} ~/x ~root",
    "cmd \\\nline", "echo \\é \\x \\ \\\\", "echo a\\ b", "echo 12 3.5", "echo \"$@\" \"${a[@]}\"",
    "ls >&- ; ls >& f ; ls 2>&1 ; ls &> all ; ls >| x ; ls 2> err ; ls > $F ; ls > *.log",
    "ls < in ; ls <<< \"here $x\" ; ls 3<> rw", "diff <(a) >(b)", "cat <(ls $(pwd))",
    "cat <<EOF > out\nx $(rm y)\nEOF", "cat <<-EOF | bash\n\trm -rf z\n\tEOF",
    "bash <<'E'\nrm x\nE", "sh <<EOF\necho é\nEOF", "cat <<A <<B\na\nA\nb\nB",
    "bash -c 'echo é; ls \"ü\" > ä'", "sh -c \"$X\"", "bash -c", "bash -lc 'a && b'",
    "zsh -x -c 'rm a'", "eval 'rm -rf /'", "eval rm $x", "eval", "fish -c 'a'",
    "bash -c \"bash -c 'bash -c \\\"rm x\\\"'\"",
    "bash -c 'bash -c \"bash -c \\\\\"bash -c x\\\\\"\"'",
    "echo é日本 $(ls 'ü') > ö.txt", "é=1 ls", "ls é; rm ü && $(cat 日本)", "echo 😀 `id` 😀",
    "x=$'\\x72m' ; $x -rf /", "echo \"$(echo \"$(rm z)\")\"", "time a", "a\nb\n\nc",
]


def _programs(depth: int) -> str:
    """A string whose innermost command is parsed at walk depth ``depth``: each ``eval``
    runs the words after it as code."""
    return "eval " * depth + "echo x"


@pytest.fixture(autouse=True)
def _uncached() -> None:
    """Each test runs the code under the caches (see tests/support/caches.py)."""
    clear_caches()


def _differences(corpus: list[str]) -> list[tuple[str, ParsedCommand, ParsedCommand]]:
    out = []
    for command in corpus:
        new, old = shell.parse(command), reference_parse(command)
        if new != old:
            out.append((command, new, old))
    return out


def test_the_corpus_parses_as_the_reference_walk() -> None:
    corpus = commands(5000)
    differ = _differences(corpus)
    assert not differ, f"{len(differ)} of {len(corpus)} differ; first: {differ[0]}"


def test_the_corpus_behind_a_non_ascii_command_parses_as_the_reference_walk() -> None:
    """Every node after ``é`` starts a byte later than its character: the text of each is
    sliced from the UTF-8 bytes then."""
    corpus = [f"echo é; {command}" for command in commands(2000, seed=7)]
    corpus += [f"{command} 日本" for command in commands(1000, seed=8)]
    differ = _differences(corpus)
    assert not differ, f"{len(differ)} of {len(corpus)} differ; first: {differ[0]}"


def test_a_command_text_is_as_the_reference_spells_it() -> None:
    """``SimpleCommand.text`` (rules match it) skips the assignments' unpacking when there are
    none; the text is what the plain expression gives, with and without assignments."""
    found = [c for command in [*commands(5000), *EDGES] for c in shell.parse(command).commands]
    assert any(c.assignments for c in found) and any(not c.assignments for c in found)
    for c in found:
        assert c.text == " ".join([*(f"{k}={v}" for k, v in c.assignments), *c.argv])


@pytest.mark.parametrize("command", EDGES)
def test_a_hand_written_string_parses_as_the_reference_walk(command: str) -> None:
    assert shell.parse(command) == reference_parse(command)


@pytest.mark.parametrize("depth", [_MAX_NESTING, _MAX_NESTING + 1])
def test_nesting_at_the_limit_parses_as_the_reference_walk(depth: int) -> None:
    command = _programs(depth)
    assert shell.parse(command) == reference_parse(command)


def test_the_comparison_reaches_what_the_walk_tells_apart() -> None:
    """The corpus and the hand-written strings hold every kind of result the walk gives: a
    check that the comparisons above are not comparing only plain words."""
    results = [reference_parse(c) for c in [*commands(5000), *EDGES, _programs(_MAX_NESTING + 1)]]
    found = [c for r in results for c in r.commands]
    problems = {r.problem.split(" near ")[0] for r in results if r.problem is not None}
    assert problems >= {"syntax error", "commands nested too deeply", "it contains a NUL byte",
                        f"longer than {MAX_COMMAND_LENGTH:,} characters"}
    contexts = {c.context for c in found}
    assert contexts >= {"", "$(...)", "`...`", "<(...)", "subshell", "bash -c", "sh -c", "eval",
                        "bash <<here-document"}
    assert any(c.redirects for c in found) and any(r.dynamic for c in found for r in c.redirects)
    assert any(c.assignments and not c.argv for c in found)  # X=1 alone
    assert any(not c.argv and c.redirects for c in found)  # (a) > f
    assert any(any(c.dynamic) for c in found) and any(any(c.globbed) for c in found)
    assert any(not c.source.isascii() for c in found)
