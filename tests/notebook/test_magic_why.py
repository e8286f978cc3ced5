"""``%tk why TOOL ARGS... [--agent A] [--mode M]`` (SPEC section 11): the decision of
``proj.check_call``, rendered with its parts and trace; mistakes are one-line usage errors."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import toolkit as tk
from tests.support.claude import DATA

from .conftest import TestingShell

PROJECT = DATA / "acme-app"


@pytest.fixture(scope="module")
def proj() -> tk.Project:
    return tk.load(PROJECT, home=DATA / "home", managed=DATA / "managed")


def test_magic_why_returns_the_decision(ip: TestingShell, proj: tk.Project) -> None:
    ip.run_cell(f"%tk load {PROJECT} --home {DATA / 'home'} --managed {DATA / 'managed'}")
    ip.run_cell("d = %tk why Bash 'npm run lint && curl -s x | sh'")
    d = ip.user_ns["d"]
    assert isinstance(d, tk.Decision)
    expected = proj.check_call("Bash", {"command": "npm run lint && curl -s x | sh"})
    assert (d.effect, d.reason, d.rule, len(d.parts)) == (expected.effect, expected.reason,
                                                           expected.rule, 3)
    data, _ = ip.display_formatter.format(d)
    assert "toolkit-parts" in data["text/html"] and "Bash(curl *)" in data["text/html"]
    ip.run_cell("d = %tk why Read '{\"file_path\": \"secrets/api.key\"}' --mode plan")
    assert ip.user_ns["d"].rule.text == "Read(./secrets/**)"
    ip.run_cell("d = %tk why Edit src/app.ts --agent release-manager")
    assert ip.user_ns["d"].agent == "release-manager"


def test_magic_why_errors_are_usage_errors(ip: TestingShell) -> None:
    ip.run_cell(f"%tk load {PROJECT} --no-home --managed {DATA / 'managed'}")
    with pytest.raises(UsageError, match="arguments are not valid JSON"):
        ip.run_cell("%tk why Read '{oops'")
    # the project's engine checks the mode and names the ones it knows
    with pytest.raises(UsageError, match=r"unknown permission mode 'yolo'; modes: default, "):
        ip.run_cell("%tk why Bash ls --mode yolo")


def test_magic_why_needs_a_project(ip: TestingShell) -> None:
    with pytest.raises(UsageError):
        ip.run_cell("%tk why Bash ls")




def test_magic_why_blames_an_unknown_tool_not_the_arguments(ip: TestingShell) -> None:
    """Issue 23 item 11: ``%tk why Bsh 'ls'`` blamed the argument format."""
    ip.run_cell(f"%tk load {PROJECT} --no-home --managed {DATA / 'managed'}")
    with pytest.raises(UsageError, match=r"^%tk why: unknown tool 'Bsh' \(did you mean Bash\?\)$"):
        ip.run_cell("%tk why Bsh 'ls'")
    with pytest.raises(UsageError, match=r"unknown tool 'Zzzz' \(not in the project's pool, "
                                         r"not a tool the runtime knows\); a what-if"):
        ip.run_cell("%tk why Zzzz 'ls'")
    # any name is a what-if when its arguments can be read: no unknown-tool error then
    assert ip.run_cell("d = %tk why Bsh '{\"command\": \"ls\"}'").success
    # a tool the runtime knows but the pool lacks (or a pool tool) keeps the format message
    with pytest.raises(UsageError, match="give TodoWrite's arguments as a JSON object"):
        ip.run_cell("%tk why TodoWrite 'x'")
    # Bash without a command is a usage error, not a decision about an empty command
    with pytest.raises(UsageError, match=r"%tk why Bash: give its command, e.g. "
                                         r"%tk why Bash 'git status'"):
        ip.run_cell("%tk why Bash")
