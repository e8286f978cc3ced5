"""``Shell(base:args)`` whose base has several words: toolkit's reading, pinned.

Cursor's docs (https://cursor.com/docs/cli/reference/permissions, "Shell commands") say "The
commandBase is the first token in the command line" and give only one-word bases
(``Shell(curl:*)``). toolkit reads a base of several words word by word, as it reads
``Shell(npm run)`` without args: ``Shell(npm run:test*)`` is ``npm`` then ``run``, and the
args glob is matched against the words *after the base* (``test --watch``), not after the
first word (``run test --watch``). A token written that way can then only narrow what
``Shell(npm:run test*)`` (the docs' form) allows, never widen it (h16 finding 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.systems.cursor.tokens import shell_matches


@pytest.mark.parametrize(("token", "argv", "matches"), [
    ("npm run:test*", ("npm", "run", "test"), True),
    ("npm run:test*", ("npm", "run", "test", "--", "--watch"), True),
    ("npm run:test*", ("npm", "run", "build"), False),
    ("npm run:test*", ("npm", "test"), False),  # the base's second word is missing
    ("npm run:*", ("npm", "run"), True),  # nothing after the base: "" matches *
    ("npm:run test*", ("npm", "run", "test"), True),  # the docs' form, the same command
])
def test_a_base_of_several_words_takes_the_args_after_it(token: str, argv: tuple[str, ...],
                                                         matches: bool) -> None:
    assert shell_matches(token, argv) is matches


def test_through_check_call(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "cli.json").write_text(json.dumps(
        {"permissions": {"allow": ["Shell(npm run:test*)"], "deny": []}}))
    (tmp_path / "tools.yaml").write_text("tool:\n  Shell: {}\n")
    proj = tk.load(tmp_path, home=False, managed=False)

    def effect(command: str) -> Effect:
        return proj.check_call("Shell", {"command": command}, runtime="cursor").effect

    assert effect("npm run test -- --watch") is Effect.ALLOW
    assert effect("npm run build") is Effect.ASK
