"""File commands on a path the source protects, where the target has no path rule for them.

Claude Code checks the path arguments of the file commands it recognises (``cat``, ``head``,
``grep KEY``, ``sed -n 1p``, ``cp``... read; ``touch``, ``rm``, ``tee``, ``sed -i``... write)
against its Read and Edit rules: under ``Read(./.env)`` in deny, ``cat .env`` is refused. A
target whose rules speak of commands only (Codex) cannot say that, and its own default runs
``cat .env`` unasked (Codex knows ``cat`` safe); a target writing the source's ``Bash(cat:*)``
allow (OpenCode, Gemini CLI) runs it too. The source names these commands through its engine
(``path_commands()``, :class:`toolkit.systems.base.system.PathCommandEngine`); each is put,
on each path of the source's own Read / Edit deny and ask rules, to the target loaded from the
written files and to the source (:func:`path_guards`). Where the target runs it unasked and
the source does not, an *ask* rule is written on the command's name (``Bash(cat:*)``; Codex:
``prefix_rule(pattern=["cat"], decision="prompt")``).

Ask, not deny, even for a deny rule: no command rule can name the path, so the rule stops every
``cat``; a deny would refuse ``cat README.md`` too, where the source runs it unasked, and asking
keeps the source's other reads usable (the user approves them) while ``cat .env`` is never run
unasked. The path rule's loss says so: ``weaker`` for a deny (its path now asks instead of
being refused), ``stricter`` for an ask (the command's other paths now ask). A source rule the
ask overrides (an allow of ``Bash(cat:*)``) is listed ``stricter``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...core.decision import Decision, Effect
from ...systems import registry
from .compare import loaded, rank
from .rules import SourceRule, path_probes
from .target import Loss, Written
from .unasked import Guards, _covers

__all__ = ["LAYER", "path_guards", "source_path_commands"]

#: the layer of a written guard rule (``SourceRule.layer``)
LAYER = "paths"


def source_path_commands(runtime: str, root: str) -> tuple[tuple[str, str], ...]:
    """(``read`` / ``edit``, command line with ``{path}``) of each shell command ``runtime``
    checks against its path rules (its engine's ``path_commands()``; none when it does not
    say: its shell rules alone decide a command)."""
    engine = registry.empty_engine(root, runtime)
    listing = getattr(engine, "path_commands", None)
    return tuple((str(kind), str(line)) for kind, line in listing()) if callable(listing) else ()


@dataclass
class _Found:
    """One command name the target runs unasked on a protected path."""

    decided: SourceRule  # the first source path rule refusing / asking for it
    rules: list[SourceRule] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)


def _unasked(written: Written, probes: Sequence[tuple[SourceRule, str]],
             source: Callable[[str], Decision | None], asked: dict[int, tuple[SourceRule,
                                                                            list[str]]]
             ) -> dict[str, _Found]:
    """Command name -> the probes the target (loaded from ``written``) runs unasked and the
    source does not; the probes it asks for where the source refuses go to ``asked`` (path
    rule id -> (rule, commands))."""
    found: dict[str, _Found] = {}
    with loaded(written) as (target, _):
        for rule, command in probes:
            mapped = written.call("Bash", {"command": command})
            if mapped is None:
                return found  # the target has no shell tool
            after = target.check_call(mapped[0], mapped[1], runtime=written.runtime,
                                      mode=written.mode)
            if rank(after.effect) == 0:
                continue
            before = source(command)
            if before is None or rank(before.effect) >= rank(after.effect):
                continue
            if after.effect is not Effect.ALLOW:  # asked where the source refuses
                asked.setdefault(id(rule), (rule, []))[1].append(command)
                continue
            entry = found.setdefault(command.split()[0], _Found(rule))
            entry.rules.append(rule)
            entry.commands.append(command)
    return found


def path_guards(rules: Sequence[SourceRule], written: Written,
                commands: Sequence[tuple[str, str]], source: Callable[[str], Decision | None],
                title: str) -> Guards:
    """The ask rules to add so that the target (``written``, runtime ``title``) runs no file
    command of ``commands`` unasked on a path a source rule of ``rules`` refuses or asks for;
    ``source`` decides a command as the source does (None: it cannot be put to it)."""
    out = Guards()
    asked: dict[int, tuple[SourceRule, list[str]]] = {}
    found = _unasked(written, path_probes(rules, commands), source, asked)
    by_rule: dict[int, tuple[SourceRule, list[str], list[str]]] = {}
    for name, entry in found.items():
        decided = entry.decided
        spec = f"{name}:*"
        guard = SourceRule(decided.text, Effect.ASK, "Bash", "shell", spec, decided.file,
                           decided.line, LAYER, f"Bash({spec})")
        out.rules.append(guard)
        for rule, command in zip(entry.rules, entry.commands, strict=True):
            _, names, calls = by_rule.setdefault(id(rule), (rule, [], []))
            if guard.neutral not in names:
                names.append(guard.neutral)
            calls.append(command)
        out.losses += [Loss("stricter", f"{guard.neutral} is written (ask) so that {title} "
                                        f"does not run {name} unasked on a path the source "
                                        f"protects ({decided.text}, {decided.where}); in "
                                        f"{title} the stricter rule wins over this allow where "
                                        "both match", other, guard.neutral)
                       for other in rules if other.family == "shell"
                       and other.effect is Effect.ALLOW and _covers(other, (name,))]
    out.losses += [_loss(rule, names, calls, title) for rule, names, calls in by_rule.values()]
    out.losses += [Loss("weaker", f"{title} has no rule on a file command's path: a command "
                                  f"on this path (e.g. `{calls[0]}`) is decided by the "
                                  f"command's own rules, which ask, where the source refuses "
                                  "it", rule)
                   for key, (rule, calls) in asked.items() if key not in by_rule]
    if found:
        out.notes.append(f"{title} cannot tie a file command to a path: it asks for "
                         f"{', '.join(found)} on every path, since each would otherwise run "
                         "unasked on a path the source's Read / Edit rules protect")
    return out


def _loss(rule: SourceRule, names: list[str], calls: list[str], title: str) -> Loss:
    """The path rule's loss: ``weaker`` for a deny (its path asks), ``stricter`` for an ask."""
    deny = rule.effect is Effect.DENY
    programs = ", ".join(dict.fromkeys(c.split()[0] for c in calls))
    why = (f"{title} has no rule on a file command's path: it would run {programs} on this "
           f"path unasked (e.g. `{calls[0]}`), where the source "
           f"{'refuses' if deny else 'asks for'} it. An ask rule is written on each command "
           f"({', '.join(names)}): it cannot name the path, so every use of the command asks")
    if deny:
        why += ("; this path asks instead of being refused: ask, not deny, keeps the source's "
                "other uses of the command (cat README.md) usable with approval")
    return Loss("weaker" if deny else "stricter", why, rule, ", ".join(names))
