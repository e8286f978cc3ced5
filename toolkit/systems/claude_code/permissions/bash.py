"""What Claude Code knows about shell commands: wrappers, safe variables, read-only commands,
filesystem commands, protected and critical paths.

Each list cites the documentation sentence it follows (code.claude.com/docs/en/permissions
"Bash", /permission-modes "Protected paths", "Critical paths"). The shell parsing itself is
:mod:`toolkit.systems.base.shell`; this module reads its :class:`SimpleCommand` values.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ...base.paths import absolute, is_under
from ...base.shell import SimpleCommand

__all__ = [
    "ACCEPT_EDITS_COMMANDS",
    "READ_ONLY_COMMANDS",
    "CommandForms",
    "critical_target",
    "forms",
    "path_commands",
    "protected_path",
    "read_only",
    "touched_paths",
    "unasked_commands",
]

#: permissions#process-wrappers: "The stripped wrappers are timeout, time, nice, nohup, and
#: stdbuf, plus the shell builtins command and builtin, and zsh's noglob." Bare xargs too.
_WRAPPERS = frozenset({"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin",
                       "noglob", "xargs"})
#: "Exec wrappers such as watch, setsid, ionice, and flock can't be auto-approved by a prefix
#: rule ... The same applies to find with -exec or -delete ... write an exact-match rule".
_EXEC_WRAPPERS = frozenset({"watch", "setsid", "ionice", "flock"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
                        "-fprintf", "-fls"})
#: Commands that run their arguments as a command, seen through when a deny or ask rule is
#: matched (a stricter reading than Claude Code documents: ``sudo rm -rf x`` still meets
#: ``Bash(rm *)`` in deny). Flags taking a value are listed per wrapper.
_RESTRICT_THROUGH = {"sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
                     "doas": frozenset({"-u", "-C"}), "env": frozenset({"-u", "-C", "-S"}),
                     "xargs": frozenset({"-n", "-I", "-L", "-P", "-d", "-E", "-s", "-a"}),
                     "watch": frozenset({"-n", "-d"}), "setsid": frozenset(),
                     "ionice": frozenset({"-c", "-n", "-p"}), "nice": frozenset({"-n"})}
#: The variables stripped before an allow rule is matched ("Claude Code also strips a leading
#: assignment of certain known-safe environment variables, so Bash(npm test *) matches
#: NODE_ENV=test npm test"; the list is Claude Code's SAFE_ENV_VARS, ~v2.1.88 source).
SAFE_ENV_VARS = frozenset({
    "GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "RUST_BACKTRACE",
    "RUST_LOG", "NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE",
    "LC_TIME", "CHARSET", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TZ", "LS_COLORS",
    "LSCOLORS", "GREP_COLOR", "GREP_COLORS", "GCC_COLORS", "TIME_STYLE", "BLOCK_SIZE",
    "BLOCKSIZE"})
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_./:-]+$")
#: permissions#read-only-commands: "These include ls, cat, echo, pwd, head, tail, grep, find,
#: wc, which, diff, stat, du, cd, and read-only forms of git."
READ_ONLY_COMMANDS = frozenset({"ls", "cat", "echo", "pwd", "head", "tail", "grep", "find",
                                "wc", "which", "diff", "stat", "du", "cd", "git"})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch"})
_GIT_BRANCH_LISTING = frozenset({"-a", "-r", "-l", "-v", "-vv", "--all", "--remotes", "--list",
                                 "--show-current", "--verbose", "--no-color", "--color",
                                 "--merged", "--no-merged", "--contains"})
#: permission-modes#auto-approve-file-edits-with-acceptedits-mode: "acceptEdits mode
#: auto-approves common filesystem Bash commands: mkdir, touch, rm, rmdir, mv, cp, and sed."
ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"})
#: Commands whose path arguments are files they read or write ("Read and Edit deny rules apply
#: to ... file commands Claude Code recognizes in Bash, such as cat, head, tail, and sed").
_READERS = frozenset({"cat", "head", "tail", "less", "more", "nl", "wc", "stat", "diff", "file",
                      "strings", "sort", "uniq", "od", "xxd", "base64", "md5sum", "sha256sum"})
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg"})
_WRITERS = frozenset({"touch", "mkdir", "rm", "rmdir", "tee", "truncate", "chmod", "chown"})
_COPIERS = frozenset({"cp", "mv", "ln", "install"})
#: permission-modes#protected-paths, "Protected directories" and "Protected files".
PROTECTED_DIRS = frozenset({".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer",
                            ".yarn", ".mvn", ".claude"})
PROTECTED_FILES = frozenset({
    ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".bash_login", ".bash_aliases",
    ".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".profile",
    ".envrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs",
    ".pnpmfile.cjs", "bunfig.toml", ".bunfig.toml", ".bazelrc", ".bazelversion",
    ".bazeliskrc", ".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml",
    ".lefthook.yaml", "gradle-wrapper.properties", "maven-wrapper.properties",
    ".devcontainer.json", ".ripgreprc", "pyrightconfig.json", ".mcp.json", ".claude.json"})
_VAR_GLOB = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/(\*.*)?$")


@dataclass(frozen=True)
class CommandForms:
    """One simple command as each kind of rule sees it.

    ``allow``: safe variables and wrappers stripped (what allow rules match);
    ``restrict``: every spelling deny and ask rules try (as written, every
    assignment stripped, wrappers stripped, exec wrappers seen through);
    ``argv``: the command that really runs; ``exact_only``: an exec wrapper or
    ``find -exec``, which only an exact allow rule approves.
    """

    allow: str
    restrict: tuple[str, ...]
    argv: tuple[str, ...]
    exact_only: bool


@lru_cache(maxsize=4096)
def forms(command: SimpleCommand) -> CommandForms:
    """The spellings of ``command`` that Claude Code's rules are matched against (cached)."""
    argv = command.argv
    stripped = _strip_wrappers(argv)
    unsafe = [f"{k}={v}" for k, v in command.assignments
              if k not in SAFE_ENV_VARS or not _SAFE_VALUE.match(v)]
    allow = " ".join([*unsafe, *stripped])
    restrict = [command.text, " ".join(argv), " ".join(stripped)]
    through = _see_through(stripped)
    while through is not None:
        inner = _strip_wrappers(through)  # sudo timeout 5 rm x: "timeout 5 rm x", "rm x"
        restrict += [" ".join(through), " ".join(inner)]
        through = _see_through(inner)
    name = stripped[0] if stripped else ""
    exact_only = name in _EXEC_WRAPPERS or (name == "find" and any(a in _FIND_EXEC
                                                                   for a in stripped))
    return CommandForms(allow, tuple(dict.fromkeys(r for r in restrict if r)), stripped,
                        exact_only)


def _strip_wrappers(argv: tuple[str, ...]) -> tuple[str, ...]:
    """argv without the documented wrappers (repeatedly: ``nice timeout 5 npm test``)."""
    while argv and argv[0] in _WRAPPERS:
        rest = _after_wrapper(argv)
        if rest is None or not rest:
            return argv
        argv = rest
    return argv


def _after_wrapper(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """What a wrapper runs, or None when this use of it is not stripped."""
    name, rest = argv[0], argv[1:]
    if name == "timeout":
        return _after_timeout(rest)
    if name == "nice":
        if rest[:1] == ("-n",) and len(rest) > 1 and re.fullmatch(r"-?\d+", rest[1]):
            rest = rest[2:]
        elif rest and re.fullmatch(r"-\d+", rest[0]):
            rest = rest[1:]
    elif name == "stdbuf":
        while rest and re.fullmatch(r"-[ioe][LN0-9]+", rest[0]):
            rest = rest[1:]
        if len(rest) == len(argv) - 1:
            return None
    elif name == "command" and rest[:1] in (("-v",), ("-V",)):
        return None  # "the query form command -v ... looks up a command rather than running one"
    elif name == "xargs" and rest and rest[0].startswith("-"):
        return None  # "Stripping applies only when xargs has no flags"
    return rest[1:] if rest[:1] == ("--",) else rest


def _after_timeout(rest: tuple[str, ...]) -> tuple[str, ...] | None:
    i = 0
    value = re.compile(r"^[A-Za-z0-9_.+-]+$")
    while i < len(rest):
        arg = rest[i]
        if arg in ("--foreground", "--preserve-status", "--verbose", "-v") or re.fullmatch(
                r"--(?:kill-after|signal)=[A-Za-z0-9_.+-]+|-[ks][A-Za-z0-9_.+-]+", arg):
            i += 1
        elif arg in ("--kill-after", "--signal", "-k", "-s") and i + 1 < len(rest) and (
                value.match(rest[i + 1])):
            i += 2
        elif arg == "--":
            i += 1
            break
        elif arg.startswith("-"):
            return None
        else:
            break
    if i >= len(rest) or not re.fullmatch(r"\d+(?:\.\d+)?[smhd]?", rest[i]):
        return None
    return rest[i + 1:]


def _see_through(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The command an exec-style wrapper (``sudo``, ``env``, ``xargs -n1`` ...) runs, if any."""
    if not argv or argv[0] not in _RESTRICT_THROUGH:
        return None
    takes_value = _RESTRICT_THROUGH[argv[0]]
    i = 1
    while i < len(argv):
        arg = argv[i]
        if argv[0] == "env" and "=" in arg and not arg.startswith("-"):
            i += 1
        elif arg == "--":
            i += 1
            break
        elif arg in takes_value:
            i += 2
        elif arg.startswith("-") and len(arg) > 1:
            i += 1
        else:
            break
    rest = argv[i:]
    return rest if rest and rest != argv else None


def read_only(argv: tuple[str, ...], globbed: Iterable[bool], dynamic: Iterable[bool]) -> bool:
    """permissions#read-only-commands: one of the built-in read-only commands (``cd`` is
    checked against the working directories by the caller)."""
    if not argv or argv[0] not in READ_ONLY_COMMANDS:
        return False
    flags = list(globbed)
    if next(iter(dynamic), False):
        return False  # the command name itself is an expansion
    if argv[0] == "find":
        # "commands with write-capable or exec-capable flags, such as find, sort, sed, and git,
        # prompt when an unquoted glob is present"
        return not any(a in _FIND_EXEC for a in argv) and not any(flags)
    if argv[0] == "git":
        return _git_read_only(argv) and not any(flags)
    return True


def unasked_commands() -> tuple[tuple[str, ...], ...]:
    """The built-in read-only commands as word prefixes (``("ls",)``, ``("git", "status")``):
    what :func:`read_only` may run unasked when no rule matches (its arguments may still make
    it ask)."""
    return tuple(sorted((name,) for name in READ_ONLY_COMMANDS if name != "git")) + tuple(
        ("git", sub) for sub in sorted(_GIT_READ_ONLY))


#: the operand a writer takes before its path (``chmod 600 x``)
_OPERAND = {"chmod": "600 ", "chown": "me "}


def path_commands() -> tuple[tuple[str, str], ...]:
    """The recognised file commands whose path arguments Claude Code checks against Read and
    Edit rules (:func:`touched_paths`), each as (``"read"`` or ``"edit"``, a command line with
    ``{path}`` where the path goes): a ``read`` line reads the path (Read deny and ask rules
    meet it), an ``edit`` line writes it (Edit rules, and Read deny rules, meet it). Sorted;
    ``cat {path}``, ``grep KEY {path}``, ``sed -n 1p {path}``, ``cp {path} copy``,
    ``touch {path}``, ``sed -i s/a/b/ {path}``..."""
    reads = [f"{name} {{path}}" + (" other" if name == "diff" else "") for name in _READERS]
    reads += [f"{name} KEY {{path}}" for name in _PATTERN_FIRST]
    reads += ["sed -n 1p {path}", *(f"{name} {{path}} copy" for name in _COPIERS)]
    edits = [f"{name} {_OPERAND.get(name, '')}{{path}}" for name in _WRITERS]
    edits += ["sed -i s/a/b/ {path}", *(f"{name} source {{path}}" for name in _COPIERS)]
    return tuple(("read", line) for line in sorted(reads)) + tuple(
        ("edit", line) for line in sorted(edits))


def _git_read_only(argv: tuple[str, ...]) -> bool:
    sub = argv[1] if len(argv) > 1 else ""
    if sub not in _GIT_READ_ONLY or any(a.startswith("--output") for a in argv):
        return False
    if sub == "branch":
        return all(a in _GIT_BRANCH_LISTING for a in argv[2:])
    return True


def touched_paths(argv: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(files read, files written) by a recognised file command (its path arguments)."""
    if not argv:
        return (), ()
    name, args = argv[0], [a for a in argv[1:] if not a.startswith("-") or a == "-"]
    if name in _READERS:
        return tuple(args), ()
    if name in _PATTERN_FIRST:
        explicit = any(a in ("-e", "-f") or a.startswith("--regexp") for a in argv[1:])
        return tuple(args if explicit else args[1:]), ()
    if name == "sed":
        files = tuple(args if any(a in ("-e", "-f") for a in argv[1:]) else args[1:])
        in_place = any(a.startswith(("-i", "--in-place")) for a in argv[1:])
        return (files, files) if in_place else (files, ())
    if name in _WRITERS:
        return (), tuple(args)
    if name in _COPIERS:
        return tuple(args[:-1]), tuple(args[-1:]) if name != "mv" else tuple(args)
    return (), ()


def protected_path(path: str) -> str | None:
    """The protected directory or file a write to ``path`` touches (``.claude/worktrees`` is
    not protected: "except for .claude/worktrees where Claude stores its own git worktrees")."""
    parts = [p for p in path.split("/") if p]
    for i, part in enumerate(parts):
        if part == ".claude" and parts[i + 1:i + 2] == ["worktrees"]:
            continue
        if part in PROTECTED_DIRS:
            return part
        if part == ".config" and parts[i + 1:i + 2] == ["git"]:
            return ".config/git"
    if parts and parts[-1] in PROTECTED_FILES:
        return parts[-1]
    return None


def critical_target(argv: tuple[str, ...], cwd: str, home: str | None,
                    extra_dirs: Iterable[str]) -> str | None:
    """The critical path an ``rm`` / ``rmdir`` removes, if any (permission-modes#critical-paths:
    the root, a top-level directory, the home directory, the working directory and its parents,
    a glob under an additional directory, a glob or trailing slash under a shell variable)."""
    if not argv or argv[0] not in ("rm", "rmdir"):
        return None
    dirs = list(extra_dirs)
    for arg in argv[1:]:
        if arg.startswith("-") and arg != "-":
            continue
        if _VAR_GLOB.match(arg) and not arg.startswith(("$HOME", "${HOME}")):
            return arg
        target = _critical(arg, cwd, home, dirs)
        if target is not None:
            return target
    return None


def _critical(arg: str, cwd: str, home: str | None, dirs: list[str]) -> str | None:
    raw = arg
    for var in ("${HOME}", "$HOME"):
        if home is not None and raw.startswith(var):
            raw = home + raw[len(var):]
    globbed = any(c in raw.rsplit("/", 1)[-1] for c in "*?[")
    path = absolute(raw, cwd, home)
    target = posixpath.dirname(path) if globbed else path
    if target == "/" or posixpath.dirname(target) == "/":
        return arg
    if home is not None and target == absolute(home, "/", None):
        return arg
    if is_under(cwd, target):  # the working directory or one of its parents
        return arg
    if globbed and any(target == absolute(d, cwd, home) for d in dirs):
        return arg
    return None
