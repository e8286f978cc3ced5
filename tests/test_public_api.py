"""The public surface is exactly what is meant, and importing it stays cheap."""

from __future__ import annotations

import subprocess
import sys

import toolkit as tk

EXPECTED = {
    "AccessDeniedError", "AgentDefinition", "Decision", "DefinitionError", "Effect", "PRESETS",
    "Preset", "Problem", "Project", "ProjectClosedError", "Reason", "Resolution", "Rule",
    "ServerError", "Session", "SpawnError", "Tool", "ToolNotFoundError", "ToolTimeoutError",
    "ToolkitError", "UnknownAgentError", "User", "load", "load_ipython_extension",
    # replay, diff and lock (issue 15)
    "LockError", "PolicyDiff", "Replay", "diff", "replay",
    # a call to a tool whose MCP server is down (issue 23, item 8)
    "ServerUnavailableError",
    # translate a policy between runtimes (issue 22, SPEC section 13)
    "convert",
}


def test_exported_members() -> None:
    assert set(tk.__all__) == EXPECTED
    for name in tk.__all__:
        assert getattr(tk, name) is not None, name


def test_every_public_name_has_a_docstring() -> None:
    for name in tk.__all__:
        obj = getattr(tk, name)
        if callable(obj):
            assert obj.__doc__, name


def test_import_toolkit_does_not_import_pandas_ipywidgets_or_mcp() -> None:
    code = ("import sys, toolkit; heavy = [m for m in ('pandas', 'ipywidgets', 'mcp', 'numpy', "
            "'IPython') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_loading_and_resolving_does_not_import_pandas_or_mcp(examples: object) -> None:
    code = ("import sys, toolkit as tk; p = tk.load(sys.argv[1]); "
            "p.resolve('react-agent', groups=['*']); p.explain('react-agent', 'graph-update'); "
            "print(','.join(m for m in ('pandas', 'mcp', 'ipywidgets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, f"{examples}/trustgraph"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_unknown_attribute_is_attribute_error() -> None:
    try:
        tk.nope  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "nope" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("tk.nope did not raise")
