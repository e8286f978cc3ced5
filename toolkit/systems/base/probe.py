"""What a system tells the bypass probes about its shell-command rules (``System.probe``).

``proj.probe()`` (:mod:`toolkit.analysis.probe`) respells the command each rule speaks of and
asks the project's engine what every variant does. Which commands a rule speaks of is the
system's knowledge (its rule grammar), so each system answers it here, in its own package:
``System.probe(engine)`` gives a :class:`ShellProbe` -- the shell tool, how a command line
becomes that tool's arguments, and one :class:`ProbeRule` per rule of the project's own files
(built-in policies are not probed). The analysis never reads a runtime's rule text itself.

>>> probe = ShellProbe("Shell", shell_command)
>>> probe.arguments("git push")
{'command': 'git push'}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core.models import Rule

__all__ = ["ProbeRule", "ShellProbe", "bash_lc", "shell_command"]


@dataclass(frozen=True)
class ProbeRule:
    """One rule to probe: as the project's permission table shows it, the ``Rule`` the engine
    names when it decides, and the command it speaks of.

    ``seed`` is a command line the rule decides (``git push`` for ``Bash(git push *)``). A
    rule written as a regular expression gives ``regex`` instead (Python syntax, no anchors:
    the commands it speaks of are the strings it matches in full); the probe takes one of
    its shortest strings. With neither, ``note`` says why there is no command to start from.
    """

    #: the rule as the project's permission table (``engine.frame``) writes it
    text: str
    #: allow, ask or deny
    kind: str
    #: the :class:`~toolkit.core.models.Rule` a ``Decision`` names when this rule decides
    rule: Rule
    seed: str | None = None
    regex: str | None = None
    #: the rule also matches its command followed by more words (a prefix rule)
    open_ended: bool = False
    #: the agent to ask ``check_call`` as (None: the project's main agent)
    agent: str | None = None
    note: str = ""

    @property
    def file(self) -> str:
        """The file the rule is written in."""
        return self.rule.file or ""

    @property
    def line(self) -> int | None:
        """Its line (None: unknown)."""
        return self.rule.line


def shell_command(command: str) -> dict[str, Any]:
    """A command line as a shell tool's arguments: ``{"command": "git push"}``."""
    return {"command": command}


def bash_lc(command: str) -> dict[str, Any]:
    """A command line as an argv tool's arguments: ``{"command": ["bash", "-lc", ...]}``."""
    return {"command": ["bash", "-lc", command]}


@dataclass(frozen=True)
class ShellProbe:
    """A runtime's shell tool and the rules of the project that name its commands."""

    #: the tool that runs a command line (``Bash``, ``run_shell_command``, ``shell``)
    tool: str
    #: a command line as that tool's arguments
    arguments: Callable[[str], dict[str, Any]]
    rules: tuple[ProbeRule, ...] = ()
    #: the runtime refuses a line when a deny rule refuses any command of it (in a list,
    #: pipeline, subshell or group, loop or function body, command substitution): an escape
    #: smuggling a payload a deny rule refuses cannot run unasked, so the probe need not ask
    #: it. Say so only where the runtime's engine decides a line by each of its commands.
    compound_deny: bool = False
