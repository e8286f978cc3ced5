"""``proj.coverage()`` (SPEC section 14): per rule, what tests, examples and replayed calls
show it deciding; and ``toolmatrix test --format sarif``."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from tests.support.claude import build_project, permissions
from toolkit.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"

TESTS = """\
- tool: Bash
  args: {command: "git push origin main"}
  expect: deny
- tool: Bash
  args: "npm test"
  expect: ask            # fails: Bash(npm test *) allows it
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """tests/fixtures/shop (its settings.json and two subagents), with a test file."""
    root = tmp_path / "shop"
    shutil.copytree(FIXTURES / "shop", root)
    (root / "toolmatrix.tests.yaml").write_text(TESTS, encoding="utf-8")
    return root


def test_coverage_counts_tests_then_replays(shop: Path) -> None:
    import toolkit as tk

    proj = tk.load(shop, home=False, managed=False)
    cov = proj.coverage().set_index("rule")
    settings = cov[cov["layer"] == "project"]
    assert settings.loc["Bash(git push *)", ["tests", "status"]].tolist() == [1, "covered"]
    assert settings.loc["Bash(npm test *)", ["tests", "status"]].tolist() == [1, "covered"]
    assert settings.loc["Bash(curl *)", "status"] == "uncovered"
    assert (settings["replay_hits"] == 0).all()
    # the transcripts of tests/fixtures/claude-projects ran in this project (see its README)
    replayed = proj.coverage(transcripts=FIXTURES / "claude-projects").set_index("rule")
    row = replayed.loc["Bash(npm run *)"]
    assert (row["tests"], row["replay_decisive"], row["status"]) == (0, 1, "covered")
    assert replayed.loc["Bash(curl *)", "status"] == "uncovered"
    assert replayed.loc["Edit(src/**)", "replay_decisive"] >= 1


def test_coverage_matched_but_never_deciding(tmp_path: Path) -> None:
    proj = build_project(tmp_path, project=permissions(allow=["Bash(git push *)"],
                                                        ask=["Bash(git push *)"]))
    (Path(proj.root) / "toolmatrix.tests.yaml").write_text(
        "- tool: Bash\n  args: 'git push'\n  expect: ask\n", encoding="utf-8")
    cov = proj.coverage().set_index("kind")
    assert cov.loc["ask", "status"] == "covered"
    assert (cov.loc["allow", "matched"], cov.loc["allow", "status"]) == (1, "matched")


def test_test_verb_writes_sarif(shop: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["test", str(shop), "--no-home", "--format", "sarif", "--coverage"], out, err)
    assert code == 1  # one failed case
    run = json.loads(out.getvalue())["runs"][0]
    assert run["tool"]["driver"]["name"] == "toolmatrix test"
    failed = [r for r in run["results"] if r["ruleId"] == "failed-case"]
    assert len(failed) == 1 and failed[0]["level"] == "error"
    assert failed[0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "toolmatrix.tests.yaml"}, "region": {"startLine": 4}}
    assert "expected ask, got allow, decided by Bash(npm test *)" in failed[0]["message"]["text"]
    notes = {r["message"]["text"] for r in run["results"] if r["ruleId"] == "uncovered-rule"}
    assert "no test covers the deny rule Bash(curl *)" in notes
    assert all(r["level"] == "note" for r in run["results"] if r["ruleId"] == "uncovered-rule")
    # without --coverage only the failures
    out = io.StringIO()
    main(["test", str(shop), "--no-home", "--format", "sarif"], out, err)
    assert {r["ruleId"] for r in json.loads(out.getvalue())["runs"][0]["results"]} == {
        "failed-case"}
