"""Commands a target runs unasked when no rule matches, where the source refuses or asks.

Claude Code runs its read-only commands (``ls``, ``cat``, ``git status``...) without asking
when no rule matches them; Codex, under the ``untrusted`` approval policy a conversion writes,
runs its known-safe ones (``ls``, ``cat``, ``uname``...). A source that refuses or asks for
such a command would lose that in the target: Gemini CLI's catch-all deny of every command
below some allows becomes the target's default, which asks, and the target's default runs
``ls`` unasked. Each target names its list through its engine (``unasked_commands()``,
:class:`toolkit.systems.base.system.UnaskedEngine`); for each listed command the written
files are loaded with the target's own engine and the command is put to both runtimes, alone
and with an argument (:func:`guard_rules`). Where the target runs it unasked by its own
default and the source does not, a rule of the source's answer is written on the command's
words (``Bash(ls:*)`` deny; Codex: ``prefix_rule(pattern=["ls"], decision="forbidden")``).

Both Claude Code and Codex let the stricter rule win, so such a rule also overrides a less
strict source rule on the same command (an allow of ``ls -la`` beside a catch-all deny): no
rule of theirs can say "ls except ls -la", so that rule is listed ``stricter`` (the guarantee
is never to allow more).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.decision import Decision, Effect
from ...systems import registry
from .compare import UNASKED_CALLS, _no_rule, loaded, rank
from .rules import SourceRule
from .target import Loss, Written

__all__ = ["Guards", "guard_rules", "source_decider", "target_unasked"]

#: the arguments a listed command is tried with (none, the folder, a file)
_PROBES = ("", " .", " README.md")
#: the layer of a written guard rule (``SourceRule.layer``)
LAYER = "unasked"
_STRICT = {Effect.ALLOW: 0, Effect.ASK: 1, Effect.DENY: 2}


def target_unasked(runtime: str, root: str) -> tuple[tuple[str, ...], ...]:
    """The word prefixes of the commands ``runtime`` runs unasked when no rule matches (its
    engine's ``unasked_commands()``; none when the engine does not say)."""
    engine = registry.empty_engine(root, runtime)
    listing = getattr(engine, "unasked_commands", None)
    return tuple(tuple(words) for words in listing()) if callable(listing) else ()


@dataclass
class Guards:
    """The rules to write for commands the target would run unasked, and what they cost."""

    rules: list[SourceRule] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _covers(rule: SourceRule, words: Sequence[str]) -> bool:
    """Whether shell ``rule`` may match a command starting with ``words`` (when unsure: yes)."""
    pattern = rule.shell
    if pattern.kind == "any":
        return True
    text, literal = " ".join(words), pattern.literal.strip()
    if not literal:
        return True
    loose = pattern.kind == "glob" or (pattern.kind == "prefix" and not pattern.boundary)
    return (literal == text or literal.startswith(text + " ") or text.startswith(literal + " ")
            or (loose and (text.startswith(literal) or literal.startswith(text))))


def _probes(words: Sequence[str]) -> list[str]:
    """The commands a listed command is tried as: alone, with each of :data:`_PROBES`, and each
    corpus command (``compare.UNASKED_CALLS``) starting with its words (``sed -n 1p
    README.md`` for ``sed -n``)."""
    text = " ".join(words)
    found = [text + tail for tail in _PROBES]
    found += [c for c in UNASKED_CALLS if c.split()[:len(words)] == list(words)]
    return list(dict.fromkeys(found))


def _refused(written: Written, unasked: Sequence[Sequence[str]],
             source: Callable[[str], Decision | None]) -> list[tuple[tuple[str, ...], Decision]]:
    """Each listed command the target runs unasked by its own default (alone or with one of
    :data:`_PROBES`) where the source does not, with the source's strictest decision of it."""
    found: list[tuple[tuple[str, ...], Decision]] = []
    with loaded(written) as (target, _):
        for words in unasked:
            worst: Decision | None = None
            for probe in _probes(words):
                mapped = written.call("Bash", {"command": probe})
                if mapped is None:
                    break
                after = target.check_call(mapped[0], mapped[1], runtime=written.runtime,
                                          mode=written.mode)
                if after.effect is not Effect.ALLOW or not _no_rule(after):
                    continue  # the target does not run it by its own default
                before = source(probe)
                if before is not None and rank(before.effect) < 2 and (
                        worst is None or rank(before.effect) < rank(worst.effect)):
                    worst = before
            if worst is not None:
                found.append((tuple(words), worst))
    return found


def guard_rules(rules: Sequence[SourceRule], written: Written,
                unasked: Sequence[Sequence[str]], source: Callable[[str], Decision | None],
                title: str, source_title: str = "the source") -> Guards:
    """The deny / ask rules to add to ``rules`` so that the target (``written``, whose runtime
    ``title`` runs the commands ``unasked`` unasked with no rule) never runs one the source
    refuses or asks for. ``source`` decides a command as the source runtime (``source_title``)
    does (None: it cannot be put to it)."""
    out = Guards()
    found = _refused(written, unasked, source)
    refused: list[str] = []
    asked: list[str] = []
    for words, decision in found:
        effect = Effect.DENY if rank(decision.effect) == 0 else Effect.ASK
        spec = " ".join(words) + ":*"
        decided = decision.rule if decision.rule is not None and decision.rule.kind != "none" \
            else None
        # the source rule refusing it (its text, file and line), written on these words: a
        # target decision by the guard points back at that rule and its loss
        what = "refuses" if effect is Effect.DENY else "asks for"
        shown = decided.text if decided else f"{source_title} {what} `{' '.join(words)}` by default"
        guard = SourceRule(shown,
                           effect, "Bash", "shell", spec, decided.file if decided else None,
                           decided.line if decided else None, LAYER, f"Bash({spec})")
        out.rules.append(guard)
        (refused if effect is Effect.DENY else asked).append(" ".join(words))
        for rule in rules:
            if (rule.family == "shell" and rule.layer != LAYER
                    and _STRICT[rule.effect] < _STRICT[effect] and _covers(rule, words)):
                out.losses.append(Loss(
                    "stricter", f"{title} runs `{' '.join(words)}` unasked when no rule "
                                f"matches; the source {what} it, so {guard.neutral} is written "
                                f"({'deny' if effect is Effect.DENY else 'ask'}), and in "
                                f"{title} the stricter rule wins over this one where both "
                                "match: no rule can except its commands",
                    rule, guard.neutral))
    if found:
        shown = "; ".join(part for part in (
            f"refused: {', '.join(refused)}" if refused else "",
            f"asked for: {', '.join(asked)}" if asked else "") if part)
        out.notes.append(f"{title} runs some commands unasked when no rule matches; a rule is "
                         f"written for each the source refuses or asks for ({shown})")
        out.losses.append(Loss("semantics", f"a deny or ask rule is written for each command "
                                            f"{title} runs unasked by its own default where "
                                            "the source refuses or asks for it; it also stops "
                                            "that command's forms the source runs by its own "
                                            "default", tags=("default", "read-only")))
    return out


def source_decider(proj: Any, runtime: str,
                   call: Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]] | None] | None
                   ) -> Callable[[str], Decision | None]:
    """A command -> the source runtime's decision (``call`` maps the neutral ``Bash`` call to
    the source's tool, None: as it is)."""
    def decide(command: str) -> Decision | None:
        asked = call("Bash", {"command": command}) if call is not None else (
            "Bash", {"command": command})
        if asked is None:
            return None
        decision: Decision = proj.check_call(asked[0], asked[1], runtime=runtime)
        return decision
    return decide
