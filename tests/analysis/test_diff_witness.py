"""Issue 24 item 3: counterexamples in ``tk.diff`` / ``toolmatrix diff`` and exact implication.

The expectations are worked out by hand from Claude Code's permissions documentation
(code.claude.com/docs/en/permissions): deny rules are checked before ask rules before allow
rules; a trailing `` *`` (or ``:*``) is a prefix at a word boundary that also matches the bare
command; ``WebFetch(domain:*.x.org)`` matches subdomains only; reads inside the working
directory and read-only commands (``cat``, ``ls``) run unasked in every mode; ``dontAsk``
denies whatever would ask. Every witness is run through both versions' ``check_call`` here,
independently of the ``verified`` flag the analysis sets itself.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import toolkit as tk
from tests.support.claude import build_project, permissions, write_json
from toolkit.analysis.diff import more_permissive
from toolkit.analysis.witness import relocate
from toolkit.cli import main
from toolkit.core.decision import Effect

HELPER = "---\nname: helper\ndescription: Runs builds.\ntools: Bash, Read\n---\nBuilds.\n"
READER = "---\nname: reader\ndescription: Reads.\ntools: Read\n---\nReads.\n"


def versions(tmp_path: Path, old: dict[str, Any], new: dict[str, Any],
             agents: dict[str, str] | None = None) -> tuple[tk.Project, tk.Project]:
    """Two Claude Code projects in different folders (as ``toolmatrix diff OLD NEW`` reads)."""
    return (build_project(tmp_path / "old", project=old, agents=agents),
            build_project(tmp_path / "new", project=new, agents=agents))


def decided_differently(old: tk.Project, new: tk.Project, call: dict[str, Any],
                        agent: str | None = None) -> tuple[Any, Any]:
    """Both versions' decisions of a witness; asserts NEW's is more permissive."""
    args = relocate(call["args"], Path(new.root).absolute().as_posix(),
                    Path(old.root).absolute().as_posix())
    before = old.check_call(call["tool"], args, agent=agent)
    after = new.check_call(call["tool"], call["args"], agent=agent)
    assert more_permissive(before.effect.value, after.effect.value), (call, before, after)
    return before, after


def test_a_new_prefix_allow_is_new_access_with_a_witness(tmp_path: Path) -> None:
    """Bash(npm run *) added: `npm run ...` asked before (default mode) and runs now; both
    cells stay `conditional`, so only the argument comparison sees it."""
    old, new = versions(tmp_path, permissions(allow=["Bash(npm test *)"], deny=["Bash(curl *)"]),
                        permissions(allow=["Bash(npm test *)", "Bash(npm run *)"],
                                    deny=["Bash(curl *)"]), {"helper": HELPER,
                                                             "reader": READER})
    d = tk.diff(old, new)
    assert d.changes.empty  # no matrix cell changes
    assert d.implies is False
    bash = d.arguments[d.arguments["tool"] == "Bash"].iloc[0]
    assert bash["relation"] == "broader" and bash["exact"] and bash["verified"]
    command = bash["witness"]["args"]["command"]
    assert command == "npm run" or command.startswith("npm run ")
    before, after = decided_differently(old, new, bash["witness"])
    assert (before.effect, after.effect) == (Effect.ASK, Effect.ALLOW)
    assert after.rule.text == "Bash(npm run *)" and bash["rule_after"].startswith(
        "Bash(npm run *) (.claude/settings.json:")
    calls = d.new_access[d.new_access["context"] == "calls"]
    bash_rows = calls[calls["tool"] == "Bash"]
    # the main conversation and the subagent holding Bash; not the one with Read only
    assert set(bash_rows["agent"]) == {"(main)", "helper"}
    for row in bash_rows.itertuples():
        decided_differently(old, new, row.witness,
                            None if row.agent == "(main)" else row.agent)
    assert "NEW does not imply OLD: Bash 'npm run" in d.implication()


def test_removing_an_allow_rule_implies_the_old_policy(tmp_path: Path) -> None:
    old, new = versions(tmp_path, permissions(allow=["Bash(npm test *)", "Bash(npm run *)"]),
                        permissions(allow=["Bash(npm test *)"]))
    d = tk.diff(old, new)
    assert d.implies is True and d.new_access.empty
    assert set(d.arguments["relation"]) == {"narrower"}
    assert d.implication().startswith("NEW implies OLD")
    back = tk.diff(new, old)  # the other way round: not implied, a witness
    assert back.implies is False


@pytest.mark.parametrize(("mode", "implies"), [("default", False), ("dontAsk", True)])
def test_a_deny_turned_into_an_ask_depends_on_the_mode(tmp_path: Path, mode: str,
                                                       implies: bool) -> None:
    """deny -> ask grants more in default mode (denied, now asked); in dontAsk mode whatever
    would ask is denied, so the two rule sets decide every call alike."""
    old, new = versions(tmp_path, permissions(deny=["Bash(git push *)"], defaultMode=mode),
                        permissions(ask=["Bash(git push *)"], defaultMode=mode))
    d = tk.diff(old, new)
    assert d.implies is implies
    row = d.arguments[d.arguments["tool"] == "Bash"].iloc[0]
    if implies:
        assert row["relation"] == "equal" and row["witness"] is None
    else:
        assert row["witness"]["args"]["command"].startswith("git push")
        before, after = decided_differently(old, new, row["witness"])
        assert (before.effect, after.effect) == (Effect.DENY, Effect.ASK)


@pytest.mark.parametrize(("tool", "old_rules", "new_rules"), [
    # `cat` is a read-only command: it runs unasked in every mode already
    ("Bash", permissions(allow=["Bash(npm test *)"]),
     permissions(allow=["Bash(npm test *)", "Bash(cat *)"])),
    # Agent never asks (tools reference: "Permission required: No"): an allow adds nothing
    ("Agent", permissions(allow=["Agent(reviewer)"]), permissions(allow=["Agent(*)"]))])
def test_languages_that_differ_where_the_engine_does_not_is_said(
        tmp_path: Path, tool: str, old_rules: dict[str, Any], new_rules: dict[str, Any]) -> None:
    """NEW's allow language is wider, but the engine already runs those calls unasked, so no
    call is decided differently: no new access, and the implication is left undecided
    rather than guessed."""
    old, new = versions(tmp_path, old_rules, new_rules)
    d = tk.diff(old, new)
    bash = d.arguments[d.arguments["tool"] == tool].iloc[0]
    assert bash["relation"] == "broader" and bash["witness"] is None
    assert bash["verified"] is not None and not bash["verified"]
    assert "decides each candidate it answered alike" in bash["note"]
    assert d.new_access.empty and d.implies is None
    assert "not decided exactly" in d.implication()


def test_path_rules_are_compared_relative_to_each_project(tmp_path: Path) -> None:
    """Edit(src/**) in both folders means the same files; Edit(docs/**) is the new access
    (edits ask in default mode), so the witness is under docs/, never under src/."""
    old, new = versions(tmp_path, permissions(allow=["Edit(src/**)"]),
                        permissions(allow=["Edit(src/**)", "Edit(docs/**)"]))
    d = tk.diff(old, new)
    edit = d.arguments[d.arguments["tool"] == "Edit"].iloc[0]
    path = edit["witness"]["args"]["file_path"]
    root = Path(new.root).absolute().as_posix()
    assert path.startswith(root + "/docs/")
    before, after = decided_differently(old, new, edit["witness"])
    assert (before.effect, after.effect) == (Effect.ASK, Effect.ALLOW)
    assert after.rule.text == "Edit(docs/**)"


CASES = [
    # (old rules, new rules): every witness must decide differently
    (permissions(allow=["WebFetch(domain:docs.python.org)"]),
     permissions(allow=["WebFetch(domain:*.python.org)"])),
    (permissions(allow=["Bash(git * main)"]), permissions(allow=["Bash(git *)"])),
    (permissions(allow=["Bash(npm run test:*)"]), permissions(allow=["Bash(npm run test*)"])),
    (permissions(deny=["Agent(Expl*)"]), permissions(deny=["Agent(Explore)"])),
    (permissions(deny=["Read(./secrets/**)"]), permissions(deny=["Read(./secrets/a.txt)"])),
    (permissions(allow=["Bash(make build)"], deny=["Bash(make *)"]),
     permissions(allow=["Bash(make build)"])),
    (permissions(allow=["Bash(npm *)"], ask=["Bash(npm publish *)"]),
     permissions(allow=["Bash(npm *)"])),
    (permissions(allow=["Read(//etc/hosts)"]), permissions(allow=["Read(//etc/**)"])),
]


@pytest.mark.parametrize(("old_rules", "new_rules"), CASES)
def test_every_witness_decides_differently(tmp_path: Path, old_rules: dict[str, Any],
                                           new_rules: dict[str, Any]) -> None:
    """A witness that both versions decide alike would be a bug: each is re-checked here."""
    old, new = versions(tmp_path, old_rules, new_rules)
    d = tk.diff(old, new)
    witnessed = [w for w in d.arguments["witness"] if w is not None]
    assert witnessed, d.arguments.to_string()
    for call in witnessed:
        decided_differently(old, new, call)
    assert d.implies is False
    # the way back never grows in these cases: each NEW rule set contains OLD's
    assert tk.diff(new, old).new_access.empty


def test_subdomain_witness_is_a_real_url(tmp_path: Path) -> None:
    old, new = versions(tmp_path, *CASES[0])
    row = tk.diff(old, new).arguments.set_index("tool").loc["WebFetch"]
    url = row["witness"]["args"]["url"]
    assert url.startswith("https://") and url.endswith(".python.org/")
    assert url != "https://docs.python.org/"


def test_parameter_rules_that_differ_make_the_comparison_inexact(tmp_path: Path) -> None:
    """Bash(run_in_background:true) denied only before: calls setting that parameter are not
    in the command languages, so the answer is `unknown`, not `narrower`."""
    old, new = versions(tmp_path, permissions(allow=["Bash(npm test *)"],
                                              deny=["Bash(run_in_background:true)"]),
                        permissions(allow=["Bash(npm test *)"]))
    d = tk.diff(old, new)
    bash = d.arguments[d.arguments["tool"] == "Bash"].iloc[0]
    assert bash["relation"] == "unknown" and not bash["exact"]
    assert "Bash(run_in_background:true)" in bash["note"]
    assert d.implies is None
    # the check_call the note warns about: NEW runs what OLD denied
    call = {"command": "npm test", "run_in_background": True}
    assert old.check_call("Bash", call).effect is Effect.DENY
    assert new.check_call("Bash", call).effect is Effect.ALLOW


def test_a_new_agent_cell_gets_a_witness_the_settings_allow(tmp_path: Path) -> None:
    """helper exists only in NEW: its Bash cell is new access; the witness is a command the
    settings allow it (OLD has no such agent, so it grants nothing)."""
    old = build_project(tmp_path / "old", project=permissions(allow=["Bash(npm test *)"]))
    new = build_project(tmp_path / "new", project=permissions(allow=["Bash(npm test *)"]),
                        agents={"helper": HELPER})
    access = tk.diff(old, new).new_access
    bash = access[(access["agent"] == "helper") & (access["tool"] == "Bash")]
    assert len(bash) and all(w == {"tool": "Bash", "args": {"command": "npm test"}}
                             for w in bash["witness"])
    assert new.check_call("Bash", {"command": "npm test"}, agent="helper").effect is Effect.ALLOW
    # a cell no argument rule speaks of has no witness
    others = access[access["tool"] == "WebSearch"]
    assert all(w is None for w in others["witness"])


# -- the command line ---------------------------------------------------------------------------

def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def folders(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> tuple[Path, Path]:
    for name, data in (("old", old), ("new", new)):
        write_json(tmp_path / name / ".claude" / "settings.json", data)
    return tmp_path / "old", tmp_path / "new"


def test_cli_fail_on_new_access_prints_the_witness(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user settings layer
    old, new = folders(tmp_path, permissions(allow=["Bash(npm test *)"]),
                       permissions(allow=["Bash(npm test *)", "Bash(npm run *)"]))
    code, out, _ = run("diff", str(old), str(new), "--fail-on-new-access")
    assert code == 1
    assert "NEW does not imply OLD: Bash 'npm run" in out
    rows = [line for line in out.splitlines() if line.startswith("| (main) | Bash | calls |")]
    assert len(rows) == 1 and "| ask | allow |" in rows[0] and "Bash 'npm run" in rows[0]
    code, out, _ = run("diff", str(new), str(old), "--fail-on-new-access")
    assert code == 0 and "NEW implies OLD" in out
    code, out, _ = run("diff", str(old), str(new), "--only-new-access", "--format", "json")
    records = json.loads(out[out.index("["):])
    assert {"tool": "Bash", "args": {"command": records[0]["witness"]["args"]["command"]}} \
        == records[0]["witness"] and records[0]["agent"] == "(main)"


def test_cli_diff_against_origin_main_in_a_git_repository(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`toolmatrix diff --git origin/main --fail-on-new-access`, as a CI job runs it (the
    README's GitHub Actions example): the working tree's new allow rule fails the gate."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    settings = write_json(repo / ".claude" / "settings.json",
                          permissions(allow=["Bash(npm test *)"], deny=["Bash(curl *)"]))

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                        "user.email=t@example.com", *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "v1")
    git("update-ref", "refs/remotes/origin/main", "HEAD")  # what a CI checkout fetches
    write_json(settings, permissions(allow=["Bash(npm test *)", "Bash(npm run *)"],
                                     deny=["Bash(curl *)"]))
    monkeypatch.chdir(repo)
    code, out, _ = run("diff", "--git", "origin/main", "--fail-on-new-access")
    assert code == 1 and "Bash 'npm run" in out
    # narrowing the policy passes the gate
    write_json(settings, permissions(deny=["Bash(curl *)"]))
    code, out, _ = run("diff", "--git", "origin/main", "--fail-on-new-access")
    assert code == 0 and "NEW implies OLD" in out


def test_a_gemini_project_with_workspace_policies_diffs_without_error(tmp_path: Path) -> None:
    """A disabled workspace policy's rules have no kind (a missing value in the rule frame);
    diffing two versions of such a project compares them (pandas 3 kept the missing kind as
    NaN through astype(str), which broke sorting the rule texts)."""
    for name, decision in (("old", "ask_user"), ("new", "allow")):
        root = tmp_path / name
        (root / ".gemini" / "policies").mkdir(parents=True)
        (root / ".gemini" / "settings.json").write_text("{}\n")
        (root / ".gemini" / "policies" / "team.toml").write_text(
            f'[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"\n'
            f'decision = "{decision}"\npriority = 100\n')
    d = tk.diff(tk.load(tmp_path / "old"), tk.load(tmp_path / "new"))
    # Gemini CLI does not load workspace policies: turning the ask into an allow there
    # grants nothing
    assert d.arguments.empty and d.new_access.empty
