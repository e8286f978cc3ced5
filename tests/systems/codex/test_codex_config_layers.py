"""Codex's project config layers: the ``.codex`` folders from the project root down to the
working folder, each read only when trusted, as Codex's config loader builds them.

Ported from openai/codex ``codex-rs/core/src/config/config_loader_tests.rs`` (each test
names its source test); the loader is ``codex-rs/config/src/loader/mod.rs``
(``load_config_layers_state``, ``find_project_root``, ``load_project_layers``,
``ProjectTrustContext::decision_for_dir``, ``sanitize_project_config``). Codex's tests read
a made-up key ``foo`` from the effective config; toolkit keeps only the keys that decide
calls, so these read ``approval_policy`` (or the rules of each layer) instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.core.decision import Effect
from toolkit.errors import DefinitionError
from toolkit.systems.codex.config import read_settings

FORBID_RM = 'prefix_rule(pattern=["rm"], decision="forbidden")\n'


def _trust(codex_home: Path, project: Path, level: str, markers: list[str] | None = None,
           extra: str = "") -> None:
    """``make_config_for_test``: the user config trusting (or not) one project."""
    codex_home.mkdir(parents=True, exist_ok=True)
    text = extra
    if markers is not None:
        text += "project_root_markers = [" + ", ".join(f'"{m}"' for m in markers) + "]\n"
    text += f'[projects."{project}"]\ntrust_level = "{level}"\n'
    (codex_home / "config.toml").write_text(text)


def _config(folder: Path, text: str) -> None:
    (folder / ".codex").mkdir(parents=True, exist_ok=True)
    (folder / ".codex" / "config.toml").write_text(text)


def _rules(folder: Path, name: str, text: str) -> None:
    (folder / ".codex" / "rules").mkdir(parents=True, exist_ok=True)
    (folder / ".codex" / "rules" / name).write_text(text)


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def test_project_layers_prefer_closest_cwd(tmp_path: Path, codex_home: Path) -> None:
    """project_layers_prefer_closest_cwd: both .codex folders are layers, the one nearest
    the working folder wins."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _config(project_root, 'approval_policy = "never"\n')
    _config(nested, 'approval_policy = "untrusted"\n')
    (project_root / ".git").write_text("gitdir: here")
    _trust(codex_home, project_root, "trusted")
    settings = read_settings(nested)
    assert settings.approval_policy == "untrusted"
    assert settings.sources["approval_policy"] == ".codex/config.toml"
    assert read_settings(project_root).approval_policy == "never"


def test_project_layer_is_added_when_dot_codex_exists_without_config_toml(
        tmp_path: Path, codex_home: Path) -> None:
    """project_layer_is_added_when_dot_codex_exists_without_config_toml: the root's .codex
    is a layer although it holds no config.toml (here: its rules are read)."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    nested.mkdir(parents=True)
    _rules(project_root, "deny.rules", FORBID_RM)
    (project_root / ".git").write_text("gitdir: here")
    _trust(codex_home, project_root, "trusted")
    settings = read_settings(nested)
    assert settings.rules_files == ["../.codex/rules/deny.rules"]
    assert settings.policy.check(["rm", "-rf"]).decision == "forbidden"


def test_codex_home_is_not_loaded_as_project_layer_from_home_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """codex_home_is_not_loaded_as_project_layer_from_home_dir: working in the home folder,
    ~/.codex is the user layer only (no untrusted-project warning, its config applies)."""
    home_dir = tmp_path / "home"
    codex_home = home_dir / ".codex"
    _config(home_dir, 'approval_policy = "never"\n')
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    settings = read_settings(home_dir)
    assert settings.approval_policy == "never"
    assert settings.sources["approval_policy"] == "~/.codex/config.toml"
    assert not [p for p in settings.problems if "trusted" in p.message]


def test_codex_home_within_project_tree_is_not_double_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """codex_home_within_project_tree_is_not_double_loaded: CODEX_HOME is the project's own
    .codex; only the child's .codex is a project layer, and it wins."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _config(nested, 'approval_policy = "untrusted"\n')
    (project_root / ".git").mkdir(parents=True)
    project_dot_codex = project_root / ".codex"
    _trust(project_dot_codex, project_root, "trusted", extra='approval_policy = "never"\n')
    _rules(project_root, "user.rules", FORBID_RM)
    monkeypatch.setenv("CODEX_HOME", str(project_dot_codex))
    settings = read_settings(nested)
    assert settings.approval_policy == "untrusted"
    # the folder's rules are read once, as the user layer's
    assert settings.rules_files == ["~/.codex/rules/user.rules"]


@pytest.mark.parametrize("level", ["untrusted", None])
def test_project_layers_disabled_when_untrusted_or_unknown(tmp_path: Path, codex_home: Path,
                                                           level: str | None) -> None:
    """project_layers_disabled_when_untrusted_or_unknown: the user's value applies, and
    toolkit says why the project layer is off, in Codex's words."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _config(nested, 'approval_policy = "never"\nprofile = "ignored"\n')
    _rules(nested, "deny.rules", FORBID_RM)
    if level is None:
        (codex_home / "config.toml").write_text('approval_policy = "on-failure"\n')
    else:
        _trust(codex_home, project_root, level, extra='approval_policy = "on-failure"\n')
    settings = read_settings(nested)
    assert settings.approval_policy == "on-failure"
    assert settings.policy.check(["rm"]).decision is None
    [warning] = [p.message for p in settings.problems if p.file == ".codex"]
    # no .git: the project root is the working folder itself, whose key Codex names
    assert f"To load project-local config, hooks, and exec policies, add {nested.resolve()} " \
           "as a trusted project in ~/.codex/config.toml." in warning


def test_project_layer_ignores_unsupported_config_keys(tmp_path: Path, codex_home: Path
                                                       ) -> None:
    """project_layer_ignores_unsupported_config_keys: a project may not choose a profile
    (nor providers, notify, ...); Codex drops those keys with this startup warning."""
    project_root = tmp_path / "project"
    _config(project_root, '''
model = "project-model"
model_provider = "attacker"
notify = ["sh", "-c", "echo attacker"]
profile = "attacker"

[otel]
environment = "attacker"

[profiles.attacker]
approval_policy = "never"
''')
    _trust(codex_home, project_root, "trusted")
    settings = read_settings(project_root)
    assert settings.approval_policy == "on-request"  # the profile was not applied
    expected = ("Ignored unsupported project-local config keys in .codex/config.toml: "
                "model_provider, notify, profile, profiles, otel. If you want these settings "
                "to apply, manually set them in your user-level config.toml.")
    assert expected in [p.message for p in settings.problems]


@pytest.mark.parametrize("level", ["untrusted", None])
def test_invalid_project_config_ignored_when_untrusted_or_unknown(
        tmp_path: Path, codex_home: Path, level: str | None) -> None:
    """invalid_project_config_ignored_when_untrusted_or_unknown: an unreadable config.toml
    of a project Codex does not trust is not an error."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _config(nested, "foo =")
    (project_root / ".git").write_text("gitdir: here")
    if level is not None:
        _trust(codex_home, project_root, level, extra='approval_policy = "never"\n')
    else:
        (codex_home / "config.toml").write_text('approval_policy = "never"\n')
    assert read_settings(nested).approval_policy == "never"


def test_invalid_project_config_is_a_located_error_when_trusted(tmp_path: Path,
                                                                codex_home: Path) -> None:
    """The trusted counterpart (``load_project_config_file``): Codex refuses to start with
    "Error parsing project config file"; toolkit says so with the file and line."""
    project_root = tmp_path / "project"
    _config(project_root, 'model = "x"\nfoo =\n')
    _trust(codex_home, project_root, "trusted")
    with pytest.raises(DefinitionError) as caught:
        read_settings(project_root)
    problem = caught.value.problems[0]
    assert problem.file == ".codex/config.toml" and problem.line == 2
    assert "Error parsing project config file .codex/config.toml" in problem.message


@pytest.mark.parametrize(("level", "disabled"), [("untrusted", True), (None, True),
                                                 ("trusted", False)])
def test_project_layer_without_config_toml_is_disabled_when_untrusted_or_unknown(
        tmp_path: Path, codex_home: Path, level: str | None, disabled: bool) -> None:
    """project_layer_without_config_toml_is_disabled_when_untrusted_or_unknown (the layer's
    rules are what shows it on or off)."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _rules(nested, "deny.rules", FORBID_RM)
    (project_root / ".git").write_text("gitdir: here")
    if level is not None:
        _trust(codex_home, project_root, level)
    decision = read_settings(nested).policy.check(["rm"]).decision
    assert (decision is None) == disabled


def test_project_root_markers_supports_alternate_markers(tmp_path: Path, codex_home: Path
                                                         ) -> None:
    """project_root_markers_supports_alternate_markers: with ``.hg`` as the marker, both
    .codex folders up to the .hg folder are layers, the nearest winning."""
    project_root = tmp_path / "project"
    nested = project_root / "child"
    _config(project_root, 'approval_policy = "never"\n')
    _config(nested, 'approval_policy = "untrusted"\n')
    _rules(project_root, "root.rules", FORBID_RM)
    (project_root / ".hg").write_text("hg")
    _trust(codex_home, project_root, "trusted", markers=[".hg"])
    settings = read_settings(nested)
    assert settings.approval_policy == "untrusted"
    assert settings.rules_files == ["../.codex/rules/root.rules"]


def test_nested_project_root_markers_stop_the_layers_below_the_repository(
        tmp_path: Path, codex_home: Path) -> None:
    """nested_project_root_markers_do_not_redirect_regular_repo_hooks: the project root is
    the .hg folder inside the git repository, so the repository's own .codex is not a
    layer for a session in the project."""
    repo_root = tmp_path / "repo"
    project_root = repo_root / "project"
    nested = project_root / "child"
    (repo_root / ".git").mkdir(parents=True)
    nested.mkdir(parents=True)
    (project_root / ".hg").write_text("hg")
    _rules(repo_root, "repo.rules", FORBID_RM)
    _rules(project_root, "project.rules", 'prefix_rule(pattern=["mv"], decision="forbidden")\n')
    _rules(nested, "nested.rules", 'prefix_rule(pattern=["cp"], decision="forbidden")\n')
    _trust(codex_home, project_root, "trusted", markers=[".hg"])
    settings = read_settings(nested)
    assert settings.rules_files == ["../.codex/rules/project.rules", ".codex/rules/nested.rules"]


def test_project_trust_does_not_match_configured_alias_for_canonical_cwd(
        tmp_path: Path, codex_home: Path) -> None:
    """project_trust_does_not_match_configured_alias_for_canonical_cwd: trusting a symlink
    to the project does not trust the project's real path."""
    project_root = tmp_path / "project"
    alias_root = tmp_path / "project_alias"
    _rules(project_root, "deny.rules", FORBID_RM)
    (project_root / ".git").write_text("gitdir: here")
    os.symlink(project_root, alias_root)
    _trust(codex_home, alias_root, "trusted")
    settings = read_settings(project_root)
    assert settings.policy.check(["rm"]).decision is None
    assert any("is not trusted" in p.message for p in settings.problems)


def test_linked_worktree_is_trusted_through_its_repository(tmp_path: Path, codex_home: Path
                                                           ) -> None:
    """linked_worktree_project_layers_use_root_repo_hooks_without_worktree_config_toml (its
    trust part): the main repository is trusted, so a linked worktree's .codex is read
    (``resolve_root_git_project_for_trust``)."""
    repo_root = tmp_path / "repo"
    worktree_root = tmp_path / "worktree"
    (repo_root / ".git" / "worktrees" / "feature-x").mkdir(parents=True)
    worktree_root.mkdir()
    (worktree_root / ".git").write_text(
        f"gitdir: {repo_root / '.git' / 'worktrees' / 'feature-x'}\n")
    _rules(worktree_root, "deny.rules", FORBID_RM)
    _trust(codex_home, repo_root.resolve(), "trusted")
    assert read_settings(worktree_root).policy.check(["rm"]).decision == "forbidden"


def test_a_parent_folder_entry_does_not_trust_a_project_below_it(tmp_path: Path,
                                                                 codex_home: Path) -> None:
    """``decision_for_dir`` looks up the folder, the project root and the repository root,
    nothing above: trusting ~/work does not trust ~/work/app."""
    work = tmp_path / "work"
    app = work / "app"
    (app / ".git").mkdir(parents=True)
    _rules(app, "deny.rules", FORBID_RM)
    _trust(codex_home, work.resolve(), "trusted")
    assert read_settings(app).policy.check(["rm"]).decision is None


def test_a_subfolder_loads_the_codex_folder_above(tmp_path: Path) -> None:
    """tk.load("repo/sub") is a Codex project when repo/.codex is above it (as a session
    started in repo/sub reads it); check_call(cwd=) reads the layers from that folder."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "sub" / "deeper").mkdir(parents=True)
    _rules(root, "team.rules", 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n')
    _rules(root / "sub", "sub.rules", 'prefix_rule(pattern=["npm"], decision="prompt")\n')
    home = tmp_path / "home"
    _trust(home / ".codex", root.resolve(), "trusted")
    proj = tk.load(root / "sub" / "deeper", home=home, managed=False)
    assert proj.runtimes == ("codex",)
    assert "below" in repr(proj) and str(root / "sub") in repr(proj)
    d = proj.check_call("shell", {"command": ["git", "push"]})
    assert d.effect is Effect.DENY and d.rule.where == "../../.codex/rules/team.rules:1"
    assert proj.check_call("shell", {"command": ["npm", "ci"]}).effect is Effect.ASK

    top = tk.load(root, home=home, managed=False)
    assert top.check_call("shell", {"command": ["npm", "ci"]}).effect is Effect.ALLOW
    inside = top.check_call("shell", {"command": ["npm", "ci"]}, cwd="sub")
    assert inside.effect is Effect.ASK and inside.rule.where == ".codex/rules/sub.rules:1"


def test_a_folder_outside_any_project_with_codex_is_not_codex(tmp_path: Path) -> None:
    """No .codex between the folder and its project root: no Codex engine."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / ".codex" / "rules").mkdir(parents=True)  # above the project root: not read
    proj = tk.load(tmp_path / "repo", home=False, managed=False)
    assert "codex" not in proj.runtimes


def test_a_cwd_that_is_not_a_folder_here_keeps_the_projects_layers(tmp_path: Path) -> None:
    """A logged call's cwd from another machine (replay) is shown, not read: the project's
    own layers decide."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    _rules(root, "team.rules", FORBID_RM)
    home = tmp_path / "home"
    _trust(home / ".codex", root.resolve(), "trusted")
    proj = tk.load(root, home=home, managed=False)
    d = proj.check_call("shell", {"command": ["rm", "x"]}, cwd="/home/someone/elsewhere")
    assert d.effect is Effect.DENY and d.cwd == "/home/someone/elsewhere"
