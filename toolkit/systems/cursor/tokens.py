"""Cursor's permission tokens and allowlist entries, parsed and matched as its docs describe.

CLI (cursor.com/docs/cli/reference/permissions), in ``permissions.allow`` / ``deny``:

- ``Shell(commandBase)``: "The commandBase is the first token in the command line. Supports
  glob patterns and an optional command:args syntax" (``Shell(curl:*)``: "Use command:args
  (e.g., curl:*) to match both command and arguments with globs");
- ``Read(pathOrGlob)`` / ``Write(pathOrGlob)``: "Glob patterns use **, *, and ? wildcards.
  Relative paths are scoped to the current workspace. Absolute paths can target files outside
  the project";
- ``WebFetch(domainOrPattern)``: "``*`` matches all domains; ``*.example.com`` matches
  subdomains (e.g., docs.example.com, api.example.com); ``example.com`` matches that exact
  domain only";
- ``Mcp(server:tool)``: "Use server (from mcp.json) and tool name, with * for wildcards".

IDE (cursor.com/docs/reference/permissions), ``permissions.json``:

- ``terminalAllowlist``: "a command or command prefix string" -- ``git`` matches ``git status``
  but not ``gitk``; ``git status`` matches ``git status`` and anything starting with
  ``git status ``; in ``npm:install*`` "The : separates the base command from an args glob";
  "Matching is case-sensitive and uses prefix semantics";
- ``mcpAllowlist``: ``server:tool``, "Both parts are matched case-insensitively. The * wildcard
  matches any value for that part ... Glob-style * patterns also work inside names";
  "Entries that do not contain a : are ignored".

Where the docs are silent, toolkit reads a token as follows (and says so): a ``Shell`` pattern
of several words (``Shell(git push)``, seen in real ``cli.json`` files) matches a command whose
first words match them word by word (one word: the first token, as documented); ``~`` in a path
is the home folder; ``*`` inside a ``Shell`` pattern crosses spaces, ``*`` in a path does not
cross ``/`` (``**`` does).

>>> t = parse_token("Shell(curl:*)")
>>> t.kind, t.value, shell_matches(t.value, ("curl", "-s", "x"))
('Shell', 'curl:*', True)
>>> path_matches("src/**/*.ts", "/p/src/a/b.ts", "/p", None)
True
>>> domain_matches("*.example.com", "example.com")
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..base.paths import absolute

__all__ = ["KINDS", "Token", "domain_matches", "ide_mcp_matches", "ide_terminal_matches",
           "mcp_matches", "parse_token", "path_matches", "shell_matches"]

#: the token types of the CLI docs, in their order
KINDS = ("Shell", "Read", "Write", "WebFetch", "Mcp")
_TOKEN = re.compile(r"^(?P<kind>[A-Za-z]+)\((?P<value>.*)\)$", re.DOTALL)


@dataclass(frozen=True)
class Token:
    """One permission token: ``Shell(git)`` is kind ``Shell``, value ``git``."""

    kind: str
    value: str

    @property
    def text(self) -> str:
        """The token as written."""
        return f"{self.kind}({self.value})"


class TokenError(ValueError):
    """A string that is not a permission token of the CLI docs (the message says why)."""


def parse_token(text: str) -> Token:
    """``"Shell(ls)"`` -> ``Token("Shell", "ls")``; :class:`TokenError` for anything else."""
    m = _TOKEN.match(text.strip())
    if m is None:
        raise TokenError(f"{text!r} is not a permission token: write Type(pattern), e.g. "
                         "Shell(git), Read(src/**), Write(package.json), "
                         "WebFetch(docs.github.com), Mcp(server:tool)")
    kind, value = m.group("kind"), m.group("value").strip()
    if kind not in KINDS:
        raise TokenError(f"{kind!r} is not a permission type of Cursor's CLI (known: "
                         f"{', '.join(KINDS)}; the names are case-sensitive)")
    if not value:
        raise TokenError(f"{text!r} has an empty pattern")
    if kind == "Mcp" and ":" not in value:
        raise TokenError(f"{text!r}: an MCP token is Mcp(server:tool), with a ':' "
                         "(Mcp(server:*) for every tool of a server)")
    return Token(kind, value)


@lru_cache(maxsize=2048)
def _glob(pattern: str, *, paths: bool, ignore_case: bool = False) -> re.Pattern[str]:
    """A glob as a regular expression: ``**``, ``*``, ``?`` (``paths``: ``*``/``?`` stop at
    ``/`` and ``**/`` is any number of folders); every other character is literal."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if paths and pattern.startswith("/", i):
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        if c == "*":
            out.append("[^/]*" if paths else ".*")
        elif c == "?":
            out.append("[^/]" if paths else ".")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _words_match(pattern: str, words: tuple[str, ...]) -> bool:
    """The pattern's words glob-match the first words of ``words``, one by one."""
    wanted = pattern.split()
    if not wanted or len(words) < len(wanted):
        return False
    return all(_glob(p, paths=False).fullmatch(w) is not None
               for p, w in zip(wanted, words, strict=False))


def shell_matches(value: str, argv: tuple[str, ...]) -> bool:
    """Whether ``Shell(value)`` matches the simple command ``argv``.

    ``base`` alone matches the first token (a glob); ``base:args`` also matches the rest of
    the command (its words joined by spaces) against the ``args`` glob.

    >>> shell_matches("git", ("git", "status")), shell_matches("git", ("gitk",))
    (True, False)
    >>> shell_matches("curl:*", ("curl",)), shell_matches("npm:install*", ("npm", "test"))
    (True, False)
    """
    if not argv:
        return False
    if ":" in value:
        base, args = value.split(":", 1)
        if not _words_match(base, argv):
            return False
        rest = argv[len(base.split()):]
        return _glob(args, paths=False).fullmatch(" ".join(rest)) is not None
    return _words_match(value, argv)


def path_matches(pattern: str, path: str, root: str, home: str | None) -> bool:
    """Whether ``Read(pattern)`` / ``Write(pattern)`` matches the absolute POSIX ``path``:
    a relative pattern is anchored at the workspace ``root``, ``~`` at ``home``."""
    anchored = absolute(pattern, root, home)
    if pattern.endswith("/") and not anchored.endswith("/"):
        anchored += "/"  # normpath dropped it: keep "a folder" meaning below
    if anchored.endswith("/"):
        anchored += "**"
    return _glob(anchored, paths=True).fullmatch(path) is not None


def domain_matches(pattern: str, host: str) -> bool:
    """Whether ``WebFetch(pattern)`` matches the host ``host`` (domains compare without case).

    >>> domain_matches("*", "a.b"), domain_matches("docs.github.com", "DOCS.github.com")
    (True, True)
    """
    pattern, host = pattern.strip().lower(), host.strip().lower().rstrip(".")
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return _glob(pattern, paths=False).fullmatch(host) is not None


def mcp_matches(value: str, server: str, tool: str, *, ignore_case: bool = False) -> bool:
    """Whether ``Mcp(value)`` (``server:tool`` globs) matches ``server``'s tool ``tool``."""
    if ":" not in value:
        return False
    want_server, want_tool = value.split(":", 1)
    return (_glob(want_server.strip(), paths=False, ignore_case=ignore_case).fullmatch(server)
            is not None and _glob(want_tool.strip(), paths=False,
                                  ignore_case=ignore_case).fullmatch(tool) is not None)


def ide_mcp_matches(entry: str, server: str, tool: str) -> bool:
    """An ``mcpAllowlist`` entry: ``server:tool``, both parts without case."""
    return mcp_matches(entry, server, tool, ignore_case=True)


def ide_terminal_matches(entry: str, argv: tuple[str, ...]) -> bool:
    """A ``terminalAllowlist`` entry: a command prefix by whole words (case-sensitive), or
    ``base:argsGlob``.

    >>> ide_terminal_matches("git status", ("git", "status", "-s"))
    True
    >>> ide_terminal_matches("git", ("gitk",))
    False
    >>> ide_terminal_matches("npm:install*", ("npm", "install", "express"))
    True
    """
    if not argv:
        return False
    if ":" in entry:
        base, args = entry.split(":", 1)
        return argv[0] == base.strip() and _glob(args, paths=False).fullmatch(
            " ".join(argv[1:])) is not None
    wanted = entry.split()
    return bool(wanted) and tuple(argv[:len(wanted)]) == tuple(wanted)
