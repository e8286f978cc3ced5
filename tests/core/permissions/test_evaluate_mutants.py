"""What ``make mutate MODULES=toolkit/systems/claude_code/permissions/evaluate.py`` found
untested (issue 25).

Each test pins one piece of ``check_call``'s behaviour a surviving mutant changed: the
context of a call (mode, working directories, home, hooks), a subagent's front-matter steps,
and the checks behind a read or a write. Expected values come from the documentation
sentence quoted beside them (code.claude.com/docs/en/permissions, /permission-modes,
/sub-agents) or are worked out by hand from the call.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk
from tests.core.permissions.test_subagents import FILE, agent
from tests.support.caches import clear_caches
from tests.support.claude import permissions
from toolkit.systems.claude_code.permissions.evaluate import RuleSet, context_for


@pytest.fixture(autouse=True)
def _uncached() -> None:
    """Each test runs the code under the caches (see tests/support/caches.py)."""
    clear_caches()


Make = Callable[..., tk.Project]


def lines(d: tk.Decision) -> list[str]:
    return [str(s) for s in d.trace]


# -- the context of a call ---------------------------------------------------------------------

def test_a_hook_may_answer_ask(make: Make) -> None:
    """permissions#extend-permissions-with-hooks: a PreToolUse hook can "deny", "ask" or
    "allow"; an "ask" prompts like an ask rule."""
    d = make(project=permissions(["Bash(npm test *)"])).check_call(
        "Bash", {"command": "npm test"}, hook="ask")
    assert (d.effect.value, d.reason.value) == ("ask", "hook")


def test_manual_is_the_default_mode(make: Make) -> None:
    """permission-modes#available-modes: "The CLI accepts manual as an alias"."""
    d = make().check_call("Edit", {"file_path": "a.txt"}, mode="manual")
    assert d.mode == "default"
    assert lines(d)[0] == "mode         pass  default (given)"


def test_an_unknown_mode_lists_every_mode() -> None:
    with pytest.raises(ValueError) as raised:
        context_for(None, RuleSet([]), agent=None, mode="yolo", cwd="/p", hook=None)
    assert str(raised.value) == (
        "unknown permission mode 'yolo'; modes: default, acceptEdits, plan, auto, dontAsk, "
        "bypassPermissions")


def test_the_mode_step_says_where_the_mode_comes_from(make: Make) -> None:
    proj = make()
    d = proj.check_call("Edit", {"file_path": "a.txt"})
    assert (d.mode, lines(d)[0]) == ("default", "mode         pass  default (no defaultMode set)")
    d = proj.check_call("Edit", {"file_path": "a.txt"}, mode="plan")
    assert (d.mode, lines(d)[0]) == ("plan", "mode         pass  plan (given)")
    located = make(project=permissions(defaultMode="acceptEdits")).check_call(
        "Edit", {"file_path": "a.txt"})
    assert str(located.trace[0]) == ("mode         pass  acceptEdits (defaultMode, project "
                                     "settings) (.claude/settings.json:3)")
    assert located.trace[0].rule.line == 3


def test_a_subagents_permission_mode_is_named_in_the_mode_step(make: Make) -> None:
    """sub-agents#permission-modes: a subagent's permissionMode applies unless the parent's
    mode takes precedence."""
    proj = make()
    proj.add_agent(agent(permissionMode="plan"))
    d = proj.check_call("Edit", {"file_path": "a.txt"}, agent="worker")
    assert lines(d)[0] == "mode         pass  plan (worker's permissionMode)"
    proj.add_agent(agent("plain"))  # no permissionMode: the session's mode, said as such
    d = proj.check_call("Edit", {"file_path": "a.txt"}, agent="plain")
    assert lines(d)[0] == "mode         pass  default (no defaultMode set)"


def test_a_disabled_mode_is_checked_in_default_mode_with_a_note(make: Make) -> None:
    """permissions: "Prevent bypassPermissions mode from being used ... Set
    permissions.disableBypassPermissionsMode to "disable" in any settings file"."""
    proj = make(user=permissions(disableBypassPermissionsMode="disable"))
    d = proj.check_call("Bash", {"command": "make deploy"}, mode="bypassPermissions")
    assert (d.mode, d.effect.value) == ("default", "ask")
    assert d.warnings == ("bypassPermissions mode is disabled by settings "
                          "(permissions.disable...Mode); checked in default mode",)
    assert lines(d)[0] == "mode         pass  default (given; bypassPermissions is disabled)"


def test_home_expands_in_the_working_directory_and_additional_directories(
        make: Make, tmp_path: Path) -> None:
    """permissions#working-directories: "Reading files inside the working directory and
    additionalDirectories is allowed without approval"; ``~`` is the home folder."""
    home = tmp_path / "home"
    proj = make(project=permissions(additionalDirectories=["~/shared"]))
    d = proj.check_call("Read", {"file_path": "~/shared/notes.txt"}, mode="dontAsk")
    assert (d.effect.value, d.reason.value) == ("allow", "working-dir")
    assert d.message == (f"Read {home}/shared/notes.txt runs unasked in every mode "
                         "(working-dir)")
    d = proj.check_call("Read", {"file_path": "notes.txt"}, cwd="~/shared")
    assert d.cwd == f"{home}/shared"
    assert lines(d)[1] == f"deny         pass  no deny rule matches Read {home}/shared/notes.txt"


def test_a_relative_working_directory_is_taken_from_the_root_of_the_filesystem() -> None:
    ctx = context_for(None, RuleSet([]), agent=None, mode=None, cwd="p/q", hook=None)
    assert (ctx.cwd, ctx.dirs, ctx.home, ctx.hooks) == ("/p/q", ("/p/q",), None, ())
    assert (ctx.mode, ctx.agent, ctx.notes) == ("default", "main", ())
    assert ctx.mode_step is not None and str(ctx.mode_step) == (
        "mode         pass  default (no defaultMode set)")


# -- a subagent's front matter -----------------------------------------------------------------

def test_the_front_matter_steps_of_a_subagent(make: Make) -> None:
    """sub-agents: "disallowedTools is applied first, then tools is resolved against the
    remaining pool"; a tool outside the subagent's tools cannot be called."""
    proj = make()
    proj.add_agent(agent("cut", disallowed=[("Bash", "git push *")]))
    d = proj.check_call("Bash", {"command": "ls"}, agent="cut")
    assert lines(d)[1:] == [f"agent-tools  fail  cut's disallowedTools removes Bash ({FILE}:5)"]
    assert d.message == "cut's disallowedTools entry Bash(git push *) removes Bash"
    proj.add_agent(agent("reader", tools=[("Read", None)]))
    d = proj.check_call("Bash", {"command": "ls"}, agent="reader")
    assert lines(d)[1:] == ["agent-tools  fail  Bash is not in reader's tools"]
    assert d.message == "Bash is not in reader's tools, so the subagent cannot call it"
    assert str(proj.check_call("Read", {"file_path": "a"}, agent="reader").trace[1]) == (
        f"agent-tools  pass  reader holds Read (tools entry Read) ({FILE}:4)")
    proj.add_agent(agent("any"))
    step = proj.check_call("Read", {"file_path": "a"}, agent="any").trace[1]
    assert str(step) == "agent-tools  pass  any holds Read (every tool: tools is omitted or '*')"


def test_the_spawn_list_note_only_concerns_the_agent_tool(make: Make) -> None:
    """sub-agents: "The Agent(agent_type) allowlist syntax applies only to an agent running as
    the main thread with claude --agent"."""
    proj = make()
    proj.add_agent(agent("lead", tools=[("Agent", "worker"), ("Read", None)]))
    d = proj.check_call("Agent", {"subagent_type": "x"}, agent="lead")
    assert str(d.trace[2]) == (
        f"agent-tools  skip  Agent(worker) restricts spawning only when lead runs as the main "
        f"thread (claude --agent); as a subagent the list is ignored ({FILE}:4)")
    read = proj.check_call("Read", {"file_path": "a"}, agent="lead")
    assert [s.name for s in read.trace].count("agent-tools") == 1


# -- reads and writes --------------------------------------------------------------------------

def test_read_rules_by_name_and_by_path_in_each_list(make: Make, tmp_path: Path) -> None:
    """permissions: "Rules are evaluated in order: deny -> ask -> allow"; "Read rules apply to
    all built-in tools that read files like Grep and Glob"."""
    outside = tmp_path / "elsewhere" / "a.txt"
    proj = make(project=permissions(["Read"], ask=["Read(./docs/**)", "Grep"],
                                    deny=["Glob"]))
    d = proj.check_call("Read", {"file_path": "docs/a.md"})
    assert (d.effect.value, d.rule.text) == ("ask", "Read(./docs/**)")
    assert d.message == f"ask rule Read(./docs/**) matches Read {proj.root}/docs/a.md"
    assert proj.check_call("Grep", {"pattern": "x"}).rule.text == "Grep"
    assert proj.check_call("Glob", {"pattern": "*"}).rule.text == "Glob"
    d = proj.check_call("Read", {"file_path": str(outside)})  # outside: only the rule allows
    assert (d.effect.value, d.reason.value, d.rule.text) == ("allow", "allow-rule", "Read")


def test_a_search_without_a_path_searches_the_working_directory(make: Make) -> None:
    """Grep and Glob default to the working directory; a deny rule on what lies under the
    searched folder restricts the search (permissions#read-and-edit: "Read rules apply to
    all built-in tools that read files like Grep and Glob"; "/path" is "Path relative to
    project root")."""
    proj = make(project=permissions(deny=["Read(/secrets/**)"]))
    secrets = Path(proj.root) / "secrets"
    secrets.mkdir()
    for args in ({"pattern": "x"}, {"pattern": "x", "path": ""}, {"pattern": "x", "path": 3}):
        d = proj.check_call("Grep", args, cwd=str(secrets))
        assert (d.effect.value, d.rule.text) == ("explicit-deny", "Read(/secrets/**)"), args
        assert d.message.endswith(f"matches Grep {secrets}")
    d = proj.check_call("Grep", {"pattern": "x", "path": "secrets"})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Read(/secrets/**)")
    # a file, not a search root: only what the rule names itself
    d = proj.check_call("Read", {"file_path": "secrets"})
    assert (d.effect.value, d.reason.value) == ("allow", "working-dir")
    d = proj.check_call("Grep", {"pattern": "x", "path": "src"})
    assert (d.effect.value, d.reason.value) == ("allow", "working-dir")


def test_a_read_path_rule_is_matched_from_the_working_directory(make: Make) -> None:
    """permissions#read-and-edit: "path: Path relative to current directory"."""
    proj = make(project=permissions(["Read(docs/**)"]))
    (Path(proj.root) / "sub").mkdir()
    d = proj.check_call("Read", {"file_path": "/outside/docs/a.md"}, cwd="/outside")
    assert (d.effect.value, d.rule.text) == ("allow", "Read(docs/**)")


def test_a_hook_answers_for_a_read(make: Make) -> None:
    """permissions#extend-permissions-with-hooks: "A blocking hook also takes precedence over
    allow rules"."""
    d = make(project=permissions(["Read"])).check_call("Read", {"file_path": "a"}, hook="deny")
    assert (d.effect.value, d.reason.value) == ("explicit-deny", "hook")


def test_write_rules_by_name_and_by_parameter(make: Make) -> None:
    """permissions#match-by-input-parameter: "Tool(param:value)" in deny and ask rules; a bare
    tool name matches every call of it."""
    proj = make(project=permissions(["Write"], ask=["MultiEdit"],
                                    deny=["Write(content:*password*)"]))
    d = proj.check_call("Write", {"file_path": "a.txt", "content": "password=1"})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Write(content:*password*)")
    d = proj.check_call("Write", {"file_path": "a.txt", "content": "hello"})
    assert (d.effect.value, d.rule.text) == ("allow", "Write")
    assert d.message == f"allow rule Write matches Write {proj.root}/a.txt"
    assert proj.check_call("MultiEdit", {"file_path": "a.txt"}).rule.text == "MultiEdit"


def test_edit_ask_rules_cover_edits_and_read_ask_rules_do_not(make: Make) -> None:
    """permissions#read-and-edit: "Edit rules apply to all built-in tools that edit files";
    only a Read *deny* rule "also blocks the Edit and Write tools on the same path"."""
    proj = make(project=permissions(ask=["Edit(./docs/**)", "Read(./notes/**)"]))
    d = proj.check_call("Edit", {"file_path": "docs/a.md"}, mode="acceptEdits")
    assert (d.effect.value, d.rule.text) == ("ask", "Edit(./docs/**)")
    assert d.message == f"ask rule Edit(./docs/**) matches Edit {proj.root}/docs/a.md"
    assert proj.check_call("Edit", {"file_path": "src/a.md"}, mode="acceptEdits").allowed
    assert proj.check_call("Edit", {"file_path": "notes/a.md"}, mode="acceptEdits").allowed


def test_notebook_edit_meets_edit_deny_rules_and_its_own_path(make: Make, tmp_path: Path) -> None:
    """permissions#read-and-edit: "A Read deny rule also blocks the Edit and Write tools on
    the same path ... NotebookEdit isn't covered"; Edit rules still cover it."""
    proj = make(project=permissions(deny=["Edit(./nb/**)", "Read(./data/**)"]))
    d = proj.check_call("NotebookEdit", {"notebook_path": "nb/a.ipynb"})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Edit(./nb/**)")
    assert d.message == f"deny rule Edit(./nb/**) matches NotebookEdit {proj.root}/nb/a.ipynb"
    assert proj.check_call("NotebookEdit", {"notebook_path": "data/a.ipynb"},
                           mode="acceptEdits").allowed
    # acceptEdits runs edits inside the working directories only
    away = proj.check_call("NotebookEdit", {"notebook_path": str(tmp_path / "x.ipynb")},
                           mode="acceptEdits")
    assert away.effect.value == "ask"


def test_a_redirect_is_not_matched_by_bare_tool_rules(make: Make) -> None:
    """permissions#redirections: a redirect target is "a file write", checked as an Edit; a
    rule naming another tool says nothing about it."""
    proj = make(project=permissions(["Bash(echo *)"], deny=["WebSearch", "Web*", "mcp__x"],
                                    ask=["WebFetch"]))
    d = proj.check_call("Bash", {"command": "echo hi > out.txt"}, mode="acceptEdits")
    assert d.effect.value == "allow" and [p.effect.value for p in d.parts] == ["allow"]


# -- other tools -------------------------------------------------------------------------------

def test_webfetch_and_agent_calls_are_named_by_host_and_type(make: Make) -> None:
    """permissions: "WebFetch(domain:example.com)"; sub-agents: "Agent(Explore)" names one
    subagent type."""
    proj = make(project=permissions(deny=["Agent(Explore)", "Agent(general-purpose)"],
                                    ask=["WebFetch(domain:x.com)"]))
    d = proj.check_call("WebFetch", {"url": "https://x.com/a"})
    assert d.message == "ask rule WebFetch(domain:x.com) matches WebFetch x.com"
    d = proj.check_call("WebFetch", {"url": 5})
    assert (d.effect.value, d.reason.value) == ("ask", "unparseable")
    assert "no host in url 5" in d.message
    d = proj.check_call("Agent", {"subagent_type": "Explore"})
    assert d.message == "deny rule Agent(Explore) matches Agent Explore"
    d = proj.check_call("Agent", {"subagent_type": "Plan"})  # another type: no rule matches
    assert (d.effect.value, d.reason.value) == ("allow", "no-prompt")
    d = proj.check_call("Agent", {"prompt": "go"})  # no type: the general-purpose subagent
    assert d.message == "deny rule Agent(general-purpose) matches Agent general-purpose"


def test_another_tool_is_named_in_its_messages(make: Make) -> None:
    d = make(project=permissions(deny=["WebSearch"])).check_call("WebSearch", {"query": "x"})
    assert d.message == "deny rule WebSearch matches WebSearch"


def test_skill_rules_match_the_skill_and_its_arguments(make: Make) -> None:
    """A Skill rule takes a command-style pattern (rules.py: ``Skill`` is matched like
    ``Bash``), met by the call's ``skill`` then ``args``, space-joined (worked out by hand)."""
    proj = make(project=permissions(["Skill(lint)"], deny=["Skill(deploy *)"]))
    d = proj.check_call("Skill", {"skill": "deploy", "args": "prod"})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Skill(deploy *)")
    assert d.message == "deny rule Skill(deploy *) matches Skill deploy prod"
    d = proj.check_call("Skill", {"skill": "lint"})
    assert (d.effect.value, d.rule.text) == ("allow", "Skill(lint)")
    assert d.message == "allow rule Skill(lint) matches Skill lint"
    assert proj.check_call("Skill", {"skill": "lint", "args": "--fix"}).rule.text == ""


# -- Bash: unparseable commands and redirections -----------------------------------------------

def test_an_unparseable_command_still_meets_an_ask_rule_on_its_whole_text(make: Make) -> None:
    """permissions: "when Claude Code can't fully parse a command, it asks for approval"; an
    ask rule matching the whole text names itself as the reason (first 60 characters shown)."""
    command = 'echo "' + "a" * 70
    proj = make(project=permissions(ask=["Bash(echo *)"]))
    d = proj.check_call("Bash", {"command": command})
    assert (d.effect.value, d.reason.value, d.rule.text) == ("ask", "ask-rule", "Bash(echo *)")
    assert d.message == f"ask rule Bash(echo *) matches `{command[:60]}`"
    assert (d.tool, d.canonical) == ("Bash", "Bash")
    d = make(project=permissions(ask=["Bash(ls *)"])).check_call("Bash", {"command": command})
    assert (d.effect.value, d.reason.value) == ("ask", "unparseable")


def test_a_redirect_to_home_or_a_glob_or_a_variable_needs_approval(make: Make) -> None:
    """permissions#redirections: "A target that starts with ~ or contains a glob character
    needs approval" — even where an Edit allow rule covers the file."""
    proj = make(project=permissions(["Bash(echo *)", "Edit(~/**)", "Edit(./**)"]))
    for command in ("echo hi > ~/notes.txt", "echo hi > out*.txt", 'echo hi > "$OUT"'):
        d = proj.check_call("Bash", {"command": command}, mode="acceptEdits")
        assert d.effect.value == "ask", command
    d = proj.check_call("Bash", {"command": "echo hi > notes.txt"}, mode="acceptEdits")
    assert d.effect.value == "allow"
    assert str(d.parts[0].trace[-1]).startswith("decision     pass  allow (allow-rule): ")


def test_a_read_deny_rule_blocks_a_redirect_to_its_path(make: Make) -> None:
    """permissions#read-and-edit: "A Read deny rule also blocks the Edit and Write tools on
    the same path"; a redirect target is "a file write" (permissions#redirections). A target
    holding a variable is still met by a rule on its spelled-out name."""
    proj = make(project=permissions(["Bash(echo *)"], deny=["Read(**/.env)"]))
    d = proj.check_call("Bash", {"command": "echo x > .env"})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Read(**/.env)")
    assert d.message == "deny rule Read(**/.env) matches redirect > .env"
    d = proj.check_call("Bash", {"command": 'echo x >> "$DIR/.env"'})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Read(**/.env)")
    assert d.message == "deny rule Read(**/.env) matches redirect >> $DIR/.env"


def test_a_hook_answers_for_a_redirect(make: Make) -> None:
    """permissions#extend-permissions-with-hooks: a PreToolUse hook's "allow" skips the
    prompt unless a deny or ask rule matches."""
    proj = make()
    for command in ("echo hi > out.txt", "echo hi > ~/out.txt"):
        d = proj.check_call("Bash", {"command": command}, hook="allow")
        assert [(p.effect.value, p.reason.value) for p in d.parts] == [("allow", "hook")], command


def test_a_read_outside_the_working_directories_says_so(make: Make, tmp_path: Path) -> None:
    """permissions: "Reading files inside the working directory and additionalDirectories is
    allowed without approval" — outside them the default mode asks."""
    outside = tmp_path / "elsewhere.txt"
    d = make().check_call("Read", {"file_path": str(outside)})
    assert (d.effect.value, d.reason.value) == ("ask", "mode")
    assert d.message == (f"no rule matches Read {outside} (outside the working directories); "
                         "default mode asks")


def test_of_a_command_rule_and_a_path_rule_the_first_listed_is_named(make: Make) -> None:
    """permissions: "Read and Edit deny rules apply to ... file commands Claude Code recognizes
    in Bash, such as cat"; when a Bash rule matches too, the rule listed first is reported
    (toolkit's "first match in layer order")."""
    first_path = make(project=permissions(deny=["Read(./secret.txt)", "Bash(cat *)"]))
    d = first_path.check_call("Bash", {"command": "cat secret.txt"})
    assert d.rule.text == "Read(./secret.txt)"
    first_bash = make(project=permissions(deny=["Bash(cat *)", "Read(./secret.txt)"]))
    assert first_bash.check_call("Bash", {"command": "cat secret.txt"}).rule.text == (
        "Bash(cat *)")


def test_a_name_matcher_accepts_the_rules_naming_its_tool() -> None:
    from toolkit.systems.claude_code.permissions.evaluate import _names
    from toolkit.systems.claude_code.permissions.rules import parse_rule

    match = _names("Bash", {"run_in_background": True})
    assert match(parse_rule("Bash", "deny"))
    assert match(parse_rule("Bash(run_in_background:true)", "deny"))
    assert not match(parse_rule("Read", "deny"))
    assert not match(parse_rule("Bash(run_in_background:false)", "deny"))


def test_a_parameter_rule_of_a_search_tool(make: Make) -> None:
    """permissions#match-by-input-parameter: "Tool(param:value)" matches one input field of
    the call (Grep's primary field is path, so pattern may be matched)."""
    proj = make(project=permissions(deny=["Grep(pattern:*password*)"]))
    d = proj.check_call("Grep", {"pattern": "password="})
    assert (d.effect.value, d.rule.text) == ("explicit-deny", "Grep(pattern:*password*)")
    assert proj.check_call("Grep", {"pattern": "user="}).allowed
