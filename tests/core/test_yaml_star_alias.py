"""``tools: *`` unquoted: YAML reads ``*`` as the start of an alias, so the file does not parse.

The error says so, at the line, with the fix (issue 13), wherever strict YAML is read: an
agent's front matter (adh-cli's ``agent.md`` shape) and YAML agent files (emergent's
blueprint agents: tests/core/test_loader_emergent.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]


@pytest.mark.parametrize(("text", "line"), [
    ("---\nname: a\ntools: *\n---\n# System Prompt\nHelp.\n", 3),
    ("---\nname: a\ntools:\n  - *\n---\n", 4),
    ("---\nname: a\ntools: [*]\n---\n", 3),
])
def test_unquoted_star_in_front_matter_is_explained(write: Write, text: str, line: int) -> None:
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(write({"agents/a/agent.md": text}))
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == ("agents/a/agent.md", line)
    assert "a bare * starts an alias" in problem.message
    assert 'quote it, e.g. tools: ["*"]' in problem.message


def test_an_undefined_alias_that_looks_like_a_glob_is_explained(write: Write) -> None:
    with pytest.raises(tk.DefinitionError, match=r"quote it \(\"\*\.\.\.\"\) if it is a tool "
                                                 "name or glob"):
        tk.load(write({"agents/a/agent.md": "---\nname: a\ntools: *_query\n---\n"}))
