"""What a target writer returns, and the losses it lists.

A writer (one module per target runtime) turns the neutral source rules into its runtime's
files and says, rule by rule, what it could not write exactly (:class:`Loss`): what was done
instead (``stricter``: kept as ask or deny, or a broader deny; ``weaker``: a deny kept as
ask where no rule can refuse it alone; ``dropped``: left to the target's default, which asks;
``split``: one rule written as several) and why. A behaviour of
the target that runs a call unasked where the source asks, and that no rule written in the
target can stop, is a ``permissive`` loss: the only loss that can explain a call the target
allows more (any other loss explains a call decided more strictly, or asked where the source
refuses). A loss of the
runtime's semantics rather than of one rule (``timeout git status`` is unwrapped by Claude
Code, not by Gemini CLI) names the shapes of call it explains (``tags``); the comparison tags
every corpus call with its shapes, so a difference counts as listed only when a loss says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .rules import SourceRule

__all__ = ["ACTIONS", "TAGS", "Loss", "Written"]

#: what a writer did with a rule it could not write exactly
ACTIONS = ("stricter", "weaker", "dropped", "split", "semantics", "permissive")
#: the shapes of a corpus call a semantics loss can name (see ``compare.tags``)
TAGS = ("wrapper", "assignment", "assignment-only", "redirect", "substitution", "compound",
        "default", "read-only", "path", "quoted", "unparseable", "cd-only")


@dataclass(frozen=True)
class Loss:
    """A source rule (or a runtime behaviour) the target cannot express exactly."""

    action: str  # one of ACTIONS
    why: str
    rule: SourceRule | None = None
    written: str = ""  # what was written instead ("" when nothing)
    tags: tuple[str, ...] = ()  # semantics losses: the call shapes they explain

    def row(self) -> dict[str, Any]:
        """One row of ``Conversion.losses``."""
        rule = self.rule
        return {"rule": rule.text if rule else "(runtime semantics)",
                "kind": rule.effect.value if rule else None,
                "file": rule.file if rule else None, "line": rule.line if rule else None,
                "action": self.action, "written": self.written, "why": self.why,
                "tags": ",".join(self.tags)}


#: a source call (tool, args) -> the same call in the target's tool names, or None when the
#: target has no such tool (then the call is not compared: a loss says why)
CallMap = Callable[[str, Mapping[str, Any]], "tuple[str, dict[str, Any]] | None"]


@dataclass
class Written:
    """A writer's output: the files, the losses, and how to ask the target's engine."""

    runtime: str
    #: path -> text; a path starting with ``~/`` belongs in the home folder
    files: dict[str, str]
    losses: list[Loss]
    call: CallMap
    #: files the check needs beside ``files`` (the folder trusted in a throwaway home): the
    #: user's own machine has them once they trust the project; never part of the output
    setup: dict[str, str] = field(default_factory=dict)
    #: ``check_call(mode=...)`` of the target matching the source's default mode
    mode: str | None = None
    notes: list[str] = field(default_factory=list)
    #: (written file, line) -> the source rule written there: a target rule deciding a call
    #: differently points back at its source rule (and so at that rule's loss)
    lines: dict[tuple[str, int], SourceRule] = field(default_factory=dict)
