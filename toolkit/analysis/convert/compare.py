"""The proof: load the converted files with the target's own engine and compare, call by call.

The corpus is the user's own calls when given (replayed transcripts), else calls generated from
the source rules themselves: each shell rule's own command, with extra arguments, past the
end of an exact rule, chained with ``&&`` to a second command, wrapped (``timeout``,
``VAR=x``, ``bash -c``), redirected; each path rule's path; each named MCP tool; one call
of every tool family (the matrix: Read, Edit, Write, WebFetch, WebSearch, ...); and the
commands runtimes run unasked when no rule matches (``ls``, ``cat README.md``, ``git status``,
and each command the target names through its engine's ``unasked_commands()``); and each file
command the source checks against its path rules on each protected path (``cat .env``,
``grep KEY .env`` under ``Read(./.env)``). The source's
engine decides each call as the project is; the target's engine decides the same call in its
own tool names, from the written files in a throwaway folder. Nothing is matched here: both
answers come from the runtimes' engines.

Decisions are compared as ``allow`` (runs unasked), ``ask`` and ``deny`` (explicit or not).
A difference is *listed* when a loss speaks of one of the source rules involved (the rule the
call came from, or a rule deciding it or one of its parts) or a semantics loss names one of the
call's shapes (:func:`tags`). A call the target allows and the source does not is listed only
by a ``permissive`` loss (a target behaviour no written rule can stop): no other loss excuses
allowing more.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.decision import Decision, Effect, Reason
from .rules import SourceRule, path_probes, seed
from .target import CallMap, Loss, Written

__all__ = ["CHECK_COLUMNS", "Call", "corpus", "rank", "run_check", "tags"]

CHECK_COLUMNS = ("tool", "command", "variant", "origin", "where", "source", "source_rule",
                 "target_tool", "target", "target_rule", "direction", "listed", "loss")
#: Claude Code's wrappers, stripped before matching (SPEC section 11)
WRAPPERS = ("timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob",
            "xargs", "env", "bash", "sh", "zsh")
#: the second command a chain ends with: asked by every runtime unless a rule says otherwise
SECOND = "rm -rf build"
#: commands some runtime runs unasked when no rule matches them (Claude Code's read-only
#: commands, Codex's and Gemini CLI's known-safe commands; OpenCode allows every command and
#: Cursor asks by default): in every corpus, so the check sees what a target's own defaults
#: run where the source refuses or asks
UNASKED_CALLS = ("ls", "ls -la", "cat README.md", "grep x .", "git status", "git log --oneline",
                 "git diff", "git show HEAD", "git branch", "pwd", "echo hi", "find .",
                 "find . -name '*.py'", "head README.md", "tail -n 5 README.md",
                 "wc -l README.md", "which python3", "diff a.txt b.txt", "stat README.md",
                 "du -sh .", "cd src", "whoami", "uname -a", "id", "cut -d, -f1 a.csv",
                 "rg TODO", "sed -n 1p README.md", "base64 README.md", "seq 3", "true",
                 "nl README.md", "uniq a.txt", "ls && git status", "cat README.md | wc -l")
_RANK = {Effect.ALLOW: 2, Effect.ASK: 1, Effect.DENY: 0, Effect.IMPLICIT_DENY: 0,
         Effect.CONDITIONAL: 1}


def rank(effect: Effect) -> int:
    """2 runs unasked, 1 asks, 0 is refused."""
    return _RANK[effect]


def coarse(effect: Effect) -> str:
    """``allow`` / ``ask`` / ``deny`` (both denies are one)."""
    return {2: Effect.ALLOW.value, 1: Effect.ASK.value, 0: "deny"}[rank(effect)]


@dataclass(frozen=True)
class Call:
    """One corpus call in the source's tool names; ``{root}`` in an argument is the project."""

    tool: str
    args: Mapping[str, Any]
    variant: str
    origin: SourceRule | None = None

    def bound(self, root: Path) -> dict[str, Any]:
        """The arguments with ``{root}`` replaced by ``root``."""
        return {k: v.replace("{root}", str(root)) if isinstance(v, str) else v
                for k, v in self.args.items()}

    @property
    def shown(self) -> str:
        value = self.args.get("command") or self.args.get("file_path") or \
            self.args.get("url") or self.args.get("query") or ""
        return str(value).replace("{root}/", "")


def tags(call: Call, decision: Decision) -> set[str]:
    """The shapes of a call that semantics losses can name (``target.TAGS``)."""
    command = call.args.get("command")
    found = _command_shapes(command) if isinstance(command, str) else set()
    if _no_rule(decision):
        found.add("default")
    if _reason(decision, Reason.READ_ONLY):
        found.add("read-only")
    if _reason(decision, Reason.UNPARSEABLE):
        found.add("unparseable")
    return found


def _command_shapes(command: str) -> set[str]:
    marks = {"compound": ("&&", "||", ";", "|"), "redirect": (">",),
             "substitution": ("$(", "`", "$"), "quoted": ("'", '"')}
    found = {shape for shape, signs in marks.items() if any(s in command for s in signs)}
    parts = _parts(command)
    if parts and all(part.split()[0] == "cd" for part in parts):
        found.add("cd-only")
    for part in parts:
        words = part.split()
        if words and "=" in words[0] and not words[0].startswith("="):
            found.add("assignment")
            if all("=" in w and not w.startswith("=") for w in words):
                found.add("assignment-only")
        if words and words[0] in WRAPPERS:
            found.add("wrapper")
        if any(w.startswith(("/", "~", "..")) for w in words[1:]):
            found.add("path")
    return found


def _parts(command: str) -> list[str]:
    text = command
    for op in ("&&", "||", "|", ";"):
        text = text.replace(op, "\n")
    return [p.strip() for p in text.splitlines() if p.strip()]


def _no_rule(decision: Decision) -> bool:
    """No rule of the policy decides (none, or one of the runtime's built-in defaults, whose
    file is spelt ``<...>``: Gemini CLI's ``<gemini-cli>/policies/...``, OpenCode's
    ``<opencode agent.ts>``)."""
    if decision.parts:
        return any(_no_rule(p) for p in decision.parts)
    rule = decision.rule
    return rule is None or rule.kind == "none" or (rule.file or "").startswith("<")


def _reason(decision: Decision, reason: Reason) -> bool:
    return decision.reason is reason or any(_reason(p, reason) for p in decision.parts)


def _rules_of(decision: Decision) -> set[tuple[str | None, int | None, str]]:
    found = set()
    if decision.rule is not None and decision.rule.kind != "none":
        found.add((decision.rule.file, decision.rule.line, decision.rule.text))
    for part in decision.parts:
        found |= _rules_of(part)
    return found


def _excuses(loss: Loss, direction: str) -> bool:
    """Whether ``loss`` can explain a difference going ``direction``: allowing more only a
    ``permissive`` loss (a target behaviour no written rule can stop) can."""
    return direction != "allows more" or loss.action == "permissive"


def _explaining(losses: Sequence[Loss], direction: str) -> Loss | None:
    """Of the losses of the rules involved, one that can explain ``direction``: one saying so
    (a ``weaker`` loss for a call asked where the source refuses, a ``stricter`` one for a
    stricter call) before any other."""
    usable = [loss for loss in losses if _excuses(loss, direction)]
    return next((loss for loss in usable if loss.action == direction), None) or next(
        iter(usable), None)


def _key(rule: SourceRule) -> tuple[str | None, int | None, str]:
    return rule.file, rule.line, rule.text


def _written_by(decision: Decision, written: Written) -> list[SourceRule]:
    """The source rules written where the target's deciding rules (or its parts') are."""
    found = []
    for part in (decision, *decision.parts):
        rule = part.rule
        if rule is not None and rule.file and rule.line:
            for (file, line), source in written.lines.items():
                if line == rule.line and str(rule.file).endswith(file.removeprefix("~/")):
                    found.append(source)
    return found


# -- the corpus ------------------------------------------------------------------------------

def _shell_calls(shell: Sequence[SourceRule]) -> list[Call]:
    """Each shell rule's own command and its variants."""
    calls: list[Call] = []
    seeds = [s for s in (seed(r) for r in shell) if s]
    for index, rule in enumerate(shell):
        own = seed(rule) or "make build"
        other = next((s for s in seeds[index + 1:] + seeds[:index] if s != own), SECOND)
        pattern = rule.shell
        variants = [("own command", own), ("extra arguments", f"{own} --verbose"),
                    ("chained", f"{own} && {SECOND}"), ("chained to a rule", f"{own} && {other}"),
                    ("wrapped: timeout", f"timeout 30 {own}"),
                    ("wrapped: assignment", f"FOO=1 {own}"),
                    ("wrapped: bash -c", f"bash -c {shlex.quote(own)}"),
                    ("redirected", f"{own} > out.txt")]
        if pattern.kind == "exact":
            variants.append(("past an exact rule", f"{own} extra"))
        if pattern.kind == "prefix":
            variants.append(("inside the last word" if not pattern.boundary else
                             "word boundary", f"{own}x"))
        calls += [Call("Bash", {"command": text}, name, rule) for name, text in variants]
    return calls


def corpus(rules: Sequence[SourceRule], unasked: Iterable[Sequence[str]] = (),
           path_commands: Sequence[tuple[str, str]] = ()) -> list[Call]:
    """Calls generated from the rules themselves (see the module docstring), the commands of
    :data:`UNASKED_CALLS`, each of ``unasked`` (the word prefixes a target runs unasked
    with no rule: ``("git", "status")``) alone and with an argument, and each of
    ``path_commands`` (the source's file commands: ``("read", "cat {path}")``) on the path of
    each Read / Edit deny or ask rule it meets (``cat .env`` under ``Read(./.env)``)."""
    calls = _shell_calls([r for r in rules if r.family == "shell"])
    commands = [*UNASKED_CALLS, *(f"{' '.join(words)}{tail}" for words in unasked
                                  for tail in ("", " README.md"))]
    calls += [Call("Bash", {"command": c}, "unasked by default") for c in commands]
    calls += [Call("Bash", {"command": command}, "a file command on the rule's path", rule)
              for rule, command in path_probes(rules, path_commands)]
    for rule in rules:
        if rule.family in ("read", "edit") and rule.spec:
            path = rule.spec.replace("**/", "a/").replace("*", "x")
            for prefix in ("//", "~/", "./", "/"):
                path = path.removeprefix(prefix)
            tool = "Read" if rule.family == "read" else "Edit"
            calls.append(Call(tool, {"file_path": "{root}/" + path}, "the rule's path", rule))
        elif rule.family == "webfetch" and rule.spec:
            host = rule.spec.removeprefix("domain:").replace("*.", "docs.")
            calls.append(Call("WebFetch", {"url": f"https://{host}/page", "prompt": "read"},
                              "the rule's host", rule))
        elif rule.family == "mcp":
            server, name = rule.mcp
            calls.append(Call(f"mcp__{server}__{name or 'some_tool'}", {}, "the rule's tool",
                              rule))
    calls += [Call("Read", {"file_path": "{root}/README.md"}, "matrix"),
              Call("Edit", {"file_path": "{root}/src/app.py", "old_string": "a",
                            "new_string": "b"}, "matrix"),
              Call("Write", {"file_path": "{root}/notes.txt", "content": "x"}, "matrix"),
              Call("Grep", {"pattern": "TODO"}, "matrix"),
              Call("Glob", {"pattern": "**/*.py"}, "matrix"),
              Call("WebFetch", {"url": "https://example.com/", "prompt": "read"}, "matrix"),
              Call("WebSearch", {"query": "python"}, "matrix"),
              Call("Bash", {"command": "make build"}, "matrix")]
    unique: dict[tuple[str, str], Call] = {}
    for call in calls:
        unique.setdefault((call.tool, repr(sorted(call.args.items()))), call)
    return list(unique.values())


# -- the check -------------------------------------------------------------------------------

def _place(files: Mapping[str, str], project: Path, home: Path) -> None:
    for path, text in files.items():
        target = home / path[2:] if path.startswith("~/") else project / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@contextmanager
def loaded(written: Written) -> Iterator[tuple[Any, Path]]:
    """(the target's policy, its project folder): the written files (and the setup the check
    needs) loaded with the target's own engine from a throwaway project and home, gone when
    the block ends."""
    from ...policy import load_policy

    with tempfile.TemporaryDirectory(prefix="toolmatrix-convert-") as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        home.mkdir()
        setup = {k: v.replace("{project}", str(project)) for k, v in written.setup.items()}
        _place(setup, project, home)
        _place(written.files, project, home)
        yield load_policy(os.fspath(project), runtime=written.runtime, home=os.fspath(home),
                          managed=False), project


def run_check(source: Any, source_runtime: str, written: Written, calls: Iterable[Call],
              losses: Sequence[Loss], source_call: CallMap | None = None
              ) -> tuple[list[dict[str, Any]], dict[str, int], list[str]]:
    """Decide every call with the source and with the target loaded from the written files;
    (rows of differing calls, counts, the target's load problems).

    ``source_call`` puts a corpus call (Claude Code's tool names) to the source's engine (None:
    as it is); a call either runtime has no tool for is not compared.

    ``direction``: ``allows more`` (the target runs a call the source asks for or refuses: the
    guarantee says never), ``weaker`` (the target asks where the source refuses), ``stricter``."""
    rule_losses: dict[tuple[str | None, int | None, str], list[Loss]] = {}
    for item in losses:
        if item.rule is not None:
            rule_losses.setdefault(_key(item.rule), []).append(item)
    semantics = [loss for loss in losses if loss.rule is None]
    counts = {"calls": 0, "compared": 0, "same": 0, "allows_more": 0, "weaker": 0,
              "stricter": 0, "unlisted": 0}
    rows: list[dict[str, Any]] = []
    with loaded(written) as (target, project):
        source_root = Path(source.root)
        for call in calls:
            counts["calls"] += 1
            mapped = written.call(call.tool, call.bound(project))
            asked = (source_call(call.tool, call.bound(source_root)) if source_call is not None
                     else (call.tool, call.bound(source_root)))
            if mapped is None or asked is None:
                continue
            counts["compared"] += 1
            before = source.check_call(asked[0], asked[1], runtime=source_runtime)
            after = target.check_call(mapped[0], mapped[1], runtime=written.runtime,
                                      mode=written.mode)
            if coarse(before.effect) == coarse(after.effect):
                counts["same"] += 1
                continue
            direction = ("allows more" if after.effect is Effect.ALLOW else "weaker") if (
                rank(after.effect) > rank(before.effect)) else "stricter"
            involved = _rules_of(before) | ({_key(call.origin)} if call.origin else set())
            written_by = _written_by(after, written)
            involved |= {_key(r) for r in written_by}
            loss = _explaining([x for k in involved for x in rule_losses.get(k, ())],
                               direction)
            shapes = tags(call, before) | (tags(call, after) & {"read-only", "unparseable"})
            if loss is None:
                loss = next((s for s in semantics
                             if shapes & set(s.tags) and _excuses(s, direction)), None)
            counts[direction.replace(" ", "_")] += 1
            counts["unlisted"] += loss is None
            rows.append({
                "tool": call.tool, "command": call.shown, "variant": call.variant,
                "origin": call.origin.text if call.origin else None,
                "where": call.origin.where if call.origin else None,
                "source": before.effect.value,
                "source_rule": before.rule.text if before.rule and before.rule.kind != "none"
                else None,
                "target_tool": mapped[0], "target": after.effect.value,
                "target_rule": after.rule.text if after.rule and after.rule.kind != "none"
                else None,
                "direction": direction,
                "listed": loss is not None, "loss": loss.why if loss else None})
    problems = [f"{p.file}:{p.line}: {p.message}" if p.line else f"{p.file}: {p.message}"
                for p in target.engine.problems] if target.engine is not None else [
        f"{written.runtime} found no settings in the written files"]
    return rows, counts, list(dict.fromkeys(problems))
