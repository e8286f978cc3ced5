"""Translate a policy between runtimes (SPEC section 13): ``tk.convert(proj, to=...)``.

Like a transpiler between SQL dialects: the source runtime's rules (Claude Code, Gemini CLI,
Codex or OpenCode) are read once from its own engine into a neutral form (:mod:`.sources`,
:mod:`.rules`), one writer per target spells them in that runtime's own files
(:mod:`.gemini`, :mod:`.codex`, :mod:`.opencode`, :mod:`.cursor`, :mod:`.claude`), and the
result is proved, not hoped: the files are loaded back with the target's own engine and every
corpus call is decided by both (:mod:`.compare`). Three guarantees, each tested:

- nothing silently lost: a rule the target cannot express exactly is in ``losses`` with what
  was done (``stricter``, ``dropped``, ``split``) and its file:line;
- proved: ``check`` lists every call deciding differently, with both decisions, and whether a
  loss explains it (``listed``); ``toolmatrix convert --strict`` fails on one that is not;
- never more permissive: where a rule cannot be written exactly the output asks or denies; a
  command the target runs unasked by its own default (Claude Code's read-only ``ls``, Codex's
  known-safe ``cat``) where the source refuses or asks for it gets a deny or ask rule of its
  own (:mod:`.unasked`); a file command the target would run unasked on a path the source's
  Read / Edit rules protect (``cat .env`` in Codex, which has no path rules) gets an ask rule
  (:mod:`.paths`); a call the target runs unasked whatever is written (OpenCode runs a
  line of assignments only) is a ``permissive`` loss, the only kind that can explain allowing
  more.

>>> import toolkit as tk                                      # doctest: +SKIP
>>> conv = tk.convert(tk.load("repo"), to="gemini-cli")       # doctest: +SKIP
>>> conv.files, conv.losses, conv.check, conv.same            # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...systems import registry
from . import claude, codex, cursor, gemini, opencode
from .compare import CHECK_COLUMNS, Call, corpus, run_check
from .paths import path_guards, source_path_commands
from .rules import SOURCES, SourceRule
from .sources import read_source
from .target import Loss, Written
from .unasked import Guards, guard_rules, source_decider, target_unasked

if TYPE_CHECKING:
    import pandas as pd

    from ...policy import Policy

__all__ = ["LOSS_COLUMNS", "TARGETS", "Conversion", "convert"]

#: target runtime -> its writer
TARGETS: Mapping[str, Callable[[list[SourceRule], Path, str | None], Written]] = {
    "gemini-cli": gemini.write,
    "codex": codex.write,
    "opencode": opencode.write,
    "cursor": cursor.write,
    "claude-code": claude.write,
}
LOSS_COLUMNS = ("rule", "kind", "file", "line", "action", "written", "why", "tags")
#: the columns a notebook shows (every column is in ``.losses`` / ``.check``)
_LOSS_SHOWN = ("rule", "file", "line", "action", "written", "why")
_CHECK_SHOWN = ("tool", "command", "variant", "source", "source_rule", "target_tool", "target",
                "target_rule", "direction", "listed", "loss")


@dataclass
class Conversion:
    """A policy written for another runtime, with what was lost and the proof."""

    source: str
    target: str
    #: path -> text; a path starting with ``~/`` belongs in the home folder
    files: dict[str, str]
    loss_list: list[Loss]
    check_rows: list[dict[str, Any]]
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)
    #: what the target's engine said loading the written files (a refused rule is here)
    problems: list[str] = field(default_factory=list)

    @property
    def losses(self) -> pd.DataFrame:
        """One row per rule (or runtime behaviour) the target cannot express exactly."""
        import pandas as pd

        return pd.DataFrame([loss.row() for loss in self.loss_list],
                            columns=list(LOSS_COLUMNS)).astype({"line": "Int64"})

    @property
    def check(self) -> pd.DataFrame:
        """One row per corpus call deciding differently: both decisions, and the loss that
        explains it (``listed``)."""
        import pandas as pd

        return pd.DataFrame(self.check_rows, columns=list(CHECK_COLUMNS))

    @property
    def same(self) -> float:
        """The share of compared calls deciding the same (1.0 when none was compared)."""
        compared = self.counts["compared"]
        return self.counts["same"] / compared if compared else 1.0

    @property
    def unlisted(self) -> int:
        """Differences no loss explains (``--strict`` fails on any)."""
        return self.counts["unlisted"]

    @property
    def allows_more(self) -> int:
        """Calls the target runs unasked and the source does not: only where a ``permissive``
        loss says the target does so whatever rule is written (else they are unlisted)."""
        return self.counts["allows_more"]

    @property
    def ok(self) -> bool:
        """Every difference is a listed loss (a call allowed more only by a ``permissive``
        one) and the target read every written rule (what ``toolmatrix convert --strict``
        requires)."""
        return not self.unlisted and not self.problems

    def write(self, out: str | os.PathLike[str]) -> list[Path]:
        """Write the files under ``out`` (a ``~/`` path under ``out/home``); the paths."""
        written = []
        for path, text in self.files.items():
            target = Path(out) / ("home/" + path[2:] if path.startswith("~/") else path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written.append(target)
        return written

    def summary(self) -> str:
        """A few lines: the files, the losses, the calls compared and how many decide alike."""
        c = self.counts
        lines = [f"{self.source} -> {self.target}: {len(self.files)} file(s), "
                 f"{sum(1 for x in self.loss_list if x.rule)} rule loss(es), "
                 f"{sum(1 for x in self.loss_list if not x.rule)} runtime difference(s)",
                 f"{c['same']}/{c['compared']} corpus calls decide the same "
                 f"({self.same:.1%}); {c['compared'] - c['same']} differ, "
                 f"{c['unlisted']} not explained by a listed loss; {c['stricter']} stricter, "
                 f"{c['weaker']} ask where the source denies, {c['allows_more']} allowed "
                 "where the source is stricter"]
        lines += [f"{self.target} reported: {p}" for p in self.problems]
        return "\n".join(lines + self.notes)

    def __repr__(self) -> str:
        """The summary, the files written, then the losses and the differences as text."""
        parts = [self.summary(), "files: " + ", ".join(self.files)]
        losses, check = self.losses, self.check
        if len(losses):
            parts.append(f"losses ({len(losses)}):\n" + _blank(losses, _LOSS_SHOWN).to_string(
                index=False, max_colwidth=60))
        if len(check):
            parts.append(f"calls deciding differently ({len(check)}):\n" + _blank(
                check, _CHECK_SHOWN).to_string(index=False, max_rows=30, max_colwidth=40))
        return "\n\n".join(parts)

    def _repr_html_(self) -> str:
        """The summary, each file's text, the losses and the differences as tables: every
        rule, command and file text escaped (they come from policy files)."""
        summary = escape(self.summary()).replace("\n", "<br>")
        files = "".join(f"<details><summary><code>{escape(path)}</code></summary>"
                        f"<pre>{escape(text)}</pre></details>"
                        for path, text in self.files.items())
        out = [f"<div class='toolkit-conversion'><p>{summary}</p>", files]
        for title, frame, shown in (("Losses", self.losses, _LOSS_SHOWN),
                                    ("Calls deciding differently", self.check, _CHECK_SHOWN)):
            if len(frame):
                out.append(f"<h4>{escape(title)} ({len(frame)})</h4>")
                out.append(_blank(frame, shown).to_html(index=False, escape=True,
                                                        max_rows=200))
        return "".join(out) + "</div>"


def _blank(frame: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """``columns`` of ``frame`` with every missing value shown as nothing."""
    shown = frame[list(columns)].astype(object)
    return shown.where(shown.notna(), "")


def _source_runtime(proj: Policy, source: str | None) -> str:
    runtimes = tuple(proj.engines)
    if source is None:
        usable = [r for r in runtimes if r in SOURCES]
        if not usable:
            raise ValueError(f"no policy to convert: the project holds "
                             f"{', '.join(runtimes) or 'no runtime settings'}; toolmatrix "
                             f"converts from {', '.join(SOURCES)}")
        return usable[0]
    if source not in SOURCES or source not in runtimes:
        raise ValueError(f"cannot convert from {source!r}: the project holds "
                         f"{', '.join(runtimes) or 'no runtime settings'}; toolmatrix "
                         f"converts from {', '.join(SOURCES)}")
    return source


def convert(proj: Policy, to: str, source: str | None = None,
            calls: Iterable[tuple[str, Mapping[str, Any]]] | None = None) -> Conversion:
    """Write ``proj``'s policy (runtime ``source``, default the first the project holds of
    :data:`SOURCES`) for runtime ``to``, and prove it: ``calls`` (``(tool, args)`` in Claude
    Code's tool names, e.g. a replay's calls) are the corpus, else calls generated from the
    rules themselves.

    ``ValueError`` names an unknown target or a project holding no policy to convert."""
    if to not in TARGETS:
        raise ValueError(f"unknown target runtime {to!r}; toolmatrix writes "
                         f"{', '.join(TARGETS)}")
    runtime = _source_runtime(proj, source)
    read = read_source(proj, runtime)
    rules = read.rules
    foreign = runtime != "claude-code" and to == "claude-code"
    if foreign:  # Claude Code strips wrappers another runtime does not: ask for them
        rules = rules + claude.wrapper_rules(rules, runtime)
    written = TARGETS[to](rules, Path(proj.root), read.mode)
    unasked = target_unasked(to, str(proj.root))
    guards = guard_rules(rules, written, unasked, source_decider(proj, runtime, read.call),
                         registry.by_name(to).title,
                         registry.by_name(runtime).title) if unasked else Guards()
    if guards.rules:  # what the target runs unasked by its own default and the source does not
        written = TARGETS[to](rules + guards.rules, Path(proj.root), read.mode)
    path_commands = source_path_commands(runtime, str(proj.root))
    paths = path_guards(rules, written, path_commands, source_decider(proj, runtime, read.call),
                        registry.by_name(to).title)
    if paths.rules:  # file commands the target runs unasked on a path the source protects
        written = TARGETS[to](rules + guards.rules + paths.rules, Path(proj.root), read.mode)
    losses = list(read.losses) + list(written.losses) + guards.losses + paths.losses
    if foreign:
        losses += claude.foreign_losses(runtime)
    corpus_calls = ([Call(tool, dict(args), "given") for tool, args in calls]
                    if calls is not None else corpus(read.rules, unasked, path_commands))
    rows, counts, problems = run_check(proj, runtime, written, corpus_calls, losses,
                                       source_call=read.call)
    return Conversion(runtime, to, written.files, losses, rows, counts,
                      written.notes + guards.notes + paths.notes, problems)
